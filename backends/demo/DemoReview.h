#pragma once
// The demo's daily review (DESIGN.md §8 "The daily review"): breaches recorded for the
// history's overdue escalations, the trend rows of its 14 days, and one day signed off, so
// the Review view and the report are full on first start.

#include "DbError.h"

#include <QDate>

namespace triage {

class Workspace;

/// What seedReviewHistory() wrote.
struct ReviewHistoryReport {
    int breaches = 0;      ///< triage_review_breach rows recorded (noticed_by "console")
    int trendRows = 0;     ///< triage_review_daily rows written (zone UTC, 30 days up to today)
    QDate signedDay;       ///< the day signed off: the day before yesterday (UTC), by alice
};

/// On the idempotency worker, after the history (seedEscalationHistory()): records the
/// breaches noticed now, writes the trend rows in UTC, and signs off the day before yesterday
/// (UTC) as alice with the SHA-256 of that day's JSON report, signed_at moved to 09:00 UTC of
/// the day after it (a morning review). Blocking; call it where seedEscalationHistory() is.
Outcome<ReviewHistoryReport> seedReviewHistory(Workspace &workspace);

} // namespace triage
