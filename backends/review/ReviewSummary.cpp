// The daily review's numbers (DESIGN.md §8 "The daily review"), added up once from one light
// read of every open escalation (never from the items), so the view, JSON, CSV, HTML and PDF
// print identical totals whether the items are read whole or a page at a time.
#include "ReviewSql.h"

#include "ColumnText.h"

#include <QMap>
#include <QSet>
#include <QSqlQuery>

#include <tuple>

namespace triage::review_sql {

namespace {

/// The age bucket (0…3, AgeBucket's order) of e.first_escalated_at as SQL: the boundaries of
/// `asOf` in `zone` bound through `b` (on a boundary: the older bucket).
QString bucketSql(const SqlDialect &d, SqlBuilder &b, UtcMicros asOf, const QTimeZone &zone)
{
    const std::array<qint64, 3> bounds = ageBucketBoundariesMicros(asOf, zone);
    auto param = [&](qint64 t) { return d.timeParam(b.bind(d.bindTime(t))); };
    return QStringLiteral("CASE WHEN e.first_escalated_at <= %1 THEN 3 WHEN e.first_escalated_at <= %2 THEN 2 "
                          "WHEN e.first_escalated_at <= %3 THEN 1 ELSE 0 END")
        .arg(param(bounds[2]), param(bounds[1]), param(bounds[0]));
}

int intOf(const QVariant &v)
{
    return v.isNull() ? 0 : int(v.toLongLong());
}

} // namespace

void readAggregates(DbSession &session, ReviewSnapshot &s, const ItemContext &c, int opened, int resolved,
                    const QHash<QString, int> &breachesByBiz, const std::function<int(const QString &)> &slaHours)
{
    const SqlDialect &d = session.dialect();
    ReviewTotals &t = s.totals;
    t = ReviewTotals();
    t.openByBucket = QVector<int>(4, 0);
    t.opened = opened;
    t.resolved = resolved;
    for (auto it = breachesByBiz.cbegin(); it != breachesByBiz.cend(); ++it)
        t.breaches += it.value();
    using GroupKey = std::tuple<int, int, QString>;
    using Amounts = QVector<std::pair<QString, std::optional<QString>>>;
    struct Group {
        ReviewGroup row;
        QSet<QString> keys;
        Amounts amounts;
    };
    QMap<GroupKey, Group> groups;
    QMap<QString, ReviewSla> sla;
    QSet<QString> keys;
    Amounts all;
    // One statement over the open escalations, oldest first, each reduced in SQL to what the
    // figures need: its age bucket (the boundaries bound), reason, biz_type, key, currency,
    // amount, breached (a breach row due before asOf, or sla_due_at before it), overdue, new
    // and changed since the sign-off. The amounts are decimal text (VARCHAR on every backend),
    // which no SQL SUM adds exactly on all three, so they are summed here by sumMoney() in this
    // order, exactly as before; the counts are added up beside them.
    SqlBuilder b;
    const QString asOf = d.timeParam(b.bind(d.bindTime(c.asOf)));
    const QString bucket = bucketSql(d, b, c.asOf, c.zone);
    QString isNew = QStringLiteral("0"), isChanged = QStringLiteral("0");
    if (c.signedAt) {
        const QString signedAt = d.timeParam(b.bind(d.bindTime(*c.signedAt)));
        isNew = QStringLiteral("CASE WHEN e.first_escalated_at > %1 THEN 1 ELSE 0 END").arg(signedAt);
        isChanged = QStringLiteral("CASE WHEN e.first_escalated_at <= %1 AND e.last_seen_at > %1 THEN 1 ELSE 0 END").arg(signedAt);
    }
    // The flags in one integer: bucket (0…3) + 4 breached + 8 overdue + 16 new + 32 changed.
    const QString flags = QStringLiteral("(%1) + (CASE WHEN (br.due_at IS NOT NULL AND br.due_at < %2) OR (e.sla_due_at IS NOT NULL AND "
                                         "e.sla_due_at < %2) THEN 4 ELSE 0 END) + (CASE WHEN e.sla_due_at IS NOT NULL AND e.sla_due_at < %2 "
                                         "THEN 8 ELSE 0 END) + 16 * (%3) + 32 * (%4)")
                              .arg(bucket, asOf, isNew, isChanged);
    QSqlQuery q = session.exec(QStringLiteral("SELECT e.id, %1, e.reason, e.biz_type, e.idem_key, e.currency, e.amount FROM triage_escalation e "
                                              "LEFT JOIN triage_review_breach br ON br.escalation_id = e.id WHERE %2 "
                                              "ORDER BY e.first_escalated_at, e.id")
                                   .arg(flags, openAt(d, b, c.asOf).join(QStringLiteral(" AND "))),
                               b);
    while (q.next()) {
        const std::optional<EscalationReason> reason = escalationReasonFromName(columnText(q.value(2)).value_or(QString()));
        const int f = intOf(q.value(1));
        const int bucketIndex = f & 3;
        if (!reason)
            continue;
        const QString bizType = columnText(q.value(3)).value_or(QString());
        const QString key = columnText(q.value(4)).value_or(QString());
        const std::pair<QString, std::optional<QString>> amount{columnText(q.value(5)).value_or(QString()), columnText(q.value(6))};
        Group &g = groups[GroupKey(bucketIndex, int(*reason), bizType)];
        if (g.row.escalations == 0) {
            g.row.bucket = AgeBucket(bucketIndex);
            g.row.reason = *reason;
            g.row.bizType = bizType;
        }
        ++g.row.escalations;
        g.row.breached += (f & 4) != 0;
        g.row.escalationIds << q.value(0).toLongLong();
        g.keys.insert(key);
        g.amounts << amount;
        ++t.open;
        ++t.openByBucket[bucketIndex];
        keys.insert(key);
        all << amount;
        t.newSinceSignOff += (f & 16) != 0;
        t.changedSinceSignOff += (f & 32) != 0;
        ReviewSla &v = sla[bizType];
        v.bizType = bizType;
        ++v.open;
        v.overdue += (f & 8) != 0;
    }
    t.openKeys = int(keys.size());
    t.openMoney = sumMoney(all);
    s.groups.clear();
    for (Group &g : groups) {
        g.row.keys = int(g.keys.size());
        g.row.money = sumMoney(g.amounts);
        s.groups << g.row;
    }
    for (auto it = breachesByBiz.cbegin(); it != breachesByBiz.cend(); ++it) {
        ReviewSla &v = sla[it.key()];
        v.bizType = it.key();
        v.breachedToday = it.value();
    }
    s.sla.clear();
    for (ReviewSla v : std::as_const(sla)) {
        v.slaHours = slaHours ? slaHours(v.bizType) : 24;
        s.sla << v;
    }
}

QJsonObject countsJson(const ReviewTotals &t)
{
    return {{QStringLiteral("open"), t.open},
            {QStringLiteral("open_keys"), t.openKeys},
            {QStringLiteral("opened"), t.opened},
            {QStringLiteral("resolved"), t.resolved},
            {QStringLiteral("breaches"), t.breaches},
            {QStringLiteral("new_since_signoff"), t.newSinceSignOff},
            {QStringLiteral("changed_since_signoff"), t.changedSinceSignOff}};
}

QJsonObject openByBucketJson(const ReviewTotals &t)
{
    QJsonObject o;
    for (AgeBucket b : allAgeBuckets())
        o.insert(ageBucketKey(b), t.openByBucket.value(int(b)));
    return o;
}

} // namespace triage::review_sql
