// The daily review's numbers (DESIGN.md §8 "The daily review"), added up once from the
// snapshot's rows, so the view, JSON, CSV, HTML and PDF print identical totals.
#include "ReviewSql.h"

#include <QMap>
#include <QSet>

#include <tuple>

namespace triage::review_sql {

namespace {

QVector<MoneyTotal> moneyOf(const QVector<const Escalation *> &rows)
{
    QVector<std::pair<QString, std::optional<QString>>> amounts;
    amounts.reserve(rows.size());
    for (const Escalation *e : rows)
        amounts.append({e->currency, e->amount});
    return sumMoney(amounts);
}

} // namespace

void summarize(ReviewSnapshot &s, int opened, const QHash<QString, int> &breachesByBiz,
               const std::function<int(const QString &)> &slaHours)
{
    ReviewTotals &t = s.totals;
    t = ReviewTotals();
    t.openByBucket = QVector<int>(4, 0);
    t.opened = opened;
    t.resolved = int(s.resolvedToday.size());
    for (auto it = breachesByBiz.cbegin(); it != breachesByBiz.cend(); ++it)
        t.breaches += it.value();
    QSet<QString> keys;
    QVector<const Escalation *> all;
    using GroupKey = std::tuple<int, int, QString>;
    QMap<GroupKey, QVector<const ReviewItem *>> groups;
    QMap<QString, ReviewSla> sla;
    const UtcMicros asOf = s.day.asOf.toMSecsSinceEpoch() * 1000;
    for (const ReviewItem &it : std::as_const(s.open)) {
        const Escalation &e = it.row.escalation;
        ++t.open;
        ++t.openByBucket[int(it.bucket)];
        keys.insert(e.idemKey);
        all << &e;
        t.newSinceSignOff += it.newSinceSignOff;
        t.changedSinceSignOff += it.changedSinceSignOff;
        groups[GroupKey(int(it.bucket), int(e.reason), e.bizType)] << &it;
        ReviewSla &v = sla[e.bizType];
        v.bizType = e.bizType;
        ++v.open;
        const std::optional<UtcMicros> due = e.slaDueAt.isEmpty() ? std::nullopt : parseUtcMicros(e.slaDueAt);
        v.overdue += due && *due < asOf;
    }
    t.openKeys = int(keys.size());
    t.openMoney = moneyOf(all);
    s.groups.clear();
    for (auto g = groups.cbegin(); g != groups.cend(); ++g) {
        ReviewGroup r;
        r.bucket = AgeBucket(std::get<0>(g.key()));
        r.reason = EscalationReason(std::get<1>(g.key()));
        r.bizType = std::get<2>(g.key());
        QSet<QString> groupKeys;
        QVector<const Escalation *> rows;
        for (const ReviewItem *it : g.value()) {
            ++r.escalations;
            groupKeys.insert(it->row.escalation.idemKey);
            r.breached += it->breached;
            rows << &it->row.escalation;
            r.escalationIds << it->row.escalation.id;
        }
        r.keys = int(groupKeys.size());
        r.money = moneyOf(rows);
        s.groups << r;
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
