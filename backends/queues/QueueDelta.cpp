// The queue order and the live update's comparison (DESIGN.md §9 "Live queues").
#include "Queue.h"

#include "TimeText.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <limits>

namespace triage {

std::pair<int, qint64> queueRowIdentity(const QueueRow &row)
{
    return {int(row.source), row.id};
}

bool queueRowBefore(const QueueRequest &req, const QueueRow &a, const QueueRow &b)
{
    const UtcMicros ta = parseUtcMicros(a.updatedAt).value_or(0), tb = parseUtcMicros(b.updatedAt).value_or(0);
    if (ta != tb)
        return req.newestFirst ? ta > tb : ta < tb;
    if (a.source != b.source)
        return a.source == QueueSource::Record; // records first on equal times
    return req.newestFirst ? a.id > b.id : a.id < b.id;
}

QueueDelta diffQueueRows(const QueueRequest &req, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft,
                         bool heldComplete, const QVector<QueueRow> &fresh, bool freshComplete)
{
    const auto identity = queueRowIdentity;
    QHash<std::pair<int, qint64>, int> freshAt, heldAt;
    for (int i = 0; i < fresh.size(); ++i)
        freshAt.insert(identity(fresh[i]), i);
    for (int i = 0; i < held.size(); ++i)
        if (!alreadyLeft.contains(i))
            heldAt.insert(identity(held[i]), i);
    QueueDelta d;
    for (int i = 0; i < held.size(); ++i) {
        if (alreadyLeft.contains(i))
            continue;
        const auto f = freshAt.constFind(identity(held[i]));
        if (f != freshAt.constEnd()) {
            const QueueRow &now = fresh[*f];
            if (now.updatedAt != held[i].updatedAt || now.status != held[i].status || now.expireAt != held[i].expireAt) {
                d.updated << i;
                d.updatedRows << now;
            }
        } else if (freshComplete || (!fresh.isEmpty() && queueRowBefore(req, held[i], fresh.constLast()))) {
            d.left << i;
        }
    }
    // The last row still in the queue bounds where entering rows are shown.
    int lastHeld = -1;
    for (int i = int(held.size()) - 1; i >= 0 && lastHeld < 0; --i)
        if (!alreadyLeft.contains(i) && !d.left.contains(i))
            lastHeld = i;
    for (const QueueRow &r : fresh) {
        if (heldAt.contains(identity(r)))
            continue;
        if (!heldComplete && (lastHeld < 0 || !queueRowBefore(req, r, held[lastHeld])))
            continue; // past the rows held: paging brings it
        // Before the first held row (left ones included) that it precedes.
        int at = int(held.size());
        for (int i = 0; i < held.size(); ++i)
            if (queueRowBefore(req, r, held[i])) {
                at = i;
                break;
            }
        d.entered.append({at, r});
    }
    return d;
}

QueueCursor queueCursorAfter(const QueueRequest &req, const QueueRow &row)
{
    QueueCursor c;
    const bool isRecord = row.source == QueueSource::Record;
    SourceCursor &own = isRecord ? c.record : c.intent;
    SourceCursor &other = isRecord ? c.intent : c.record;
    own.started = true;
    own.time = row.cursorTime;
    own.id = row.id;
    // As mergeQueuePages() leaves the other source after a page ending at `row`: on equal
    // times records come first, so after an intent at t no record at t is left.
    other.started = true;
    other.time = row.cursorTime;
    other.instant = row.updatedAt;
    const bool noneLeftAtT = !isRecord;
    other.id = noneLeftAtT == !req.newestFirst ? std::numeric_limits<qint64>::max() : std::numeric_limits<qint64>::min() + 1;
    return c;
}

int queueTailAfter(const QueueRequest &req, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft, int headRows, int lookbackS)
{
    if (req.newestFirst) // new and changed rows come first: the head re-read sees them
        return -1;
    QVector<int> live;
    for (int i = 0; i < held.size(); ++i)
        if (!alreadyLeft.contains(i))
            live << i;
    if (live.size() <= headRows)
        return -1;
    const UtcMicros bound = parseUtcMicros(held[live.last()].updatedAt).value_or(0) - qint64(lookbackS) * 1000000;
    int after = live[headRows - 1];
    for (int k = int(live.size()) - 1; k >= headRows; --k)
        if (parseUtcMicros(held[live[k]].updatedAt).value_or(0) <= bound) {
            after = live[k];
            break;
        }
    return after;
}

QueueDelta diffQueueRowsWithTail(const QueueRequest &req, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft,
                                 bool heldComplete, const QVector<QueueRow> &head, bool headComplete, int tailAfter,
                                 const QVector<QueueRow> &tail, bool tailComplete)
{
    QueueDelta d = diffQueueRows(req, held, alreadyLeft, heldComplete && tailAfter < 0, head, headComplete);
    if (tailAfter < 0)
        return d;
    const int offset = tailAfter + 1;
    const QVector<QueueRow> heldTail = held.mid(offset);
    QSet<int> leftTail;
    for (int i : alreadyLeft)
        if (i >= offset)
            leftTail.insert(i - offset);
    const QueueDelta t = diffQueueRows(req, heldTail, leftTail, heldComplete, tail, tailComplete);
    QHash<std::pair<int, qint64>, int> heldAt;
    for (int i = 0; i < held.size(); ++i)
        if (!alreadyLeft.contains(i))
            heldAt.insert(queueRowIdentity(held[i]), i);
    QSet<std::pair<int, qint64>> inHead;
    for (const QueueRow &r : head)
        inHead.insert(queueRowIdentity(r));
    auto markUpdated = [&d](int i, const QueueRow &now) {
        d.left.removeAll(i); // the head missed it because it moved into the tail: still queued
        if (!d.updated.contains(i)) {
            d.updated << i;
            d.updatedRows << now;
        }
    };
    for (int k = 0; k < t.updated.size(); ++k)
        markUpdated(t.updated[k] + offset, t.updatedRows[k]);
    for (int i : t.left)
        if (!d.left.contains(i + offset) && !d.updated.contains(i + offset))
            d.left << i + offset;
    for (const auto &[at, row] : t.entered) {
        const auto held_ = heldAt.constFind(queueRowIdentity(row));
        if (held_ != heldAt.constEnd()) { // held before the tail: its updated_at moved it here
            markUpdated(*held_, row);
            continue;
        }
        if (inHead.contains(queueRowIdentity(row)))
            continue; // the head re-read entered it already
        d.entered.append({at + offset, row});
    }
    std::stable_sort(d.entered.begin(), d.entered.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::sort(d.left.begin(), d.left.end());
    return d;
}

} // namespace triage
