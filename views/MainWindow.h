#pragma once

#include "ConnectionProfile.h"
#include "Queue.h"
#include "RecordStatus.h"

#include <QMainWindow>
#include <QMap>

#include <functional>
#include <memory>

class QDialog;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTabWidget;

namespace triage {

class BulkMarkDialog;
class BulkQueryDialog;
class CompensationsPane;
class ProposalsPane;
class ConnectionIndicator;
class PushFeed;
class DuplicatesPane;
class EnvironmentBand;
class IncidentView;
class KeyDetailView;
class MessageBar;
class QueuePane;
class ReviewPane;
class UpstreamClient;
class Workspace;
struct DeepLink;
struct KeyDetail;

/// The console's main window: on the left a tab per work queue (Unknown, In flight,
/// Failed, Succeeded, Escalated; QueuePane each, titles with their counts), then the
/// Duplicate keys, Compensations and Incident (a time window across every store) tabs; on the right
/// the KeyDetailView of the selected row; a tool bar with the workspace's name, "Go to
/// key" and Refresh; a status bar with each store's connection state (from
/// Workspace::connectionEvent(); a connection that dropped and was re-opened is
/// announced). Under the queues a selection bar offers bulk actions on the selected rows
/// (ExtendedSelection): "Mark selected SUCCESS…", "Mark selected FAILED…" (a confirmation
/// listing every key, then markRecords() and a per-row report) and "Query selected
/// upstream" (BulkQueryDialog). The window owns the one UpstreamClient, built from
/// WorkspaceConfig::upstreams (for --demo, main.cpp points them at the simulator).
/// Above the queues, two bars hidden until they have something to say: the [biz.*] config
/// warnings, and reconciliation's freshness (no reconcile run finished within
/// reconcile_expected_every: reconcileFreshness(), doctor's words; DESIGN.md §8).
/// Nothing here blocks: every read is a model page or a Workspace future.
/// Default size 1400 × 900, with the list and the detail both visible.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `workspace` must outlive the window. All queues start loading at once (Unknown
    /// first, so its first page is the first answer), and the connections are probed.
    explicit MainWindow(Workspace *workspace, QWidget *parent = nullptr);
    ~MainWindow() override;

    /// The pane of `kind`.
    QueuePane *queuePane(QueueKind kind) const;
    /// The pane of the current tab.
    QueuePane *currentPane() const;
    /// The detail view (right side).
    KeyDetailView *detailView() const { return m_detail; }
    /// The status-bar indicator of `role`.
    ConnectionIndicator *connectionIndicator(DbRole role) const { return m_indicators.value(int(role)); }
    /// The splitter between the queues and the detail.
    QSplitter *splitter() const { return m_splitter; }

    /// Shows the detail of `key` and selects its row in the current queue when loaded.
    void openKey(const QString &key);
    /// Reloads every queue and the detail.
    void refreshAll();
    /// Reloads every queue (not the detail).
    void refreshQueues();
    /// After the operator's own action (a mark, a bulk mark, a compensation, a resume):
    /// reloads every queue with its count, the Duplicate keys and the Compensations tabs,
    /// without waiting for Refresh.
    void refreshAfterAction();
    /// The duplicate-key and compensation tabs (for tests).
    DuplicatesPane *duplicatesPane() const { return m_duplicates; }
    CompensationsPane *compensationsPane() const { return m_compensations; }
    /// The Proposals tab (four-eyes proposals waiting for a second operator).
    ProposalsPane *proposalsPane() const { return m_proposals; }
    /// The Review tab (the daily review, DESIGN.md §8 "The Review view and the report").
    ReviewPane *reviewPane() const { return m_review; }
    /// Makes the Review tab current (it loads the day's review when first shown).
    void showReview();
    /// Makes `pane` (one of the tabs: reviewPane(), duplicatesPane(), …) the current tab.
    void showTab(QWidget *pane);
    /// The Incident tab (a time window across every store, DESIGN.md §7).
    IncidentView *incidentView() const { return m_incident; }
    /// Makes the Incident tab current with the window [from, to) (µs, UTC) and loads it.
    void showIncident(qint64 from, qint64 to);
    /// Opens a deep link (DESIGN.md §7 "Links"): a key link shows that key's detail (the key
    /// exactly, untrimmed); a window link makes the Incident tab current on its window and
    /// filters and selects its event (IncidentView::openLink()).
    void openLink(const DeepLink &link);
    /// Makes the Incident tab current on incident `id` (its window, filters, pins and notes).
    void openIncident(qint64 id);
    /// Live queues (DESIGN.md §9 "Live queues"): every queue re-reads its rows every
    /// `seconds` (0: off, the default of a window built without it; the console passes
    /// livePollSeconds() of its config), 6× slower while the window is hidden or minimized.
    /// The status bar's live indicator says "live: polling every 5 s" or, in red, "stale since
    /// 02:14:07 UTC (<store>: <why>)" while a queue's poll fails, and with 0 "live updates off:
    /// Refresh to update".
    void setLivePolling(int seconds);
    /// PostgreSQL push (DESIGN.md §9 "Push"): the feed's hints and resyncs make the queues
    /// that read a changed store poll at once (QueueModel::requestPoll()) and the key detail
    /// re-read; the live indicator says "live: push + polling every 5 s", or adds "(push lost:
    /// reconnecting)" in amber / "(push unavailable)" with the reason in its tooltip. The feed
    /// stays owned by the caller; nullptr detaches it.
    void setPushFeed(PushFeed *feed);
    /// The live indicator in the status bar.
    QLabel *liveIndicator() const { return m_liveLabel; }
    /// The upstream client (nullptr when no biz_type has an upstream).
    UpstreamClient *upstreamClient() const { return m_upstream.get(); }
    /// Loads the selected rows' details, then opens the bulk-mark confirmation for
    /// `toStatus` (returns at once; the dialog appears when the details are in).
    void markSelected(RecordStatusCode toStatus);
    /// Loads the selected rows' details, then opens and starts a BulkQueryDialog.
    void querySelected();
    /// The bulk-action buttons, for tests.
    QPushButton *bulkButton(int which) const { return m_bulkButtons[which]; }
    /// Emitted when a bulk dialog opened (for tests and the screenshot driver).
    Q_SIGNAL void bulkDialogOpened(QDialog *dialog);
    /// The bar above the queues that shows the config warnings (checkBizTypeSections():
    /// [biz.*] sections without records, biz_types of the records without a section);
    /// hidden while there are none.
    MessageBar *configWarningBar() const { return m_configBar; }
    /// Emitted once the [biz.*] check at start has finished, with its warnings (empty
    /// when there are none or the check failed; a failure is logged).
    Q_SIGNAL void bizTypeCheckFinished(const QStringList &warnings);
    /// The bar above the queues that warns when no reconcile run has finished for
    /// `[console] reconcile_expected_every` (default 3600 s): reconcileFreshness(), the rule
    /// and words doctor prints (DESIGN.md §8 "Freshness"); hidden while there is no warning.
    MessageBar *reconcileWarningBar() const { return m_reconcileBar; }
    /// Reads reconciliation's freshness on the idempotency worker and shows or hides the bar
    /// with the answer (a later check's answer wins). Runs at start, on Refresh and every
    /// kReconcileRecheckMs while the window is open.
    void checkReconcileFreshness();
    /// Emitted once a freshness check's answer is shown: the warning, or "" (none; a failed
    /// check is logged and leaves the bar as it was).
    Q_SIGNAL void reconcileCheckFinished(const QString &warning);
    /// How often the window re-reads reconciliation's freshness (ms): 5 minutes.
    static constexpr int kReconcileRecheckMs = 5 * 60 * 1000;
    /// The red bar above everything while the global freeze is on (DESIGN.md §8 "Safety
    /// policy"): "Frozen by alice at 2026-12-03 08:14:07 UTC: <reason> — every write is
    /// refused" (freezeMessage()); hidden while not frozen.
    MessageBar *freezeBar() const { return m_freezeBar; }
    /// Reads the freeze row on the idempotency worker (readFreeze()) and shows or hides the bar
    /// (a later check's answer wins). Runs at start, on Refresh and every kFreezeRecheckMs.
    void checkFreeze();
    /// Emitted once a freeze check's answer is shown: the bar's text, or "" (not frozen; a
    /// failed check is logged and leaves the bar as it was).
    Q_SIGNAL void freezeCheckFinished(const QString &text);
    /// How often the window re-reads the freeze (ms): 30 seconds.
    static constexpr int kFreezeRecheckMs = 30 * 1000;
    /// The environment's band at the top (DESIGN.md §5 "Environments"; hidden without one).
    /// Switching writes on from it re-enables the window's write actions.
    EnvironmentBand *environmentBand() const { return m_environmentBand; }

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void updateLiveIndicator();
    void updateLiveSlowdown();
    void onPushHint(const QSet<int> &roles);
    PushFeed *m_push = nullptr;
    int m_livePollSeconds = 0;
    QLabel *m_liveLabel = nullptr;
    bool m_livePollingSet = false; ///< setLivePolling() was called: the indicator shows (also "off")
    /// Gives the Incident tab most of the width while it is current, and the queues their
    /// split back after (once the splitter is laid out).
    void fitSplitterToTab();
    void onConnectionEvent(DbRole role, bool up, const QString &message);
    void onOperatorAction(const QString &idemKey);
    void updateTabTitle(QueueKind kind, qint64 count);
    void updateBulkBar();
    void loadDetails(const QStringList &keys, std::function<void(QVector<KeyDetail>)> then);
    QWidget *buildBulkBar();

    Workspace *m_workspace;
    QTabWidget *m_queues = nullptr;
    QSplitter *m_splitter = nullptr;
    KeyDetailView *m_detail = nullptr;
    QLineEdit *m_goToKey = nullptr;
    MessageBar *m_configBar = nullptr;
    MessageBar *m_reconcileBar = nullptr;
    MessageBar *m_freezeBar = nullptr;
    EnvironmentBand *m_environmentBand = nullptr;
    quint64 m_freezeCheck = 0; ///< generation of the latest freeze check (older answers are dropped)
    quint64 m_reconcileCheck = 0; ///< generation of the latest freshness check (older answers are dropped)
    QMap<int, QueuePane *> m_panes;
    DuplicatesPane *m_duplicates = nullptr;
    ReviewPane *m_review = nullptr;
    CompensationsPane *m_compensations = nullptr;
    ProposalsPane *m_proposals = nullptr;
    QPushButton *m_proposalsWaiting = nullptr; ///< "2 proposals waiting" in the header; hidden at 0
    IncidentView *m_incident = nullptr;
    QList<int> m_sizesBeforeIncident; ///< the split to restore when the Incident tab is left
    static constexpr int kDetailMinWidth = 520;      ///< the detail pane's minimum beside the queues (px)
    static constexpr int kIncidentDetailWidth = 320; ///< its minimum while the Incident tab is current (px)
    QMap<int, ConnectionIndicator *> m_indicators;
    std::unique_ptr<UpstreamClient> m_upstream;
    QLabel *m_selectionLabel = nullptr;
    QPushButton *m_bulkButtons[3] = {};
    bool m_bulkLoading = false;
};

} // namespace triage
