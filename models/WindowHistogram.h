#pragma once

#include "WindowSummary.h"

#include <QString>
#include <QVector>

namespace triage {

/// The Incident view's histogram (DESIGN.md §7): a window's events per time bucket, stacked
/// by store, from WindowSummary::perMinute (aggregate SQL; never the window's rows). Buckets
/// are whole minutes (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720 or 1440: the smallest
/// giving at most `maxBuckets` buckets), aligned on multiples of their length since the
/// epoch (UTC), from the bucket holding `from` to the one holding the last instant before `to`.
struct WindowHistogram {
    int bucketMinutes = 1;
    QVector<UtcMicros> starts;   ///< each bucket's start, µs since the epoch, ascending
    QVector<qint64> counts[4];   ///< per EventStore (index = int(EventStore)), one value per bucket
    qint64 total = 0;            ///< every event counted

    /// The bucket holding `t`, or -1 outside the buckets.
    int bucketOf(UtcMicros t) const;
};

/// Buckets `perMinute` (minutes "2026-12-01T02:10", UTC) over [from, to). Minutes that do not
/// parse or fall outside the buckets are left out (not counted in `total`).
WindowHistogram bucketWindow(const QVector<MinuteCount> &perMinute, UtcMicros from, UtcMicros to, int maxBuckets = 120);

} // namespace triage
