#include "DetailTabs.h"

#include "AttemptsModel.h"
#include "AuditModel.h"
#include "EvidenceView.h"
#include "JsonView.h"
#include "Theme.h"
#include "TicketsModel.h"
#include "TimelineModel.h"
#include "UpstreamCheck.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSplitter>
#include <QTableView>

namespace triage {

DetailTabs::DetailTabs(QWidget *parent)
    : QTabWidget(parent), m_timelineModel(new TimelineModel(this)), m_ticketsModel(new TicketsModel(this)),
      m_attemptsModel(new AttemptsModel(this)), m_auditModel(new AuditModel(this))
{
    setObjectName(QStringLiteral("detailTabs"));

    m_timelineTable = new QTableView(this);
    m_timelineTable->setObjectName(QStringLiteral("timelineTable"));
    m_timelineTable->setModel(m_timelineModel);
    theme::setupTable(m_timelineTable);
    theme::setColumnWidths(m_timelineTable, {196, 168, 132, 58});
    // The summary is what operators read: wrapped on two lines (the tooltip has all of
    // it). Rows have one fixed height, never measured per row: a key with 20,000 attempts
    // has 40,000 events, and sizing rows to their contents laid out every one of them
    // before the first paint (seconds). "kind" repeats the summary's first word, so the
    // column stays in the model but not on screen.
    m_timelineTable->setColumnHidden(TimelineModel::KindColumn, true);
    m_timelineTable->setWordWrap(true);
    m_timelineTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_timelineTable->verticalHeader()->setDefaultSectionSize(2 * QFontMetrics(m_timelineTable->font()).lineSpacing() + 8);
    addTab(m_timelineTable, QStringLiteral("Timeline"));

    auto *tickets = new QSplitter(Qt::Vertical, this);
    tickets->setChildrenCollapsible(false);
    m_ticketsTable = new QTableView(tickets);
    m_ticketsTable->setObjectName(QStringLiteral("ticketsTable"));
    m_ticketsTable->setModel(m_ticketsModel);
    theme::setupTable(m_ticketsTable);
    theme::setColumnWidths(m_ticketsTable, {52, 96, 80, 210, 222, 222});
    m_payload = new JsonView(tickets);
    m_payload->setObjectName(QStringLiteral("ticketPayload"));
    tickets->addWidget(m_ticketsTable);
    tickets->addWidget(m_payload);
    tickets->setSizes({120, 200});
    addTab(tickets, QStringLiteral("Tickets"));
    connect(m_ticketsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showTicket(current.row()); });

    auto *attempts = new QSplitter(Qt::Vertical, this);
    attempts->setChildrenCollapsible(false);
    m_attemptsTable = new QTableView(attempts);
    m_attemptsTable->setObjectName(QStringLiteral("attemptsTable"));
    m_attemptsTable->setModel(m_attemptsModel);
    theme::setupTable(m_attemptsTable);
    theme::setColumnWidths(m_attemptsTable, {52, 30, 100, 60, 130, 150, 80, 222, 222});
    m_attemptTabs = new QTabWidget(attempts);
    m_attemptTabs->setDocumentMode(true);
    const QString titles[4] = {QStringLiteral("Request"), QStringLiteral("Response"), QStringLiteral("State before"),
                               QStringLiteral("State after")};
    for (int i = 0; i < 4; ++i) {
        m_attemptJson[i] = new JsonView(m_attemptTabs);
        m_attemptJson[i]->setObjectName(QStringLiteral("attemptJson%1").arg(i));
        m_attemptTabs->addTab(m_attemptJson[i], titles[i]);
    }
    attempts->addWidget(m_attemptsTable);
    attempts->addWidget(m_attemptTabs);
    attempts->setSizes({130, 200});
    addTab(attempts, QStringLiteral("Intent attempts"));
    connect(m_attemptsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showAttempt(current.row()); });

    m_evidence = new EvidenceView(this);
    addTab(m_evidence, QStringLiteral("Upstream"));

    auto *audit = new QSplitter(Qt::Vertical, this);
    audit->setChildrenCollapsible(false);
    m_auditTable = new QTableView(audit);
    m_auditTable->setObjectName(QStringLiteral("auditTable"));
    m_auditTable->setModel(m_auditModel);
    m_auditTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    theme::setupTable(m_auditTable);
    theme::setColumnWidths(m_auditTable, {196, 90, 120, 80});
    m_auditEvidence = new JsonView(audit);
    m_auditEvidence->setObjectName(QStringLiteral("auditEvidence"));
    audit->addWidget(m_auditTable);
    audit->addWidget(m_auditEvidence);
    audit->setSizes({130, 200});
    addTab(audit, QStringLiteral("Audit"));
    connect(m_auditTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showAuditEntry(current.row()); });
}

void DetailTabs::showRecordedQuery(const KeyDetail &d)
{
    const std::optional<UpstreamCheck> recorded = latestRecordedCheck(d);
    if (!recorded)
        return;
    const auto &shown = m_evidence->check();
    const bool liveIsNewer = shown && shown->detail.idemKey == d.idemKey && shown->recordedAt.isEmpty()
        && (shown->auditId == 0 || shown->auditId >= recorded->auditId);
    if (!liveIsNewer)
        m_evidence->setCheck(*recorded);
}

void DetailTabs::clearEvidence()
{
    m_evidence->clear(QStringLiteral("Not queried yet. \u201cQuery upstream\u201d asks the business system's own query "
                                     "API about this key; the answer is evidence for the suggested verdict."));
}

void DetailTabs::showDetail(const KeyDetail &d)
{
    m_timelineModel->setEvents(d.timeline);
    m_ticketsModel->setTickets(d.tickets);
    m_attemptsModel->setAttempts(d.attempts);
    setTabText(TimelineTab, QStringLiteral("Timeline (%1)").arg(d.timeline.size()));
    auto tabCount = [&](DbRole role, qsizetype n) {
        if (!d.errors.contains(role))
            return QString::number(n);
        return d.keptFromEarlier.contains(role) ? QStringLiteral("%1, earlier").arg(n) : QStringLiteral("unknown");
    };
    setTabText(TicketsTab, QStringLiteral("Tickets (%1)").arg(tabCount(DbRole::Ticket, d.tickets.size())));
    setTabText(AttemptsTab, QStringLiteral("Intent attempts (%1)").arg(tabCount(DbRole::Intent, d.attempts.size())));
    if (!d.tickets.isEmpty())
        m_ticketsTable->setCurrentIndex(m_ticketsModel->index(0, 0));
    else
        m_payload->clear(d.errors.contains(DbRole::Ticket) ? QStringLiteral("The ticket database failed: see above.")
                                                           : QStringLiteral("No ticket row carries this key."));
    if (!d.attempts.isEmpty()) {
        m_attemptsTable->setCurrentIndex(m_attemptsModel->index(int(d.attempts.size()) - 1, 0));
    } else {
        for (JsonView *v : m_attemptJson)
            v->clear(d.errors.contains(DbRole::Intent) ? QStringLiteral("The intent-log database failed: see above.")
                                                       : QStringLiteral("No intent-log attempt for this key."));
    }

    // Audit: operator actions on this key.
    m_auditModel->setEntries(d.audit);
    setTabText(AuditTab, QStringLiteral("Audit (%1)").arg(d.audit.size()));
    if (!d.audit.isEmpty())
        m_auditTable->setCurrentIndex(m_auditModel->index(int(d.audit.size()) - 1, 0));
    else
        m_auditEvidence->clear(QStringLiteral("No operator action on this key yet."));
}

void DetailTabs::showTicket(int row)
{
    if (row < 0 || row >= m_ticketsModel->rowCount())
        return;
    const TicketRow &t = m_ticketsModel->ticket(row);
    m_payload->setJsonText(QStringLiteral("ticket #%1 \u00b7 payload").arg(t.id.text()), t.payload);
}

void DetailTabs::showAttempt(int row)
{
    if (row < 0 || row >= m_attemptsModel->rowCount())
        return;
    const IntentAttempt &a = m_attemptsModel->attempt(row);
    const QString prefix = QStringLiteral("attempt %1 (#%2) \u00b7 ").arg(row + 1).arg(a.id);
    m_attemptJson[0]->setJsonText(prefix + QStringLiteral("request"), a.request);
    m_attemptJson[1]->setJsonText(prefix + QStringLiteral("response"), a.response);
    m_attemptJson[2]->setJsonText(prefix + QStringLiteral("state_before"), a.stateBefore);
    m_attemptJson[3]->setJsonText(prefix + QStringLiteral("state_after"), a.stateAfter);
}

void DetailTabs::showAuditEntry(int row)
{
    if (row < 0 || row >= m_auditModel->rowCount())
        return;
    const AuditEntry &a = m_auditModel->entry(row);
    m_auditEvidence->setJsonText(QStringLiteral("audit #%1 \u00b7 %2 \u00b7 evidence").arg(a.id).arg(a.action),
                                 a.evidence.isEmpty() ? std::nullopt : std::optional<QString>(a.evidence));
}

} // namespace triage
