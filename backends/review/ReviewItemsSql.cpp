// The daily review's items (DESIGN.md §8 "The daily review"): the open escalations as of the
// snapshot's instant, read whole or a page at a time (oldest first, keyset on
// first_escalated_at, id), with the claims, breach rows and notes of the items read only.
#include "ReviewSql.h"

#include "Claim.h"
#include "ColumnText.h"

#include <QSqlQuery>

namespace triage::review_sql {

namespace {

/// At most this many ids in one `IN (…)` of a lookup.
constexpr qsizetype kIdChunk = 500;
/// Above this many items the lookups join the items' conditions instead of listing ids.
constexpr qsizetype kManyItems = 2 * kIdChunk;

/// Runs `sqlFor(b, placeholders)` once per ≤ 500 of `ids` (bound as integers) and hands each
/// row to `onRow`.
template<typename SqlFor, typename OnRow>
void forEachIdChunk(DbSession &session, const QVector<qint64> &ids, SqlFor &&sqlFor, OnRow &&onRow)
{
    for (qsizetype from = 0; from < ids.size(); from += kIdChunk) {
        SqlBuilder b;
        QStringList placeholders;
        for (qint64 id : ids.mid(from, kIdChunk))
            placeholders << b.bind(id);
        QSqlQuery q = session.exec(sqlFor(b, placeholders.join(QStringLiteral(", "))), b);
        while (q.next())
            onRow(q);
    }
}

/// `e` as an item as of c.asOf; `breachDue` its breach row's due_at ("" none).
ReviewItem itemOf(const Escalation &e, const ItemContext &c, const QString &breachDue)
{
    ReviewItem it;
    it.row.escalation = e;
    const UtcMicros first = parseUtcMicros(e.firstEscalatedAt).value_or(0);
    it.bucket = ageBucketOfMicros(first, c.asOf, c.zone);
    // Breached as of the snapshot: a breach row due before asOf, or past sla_due_at at asOf (a
    // past day's escalation resolved since was never noticed as a breach).
    const std::optional<UtcMicros> due = e.slaDueAt.isEmpty() ? std::nullopt : parseUtcMicros(e.slaDueAt);
    const std::optional<UtcMicros> recorded = breachDue.isEmpty() ? std::nullopt : parseUtcMicros(breachDue);
    if (recorded && *recorded < c.asOf) {
        it.breached = true;
        it.breachDueAt = breachDue;
    } else if (due && *due < c.asOf) {
        it.breached = true;
        it.breachDueAt = e.slaDueAt;
    }
    if (c.signedAt) {
        it.newSinceSignOff = first > *c.signedAt;
        it.changedSinceSignOff = !it.newSinceSignOff && parseUtcMicros(e.lastSeenAt).value_or(0) > *c.signedAt;
    }
    return it;
}

} // namespace

QStringList openAt(const SqlDialect &d, SqlBuilder &b, UtcMicros asOf)
{
    return {QStringLiteral("e.first_escalated_at < %1").arg(d.timeParam(b.bind(d.bindTime(asOf)))),
            QStringLiteral("(e.resolved_at IS NULL OR e.resolved_at >= %1)").arg(d.timeParam(b.bind(d.bindTime(asOf))))};
}

QVector<ReviewItem> readOpenItems(DbSession &session, const ItemContext &c, std::optional<std::pair<UtcMicros, qint64>> after,
                                  int limit)
{
    const SqlDialect &d = session.dialect();
    auto where = [&](SqlBuilder &b) {
        QStringList w = openAt(d, b, c.asOf);
        if (after)
            w << d.keysetAfter(b, QStringLiteral("e.first_escalated_at"), QStringLiteral("e.id"), d.bindTime(after->first), after->second,
                               false);
        return w;
    };
    QVector<Escalation> open;
    {
        SqlBuilder b;
        open = escalation_sql::select(session, b, where(b), QStringLiteral("e.first_escalated_at, e.id"), std::max(0, limit));
    }
    // The breach rows, notes and claims of the items read: by id / key lists for a page; for
    // many items (a report) by joining the same conditions and reading the unexpired claims
    // once, which is far cheaper than hundreds of IN lists.
    const bool many = open.size() > kManyItems;
    QVector<qint64> ids;
    QStringList keys, idTexts;
    ids.reserve(open.size());
    for (const Escalation &e : std::as_const(open)) {
        ids << e.id;
        keys << e.idemKey;
        idTexts << QString::number(e.id);
    }
    keys.removeDuplicates();
    /// Runs `columns FROM <table> <alias> …` over the items read: joined or by id lists.
    auto forItems = [&](const QString &columns, const QString &table, const QString &alias, const QString &orderBy, auto &&onRow) {
        if (many) {
            SqlBuilder b;
            QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM %2 %3 JOIN triage_escalation e ON e.id = %3.escalation_id WHERE %4%5")
                                           .arg(columns, table, alias, where(b).join(QStringLiteral(" AND ")), orderBy),
                                       b);
            while (q.next())
                onRow(q);
            return;
        }
        forEachIdChunk(
            session, ids,
            [&](SqlBuilder &, const QString &in) {
                return QStringLiteral("SELECT %1 FROM %2 %3 WHERE %3.escalation_id IN (%4)%5").arg(columns, table, alias, in, orderBy);
            },
            onRow);
    };
    QHash<qint64, QString> breachDue;
    forItems(QStringLiteral("br.escalation_id, %1").arg(d.timeText(QStringLiteral("br.due_at"))), QStringLiteral("triage_review_breach"),
             QStringLiteral("br"), QString(),
             [&breachDue](const QSqlQuery &q) { breachDue.insert(q.value(0).toLongLong(), canonicalTimeText(q.value(1))); });
    struct Notes {
        int count = 0;
        QString reviewedBy, reviewedAt;
    };
    QHash<qint64, Notes> notes;
    forItems(QStringLiteral("n.escalation_id, n.kind, n.noted_by, %1").arg(d.timeText(QStringLiteral("n.noted_at"))),
             QStringLiteral("triage_review_note"), QStringLiteral("n"), QStringLiteral(" ORDER BY n.noted_at, n.id"),
             [&notes](const QSqlQuery &q) {
                 Notes &n = notes[q.value(0).toLongLong()];
                 if (columnText(q.value(1)).value_or(QString()) == QLatin1String("reviewed")) {
                     n.reviewedBy = columnText(q.value(2)).value_or(QString());
                     n.reviewedAt = canonicalTimeText(q.value(3));
                 } else {
                     ++n.count;
                 }
             });
    QHash<QString, Claim> byKey, byId;
    if (many) {
        for (const Claim &claim : claim_sql::list(session, false)) {
            if (claim.scope == ClaimScope::Key)
                byKey.insert(claim.subject, claim);
            else if (claim.scope == ClaimScope::Escalation)
                byId.insert(claim.subject, claim);
        }
    } else {
        byKey = claim_sql::activeFor(session, ClaimScope::Key, keys);
        byId = claim_sql::activeFor(session, ClaimScope::Escalation, idTexts);
    }
    QVector<ReviewItem> items;
    items.reserve(open.size());
    for (const Escalation &e : std::as_const(open)) {
        ReviewItem it = itemOf(e, c, breachDue.value(e.id));
        if (e.isOpen() && byKey.contains(e.idemKey))
            it.row.keyClaim = byKey.value(e.idemKey);
        if (e.isOpen() && byId.contains(QString::number(e.id)))
            it.row.escalationClaim = byId.value(QString::number(e.id));
        const Notes n = notes.value(e.id);
        it.notes = n.count;
        it.lastReviewedBy = n.reviewedBy;
        it.lastReviewedAt = n.reviewedAt;
        items << it;
    }
    return items;
}

QVector<ReviewItem> readResolvedItems(DbSession &session, const ItemContext &c, UtcMicros from, UtcMicros to)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    const QVector<Escalation> resolved =
        escalation_sql::select(session, b,
                               {QStringLiteral("e.resolved_at >= %1").arg(d.timeParam(b.bind(d.bindTime(from)))),
                                QStringLiteral("e.resolved_at < %1").arg(d.timeParam(b.bind(d.bindTime(to))))},
                               QStringLiteral("e.resolved_at, e.id"));
    QVector<ReviewItem> items;
    items.reserve(resolved.size());
    for (const Escalation &e : resolved)
        items << itemOf(e, c, QString());
    return items;
}

} // namespace triage::review_sql
