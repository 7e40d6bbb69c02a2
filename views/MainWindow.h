#pragma once

#include "ConnectionProfile.h"
#include "Queue.h"

#include <QMainWindow>
#include <QMap>

class QLineEdit;
class QSplitter;
class QTabWidget;

namespace triage {

class ConnectionIndicator;
class KeyDetailView;
class QueuePane;
class Workspace;

/// The console's main window: on the left a tab per work queue (Unknown, In flight,
/// Failed, Succeeded, Escalated; QueuePane each, titles with their counts), on the right
/// the KeyDetailView of the selected row; a tool bar with the workspace's name, "Go to
/// key" and Refresh; a status bar with each store's connection state (from
/// Workspace::connectionEvent(); a connection that dropped and was re-opened is
/// announced). Nothing here blocks: every read is a model page or a Workspace future.
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

private:
    void onConnectionEvent(DbRole role, bool up, const QString &message);
    void updateTabTitle(QueueKind kind, qint64 count);

    Workspace *m_workspace;
    QTabWidget *m_queues = nullptr;
    QSplitter *m_splitter = nullptr;
    KeyDetailView *m_detail = nullptr;
    QLineEdit *m_goToKey = nullptr;
    QMap<int, QueuePane *> m_panes;
    QMap<int, ConnectionIndicator *> m_indicators;
};

} // namespace triage
