#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace triage {

class MainWindow;

/// Drives `triage-console --screenshot FILE.png`: waits until the default (Unknown) queue's
/// first page is in (and, with setIncidentTab(), the Incident tab's window), selects a row (the `selectKey`'s detail, or the first row), waits for
/// that detail, then saves QWidget::grab() of the window as `path` and emits finished().
/// The count is waited for only up to 5 s more (a COUNT(*) over a big table may be slow;
/// the shot then says "counting…"). Gives up after `timeoutMs` (finished() with exit code 2).
/// Exit codes: 0 saved; 1 the image could not be written; 2 a database error or timeout
/// (the image is still written when possible, showing the error).
class ScreenshotRunner : public QObject {
    Q_OBJECT
public:
    /// Watches `window`; saves to `path`; opens `selectKey` (or the first row when empty).
    ScreenshotRunner(MainWindow *window, QString path, QString selectKey, int timeoutMs = 60000, QObject *parent = nullptr);

    /// Runs `action` on the selected key before the shot: "query" (Query upstream; the shot
    /// then shows the Upstream tab with the evidence and verdict), or "" for none.
    void setAction(const QString &action) { m_action = action; }
    /// Shoots the Incident tab instead of the Unknown queue's first row: waits, besides the
    /// Unknown queue's first page, for IncidentView::windowLoaded() (the caller makes the tab
    /// current with MainWindow::showIncident()); no row is selected unless `selectKey` is set.
    void setIncidentTab(bool incident) { m_incident = incident; }
    /// Shoots the Review tab (the caller makes it current with MainWindow::showReview()): waits,
    /// besides the Unknown queue's first page, for ReviewPane::loaded() (then selects the first
    /// item shown and waits for its key's detail) or loadFailed() (the shot shows the error; exit 2).
    void setReviewTab(bool review) { m_review = review; }
    /// Shoot the Duplicate keys tab once its first page is in, with the first group's
    /// tickets side by side when there is one.
    void setDuplicatesTab(bool duplicates) { m_duplicates = duplicates; }
    /// Shoot the Proposals tab (the caller makes it current) once its list is in.
    void setProposalsTab(bool proposals) { m_proposals = proposals; }
    /// With setIncidentTab(): once the window is in, makes event row `row` of the Incident tab's
    /// list current (the replay panel's playhead) and waits for its "As of T" panel; -1: none.
    void setIncidentSelect(int row) { m_incidentSelect = row; }
    /// Milliseconds to wait, once everything is in, for the last layouts and deferred paints
    /// before grabbing (default 250; the start-race stress test uses 0).
    void setSettleDelay(int ms) { m_settleMs = qMax(0, ms); }

    /// Starts watching the window; call before the event loop runs (the window's models
    /// deliver every page and count from the event loop, never inside their constructor or
    /// setRequest(): QueueModel's contract, so nothing that arrives is missed).
    void start();

signals:
    /// The run is over: `exitCode` as above, `message` for stderr ("" on success).
    void finished(int exitCode, const QString &message);

private:
    void onPageLoaded();
    void onPageError(const QString &message);
    void onDetailLoaded(const QString &key);
    void maybeShoot();
    void shoot();
    void fail(int code, const QString &message);

    MainWindow *m_window;
    QString m_path;
    QString m_selectKey;
    QTimer m_timeout;
    QTimer m_countGrace; ///< started when all but the count is ready
    bool m_pageReady = false;
    bool m_review = false;
    bool m_reviewReady = false;
    bool m_proposals = false;
    bool m_proposalsReady = false;
    bool m_duplicates = false;
    bool m_duplicatesReady = false;
    bool m_countReady = false;
    bool m_detailWanted = false;
    bool m_detailReady = false;
    bool m_done = false;
    bool m_shooting = false;
    QString m_waitingFor;
    QString m_dbError;
    QString m_failedWhat = QStringLiteral("the Unknown queue"); ///< what m_dbError is about
    QString m_action;
    bool m_actionStarted = false;
    bool m_actionDone = false;
    int m_settleMs = 250;
    bool m_incident = false;
    bool m_incidentReady = false;
    int m_incidentSelect = -1;
};

} // namespace triage
