// The schema mapping's SQL fragments against the real servers (DESIGN.md §10): every time
// encoding (native, local with a zone, epoch seconds and milliseconds, ISO text) read as
// canonical UTC text, compared on the server's clock, matched exactly for a compare-and-set
// and paged by keyset over ties; status spellings exact or case- and space-folded (MariaDB's
// case-insensitive collation made exact); quoted names; and the "shop" test shape's fixture.
// The servers run in non-UTC zones (tests/run-all.sh), so a zone slip shows.

#include "BackendTestUtil.h"
#include "DbSession.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "ShopShape.h"

#include <QSqlQuery>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

const QString kT = QStringLiteral("2026-12-01T10:00:00.123456Z");

TimeMapping timeMapping(const QString &name)
{
    TimeMapping m;
    if (name == QLatin1String("local")) {
        m.encoding = TimeEncoding::Local;
        m.zone = QStringLiteral("+05:30");
    } else if (name == QLatin1String("local_named")) {
        m.encoding = TimeEncoding::Local;
        m.zone = QStringLiteral("America/New_York");
    } else if (name == QLatin1String("epoch_s")) {
        m.encoding = TimeEncoding::EpochSeconds;
    } else if (name == QLatin1String("epoch_ms")) {
        m.encoding = TimeEncoding::EpochMillis;
    } else if (name == QLatin1String("iso_text")) {
        m.encoding = TimeEncoding::IsoText;
    }
    return m;
}

QString columnType(const QString &dialect, TimeEncoding e)
{
    const bool pg = dialect == QLatin1String("postgresql"), my = dialect == QLatin1String("mysql");
    switch (e) {
    case TimeEncoding::Native: return pg ? QStringLiteral("timestamptz") : my ? QStringLiteral("DATETIME(6)") : QStringLiteral("TEXT");
    case TimeEncoding::Local: return pg ? QStringLiteral("timestamp") : my ? QStringLiteral("DATETIME(6)") : QStringLiteral("TEXT");
    case TimeEncoding::EpochSeconds:
    case TimeEncoding::EpochMillis: return QStringLiteral("BIGINT");
    case TimeEncoding::IsoText: return pg || my ? QStringLiteral("VARCHAR(40)") : QStringLiteral("TEXT");
    }
    return {};
}

/// The ids a SELECT of one id column returns, in order, as "1,2,3".
QString ids(DbSession &s, const QString &sql, const SqlBuilder &b = {})
{
    QSqlQuery q = s.exec(sql, b);
    QStringList out;
    while (q.next())
        out << q.value(0).toString();
    return out.join(QLatin1Char(','));
}

QString first(DbSession &s, const QString &sql, const SqlBuilder &b = {})
{
    QSqlQuery q = s.exec(sql, b);
    return q.next() ? q.value(0).toString() : QStringLiteral("(no row)");
}

} // namespace

class TstSchemaSql : public QObject {
    Q_OBJECT

private slots:
    void names();
    void times_data();
    void times();
    void statuses_data();
    void statuses();
    void integerCodes_data();
    void integerCodes();
    void shopFixture_data();
    void shopFixture();
};

void TstSchemaSql::names()
{
    QCOMPARE(sqlName(Dialect::PostgreSql, QStringLiteral("idempotency_record")), QStringLiteral("idempotency_record"));
    QCOMPARE(sqlName(Dialect::PostgreSql, QStringLiteral("billing.idem_records")), QStringLiteral("billing.idem_records"));
    QCOMPARE(sqlName(Dialect::PostgreSql, QStringLiteral("Billing.Orders")), QStringLiteral("\"Billing\".\"Orders\""));
    QCOMPARE(sqlName(Dialect::MySql, QStringLiteral("Orders")), QStringLiteral("`Orders`"));
    QCOMPARE(sqlName(Dialect::Sqlite, QStringLiteral("order")), QStringLiteral("\"order\""));
    QCOMPARE(sqlName(Dialect::MySql, QStringLiteral("key")), QStringLiteral("`key`"));
}

void TstSchemaSql::times_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("encoding");
    QTest::addColumn<QString>("expectedText"); // kT read back through text()
    for (const QString &b : backendNames(true)) {
        const QString d = dialectOf(b);
        const bool sqlite = d == QLatin1String("sqlite");
        auto row = [&](const QString &enc, const QString &text) {
            QTest::newRow(qPrintable(b + QLatin1Char('/') + enc)) << b << enc << text;
        };
        row(QStringLiteral("native"), kT);
        row(QStringLiteral("local"), sqlite ? QStringLiteral("2026-12-01T10:00:00.123000Z") : kT);
        if (d == QLatin1String("postgresql"))
            row(QStringLiteral("local_named"), kT);
        row(QStringLiteral("epoch_s"), QStringLiteral("2026-12-01T10:00:00.000000Z"));
        row(QStringLiteral("epoch_ms"), QStringLiteral("2026-12-01T10:00:00.123000Z"));
        row(QStringLiteral("iso_text"), kT);
    }
}

void TstSchemaSql::times()
{
    QFETCH(QString, backend);
    QFETCH(QString, encoding);
    QFETCH(QString, expectedText);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const TimeMapping m = timeMapping(encoding);
    const TimeSql t(profileOf(db).dialect, m);
    QCOMPARE(db.adminExec(QStringLiteral("CREATE TABLE tt (id INT PRIMARY KEY, t %1)").arg(columnType(db.dialect(), m.encoding))),
             QString());
    DbSession s(profileOf(db), QStringLiteral("schema-sql"));
    s.ensureOpen();
    const UtcMicros at = *parseUtcMicros(kT);
    auto insertAt = [&](int id, UtcMicros when) {
        SqlBuilder b;
        s.exec(QStringLiteral("INSERT INTO tt (id, t) VALUES (%1, %2)").arg(b.bind(id), t.param(b.bind(t.bind(when)))), b);
    };
    insertAt(1, at);
    {
        SqlBuilder b;
        s.exec(QStringLiteral("INSERT INTO tt (id, t) VALUES (%1, %2)").arg(b.bind(2), t.nowValue()), b);
    }
    insertAt(3, at);
    insertAt(4, at);
    // Read back as canonical UTC text, whatever the server's zone.
    QCOMPARE(first(s, QStringLiteral("SELECT %1 FROM tt WHERE id = 1").arg(t.text(QStringLiteral("t")))), expectedText);
    // The server's clock, in the column's units: the row written now is 0 to 60 s old.
    const double age = first(s, QStringLiteral("SELECT %1 FROM tt WHERE id = 2").arg(t.secondsSince(QStringLiteral("t")))).toDouble();
    QVERIFY2(age > -1.0 && age < 60.0, qPrintable(QString::number(age)));
    // Staleness: older than an hour are the rows at kT (a day ago), not the one written now.
    {
        SqlBuilder b;
        QCOMPARE(ids(s, QStringLiteral("SELECT id FROM tt WHERE t < %1 ORDER BY id").arg(t.nowMinusSeconds(b.bind(3600))), b),
                 QStringLiteral("1,3,4"));
        SqlBuilder b2;
        QCOMPARE(ids(s, QStringLiteral("SELECT id FROM tt WHERE t >= %1 ORDER BY id").arg(t.nowMinusSeconds(b2.bind(3600))), b2),
                 QStringLiteral("2"));
    }
    // A compare-and-set matches the instant read back exactly (or the stored text, where the
    // encoding is compared as stored).
    {
        SqlBuilder b;
        const QString read = first(s, QStringLiteral("SELECT %1 FROM tt WHERE id = 1").arg(t.cursor(QStringLiteral("t"))));
        const QString cond = t.matchesStoredText() ? QStringLiteral("t = %1").arg(b.bind(read))
                                                   : QStringLiteral("t = %1").arg(t.param(b.bind(t.bind(*parseUtcMicros(expectedText)))));
        QCOMPARE(ids(s, QStringLiteral("SELECT id FROM tt WHERE %1 ORDER BY id").arg(cond), b), QStringLiteral("1,3,4"));
    }
    // Keyset paging over ties: after (kT, 1) come 3 and 4 at the same time, then 2.
    {
        const QString cursor = first(s, QStringLiteral("SELECT %1 FROM tt WHERE id = 1").arg(t.cursor(QStringLiteral("t"))));
        SqlBuilder b;
        const QString after = t.keysetAfter(b, QStringLiteral("t"), QStringLiteral("id"), t.cursorValue(cursor), 1, false);
        QCOMPARE(ids(s, QStringLiteral("SELECT id FROM tt WHERE %1 ORDER BY t, id").arg(after), b), QStringLiteral("3,4,2"));
        const QString last = first(s, QStringLiteral("SELECT %1 FROM tt WHERE id = 2").arg(t.cursor(QStringLiteral("t"))));
        SqlBuilder b2;
        const QString before = t.keysetAfter(b2, QStringLiteral("t"), QStringLiteral("id"), t.cursorValue(last), 2, true);
        QCOMPARE(ids(s, QStringLiteral("SELECT id FROM tt WHERE %1 ORDER BY t DESC, id DESC").arg(before), b2),
                 QStringLiteral("4,3,1"));
    }
}

void TstSchemaSql::statuses_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("ignoreCase");
    QTest::addColumn<QString>("processing");
    QTest::addColumn<QString>("success");
    QTest::addColumn<QString>("neither");
    for (const QString &b : backendNames(true)) {
        QTest::newRow(qPrintable(b + QStringLiteral("/exact"))) << b << false << "1" << "4" << "2,3,5,6";
        QTest::newRow(qPrintable(b + QStringLiteral("/ignore_case"))) << b << true << "1,2" << "3,4" << "5,6";
    }
}

void TstSchemaSql::statuses()
{
    QFETCH(QString, backend);
    QFETCH(bool, ignoreCase);
    QFETCH(QString, processing);
    QFETCH(QString, success);
    QFETCH(QString, neither);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(db.adminExec(QStringLiteral("CREATE TABLE st (id INT PRIMARY KEY, s VARCHAR(16))")), QString());
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO st VALUES (1, 'PENDING'), (2, 'pending '), (3, 'Done'), (4, 'DONE'), "
                                         "(5, 'weird'), (6, NULL)")),
             QString());
    StatusMapping m;
    m.text = true;
    m.ignoreCase = ignoreCase;
    m.spellings.insert(QStringLiteral("PROCESSING"), {QStringLiteral("PENDING")});
    m.spellings.insert(QStringLiteral("SUCCESS"), {QStringLiteral("DONE")});
    m.spellings.insert(QStringLiteral("FAILED"), {QStringLiteral("ERROR")});
    const StatusSql st(profileOf(db).dialect, m);
    DbSession s(profileOf(db), QStringLiteral("status-sql"));
    s.ensureOpen();
    auto where = [&](const std::function<QString(SqlBuilder &)> &cond) {
        SqlBuilder b;
        const QString c = cond(b);
        return ids(s, QStringLiteral("SELECT id FROM st WHERE %1 ORDER BY id").arg(c), b);
    };
    const QString col = QStringLiteral("s");
    QCOMPARE(where([&](SqlBuilder &b) { return st.isAny(b, col, {QStringLiteral("PROCESSING")}); }), processing);
    QCOMPARE(where([&](SqlBuilder &b) { return st.isAny(b, col, {QStringLiteral("SUCCESS")}); }), success);
    QCOMPARE(where([&](SqlBuilder &b) { return st.isNone(b, col, recordStatusNames()); }), neither);
    // What the filter compares, the expression an index must be on (IndexNeeds.h): with
    // ignore_case UPPER(TRIM(…)), indexable as it is on PostgreSQL and SQLite (DESIGN.md §10).
    const QString dialect = db.dialect();
    const QString asText = dialect == QLatin1String("postgresql") ? QStringLiteral("CAST(s AS text)")
        : dialect == QLatin1String("mysql")                       ? QStringLiteral("CAST(s AS CHAR)")
                                                                  : QStringLiteral("CAST(s AS TEXT)");
    QCOMPARE(st.compared(col), ignoreCase ? QStringLiteral("UPPER(TRIM(%1))").arg(asText) : col);
    if (ignoreCase && dialect != QLatin1String("mysql"))
        QCOMPARE(db.adminExec(QStringLiteral("CREATE INDEX st_folded ON st ((%1), id)").arg(st.compared(col))), QString());
    // The Unknown queue's index-friendly form selects the same rows, with the spellings in the
    // column's own order as the server gives them (none on MySQL/MariaDB: isNone() there).
    QStringList order;
    {
        SqlBuilder b;
        const QString sql = st.spellingOrderSql(b, QStringLiteral("st"), col);
        QCOMPARE(sql.isEmpty(), db.dialect() == QLatin1String("mysql"));
        if (!sql.isEmpty()) {
            QSqlQuery o = s.exec(sql, b);
            while (o.next())
                order << o.value(0).toString();
            QCOMPARE(order, (QStringList{"DONE", "ERROR", "PENDING"}));
        }
    }
    QCOMPARE(where([&](SqlBuilder &b) { return st.isUnknown(b, col, order); }), neither);
    // The compare-and-set's raw value is exact in both modes, on every backend.
    QCOMPARE(where([&](SqlBuilder &b) { return st.equalsStored(b, col, QStringLiteral("pending ")); }), QStringLiteral("2"));
    QCOMPARE(where([&](SqlBuilder &b) { return st.equalsStored(b, col, QStringLiteral("Done")); }), QStringLiteral("3"));
    QCOMPARE(where([&](SqlBuilder &b) { return st.equalsStored(b, col, std::nullopt); }), QStringLiteral("6"));
    // Read back through the mapping.
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM st ORDER BY id").arg(st.read(col)));
    QStringList texts;
    while (q.next())
        texts << StoredRecordStatus::fromMapped(q.value(0), m).text;
    QCOMPARE(texts.join(QLatin1Char(',')),
             ignoreCase ? QStringLiteral("PROCESSING,PROCESSING,SUCCESS,SUCCESS,UNKNOWN_CODE_weird,NULL")
                        : QStringLiteral("PROCESSING,UNKNOWN_CODE_pending ,UNKNOWN_CODE_Done,SUCCESS,UNKNOWN_CODE_weird,NULL"));
    // Written: the first spelling.
    {
        SqlBuilder b;
        s.exec(QStringLiteral("UPDATE st SET s = %1 WHERE id = 5").arg(st.write(b, QStringLiteral("FAILED"))), b);
    }
    QCOMPARE(first(s, QStringLiteral("SELECT s FROM st WHERE id = 5")), QStringLiteral("ERROR"));
}

void TstSchemaSql::integerCodes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TstSchemaSql::integerCodes()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(db.adminExec(QStringLiteral("CREATE TABLE si (id INT PRIMARY KEY, s INT)")), QString());
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO si VALUES (1, 10), (2, 20), (3, 1), (4, NULL)")), QString());
    StatusMapping m;
    m.spellings.insert(QStringLiteral("PROCESSING"), {QStringLiteral("10"), QStringLiteral("11")});
    m.spellings.insert(QStringLiteral("SUCCESS"), {QStringLiteral("20")});
    m.spellings.insert(QStringLiteral("FAILED"), {QStringLiteral("30")});
    const StatusSql st(profileOf(db).dialect, m);
    DbSession s(profileOf(db), QStringLiteral("status-int"));
    s.ensureOpen();
    SqlBuilder b;
    QCOMPARE(ids(s, QStringLiteral("SELECT id FROM si WHERE %1 ORDER BY id").arg(st.isAny(b, QStringLiteral("s"), {QStringLiteral("SUCCESS")})), b),
             QStringLiteral("2"));
    QSqlQuery q = s.exec(QStringLiteral("SELECT s FROM si ORDER BY id"));
    QStringList texts;
    while (q.next()) {
        const StoredRecordStatus r = StoredRecordStatus::fromMapped(q.value(0), m);
        texts << r.text + QLatin1Char('/') + (r.known() ? recordStatusName(*r.known()) : QStringLiteral("-"));
    }
    // 1 is SUCCESS in the seeds' codes, but this mapping does not spell it: unknown.
    QCOMPARE(texts.join(QLatin1Char(',')), QStringLiteral("PROCESSING/PROCESSING,SUCCESS/SUCCESS,UNKNOWN_CODE_1/-,NULL/-"));
    // The Unknown queue's ranges between the known codes: below, between (15), above, NULL.
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO si VALUES (5, 15), (6, -3), (7, 40), (8, 11), (9, 30)")), QString());
    SqlBuilder u;
    QCOMPARE(ids(s, QStringLiteral("SELECT id FROM si WHERE %1 ORDER BY id").arg(st.isUnknown(u, QStringLiteral("s"))), u),
             QStringLiteral("3,4,5,6,7"));
}

void TstSchemaSql::shopFixture_data()
{
    QTest::addColumn<QString>("backend");
    for (const QString &b : backendNames(false, true))
        if (b.endsWith(QLatin1String("/shop")))
            QTest::newRow(qPrintable(b)) << b;
}

void TstSchemaSql::shopFixture()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QVERIFY(db.isShop());
    Workspace ws(db.config());
    QCOMPARE(setUpSchema(ws), QString());
    RecordSpec r;
    r.key = QStringLiteral("ticket:create:acme:1");
    r.status = QStringLiteral("0");
    r.updated = timeLiteral(db, kT);
    QCOMPARE(insertRecords(db, {r}), QString());
    IntentSpec a;
    a.key = r.key;
    a.created = timeLiteral(db, kT);
    QCOMPARE(insertIntents(db, {a}), QString());
    TicketSpec t;
    t.id = 42;
    t.key = r.key;
    t.status = QStringLiteral("CANCELLED");
    t.payload = QStringLiteral("{\"a\":1}");
    t.created = timeLiteral(db, kT);
    QCOMPARE(insertTickets(db, {t}), QString());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state FROM idem_requests")), QStringList{QStringLiteral("pending ")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT tenant FROM idem_requests")), QStringList{QStringLiteral("acme")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT updated_ms FROM idem_requests")), QStringList{QStringLiteral("1796119200123")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT step_state FROM agent_steps")), QStringList{QStringLiteral("timeout")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT order_id FROM orders")),
             QStringList{QStringLiteral("00000000-0000-4000-8000-000000000042")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT order_state FROM orders")), QStringList{QStringLiteral("voided")});
}

QTEST_GUILESS_MAIN(TstSchemaSql)
#include "tst_schema_sql.moc"
