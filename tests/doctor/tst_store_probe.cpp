// "Test" a store (File → Connect…, DESIGN.md §5 "Connection profiles"): probeStore() on the
// real test servers — a good store on every backend, a wrong port on 127.0.0.1, a wrong typed
// password, a missing table, a missing privilege — with exact messages; needsTypedPassword().
#include "BackendTestUtil.h"
#include "StoreProbe.h"
#include "TestDatabases.h"
#include "Workspace.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace triage;
using namespace triage::test;

namespace {

StoreProbeResult probe(const ConnectionProfile &p, const SchemaMap &map = SchemaMap::defaults(), const QString &typed = {})
{
    return await(probeStore(p, map, typed));
}

ConnectionProfile withPort(ConnectionProfile p, int port)
{
    p.port = port;
    return p;
}

/// Restores an environment variable when it goes out of scope.
struct EnvGuard {
    QByteArray name, value;
    bool had;
    explicit EnvGuard(const char *n) : name(n), value(qgetenv(n)), had(qEnvironmentVariableIsSet(n)) {}
    ~EnvGuard()
    {
        if (had)
            qputenv(name.constData(), value);
        else
            qunsetenv(name.constData());
    }
};

} // namespace

class TstStoreProbe : public QObject {
    Q_OBJECT
private slots:
    void goodStore_data();
    void goodStore();
    void wrongPort_data();
    void wrongPort();
    void wrongPassword_data();
    void wrongPassword();
    void typedPasswordLogsIn();
    void missingTable_data();
    void missingTable();
    void missingPrivilege();
    void passwordPrompt();
};

void TstStoreProbe::goodStore_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TstStoreProbe::goodStore()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        QCOMPARE(setUpSchema(ws), QString());
    }
    const ConnectionProfile p = profileOf(db);
    const StoreProbeResult r = probe(p);
    const QString where = backend == QLatin1String("sqlite")
        ? QStringLiteral("opened %1").arg(p.database)
        : QStringLiteral("connected as triage to 127.0.0.1:%1/%2").arg(p.port).arg(db.databaseName());
    QCOMPARE(r.message, QStringLiteral("%1; table idempotency_record readable").arg(where));
    QVERIFY(r.ok);
}

void TstStoreProbe::wrongPort_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

void TstStoreProbe::wrongPort()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    // Port 1 on the loopback address: nothing listens there.
    const ConnectionProfile p = withPort(profileOf(db), 1);
    const StoreProbeResult r = probe(p);
    QVERIFY(!r.ok);
    const QString prefix = QStringLiteral("cannot connect to the idempotency database (%1): ").arg(p.displayUrl());
    QCOMPARE(r.message,
             prefix
                 + (backend == QLatin1String("mysql")
                        ? QStringLiteral("QMYSQL: Unable to connect: Can't connect to server on '127.0.0.1' (115)")
                        : QStringLiteral("QPSQL: Unable to connect: connection to server at \"127.0.0.1\", port 1 failed: Connection "
                                         "refused. Is the server running on that host and accepting TCP/IP connections?")));
}

void TstStoreProbe::wrongPassword_data()
{
    wrongPort_data();
}

void TstStoreProbe::wrongPassword()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const ConnectionProfile p = profileOf(db);
    const StoreProbeResult r = probe(p, SchemaMap::defaults(), QStringLiteral("not-the-password-%1").arg(backend));
    QVERIFY(!r.ok);
    const QString prefix = QStringLiteral("cannot connect to the idempotency database (%1): ").arg(p.displayUrl());
    const QString server = backend == QLatin1String("mysql")
        ? QStringLiteral("QMYSQL: Unable to connect: Access denied for user 'triage'@'127.0.0.1' (using password: YES)")
        : QStringLiteral("QPSQL: Unable to connect: connection to server at \"127.0.0.1\", port %1 failed: FATAL: password "
                         "authentication failed for user \"triage\"").arg(p.port);
    QCOMPARE(r.message, prefix + server
                 + QStringLiteral("; the login as user \"triage\" on 127.0.0.1:%1 with the password from the password typed in the "
                                  "Connect dialog was refused by the server; this process does not try this credential again, so "
                                  "as not to lock the account: fix the user or password, then restart").arg(p.port));
}

void TstStoreProbe::typedPasswordLogsIn()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        QCOMPARE(setUpSchema(ws), QString());
    }
    const EnvGuard common("TRIAGE_DB_PASSWORD");
    qunsetenv("TRIAGE_DB_PASSWORD");
    const StoreProbeResult r = probe(profileOf(db), SchemaMap::defaults(), qEnvironmentVariable("TRIAGE_TEST_PG_PASSWORD"));
    QVERIFY2(r.ok, qPrintable(r.message));
}

void TstStoreProbe::missingTable_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TstStoreProbe::missingTable()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    SchemaMap map = SchemaMap::defaults();
    map.records.table = QStringLiteral("no_such_table");
    const StoreProbeResult r = probe(profileOf(db), map);
    QVERIFY(!r.ok);
    const QString expected = backend == QLatin1String("postgresql")
        ? QStringLiteral("idempotency database failed while running a statement: ERROR: relation \"no_such_table\" does not exist "
                         "LINE 1: SET LOCAL TIME ZONE 'UTC'; SELECT id FROM no_such_table WHER... ^ (42P01)")
        : backend == QLatin1String("mysql")
        ? QStringLiteral("idempotency database failed while preparing a statement: Table '%1.no_such_table' doesn't exist").arg(db.databaseName())
        : QStringLiteral("idempotency database failed while preparing a statement: no such table: no_such_table");
    QCOMPARE(r.message, expected);
}

void TstStoreProbe::missingPrivilege()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        QCOMPARE(setUpSchema(ws), QString());
    }
    const QString role = QStringLiteral("probe_nopriv_%1").arg(QCoreApplication::applicationPid());
    const QString password = QStringLiteral("probe-pw-%1").arg(QCoreApplication::applicationPid());
    db.adminExec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(role));
    TRIAGE_ADMIN(db, QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(role, password));
    ConnectionProfile p = profileOf(db);
    p.user = role;
    const StoreProbeResult r = probe(p, SchemaMap::defaults(), password);
    db.adminExec(QStringLiteral("DROP OWNED BY %1").arg(role));
    db.adminExec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(role));
    QVERIFY(!r.ok);
    QCOMPARE(r.message, QStringLiteral("permission denied on the idempotency database while running a statement: the database user "
                                       "\"%1\" lacks the privilege (ERROR: permission denied for table idempotency_record (42501))")
                            .arg(role));
}

void TstStoreProbe::passwordPrompt()
{
    TestDatabase pg(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(pg);
    const EnvGuard common("TRIAGE_DB_PASSWORD"), specific("TRIAGE_IDEMPOTENCY_DB_PASSWORD"), pgpass("PGPASSFILE");
    qunsetenv("TRIAGE_DB_PASSWORD");
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    qputenv("PGPASSFILE", "/nonexistent/pgpass");
    const ConnectionProfile p = profileOf(pg);
    QCOMPARE(await(passwordPromptsNeeded({p})), QList<bool>{true});
    qputenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD", "x");
    QCOMPARE(await(passwordPromptsNeeded({p})), QList<bool>{false});
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    QString error;
    const auto sqlite = ConnectionProfile::fromUrl(QStringLiteral("sqlite:///tmp/x.db"), DbRole::Ticket, &error);
    const auto optionFile = ConnectionProfile::fromUrl(QStringLiteral("mysql://u@127.0.0.1:53306/d?option_file=/tmp/my.cnf"), DbRole::Intent, &error);
    QCOMPARE(await(passwordPromptsNeeded({*sqlite, *optionFile, p})), (QList<bool>{false, false, true}));
    QCOMPARE(await(passwordNeeds({*sqlite, *optionFile, p})),
             (QList<PasswordNeed>{PasswordNeed::NoLogin, PasswordNeed::Supplied, PasswordNeed::Needed}));
    const QTemporaryDir home;
    QFile pgpassFile(home.filePath(QStringLiteral("pgpass")));
    QVERIFY(pgpassFile.open(QIODevice::WriteOnly));
    pgpassFile.close();
    qputenv("PGPASSFILE", pgpassFile.fileName().toUtf8());
    QCOMPARE(await(passwordNeeds({p})), QList<PasswordNeed>{PasswordNeed::Supplied}); // libpq's password file may hold it
}

QTEST_MAIN(TstStoreProbe)
#include "tst_store_probe.moc"
