#pragma once

#include "KeyDetail.h"
#include "UpstreamCheck.h"

#include <QDialog>

#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace triage {

class MessageBar;
class Workspace;

/// A bulk upstream query (UpstreamClient::queryMany()): a progress bar, Cancel, one table
/// row per key filled in as answers arrive (upstream class, kind, ms, suggested verdict,
/// audit row), and when the run pauses after 5 consecutive UNUSABLE answers an inline
/// panel asking the operator to Resume or Stop. The backend (checkUpstreamMany()) records
/// each answer as it arrives and stops the run when an audit write fails; the dialog then
/// names the failure and every key not recorded.
class BulkQueryDialog : public QDialog {
    Q_OBJECT
public:
    /// Consecutive UNUSABLE answers that pause the run.
    static constexpr int kPauseAfterUnusable = 5;
    /// A dialog for querying the keys of `details` through `client` (both must outlive it).
    BulkQueryDialog(Workspace *workspace, UpstreamClient *client, QVector<KeyDetail> details, QWidget *parent = nullptr);
    ~BulkQueryDialog() override;
    /// Starts the run (returns at once).
    void start();
    /// True once the run ended and every answer's audit write came back.
    bool isDone() const { return m_ended; }
    /// Parts, for tests.
    QTableWidget *table() const { return m_table; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *summary() const { return m_summary; }
    MessageBar *pauseBar() const { return m_pauseBar; }
    /// Leaves a pause (Resume) or ends the run after one (Stop).
    void resume();
    void stop();
    /// Aborts the run.
    void cancel();

signals:
    /// The run ended and every answer's audit write came back (see summary() for failures).
    void done();

private:
    void onResult(int index, const UpstreamEvidence &evidence);
    void onChecked(int index, const UpstreamCheck &check);
    void onFinished(const UpstreamBulkCheckReport &report);
    void onPaused(const UpstreamBulkPause &pause);

    Workspace *m_workspace;
    UpstreamClient *m_client;
    QVector<KeyDetail> m_details;
    std::shared_ptr<UpstreamBulkCheck> m_bulk;
    UpstreamBulkRun *m_run = nullptr; ///< m_bulk's run
    QTableWidget *m_table;
    QProgressBar *m_progress;
    QLabel *m_summary;
    MessageBar *m_pauseBar;
    QPushButton *m_resume;
    QPushButton *m_stop;
    QPushButton *m_cancel;
    QPushButton *m_close;
    QVector<bool> m_handled;      ///< rows whose answer is shown
    QVector<bool> m_shownChecked; ///< rows whose verdict and audit row are shown
    bool m_ended = false;
    QString m_endText;
};

} // namespace triage
