#pragma once

#include "KeyDetail.h"

#include <QTabWidget>

class QTableView;

namespace triage {

class AttemptsModel;
class AuditModel;
class EvidenceView;
class JsonView;
class TicketsModel;
class TimelineModel;

/// The tabs of the key detail (DESIGN.md §2 detail view): "Timeline (N)" (TimelineModel,
/// UTC and local time), "Tickets (N)" (TicketsModel and the selected ticket's payload as
/// JSON), "Intent attempts (N)" (AttemptsModel and the selected attempt's request /
/// response / state_before / state_after), "Upstream" (EvidenceView: the last query's
/// evidence and suggested verdict) and "Audit (N)" (AuditModel and the selected row's
/// evidence JSON). A store that failed counts as "unknown" (or "N, earlier" when kept from
/// an earlier read), never 0. Tab indexes are the Tab enum.
class DetailTabs : public QTabWidget {
    Q_OBJECT
public:
    enum Tab { TimelineTab, TicketsTab, AttemptsTab, UpstreamTab, AuditTab };

    explicit DetailTabs(QWidget *parent = nullptr);

    /// Shows `d` in every tab but Upstream (see showRecordedQuery()); selects the first
    /// ticket, the last attempt and the last audit row.
    void showDetail(const KeyDetail &d);
    /// The Upstream tab after a load: the latest recorded query of the key
    /// (latestRecordedCheck()) unless this session's own answer is that one or newer.
    void showRecordedQuery(const KeyDetail &d);
    /// Empties the Upstream tab ("not queried yet"), for another key.
    void clearEvidence();

    QTableView *timelineTable() const { return m_timelineTable; }
    QTableView *ticketsTable() const { return m_ticketsTable; }
    QTableView *attemptsTable() const { return m_attemptsTable; }
    EvidenceView *evidenceView() const { return m_evidence; }
    QTableView *auditTable() const { return m_auditTable; }
    JsonView *auditEvidenceView() const { return m_auditEvidence; }
    AuditModel *auditModel() const { return m_auditModel; }

private:
    void showTicket(int row);
    void showAttempt(int row);
    void showAuditEntry(int row);

    TimelineModel *m_timelineModel;
    TicketsModel *m_ticketsModel;
    AttemptsModel *m_attemptsModel;
    AuditModel *m_auditModel;

    QTableView *m_timelineTable = nullptr;
    QTableView *m_ticketsTable = nullptr;
    JsonView *m_payload = nullptr;
    QTableView *m_attemptsTable = nullptr;
    QTabWidget *m_attemptTabs = nullptr;
    JsonView *m_attemptJson[4] = {};
    EvidenceView *m_evidence = nullptr;
    QTableView *m_auditTable = nullptr;
    JsonView *m_auditEvidence = nullptr;
};

} // namespace triage
