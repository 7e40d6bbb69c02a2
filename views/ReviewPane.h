#pragma once
// The console's Review tab (DESIGN.md §8 "The Review view and the report", issue 16): the day's
// review read by readReview() (Review.h) on the idempotency worker and shown from its
// snapshot: a header (day picker, review zone, the window, "as of", the last sign-off), the
// open items (by default only those new or changed since the last sign-off), the groups
// (age × reason × biz_type), the SLA per biz_type and the trend charts (Qt Charts); actions on
// the selected item (Mark reviewed, Add note…, Claim, Resolve…) and on the day (Sign off…,
// Export report…). No SQL and no domain rule here: every action is a service future delivered
// by whenReady(); the rules (claims ask first, reason length) are the backends'.

#include "Review.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>

#include <optional>

class QCheckBox;
class QChart;
class QDateEdit;
class QLabel;
class QMessageBox;
class QPushButton;
class QTableView;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace triage {

class ReviewGroupsModel;
class ReviewItemsModel;
class Workspace;

class ReviewPane : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the pane. Nothing loads until load() or the first show.
    explicit ReviewPane(Workspace *workspace, QWidget *parent = nullptr);
    ~ReviewPane() override;

    /// The open items of the first paint (readReview()'s openLimit) and of each later page.
    static constexpr int kFirstPage = 200, kNextPage = 2000;

    /// Reads the review of the picked day (before any pick: readReview()'s default, the day of
    /// the server's now in the review zone) with readReview(…, "console", kFirstPage): the
    /// totals, groups, SLA and the first kFirstPage items; the answer arrives through the event
    /// loop (loaded() or loadFailed()); an older answer is dropped. The other open items follow
    /// in pages of kNextPage (readReviewItems(), appended to the list; itemsComplete() at the
    /// end); Sign off… and Export wait for them (the report holds every item).
    void load();
    /// Shows `snapshot` (what load() does with its answer; tests and the offline shot call it).
    void setSnapshot(const ReviewSnapshot &snapshot);
    /// The snapshot shown, if any.
    const std::optional<ReviewSnapshot> &snapshot() const { return m_snapshot; }

    ReviewItemsModel *itemsModel() const { return m_items; }
    ReviewGroupsModel *groupsModel() const { return m_groups; }
    /// The header line ("2026-10-25 · Europe/Berlin · …") and the message line (for tests).
    QString headerText() const;
    QString messageText() const;
    /// Selects escalation `id` in the items list (showing all items if it is not new); false
    /// when it is not open in the snapshot.
    bool selectEscalation(qint64 id);

    /// The live update (DESIGN.md §9 "Live review"): every `ms` (0: off; × 6 while slowed) the
    /// pane reads reviewChangeMark() and, when it changed, re-reads the review (as many items
    /// as it holds plus kLiveMargin) and folds it in without a reset: new escalations appear
    /// highlighted, changed ones (claims, notes, breaches, SLA) update in place, resolved ones
    /// stay greyed with who resolved them until the next Load; the figures, SLA and charts
    /// follow. The selection and the scroll position stay. Skipped while an action or a page
    /// read runs; a new day or a new sign-off re-reads the whole view instead.
    void setLiveInterval(int ms);
    /// The window is hidden: polls every interval × 6 (as the queues).
    void setLiveSlowed(bool slowed);
    /// Polls now (a push hint; tests), unless a poll is already running.
    void rereadLive();
    /// "live: polling every 5 s", "stale since 02:14:07 UTC (why)", "live updates off: Load to
    /// update" when set to 0, "" before setLiveInterval() was ever called.
    QString liveStatusText() const;
    static constexpr int kLiveMargin = 50;

    /// Writes the report of the shown snapshot to `path` by its suffix: ".html" reviewHtml(),
    /// ".pdf" writeReviewPdf(), ".json" reviewJson(), ".csv" reviewCsv() (ReviewExport.h); false
    /// with `*error` for another suffix ("export as .html, .pdf, .json or .csv: \"<path>\"") or
    /// a write failure ("cannot write <path>: <why>").
    bool exportReport(const QString &path, QString *error) const;

signals:
    /// The operator picked an item or a group: show `key` in the key detail.
    void keyActivated(const QString &key);
    /// A snapshot is shown (after load() or setSnapshot()).
    void loaded();
    /// Every open item of the shown snapshot is in the list (after load()'s later pages).
    void itemsComplete();
    /// load() failed with `message` (the previous snapshot stays shown).
    void loadFailed(const QString &message);
    /// An action (reviewed, note, claim, resolve, sign-off) finished: `message` for the operator.
    void actionFinished(bool ok, const QString &message);
    /// A live poll ended: `ok` false when a read failed (the view then says stale); the rows it
    /// entered, updated and marked left (all 0 when nothing had changed).
    void livePolled(bool ok, int entered, int updated, int left);

protected:
    void showEvent(QShowEvent *event) override;

private:
    const ReviewItem *selectedItem() const;
    void showMessage(const QString &text, bool bad);
    void updateHeader();
    void updateActions();
    /// Reads the next page of open items after the shown ones (load()'s `generation`).
    void loadMoreItems(quint64 generation);
    void fillSla();
    /// addReviewNote(`id`, `kind`, `text`), then finishAction() with `done` or the error.
    void sendNote(qint64 id, const QString &kind, const QString &text, const QString &done);
    void markReviewed();
    void addNote();
    void claim();
    void resolve(bool claimConfirmed);
    void signOff();
    void exportDialog();
    void onGroupActivated(int row);
    void finishAction(bool ok, const QString &message, bool reload);
    void restartLiveTimer();
    void liveTick();
    /// Folds a live re-read in (or shows it whole after a new day or sign-off).
    void applyLive(const ReviewSnapshot &fresh);
    void liveFailed(const QString &why);
    void updateLiveLabel();

    Workspace *m_workspace;
    std::optional<ReviewSnapshot> m_snapshot;
    QElapsedTimer m_readAt; ///< since the snapshot's claims were read (claimAsksFirst())
    quint64 m_generation = 0;
    bool m_loadedOnce = false;
    bool m_busy = false;
    bool m_dayPicked = false; ///< the operator picked a day (else readReview()'s default day)

    QDateEdit *m_day = nullptr;
    QLabel *m_header = nullptr;
    QLabel *m_signOffLine = nullptr;
    QLabel *m_message = nullptr;
    QCheckBox *m_newOnly = nullptr;
    QTableView *m_itemsView = nullptr;
    QTableView *m_groupsView = nullptr;
    QTableWidget *m_sla = nullptr;
    QTabWidget *m_lower = nullptr;
    QChart *m_charts[4] = {};
    QPushButton *m_reviewed = nullptr, *m_note = nullptr, *m_claim = nullptr, *m_resolve = nullptr;
    QPushButton *m_signOff = nullptr, *m_export = nullptr;
    ReviewItemsModel *m_items = nullptr;
    ReviewGroupsModel *m_groups = nullptr;
    QPointer<QMessageBox> m_claimQuestion;
    QTimer *m_liveTimer = nullptr;
    QLabel *m_live = nullptr;
    int m_liveMs = 0;
    bool m_liveSet = false;    ///< setLiveInterval() was called (by the window): the line is shown, "off" too
    bool m_liveSlowed = false;
    bool m_liveInFlight = false;
    QString m_liveMark;        ///< reviewChangeMark() read before the snapshot shown ("" unknown)
    QString m_liveStaleSince;  ///< HH:MM:SS UTC of the first failed poll, "" when fine
    QString m_liveWhy;
};

} // namespace triage
