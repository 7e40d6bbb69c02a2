// Read replicas (DESIGN.md §9 "Read replicas", ReplicaRoute.h) on a real PostgreSQL streaming
// standby that tests/run-all.sh starts (pg_basebackup -R, TRIAGE_TEST_PG_REPLICA_URL): which
// statement ran where, read on both servers' own pg_stat_statements; the fall-back to the
// primary while the lag is above the limit (replay paused with pg_wal_replay_pause()); the
// operator's own write read back from the primary until the standby has replayed it; and the
// lag that cannot be known (not a standby, a MariaDB server that is not a replica, a replica
// that is down), where every read still succeeds on the primary.
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"
#include "ReplicaTestUtil.h"

#include "CtlRun.h"
#include "EscalationService.h"
#include "KeyDetail.h"
#include "StoreProbe.h"
#include "Mark.h"
#include "Queue.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>

using namespace triage;
using namespace triage::test;

namespace {

/// The standby's URL for the test's own database (created on the primary, replicated).
QString replicaUrlOf(const TestDatabase &db)
{
    return replicaUrlFor(db, "TRIAGE_TEST_PG_REPLICA_URL");
}

/// A connection of the test's own to the standby (test setup and checks only).
class Standby {
public:
    explicit Standby(const TestDatabase &db) : m_name(QStringLiteral("standby-") + db.databaseName())
    {
        QSqlDatabase c = addReplicaConnection(m_name, "QPSQL", replicaUrlOf(db), "TRIAGE_TEST_PG_PASSWORD");
        c.setDatabaseName(db.databaseName());
        // The database appears on the standby once its CREATE DATABASE is replayed.
        QElapsedTimer t;
        t.start();
        while (!c.open() && t.elapsed() < 30000)
            QThread::msleep(100);
        m_error = c.isOpen() ? QString() : c.lastError().text();
    }
    ~Standby()
    {
        exec(QStringLiteral("SELECT pg_wal_replay_resume()")); // never leave the standby paused
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    QString error() const { return m_error; }
    QStringList column(const QString &sql) { return replicaColumn(m_name, sql); }
    QString exec(const QString &sql) { return column(sql).value(0); }
    /// Resumes (`on`) or pauses WAL replay; false when the statement failed. A pause is only
    /// requested by pg_wal_replay_pause(): this waits (bounded, 10 s) until replay has stopped.
    bool replay(bool on)
    {
        if (exec(on ? QStringLiteral("SELECT pg_wal_replay_resume()") : QStringLiteral("SELECT pg_wal_replay_pause()"))
                .startsWith(QLatin1String("error: ")))
            return false;
        QElapsedTimer t;
        t.start();
        while (!on && t.elapsed() < 10000) {
            if (exec(QStringLiteral("SELECT pg_get_wal_replay_pause_state()")) == QLatin1String("paused"))
                return true;
            QThread::msleep(20);
        }
        return on;
    }

private:
    QString m_name;
    QString m_error;
};

/// Waits (bounded, 30 s) until the standby has replayed everything the primary wrote so far.
bool waitReplayed(const TestDatabase &db, Standby &standby)
{
    const QString lsn = db.adminQueryColumn(QStringLiteral("SELECT pg_current_wal_insert_lsn()::text")).value(0);
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30000) {
        if (standby.exec(QStringLiteral("SELECT pg_last_wal_replay_lsn() >= '%1'::pg_lsn").arg(lsn)) == QLatin1String("true"))
            return true;
        QThread::msleep(50);
    }
    return false;
}

/// How many statements that name `table` a server ran since the last reset (its own
/// pg_stat_statements, this database only), as "<n> select, <n> update".
QString statementsOn(const QStringList &queries, const QString &table)
{
    int selects = 0, updates = 0;
    for (const QString &q : queries) {
        if (!q.contains(table) || q.contains(QLatin1String("pg_stat_statements")))
            continue;
        if (q.trimmed().startsWith(QLatin1String("UPDATE"), Qt::CaseInsensitive))
            ++updates;
        else if (q.contains(QLatin1String("SELECT"), Qt::CaseInsensitive))
            ++selects;
    }
    return QStringLiteral("%1 select, %2 update").arg(selects).arg(updates);
}

const QString kStats = QStringLiteral("SELECT query FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE "
                                      "datname = current_database()) AND calls > 0");

} // namespace

class TestReplica : public QObject {
    Q_OBJECT
private slots:
    void routingOnServerStatistics();
    void lagAboveLimitReadsPrimary();
    void ownWriteReadFromPrimaryUntilReplayed();
    void ownClaimReadFromPrimaryUntilReplayed();
    void unknownLag_data();
    void unknownLag();
    void triagectlKeyReadsOnPrimaryAndSaysWhy();
    void replicaOnTheCommandLine();
};

#define REQUIRE_STANDBY(db, standby)                                                                     \
    TRIAGE_REQUIRE_BACKEND(db);                                                                          \
    if (replicaUrlOf(db).isEmpty()) {                                                                    \
        if (requireAllBackends())                                                                        \
            QFAIL("TRIAGE_TEST_PG_REPLICA_URL is not set (tests/run-all.sh starts the standby)");        \
        QSKIP("TRIAGE_TEST_PG_REPLICA_URL is not set (run the tests through tests/run-all.sh)");         \
    }                                                                                                    \
    Standby standby(db);                                                                                 \
    QVERIFY2(standby.error().isEmpty(), qPrintable(standby.error()))

void TestReplica::routingOnServerStatistics()
{
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    TRIAGE_OK(db.adminExec(QStringLiteral("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")));
    Workspace ws(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 3600));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("r:1"), Processing, 3600));
    TRIAGE_OK(insertRecord(db, QStringLiteral("r:2"), Processing, 3600));
    QVERIFY(waitReplayed(db, standby));
    TRIAGE_OK(db.adminExec(QStringLiteral("SELECT pg_stat_statements_reset()")));
    standby.exec(QStringLiteral("SELECT pg_stat_statements_reset()"));

    // Lists, counts and details: the standby runs them, the primary none.
    QCOMPARE(pageKeys(ws), (QStringList{QStringLiteral("r:1"), QStringLiteral("r:2")}));
    const Outcome<qint64> count = countQueue(ws, staleQueue()).result();
    QVERIFY(count.ok());
    QCOMPARE(*count, qint64(2));
    QCOMPARE(statusOf(ws, QStringLiteral("r:2")), QString::number(Processing));
    // The Unknown queue's page and count read records and intent steps (whose statements name
    // idempotency_record too), the detail its record: five.
    QCOMPARE(statementsOn(standby.column(kStats), QStringLiteral("idempotency_record")), QStringLiteral("5 select, 0 update"));
    QCOMPARE(statementsOn(standby.column(kStats), QStringLiteral("FROM ticket")), QStringLiteral("1 select, 0 update"));
    QCOMPARE(statementsOn(db.adminQueryColumn(kStats), QStringLiteral("idempotency_record")), QStringLiteral("0 select, 0 update"));
    const ReplicaStatus st = ws.reader(DbRole::Idempotency).status();
    QCOMPARE(int(st.state), int(ReplicaStatus::State::Usable));
    QVERIFY2(QRegularExpression(QStringLiteral("^replica lag \\d+\\.\\d s$")).match(st.text()).hasMatch(), qPrintable(st.text()));
    // The Connect dialog's "Test replica" on the standby: readable, and its lag.
    const StoreProbeResult probed = probeReplica(ws.config().replicas.value(int(DbRole::Idempotency)), SchemaMap::defaults()).result();
    QVERIFY2(probed.ok, qPrintable(probed.message));
    QVERIFY2(QRegularExpression(QStringLiteral("^connected as triage to 127\\.0\\.0\\.1:\\d+/%1; table idempotency_record readable; "
                                               "replica lag \\d+\\.\\d s$").arg(db.databaseName()))
                 .match(probed.message)
                 .hasMatch(),
             qPrintable(probed.message));

    // A mark: its compare-and-set, its record read and its FAILED evidence (no ticket) on the
    // primary; the standby runs none of them.
    TRIAGE_OK(db.adminExec(QStringLiteral("SELECT pg_stat_statements_reset()")));
    standby.exec(QStringLiteral("SELECT pg_stat_statements_reset()"));
    const Outcome<MarkResult> marked = markRecord(ws, request(QStringLiteral("r:1"), Failed)).result();
    QVERIFY2(marked.ok() && marked->kind == MarkResult::Kind::Applied, qPrintable(marked.ok() ? marked->message : marked.error->message));
    const QStringList primary = db.adminQueryColumn(kStats);
    QCOMPARE(statementsOn(primary, QStringLiteral("idempotency_record")).section(QLatin1Char(','), 1), QStringLiteral(" 1 update"));
    QVERIFY(statementsOn(primary, QStringLiteral("FROM ticket")) != QStringLiteral("0 select, 0 update"));
    QCOMPARE(statementsOn(standby.column(kStats), QStringLiteral("idempotency_record")), QStringLiteral("0 select, 0 update"));
    QCOMPARE(statementsOn(standby.column(kStats), QStringLiteral("ticket")), QStringLiteral("0 select, 0 update"));
}

void TestReplica::lagAboveLimitReadsPrimary()
{
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    Workspace ws(withReplica(db.config(), replicaUrlOf(db), 1));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("l:old"), Processing, 3600));
    QVERIFY(waitReplayed(db, standby));
    QCOMPARE(pageKeys(ws), QStringList{QStringLiteral("l:old")});
    QCOMPARE(int(ws.reader(DbRole::Idempotency).status().state), int(ReplicaStatus::State::Usable));

    QVERIFY(standby.replay(false));
    TRIAGE_OK(insertRecord(db, QStringLiteral("l:new"), Processing, 3600));
    const ReplicaStatus lagging = waitState(ws, ReplicaStatus::State::Lagging);
    QCOMPARE(int(lagging.state), int(ReplicaStatus::State::Lagging));
    QVERIFY2(QRegularExpression(QStringLiteral("^reading from the primary: replica lag \\d+\\.\\d s is above the 1\\.0 s limit "
                                               "\\(WAL replay is paused\\)$"))
                 .match(lagging.text())
                 .hasMatch(),
             qPrintable(lagging.text()));
    // The standby has not got the new row; the list has it: it came from the primary.
    QCOMPARE(standby.column(QStringLiteral("SELECT idem_key FROM idempotency_record ORDER BY idem_key")), QStringList{QStringLiteral("l:old")});
    QCOMPARE(pageKeys(ws), (QStringList{QStringLiteral("l:new"), QStringLiteral("l:old")}));

    QVERIFY(standby.replay(true));
    QVERIFY(waitReplayed(db, standby));
    QCOMPARE(int(waitState(ws, ReplicaStatus::State::Usable).state), int(ReplicaStatus::State::Usable));
    QCOMPARE(pageKeys(ws), (QStringList{QStringLiteral("l:new"), QStringLiteral("l:old")}));
}

void TestReplica::ownWriteReadFromPrimaryUntilReplayed()
{
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    // A limit no pause reaches here: the standby stays in use for everything but the own write.
    Workspace ws(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 3600));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:mine"), Processing, 3600));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:other"), Processing, 3600));
    QVERIFY(waitReplayed(db, standby));
    QCOMPARE(statusOf(ws, QStringLiteral("w:mine")), QString::number(Processing));

    QVERIFY(standby.replay(false));
    const Outcome<MarkResult> marked = markRecord(ws, request(QStringLiteral("w:mine"), Failed)).result();
    QVERIFY2(marked.ok() && marked->kind == MarkResult::Kind::Applied, qPrintable(marked.ok() ? marked->message : marked.error->message));
    // Another change the standby has not replayed, made behind the console's back.
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = 'w:other'")));
    QCOMPARE(standby.column(QStringLiteral("SELECT status FROM idempotency_record ORDER BY idem_key")),
             (QStringList{QStringLiteral("0"), QStringLiteral("0")}));

    // The own write reads back from the primary; the other key and the list still from the standby.
    QCOMPARE(statusOf(ws, QStringLiteral("w:mine")), QString::number(Failed));
    QCOMPARE(statusOf(ws, QStringLiteral("w:other")), QString::number(Processing));
    QCOMPARE(pageKeys(ws), (QStringList{QStringLiteral("w:mine"), QStringLiteral("w:other")}));

    // Replayed: the key goes back to the standby (pause again and change it on the primary only:
    // the detail shows the standby's value).
    QVERIFY(standby.replay(true));
    QVERIFY(waitReplayed(db, standby));
    QCOMPARE(statusOf(ws, QStringLiteral("w:mine")), QString::number(Failed));
    QVERIFY(standby.replay(false));
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 0 WHERE idem_key = 'w:mine'")));
    QCOMPARE(statusOf(ws, QStringLiteral("w:mine")), QString::number(Failed));
}

void TestReplica::ownClaimReadFromPrimaryUntilReplayed()
{
    // Read-your-writes is not only for marks: a key claim (its audit row), and so a proposal's
    // rejection and a compensation (the same afterOwnWrite()), keep the key on the primary.
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    Workspace ws(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 3600));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:claimed"), Processing, 3600));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:other"), Processing, 3600));
    QVERIFY(waitReplayed(db, standby));
    const auto auditOf = [&](const QString &key) {
        const KeyDetail d = loadKeyDetail(ws, key).result();
        QStringList out;
        for (const QString &e : d.errors.isEmpty() ? QStringList{} : QStringList{d.errors.first().message})
            out << QStringLiteral("error: ") + e;
        for (const AuditEntry &a : d.audit)
            out << a.action + QLatin1Char(' ') + a.operatorName;
        return out;
    };
    QCOMPARE(auditOf(QStringLiteral("w:claimed")), QStringList());

    QVERIFY(standby.replay(false));
    const auto mine = takeClaim(ws, ClaimScope::Key, QStringLiteral("w:claimed"), 600, QString(), QStringLiteral("alice")).result();
    QVERIFY2(mine.ok() && mine->kind == ClaimResult::Kind::Taken, mine.ok() ? qPrintable(mine->message) : qPrintable(mine.error->message));
    // Another console's claim (its own workspace, no replica): this one reads it from the standby.
    Workspace other(ticketAbsentConfig(db.config()));
    const auto theirs = takeClaim(other, ClaimScope::Key, QStringLiteral("w:other"), 600, QString(), QStringLiteral("bob")).result();
    QVERIFY2(theirs.ok() && theirs->kind == ClaimResult::Kind::Taken, theirs.ok() ? qPrintable(theirs->message) : qPrintable(theirs.error->message));
    QCOMPARE(standby.column(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("0")});
    QCOMPARE(auditOf(QStringLiteral("w:claimed")), QStringList{QStringLiteral("claim.take alice")});
    QCOMPARE(auditOf(QStringLiteral("w:other")), QStringList());

    QVERIFY(standby.replay(true));
    QVERIFY(waitReplayed(db, standby));
    QCOMPARE(auditOf(QStringLiteral("w:other")), QStringList{QStringLiteral("claim.take bob")});
}

void TestReplica::unknownLag_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("replica"); // "self": the primary's own URL; "down": a closed port
    QTest::addColumn<QString>("why");
    QTest::newRow("postgresql-not-a-standby") << QStringLiteral("postgresql") << QStringLiteral("self")
                                              << QStringLiteral("not a standby: pg_is_in_recovery() is false");
    QTest::newRow("mysql-not-a-replica") << QStringLiteral("mysql") << QStringLiteral("self")
                                         << QStringLiteral("not a replica: SHOW REPLICA STATUS is empty");
    QTest::newRow("postgresql-down") << QStringLiteral("postgresql") << QStringLiteral("down") << QString();
}

void TestReplica::unknownLag()
{
    QFETCH(QString, backend);
    QFETCH(QString, replica);
    QFETCH(QString, why);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QString url = db.url();
    if (replica == QLatin1String("down")) {
        QTcpServer probe; // a loopback port nobody listens on once the probe is closed
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        QUrl u(url);
        u.setPort(probe.serverPort());
        probe.close();
        url = u.toString();
    }
    Workspace ws(withReplica(db.config(), url, 5));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("u:1"), Processing, 3600));
    // Every read still succeeds: on the primary.
    QCOMPARE(pageKeys(ws), QStringList{QStringLiteral("u:1")});
    QCOMPARE(statusOf(ws, QStringLiteral("u:1")), QString::number(Processing));
    const ReplicaStatus st = ws.reader(DbRole::Idempotency).status();
    QCOMPARE(int(st.state), int(ReplicaStatus::State::Unknown));
    if (!why.isEmpty()) {
        QCOMPARE(st.why, why);
        QCOMPARE(st.text(), QStringLiteral("reading from the primary: replica lag unknown (%1)").arg(why));
        // "Test replica" refuses it the same way.
        const StoreProbeResult probed = probeReplica(ws.config().replicas.value(int(DbRole::Idempotency)), SchemaMap::defaults()).result();
        QVERIFY(!probed.ok);
        QVERIFY2(probed.message.endsWith(QStringLiteral("; table idempotency_record readable; not usable as a read replica: ") + why),
                 qPrintable(probed.message));
    } else {
        QVERIFY2(st.text().startsWith(QStringLiteral("reading from the primary: replica lag unknown (")), qPrintable(st.text()));
        QVERIFY2(st.why.contains(QStringLiteral("127.0.0.1")) || st.why.contains(QStringLiteral("connect")), qPrintable(st.why));
    }
}

void TestReplica::triagectlKeyReadsOnPrimaryAndSaysWhy()
{
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    TRIAGE_OK(insertRecord(db, QStringLiteral("c:1"), Processing, 3600));
    QVERIFY(waitReplayed(db, standby));
    QTemporaryDir dir;
    QFile ini(dir.filePath(QStringLiteral("replica.ini")));
    QVERIFY(ini.open(QIODevice::WriteOnly));
    QByteArray text = "[console]\nreplica_max_lag=1\n";
    for (const char *store : {"idempotency", "intent", "ticket"})
        text += QStringLiteral("[%1]\nurl=%2\nreplica_url=%3\n").arg(QLatin1String(store), db.url(), replicaUrlOf(db)).toUtf8();
    text += "[biz.ticket_create]\nfailed_evidence=ticket_absent\n";
    ini.write(text);
    ini.close();
    const QStringList config{QStringLiteral("--config"), ini.fileName()};

    QVERIFY(standby.replay(false));
    RUN_EXIT(marked, 0, config + QStringList{QStringLiteral("mark"), QStringLiteral("c:1"), QStringLiteral("--to"), QStringLiteral("failed"),
                                             QStringLiteral("--reason"), QStringLiteral("verified in upstream console")});
    // A second process shows the mark: one key's reads go to the primary in triagectl.
    RUN_EXIT(shown, 0, config + QStringList{QStringLiteral("show"), QStringLiteral("c:1"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(shown.out.contains("\"FAILED\""), shown.describe().constData());
    QCOMPARE(standby.column(QStringLiteral("SELECT status FROM idempotency_record")), QStringList{QStringLiteral("0")});
    // A list while the standby is more than 1 s behind: from the primary, and said.
    QThread::msleep(1500); // replay is paused: the lag only grows
    RUN_EXIT(listed, 0, config + QStringList{QStringLiteral("list"), QStringLiteral("unknown")});
    QVERIFY2(!listed.out.contains("c:1"), listed.describe().constData());
    const QRegularExpression note(QStringLiteral("^triagectl: note: idempotency store: reading from the primary: replica lag \\d+\\.\\d s "
                                                 "is above the 1\\.0 s limit \\(WAL replay is paused\\)$"),
                                  QRegularExpression::MultilineOption);
    QVERIFY2(note.match(QString::fromUtf8(listed.err)).hasMatch(), listed.describe().constData());
    QVERIFY(standby.replay(true));
}

void TestReplica::replicaOnTheCommandLine()
{
    // --replica STORE=URL names a read replica as replica_url does, with the same checks.
    TestDatabase db(QStringLiteral("postgresql"));
    REQUIRE_STANDBY(db, standby);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    QVERIFY(waitReplayed(db, standby));
    const QStringList urls{QStringLiteral("--idempotency-db"), db.url(), QStringLiteral("--intent-db"), db.url(), QStringLiteral("--ticket-db"),
                           db.url()};
    RUN_EXIT(doctor, 0, urls + QStringList{QStringLiteral("--replica"), QStringLiteral("idempotency=") + replicaUrlOf(db),
                                           QStringLiteral("doctor"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray replicas = QJsonDocument::fromJson(doctor.out).object().value(QStringLiteral("replicas")).toArray();
    QCOMPARE(replicas.size(), 1);
    QCOMPARE(replicas[0].toObject().value(QStringLiteral("store")).toString(), QStringLiteral("idempotency"));
    QCOMPARE(replicas[0].toObject().value(QStringLiteral("serves_reads")).toBool(), true);

    const QByteArray usage("triagectl: run \"triagectl --help\" for usage\n");
    RUN_EXIT(sqlite, 1, urls + QStringList{QStringLiteral("--replica"), QStringLiteral("ticket=sqlite:///tmp/replica.db"), QStringLiteral("doctor")});
    QCOMPARE(sqlite.err, "triagectl: --replica ticket=…: SQLite has no replicas; give a PostgreSQL or MariaDB URL\n" + usage);
    QUrl other(replicaUrlOf(db));
    other.setPath(QStringLiteral("/another_db"));
    RUN_EXIT(renamed, 1, urls + QStringList{QStringLiteral("--replica"), QStringLiteral("intent=") + other.toString(), QStringLiteral("doctor")});
    QCOMPARE(renamed.err, QStringLiteral("triagectl: --replica intent=…: names database \"another_db\", url names \"%1\": a PostgreSQL "
                                         "standby has the primary's databases under the same names\n")
                                  .arg(QUrl(db.url()).path().mid(1))
                                  .toUtf8()
                              + usage);
    RUN_EXIT(nostore, 1, urls + QStringList{QStringLiteral("--replica"), replicaUrlOf(db), QStringLiteral("doctor")});
    QVERIFY2(nostore.err.startsWith("triagectl: --replica postgresql://"), nostore.err.constData());
    QVERIFY2(nostore.err.contains(": give STORE=URL, STORE being idempotency, intent or ticket\n"), nostore.err.constData());
}

QTEST_GUILESS_MAIN(TestReplica)
#include "tst_replica.moc"
