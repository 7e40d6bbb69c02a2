// MainWindow's live updates (DESIGN.md §9 "Live queues", "Push"): the polling interval, the
// slowdown while hidden, PostgreSQL push hints, and the status bar's live indicator.
#include "MainWindow.h"

#include "KeyDetailView.h"
#include "PushFeed.h"
#include "Queue.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "ReviewPane.h"

#include <QLabel>

namespace triage {

void MainWindow::setLivePolling(int seconds)
{
    m_livePollingSet = true;
    m_livePollSeconds = qMax(0, seconds);
    for (QueuePane *pane : std::as_const(m_panes))
        pane->model()->setLiveInterval(m_livePollSeconds * 1000);
    m_detail->setLiveInterval(m_livePollSeconds * 1000);
    m_review->setLiveInterval(m_livePollSeconds * 1000);
    updateLiveSlowdown();
    updateLiveIndicator();
}

void MainWindow::setPushFeed(PushFeed *feed)
{
    if (m_push)
        m_push->disconnect(this);
    m_push = feed;
    m_livePollingSet = true;
    if (feed) {
        // A hint only triggers reads: the queues that read a store that changed, and the key
        // detail (its key may be any of them).
        connect(feed, &PushFeed::changed, this, [this](const QSet<int> &roles) { onPushHint(roles); });
        connect(feed, &PushFeed::resynced, this, [this](const QSet<int> &roles) { onPushHint(roles); });
        connect(feed, &PushFeed::stateChanged, this, &MainWindow::updateLiveIndicator);
    }
    updateLiveIndicator();
}

void MainWindow::onPushHint(const QSet<int> &roles)
{
    for (QueuePane *pane : std::as_const(m_panes)) {
        bool reads = false;
        for (DbRole r : pane->model()->stores())
            reads = reads || roles.contains(int(r));
        if (reads)
            pane->model()->requestPoll();
    }
    m_detail->rereadLive();
    if (roles.contains(int(DbRole::Idempotency))) // its console tables sit beside the records
        m_review->rereadLive();
}

void MainWindow::updateLiveSlowdown()
{
    const bool hidden = !isVisible() || isMinimized();
    for (QueuePane *pane : std::as_const(m_panes))
        pane->model()->setLiveSlowed(hidden);
    m_detail->setLiveSlowed(hidden);
    m_review->setLiveSlowed(hidden);
}

void MainWindow::updateLiveIndicator()
{
    // One line for every queue: the first stale queue's state wins (naming the queue), else
    // the common interval; push says whether changes arrive as they commit.
    QString text;
    bool stale = false;
    for (QueuePane *pane : std::as_const(m_panes)) {
        const QueueModel *m = pane->model();
        if (m->liveState().stale) {
            text = QStringLiteral("%1: %2").arg(queueTitle(m->request().kind), m->liveStatusText());
            stale = true;
            break;
        }
        if (text.isEmpty())
            text = m->liveStatusText();
    }
    m_liveLabel->setVisible(m_livePollingSet);
    const PushState push = m_push ? m_push->state() : PushState::Off;
    QString pushTip;
    if (m_push && push != PushState::Off) {
        QStringList lines;
        for (const PushStatus &s : m_push->statuses())
            lines << QStringLiteral("%1: %2").arg(s.where, s.why.isEmpty() ? (s.state == PushState::Live ? QStringLiteral("live") : QStringLiteral("connecting"))
                                                                        : s.why);
        pushTip = QStringLiteral("\nPush (PostgreSQL LISTEN/NOTIFY): ") + m_push->statusText() + QStringLiteral("\n") + lines.join(QLatin1Char('\n'));
    }
    if (!stale && push == PushState::Live) {
        text = text.isEmpty() ? QStringLiteral("live: push") : text.replace(QStringLiteral("live: polling"), QStringLiteral("live: push + polling"));
    } else if (!stale && (push == PushState::Lost || push == PushState::Unavailable) && !text.isEmpty()) {
        text += push == PushState::Lost ? QStringLiteral(" (push lost: reconnecting)") : QStringLiteral(" (push unavailable)");
    }
    if (text.isEmpty()) { // turned off: say so, an absent indicator reads as "current"
        m_liveLabel->setText(QStringLiteral("\u25cb live updates off: Refresh to update"));
        m_liveLabel->setStyleSheet(QStringLiteral("QLabel { color: #80868b; }"));
        m_liveLabel->setToolTip(QStringLiteral("[console] live_poll_seconds = 0: the queues show what was read at the last Refresh.") + pushTip);
        return;
    }
    const bool amber = !stale && push == PushState::Lost;
    m_liveLabel->setText(stale ? QStringLiteral("\u26a0 ") + text : QStringLiteral("\u25cf ") + text);
    m_liveLabel->setStyleSheet(stale   ? QStringLiteral("QLabel { color: #b00020; font-weight: bold; }")
                               : amber ? QStringLiteral("QLabel { color: #b26a00; }")
                                       : QStringLiteral("QLabel { color: #2e7d32; }"));
    m_liveLabel->setToolTip((stale ? QStringLiteral("The queues are not updating: the rows shown may be out of date. "
                                                    "Polling goes on and clears this when a poll succeeds.")
                                   : QStringLiteral("Queues re-read their rows: new rows are highlighted, rows that "
                                                    "left stay greyed until Refresh."))
                            + pushTip);
}

} // namespace triage
