// The queue order and the live update's comparison (DESIGN.md §9 "Live queues").
#include "Queue.h"

#include "TimeText.h"

#include <QHash>

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

} // namespace triage
