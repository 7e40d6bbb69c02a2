#include "WindowHistogram.h"

#include "TimeText.h"

namespace triage {

namespace {
constexpr qint64 kMinuteUs = 60LL * 1000 * 1000;
constexpr int kBucketMinutes[] = {1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440};

qint64 floorDiv(qint64 a, qint64 b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}
} // namespace

int WindowHistogram::bucketOf(UtcMicros t) const
{
    if (starts.isEmpty() || t < starts.first())
        return -1;
    const qint64 i = (t - starts.first()) / (qint64(bucketMinutes) * kMinuteUs);
    return i < starts.size() ? int(i) : -1;
}

WindowHistogram bucketWindow(const QVector<MinuteCount> &perMinute, UtcMicros from, UtcMicros to, int maxBuckets)
{
    WindowHistogram h;
    if (to <= from)
        return h;
    maxBuckets = qMax(1, maxBuckets);
    for (int minutes : kBucketMinutes) {
        h.bucketMinutes = minutes;
        const qint64 len = qint64(minutes) * kMinuteUs;
        if (floorDiv(to - 1, len) - floorDiv(from, len) + 1 <= maxBuckets)
            break;
    }
    const qint64 len = qint64(h.bucketMinutes) * kMinuteUs;
    for (qint64 b = floorDiv(from, len); b <= floorDiv(to - 1, len); ++b)
        h.starts << b * len;
    for (auto &c : h.counts)
        c.fill(0, h.starts.size());
    for (const MinuteCount &m : perMinute) {
        const auto t = parseUtcMicros(QString(m.minute + QStringLiteral(":00Z")));
        if (!t)
            continue;
        const int i = h.bucketOf(*t);
        if (i < 0)
            continue;
        h.counts[int(storeOf(m.kind))][i] += m.events;
        h.total += m.events;
    }
    return h;
}

} // namespace triage
