#pragma once

#include "Claim.h"
#include "KeyDetail.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "UpstreamCheck.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QWidget>

#include <functional>
#include <memory>

class QTimer;

class QComboBox;
class QLabel;
class QMessageBox;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace triage {

class CompensationRunner;
class DetailHeader;
class DetailTabs;
class EvidenceView;
class JsonView;
class MarkDialog;
class MarkQueryController;
class MessageBar;
class RecordSnapshotPanel;
class Workspace;

/// Everything known about one key (DESIGN.md §2 detail view), read with
/// loadKeyDetail() and shown without blocking:
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
/// Composed of DetailHeader, RecordSnapshotPanel, DetailTabs and MarkQueryController (the
/// actions); this class loads the detail and hands it to them.
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
    /// Offline (a bundle, DESIGN.md §7 "Offline viewer"): details come from `reader` instead
    /// of loadKeyDetail(); with a null workspace every action is disabled (read-only).
    void setDetailReader(std::function<QFuture<KeyDetail>(const QString &key)> reader) { m_readDetail = std::move(reader); }
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
    /// The live claim on the key shown, as read with its detail (DESIGN.md §8 "Claims");
    /// nullopt when nobody holds it, offline, or before it arrives.
    const std::optional<Claim> &claim() const { return m_claim; }
    /// Milliseconds since claim() was read (this machine's monotonic clock), for
    /// claimAsksFirst(); -1 before a claim was read.
    qint64 claimReadElapsedMs() const { return m_claimRead.isValid() ? m_claimRead.elapsed() : -1; }

    /// Parts, for tests and the screenshot driver: the header's key and status badge, the
    /// snapshot panel, the tables and the bottom tabs.
    QLabel *keyLabel() const;
    QLabel *statusBadge() const;
    QLabel *metaLabel() const;
    JsonView *snapshotView() const;
    QComboBox *snapshotChoice() const;
    QTableView *fieldsTable() const;
    QTableView *timelineTable() const;
    QTableView *ticketsTable() const;
    QTableView *attemptsTable() const;
    QTabWidget *tabs() const;
    QPushButton *queryButton() const;
    /// "Copy link": the shown key's triage://key/ link to the clipboard (DESIGN.md §7 "Links").
    QPushButton *copyLinkButton() const;
    QPushButton *markSuccessButton() const;
    QPushButton *markFailedButton() const;
    /// The inline bar with the last action's outcome, and the conflict panel.
    MessageBar *actionBar() const;
    /// The header (key, status, buttons, message bars) and the actions' controller.
    DetailHeader *header() const { return m_header; }
    MarkQueryController *markController() const { return m_actions; }
    MessageBar *conflictBar() const;
    EvidenceView *evidenceView() const;
    QTableView *auditTable() const;
    JsonView *auditEvidenceView() const;

    /// The upstream client for "Query upstream" (nullptr: no upstream; the button is then
    /// disabled). Not owned.
    void setUpstreamClient(UpstreamClient *client);
    /// The compensation service that approves compensation proposals from the proposal bar
    /// (MarkQueryController::setCompensationRunner()).
    void setCompensationRunner(std::shared_ptr<CompensationRunner> runner);
    /// Queries the shown key's upstream (checkUpstream(), recorded in the audit trail) and
    /// shows the answer in the Upstream tab; returns at once. False when not possible now.
    bool queryUpstream();
    /// Opens the mark dialog (window-modal, returns at once) for the shown record and
    /// `toStatus`; accepting it runs the mark. nullptr when marking is not possible now, or
    /// when someone else holds a claim on the key: then it asks first (claimQuestion(),
    /// DESIGN.md §8 "Claims") and opens the dialog once the operator says to go on.
    MarkDialog *openMarkDialog(RecordStatusCode toStatus);
    /// The open "someone else holds this key" question, or nullptr.
    QMessageBox *claimQuestion() const;
    /// Opens the mark dialog prefilled from the Upstream tab's SUCCESS / FAILED verdict.
    MarkDialog *applySuggestion();
    /// Runs `request` (markRecord()) and shows its outcome; returns at once.
    void submitMark(const MarkRequest &request);
    /// True while a mark or an upstream query runs.
    bool isBusy() const;

    /// Live key detail (DESIGN.md §9 "Live key detail"): every `ms` milliseconds (0: off, the
    /// default) re-reads the shown key (loadKeyDetail() and its claim) in the background,
    /// skipped while a read, a mark or a query runs, and offline. When keyDetailChanges() (or
    /// the claim's holder) says something moved, the detail is shown anew and the header's
    /// live bar says what: "Updated live at 12:00:05 UTC: status PROCESSING → SUCCESS;
    /// mark_success applied by alice." A re-read a store fails keeps what is shown and says
    /// "Live updates stale since 12:00:05 UTC (<store error>): …" until a re-read succeeds.
    void setLiveInterval(int ms);
    /// Re-reads 6× less often while `slowed` (the window is hidden or minimised).
    void setLiveSlowed(bool slowed);
    /// A push hint for the shown key's stores (DESIGN.md §9 "Push"): the live re-read now
    /// (what the interval timer does; skipped while a read, a mark or a query runs).
    void rereadLive() { liveTick(); }

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
    /// A live re-read finished: `changes` as shown in the live bar (empty: nothing moved),
    /// `stale` when a store failed it.
    void liveChecked(const QStringList &changes, bool stale);

private:
    void apply(const KeyDetail &detail);
    void setLoading(bool loading);
    void liveTick();
    void restartLiveTimer();
    /// The live re-read's detail `fresh` and claim arrived: shows what moved.
    void liveArrived(const KeyDetail &fresh, const Outcome<QHash<QString, Claim>> &claims);

    Workspace *m_workspace;
    std::function<QFuture<KeyDetail>(const QString &key)> m_readDetail;
    QString m_key;
    KeyDetail m_detail;
    std::optional<Claim> m_claim;
    QElapsedTimer m_claimRead; ///< started when m_claim was read
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_hasDetail = false;
    QTimer *m_liveTimer = nullptr;
    int m_liveMs = 0;
    bool m_liveSlowed = false;
    bool m_liveInFlight = false;
    QString m_liveStaleSince; ///< "HH:mm:ss" UTC of the first failed re-read in a row, or ""

    QStackedWidget *m_stack = nullptr;
    QLabel *m_placeholder = nullptr;
    DetailHeader *m_header = nullptr;
    RecordSnapshotPanel *m_recordPanel = nullptr;
    DetailTabs *m_tabs = nullptr;
    MarkQueryController *m_actions = nullptr;
};

} // namespace triage
