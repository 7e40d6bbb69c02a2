#pragma once
// Inside backends/review: the daily review's SQL (DESIGN.md §8 "The daily review"), run on
// the idempotency store's worker by the services in Review.h. Every value is bound; times are
// the server's clock.

#include "Review.h"

#include <QJsonObject>

#include <functional>

namespace triage::review_sql {

/// What readSnapshot() reads.
struct ReviewReadOptions {
    QTimeZone zone = QTimeZone::utc();
    std::optional<QDate> day;              ///< nullopt: the day containing the server's now
    QString noticedBy;                     ///< noticed_by / written_by of what is recorded
    bool write = true;                     ///< false (read-only mode): record nothing
    QString generatedBy;                   ///< the operator
    /// review_sla_hours of a biz_type given the database's triage_policy rows (name → value,
    /// read in the same job): the effective policy, DESIGN.md §8 "Safety policy".
    std::function<int(const QString &, const QMap<QString, QString> &)> slaHours;
    /// > 0: read only the first openLimit open items (snapshot.openComplete false when more
    /// exist); 0: all of them. The aggregates always count every open escalation.
    int openLimit = 0;
};

/// What reading review items needs: the snapshot's instant, zone and last sign-off.
struct ItemContext {
    UtcMicros asOf = 0;                    ///< the snapshot's asOf (UTC µs)
    QTimeZone zone = QTimeZone::utc();     ///< the review zone (age buckets)
    std::optional<UtcMicros> signedAt;     ///< the last sign-off's signed_at (new / changed), nullopt none
};

/// The conditions "open at `asOf`" on alias e (DESIGN.md §8): first escalated before it, not
/// resolved before it; values bound through `b`.
QStringList openAt(const SqlDialect &d, SqlBuilder &b, UtcMicros asOf);

/// The escalations open at c.asOf, oldest first (first_escalated_at, id), after the item
/// (`after`: its first_escalated_at in µs and id; nullopt: from the first), at most `limit`
/// (0: all), each with its bucket, breach (a breach row due before asOf, or sla_due_at before
/// it), new/changed since c.signedAt, active claims, last 'reviewed' note and note count
/// (looked up for the items read only). Throws DbException.
QVector<ReviewItem> readOpenItems(DbSession &session, const ItemContext &c, std::optional<std::pair<UtcMicros, qint64>> after,
                                  int limit);

/// The escalations resolved within [from, to), by resolved_at, id; bucket and breach as of
/// c.asOf from their own columns (no claims, breach rows or notes: they were not open then).
/// Throws DbException.
QVector<ReviewItem> readResolvedItems(DbSession &session, const ItemContext &c, UtcMicros from, UtcMicros to);

/// readReview()'s job: records breaches and trend rows (when `write` and the console schema
/// allows), then reads the snapshot of the day. Throws DbException (Config without the
/// review tables).
ReviewSnapshot readSnapshot(DbSession &session, const ReviewReadOptions &options);

/// Fills `s.totals`, `s.groups` and `s.sla` for every escalation open at c.asOf (the one place
/// the review's numbers are added up; DESIGN.md §8 "Cost"): one statement reads each open
/// escalation reduced in SQL to its age bucket (the boundaries computed here and bound),
/// reason, biz_type, key, currency, amount, breached, overdue and new/changed flags, oldest
/// first; the counts, distinct keys and escalation ids per age bucket × reason × biz_type are
/// added up from it, and the money by sumMoney() (exact; the amounts are text). `opened`,
/// `resolved` and `breachesByBiz` are the day's other counts. Throws DbException.
void readAggregates(DbSession &session, ReviewSnapshot &s, const ItemContext &c, int opened, int resolved,
                    const QHash<QString, int> &breachesByBiz, const std::function<int(const QString &)> &slaHours);

/// What the Review view shows that can change while it is open, as one text (DESIGN.md §9
/// "Live review"): the day containing the server's now in `zone`; the open escalations'
/// count, newest id, summed versions, latest last_seen_at, how many are past their SLA and
/// how many are older than each age-bucket boundary; the held claims on keys and escalations;
/// the notes, breaches and sign-offs. Equal texts: nothing shown changed. Reads only, a few
/// aggregates over the open index and the small console tables. Throws DbException (Config
/// without the review tables).
QString changeMark(DbSession &session, const QTimeZone &zone);

/// The sign-off row of `day` in `zone`, or nullopt. Throws DbException.
std::optional<ReviewSignOff> signOffOf(DbSession &session, QDate day, const QString &zone);

/// Inserts the sign-off of `snapshot`'s day by `signedBy` with the report's SHA-256 and
/// `note`, audited (review.signoff), in one transaction. A day already signed: throws
/// DbException of kind Conflict "2026-12-01 (UTC) is already signed off by alice at
/// <ISO UTC>", nothing written but the audit row of the conflict. Throws DbException.
ReviewSignOff signOff(DbSession &session, const ReviewSnapshot &snapshot, const QString &reportSha256, const QString &note,
                      const QString &signedBy);

/// Adds a 'reviewed' or 'note' row on escalation `id` by `by`, audited (review.reviewed /
/// review.note, idem_key the escalation's key) in one transaction; its id. An unknown
/// escalation, another kind, a note without text or text over 1000 characters: DbException
/// of kind Config (CLI exit 1) saying which. Throws DbException.
qint64 addNote(DbSession &session, qint64 escalationId, const QString &kind, const QString &text, const QString &by);

/// The counts object a sign-off stores: {"open", "open_keys", "opened", "resolved",
/// "breaches", "new_since_signoff", "changed_since_signoff"}.
QJsonObject countsJson(const ReviewTotals &t);
/// {"lt_24h": n, "1_3d": n, "3_7d": n, "gt_7d": n}.
QJsonObject openByBucketJson(const ReviewTotals &t);

} // namespace triage::review_sql
