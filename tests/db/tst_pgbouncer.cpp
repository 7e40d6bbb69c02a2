// PostgreSQL behind PgBouncer in transaction mode (DESIGN.md §4 "Poolers"), against the
// pooler tests/run-all.sh starts: bound values inlined with the driver's own escaping and
// placeholders replaced exactly; the time zone and statement timeout hold per statement and
// never leak to another client of the same server connection; the protocol-level cancel
// stops the right one of two sleeping sessions; concurrent clients really use several
// server connections (SHOW SERVERS on the admin console). Outcomes are asserted, never
// durations.

#include "BackendTestUtil.h"
#include "DbWorker.h"
#include "PgStatement.h"
#include "QueryCancel.h"

#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QUrl>
#include <QUuid>

using namespace triage;
using namespace triage::test;

namespace {

/// A job returning the first column of the first row of `sql` as text.
std::function<QString(DbSession &)> text(const QString &sql)
{
    return [sql](DbSession &s) {
        QSqlQuery q = s.exec(sql);
        return q.next() ? q.value(0).toString() : QStringLiteral("(no row)");
    };
}

/// How many statements `pattern` runs in database `name` right now (the server's own view).
int activeOnServer(const TestDatabase &db, const QString &pattern)
{
    const QStringList n = db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '%1' "
                                                             "AND state = 'active' AND query LIKE '%2' AND pid <> pg_backend_pid()")
                                                  .arg(db.databaseName(), pattern));
    return n.size() == 1 ? n.first().toInt() : -1;
}

} // namespace

class TstPgBouncer : public QObject {
    Q_OBJECT

private slots:
    void inlineBoundValues_data();
    void inlineBoundValues();
    void inlineRejectsUnboundPlaceholder();
    void sessionStateDoesNotLeak();
    void cancelStopsTheRightStatement();
    void concurrentClientsUseSeveralServerConnections();
};

void TstPgBouncer::inlineBoundValues_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QVariantList>("values");
    QTest::addColumn<QString>("expected");
    QTest::newRow("text and integer") << QStringLiteral("SELECT :p0, :p1") << QVariantList{QStringLiteral("it's"), 42}
                                      << QStringLiteral("SELECT 'it''s', 42");
    QTest::newRow("p1 and p10") << QStringLiteral("SELECT :p1 || :p10")
                                << QVariantList{0, QStringLiteral("a"), 2, 3, 4, 5, 6, 7, 8, 9, QStringLiteral("b")}
                                << QStringLiteral("SELECT 'a' || 'b'");
    QTest::newRow("cast") << QStringLiteral("SELECT :p0::jsonb, now()::text") << QVariantList{QStringLiteral("{\"a\":1}")}
                          << QStringLiteral("SELECT '{\"a\":1}'::jsonb, now()::text");
    QTest::newRow("placeholder text in literals and comments")
        << QStringLiteral("SELECT ':p0', E'\\':p0', \":p0\", $$:p0$$, $t$ :p0 $t$ -- :p0\n/* :p0 */ , :p0")
        << QVariantList{QStringLiteral("v")}
        << QStringLiteral("SELECT ':p0', E'\\':p0', \":p0\", $$:p0$$, $t$ :p0 $t$ -- :p0\n/* :p0 */ , 'v'");
    QTest::newRow("value holding a placeholder") << QStringLiteral("SELECT :p0, :p1")
                                                 << QVariantList{QStringLiteral(":p1"), QStringLiteral("x")}
                                                 << QStringLiteral("SELECT ':p1', 'x'");
    QTest::newRow("nulls") << QStringLiteral("SELECT :p0, :p1, :p2")
                           << QVariantList{QString(), QVariant(), QVariant(QMetaType::fromType<qlonglong>())}
                           << QStringLiteral("SELECT NULL, NULL, NULL");
    QTest::newRow("bool and bigint") << QStringLiteral("SELECT :p0, :p1") << QVariantList{true, qlonglong(-9007199254740993)}
                                     << QStringLiteral("SELECT TRUE, -9007199254740993");
}

void TstPgBouncer::inlineBoundValues()
{
    QFETCH(QString, sql);
    QFETCH(QVariantList, values);
    QFETCH(QString, expected);
    TestDatabase db(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(db);
    DbSession s(profileOf(db), QStringLiteral("inline-%1").arg(QTest::currentDataTag()));
    s.ensureOpen();
    SqlBuilder b;
    for (const QVariant &v : values)
        b.bind(v);
    QString error;
    const std::optional<QString> out = triage::inlineBoundValues(sql, b, s.db().driver(), &error);
    QVERIFY2(out, qPrintable(error));
    QCOMPARE(*out, expected);
}

void TstPgBouncer::inlineRejectsUnboundPlaceholder()
{
    TestDatabase db(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(db);
    DbSession s(profileOf(db), QStringLiteral("inline-unbound"));
    s.ensureOpen();
    SqlBuilder b;
    b.bind(1);
    QString error;
    QVERIFY(!triage::inlineBoundValues(QStringLiteral("SELECT :p0, :p1"), b, s.db().driver(), &error));
    QCOMPARE(error, QStringLiteral("the statement uses :p1, which has no bound value"));
    try {
        s.exec(QStringLiteral("SELECT :p0, :p1"), b);
        QFAIL("an unbound placeholder must throw");
    } catch (const DbException &e) {
        QCOMPARE(e.error.kind, DbError::Kind::Statement);
        QCOMPARE(e.error.message,
                 QStringLiteral("idempotency database: cannot run a statement: the statement uses :p1, which has no bound value"));
    }
}

void TstPgBouncer::sessionStateDoesNotLeak()
{
    TestDatabase db(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(db);
    // One server connection for everything below: the console's session with a 200 ms
    // statement timeout and a plain client take turns on it.
    DbSession console(profileOf(db, QStringLiteral("?statement_timeout=200")), QStringLiteral("leak-console"));
    console.ensureOpen();
    const QString settings = QStringLiteral("SELECT current_setting('TimeZone') || ' ' || current_setting('statement_timeout')");
    QSqlDatabase plain = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("leak-plain"));
    {
        const QUrl u(db.url());
        plain.setHostName(u.host());
        plain.setPort(u.port());
        plain.setUserName(u.userName());
        plain.setPassword(qEnvironmentVariable("TRIAGE_TEST_PG_PASSWORD"));
        plain.setDatabaseName(db.databaseName());
        QVERIFY2(plain.open(), qPrintable(plain.lastError().text()));
        for (int round = 0; round < 5; ++round) {
            QSqlQuery q1 = console.exec(settings);
            QVERIFY(q1.next());
            QCOMPARE(q1.value(0).toString(), QStringLiteral("UTC 200ms"));
            q1.finish();
            QSqlQuery q2(plain);
            QVERIFY2(q2.exec(settings) && q2.next(), qPrintable(q2.lastError().text()));
            // The server's own zone (tests/run-all.sh) and no timeout: nothing of the
            // console's session reached this client.
            QCOMPARE(q2.value(0).toString(), QStringLiteral("Asia/Kolkata 0"));
        }
        // Inside a transaction the settings hold for every statement of it.
        console.begin();
        QSqlQuery t = console.exec(settings);
        QVERIFY(t.next());
        QCOMPARE(t.value(0).toString(), QStringLiteral("UTC 200ms"));
        t.finish();
        console.commit();
        // No prepared statement outlives its statement (QPSQL's would be qpsqlpstmt_N).
        QSqlQuery p = console.exec(QStringLiteral("SELECT COUNT(*) FROM pg_prepared_statements"));
        QVERIFY(p.next());
        QCOMPARE(p.value(0).toLongLong(), qlonglong(0));
        plain.close();
    }
    plain = QSqlDatabase();
    QSqlDatabase::removeDatabase(QStringLiteral("leak-plain"));
}

void TstPgBouncer::cancelStopsTheRightStatement()
{
    TestDatabase db(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker keeps(profileOf(db));
    DbWorker cancelled(profileOf(db));
    TRIAGE_VERIFY_OUTCOME(await(keeps.run<QString>(text(QStringLiteral("SELECT 1")))));
    TRIAGE_VERIFY_OUTCOME(await(cancelled.run<QString>(text(QStringLiteral("SELECT 1")))));

    // Both sleep on their own server connections; the cancel of one must not touch the other.
    auto finishes = keeps.run<QString>(text(QStringLiteral("SELECT 'kept:' || pg_sleep(8)::text")));
    auto stopped = cancelled.run<QString>(text(QStringLiteral("SELECT 'stopped:' || pg_sleep(60)::text")));
    QTRY_COMPARE_WITH_TIMEOUT(activeOnServer(db, QStringLiteral("%pg_sleep(60)%")), 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(activeOnServer(db, QStringLiteral("%pg_sleep(8)%")), 1, 20000);

    const Outcome<CancelResult> cancel = await(triage::cancelRunningStatement(cancelled));
    TRIAGE_VERIFY_OUTCOME(cancel);
    QCOMPARE(cancel->kind, CancelResult::Kind::Cancelled);

    const Outcome<QString> s = await(stopped);
    QVERIFY2(!s.ok(), "the cancelled sleep must not complete");
    QCOMPARE(s.error->kind, DbError::Kind::Cancelled);
    QCOMPARE(s.error->message, QStringLiteral("idempotency database: query cancelled by the operator"));
    const Outcome<QString> k = await(finishes);
    TRIAGE_VERIFY_OUTCOME(k);
    QCOMPARE(*k, QStringLiteral("kept:"));

    // Both keep their client connections and run the next statement.
    QCOMPARE(*await(cancelled.run<QString>(text(QStringLiteral("SELECT 'next'")))), QStringLiteral("next"));
    QCOMPARE(*await(keeps.run<QString>(text(QStringLiteral("SELECT 'next'")))), QStringLiteral("next"));

    // Idle: nothing to cancel (the pooler would drop the request anyway).
    const Outcome<CancelResult> idle = await(triage::cancelRunningStatement(cancelled));
    TRIAGE_VERIFY_OUTCOME(idle);
    QCOMPARE(idle->message, QStringLiteral("nothing to cancel"));
}

void TstPgBouncer::concurrentClientsUseSeveralServerConnections()
{
    TestDatabase db(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(db);
    std::vector<std::unique_ptr<DbWorker>> workers;
    QList<QFuture<Outcome<QString>>> sleeping;
    for (int i = 0; i < 3; ++i) {
        workers.push_back(std::make_unique<DbWorker>(profileOf(db)));
        sleeping << workers.back()->run<QString>(text(QStringLiteral("SELECT 'done:' || pg_sleep(60)::text")));
    }
    QTRY_COMPARE_WITH_TIMEOUT(activeOnServer(db, QStringLiteral("%pg_sleep(60)%")), 3, 20000);
    QString error;
    const QHash<QString, int> servers = poolerServerStates(db.databaseName(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // default_pool_size is 4 (tests/run-all.sh): each busy client holds its own server connection.
    QCOMPARE(servers.value(QStringLiteral("active")), 3);
    for (int i = 0; i < 3; ++i) {
        const Outcome<CancelResult> c = await(triage::cancelRunningStatement(*workers[i]));
        TRIAGE_VERIFY_OUTCOME(c);
        QCOMPARE(c->kind, CancelResult::Kind::Cancelled);
        const Outcome<QString> o = await(sleeping[i]);
        QVERIFY(!o.ok());
        QCOMPARE(o.error->kind, DbError::Kind::Cancelled);
    }
}

QTEST_GUILESS_MAIN(TstPgBouncer)
#include "tst_pgbouncer.moc"
