#pragma once

#include "KeyDetail.h"
#include "Mark.h"
#include "UpstreamCheck.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QVBoxLayout;

namespace triage {

class AttemptsModel;
class EvidenceView;
class JsonView;
class MarkDialog;
class MessageBar;
class RecordFieldsModel;
class TicketsModel;
class TimelineModel;
class Workspace;

/// Everything known about one key (DESIGN.md §2 detail view), read with
/// Workspace::loadKeyDetail() and shown without blocking:
/// - a header: the key, a status badge, biz_type / tenant / age, and inline message bars
///   for warnings (stale, unknown status code, expiry, duplicates) and for stores that
///   failed (the rest of the detail still shows);
/// - the record's fields (RecordFieldsModel) beside a snapshot panel (JsonView) that
///   shows result_snapshot or an attempt's state_before / state_after;
/// - tabs: the merged timeline (UTC and local time), the ticket rows with the selected
///   ticket's payload as JSON, and the intent attempts with the selected attempt's
///   request / response / state_before / state_after as JSON trees; "Upstream" (the last
///   query's evidence and suggested verdict, EvidenceView) and "Audit (N)" (operator
///   actions on the key, with the selected row's evidence JSON);
/// - actions in the header (DESIGN.md §2): "Query upstream", "Mark SUCCESS…" (or "Correct to
///   SUCCESS…" for a FAILED record) and "Mark FAILED…", enabled per the allowed transitions
///   and disabled with the reason in their tooltip (SUCCESS is final, read-only workspace,
///   no upstream); a mark opens MarkDialog and runs markRecord() with the state shown as
///   the compare-and-set's expectation; its outcome appears in an inline bar (a conflict in
///   its own bar with what the record is now, who changed it and a Reload button).
/// A newer loadKey() supersedes one still in flight (its result is dropped on arrival).
class KeyDetailView : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the view.
    explicit KeyDetailView(Workspace *workspace, QWidget *parent = nullptr);
    ~KeyDetailView() override;

    /// Starts loading `key` (returns at once); an empty key clears the view.
    void loadKey(const QString &key);
    /// Loads the current key again.
    void reload();
    /// Shows the "nothing selected" placeholder.
    void clear();

    /// The key shown or being loaded ("" when cleared).
    QString key() const { return m_key; }
    /// True while a detail is being read.
    bool isLoading() const { return m_loading; }
    /// True once the detail of key() has arrived and is shown.
    bool hasDetail() const { return m_hasDetail; }
    /// The detail shown (valid when hasDetail()).
    const KeyDetail &detail() const { return m_detail; }
    /// Texts of the message bars in the header, in order (warnings and errors).
    QStringList messages() const;

    /// Parts, for tests and the screenshot driver: the header's key and status badge, the
    /// snapshot panel, the tables and the bottom tabs.
    QLabel *keyLabel() const { return m_keyLabel; }
    QLabel *statusBadge() const { return m_statusBadge; }
    QLabel *metaLabel() const { return m_metaLabel; }
    JsonView *snapshotView() const { return m_snapshot; }
    QComboBox *snapshotChoice() const { return m_snapshotChoice; }
    QTableView *fieldsTable() const { return m_fieldsTable; }
    QTableView *timelineTable() const { return m_timelineTable; }
    QTableView *ticketsTable() const { return m_ticketsTable; }
    QTableView *attemptsTable() const { return m_attemptsTable; }
    QTabWidget *tabs() const { return m_tabs; }
    QPushButton *queryButton() const { return m_queryButton; }
    QPushButton *markSuccessButton() const { return m_markSuccessButton; }
    QPushButton *markFailedButton() const { return m_markFailedButton; }
    /// The inline bar with the last action's outcome, and the conflict panel.
    MessageBar *actionBar() const { return m_actionBar; }
    MessageBar *conflictBar() const { return m_conflictBar; }
    EvidenceView *evidenceView() const { return m_evidence; }
    QTableView *auditTable() const { return m_auditTable; }
    JsonView *auditEvidenceView() const { return m_auditEvidence; }

    /// The upstream client for "Query upstream" (nullptr: no upstream; the button is then
    /// disabled). Not owned.
    void setUpstreamClient(UpstreamClient *client);
    /// Queries the shown key's upstream (checkUpstream(), recorded in the audit trail) and
    /// shows the answer in the Upstream tab; returns at once. False when not possible now.
    bool queryUpstream();
    /// Opens the mark dialog (window-modal, returns at once) for the shown record and
    /// `toStatus`; accepting it runs the mark. nullptr when marking is not possible now.
    MarkDialog *openMarkDialog(int toStatus);
    /// Opens the mark dialog prefilled from the Upstream tab's SUCCESS / FAILED verdict.
    MarkDialog *applySuggestion();
    /// Runs `request` (markRecord()) and shows its outcome; returns at once.
    void submitMark(const MarkRequest &request);
    /// True while a mark or an upstream query runs.
    bool isBusy() const { return m_markBusy || m_queryBusy; }

signals:
    /// Loading started (true) or the detail arrived (false).
    void loadingChanged(bool loading);
    /// The detail of `key` is shown (also when some stores failed: see messages()).
    void detailLoaded(const QString &key);
    /// A mark changed `key`'s record (applied): queues showing it are out of date.
    void recordChanged(const QString &key);
    /// An upstream query for `key` has been answered and is shown in the Upstream tab.
    void upstreamChecked(const QString &key);
    /// A mark finished with `kind` (MarkResult::Kind; Error also for a store failure).
    void markFinished(int kind, const QString &message);

private:
    void apply(const KeyDetail &detail);
    /// The Upstream tab after a load: the latest recorded query of the key
    /// (latestRecordedCheck()) unless this session's own answer is that one or newer.
    void showRecordedQuery(const KeyDetail &detail);
    void setLoading(bool loading);
    void addMessage(int level, const QString &text);
    void clearMessages();
    void showSnapshotChoice(int index);
    void showTicket(int row);
    void showAttempt(int row);
    QWidget *buildHeader();
    QWidget *buildRecordPanel();
    QWidget *buildSnapshotPanel();
    QWidget *buildTabs();
    QWidget *buildActions();
    void updateActions();
    void showAuditEntry(int row);
    void onMarkResult(const Outcome<MarkResult> &outcome);

    Workspace *m_workspace;
    QString m_key;
    KeyDetail m_detail;
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_hasDetail = false;

    RecordFieldsModel *m_fieldsModel;
    TimelineModel *m_timelineModel;
    TicketsModel *m_ticketsModel;
    AttemptsModel *m_attemptsModel;

    QStackedWidget *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    QLabel *m_keyLabel = nullptr;
    QLabel *m_statusBadge = nullptr;
    QLabel *m_metaLabel = nullptr;
    QLabel *m_loadingLabel = nullptr;
    QVBoxLayout *m_messageLayout = nullptr;
    QTableView *m_fieldsTable = nullptr;
    QLabel *m_noRecordLabel = nullptr;
    QStackedWidget *m_fieldsStack = nullptr;
    QComboBox *m_snapshotChoice = nullptr;
    JsonView *m_snapshot = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableView *m_timelineTable = nullptr;
    QTableView *m_ticketsTable = nullptr;
    JsonView *m_payload = nullptr;
    QTableView *m_attemptsTable = nullptr;
    QTabWidget *m_attemptTabs = nullptr;
    JsonView *m_attemptJson[4] = {};

    /// One entry of the snapshot choice: a caption and the text (nullopt = NULL).
    struct SnapshotSource {
        QString title;
        std::optional<QString> text;
    };
    QVector<SnapshotSource> m_snapshotSources;

    UpstreamClient *m_upstream = nullptr;
    bool m_markBusy = false;
    bool m_queryBusy = false;
    QPushButton *m_queryButton = nullptr;
    QPushButton *m_markSuccessButton = nullptr;
    QPushButton *m_markFailedButton = nullptr;
    QLabel *m_readOnlyNote = nullptr;
    MessageBar *m_actionBar = nullptr;
    MessageBar *m_conflictBar = nullptr;
    EvidenceView *m_evidence = nullptr;
    QTableView *m_auditTable = nullptr;
    JsonView *m_auditEvidence = nullptr;
    QStandardItemModel *m_auditModel = nullptr;
};

} // namespace triage
