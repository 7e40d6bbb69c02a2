// The daily review's snapshot (DESIGN.md §8 "The daily review"): breaches recorded once and
// trend rows written first, then one read of the day "as of" its end (or the server's now).
#include "ReviewSql.h"

#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "PolicySql.h"
#include "ReviewRecord.h"

#include <QSqlQuery>
#include <QSqlRecord>

#include <algorithm>

namespace triage::review_sql {

namespace {

UtcMicros microsOf(const QDateTime &t)
{
    return t.toMSecsSinceEpoch() * 1000;
}

std::optional<UtcMicros> timeOf(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    return parseUtcMicros(canonicalTimeText(v));
}

QString signOffColumns(const SqlDialect &d)
{
    return QStringLiteral("id, day, zone, %1, %2, signed_by, %3, counts, open_by_bucket, report_sha256, note")
        .arg(d.timeText(QStringLiteral("window_from")), d.timeText(QStringLiteral("window_to")), d.timeText(QStringLiteral("signed_at")));
}

std::optional<ReviewSignOff> readSignOff(DbSession &s, const QString &sql, const SqlBuilder &b)
{
    QSqlQuery q = s.exec(sql, b);
    if (!q.next())
        return std::nullopt;
    ReviewSignOff o;
    o.id = q.value(0).toLongLong();
    o.day = QDate::fromString(columnText(q.value(1)).value_or(QString()), Qt::ISODate);
    o.zone = columnText(q.value(2)).value_or(QString());
    o.windowFrom = canonicalTimeText(q.value(3));
    o.windowTo = canonicalTimeText(q.value(4));
    o.signedBy = columnText(q.value(5)).value_or(QString());
    o.signedAt = canonicalTimeText(q.value(6));
    o.countsJson = columnText(q.value(7)).value_or(QString());
    o.openByBucketJson = columnText(q.value(8)).value_or(QString());
    o.reportSha256 = columnText(q.value(9)).value_or(QString());
    o.note = columnText(q.value(10)).value_or(QString());
    return o;
}

std::optional<double> median(QVector<qint64> v)
{
    if (v.isEmpty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return (n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2.0) / 1e6;
}

} // namespace

std::optional<ReviewSignOff> signOffOf(DbSession &session, QDate day, const QString &zone)
{
    SqlBuilder b;
    return readSignOff(session,
                       QStringLiteral("SELECT %1 FROM triage_review_signoff WHERE day = %2 AND zone = %3")
                           .arg(signOffColumns(session.dialect()), b.bind(day.toString(Qt::ISODate)), b.bind(zone)),
                       b);
}

ReviewSnapshot readSnapshot(DbSession &session, const ReviewReadOptions &o)
{
    requireReconcileTables(session);
    review_sql::requireReviewTables(session);
    const SqlDialect &d = session.dialect();
    const int stored = storedConsoleSchemaVersion(session);
    // While frozen the review is read as in read-only mode: nothing recorded (DESIGN.md §8
    // "Safety policy"); a freeze landing between this check and the writes refuses them alone.
    const std::optional<PolicyRow> freeze = policy_sql::row(session, policyFreezeName());
    const bool frozen = freeze && freeze->value == QLatin1String("true");
    if (o.write && !frozen && stored >= 0 && stored <= kConsoleSchemaVersion) {
        try {
            recordBreaches(session, o.noticedBy);
            writeTrendRows(session, o.zone, o.noticedBy);
        } catch (const DbException &e) {
            if (e.error.kind != DbError::Kind::Refused)
                throw;
        }
    }
    ReviewSnapshot s;
    s.generatedBy = o.generatedBy;
    s.deepLinkBase = QStringLiteral("triage://");
    UtcMicros now = 0;
    {
        QSqlQuery q = session.exec(QStringLiteral("SELECT %1").arg(d.nowText()));
        q.next();
        s.serverNow = canonicalTimeText(q.value(0));
        now = parseUtcMicros(s.serverNow).value_or(0);
    }
    const QDateTime nowDt = QDateTime::fromMSecsSinceEpoch(now / 1000, QTimeZone::utc());
    s.day = o.day ? ReviewDay::of(*o.day, o.zone) : ReviewDay::containing(nowDt, o.zone);
    s.day.asOf = std::min(s.day.to, nowDt);
    const UtcMicros from = microsOf(s.day.from), to = microsOf(s.day.to), asOf = std::min(to, now);
    const QString zoneName = reviewZoneName(s.day.zone);

    // Sign-offs: the latest one of this review zone for an earlier day signed before the day's
    // end (a team reviewing in another zone keeps its own chain; a signed day keeps showing what
    // was new since the sign-off before it), and this day's own.
    {
        SqlBuilder b;
        s.lastSignOff = readSignOff(session,
                                    selectSql(b, signOffColumns(d), QStringLiteral("triage_review_signoff"),
                                              {QStringLiteral("signed_at < %1").arg(d.timeParam(b.bind(d.bindTime(to)))),
                                               QStringLiteral("zone = %1").arg(b.bind(zoneName)),
                                               QStringLiteral("day < %1").arg(b.bind(s.day.day.toString(Qt::ISODate)))},
                                              QStringLiteral("signed_at DESC, id DESC"), 1),
                                    b);
    }
    s.thisDaySignOff = signOffOf(session, s.day.day, zoneName);
    const std::optional<UtcMicros> signedAt = s.lastSignOff ? parseUtcMicros(s.lastSignOff->signedAt) : std::nullopt;

    const ItemContext context{asOf, s.day.zone, signedAt};
    s.asOfMicros = asOf;
    int opened = 0;
    {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE e.first_escalated_at >= %1 "
                                                  "AND e.first_escalated_at < %2")
                                       .arg(d.timeParam(b.bind(d.bindTime(from))), d.timeParam(b.bind(d.bindTime(to)))),
                                   b);
        opened = q.next() ? q.value(0).toInt() : 0;
    }
    QHash<QString, int> breachesByBiz;
    {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT biz_type, COUNT(*) FROM triage_review_breach WHERE due_at >= %1 AND due_at < %2 "
                                                  "GROUP BY biz_type")
                                       .arg(d.timeParam(b.bind(d.bindTime(from))), d.timeParam(b.bind(d.bindTime(to)))),
                                   b);
        while (q.next())
            breachesByBiz.insert(columnText(q.value(0)).value_or(QString()), q.value(1).toInt());
    }
    // The open items: all of them, or the first page (one more read says whether more exist).
    s.open = readOpenItems(session, context, std::nullopt, o.openLimit > 0 ? o.openLimit + 1 : 0);
    if (o.openLimit > 0 && s.open.size() > o.openLimit) {
        s.open.resize(o.openLimit);
        s.openComplete = false;
    }
    s.resolvedToday = readResolvedItems(session, context, from, to);
    const QMap<QString, QString> dbPolicy = policy_sql::values(session);
    readAggregates(session, s, context, opened, int(s.resolvedToday.size()), breachesByBiz,
                   [&](const QString &bizType) { return o.slaHours ? o.slaHours(bizType, dbPolicy) : 24; });

    // The trend: the 30 days up to the day, as written.
    {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT day, biz_type, reason, opened, resolved, open_end, breaches, median_resolve_s, "
                                                  "complete FROM triage_review_daily WHERE zone = %1 AND day > %2 AND day <= %3 "
                                                  "ORDER BY day, biz_type, reason")
                                       .arg(b.bind(zoneName), b.bind(s.day.day.addDays(-30).toString(Qt::ISODate)),
                                            b.bind(s.day.day.toString(Qt::ISODate))),
                                   b);
        while (q.next()) {
            const std::optional<EscalationReason> reason = escalationReasonFromName(columnText(q.value(2)).value_or(QString()));
            if (!reason)
                continue;
            ReviewDailyRow r;
            r.day = QDate::fromString(columnText(q.value(0)).value_or(QString()), Qt::ISODate);
            r.bizType = columnText(q.value(1)).value_or(QString());
            r.reason = *reason;
            r.opened = q.value(3).toInt();
            r.resolved = q.value(4).toInt();
            r.openAtEnd = q.value(5).toInt();
            r.breaches = q.value(6).toInt();
            if (!q.value(7).isNull())
                r.medianResolveS = q.value(7).toDouble();
            r.complete = q.value(8).toInt() == 1;
            s.trend << r;
        }
    }
    // Medians over the last 14 and 30 days from the resolution times still held: each time to
    // resolve computed in SQL in µs (exact: PostgreSQL's epoch of the interval, MariaDB's
    // TIMESTAMPDIFF); SQLite's times are text, read and parsed here.
    {
        SqlBuilder b;
        const UtcMicros since = microsOf(s.day.asOf.addDays(-30));
        const UtcMicros since14 = microsOf(s.day.asOf.addDays(-14));
        const QString range = QStringLiteral("e.resolved_at >= %1 AND e.resolved_at < %2")
                                  .arg(d.timeParam(b.bind(d.bindTime(since))), d.timeParam(b.bind(d.bindTime(asOf))));
        const QString recent = QStringLiteral("CASE WHEN e.resolved_at >= %1 THEN 1 ELSE 0 END").arg(d.timeParam(b.bind(d.bindTime(since14))));
        QString columns;
        switch (d.kind()) {
        case Dialect::PostgreSql:
            columns = QStringLiteral("CAST(ROUND(EXTRACT(EPOCH FROM (e.resolved_at - e.first_escalated_at)) * 1000000) AS BIGINT), NULL, NULL");
            break;
        case Dialect::MySql:
            columns = QStringLiteral("TIMESTAMPDIFF(MICROSECOND, e.first_escalated_at, e.resolved_at), NULL, NULL");
            break;
        case Dialect::Sqlite:
            // Text already: read and parsed here (cheaper than date functions in SQLite).
            columns = QStringLiteral("NULL, e.first_escalated_at, e.resolved_at");
            break;
        }
        QSqlQuery q = session.exec(QStringLiteral("SELECT %1, %2 FROM triage_escalation e WHERE %3").arg(columns, recent, range), b);
        QVector<qint64> d14, d30;
        while (q.next()) {
            const qint64 took = !q.value(0).isNull()
                ? q.value(0).toLongLong()
                : timeOf(q.value(2)).value_or(0) - timeOf(q.value(1)).value_or(0);
            d30 << took;
            if (q.value(3).toInt() == 1)
                d14 << took;
        }
        s.median14S = median(d14);
        s.median30S = median(d30);
    }
    return s;
}

QString changeMark(DbSession &session, const QTimeZone &zone)
{
    requireReconcileTables(session);
    review_sql::requireReviewTables(session);
    const SqlDialect &d = session.dialect();
    UtcMicros now = 0;
    {
        QSqlQuery q = session.exec(QStringLiteral("SELECT %1").arg(d.nowText()));
        q.next();
        now = parseUtcMicros(canonicalTimeText(q.value(0))).value_or(0);
    }
    QStringList parts;
    parts << ReviewDay::containing(QDateTime::fromMSecsSinceEpoch(now / 1000, QTimeZone::utc()), zone).day.toString(Qt::ISODate);
    const auto add = [&](QSqlQuery q) {
        if (!q.next())
            return;
        for (int i = 0; i < q.record().count(); ++i)
            parts << columnText(q.value(i)).value_or(QStringLiteral("-"));
    };
    // The open escalations (the open index): which there are (count, newest id), what changed
    // on them (versions, last seen), and what the clock changes without a write: overdue SLAs
    // and the age buckets (their boundaries computed here, as readAggregates() does).
    {
        SqlBuilder b;
        const std::array<qint64, 3> edge = ageBucketBoundariesMicros(now, zone);
        const auto atOrBefore = [&](const QString &column, UtcMicros t) {
            return QStringLiteral("SUM(CASE WHEN %1 <= %2 THEN 1 ELSE 0 END)").arg(column, d.timeParam(b.bind(d.bindTime(t))));
        };
        add(session.exec(QStringLiteral("SELECT COUNT(*), MAX(e.id), SUM(e.version), MAX(%1), %2, %3, %4, %5 FROM triage_escalation e "
                                        "WHERE e.open_slot = 1")
                             .arg(d.timeText(QStringLiteral("e.last_seen_at")), atOrBefore(QStringLiteral("e.sla_due_at"), now),
                                  atOrBefore(QStringLiteral("e.first_escalated_at"), edge[0]),
                                  atOrBefore(QStringLiteral("e.first_escalated_at"), edge[1]),
                                  atOrBefore(QStringLiteral("e.first_escalated_at"), edge[2])),
                         b));
    }
    // Claims on keys and escalations still held (an expiry changes the count), notes,
    // breaches and sign-offs.
    {
        SqlBuilder b;
        add(session.exec(QStringLiteral("SELECT COUNT(*), SUM(version), MAX(%1) FROM triage_claim WHERE scope IN ('key', 'escalation') "
                                        "AND expires_at > %2")
                             .arg(d.timeText(QStringLiteral("claimed_at")), d.timeParam(b.bind(d.bindTime(now)))),
                         b));
    }
    add(session.exec(QStringLiteral("SELECT COUNT(*), MAX(id) FROM triage_review_note")));
    add(session.exec(QStringLiteral("SELECT COUNT(*) FROM triage_review_breach")));
    add(session.exec(QStringLiteral("SELECT COUNT(*), MAX(id) FROM triage_review_signoff")));
    return parts.join(QLatin1Char('|'));
}

} // namespace triage::review_sql
