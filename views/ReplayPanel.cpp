#include "ReplayPanel.h"
#include "FutureChain.h"

#include "AsOf.h"
#include "AsOfModel.h"
#include "EventStepper.h"
#include "KeyDetail.h"
#include "Theme.h"
#include "WhenReady.h"
#include "WindowEventsModel.h"
#include "Workspace.h"

#include <QAbstractItemView>
#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QThreadPool>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <memory>

namespace triage {

namespace {

constexpr qint64 kSecond = 1000000;

/// Whole seconds at or below `t` (µs).
UtcMicros floorSecond(UtcMicros t)
{
    return t >= 0 ? t / kSecond * kSecond : -((-t + kSecond - 1) / kSecond) * kSecond;
}

/// The task ids of `detail`'s intent attempts: (attempt id, task id), attempts without one left out.
QVector<std::pair<QString, QString>> tasksOf(const KeyDetail &detail)
{
    QVector<std::pair<QString, QString>> tasks;
    for (const IntentAttempt &a : detail.attempts)
        if (a.taskId && !a.taskId->isEmpty())
            tasks.append({QString::number(a.id), *a.taskId});
    return tasks;
}

} // namespace

ReplayPanel::ReplayPanel(Workspace *workspace, WindowEventsModel *model, QAbstractItemView *events, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_model(model), m_events(events), m_stepper(new EventStepper(model, this)),
      m_asOf(new AsOfModel(this)), m_pool(workspace ? workspace->mergePool() : QThreadPool::globalInstance())
{
    if (workspace)
        m_readDetail = [workspace](const QString &key) { return loadKeyDetail(*workspace, key); };
    setObjectName(QStringLiteral("replayPanel"));
    m_playhead = new QLabel(this);
    m_playhead->setObjectName(QStringLiteral("replayPlayhead"));
    m_playhead->setTextFormat(Qt::PlainText);
    m_playhead->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_playhead->setFont(theme::monospaceFont(-0.5));
    m_playhead->setWordWrap(true); // a long key must not widen the view (the window would grow)

    // One action per step, shared by its button and the shortcut (live while the event list
    // or this panel has the focus).
    auto makeStep = [this, events](const QString &name, const QString &text, const QString &tip, QKeyCombination key, int direction,
                                   bool sameKey) {
        auto *action = new QAction(text, this);
        action->setObjectName(name);
        action->setShortcut(QKeySequence(key));
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        action->setToolTip(QStringLiteral("%1 (%2)").arg(tip, action->shortcut().toString(QKeySequence::NativeText)));
        connect(action, &QAction::triggered, this, [this, direction, sameKey] { step(direction, sameKey); });
        addAction(action);
        events->addAction(action);
        auto *button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        return button;
    };
    QToolButton *prev = makeStep(QStringLiteral("replayPrevious"), QStringLiteral("\u25C0 Previous"),
                                 QStringLiteral("The previous event of the window"), Qt::ALT | Qt::Key_Left, -1, false);
    QToolButton *next = makeStep(QStringLiteral("replayNext"), QStringLiteral("Next \u25B6"), QStringLiteral("The next event of the window"),
                                 Qt::ALT | Qt::Key_Right, 1, false);
    QToolButton *prevKey = makeStep(QStringLiteral("replayPreviousKey"), QStringLiteral("\u25C0 Key"),
                                    QStringLiteral("The previous event of the selected event's key"), Qt::ALT | Qt::SHIFT | Qt::Key_Left, -1, true);
    QToolButton *nextKey = makeStep(QStringLiteral("replayNextKey"), QStringLiteral("Key \u25B6"),
                                    QStringLiteral("The next event of the selected event's key"), Qt::ALT | Qt::SHIFT | Qt::Key_Right, 1, true);
    m_context = new QSpinBox(this);
    m_context->setObjectName(QStringLiteral("replayContextSeconds"));
    m_context->setRange(1, 86400);
    m_context->setValue(30);
    m_context->setPrefix(QStringLiteral("\u00B1"));
    m_context->setSuffix(QStringLiteral(" s"));
    m_context->setToolTip(QStringLiteral("The context window of an event's menu: this many seconds before and after it, all keys"));

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Replay:"), this));
    for (QWidget *w : {static_cast<QWidget *>(prev), static_cast<QWidget *>(next), static_cast<QWidget *>(prevKey),
                       static_cast<QWidget *>(nextKey)})
        bar->addWidget(w);
    bar->addStretch(1);
    bar->addWidget(new QLabel(QStringLiteral("Context (menu):"), this));
    bar->addWidget(m_context);

    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("replayAsOf"));
    m_tree->setModel(m_asOf);
    m_tree->setUniformRowHeights(true);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setFont(theme::monospaceFont(-1));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("replayStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_playhead);
    layout->addWidget(m_status);
    layout->addWidget(m_tree, 1);

    connect(m_stepper, &EventStepper::found, this, &ReplayPanel::moveTo);
    connect(m_stepper, &EventStepper::notFound, this, [this] {
        m_notice = QStringLiteral("No further event that way in this window.");
        m_status->setText(m_notice);
    });
    events->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(events, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        std::unique_ptr<QMenu> menu(contextMenuFor(m_events->indexAt(pos).row()));
        if (menu)
            menu->exec(m_events->viewport()->mapToGlobal(pos));
    });
    // The current row is the playhead; a reset model has none.
    auto watchSelection = [this] {
        if (m_events->selectionModel())
            connect(m_events->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
                    [this](const QModelIndex &current) { onCurrentChanged(current); });
    };
    watchSelection();
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { onCurrentChanged(QModelIndex()); });
    onCurrentChanged(QModelIndex());
}

QString ReplayPanel::playheadText() const
{
    return m_playhead->text();
}

QString ReplayPanel::statusText() const
{
    return m_status->text();
}

int ReplayPanel::contextSeconds() const
{
    return m_context->value();
}

void ReplayPanel::setContextSeconds(int seconds)
{
    m_context->setValue(seconds);
}

void ReplayPanel::step(int direction, bool sameKeyOnly)
{
    const int row = m_events->currentIndex().row();
    if (row >= 0 && !m_events->model()->index(row, 0).data(WindowEventsModel::IsGapRole).toBool()) {
        m_stepper->step(row, sameKeyOnly, direction);
        return;
    }
    // No playhead yet: Next starts at the window's first event.
    for (int r = 0; direction > 0 && r < m_events->model()->rowCount(); ++r)
        if (!m_events->model()->index(r, 0).data(WindowEventsModel::IsGapRole).toBool()) {
            moveTo(r);
            return;
        }
    m_status->setText(QStringLiteral("Select an event first: the playhead is the selected event."));
}

void ReplayPanel::moveTo(int row)
{
    const QModelIndex index = m_events->model()->index(row, WindowEventsModel::TimeColumn);
    m_events->setCurrentIndex(index);
    m_events->scrollTo(index);
}

void ReplayPanel::onCurrentChanged(const QModelIndex &current)
{
    const QModelIndex index = current.isValid() ? current.siblingAtColumn(0) : QModelIndex();
    m_notice.clear(); // a new playhead: a new answer
    if (!index.isValid() || index.data(WindowEventsModel::IsGapRole).toBool()) {
        ++m_generation; // an answer on its way is no longer wanted
        m_playhead->setText(QStringLiteral("Playhead: none"));
        m_status->setText(QStringLiteral("Select an event: its time is the playhead, and its key is shown as of that time."));
        m_asOf->clear();
        return;
    }
    const UtcMicros at = index.data(WindowEventsModel::AtRole).toLongLong();
    const QString key = index.data(WindowEventsModel::IdemKeyRole).toString();
    const QString store = index.siblingAtColumn(WindowEventsModel::StoreColumn).data().toString();
    const QString kind = index.siblingAtColumn(WindowEventsModel::KindColumn).data().toString();
    m_playhead->setText(QStringLiteral("Playhead: %1 UTC \u00B7 %2 %3 \u00B7 %4")
                            .arg(formatUtcMicros(at), store, kind, key.isEmpty() ? QStringLiteral("(no key)") : key));
    if (key.isEmpty()) {
        ++m_generation;
        m_asOf->clear();
        m_status->setText(QStringLiteral("This event has no idempotency key: nothing to show as of its time."));
        return;
    }
    loadAsOf(key, at);
}

void ReplayPanel::setKeyDetailReader(KeyDetailReader reader, QThreadPool *pool)
{
    m_readDetail = std::move(reader);
    m_pool = pool;
}

void ReplayPanel::loadAsOf(const QString &key, UtcMicros at)
{
    const quint64 generation = ++m_generation;
    if (!m_readDetail)
        return;
    m_notice.clear();
    m_status->setText(QStringLiteral("Reading %1 as of %2 UTC\u2026").arg(key, formatUtcMicros(at)));
    struct Read {
        KeyStateAsOf state;
        QVector<std::pair<QString, QString>> tasks; // attempt id, task id
    };
    // The key is read on the stores' workers; the as-of rules run on the merge pool.
    QFuture<Read> state = continueWith(m_readDetail(key), m_pool, [at](const KeyDetail &detail) {
        return Read{keyStateAsOf(detail, at), tasksOf(detail)};
    });
    whenReady(state, this, [this, generation, key](const Read &read) {
        if (generation != m_generation)
            return; // the playhead moved on
        setTasks(key, read.tasks);
        const KeyStateAsOf &s = read.state;
        m_asOf->setState(s);
        m_tree->expandAll();
        QStringList unknown;
        for (const AsOfSection &section : s.sections)
            if (section.unknown)
                unknown << asOfPartTitle(section.part).toLower();
        if (!m_notice.isEmpty()) {
            emit asOfLoaded(); // a step's "no further event" came after this read began: it stays shown
            return;
        }
        m_status->setText(unknown.isEmpty()
                              ? QStringLiteral("%1 as of the playhead (UTC; what was written exactly then counts). A state is "
                                               "given only where the stores' history establishes it.")
                                    .arg(s.idemKey)
                              : QStringLiteral("%1 as of the playhead: %2 could not be read (see below).")
                                    .arg(s.idemKey, unknown.join(QStringLiteral(", "))));
        emit asOfLoaded();
    });
}

QMenu *ReplayPanel::contextMenuFor(int row)
{
    const QModelIndex index = m_events->model()->index(row, 0);
    if (!index.isValid() || index.data(WindowEventsModel::IsGapRole).toBool())
        return nullptr;
    const UtcMicros at = index.data(WindowEventsModel::AtRole).toLongLong();
    const QString key = index.data(WindowEventsModel::IdemKeyRole).toString();
    auto *menu = new QMenu(m_events);
    QAction *same = menu->addAction(key.isEmpty() ? QStringLiteral("Same key (this event has none)")
                                                  : QStringLiteral("Same key (%1)").arg(key));
    same->setObjectName(QStringLiteral("replaySameKey"));
    same->setEnabled(m_reloads && !key.isEmpty());
    connect(same, &QAction::triggered, this, [this, key, at] { emit sameKeyRequested(key, at); });
    if (!key.isEmpty()) {
        QAction *wait = menu->addAction(QStringLiteral("Same task (reading the key\u2026)"));
        wait->setObjectName(QStringLiteral("replaySameTaskWait"));
        wait->setEnabled(false);
        m_menu = menu;
        m_taskWait = wait;
        m_menuRow = row;
        if (m_tasksKey == key)
            addTaskActions(menu, wait, row);
        else if (m_readDetail) // not the playhead's key (or not read yet): read its tasks
            whenReady(continueWith(m_readDetail(key), m_pool, [](const KeyDetail &d) { return tasksOf(d); }), this,
                      [this, key](const QVector<std::pair<QString, QString>> &tasks) { setTasks(key, tasks); });
    }
    const int n = m_context->value();
    QAction *around = menu->addAction(
        QStringLiteral("\u00B1%1 s around %2 UTC (all keys)").arg(n).arg(formatUtcMicros(at)));
    around->setObjectName(QStringLiteral("replayAround"));
    around->setEnabled(m_reloads);
    if (!m_reloads)
        for (QAction *a : {same, around})
            a->setToolTip(QStringLiteral("A bundle holds its own window only"));
    menu->setToolTipsVisible(!m_reloads);
    connect(around, &QAction::triggered, this, [this, at, n] {
        // [at − N s, at + N s), widened to whole seconds (the range edits show seconds).
        const UtcMicros from = floorSecond(at - n * kSecond);
        const UtcMicros end = at + n * kSecond;
        const UtcMicros to = floorSecond(end) == end ? end : floorSecond(end) + kSecond;
        emit contextWindowRequested(from, to, at);
    });
    return menu;
}

void ReplayPanel::setTasks(const QString &key, const QVector<std::pair<QString, QString>> &tasks)
{
    m_tasksKey = key;
    m_tasks = tasks;
    if (m_menu && m_taskWait)
        addTaskActions(m_menu, m_taskWait, m_menuRow);
}

void ReplayPanel::addTaskActions(QMenu *menu, QAction *before, int row)
{
    const QModelIndex index = m_events->model()->index(row, 0);
    const QString key = index.data(WindowEventsModel::IdemKeyRole).toString();
    if (!index.isValid() || key != m_tasksKey)
        return; // the rows changed meanwhile: the placeholder stays
    const UtcMicros at = index.data(WindowEventsModel::AtRole).toLongLong();
    // An attempt's own task; any other event: every task among its key's attempts.
    const bool attempt = index.data(WindowEventsModel::KindRole).toInt() == int(EventKind::IntentAttempt);
    const QString id = index.data(WindowEventsModel::EventIdRole).toString();
    if (before == m_taskWait)
        m_taskWait = nullptr; // filled once
    QStringList tasks;
    for (const auto &[attemptId, task] : std::as_const(m_tasks))
        if ((!attempt || attemptId == id) && !tasks.contains(task))
            tasks << task;
    for (const QString &task : std::as_const(tasks)) {
        auto *action = new QAction(QStringLiteral("Same task (%1)").arg(task), menu);
        action->setObjectName(QStringLiteral("replaySameTask"));
        action->setEnabled(m_reloads);
        connect(action, &QAction::triggered, this, [this, task, at] { emit sameTaskRequested(task, at); });
        menu->insertAction(before, action);
    }
    if (tasks.isEmpty()) {
        before->setText(QStringLiteral("Same task (no intent attempt of this key has a task id)"));
        return;
    }
    menu->removeAction(before);
    before->deleteLater();
}

} // namespace triage
