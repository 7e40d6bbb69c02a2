// The daily review (DESIGN.md §8 "The daily review"): age buckets exact at 24 h, 3 d and 7 d
// (and 71 / 73 h across DST), the reviewed day's window, exact decimal money per currency;
// on every backend, PgBouncer included: breaches recorded once with their due time (a second
// read and a reconcile run change nothing), the snapshot of a past day as of its end, the
// trend rows written once and surviving purges, sign-off with its conflict and "since the last
// sign-off", notes, JSON and CSV counting the same, a PostgreSQL session in Asia/Tokyo and
// MariaDB in +05:30 giving the same numbers, a version-4 database, and the first page of open
// items with the same figures as the whole read (the next pages bringing the rest in order) and
// the 14/30-day medians exact to the microsecond.
#include "BackendTestUtil.h"

#include "ConsoleSchema.h"
#include "Review.h"
#include "ReviewExport.h"
#include "ReviewRecord.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QFile>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QDateTime utc(const char *iso)
{
    QDateTime t = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
    return t.toUTC();
}

qint64 us(const QDateTime &t)
{
    return t.toMSecsSinceEpoch() * 1000;
}

/// "YYYY-MM-DDTHH:MM:SS.ffffffZ" of day `d` at `time` plus `extraUs` microseconds (UTC).
QString at(QDate d, const char *time, qint64 extraUs = 0)
{
    const QDateTime t(d, QTime::fromString(QString::fromLatin1(time), QStringLiteral("HH:mm")), QTimeZone::utc());
    return formatUtcMicros(us(t) + extraUs);
}

struct Esc {
    QString key, reason;
    QString first;
    QString sla;      ///< "" none
    QString resolved; ///< "" open
    std::optional<QString> amount;
    QString currency;
};

QString insertEscalations(const TestDatabase &db, const QVector<Esc> &rows)
{
    for (const Esc &e : rows) {
        const QString sql =
            QStringLiteral("INSERT INTO triage_escalation (idem_key, biz_type, tenant, reason, facts, amount, currency, first_escalated_at, "
                           "last_seen_at, sla_due_at, resolution, resolved_at, resolved_by, open_slot) VALUES (%1, 'ticket_create', '', %2, "
                           "'{}', %3, %4, %5, %5, %6, %7, %8, %9, %10)")
                .arg(textLiteral(db, e.key), textLiteral(db, e.reason), textLiteral(db, e.amount), textLiteral(db, e.currency),
                     timeLiteral(db, e.first), e.sla.isEmpty() ? QStringLiteral("NULL") : timeLiteral(db, e.sla),
                     e.resolved.isEmpty() ? QStringLiteral("NULL") : QStringLiteral("'settled in the test'"),
                     e.resolved.isEmpty() ? QStringLiteral("NULL") : timeLiteral(db, e.resolved),
                     e.resolved.isEmpty() ? QStringLiteral("NULL") : QStringLiteral("'alice'"))
                .arg(e.resolved.isEmpty() ? QStringLiteral("1") : QStringLiteral("NULL"));
        const QString error = db.adminExec(sql);
        if (!error.isEmpty())
            return error;
    }
    return {};
}

/// The server's today (UTC).
QDate serverToday(const TestDatabase &db)
{
    const QString sql = db.dialect() == QLatin1String("postgresql") ? QStringLiteral("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')")
        : db.dialect() == QLatin1String("mysql")                    ? QStringLiteral("SELECT DATE_FORMAT(UTC_TIMESTAMP(), '%Y-%m-%d')")
                                                                    : QStringLiteral("SELECT strftime('%Y-%m-%d', 'now')");
    return QDate::fromString(db.adminQueryColumn(sql).value(0), Qt::ISODate);
}

QStringList breachRows(const TestDatabase &db)
{
    const QString due = db.dialect() == QLatin1String("postgresql")
        ? QStringLiteral("to_char(b.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
        : db.dialect() == QLatin1String("mysql") ? QStringLiteral("DATE_FORMAT(b.due_at, '%Y-%m-%dT%H:%i:%s.%fZ')")
                                                 : QStringLiteral("b.due_at");
    const QString row = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(b.idem_key, ' ', %1, ' ', b.noticed_by)").arg(due)
                                                               : QStringLiteral("b.idem_key || ' ' || %1 || ' ' || b.noticed_by").arg(due);
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_review_breach b ORDER BY b.idem_key").arg(row));
}

QStringList trendRows(const TestDatabase &db, const QString &where)
{
    const QString cast = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CHAR") : QStringLiteral("TEXT");
    const QString median = QStringLiteral("COALESCE(CAST(CAST(median_resolve_s AS BIGINT) AS %1), 'null')").arg(cast);
    const QString medianMy = QStringLiteral("COALESCE(CAST(CAST(median_resolve_s AS SIGNED) AS CHAR), 'null')");
    const QString row = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT_WS(' ', day, biz_type, reason, opened, resolved, open_end, breaches, %1, complete)").arg(medianMy)
        : QStringLiteral("day || ' ' || biz_type || ' ' || reason || ' ' || opened || ' ' || resolved || ' ' || open_end || ' ' || "
                         "breaches || ' ' || %1 || ' ' || complete")
              .arg(median);
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_review_daily WHERE %2 ORDER BY day, biz_type, reason").arg(row, where));
}

QStringList ids(const QVector<ReviewItem> &items)
{
    QStringList out;
    for (const ReviewItem &it : items)
        out << QStringLiteral("%1:%2").arg(it.row.escalation.idemKey, ageBucketKey(it.bucket));
    return out;
}

} // namespace

class TestReview : public QObject {
    Q_OBJECT
private slots:
    void bucketBoundaries();
    void dayWindows();
    void moneySums();
    void pastDay_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, false); }
    void pastDay();
    void signOff_data() { pastDay_data(); }
    void signOff();
    void versionFour_data() { pastDay_data(); }
    void versionFour();
    void pagesAndMedians_data() { pastDay_data(); }
    void pagesAndMedians();
};

void TestReview::bucketBoundaries()
{
    const QTimeZone z = QTimeZone::utc();
    const QDateTime asOf = utc("2026-12-02T12:00:00.000Z");
    auto bucket = [&](qint64 ageUs, const QTimeZone &zone, const QDateTime &when) {
        return ageBucketOfMicros(us(when) - ageUs, us(when), zone);
    };
    const qint64 h = 3600LL * 1000000;
    QCOMPARE(bucket(0, z, asOf), AgeBucket::Under1Day);
    QCOMPARE(bucket(24 * h - 1, z, asOf), AgeBucket::Under1Day);
    QCOMPARE(bucket(24 * h, z, asOf), AgeBucket::OneToThreeDays);
    QCOMPARE(bucket(72 * h - 1, z, asOf), AgeBucket::OneToThreeDays);
    QCOMPARE(bucket(72 * h, z, asOf), AgeBucket::ThreeToSevenDays);
    QCOMPARE(bucket(168 * h - 1, z, asOf), AgeBucket::ThreeToSevenDays);
    QCOMPARE(bucket(168 * h, z, asOf), AgeBucket::OverSevenDays);
    // Sub-millisecond asOf: the boundary keeps its microseconds.
    QCOMPARE(ageBucketOfMicros(us(asOf) + 7 - 24 * h, us(asOf) + 7, z), AgeBucket::OneToThreeDays);
    QCOMPARE(ageBucketOfMicros(us(asOf) + 8 - 24 * h, us(asOf) + 7, z), AgeBucket::Under1Day);
    // Europe/Berlin springs forward on 2026-03-29: 3 calendar days before Monday noon are 71 h.
    const QTimeZone berlin("Europe/Berlin");
    const QDateTime monday = utc("2026-03-30T10:00:00.000Z"); // 12:00 CEST
    QCOMPARE(bucket(71 * h, berlin, monday), AgeBucket::ThreeToSevenDays);
    QCOMPARE(bucket(71 * h - 1, berlin, monday), AgeBucket::OneToThreeDays);
    QCOMPARE(bucket(72 * h - 1, z, monday), AgeBucket::OneToThreeDays); // in UTC 72 h
    QCOMPARE(bucket(24 * h, berlin, monday), AgeBucket::OneToThreeDays);
    QCOMPARE(bucket(167 * h, berlin, monday), AgeBucket::OverSevenDays);
    QCOMPARE(bucket(167 * h - 1, berlin, monday), AgeBucket::ThreeToSevenDays);
    // America/New_York falls back on 2026-11-01: 3 calendar days are 73 h.
    const QTimeZone ny("America/New_York");
    const QDateTime nyMonday = utc("2026-11-02T17:00:00.000Z"); // 12:00 EST
    QCOMPARE(bucket(73 * h, ny, nyMonday), AgeBucket::ThreeToSevenDays);
    QCOMPARE(bucket(73 * h - 1, ny, nyMonday), AgeBucket::OneToThreeDays);
    QCOMPARE(bucket(72 * h, ny, nyMonday), AgeBucket::OneToThreeDays);
    QCOMPARE(ageBucketLabel(AgeBucket::OneToThreeDays), QStringLiteral("1–3 d"));
    QCOMPARE(ageBucketKey(AgeBucket::OverSevenDays), QStringLiteral("gt_7d"));
}

void TestReview::dayWindows()
{
    const ReviewDay berlin = ReviewDay::of(QDate(2026, 3, 29), QTimeZone("Europe/Berlin"));
    QCOMPARE(berlin.from, utc("2026-03-28T23:00:00.000Z"));
    QCOMPARE(berlin.to, utc("2026-03-29T22:00:00.000Z"));
    const ReviewDay ny = ReviewDay::of(QDate(2026, 11, 1), QTimeZone("America/New_York"));
    QCOMPARE(ny.from, utc("2026-11-01T04:00:00.000Z"));
    QCOMPARE(ny.to, utc("2026-11-02T05:00:00.000Z"));
    const ReviewDay tokyo = ReviewDay::containing(utc("2026-12-02T15:00:00.000Z"), QTimeZone("Asia/Tokyo"));
    QCOMPARE(tokyo.day, QDate(2026, 12, 3));
    QCOMPARE(tokyo.from, utc("2026-12-02T15:00:00.000Z"));
    QCOMPARE(reviewDayContaining(us(utc("2026-12-02T14:59:59.999Z")) + 999, QTimeZone("Asia/Tokyo")), QDate(2026, 12, 2));
}

void TestReview::moneySums()
{
    using A = std::pair<QString, std::optional<QString>>;
    const QVector<MoneyTotal> m = sumMoney({A{QStringLiteral("EUR"), QStringLiteral("0.10")}, A{QStringLiteral("EUR"), QStringLiteral("0.20")},
                                            A{QStringLiteral("EUR"), QStringLiteral("abc")}, A{QStringLiteral("EUR"), std::nullopt},
                                            A{QStringLiteral("USD"), QStringLiteral("1")}, A{QStringLiteral("USD"), QStringLiteral("0.5")},
                                            A{QStringLiteral("JPY"), QStringLiteral("-0.30")}, A{QStringLiteral("JPY"), QStringLiteral("0.10")},
                                            A{QString(), QStringLiteral("7")}});
    QCOMPARE(m.size(), 4);
    QCOMPARE(m[0].currency, QString());
    QCOMPARE(m[0].sum, QStringLiteral("7"));
    QCOMPARE(m[1].currency, QStringLiteral("EUR"));
    QCOMPARE(m[1].sum, QStringLiteral("0.30"));
    QCOMPARE(m[1].count, 2);
    QCOMPARE(m[1].unknown, 2);
    QCOMPARE(m[2].currency, QStringLiteral("JPY"));
    QCOMPARE(m[2].sum, QStringLiteral("-0.20"));
    QCOMPARE(m[3].sum, QStringLiteral("1.5"));
    QCOMPARE(m[3].count, 2);
    // Beyond 20 integer digits, or a sum that would overflow: unknown, never rounded.
    const QString big = QStringLiteral("99999999999999999999.999999999999999999");
    const QVector<MoneyTotal> o = sumMoney({A{QStringLiteral("EUR"), big}, A{QStringLiteral("EUR"), big},
                                            A{QStringLiteral("EUR"), QStringLiteral("123456789012345678901")},
                                            A{QStringLiteral("EUR"), QStringLiteral("1e3")}, A{QStringLiteral("EUR"), QStringLiteral("1,5")}});
    QCOMPARE(o.size(), 1);
    QCOMPARE(o[0].sum, big);
    QCOMPARE(o[0].count, 1);
    QCOMPARE(o[0].unknown, 4);
}

void TestReview::pastDay()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    if (db.dialect() == QLatin1String("postgresql"))
        TRIAGE_OK(db.adminExec(QStringLiteral("ALTER DATABASE %1 SET timezone TO 'Asia/Tokyo'").arg(db.databaseName())));
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    const QDate today = serverToday(db);
    QVERIFY(today.isValid());
    const QDate d = today.addDays(-3);
    const QVector<Esc> rows = {
        {QStringLiteral("e1"), QStringLiteral("DUPLICATE"), at(d.addDays(-10), "12:00"), at(d.addDays(-9), "12:00"), {}, QStringLiteral("0.10"), QStringLiteral("EUR")},
        {QStringLiteral("e2"), QStringLiteral("DUPLICATE"), at(d, "00:00"), at(d.addDays(1), "00:00"), {}, QStringLiteral("0.20"), QStringLiteral("EUR")},
        {QStringLiteral("e3"), QStringLiteral("DUPLICATE"), at(d, "00:00", 1), at(d.addDays(1), "00:00", 1), at(d.addDays(2), "10:00"), QStringLiteral("abc"), QStringLiteral("EUR")},
        {QStringLiteral("e4"), QStringLiteral("DUPLICATE"), at(d.addDays(-3), "00:00"), at(d, "12:00"), {}, std::nullopt, QStringLiteral("EUR")},
        {QStringLiteral("e5"), QStringLiteral("DUPLICATE"), at(d.addDays(-2), "00:00"), {}, {}, QStringLiteral("5"), QStringLiteral("USD")},
        {QStringLiteral("e5"), QStringLiteral("POLICY"), at(d.addDays(-2), "00:00", 1), {}, {}, std::nullopt, QString()},
        {QStringLiteral("e7"), QStringLiteral("DUPLICATE"), at(d.addDays(-6), "00:00"), {}, {}, std::nullopt, QString()},
        {QStringLiteral("e8"), QStringLiteral("DUPLICATE"), at(d.addDays(-6), "00:00", 1), {}, {}, std::nullopt, QString()},
        {QStringLiteral("e9"), QStringLiteral("DUPLICATE"), at(d.addDays(-1), "05:00"), {}, at(d, "10:00"), std::nullopt, QString()},
    };
    TRIAGE_OK(insertEscalations(db, rows));
    Workspace ws(db.config());
    const auto snap = await(readReview(ws, d, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(snap);
    const ReviewSnapshot &s = *snap;
    QCOMPARE(s.day.day, d);
    QCOMPARE(reviewZoneName(s.day.zone), QStringLiteral("UTC"));
    QCOMPARE(formatUtcMicros(us(s.day.from)), at(d, "00:00"));
    QCOMPARE(formatUtcMicros(us(s.day.asOf)), at(d.addDays(1), "00:00"));
    // Open as of the day's end, oldest first, each in its bucket (boundaries to the older one).
    QCOMPARE(ids(s.open), (QStringList{QStringLiteral("e1:gt_7d"), QStringLiteral("e7:gt_7d"), QStringLiteral("e8:3_7d"),
                                        QStringLiteral("e4:3_7d"), QStringLiteral("e5:3_7d"), QStringLiteral("e5:1_3d"),
                                        QStringLiteral("e2:1_3d"), QStringLiteral("e3:lt_24h")}));
    QCOMPARE(ids(s.resolvedToday), QStringList{QStringLiteral("e9:1_3d")});
    QCOMPARE(s.totals.open, 8);
    QCOMPARE(s.totals.openByBucket, (QVector<int>{1, 2, 3, 2}));
    QCOMPARE(s.totals.openKeys, 7);
    QCOMPARE(s.totals.opened, 2);
    QCOMPARE(s.totals.resolved, 1);
    QCOMPARE(s.totals.breaches, 1); // e4, due at noon of the day
    QCOMPARE(s.totals.openMoney.size(), 3);
    QCOMPARE(s.totals.openMoney[1].currency, QStringLiteral("EUR"));
    QCOMPARE(s.totals.openMoney[1].sum, QStringLiteral("0.30"));
    QCOMPARE(s.totals.openMoney[1].count, 2);
    QCOMPARE(s.totals.openMoney[1].unknown, 2);
    QCOMPARE(s.totals.openMoney[2].sum, QStringLiteral("5"));
    // Breaches: recorded once, due at sla_due_at, by whoever noticed first (open ones only).
    const QStringList breaches = {QStringLiteral("e1 %1 console").arg(at(d.addDays(-9), "12:00")),
                                  QStringLiteral("e2 %1 console").arg(at(d.addDays(1), "00:00")),
                                  QStringLiteral("e4 %1 console").arg(at(d, "12:00"))};
    QCOMPARE(breachRows(db), breaches);
    QCOMPARE(s.open[0].breached, true);
    QCOMPARE(s.open[0].breachDueAt, at(d.addDays(-9), "12:00"));
    QCOMPARE(s.open[6].breached, false); // e2 fell due at the day's very end, not before
    QCOMPARE(s.open[7].breached, false);
    const auto again = await(readReview(ws, d, QStringLiteral("report")));
    TRIAGE_VERIFY_OUTCOME(again);
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_escalation SET sla_due_at = %1 WHERE idem_key = 'e7'").arg(timeLiteral(db, at(d, "06:00"))));
    const auto ran = await(ws.worker(DbRole::Idempotency).run<bool>([](DbSession &session) {
        review_sql::afterReconcileRun(session, QTimeZone::utc(), QStringLiteral("reconciler"));
        return true;
    }));
    TRIAGE_VERIFY_OUTCOME(ran);
    QCOMPARE(breachRows(db), (QStringList{breaches[0], breaches[1], breaches[2], QStringLiteral("e7 %1 reconciler").arg(at(d, "06:00"))}));

    // Trend rows: the day is complete, written once.
    const QString dayWhere = QStringLiteral("day = '%1'").arg(d.toString(Qt::ISODate));
    const QStringList dayRows = {QStringLiteral("%1 ticket_create DUPLICATE 2 1 7 1 104400 1").arg(d.toString(Qt::ISODate)),
                                 QStringLiteral("%1 ticket_create POLICY 0 0 1 0 null 1").arg(d.toString(Qt::ISODate))};
    QCOMPARE(trendRows(db, dayWhere), dayRows);
    // The JSON and CSV report count the same.
    const QJsonObject json = QJsonDocument::fromJson(reviewJson(s)).object();
    const QJsonObject totals = json.value(QStringLiteral("totals")).toObject();
    QCOMPARE(totals.value(QStringLiteral("open")).toInt(), 8);
    QCOMPARE(json.value(QStringLiteral("review")).toObject().value(QStringLiteral("day")).toString(), d.toString(Qt::ISODate));
    QCOMPARE(json.value(QStringLiteral("open")).toArray().size(), 8);
    QCOMPARE(json.value(QStringLiteral("open")).toArray().at(0).toObject().value(QStringLiteral("link")).toString(),
             QStringLiteral("triage://key/e1"));
    int bucketSum = 0;
    const QJsonObject buckets = totals.value(QStringLiteral("open_by_bucket")).toObject();
    for (const QString &k : buckets.keys())
        bucketSum += buckets.value(k).toInt();
    QCOMPARE(bucketSum, 8);
    const QList<QByteArray> csv = reviewCsv(s).split('\n');
    int csvOpen = 0, csvBuckets = 0;
    QString csvOpenValue;
    for (const QByteArray &line : csv) {
        const QList<QByteArray> f = line.trimmed().split(',');
        if (f.value(0) == "open")
            ++csvOpen;
        if (f.value(0) == "bucket")
            csvBuckets += f.value(8).toInt();
        if (f.value(0) == "summary" && f.value(3) == "open")
            csvOpenValue = QString::fromUtf8(f.value(4));
        if (!line.trimmed().isEmpty() && f.value(0) != "section")
            QCOMPARE(f.value(1) + ' ' + f.value(2), d.toString(Qt::ISODate).toUtf8() + " UTC");
    }
    QCOMPARE(csvOpen, 8);
    QCOMPARE(csvBuckets, 8);
    QCOMPARE(csvOpenValue, QStringLiteral("8"));

    // Purge escalations: the complete day's trend rows stay exactly as written.
    TRIAGE_ADMIN(db, QStringLiteral("DELETE FROM triage_escalation"));
    const auto purged = await(readReview(ws, d, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(purged);
    QCOMPARE(trendRows(db, dayWhere), dayRows);
    QCOMPARE(purged->totals.open, 0);
    int dayTrend = 0;
    for (const ReviewDailyRow &r : purged->trend)
        dayTrend += r.day == d;
    QCOMPARE(dayTrend, 2);
    QCOMPARE(trendRows(db, QStringLiteral("complete = 0")), QStringList());
    if (db.dialect() == QLatin1String("postgresql"))
        TRIAGE_OK(db.adminExec(QStringLiteral("ALTER DATABASE %1 RESET timezone").arg(db.databaseName())));
}

void TestReview::signOff()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    const QDate d = serverToday(db).addDays(-2);
    TRIAGE_OK(insertEscalations(db, {{QStringLiteral("k1"), QStringLiteral("POLICY"), at(d, "08:00"), {}, {}, QStringLiteral("1.00"), QStringLiteral("EUR")},
                                     {QStringLiteral("k2"), QStringLiteral("POLICY"), at(d, "09:00"), {}, {}, QStringLiteral("2.5"), QStringLiteral("EUR")}}));
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    Workspace ws(config);
    const auto snap = await(readReview(ws, d, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(snap);
    QCOMPARE(snap->lastSignOff.has_value(), false);
    const auto signed1 = await(signOffReview(ws, *snap, QStringLiteral("ab12"), QStringLiteral("all seen")));
    TRIAGE_VERIFY_OUTCOME(signed1);
    QCOMPARE(signed1->day, d);
    QCOMPARE(signed1->zone, QStringLiteral("UTC"));
    QCOMPARE(signed1->signedBy, QStringLiteral("alice"));
    QCOMPARE(signed1->windowFrom, at(d, "00:00"));
    QCOMPARE(signed1->windowTo, at(d.addDays(1), "00:00"));
    QCOMPARE(signed1->countsJson, QStringLiteral("{\"breaches\":0,\"changed_since_signoff\":0,\"new_since_signoff\":0,\"open\":2,"
                                                 "\"open_keys\":2,\"opened\":2,\"resolved\":0}"));
    QCOMPARE(signed1->openByBucketJson, QStringLiteral("{\"1_3d\":0,\"3_7d\":0,\"gt_7d\":0,\"lt_24h\":2}"));
    QCOMPARE(signed1->reportSha256, QStringLiteral("ab12"));
    QCOMPARE(signed1->note, QStringLiteral("all seen"));

    // A second sign-off of the day: Conflict naming who signed it when; nothing written.
    WorkspaceConfig bobConfig = db.config();
    bobConfig.operatorName = QStringLiteral("bob");
    Workspace bob(bobConfig);
    const auto second = await(signOffReview(bob, *snap, QStringLiteral("cd34"), QString()));
    QVERIFY(!second.ok());
    QCOMPARE(second.error->message,
             QStringLiteral("%1 (UTC) is already signed off by alice at %2").arg(d.toString(Qt::ISODate), signed1->signedAt));
    QCOMPARE(second.error->kind, DbError::Kind::Conflict);
    QCOMPARE(second.error->message,
             QStringLiteral("%1 (UTC) is already signed off by alice at %2").arg(d.toString(Qt::ISODate), signed1->signedAt));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_review_signoff")), QStringList{QStringLiteral("1")});
    const QString auditRow = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator, ' ', idem_key)")
                                                                     : QStringLiteral("action || ' ' || outcome || ' ' || operator || ' ' || idem_key");
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(auditRow)),
             (QStringList{QStringLiteral("review.signoff applied alice review:%1/UTC").arg(d.toString(Qt::ISODate)),
                          QStringLiteral("review.signoff conflict bob review:%1/UTC").arg(d.toString(Qt::ISODate))}));

    // Since the last sign-off: k3 is new (escalated after it), k1 changed (seen again after it).
    TRIAGE_ADMIN(db, QStringLiteral("INSERT INTO triage_escalation (idem_key, biz_type, tenant, reason, facts, currency, first_escalated_at, "
                                    "last_seen_at, open_slot) VALUES ('k3', 'ticket_create', '', 'POLICY', '{}', '', %1, %1, 1)")
                         .arg(serverAgo(db, 0)));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_escalation SET last_seen_at = %1 WHERE idem_key = 'k1'").arg(serverAgo(db, 0)));
    const auto today = await(readReview(ws, std::nullopt, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(today);
    QVERIFY(today->lastSignOff.has_value());
    QCOMPARE(today->lastSignOff->signedBy, QStringLiteral("alice"));
    QCOMPARE(today->thisDaySignOff.has_value(), false);
    QCOMPARE(today->totals.open, 3);
    QCOMPARE(today->totals.newSinceSignOff, 1);
    QCOMPARE(today->totals.changedSinceSignOff, 1);
    QCOMPARE(today->open[0].changedSinceSignOff, true);
    QCOMPARE(today->open[2].newSinceSignOff, true);
    const auto dayAgain = await(readReview(ws, d, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(dayAgain);
    QCOMPARE(dayAgain->thisDaySignOff->signedBy, QStringLiteral("alice"));

    // Notes: reviewed and a note, audited; unknown escalation and empty notes refused.
    const qint64 k1 = dayAgain->open[0].row.escalation.id;
    const auto reviewed = await(addReviewNote(ws, k1, QStringLiteral("reviewed"), QString()));
    TRIAGE_VERIFY_OUTCOME(reviewed);
    const auto note = await(addReviewNote(ws, k1, QStringLiteral("note"), QStringLiteral("waiting for the PSP")));
    TRIAGE_VERIFY_OUTCOME(note);
    const auto empty = await(addReviewNote(ws, k1, QStringLiteral("note"), QStringLiteral("  ")));
    QVERIFY(!empty.ok());
    QCOMPARE(empty.error->message, QStringLiteral("a note needs text"));
    const auto unknown = await(addReviewNote(ws, 999999, QStringLiteral("reviewed"), QString()));
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.error->kind, DbError::Kind::Config);
    QCOMPARE(unknown.error->message, QStringLiteral("no escalation 999999"));
    const auto withNotes = await(readReview(ws, d, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(withNotes);
    QCOMPARE(withNotes->open[0].lastReviewedBy, QStringLiteral("alice"));
    QCOMPARE(withNotes->open[0].notes, 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action FROM triage_audit WHERE action LIKE 'review.%' AND action <> 'review.signoff' ORDER BY id")),
             (QStringList{QStringLiteral("review.reviewed"), QStringLiteral("review.note")}));
    // Read-only: refused, nothing written.
    WorkspaceConfig ro = config;
    ro.readOnly = true;
    Workspace readOnly(ro);
    const auto refused = await(signOffReview(readOnly, *today, QStringLiteral("x"), QString()));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error->kind, DbError::Kind::Refused);

    // Another review zone keeps its own chain: UTC's sign-off is not Europe/Berlin's last one.
    QTemporaryDir dir;
    QFile ini(dir.filePath(QStringLiteral("berlin.ini")));
    QVERIFY(ini.open(QIODevice::WriteOnly));
    ini.write("[console]\nreview_time_zone=Europe/Berlin\n");
    ini.close();
    WorkspaceConfig berlinConfig = config;
    berlinConfig.sourceFile = ini.fileName();
    Workspace berlin(berlinConfig);
    const auto berlinToday = await(readReview(berlin, std::nullopt, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(berlinToday);
    QCOMPARE(berlinToday->day.zone.id(), QByteArray("Europe/Berlin"));
    QCOMPARE(berlinToday->lastSignOff.has_value(), false);
    QCOMPARE(berlinToday->totals.changedSinceSignOff, 0);
}

void TestReview::versionFour()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    for (const char *t : {"triage_review_breach", "triage_review_signoff", "triage_review_daily", "triage_review_note"})
        TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE %1").arg(QLatin1String(t)));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '4' WHERE meta_key = 'schema_version'"));
    Workspace ws(db.config());
    const auto snap = await(readReview(ws, std::nullopt, QStringLiteral("console")));
    QVERIFY(!snap.ok());
    QCOMPARE(snap.error->kind, DbError::Kind::Config);
    QCOMPARE(snap.error->message, QStringLiteral("the idempotency database has no review tables (console schema version 4; the daily "
                                                 "review needs version 5): run `triagectl init-schema`"));
    // A reconcile run's review step does nothing there (and fails nothing).
    const auto ran = await(ws.worker(DbRole::Idempotency).run<bool>([](DbSession &session) {
        review_sql::afterReconcileRun(session, QTimeZone::utc(), QStringLiteral("reconciler"));
        return true;
    }));
    TRIAGE_VERIFY_OUTCOME(ran);
    TRIAGE_OK(setUpSchema(ws));
    const auto after = await(readReview(ws, std::nullopt, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(after);
}

void TestReview::pagesAndMedians()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    const QDate today = serverToday(db);
    QVERIFY(today.isValid());
    QVector<Esc> rows;
    for (int i = 0; i < 7; ++i) // open, two of them at the same instant (the keyset's id breaks the tie)
        rows << Esc{QStringLiteral("p%1").arg(i), i % 2 ? QStringLiteral("POLICY") : QStringLiteral("DUPLICATE"),
                    at(today.addDays(-1 - i / 2), "06:00", i % 2), {}, {}, QStringLiteral("1.0%1").arg(i), QStringLiteral("EUR")};
    // Resolved: times to resolve exact to the microsecond, two within 14 days, one within 30.
    rows << Esc{QStringLiteral("r1"), QStringLiteral("POLICY"), at(today.addDays(-2), "08:00"), {}, at(today.addDays(-2), "09:00", 1), {}, QString()}
         << Esc{QStringLiteral("r2"), QStringLiteral("POLICY"), at(today.addDays(-3), "08:00", 5), {}, at(today.addDays(-3), "10:00", 8), {}, QString()}
         << Esc{QStringLiteral("r3"), QStringLiteral("POLICY"), at(today.addDays(-20), "00:00"), {}, at(today.addDays(-20), "06:00", 7), {}, QString()}
         // today: one opened, one resolved
         << Esc{QStringLiteral("t1"), QStringLiteral("DUPLICATE"), at(today, "00:00", 3), {}, {}, QStringLiteral("2"), QStringLiteral("EUR")}
         << Esc{QStringLiteral("t2"), QStringLiteral("POLICY"), at(today.addDays(-1), "12:00"), {}, at(today, "00:00", 9), {}, QString()};
    TRIAGE_OK(insertEscalations(db, rows));
    Workspace ws(db.config());
    const auto whole = await(readReview(ws, std::nullopt, QStringLiteral("console")));
    TRIAGE_VERIFY_OUTCOME(whole);
    QCOMPARE(whole->openComplete, true);
    QCOMPARE(whole->totals.open, 8);
    QCOMPARE(whole->totals.opened, 1);
    QCOMPARE(whole->totals.resolved, 1);
    QCOMPARE(whole->totals.openMoney.value(0).sum, QStringLiteral("9.21"));
    QVERIFY(whole->median14S && whole->median30S);
    QCOMPARE(*whole->median14S, 7200000003.0 / 1e6);
    QCOMPARE(*whole->median30S, (7200000003.0 + 21600000007.0) / 2.0 / 1e6);
    // The current day's trend rows as the 30-day write computed them (every escalation read)
    // equal those of a later write of the recent days (activity read, open-at-end in SQL).
    const QStringList current = trendRows(db, QStringLiteral("complete = 0"));
    QCOMPARE(current.size(), 2);
    const auto rewritten = await(ws.worker(DbRole::Idempotency).run<int>([](DbSession &session) {
        return review_sql::writeTrendRows(session, QTimeZone::utc(), QStringLiteral("console"));
    }));
    TRIAGE_VERIFY_OUTCOME(rewritten);
    QCOMPARE(*rewritten, 2);
    QCOMPARE(trendRows(db, QStringLiteral("complete = 0")), current);
    // The first page: the same figures, three items; the next pages bring the rest in order.
    const auto first = await(readReview(ws, std::nullopt, QStringLiteral("console"), 3));
    TRIAGE_VERIFY_OUTCOME(first);
    QCOMPARE(first->openComplete, false);
    QCOMPARE(first->open.size(), 3);
    QCOMPARE(reviewReportSha256(*first) == reviewReportSha256(*whole), false); // four items short
    ReviewSnapshot paged = *first;
    for (int guard = 0; guard < 5; ++guard) {
        const auto more = await(readReviewItems(ws, paged, 3));
        TRIAGE_VERIFY_OUTCOME(more);
        paged.open += *more;
        if (more->size() < 3)
            break;
    }
    QCOMPARE(ids(paged.open), ids(whole->open));
    QCOMPARE(first->totals.open, whole->totals.open);
    QCOMPARE(first->totals.openByBucket, whole->totals.openByBucket);
    QCOMPARE(first->groups.size(), whole->groups.size());
    for (int g = 0; g < first->groups.size(); ++g) {
        QCOMPARE(first->groups[g].escalationIds, whole->groups[g].escalationIds);
        QCOMPARE(first->groups[g].money.value(0).sum, whole->groups[g].money.value(0).sum);
    }
}

QTEST_GUILESS_MAIN(TestReview)
#include "tst_review.moc"
