#pragma once
// The writes of the daily review that reconcile runs make too (DESIGN.md §8 "The daily
// review"): SLA breaches recorded once, and the trend rows (triage_review_daily). They live
// here, below backends/review, because the reconcile run calls them at the end of a non-dry
// run; backends/review (readReview()) calls the same functions. Console schema version 5.

#include "DbSession.h"
#include "TimeText.h"

#include <QDate>
#include <QString>
#include <QTimeZone>

#include <utility>

namespace triage {

/// [from, to) in UTC µs of calendar day `day` in `zone` (its start of day to the next one's:
/// 23, 24 or 25 hours; a day starting in a DST gap starts at the gap's end). DESIGN.md §8.
std::pair<UtcMicros, UtcMicros> reviewDayWindow(QDate day, const QTimeZone &zone);
/// The calendar day in `zone` containing instant `t` (UTC µs).
QDate reviewDayContaining(UtcMicros t, const QTimeZone &zone);
/// The name stored in triage_review_* zone columns: the IANA id ("UTC" for UTC).
QString reviewZoneName(const QTimeZone &zone);

namespace review_sql {

/// True when the idempotency database has the four review tables (console schema version 5).
bool hasReviewTables(DbSession &session);
/// Throws DbException of kind Config (triagectl exit 1) when the review tables are missing:
/// "the idempotency database has no review tables (console schema version 4; the daily
/// review needs version 5): run `triagectl init-schema`".
void requireReviewTables(DbSession &session);

/// Records the SLA breaches noticed now, once each (DESIGN.md §8 "Breaches"): every open
/// escalation past its sla_due_at on the server's clock gets a triage_review_breach row with
/// due_at = its sla_due_at, noticed_at = the server's now and noticed_by = `noticedBy`
/// ("console", "reconciler", "report"). One INSERT … SELECT with ON CONFLICT DO NOTHING
/// (MySQL/MariaDB INSERT IGNORE): an existing row is never updated. Returns the rows
/// written. Throws DbException.
int recordBreaches(DbSession &session, const QString &noticedBy);

/// Writes the trend rows (triage_review_daily) of the `days` calendar days in `zone` up to
/// the one containing the server's now: a day that has ended and already has complete rows is
/// left as it is (written once, never rewritten); the others are computed from
/// triage_escalation and triage_review_breach and written (the current day's with complete =
/// 0, replacing its earlier rows). One row per (biz_type, reason) with any activity or open
/// escalation that day. In one transaction. Returns the rows written. Throws DbException.
int writeTrendRows(DbSession &session, const QTimeZone &zone, const QString &writtenBy, int days = 30);

/// What reconcile runs call at the end of a non-dry run (noticed_by / written_by
/// "reconciler"): recordBreaches() and writeTrendRows(), when the review tables exist and the
/// console schema allows writing; nothing otherwise. Throws DbException.
void afterReconcileRun(DbSession &session, const QTimeZone &zone, const QString &by);

} // namespace review_sql

} // namespace triage
