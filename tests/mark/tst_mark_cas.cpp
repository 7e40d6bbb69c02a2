// Compare-and-set marks against SQLite, PostgreSQL and MariaDB: stale views, the version
// column, microsecond precision, stored time spellings, found rows, privileges and dropped
// connections. Every expected value is written out.
#include "MarkTestUtil.h"
#include "Schema.h"
#include "KeyDetail.h"

#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <thread>

using namespace triage;
using namespace triage::test;

class TestMarkCas : public QObject {
    Q_OBJECT
private slots:
    void staleViewConflict_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void staleViewConflict();
    void versionColumn_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void versionColumn();
    void microsecondPrecision_data();
    void microsecondPrecision();
    void storedTimeSpellings_data();
    void storedTimeSpellings();
    void foundRows_data();
    void foundRows();
    void privileges_data();
    void privileges();
    void dropBetweenReadAndMark_data();
    void dropBetweenReadAndMark();
    void dropDuringCommitPostgres();
    void dropDuringTransactionMariaDb();
};

void TestMarkCas::staleViewConflict()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY(seen.record);
    // The reconciler settles it by its own compare-and-set.
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1, result_snapshot = '{\"by\":\"reconciler\"}', "
                                         "updated_at = %1 WHERE idem_key = 'k1' AND status = 0")
                              .arg(serverNowMinus(backend, 0))),
             QString());
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = expectedStateOf(*seen.record);
    const auto out = markRecord(ws, r).result();
    QCOMPARE(markKindName(out->kind), QStringLiteral("conflict"));
    QCOMPARE(out->current->statusText, QStringLiteral("SUCCESS"));
    QCOMPARE(*out->current->resultSnapshot, QStringLiteral("{\"by\":\"reconciler\"}"));
    QVERIFY(!out->changedBy);
    QVERIFY2(out->message.contains(QStringLiteral("no operator action is recorded for it")), qPrintable(out->message));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")), 1);

    // A second operator holding the same stale view sees who changed it when it was a person.
    QCOMPARE(insertRecord(db, QStringLiteral("k2"), Processing, 3600), QString());
    const KeyDetail k2 = loadKeyDetail(ws, QStringLiteral("k2")).result();
    MarkRequest first = request(QStringLiteral("k2"), Failed);
    first.operatorName = QStringLiteral("bob");
    first.expect = expectedStateOf(*k2.record);
    QCOMPARE(markKindName(markRecord(ws, first).result()->kind), QStringLiteral("applied"));
    MarkRequest second = first;
    second.operatorName = QStringLiteral("carol");
    second.requestId.clear();
    const auto lost = markRecord(ws, second).result();
    QCOMPARE(markKindName(lost->kind), QStringLiteral("conflict"));
    QVERIFY(lost->changedBy);
    QCOMPARE(lost->changedBy->operatorName, QStringLiteral("bob"));
    QCOMPARE(lost->current->statusText, QStringLiteral("FAILED"));
}

void TestMarkCas::versionColumn()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record ADD COLUMN version BIGINT DEFAULT 0")), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QCOMPARE(seen.record->version, std::optional<qint64>(0));
    MarkRequest wrong = request(QStringLiteral("k1"), Failed);
    wrong.expect = ExpectedState{0, parseUtcMicros(seen.record->updatedAt), 5};
    QCOMPARE(markKindName(markRecord(ws, wrong).result()->kind), QStringLiteral("conflict"));
    MarkRequest right = request(QStringLiteral("k1"), Failed);
    right.expect = ExpectedState{0, parseUtcMicros(seen.record->updatedAt), 0};
    const auto out = markRecord(ws, right).result();
    QCOMPARE(markKindName(out->kind), QStringLiteral("applied"));
    QCOMPARE(out->current->version, std::optional<qint64>(1));
}

void TestMarkCas::microsecondPrecision_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
    QTest::newRow("pgbouncer") << QStringLiteral("pgbouncer");
}

void TestMarkCas::microsecondPrecision()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    const QString literal = dialectOf(backend) == QLatin1String("mysql") ? QStringLiteral("'2026-01-02 03:04:05.123456'")
                                                               : QStringLiteral("'2026-01-02T03:04:05.123456Z'");
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                         "expire_at) VALUES ('k1', 'ticket_create', 0, %1, %1, %1)")
                              .arg(literal)),
             QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QCOMPARE(seen.record->updatedAt, QStringLiteral("2026-01-02T03:04:05.123456Z"));
    MarkRequest ms = request(QStringLiteral("k1"), Failed);
    ms.expect = ExpectedState{0, parseUtcMicros(QStringLiteral("2026-01-02T03:04:05.123000Z")), std::nullopt}; // what QDateTime would keep
    QCOMPARE(markKindName(markRecord(ws, ms).result()->kind), QStringLiteral("conflict"));
    MarkRequest exact = request(QStringLiteral("k1"), Failed);
    exact.expect = ExpectedState{0, parseUtcMicros(QStringLiteral("2026-01-02T03:04:05.123456Z")), std::nullopt};
    QCOMPARE(markKindName(markRecord(ws, exact).result()->kind), QStringLiteral("applied"));
}

void TestMarkCas::storedTimeSpellings_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("stored");    // updated_at as the table holds it
    QTest::addColumn<QString>("later");     // the same spelling one second later: a change
    QTest::addColumn<QString>("canonical"); // what show prints
    struct Form {
        const char *name, *stored, *later, *canonical;
    };
    const Form forms[] = {
        {"space", "2026-12-01 10:00:00", "2026-12-01 10:00:01", "2026-12-01T10:00:00.000000Z"},
        {"Z", "2026-12-01T10:00:00Z", "2026-12-01T10:00:01Z", "2026-12-01T10:00:00.000000Z"},
        {"micros", "2026-12-01T10:00:00.123456Z", "2026-12-01T10:00:01.123456Z", "2026-12-01T10:00:00.123456Z"},
    };
    for (const QString &backend : {QStringLiteral("sqlite"), QStringLiteral("postgresql"), QStringLiteral("mysql")}) {
        for (const Form &f : forms) {
            QString stored = QString::fromLatin1(f.stored), later = QString::fromLatin1(f.later);
            if (dialectOf(backend) == QLatin1String("mysql")) { // a DATETIME(6) literal takes no 'T' or zone
                stored = stored.replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z'));
                later = later.replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z'));
            }
            QTest::newRow(qPrintable(backend + QLatin1Char(' ') + QLatin1String(f.name)))
                << backend << stored << later << QString::fromLatin1(f.canonical);
        }
    }
}

void TestMarkCas::storedTimeSpellings()
{
    // The compare-and-set compares times as times: SQLite keeps the text it was given
    // (users' own files say "2026-12-01 10:00:00"), the servers keep a timestamp.
    QFETCH(QString, backend);
    QFETCH(QString, stored);
    QFETCH(QString, later);
    QFETCH(QString, canonical);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    for (const QString &key : {QStringLiteral("k1"), QStringLiteral("k2")})
        QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, "
                                             "updated_at, expire_at) VALUES ('%1', 'ticket_create', 0, '%2', '%2', '2099-01-01 00:00:00')")
                                  .arg(key, stored)),
                 QString());
    if (backend == QLatin1String("sqlite"))
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT updated_at FROM idempotency_record WHERE idem_key = 'k1'")),
                 QStringList{stored});

    // Unchanged since it was read: applied.
    const KeyDetail k1 = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY(k1.record);
    QCOMPARE(k1.record->updatedAt, canonical);
    MarkRequest same = request(QStringLiteral("k1"), Failed);
    same.expect = expectedStateOf(*k1.record);
    const auto applied = markRecord(ws, same).result();
    QVERIFY2(applied.ok(), applied.ok() ? "" : qPrintable(applied.error->message));
    QCOMPARE(markKindName(applied->kind), QStringLiteral("applied"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = 'k1'")),
             QStringList{QStringLiteral("2")});

    // Changed (one second later, same spelling) after it was read: conflict, nothing written.
    const KeyDetail k2 = loadKeyDetail(ws, QStringLiteral("k2")).result();
    QVERIFY(k2.record);
    QCOMPARE(k2.record->updatedAt, canonical);
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET updated_at = '%1' WHERE idem_key = 'k2'").arg(later)),
             QString());
    MarkRequest changed = request(QStringLiteral("k2"), Failed);
    changed.expect = expectedStateOf(*k2.record);
    const auto lost = markRecord(ws, changed).result();
    QVERIFY2(lost.ok(), lost.ok() ? "" : qPrintable(lost.error->message));
    QCOMPARE(markKindName(lost->kind), QStringLiteral("conflict"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = 'k2'")),
             QStringList{QStringLiteral("0")});
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")), 1);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 1);
}

void TestMarkCas::foundRows_data()
{
    QTest::addColumn<QString>("flag");
    QTest::newRow("CLIENT_FOUND_ROWS on") << QStringLiteral("1");
    QTest::newRow("CLIENT_FOUND_ROWS off") << QStringLiteral("0");
}

void TestMarkCas::foundRows()
{
    QFETCH(QString, flag);
    TestDatabase db(QStringLiteral("mysql"));
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig c;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        c.setProfile(*ConnectionProfile::fromUrl(db.url() + QStringLiteral("?client_found_rows=") + flag, role, nullptr));
    Workspace ws(ticketAbsentConfig(c));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = ExpectedState{0, parseUtcMicros(seen.record->updatedAt), std::nullopt};
    QCOMPARE(markKindName(markRecord(ws, r).result()->kind), QStringLiteral("applied"));
    r.requestId.clear();
    QCOMPARE(markKindName(markRecord(ws, r).result()->kind), QStringLiteral("conflict"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 1);
}

void TestMarkCas::privileges_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

void TestMarkCas::privileges()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace admin(db.config());
        QVERIFY(initSchema(admin, SchemaOptions{}).result().ok());
    }
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const QString user = QStringLiteral("ro_%1").arg(QCoreApplication::applicationPid());
    const bool pg = dialectOf(backend) == QLatin1String("postgresql");
    if (pg) {
        db.adminExec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(user));
        QCOMPARE(db.adminExec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD 'ropw'").arg(user)), QString());
        QCOMPARE(db.adminExec(QStringLiteral("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO %1").arg(user)), QString());
        QCOMPARE(db.adminExec(QStringLiteral("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO %1").arg(user)), QString());
    } else {
        const QString dbName = QUrl(db.url()).path().mid(1);
        db.adminExec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(user));
        QCOMPARE(db.adminExec(QStringLiteral("CREATE USER '%1'@'%' IDENTIFIED BY 'ropw'").arg(user)), QString());
        QCOMPARE(db.adminExec(QStringLiteral("GRANT SELECT, INSERT ON %1.* TO '%2'@'%'").arg(dbName, user)), QString());
    }
    QUrl u(db.url());
    u.setUserName(user);
    WorkspaceConfig c;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        c.setProfile(*ConnectionProfile::fromUrl(u.toString(), role, nullptr));
    qputenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD", "ropw");
    qputenv("TRIAGE_INTENT_DB_PASSWORD", "ropw");
    qputenv("TRIAGE_TICKET_DB_PASSWORD", "ropw");
    {
        Workspace ws(ticketAbsentConfig(c));
        const auto out = markRecord(ws, request(QStringLiteral("k1"), Failed)).result();
        QVERIFY(!out.ok());
        QCOMPARE(int(out.error->kind), int(DbError::Kind::Privilege));
        QVERIFY2(out.error->message.contains(QStringLiteral("lacks the privilege")), qPrintable(out.error->message));
        QVERIFY2(out.error->message.contains(user), qPrintable(out.error->message));
    }
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    qunsetenv("TRIAGE_INTENT_DB_PASSWORD");
    qunsetenv("TRIAGE_TICKET_DB_PASSWORD");
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record")), QStringList{QStringLiteral("0")});
    if (pg) {
        db.adminExec(QStringLiteral("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM %1").arg(user));
        db.adminExec(QStringLiteral("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM %1").arg(user));
        db.adminExec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(user));
    } else {
        db.adminExec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(user));
    }
}

void TestMarkCas::dropBetweenReadAndMark_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

static QString killOthers(const TestDatabase &db)
{
    const QString dbName = QUrl(db.url()).path().mid(1);
    if (db.dialect() == QLatin1String("postgresql"))
        return db.adminExec(QStringLiteral("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%1' "
                                           "AND pid <> pg_backend_pid()")
                                .arg(dbName));
    const QStringList ids = db.adminQueryColumn(
        QStringLiteral("SELECT id FROM information_schema.processlist WHERE db = '%1' AND id <> CONNECTION_ID()").arg(dbName));
    for (const QString &id : ids)
        db.adminExec(QStringLiteral("KILL %1").arg(id));
    return {};
}

void TestMarkCas::dropBetweenReadAndMark()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QSignalSpy events(&ws, &Workspace::connectionEvent);
    QVERIFY(events.isValid());
    QCOMPARE(killOthers(db), QString());
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = expectedStateOf(*seen.record);
    const auto out = markRecord(ws, r).result();
    QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error->message));
    QCOMPARE(markKindName(out->kind), QStringLiteral("applied"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record")), QStringList{QStringLiteral("2")});
    QTRY_VERIFY(events.size() >= 2); // the drop and the re-open were announced
}

void TestMarkCas::dropDuringCommitPostgres()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    // A deferred constraint trigger runs at COMMIT and kills its own backend: the COMMIT's
    // reply never arrives and the transaction is lost.
    QCOMPARE(db.adminExec(QStringLiteral("CREATE FUNCTION die_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                                         "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$")),
             QString());
    QCOMPARE(db.adminExec(QStringLiteral("CREATE CONSTRAINT TRIGGER die AFTER INSERT ON triage_audit DEFERRABLE INITIALLY "
                                         "DEFERRED FOR EACH ROW WHEN (NEW.outcome = 'applied') EXECUTE FUNCTION die_at_commit()")),
             QString());
    const auto out = markRecord(ws, request(QStringLiteral("k1"), Failed)).result();
    QVERIFY(out.ok());
    QCOMPARE(markKindName(out->kind), QStringLiteral("error"));
    QVERIFY2(out->message.startsWith(QStringLiteral("not applied: the COMMIT failed")), qPrintable(out->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record")), QStringList{QStringLiteral("0")});
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 0);
    // Once the fault is gone, a new attempt applies exactly once.
    QCOMPARE(db.adminExec(QStringLiteral("DROP TRIGGER die ON triage_audit")), QString());
    const auto again = markRecord(ws, request(QStringLiteral("k1"), Failed)).result();
    QVERIFY2(again.ok(), again.ok() ? "" : qPrintable(again.error->message));
    QCOMPARE(markKindName(again->kind), QStringLiteral("applied"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 1);
}

void TestMarkCas::dropDuringTransactionMariaDb()
{
    TestDatabase db(QStringLiteral("mysql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    // The audit insert holds the transaction open for 2 s; the connection is killed then.
    QCOMPARE(db.adminExec(QStringLiteral("CREATE TRIGGER slow_audit BEFORE INSERT ON triage_audit FOR EACH ROW "
                                         "SET @slept = SLEEP(2)")),
             QString());
    const QString dbName = QUrl(db.url()).path().mid(1);
    std::atomic<bool> killed{false};
    std::thread killer([&]() {
        // Wait until the mark's connection is inside the audit insert, then kill it once.
        TestDatabase *unused = nullptr;
        Q_UNUSED(unused);
        for (int i = 0; i < 100 && !killed; ++i) {
            QThread::msleep(100);
            const QString name = QStringLiteral("killer");
            {
                QSqlDatabase k = QSqlDatabase::addDatabase(QStringLiteral("QMYSQL"), name);
                const QUrl u(qEnvironmentVariable("TRIAGE_TEST_MYSQL_URL"));
                k.setHostName(u.host());
                k.setPort(u.port(3306));
                k.setUserName(u.userName());
                k.setPassword(qEnvironmentVariable("TRIAGE_TEST_MYSQL_PASSWORD"));
                if (k.open()) {
                    QSqlQuery q(k);
                    q.exec(QStringLiteral("SELECT id FROM information_schema.processlist WHERE db = '%1' AND "
                                          "(state = 'User sleep' OR info LIKE '%triage_audit%')")
                               .arg(dbName));
                    if (q.next()) {
                        QSqlQuery(k).exec(QStringLiteral("KILL %1").arg(q.value(0).toString()));
                        killed = true;
                    }
                }
                k.close();
            }
            QSqlDatabase::removeDatabase(name);
        }
    });
    const auto out = markRecord(ws, request(QStringLiteral("k1"), Failed)).result();
    killer.join();
    QVERIFY(killed);
    QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error->message));
    // Killed before COMMIT: nothing was applied then; the retry on a new connection applied it once.
    QCOMPARE(markKindName(out->kind), QStringLiteral("applied"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record")), QStringList{QStringLiteral("2")});
}

QTEST_GUILESS_MAIN(TestMarkCas)
#include "tst_mark_cas.moc"
