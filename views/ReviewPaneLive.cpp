// The Review tab's live update (DESIGN.md §9 "Live review"): a cheap change mark every few
// seconds, a re-read only when it moved, folded into the rows shown.
#include "ReviewPane.h"

#include "ReviewCharts.h"
#include "LivePolling.h"
#include "ReviewModel.h"
#include "TimeText.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <QCheckBox>
#include <QDateTime>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace triage {

void ReviewPane::setLiveInterval(int ms)
{
    m_liveSet = true;
    m_liveMs = std::max(0, ms);
    restartLiveTimer();
    updateLiveLabel();
}

void ReviewPane::setLiveSlowed(bool slowed)
{
    if (slowed == m_liveSlowed)
        return;
    m_liveSlowed = slowed;
    restartLiveTimer();
    updateLiveLabel();
}

void ReviewPane::restartLiveTimer()
{
    if (m_liveMs == 0) {
        m_liveTimer->stop();
        return;
    }
    m_liveTimer->start(m_liveSlowed ? kLiveHiddenSlowdown * m_liveMs : m_liveMs);
}

void ReviewPane::rereadLive()
{
    liveTick();
}

QString ReviewPane::liveStatusText() const
{
    if (m_liveMs == 0) // off in the config (live_poll_seconds = 0), or never set (a pane on its own)
        return m_liveSet ? tr("live updates off: Load to update") : QString();
    return livePollingText(m_liveMs, m_liveSlowed, m_liveStaleSince, m_liveWhy);
}

void ReviewPane::updateLiveLabel()
{
    m_live->setVisible(m_liveSet);
    m_live->setText(liveStatusText());
    m_live->setStyleSheet(m_liveStaleSince.isEmpty() ? QStringLiteral("color: #5f6368;") : QStringLiteral("color: #a4231a; font-weight: bold;"));
}

void ReviewPane::liveFailed(const QString &why)
{
    m_liveInFlight = false;
    if (m_liveStaleSince.isEmpty())
        m_liveStaleSince = QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss"));
    m_liveWhy = why;
    updateLiveLabel();
    emit livePolled(false, 0, 0, 0);
}

void ReviewPane::liveTick()
{
    // Nothing shown yet, a poll running, an action (it re-reads when done) or a page read
    // (the rows are still arriving) in flight: the next tick tries again. Another tab shown: nothing to see, so nothing read (showEvent() polls on return).
    if (!m_snapshot || m_liveInFlight || m_busy || !m_snapshot->openComplete || !m_workspace || !isVisible())
        return;
    m_liveInFlight = true;
    const quint64 generation = m_generation;
    whenReady(reviewChangeMark(*m_workspace), this, [this, generation](const Outcome<QString> &mark) {
        if (generation != m_generation) { // a Load meanwhile: its answer replaces everything
            m_liveInFlight = false;
            return;
        }
        if (!mark.ok()) {
            liveFailed(mark.error->message);
            return;
        }
        if (*mark == m_liveMark) {
            m_liveInFlight = false;
            if (!m_liveStaleSince.isEmpty()) {
                m_liveStaleSince.clear();
                updateLiveLabel();
            }
            emit livePolled(true, 0, 0, 0);
            return;
        }
        // The mark was read before the snapshot: a change landing in between moves the next mark.
        const QString nextMark = *mark;
        const int limit = std::max<int>(kFirstPage, int(m_items->openItems().size()) + kLiveMargin);
        const std::optional<QDate> day = m_dayPicked ? std::optional<QDate>(m_snapshot->day.day) : std::nullopt;
        whenReady(readReview(*m_workspace, day, QStringLiteral("console"), limit), this,
                  [this, generation, nextMark](const Outcome<ReviewSnapshot> &fresh) {
                      if (generation != m_generation) {
                          m_liveInFlight = false;
                          return;
                      }
                      if (!fresh.ok()) {
                          liveFailed(fresh.error->message);
                          return;
                      }
                      m_liveInFlight = false;
                      m_liveMark = nextMark;
                      m_liveStaleSince.clear();
                      updateLiveLabel();
                      applyLive(*fresh);
                  });
    });
}

void ReviewPane::applyLive(const ReviewSnapshot &fresh)
{
    const auto signOffId = [](const std::optional<ReviewSignOff> &s) { return s ? s->id : qint64(0); };
    if (fresh.day.day != m_snapshot->day.day || signOffId(fresh.lastSignOff) != signOffId(m_snapshot->lastSignOff)
        || signOffId(fresh.thisDaySignOff) != signOffId(m_snapshot->thisDaySignOff)) {
        // A new day, or a sign-off: "new since the sign-off" means something else now.
        const QString mark = m_liveMark;
        setSnapshot(fresh);
        m_liveMark = mark;
        if (!fresh.openComplete)
            loadMoreItems(m_generation);
        emit livePolled(true, 0, 0, 0);
        return;
    }
    // The selected group by its identity (a group that appears or goes resets the groups' rows).
    std::optional<std::tuple<AgeBucket, EscalationReason, QString>> group;
    if (const QModelIndex g = m_groupsView->selectionModel()->currentIndex(); g.isValid())
        if (const ReviewGroup *rg = m_groups->groupAt(g.row()))
            group = std::make_tuple(rg->bucket, rg->reason, rg->bizType);
    const QString now = formatUtcMicros(QDateTime::currentDateTimeUtc().toMSecsSinceEpoch() * 1000);
    const ReviewItemsModel::LiveCounts counts = m_items->mergeSnapshot(fresh, now);
    ReviewSnapshot merged = fresh;
    merged.open = m_items->openItems();
    m_snapshot = merged;
    m_readAt.start();
    m_groups->setSnapshot(merged);
    if (group) {
        const int row = m_groups->rowOf(std::get<0>(*group), std::get<1>(*group), std::get<2>(*group));
        if (row >= 0 && m_groupsView->selectionModel()->currentIndex().row() != row)
            m_groupsView->selectionModel()->setCurrentIndex(m_groups->index(row, 0),
                                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    m_newOnly->setText(tr("Only new or changed (%1 of %2 open)")
                           .arg(merged.totals.newSinceSignOff + merged.totals.changedSinceSignOff)
                           .arg(merged.totals.open));
    fillSla();
    for (int k = 0; k < 4; ++k)
        refillReviewChart(m_charts[k], merged, k);
    if (counts.left > 0) { // the "Since" column now says who resolved them: wide enough to read it (≤ 260 px)
        const int before = m_itemsView->columnWidth(ReviewItemsModel::SinceColumn);
        m_itemsView->resizeColumnToContents(ReviewItemsModel::SinceColumn);
        m_itemsView->setColumnWidth(ReviewItemsModel::SinceColumn,
                                    std::max(before, std::min(260, m_itemsView->columnWidth(ReviewItemsModel::SinceColumn))));
    }
    updateHeader();
    updateActions();
    if (!merged.openComplete) // more open now than were read: the rest by pages, as after a Load
        loadMoreItems(m_generation);
    emit livePolled(true, counts.entered, counts.updated, counts.left);
}

} // namespace triage
