#pragma once

#include "KeyDetailTypes.h"
#include "TimeText.h"

#include <QFuture>
#include <QPointer>
#include <QWidget>

#include <functional>

class QAbstractItemView;
class QLabel;
class QMenu;
class QModelIndex;
class QPushButton;
class QSpinBox;
class QThreadPool;
class QTreeView;

namespace triage {

class AsOfModel;
class EventStepper;
class WindowEventsModel;
class Workspace;

/// The Incident tab's replay panel (DESIGN.md §7 "Replay"): the playhead is the current event
/// row of the event list (its time shown in absolute UTC); Previous / Next step to the
/// previous or next event of the window (Alt+Left / Alt+Right), "◀ Key" / "Key ▶" to the
/// previous or next event of the selected event's key (Alt+Shift+Left / Alt+Shift+Right),
/// fetching pages as needed (EventStepper). Below, "As of T" for the playhead's key: the key
/// is read with loadKeyDetail() on the workspace's workers and keyStateAsOf() runs on its
/// merge pool, never on the GUI thread; a newer playhead drops an older answer. The event
/// list's context menu (installed here) offers "Same key", "Same task (<task_id>)" (the task ids
/// of the playhead key's intent attempts, from the detail read for "As of T"; on an
/// intent.attempt event, that attempt's task) and "±N s around" (N from the spin box, default
/// 30), answered by signals the Incident view turns into a reload. The key detail comes from
/// the workspace (loadKeyDetail()) or, offline, from setKeyDetailReader() (a bundle's
/// details). No SQL and no domain rule here.
class ReplayPanel : public QWidget {
    Q_OBJECT
public:
    /// `workspace` and `events` (whose model shows `model`, possibly through an identity
    /// proxy: rows are the same) must outlive the panel.
    ReplayPanel(Workspace *workspace, WindowEventsModel *model, QAbstractItemView *events, QWidget *parent = nullptr);

    /// Steps the playhead: `direction` > 0 next, < 0 previous; `sameKeyOnly` within its key.
    /// Without a playhead, Next starts at the first event.
    void step(int direction, bool sameKeyOnly);
    /// The event list's context menu for event row `row` (nullptr for a gap row or none):
    /// "Same key (<key>)", "Same task (<task_id>)" and "±N s around <time> (all keys)". The
    /// caller owns it. The task entries need the row's key detail (read for the playhead): until
    /// it is in, one disabled "Same task (reading the key…)" stands in, filled when it arrives.
    QMenu *contextMenuFor(int row);

    /// Reads one key's detail (the workspace's loadKeyDetail(), or a bundle's).
    using KeyDetailReader = std::function<QFuture<KeyDetail>(const QString &idemKey)>;
    /// Replaces where key details come from and the pool keyStateAsOf() runs on (offline
    /// viewer, DESIGN.md §7). `pool` must outlive the panel.
    void setKeyDetailReader(KeyDetailReader reader, QThreadPool *pool);
    /// False (a bundle): the context menu's entries that reload another window are disabled.
    void setReloadsEnabled(bool enabled) { m_reloads = enabled; }

    /// For tests and the screenshot driver.
    AsOfModel *asOfModel() const { return m_asOf; }
    QString playheadText() const;
    QString statusText() const;
    int contextSeconds() const;
    void setContextSeconds(int seconds);

signals:
    /// The as-of panel shows the playhead's key at its time (or says why it cannot).
    void asOfLoaded();
    /// "Same key": show only `key`'s events, keeping the playhead near `at` (µs UTC).
    void sameKeyRequested(const QString &key, UtcMicros at);
    /// "±N s": show every event in [from, to) (µs UTC, whole seconds) across all keys and stores,
    /// keeping the playhead near `at`.
    void contextWindowRequested(UtcMicros from, UtcMicros to, UtcMicros at);
    /// "Same task": show the events of agent task `taskId` (WindowQuery::taskId), keeping the
    /// playhead near `at` (µs UTC).
    void sameTaskRequested(const QString &taskId, UtcMicros at);

private:
    void onCurrentChanged(const QModelIndex &current);
    void moveTo(int row);
    void loadAsOf(const QString &key, UtcMicros at);
    /// Adds row `row`'s "Same task" entries to `menu` before `before` (the placeholder, removed).
    void addTaskActions(QMenu *menu, QAction *before, int row);
    /// `key`'s task ids are known: fills a menu waiting for them.
    void setTasks(const QString &key, const QVector<std::pair<QString, QString>> &tasks);

    Workspace *m_workspace;
    WindowEventsModel *m_model;
    QAbstractItemView *m_events;
    EventStepper *m_stepper;
    AsOfModel *m_asOf;
    quint64 m_generation = 0;
    KeyDetailReader m_readDetail;
    QThreadPool *m_pool;
    /// The task ids of the last key read (attempt id → task id), for "Same task".
    QString m_tasksKey;
    QVector<std::pair<QString, QString>> m_tasks;
    QPointer<QMenu> m_menu;       ///< an open context menu waiting for its task entries
    QPointer<QAction> m_taskWait; ///< its placeholder
    int m_menuRow = -1;
    bool m_reloads = true;

    QLabel *m_playhead;
    QLabel *m_status;
    /// "No further event that way …" after a step found nothing: kept, until the playhead moves,
    /// over an as-of read that arrives later (the operator's last action's answer stays shown).
    QString m_notice;
    QPushButton *m_prev;
    QPushButton *m_next;
    QPushButton *m_prevKey;
    QPushButton *m_nextKey;
    QSpinBox *m_context;
    QTreeView *m_tree;
};

} // namespace triage
