#include "MainWindow.h"
#include "DeepLink.h"
#include "CompensationsPane.h"
#include "MarkQueryController.h"
#include "ProposalsPane.h"
#include "DuplicatesPane.h"
#include "ConnectMenu.h"
#include "EscalationService.h"
#include "IncidentView.h"
#include "BizTypeCheck.h"
#include "BulkMarkFlow.h"
#include "BulkQueryDialog.h"
#include "ConnectionIndicator.h"
#include "ReplicaIndicator.h"
#include "KeyDetailView.h"
#include "MessageBar.h"
#include "Policy.h"
#include "Log.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "ReviewPane.h"
#include "RecordStatus.h"
#include "TextEscape.h"
#include "Theme.h"
#include "UpstreamClient.h"
#include "Workspace.h"
#include "WhenReady.h"
#include "Queue.h"
#include "KeyDetail.h"

#include <QVBoxLayout>
#include <QAction>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

namespace triage {
namespace {

const QueueKind kQueues[] = {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated};

/// "demo workspace", or where the stores are ("postgresql://…/orders" when all share one).
QString workspaceDescription(const WorkspaceConfig &c)
{
    if (c.isDemo)
        return QStringLiteral("demo workspace \u00b7 %1").arg(QFileInfo(c.idempotency.database).fileName());
    if (c.idempotency.sameDatabase(c.intent) && c.idempotency.sameDatabase(c.ticket))
        return c.idempotency.displayUrl();
    return QStringLiteral("%1 \u00b7 %2 \u00b7 %3")
        .arg(c.idempotency.displayUrl(), c.intent.displayUrl(), c.ticket.displayUrl());
}

} // namespace

MainWindow::MainWindow(Workspace *workspace, QWidget *parent) : QMainWindow(parent), m_workspace(workspace)
{
    setObjectName(QStringLiteral("mainWindow"));
    const WorkspaceConfig &config = workspace->config();
    setWindowTitle(consoleWindowTitle(config, workspaceDescription(config)));
    resize(1400, 900);
    // DESIGN.md §5 "Environments": the band above everything, also above the tool bar.
    setMenuWidget(withFileMenu(this, m_environmentBand = new EnvironmentBand(workspace, this)));
    connect(m_environmentBand, &EnvironmentBand::writesSwitchedOn, this, [this] { updateBulkBar(), refreshAll(); });

    // Tool bar: who we are looking at, go to key, refresh.
    auto *bar = addToolBar(QStringLiteral("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setFloatable(false);
    auto *barWidget = new QWidget(bar);
    auto *barLayout = new QHBoxLayout(barWidget);
    barLayout->setContentsMargins(6, 2, 6, 2);
    barLayout->setSpacing(8);
    auto *title = new QLabel(QStringLiteral("Triage Console"), barWidget);
    title->setStyleSheet(QStringLiteral("font-weight: bold; font-size: 12pt;"));
    // Three long URLs must not widen the window: elide, the tooltip has them all.
    auto *where = new QLabel(barWidget);
    where->setText(where->fontMetrics().elidedText(workspaceDescription(config), Qt::ElideMiddle, 440));
    where->setObjectName(QStringLiteral("workspaceLabel"));
    where->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    where->setToolTip(QStringLiteral("idempotency: %1\nintent log: %2\ntickets: %3\noperator: %4%5")
                          .arg(config.idempotency.displayUrl(), config.intent.displayUrl(), config.ticket.displayUrl(),
                               config.operatorName, config.readOnly ? QStringLiteral(" (read-only)") : QString()));
    m_goToKey = new QLineEdit(barWidget);
    m_goToKey->setObjectName(QStringLiteral("goToKey"));
    m_goToKey->setPlaceholderText(QStringLiteral("Go to key: paste an idem_key, press Enter"));
    m_goToKey->setClearButtonEnabled(true);
    m_goToKey->setFont(theme::monospaceFont(-0.5));
    m_goToKey->setMinimumWidth(360);
    auto *open = new QPushButton(QStringLiteral("Open"), barWidget);
    auto *refresh = new QPushButton(QStringLiteral("Refresh"), barWidget);
    refresh->setShortcut(QKeySequence::Refresh);
    refresh->setToolTip(QStringLiteral("Reload every queue and the detail (F5)"));
    barLayout->addWidget(title);
    barLayout->addWidget(where);
    barLayout->addStretch(1);
    // Open four-eyes proposals wait for a second operator: visible even when the Proposals tab
    // is scrolled out of the tab bar; a click shows the tab.
    m_proposalsWaiting = new QPushButton(barWidget);
    m_proposalsWaiting->setObjectName(QStringLiteral("proposalsWaiting"));
    m_proposalsWaiting->setFlat(true);
    m_proposalsWaiting->setStyleSheet(theme::badgeStyleSheet(Tone::Warning, QStringLiteral("QPushButton")));
    m_proposalsWaiting->setToolTip(QStringLiteral("Four-eyes proposals waiting for another operator: show the Proposals tab"));
    m_proposalsWaiting->hide();
    barLayout->addWidget(m_proposalsWaiting);
    barLayout->addWidget(m_goToKey);
    barLayout->addWidget(open);
    barLayout->addWidget(refresh);
    bar->addWidget(barWidget);
    connect(m_goToKey, &QLineEdit::returnPressed, this, [this] { openKey(m_goToKey->text()); });
    connect(open, &QPushButton::clicked, this, [this] { openKey(m_goToKey->text()); });
    connect(refresh, &QPushButton::clicked, this, &MainWindow::refreshAll);

    // Queues | detail.
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->setChildrenCollapsible(false);
    if (!config.upstreams.isEmpty())
        m_upstream = std::make_unique<UpstreamClient>(config.upstreams);
    auto *left = new QWidget(m_splitter);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(2);
    m_queues = new QTabWidget(left);
    m_queues->setObjectName(QStringLiteral("queueTabs"));
    m_queues->setDocumentMode(true);
    for (QueueKind kind : kQueues) {
        auto *pane = new QueuePane(workspace, kind, m_queues);
        m_panes.insert(int(kind), pane);
        m_queues->addTab(pane, queueTitle(kind));
        connect(pane, &QueuePane::currentKeyChanged, this, [this, pane](const QString &key) {
            if (pane != currentPane() || key.isEmpty())
                return;
            if (key == m_detail->key() && (m_detail->isLoading() || m_detail->hasDetail()))
                return;
            m_detail->loadKey(key);
        });
        connect(pane, &QueuePane::countChanged, this, [this, kind](qint64 count) { updateTabTitle(kind, count); });
        connect(pane, &QueuePane::selectionChanged, this, &MainWindow::updateBulkBar);
    }
    // Duplicate-key groups and compensations: their own panes, same key detail.
    auto *duplicates = new DuplicatesPane(workspace, workspace->config().compensations, m_queues);
    m_queues->addTab(duplicates, tr("Duplicate keys"));
    connect(duplicates, &DuplicatesPane::keyActivated, this, &MainWindow::openKey);
    auto *compensations = new CompensationsPane(workspace, workspace->config().compensations, m_queues);
    m_queues->addTab(compensations, tr("Compensations"));
    connect(compensations, &CompensationsPane::keyActivated, this, &MainWindow::openKey);
    m_duplicates = duplicates;
    m_compensations = compensations;
    // Four-eyes proposals waiting for a second operator (DESIGN.md §9): their own tab.
    m_proposals = new ProposalsPane(workspace, m_queues);
    const int proposalsTab = m_queues->addTab(m_proposals, tr("Proposals"));
    connect(m_proposals, &ProposalsPane::keyActivated, this, &MainWindow::openKey);
    connect(m_proposals, &ProposalsPane::openCountChanged, this,
            [this, proposalsTab](int open) {
                m_queues->setTabText(proposalsTab, tr("Proposals (%1)").arg(open));
                m_proposalsWaiting->setText(open == 1 ? tr("1 proposal waiting") : tr("%1 proposals waiting").arg(open));
                m_proposalsWaiting->setVisible(open > 0);
            });
    connect(m_proposalsWaiting, &QPushButton::clicked, this, [this] { showTab(m_proposals); });
    // The daily review (DESIGN.md §8): loads when first shown; its items open their key here.
    m_review = new ReviewPane(workspace, m_queues);
    m_queues->addTab(m_review, tr("Review"));
    connect(m_review, &ReviewPane::keyActivated, this, &MainWindow::openKey);
    // Incident replay: a time window across every store; loads when first shown.
    m_incident = new IncidentView(workspace, m_queues);
    m_queues->addTab(m_incident, tr("Incident"));
    connect(m_incident, &IncidentView::keyActivated, this, &MainWindow::openKey);
    connect(duplicates, &DuplicatesPane::operatorActionFinished, this, &MainWindow::onOperatorAction);
    connect(compensations, &CompensationsPane::resumeFinished, this, [this](const QString &, const QString &) {
        onOperatorAction(m_detail->key());
    });
    leftLayout->addWidget(m_queues, 1);
    leftLayout->addWidget(buildBulkBar());
    m_detail = new KeyDetailView(workspace, m_splitter);
    m_detail->setUpstreamClient(m_upstream.get());
    m_detail->setCompensationRunner(compensations->runner()); // approves compensation proposals
    // A proposal made, approved or rejected from the key detail: the Proposals tab follows.
    connect(m_detail, &KeyDetailView::markFinished, m_proposals, &ProposalsPane::refresh);
    connect(m_detail->markController(), &MarkQueryController::rejectFinished, m_proposals, &ProposalsPane::refresh);
    connect(m_detail->markController(), &MarkQueryController::compensationApprovalFinished, this, [this] { refreshAfterAction(); });
    // A mark moved a record between queues: refresh every count and list (the detail
    // reloads itself).
    connect(m_detail, &KeyDetailView::recordChanged, this, [this] { refreshAfterAction(); });
    // Switching tabs shows the detail of that tab's selected row (if it has one).
    connect(m_queues, &QTabWidget::currentChanged, this, [this] {
        // Deferred: before the window is first laid out the splitter has no sizes yet.
        QTimer::singleShot(0, this, [this] { fitSplitterToTab(); });
        QueuePane *pane = currentPane();
        const QString key = pane ? pane->currentKey() : QString();
        if (!key.isEmpty() && key != m_detail->key())
            m_detail->loadKey(key);
        updateBulkBar();
    });
    // Explicit minimum widths: what a pane holds (a long label, a wide table) never
    // pushes the window past its size (a layout uses a set minimum instead of the
    // contents' minimum size hints).
    left->setMinimumWidth(420);
    m_detail->setMinimumWidth(kDetailMinWidth);
    m_splitter->addWidget(left);
    m_splitter->addWidget(m_detail);
    m_splitter->setStretchFactor(0, 5);
    m_splitter->setStretchFactor(1, 6);
    m_splitter->setSizes({650, 750});
    // Above the queues and the detail: the config warnings (a hidden bar until there are some).
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    // The global freeze (DESIGN.md §8 "Safety policy"): above everything, red.
    m_freezeBar = new MessageBar(central);
    m_freezeBar->setObjectName(QStringLiteral("freezeBar"));
    centralLayout->addWidget(m_freezeBar);
    m_configBar = new MessageBar(central);
    m_configBar->setObjectName(QStringLiteral("configWarnings"));
    centralLayout->addWidget(m_configBar);
    // Reconciliation's freshness (DESIGN.md §8): the on-call engineer sees it above everything.
    m_reconcileBar = new MessageBar(central);
    m_reconcileBar->setObjectName(QStringLiteral("reconcileWarning"));
    centralLayout->addWidget(m_reconcileBar);
    centralLayout->addWidget(m_splitter, 1);
    setCentralWidget(central);

    // Status bar: the live update's state, then one indicator per store.
    m_liveLabel = new QLabel(statusBar());
    m_liveLabel->setObjectName(QStringLiteral("liveIndicator"));
    m_liveLabel->hide(); // until setLivePolling()
    statusBar()->addPermanentWidget(m_liveLabel);
    for (QueuePane *pane : std::as_const(m_panes))
        connect(pane->model(), &QueueModel::liveStateChanged, this, &MainWindow::updateLiveIndicator);
    ReplicaIndicator::install(workspace, statusBar()); // only with a replica_url (DESIGN.md §9)
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        statusBar()->addPermanentWidget(
            *m_indicators.insert(int(role), new ConnectionIndicator(role, config.profile(role), statusBar())));
    connect(workspace, &Workspace::connectionEvent, this, &MainWindow::onConnectionEvent);
    // A store that fails a read turns its indicator red, whatever its connection said last
    // (the connection may be open while every statement fails); a later good read of that
    // store turns it green again.
    connect(m_detail, &KeyDetailView::detailLoaded, this, [this] {
        const KeyDetail &d = m_detail->detail();
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            ConnectionIndicator *indicator = m_indicators.value(int(role));
            if (d.errors.contains(role)) {
                if (indicator && indicator->state() != ConnectionIndicator::State::Down)
                    onConnectionEvent(role, false, d.errors.value(role).message);
            }
            else if (indicator && indicator->state() == ConnectionIndicator::State::Down)
                indicator->setState(true, QStringLiteral("read the key detail from the %1").arg(roleTitle(role)));
        }
    });

    // Unknown first: its page is the first job on each worker.
    for (QueueKind kind : kQueues)
        m_panes.value(int(kind))->start();
    workspace->probeConnections();
    // [biz.*] sections against the records' biz_types (BizTypeCheck.h, on the idempotency worker).
    whenReady(checkBizTypeSections(*workspace), this, [this](const Outcome<QStringList> &o) {
        if (!o.ok()) {
            logger("views")->warn("could not compare the [biz.*] sections with the records: {}", o.error->message.toStdString());
            emit bizTypeCheckFinished({});
            return;
        }
        QStringList lines;
        for (const QString &w : *o)
            lines << MessageBar::sentence(w);
        if (!lines.isEmpty())
            m_configBar->showMessage(MessageBar::Level::Warning, lines.join(QLatin1Char('\n')));
        emit bizTypeCheckFinished(*o);
    });
    checkFreeze();
    auto *freezeRecheck = new QTimer(this);
    connect(freezeRecheck, &QTimer::timeout, this, &MainWindow::checkFreeze);
    freezeRecheck->start(kFreezeRecheckMs);
    checkReconcileFreshness();
    auto *recheck = new QTimer(this);
    connect(recheck, &QTimer::timeout, this, &MainWindow::checkReconcileFreshness);
    recheck->start(kReconcileRecheckMs);
    // Not the table: a QAbstractItemView that gains focus makes its first row current,
    // which would replace a detail opened with openKey() (--select, Go to key).
    m_queues->tabBar()->setFocus();
}

MainWindow::~MainWindow() = default;

QueuePane *MainWindow::queuePane(QueueKind kind) const
{
    return m_panes.value(int(kind));
}

QueuePane *MainWindow::currentPane() const
{
    return qobject_cast<QueuePane *>(m_queues->currentWidget());
}

void MainWindow::openIncident(qint64 id)
{
    m_incident->openIncident(id);
    m_queues->setCurrentWidget(m_incident);
}

void MainWindow::openLink(const DeepLink &link)
{
    if (link.kind == DeepLink::Kind::Key) {
        m_detail->loadKey(link.key);
        if (QueuePane *pane = currentPane())
            pane->selectKey(link.key);
        return;
    }
    m_incident->openLink(link.query, link.event);
    m_queues->setCurrentWidget(m_incident);
}

void MainWindow::showIncident(qint64 from, qint64 to)
{
    m_incident->setRange(from, to);
    m_incident->load();
    m_queues->setCurrentWidget(m_incident);
}

void MainWindow::showTab(QWidget *pane)
{
    m_queues->setCurrentWidget(pane);
}

void MainWindow::showReview() { showTab(m_review); }

void MainWindow::openKey(const QString &key)
{
    const QString k = key.trimmed();
    if (k.isEmpty())
        return;
    m_detail->loadKey(k);
    if (QueuePane *pane = currentPane())
        pane->selectKey(k); // the detail is already loading: the pane's signal is ignored
}

void MainWindow::checkReconcileFreshness()
{
    const quint64 generation = ++m_reconcileCheck;
    whenReady(reconcileFreshness(*m_workspace), this, [this, generation](const Outcome<std::optional<QString>> &o) {
        if (generation != m_reconcileCheck)
            return; // a later check's answer is on its way
        if (!o.ok()) {
            logger("views")->warn("could not read the reconcile runs: {}", o.error->message.toStdString());
            emit reconcileCheckFinished(QString());
            return;
        }
        const QString warning = o->value_or(QString());
        if (warning.isEmpty())
            m_reconcileBar->clearMessage();
        else
            m_reconcileBar->showMessage(MessageBar::Level::Warning, warning);
        emit reconcileCheckFinished(warning);
    });
}

void MainWindow::checkFreeze()
{
    const quint64 generation = ++m_freezeCheck;
    whenReady(readFreeze(*m_workspace), this, [this, generation](const Outcome<std::optional<PolicyRow>> &o) {
        if (generation != m_freezeCheck)
            return; // a later check's answer is on its way
        if (!o.ok()) {
            logger("views")->warn("could not read the freeze: {}", o.error->message.toStdString());
            emit freezeCheckFinished(QString());
            return;
        }
        const QString text = *o ? freezeMessage(**o) : QString();
        if (text.isEmpty())
            m_freezeBar->clearMessage();
        else
            m_freezeBar->showMessage(MessageBar::Level::Error, text);
        emit freezeCheckFinished(text);
    });
}

void MainWindow::refreshAll()
{
    checkFreeze();
    for (QueuePane *pane : std::as_const(m_panes))
        pane->refresh();
    if (m_proposals) // cheap, and the header's "N proposals waiting" follows it
        m_proposals->refresh();
    m_detail->reload();
    checkReconcileFreshness();
    statusBar()->showMessage(QStringLiteral("Reloading every queue\u2026"), 3000);
}

void MainWindow::refreshQueues()
{
    for (QueuePane *pane : std::as_const(m_panes))
        pane->refresh();
}

void MainWindow::refreshAfterAction()
{
    refreshQueues();
    if (m_duplicates)
        m_duplicates->refresh();
    if (m_compensations)
        m_compensations->refresh();
    if (m_proposals)
        m_proposals->refresh();
}

void MainWindow::onOperatorAction(const QString &idemKey)
{
    refreshAfterAction();
    if (!idemKey.isEmpty() && idemKey == m_detail->key())
        m_detail->reload();
}

QWidget *MainWindow::buildBulkBar()
{
    auto *bar = new QWidget(this);
    bar->setObjectName(QStringLiteral("bulkBar"));
    auto *layout = new QHBoxLayout(bar);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(6);
    m_selectionLabel = new QLabel(bar);
    m_selectionLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_selectionLabel->setWordWrap(true); // wraps before it squeezes the buttons
    layout->addWidget(m_selectionLabel, 1);
    const QString titles[3] = {QStringLiteral("Mark selected SUCCESS\u2026"), QStringLiteral("Mark selected FAILED\u2026"),
                               QStringLiteral("Query selected upstream\u2026")};
    for (int i = 0; i < 3; ++i) {
        m_bulkButtons[i] = new QPushButton(titles[i], bar);
        m_bulkButtons[i]->setObjectName(QStringLiteral("bulkButton%1").arg(i));
        layout->addWidget(m_bulkButtons[i]);
    }
    connect(m_bulkButtons[0], &QPushButton::clicked, this, [this] { markSelected(Success); });
    connect(m_bulkButtons[1], &QPushButton::clicked, this, [this] { markSelected(Failed); });
    connect(m_bulkButtons[2], &QPushButton::clicked, this, &MainWindow::querySelected);
    updateBulkBar();
    return bar;
}

void MainWindow::updateBulkBar()
{
    QueuePane *pane = currentPane();
    // Bulk marks act on a queue's selected rows: the bar shows under the queues only (not under
    // the Review, Incident, Duplicates or Proposals tab, which have their own actions).
    m_selectionLabel->parentWidget()->setVisible(pane != nullptr);
    const int n = pane ? int(pane->selectedKeys().size()) : 0;
    const bool readOnly = m_workspace->config().readOnly;
    m_selectionLabel->setText(n == 0 ? QStringLiteral("Select rows (Shift / Ctrl) for bulk actions")
                                     : QStringLiteral("%1 selected").arg(n));
    for (int i = 0; i < 2; ++i) {
        m_bulkButtons[i]->setEnabled(n > 0 && !readOnly && !m_bulkLoading);
        m_bulkButtons[i]->setToolTip(readOnly ? QStringLiteral("Read-only workspace: marks are disabled")
                                              : QStringLiteral("One confirmation for all selected records; a per-row report"));
    }
    m_bulkButtons[2]->setEnabled(n > 0 && m_upstream && !m_bulkLoading);
    m_bulkButtons[2]->setToolTip(m_upstream ? QStringLiteral("Query every selected key's upstream (each answer is recorded)")
                                            : QStringLiteral("No upstream query API is configured for this workspace"));
}

void MainWindow::loadDetails(const QStringList &keys, std::function<void(QVector<KeyDetail>)> then)
{
    if (keys.isEmpty())
        return;
    m_bulkLoading = true;
    updateBulkBar();
    statusBar()->showMessage(QStringLiteral("Loading %1\u2026").arg(countText(keys.size(), QStringLiteral("key"))));
    auto details = std::make_shared<QVector<KeyDetail>>(keys.size());
    auto pending = std::make_shared<int>(int(keys.size()));
    for (int i = 0; i < keys.size(); ++i) {
        whenReady(loadKeyDetail(*m_workspace, keys[i]), this, [this, i, details, pending, then](const KeyDetail &d) {
            (*details)[i] = d;
            if (--*pending > 0)
                return;
            m_bulkLoading = false;
            updateBulkBar();
            statusBar()->clearMessage();
            then(*details);
        });
    }
}

void MainWindow::markSelected(RecordStatusCode toStatus)
{
    QueuePane *pane = currentPane();
    if (!pane || m_workspace->config().readOnly)
        return;
    loadDetails(pane->selectedKeys(), [this, toStatus](QVector<KeyDetail> details) {
        confirmBulkMark(this, m_workspace, std::move(details), toStatus);
    });
}

void MainWindow::querySelected()
{
    QueuePane *pane = currentPane();
    if (!pane || !m_upstream)
        return;
    loadDetails(pane->selectedKeys(), [this](QVector<KeyDetail> details) {
        auto *dialog = new BulkQueryDialog(m_workspace, m_upstream.get(), std::move(details), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &BulkQueryDialog::done, this, [this] { m_detail->reload(); });
        dialog->open();
        dialog->start();
        emit bulkDialogOpened(dialog);
    });
}

void MainWindow::updateTabTitle(QueueKind kind, qint64 count)
{
    const int index = m_queues->indexOf(m_panes.value(int(kind)));
    if (index < 0)
        return;
    m_queues->setTabText(index, count >= 0 ? QStringLiteral("%1 (%2)").arg(queueTitle(kind)).arg(count) : queueTitle(kind));
}

void MainWindow::onConnectionEvent(DbRole role, bool up, const QString &message)
{
    ConnectionIndicator *indicator = m_indicators.value(int(role));
    if (!indicator)
        return;
    const bool reopened = up && (indicator->wasDown() || message.startsWith(QLatin1String("re-opened")));
    indicator->setState(up, message);
    if (!up) {
        logger("views")->warn("{}", message);
        statusBar()->showMessage(QStringLiteral("\u2716 %1").arg(message), 60000);
    } else if (reopened) {
        logger("views")->info("{}", message);
        statusBar()->showMessage(QStringLiteral("\u2714 %1").arg(message), 30000);
    }
}

void MainWindow::fitSplitterToTab()
{
    // The Incident tab (chart, list, replay and incident panels) gets most of the width while
    // it is current; the queues get their split back afterwards. Only once the splitter is
    // laid out: sizes set before the first show are rescaled by the stretch factors.
    if (!m_splitter->isVisible())
        return; // showEvent() calls again
    const bool incident = m_queues->currentWidget() == m_incident;
    // The detail pane's own minimum (what its header and tables need side by side) would hold
    // it at about 540 px: while the Incident tab is current it may narrow to kIncidentDetailWidth
    // (its contents scroll or elide), and gets its minimum back with the queues.
    if (incident && m_sizesBeforeIncident.isEmpty()) {
        m_sizesBeforeIncident = m_splitter->sizes();
        const int total = m_sizesBeforeIncident.value(0) + m_sizesBeforeIncident.value(1);
        m_detail->setMinimumWidth(kIncidentDetailWidth);
        // The detail gets what its header and tables need side by side (its layout's minimum),
        // so that nothing in it is clipped, up to 2/5 of the width (a 1400 px window: all of it).
        const int detail = qBound(kIncidentDetailWidth, m_detail->minimumSizeHint().width(), qMax(kIncidentDetailWidth, total * 2 / 5));
        m_splitter->setSizes({total - detail, detail});
    } else if (!incident && !m_sizesBeforeIncident.isEmpty()) {
        m_detail->setMinimumWidth(kDetailMinWidth);
        m_splitter->setSizes(m_sizesBeforeIncident);
        m_sizesBeforeIncident.clear();
    }
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    QTimer::singleShot(0, this, [this] { fitSplitterToTab(); });
    updateLiveSlowdown();
}

void MainWindow::hideEvent(QHideEvent *event)
{
    QMainWindow::hideEvent(event);
    updateLiveSlowdown();
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange)
        updateLiveSlowdown();
}

} // namespace triage
