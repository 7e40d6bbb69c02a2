#pragma once
// The daily review's machine-readable report (DESIGN.md §8 "The daily review"): JSON and CSV
// of one ReviewSnapshot. Pure functions, no widgets, no database: the same snapshot gives the
// same bytes, so a sign-off's report_sha256 identifies what the reviewer saw.

#include "Review.h"

#include <QByteArray>

namespace triage {

/// The review as one JSON object (indented UTF-8): "review" (day, zone, window in UTC and in
/// the zone, as_of, server_now, generated_by), "totals" (open, open_keys, opened, resolved,
/// breaches, new/changed since sign-off, open_by_bucket {lt_24h, 1_3d, 3_7d, gt_7d} adding
/// up to open, open_money [{currency, sum, count, unknown}]), "groups" (bucket, reason,
/// biz_type, escalations, keys, breached, money, escalation_ids), "sla", "trend",
/// "median_resolve_s" {"14d", "30d"}, "open" and "resolved" items (each with an absolute
/// deep link triage://key/<key>), "last_signoff" and "this_day_signoff" (null when none).
/// Counts are per escalation; "keys" counts distinct idempotency keys.
QByteArray reviewJson(const ReviewSnapshot &snapshot);

/// The same as CSV (RFC 4180, header line first): one table whose first column `section`
/// says what a row is — "summary" (name, value: day, zone, window_from_utc, window_to_utc,
/// window_from_local, window_to_local, as_of, server_now, open, open_keys, opened, resolved,
/// breaches, new_since_signoff, changed_since_signoff, last_signoff_by, last_signoff_at),
/// "bucket" (bucket, escalations), "money" (open money per currency), "group", "group_money",
/// "sla", "trend", "open" and "resolved" (one escalation each, with its link, its claim's
/// holder and expiry, new/changed since the last sign-off, the last reviewer and its number
/// of notes). Every row carries the day and zone. Columns: section, day, zone, name, value,
/// bucket, reason, biz_type, escalations, keys, breached, currency, sum, counted, unknown, id,
/// idem_key, first_escalated_at, sla_due_at, link, since_signoff, claimed_by, claimed_until,
/// last_reviewed_by, notes.
QByteArray reviewCsv(const ReviewSnapshot &snapshot);

/// "new" (first escalated after the last sign-off), "changed" (updated after it) or "" — an
/// item's since_signoff column in the CSV and the CLI table.
QString reviewSinceSignOffText(const ReviewItem &item);

/// The review's fingerprint: the SHA-256 (64 lower-case hex digits) of reviewJson() of the
/// snapshot's figures — the snapshot with the fields that say who read it when emptied
/// (review.server_now and review.generated_by "", this_day_signoff null) — so the same figures
/// give the same fingerprint whoever reads them, before or after the sign-off. A sign-off records
/// it as report_sha256 whichever format the reviewer looked at (the console, HTML, PDF, CSV or
/// JSON: HTML and PDF print it in their header, `triagectl report` per day); a closed day whose
/// escalations, notes and claims have not changed since reproduces it, and the reports say
/// whether it matches the day's sign-off (reviewFingerprintCheck()).
QString reviewReportSha256(const ReviewSnapshot &snapshot);

/// "" when the day is not signed off; else "matches this day's sign-off" or "differs from this
/// day's sign-off (<its report_sha256>): the figures changed since it was signed" — or, for a
/// sign-off made before the day ended, "…: it was signed at 10:15:02 UTC, before the day ended,
/// and a running day's figures move with "as of"; only a report as of that instant reproduces
/// it" (nothing need have changed) — comparing
/// the sign-off's report_sha256 with `fingerprint` (reviewReportSha256() of `snapshot`, which
/// the caller has already computed for printing).
QString reviewFingerprintCheck(const ReviewSnapshot &snapshot, const QString &fingerprint);

} // namespace triage
