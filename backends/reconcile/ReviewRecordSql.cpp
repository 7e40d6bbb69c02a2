// The daily review's writes shared with reconcile runs (DESIGN.md §8 "The daily review"):
// breaches recorded once, trend rows written once per complete day.
#include "ReviewRecord.h"

#include "ColumnText.h"
#include "ConsoleSchema.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QSqlQuery>

#include <algorithm>

namespace triage {

std::pair<UtcMicros, UtcMicros> reviewDayWindow(QDate day, const QTimeZone &zone)
{
    const QDateTime from = day.startOfDay(zone);
    const QDateTime to = day.addDays(1).startOfDay(zone);
    return {from.toMSecsSinceEpoch() * 1000, to.toMSecsSinceEpoch() * 1000};
}

QDate reviewDayContaining(UtcMicros t, const QTimeZone &zone)
{
    // Floor to the millisecond (QDateTime's unit) towards the past, so 23:59:59.9995 stays.
    const qint64 ms = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
    return QDateTime::fromMSecsSinceEpoch(ms, zone).date();
}

QString reviewZoneName(const QTimeZone &zone)
{
    return zone.isValid() ? QString::fromUtf8(zone.id()) : QStringLiteral("UTC");
}

namespace review_sql {

namespace {

const QStringList kTables = {QStringLiteral("triage_review_breach"), QStringLiteral("triage_review_signoff"),
                             QStringLiteral("triage_review_daily"), QStringLiteral("triage_review_note")};

UtcMicros serverNow(DbSession &s)
{
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1").arg(s.dialect().nowText()));
    q.next();
    return parseUtcMicros(canonicalTimeText(q.value(0))).value_or(0);
}

std::optional<UtcMicros> timeOf(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    return parseUtcMicros(canonicalTimeText(v));
}

/// One trend row being computed.
struct Counts {
    int opened = 0, resolved = 0, openEnd = 0, breaches = 0;
    QVector<qint64> resolveMicros;
};

std::optional<double> medianSeconds(QVector<qint64> v)
{
    if (v.isEmpty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    const double mid = n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2.0;
    return mid / 1e6;
}

} // namespace

bool hasReviewTables(DbSession &session)
{
    for (const QString &t : kTables)
        if (!session.hasTable(t))
            return false;
    return true;
}

void requireReviewTables(DbSession &session)
{
    if (session.memo(QStringLiteral("review tables"), [&] { return QVariant(hasReviewTables(session)); }).toBool()
        || hasReviewTables(session))
        return;
    throw DbException({session.role(), DbError::Kind::Config,
                       QStringLiteral("the %1 has no review tables (console schema version %2; the daily review needs version 5): "
                                      "run `triagectl init-schema`")
                           .arg(roleTitle(session.role()))
                           .arg(storedConsoleSchemaVersion(session)),
                       {}});
}

int recordBreaches(DbSession &session, const QString &noticedBy)
{
    requireKnownConsoleSchema(session);
    requireReviewTables(session);
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    const QString select = QStringLiteral("SELECT e.id, e.idem_key, e.biz_type, e.reason, e.sla_due_at, %1, %2 FROM triage_escalation e "
                                          "WHERE e.open_slot = 1 AND e.sla_due_at IS NOT NULL AND e.sla_due_at < %3 "
                                          // only those not yet recorded: an anti-join on the breach table's key instead of a
                                          // conflict per overdue escalation on every read (the conflict clause stays for races)
                                          "AND NOT EXISTS (SELECT 1 FROM triage_review_breach br WHERE br.escalation_id = e.id)")
                               .arg(d.nowValue(), b.bind(noticedBy.left(64)), d.nowValue());
    const QString columns = QStringLiteral("triage_review_breach (escalation_id, idem_key, biz_type, reason, due_at, noticed_at, noticed_by) ");
    const QString sql = d.kind() == Dialect::MySql
        ? QStringLiteral("INSERT IGNORE INTO ") + columns + select
        : QStringLiteral("INSERT INTO ") + columns + select + QStringLiteral(" ON CONFLICT (escalation_id) DO NOTHING");
    QSqlQuery q = session.exec(sql, b);
    return std::max(0, q.numRowsAffected());
}

int writeTrendRows(DbSession &session, const QTimeZone &zone, const QString &writtenBy, int days)
{
    requireKnownConsoleSchema(session);
    requireReviewTables(session);
    const SqlDialect &d = session.dialect();
    const QString zoneName = reviewZoneName(zone);
    const UtcMicros now = serverNow(session);
    const QDate today = reviewDayContaining(now, zone);
    const QDate first = today.addDays(-(std::max(days, 1) - 1));

    QSet<QString> written; // complete days already written: never rewritten
    {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT DISTINCT day FROM triage_review_daily WHERE zone = %1 AND complete = 1 AND day >= %2")
                                       .arg(b.bind(zoneName), b.bind(first.toString(Qt::ISODate))),
                                   b);
        while (q.next())
            written.insert(columnText(q.value(0)).value_or(QString()));
    }
    QVector<QDate> todo;
    for (QDate day = first; day <= today; day = day.addDays(1))
        if (!written.contains(day.toString(Qt::ISODate)))
            todo << day;
    if (todo.isEmpty())
        return 0;
    const UtcMicros from = reviewDayWindow(todo.first(), zone).first;
    const UtcMicros to = reviewDayWindow(today, zone).second;

    struct Esc {
        QString biz, reason;
        UtcMicros first = 0;
        std::optional<UtcMicros> resolved;
    };
    // A few days to write (every read after the day's first): the escalations with activity in
    // the window are read, and each day's open-at-end counts are counted in SQL, instead of
    // reading every open escalation; the first write of 30 days reads them all once.
    const bool recent = todo.size() <= 2;
    QVector<Esc> escs;
    {
        SqlBuilder b;
        QString activity;
        if (recent) {
            const QString f = d.timeParam(b.bind(d.bindTime(from))), t = d.timeParam(b.bind(d.bindTime(to)));
            activity = QStringLiteral(" AND ((e.first_escalated_at >= %1 AND e.first_escalated_at < %2) OR "
                                      "(e.resolved_at >= %1 AND e.resolved_at < %2))")
                           .arg(f, t);
        }
        QSqlQuery q = session.exec(
            QStringLiteral("SELECT e.biz_type, e.reason, %1, %2 FROM triage_escalation e WHERE e.first_escalated_at < %3 "
                           "AND (e.resolved_at IS NULL OR e.resolved_at >= %4)%5")
                .arg(d.timeText(QStringLiteral("e.first_escalated_at")), d.timeText(QStringLiteral("e.resolved_at")),
                     d.timeParam(b.bind(d.bindTime(to))), d.timeParam(b.bind(d.bindTime(from))), activity),
            b);
        while (q.next()) {
            Esc e{columnText(q.value(0)).value_or(QString()), columnText(q.value(1)).value_or(QString()),
                  timeOf(q.value(2)).value_or(0), timeOf(q.value(3))};
            escs << e;
        }
    }
    /// Open at `end` per (biz_type, reason), counted in SQL (the recent days only).
    auto openAtEnd = [&](UtcMicros end) {
        QMap<std::pair<QString, QString>, int> counts;
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT e.biz_type, e.reason, COUNT(*) FROM triage_escalation e WHERE e.first_escalated_at < %1 "
                                                  "AND (e.resolved_at IS NULL OR e.resolved_at >= %2) GROUP BY e.biz_type, e.reason")
                                       .arg(d.timeParam(b.bind(d.bindTime(end))), d.timeParam(b.bind(d.bindTime(end)))),
                                   b);
        while (q.next())
            counts.insert({columnText(q.value(0)).value_or(QString()), columnText(q.value(1)).value_or(QString())}, q.value(2).toInt());
        return counts;
    };
    QMap<QDate, QMap<std::pair<QString, QString>, int>> openEnds;
    if (recent)
        for (const QDate &day : std::as_const(todo))
            openEnds.insert(day, openAtEnd(std::min(reviewDayWindow(day, zone).second, now)));
    struct Breach {
        QString biz, reason;
        UtcMicros due = 0;
    };
    QVector<Breach> breaches;
    {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("SELECT biz_type, reason, %1 FROM triage_review_breach WHERE due_at >= %2 AND due_at < %3")
                                       .arg(d.timeText(QStringLiteral("due_at")), d.timeParam(b.bind(d.bindTime(from))),
                                            d.timeParam(b.bind(d.bindTime(to)))),
                                   b);
        while (q.next())
            breaches << Breach{columnText(q.value(0)).value_or(QString()), columnText(q.value(1)).value_or(QString()),
                               timeOf(q.value(2)).value_or(0)};
    }

    int rows = 0;
    session.begin();
    try {
        for (const QDate &day : std::as_const(todo)) {
            const auto [dayFrom, dayTo] = reviewDayWindow(day, zone);
            const bool complete = dayTo <= now;
            const UtcMicros end = std::min(dayTo, now);
            QMap<std::pair<QString, QString>, Counts> byGroup;
            for (const Esc &e : std::as_const(escs)) {
                const auto group = std::make_pair(e.biz, e.reason);
                if (e.first >= dayFrom && e.first < dayTo)
                    ++byGroup[group].opened;
                if (e.resolved && *e.resolved >= dayFrom && *e.resolved < dayTo) {
                    Counts &c = byGroup[group];
                    ++c.resolved;
                    c.resolveMicros << (*e.resolved - e.first);
                }
                if (!recent && e.first < end && (!e.resolved || *e.resolved >= end))
                    ++byGroup[group].openEnd;
            }
            const QMap<std::pair<QString, QString>, int> ends = openEnds.value(day);
            for (auto it = ends.cbegin(); it != ends.cend(); ++it)
                byGroup[it.key()].openEnd = it.value();
            for (const Breach &br : std::as_const(breaches))
                if (br.due >= dayFrom && br.due < dayTo)
                    ++byGroup[std::make_pair(br.biz, br.reason)].breaches;
            const QString dayText = day.toString(Qt::ISODate);
            SqlBuilder del;
            session.exec(QStringLiteral("DELETE FROM triage_review_daily WHERE zone = %1 AND day = %2 AND complete = 0")
                             .arg(del.bind(zoneName), del.bind(dayText)),
                         del);
            for (auto it = byGroup.cbegin(); it != byGroup.cend(); ++it) {
                const Counts &c = it.value();
                const std::optional<double> median = medianSeconds(c.resolveMicros);
                SqlBuilder b;
                const QString values = QStringLiteral("%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11")
                                           .arg(b.bind(dayText), b.bind(zoneName), b.bind(it.key().first), b.bind(it.key().second),
                                                b.bind(c.opened), b.bind(c.resolved), b.bind(c.openEnd), b.bind(c.breaches),
                                                b.bind(median ? QVariant(*median) : QVariant(QMetaType(QMetaType::Double))))
                                           .arg(b.bind(complete ? 1 : 0), b.bind(writtenBy.left(64)));
                const QString columns = QStringLiteral("triage_review_daily (day, zone, biz_type, reason, opened, resolved, open_end, "
                                                       "breaches, median_resolve_s, complete, written_by) VALUES (%1)")
                                            .arg(values);
                // A concurrent writer of the same day wrote first: its rows stand.
                const QString sql = d.kind() == Dialect::MySql
                    ? QStringLiteral("INSERT IGNORE INTO ") + columns
                    : QStringLiteral("INSERT INTO ") + columns + QStringLiteral(" ON CONFLICT (day, zone, biz_type, reason) DO NOTHING");
                QSqlQuery q = session.exec(sql, b);
                rows += std::max(0, q.numRowsAffected());
            }
        }
        session.commit();
    } catch (...) {
        session.rollback();
        throw;
    }
    return rows;
}

void afterReconcileRun(DbSession &session, const QTimeZone &zone, const QString &by)
{
    if (!hasReviewTables(session))
        return;
    const int stored = storedConsoleSchemaVersion(session);
    if (stored < 0 || stored > kConsoleSchemaVersion)
        return;
    recordBreaches(session, by);
    writeTrendRows(session, zone, by);
}

} // namespace review_sql

} // namespace triage
