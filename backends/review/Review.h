#pragma once
// CONTRACT (written by the lead before implementation; implementers may add members and
// functions, but keep these names and meanings: two helpers code against them — the
// backend/CLI helper implements it, the view/report helper renders it).
//
// The daily review (DESIGN.md §8 "The daily review", issue 16): each morning someone works
// through what reconciliation escalated — what is new since the last sign-off, what is old,
// what breached its SLA, who owns what — then signs the day off and shares a report. One
// ReviewSnapshot is read per review; the view, HTML, PDF, CSV and JSON all render that one
// snapshot, so their totals are identical by construction.
//
// Console-owned tables (idempotency database, console schema version 5, created by
// init-schema from resources/schema/<dialect>/review.sql):
//   triage_review_breach   (escalation_id PK, idem_key, biz_type, reason, due_at, noticed_at,
//                           noticed_by): an SLA breach recorded ONCE, stamped with the time
//                           it fell due (due_at = the escalation's sla_due_at), by whoever
//                           noticed first ("console", "reconciler", "report"): INSERT … ON
//                           CONFLICT DO NOTHING / INSERT IGNORE; never recomputed.
//   triage_review_signoff  (id, day 'YYYY-MM-DD', zone IANA name, window_from, window_to,
//                           signed_by, signed_at, counts JSON, open_by_bucket JSON,
//                           report_sha256, note; UNIQUE (day, zone)).
//   triage_review_daily    (day, zone, biz_type, reason, opened, resolved, open_end,
//                           breaches, median_resolve_s NULL, complete 0|1, written_at,
//                           written_by; PRIMARY KEY (day, zone, biz_type, reason)): the
//                           trend rows that survive purges; a complete day's rows are written
//                           once and never rewritten; the current day's (complete = 0) are
//                           replaced by each writer (reconcile runs and the report).
//   triage_review_note     (id, escalation_id, kind 'reviewed' | 'note', text, by, at):
//                           "mark reviewed" and notes; each also audited.
//   (As built: the note's columns are note_text, noted_by, noted_at — BY and AT are SQL
//   keywords; the SQL is backends/review/ReviewSql.h, the writers shared with reconcile runs
//   backends/reconcile/ReviewRecord.h.)

#include "Escalation.h"
#include "EscalationService.h"
#include "DbError.h"

#include <QDate>
#include <QFuture>
#include <QString>
#include <QTimeZone>
#include <QVector>

#include <array>
#include <optional>
#include <utility>

namespace triage {

class Workspace;

/// The four age buckets of open escalations (DESIGN.md §8): age = asOf − first_escalated_at.
/// Boundaries are calendar days in the review zone: asOf's local wall-clock time minus 1, 3
/// and 7 days (QDateTime::addDays in the zone), so across a DST change "1–3 d" is 71 or 73
/// hours. An escalation exactly on a boundary falls in the OLDER bucket (age ≥ 1 d is "1–3 d").
enum class AgeBucket { Under1Day, OneToThreeDays, ThreeToSevenDays, OverSevenDays };
/// "< 24 h", "1–3 d", "3–7 d", "> 7 d".
QString ageBucketLabel(AgeBucket b);
/// "lt_24h", "1_3d", "3_7d", "gt_7d" (JSON / CSV keys).
QString ageBucketKey(AgeBucket b);
/// Every bucket, youngest first.
QVector<AgeBucket> allAgeBuckets();
/// The bucket of an escalation first escalated at `firstEscalated` as of `asOf` in `zone`.
AgeBucket ageBucketOf(const QDateTime &firstEscalated, const QDateTime &asOf, const QTimeZone &zone);
/// The same in microseconds since the epoch (UTC), exact to the microsecond (the columns'
/// precision): the boundaries keep asOf's sub-millisecond part. (Added by the backend helper.)
AgeBucket ageBucketOfMicros(qint64 firstEscalatedUs, qint64 asOfUs, const QTimeZone &zone);
/// The three bucket boundaries of `asOfUs` in `zone`, µs since the epoch (UTC): asOf's wall-clock
/// time minus 1, 3 and 7 calendar days, in that order (exact to the microsecond, as
/// ageBucketOfMicros() uses them). An escalation first escalated at or before boundaries[i] is
/// at least that old. The review's SQL binds these, so SQL only compares timestamps.
std::array<qint64, 3> ageBucketBoundariesMicros(qint64 asOfUs, const QTimeZone &zone);

/// The reviewed day: a calendar day in the review zone (`[console] review_time_zone`,
/// default UTC), i.e. [from, to) in UTC. Printed on everything.
struct ReviewDay {
    QDate day;
    QTimeZone zone;          ///< valid IANA zone (or UTC)
    QDateTime from, to;      ///< UTC; to − from is 23, 24 or 25 h
    /// The instant the snapshot is "as of": min(to, the server's now) (UTC).
    QDateTime asOf;
    /// The day in `zone` containing `instant` (UTC).
    static ReviewDay containing(const QDateTime &instant, const QTimeZone &zone);
    /// `day` in `zone`.
    static ReviewDay of(QDate day, const QTimeZone &zone);
};

/// Exact decimal money: per currency, the sum of the amounts as written (decimal text,
/// summed without floating point), and how many amounts were unknown (NULL or unreadable).
struct MoneyTotal {
    QString currency;        ///< "" when unknown
    QString sum;             ///< decimal text, e.g. "1250.50"
    int count = 0;           ///< escalations counted in sum
    int unknown = 0;         ///< escalations of this currency with no readable amount
};

/// Exact decimal sums of `amounts` (decimal text as stored; nullopt unknown) per currency
/// (DESIGN.md §8 "Money"): no floating point. An amount reads when it is an optional sign,
/// at most 20 integer digits and at most 18 fraction digits ("1250.50", "-3", "0.1"); any
/// other text (or a sum that would overflow) counts as unknown. The sum keeps the most
/// fraction digits of the amounts it adds ("0.10" + "0.20" = "0.30", "1" + "0.5" = "1.5").
/// Sorted by currency. Pure. (Added by the backend helper.)
QVector<MoneyTotal> sumMoney(const QVector<std::pair<QString, std::optional<QString>>> &currencyAmounts);

/// One open escalation as the review shows it.
struct ReviewItem {
    EscalationRow row;                   ///< the escalation with its claims
    AgeBucket bucket = AgeBucket::Under1Day;
    bool breached = false;               ///< a triage_review_breach row exists (or was just recorded)
    QString breachDueAt;                 ///< the breach's due_at (ISO UTC), "" when none
    bool newSinceSignOff = false;        ///< first escalated after the last sign-off's signed_at
    bool changedSinceSignOff = false;    ///< updated (last_seen_at / version) after it, not new
    QString lastReviewedBy, lastReviewedAt; ///< the latest 'reviewed' note ("" none)
    int notes = 0;                       ///< notes on the escalation
};

/// One group row: age bucket × reason × biz_type, with counts and money.
struct ReviewGroup {
    AgeBucket bucket = AgeBucket::Under1Day;
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    QString bizType;
    int escalations = 0;                 ///< per escalation (the unit of every count)
    int keys = 0;                        ///< distinct idempotency keys (labelled "keys")
    int breached = 0;
    QVector<MoneyTotal> money;           ///< per currency, sorted by currency
    QVector<qint64> escalationIds;       ///< the rows behind it (each opens its key)
};

/// SLA per biz_type (`review_sla_hours`).
struct ReviewSla {
    QString bizType;
    int slaHours = 24;
    int open = 0;
    int overdue = 0;                     ///< open and past sla_due_at at asOf
    int breachedToday = 0;               ///< breaches whose due_at falls in the day
};

/// A sign-off row.
struct ReviewSignOff {
    qint64 id = 0;
    QDate day;
    QString zone;
    QString windowFrom, windowTo;        ///< ISO UTC
    QString signedBy, signedAt;          ///< signedAt ISO UTC (server clock)
    QString countsJson;                  ///< JSON object text as stored
    QString openByBucketJson;            ///< JSON object text as stored: {"lt_24h": n, …}
    QString reportSha256;                ///< hex
    QString note;
};

/// One trend row (triage_review_daily).
struct ReviewDailyRow {
    QDate day;
    QString bizType;
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    int opened = 0, resolved = 0, openAtEnd = 0, breaches = 0;
    std::optional<double> medianResolveS;///< that day's median time to resolve (s); nullopt none
    bool complete = false;               ///< the day had ended when written
};

/// The day's totals (every format prints exactly these).
struct ReviewTotals {
    int open = 0;                        ///< open at asOf; == sum of openByBucket
    QVector<int> openByBucket;           ///< indexed by AgeBucket (4 entries)
    int openKeys = 0;                    ///< distinct keys among the open ones
    int opened = 0;                      ///< first escalated within [from, to)
    int resolved = 0;                    ///< resolved within [from, to)
    int breaches = 0;                    ///< breaches whose due_at is within [from, to)
    int newSinceSignOff = 0, changedSinceSignOff = 0;
    QVector<MoneyTotal> openMoney;       ///< per currency over the open ones
};

/// Everything one review shows, read in one go (one snapshot per view refresh / report).
struct ReviewSnapshot {
    ReviewDay day;
    QString serverNow;                   ///< ISO UTC, the idempotency database's clock
    QString generatedBy;                 ///< operator
    std::optional<ReviewSignOff> lastSignOff;   ///< the latest sign-off before this day's end
    std::optional<ReviewSignOff> thisDaySignOff;///< when this day is already signed
    ReviewTotals totals;
    QVector<ReviewItem> open;            ///< open at asOf, oldest first (only the first page when !openComplete)
    /// False when `open` holds only the first page (readReview() with an openLimit): the totals,
    /// groups (with every escalation id) and SLA still count every open escalation; the rest of
    /// the items come from readReviewItems().
    bool openComplete = true;
    qint64 asOfMicros = 0;               ///< day.asOf exact to the microsecond (UTC µs), for readReviewItems()
    QVector<ReviewItem> resolvedToday;   ///< resolved within the day
    QVector<ReviewGroup> groups;         ///< bucket, reason, biz_type order
    QVector<ReviewSla> sla;              ///< by biz_type
    QVector<ReviewDailyRow> trend;       ///< the 30 days up to the day (from triage_review_daily)
    /// Median time to resolve over the last 14 and 30 days, computed from the resolution
    /// times still held in triage_escalation (never averaged from daily medians); nullopt none.
    std::optional<double> median14S, median30S;
    QString deepLinkBase;                ///< absolute "triage://…" base for links (DeepLink.h)
};

/// Reads the review of `day` (default: the day containing the server's now, in the
/// workspace's review zone): records SLA breaches noticed now (noticed_by "console" /
/// "report" as `noticedBy` says) and writes the trend rows (triage_review_daily), then reads
/// the snapshot. The totals, groups, money and SLA come from aggregate statements over every
/// open escalation whatever `openLimit` is; `openLimit` > 0 reads only the first `openLimit`
/// open items (oldest first; openComplete false when more exist: the console's first paint),
/// 0 reads them all (the reports). Fails with Config when the database has no review tables
/// (console schema version < 5: "run triagectl init-schema").
QFuture<Outcome<ReviewSnapshot>> readReview(Workspace &ws, std::optional<QDate> day, const QString &noticedBy, int openLimit = 0);

/// The next `limit` (> 0) open items of `snapshot` after its last one (oldest first), as of the
/// same instant (snapshot.asOfMicros), with the same sign-off for new/changed: what a view appends
/// to a snapshot read with an openLimit. Records nothing. Empty when there are no more.
QFuture<Outcome<QVector<ReviewItem>>> readReviewItems(Workspace &ws, const ReviewSnapshot &snapshot, int limit);

/// review_sql::changeMark() in the workspace's review zone, on the reader (the replica where the
/// lag allows): the live Review view's poll (DESIGN.md §9 "Live review") re-reads the snapshot
/// only when this text changed. Fails as readReview() does.
QFuture<Outcome<QString>> reviewChangeMark(Workspace &ws);

/// Signs `snapshot`'s day off as the workspace's operator: counts, open by bucket and the
/// report's SHA-256 (`reportSha256`, hex of the report bytes the reviewer saw), one row per
/// (day, zone). Conflict when the day is already signed (by whom, when). Read-only: Refused.
QFuture<Outcome<ReviewSignOff>> signOffReview(Workspace &ws, const ReviewSnapshot &snapshot, const QString &reportSha256,
                                              const QString &note);

/// Marks escalation `id` reviewed (`kind` reviewed) or adds a note; audited
/// (`review.reviewed` / `review.note`). Read-only: Refused.
QFuture<Outcome<qint64>> addReviewNote(Workspace &ws, qint64 escalationId, const QString &kind, const QString &text);

} // namespace triage
