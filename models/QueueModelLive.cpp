// QueueModel's live update (DESIGN.md §9 "Live queues"): the poll, its merge and its state.
#include "QueueModel.h"

#include "FutureChain.h"
#include "LeftRows.h"
#include "Log.h"
#include "Queue.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <QDateTime>

#include <algorithm>

namespace triage {

namespace {

QString nowUtcText()
{
    return formatUtcMicros(QDateTime::currentDateTimeUtc().toMSecsSinceEpoch() * 1000);
}

} // namespace

void QueueModel::setLiveInterval(int ms)
{
    m_live.intervalMs = qMax(0, ms);
    restartLiveTimer();
    emit liveStateChanged();
}

void QueueModel::setLiveSlowed(bool slowed)
{
    if (m_live.slowed == slowed)
        return;
    m_live.slowed = slowed;
    restartLiveTimer();
    emit liveStateChanged();
}

void QueueModel::restartLiveTimer()
{
    if (m_live.intervalMs <= 0) {
        m_liveTimer->stop();
        return;
    }
    m_liveTimer->start(m_live.intervalMs * (m_live.slowed ? kHiddenSlowdown : 1));
}

void QueueModel::setLiveStale(const QString &why)
{
    if (why.isEmpty()) {
        if (!m_live.stale)
            return;
        m_live.stale = false;
        m_live.staleSinceUtc.clear();
        m_live.why.clear();
    } else {
        if (!m_live.stale)
            m_live.staleSinceUtc = nowUtcText();
        m_live.stale = true;
        m_live.why = why;
    }
    emit liveStateChanged();
}

QString QueueModel::liveStatusText() const
{
    if (m_live.intervalMs <= 0)
        return {};
    return livePollingText(m_live.intervalMs, m_live.slowed, m_live.stale ? utcToSecond(m_live.staleSinceUtc).mid(11, 8) : QString(),
                           m_live.why);
}

QSet<int> QueueModel::leftIndexes() const
{
    QSet<int> out;
    if (m_marks.isEmpty())
        return out;
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_marks.value(queueRowIdentity(m_rows[i])).change == 2)
            out.insert(i);
    return out;
}

int QueueModel::liveChangeOf(const QueueRow &row) const
{
    return m_marks.isEmpty() ? 0 : m_marks.value(queueRowIdentity(row)).change;
}

int QueueModel::enteredRows() const
{
    int n = 0;
    for (const LiveMark &m : m_marks)
        n += m.change == 1;
    return n;
}

int QueueModel::leftRows() const
{
    int n = 0;
    for (const LiveMark &m : m_marks)
        n += m.change == 2;
    return n;
}

bool QueueModel::poll()
{
    if (!m_workspace || !m_started || m_loading || m_polling || m_replacing)
        return false;
    m_polling = true;
    const quint64 generation = m_generation;
    const int held = int(m_rows.size()) - leftRows();
    const int limit = std::min(std::max(held + 20, m_pageSize), kMaxPolledRows);
    if (m_token.isCancelled())
        m_token = CancelToken::create();
    const CancelScope scope(m_token); // cancelLoading() and a reset stop a poll too
    const QFuture<Outcome<QueuePage>> page = fetchQueuePage(*m_workspace, m_request, QueueCursor{}, limit);
    const QFuture<Outcome<qint64>> count = countQueue(*m_workspace, m_request);
    // The delta read: more rows held than the head re-read covers (an oldest-first queue that
    // grew past kMaxPolledRows): the tail from lookback before the newest held row, too.
    const int tailAfter = held + 20 > kMaxPolledRows
                              ? queueTailAfter(m_request, m_rows, leftIndexes(), limit - 20, liveLookbackSeconds(m_workspace->config()))
                              : -1;
    const QFuture<Outcome<QueuePage>> tail =
        tailAfter >= 0 ? fetchQueuePage(*m_workspace, m_request, queueCursorAfter(m_request, m_rows[tailAfter]), kMaxPolledRows)
                       : QtFuture::makeReadyFuture(Outcome<QueuePage>::success(QueuePage{}));
    whenReady(continueAfterAll(futuresOf(page, count, tail), m_workspace->mergePool(),
                               [page, count, tail]() { return PollResult{page.result(), count.result(), tail.result()}; }),
              this, [this, generation, tailAfter](const PollResult &r) { applyPoll(generation, r, tailAfter); });
    return true;
}

bool QueueModel::requestPoll()
{
    if (!m_workspace || !m_started)
        return false;
    if (m_polling || m_loading || m_replacing) {
        m_pollAgain = true;
        return true;
    }
    return poll();
}

void QueueModel::applyPoll(quint64 generation, const PollResult &r, int tailAfter)
{
    const Outcome<QueuePage> &page = r.tail.ok() ? r.page : r.tail; // either failing fails the poll
    const Outcome<qint64> &count = r.count;
    m_polling = false;
    if (m_pollAgain) { // a hint came while this poll ran: it may have read before the change committed
        m_pollAgain = false;
        QMetaObject::invokeMethod(this, [this] { poll(); }, Qt::QueuedConnection);
    }
    if (generation != m_generation)
        return; // reset meanwhile: the rows it compared are gone
    const QString now = nowUtcText();
    if (!page.ok()) {
        if (!m_live.stale) {
            m_live.stale = true;
            m_live.staleSinceUtc = now;
        }
        m_live.why = page.error->message;
        logger("models")->warn("{} queue: live poll failed: {}", queueName(m_request.kind), m_live.why.toStdString());
        emit liveStateChanged();
        emit polled(false, 0, 0, 0);
        return;
    }
    const QueueDelta d = diffQueueRowsWithTail(m_request, m_rows, leftIndexes(), m_atEnd, r.page->rows, r.page->atEnd, tailAfter,
                                               r.tail->rows, r.tail->atEnd);
    for (int k = 0; k < d.updated.size(); ++k) {
        const int i = d.updated[k];
        m_rows[i] = d.updatedRows[k];
        emit dataChanged(index(i, 0), index(i, ColumnCount - 1));
    }
    for (int i : d.left) {
        m_marks.insert(queueRowIdentity(m_rows[i]), LiveMark{2, now, QString()});
        emit dataChanged(index(i, 0), index(i, ColumnCount - 1));
    }
    readLeftReasons(generation, d.left);
    // From the last: rows entering at one place keep their queue order.
    for (auto it = d.entered.crbegin(); it != d.entered.crend(); ++it) {
        const int at = it->first;
        beginInsertRows(QModelIndex(), at, at);
        m_rows.insert(at, it->second);
        m_marks.insert(queueRowIdentity(it->second), LiveMark{1, now, QString()});
        endInsertRows();
    }
    // Claims decorate every row and change without touching the row (another operator's claim,
    // a release, an expiry): re-read with every poll, so they are live too.
    loadClaims(0, int(m_rows.size()));
    if (count.ok() && *count != m_count) {
        m_count = *count;
        m_countError.clear();
        emit countChanged(m_count);
    }
    m_live.stale = false;
    m_live.staleSinceUtc.clear();
    m_live.why.clear();
    m_live.lastOkUtc = now;
    emit liveStateChanged();
    emit polled(true, int(d.entered.size()), int(d.updated.size()), int(d.left.size()));
}

void QueueModel::readLeftReasons(quint64 generation, const QVector<int> &left)
{
    QStringList keys;
    for (int i : left)
        if (m_rows[i].source == QueueSource::Record && !keys.contains(m_rows[i].idemKey) && keys.size() < 200) // the first 200: one statement each
            keys << m_rows[i].idemKey;
    if (keys.isEmpty())
        return;
    whenReady(readLeftRowReasons(*m_workspace, keys), this, [this, generation](const Outcome<QHash<QString, QString>> &reasons) {
        if (generation != m_generation)
            return; // reset meanwhile
        if (!reasons.ok()) { // the generic text stays
            logger("models")->warn("{} queue: why rows left not read: {}", queueName(m_request.kind), reasons.error->message.toStdString());
            return;
        }
        for (int i = 0; i < m_rows.size(); ++i) {
            const QueueRow &row = m_rows[i];
            const auto mark = m_marks.find(queueRowIdentity(row));
            if (row.source != QueueSource::Record || mark == m_marks.end() || mark->change != 2 || !reasons->contains(row.idemKey))
                continue;
            mark->why = reasons->value(row.idemKey);
            emit dataChanged(index(i, 0), index(i, ColumnCount - 1));
        }
        emit leftReasonsRead();
    });
}

QueueModel::~QueueModel()
{
    m_token.cancel(); // nobody will read the results of jobs still queued
}

} // namespace triage
