// Read replicas on MariaDB (DESIGN.md §9 "Read replicas", ReplicaRoute.h), on a real GTID
// replica that tests/run-all.sh starts beside the test server (TRIAGE_TEST_MYSQL_REPLICA_URL):
// lists and details read on the replica (a row that only the replica holds shows in them); the
// operator's own mark read back from the primary while the replica is held behind
// (MASTER_DELAY), until MASTER_GTID_WAIT() says it has replayed it; the fall-back to the
// primary while Seconds_Behind_Master is above the limit, and while it is NULL (the SQL
// thread stopped), every read still answered.
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"
#include "ReplicaTestUtil.h"
#include "ServerTime.h"

#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QThread>
#include <QUrl>

using namespace triage;
using namespace triage::test;

namespace {

/// The replica's URL for the test's own database (created on the primary, replicated).
QString replicaUrlOf(const TestDatabase &db)
{
    return replicaUrlFor(db, "TRIAGE_TEST_MYSQL_REPLICA_URL");
}

/// The test's own connection to the replica (setup and checks only). Its destructor always
/// leaves replication running without delay.
class Replica {
public:
    explicit Replica(const TestDatabase &db) : m_db(db), m_name(QStringLiteral("replica-") + db.databaseName())
    {
        QSqlDatabase c = addReplicaConnection(m_name, "QMYSQL", replicaUrlOf(db), "TRIAGE_TEST_MYSQL_PASSWORD");
        if (!c.open()) {
            m_error = c.lastError().text();
            return;
        }
        // The test's database appears on the replica once its CREATE DATABASE is replayed.
        if (!caughtUp())
            m_error = QStringLiteral("the replica did not replay the test database's creation: ") + exec(QStringLiteral("SHOW REPLICA STATUS"));
        else if (const QString use = exec(QStringLiteral("USE `%1`").arg(db.databaseName())); use.startsWith(QLatin1String("error: ")))
            m_error = use;
    }
    ~Replica()
    {
        delay(0);
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    QString error() const { return m_error; }
    QStringList column(const QString &sql) { return replicaColumn(m_name, sql); }
    QString exec(const QString &sql) { return column(sql).value(0); }
    /// Waits (bounded, 30 s) until the replica has replayed everything the primary logged so far.
    bool caughtUp()
    {
        const QString pos = m_db.adminQueryColumn(QStringLiteral("SELECT @@gtid_binlog_pos")).value(0);
        return exec(QStringLiteral("SELECT MASTER_GTID_WAIT('%1', 30)").arg(pos)) == QLatin1String("0");
    }
    /// Replication restarted with its SQL thread applying each event `seconds` after the primary
    /// ran it (MASTER_DELAY); false when a statement failed.
    bool delay(int seconds)
    {
        for (const QString &sql : {QStringLiteral("STOP SLAVE"), QStringLiteral("CHANGE MASTER TO MASTER_DELAY = %1").arg(seconds),
                                   QStringLiteral("START SLAVE")})
            if (exec(sql).startsWith(QLatin1String("error: ")))
                return false;
        return true;
    }

private:
    const TestDatabase &m_db;
    QString m_name;
    QString m_error;
};

} // namespace

class TestReplicaMysql : public QObject {
    Q_OBJECT
private slots:
    void readsOwnWritesAndFallBack();
};

void TestReplicaMysql::readsOwnWritesAndFallBack()
{
    TestDatabase db(QStringLiteral("mysql"));
    TRIAGE_REQUIRE_BACKEND(db);
    if (replicaUrlOf(db).isEmpty()) {
        if (requireAllBackends())
            QFAIL("TRIAGE_TEST_MYSQL_REPLICA_URL is not set (tests/run-all.sh starts the replica)");
        QSKIP("TRIAGE_TEST_MYSQL_REPLICA_URL is not set (run the tests through tests/run-all.sh)");
    }
    Replica replica(db);
    QVERIFY2(replica.error().isEmpty(), qPrintable(replica.error()));
    // A limit no delay here reaches: the replica stays in use for everything but the own write.
    Workspace ws(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 3600));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:mine"), Processing, 3600));
    TRIAGE_OK(insertRecord(db, QStringLiteral("w:other"), Processing, 3600));
    QVERIFY(replica.caughtUp());
    // A row only the replica holds (an id the primary never reaches): whatever shows it was read there.
    QCOMPARE(replica.exec(QStringLiteral("INSERT INTO idempotency_record (id, idem_key, biz_type, status, created_at, updated_at, "
                                         "expire_at) VALUES (2000000001, 'w:replica-only', 'ticket_create', 0, %1, %1, %2)")
                              .arg(serverNowMinus(QStringLiteral("mysql"), 3600), serverNowMinus(QStringLiteral("mysql"), -86400))),
             QString());

    // Lists and details: on the replica.
    const QStringList all{QStringLiteral("w:mine"), QStringLiteral("w:other"), QStringLiteral("w:replica-only")};
    QCOMPARE(pageKeys(ws), all);
    QCOMPARE(statusOf(ws, QStringLiteral("w:replica-only")), QString::number(Processing));
    const ReplicaStatus usable = ws.reader(DbRole::Idempotency).status();
    QCOMPARE(int(usable.state), int(ReplicaStatus::State::Usable));
    QVERIFY2(QRegularExpression(QStringLiteral("^replica lag \\d+\\.0 s$")).match(usable.text()).hasMatch(), qPrintable(usable.text()));

    // The replica held an hour behind: the own mark reads back from the primary (MASTER_GTID_WAIT
    // says not yet replayed); another change made behind the console's back is not seen.
    QVERIFY(replica.delay(3600));
    const Outcome<MarkResult> marked = markRecord(ws, request(QStringLiteral("w:mine"), Failed)).result();
    QVERIFY2(marked.ok() && marked->kind == MarkResult::Kind::Applied, qPrintable(marked.ok() ? marked->message : marked.error->message));
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = 'w:other'")));
    QCOMPARE(replica.column(QStringLiteral("SELECT status FROM idempotency_record WHERE id < 2000000001 ORDER BY idem_key")),
             (QStringList{QStringLiteral("0"), QStringLiteral("0")}));
    QCOMPARE(statusOf(ws, QStringLiteral("w:mine")), QString::number(Failed));
    QCOMPARE(statusOf(ws, QStringLiteral("w:other")), QString::number(Processing));
    QCOMPARE(pageKeys(ws), all); // the list still from the replica (it has not replayed the mark)

    // Seconds_Behind_Master above a 1 s limit: reads go to the primary, which lacks the
    // replica's own row and has both changes.
    Workspace strict(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 1));
    const ReplicaStatus lagging = waitState(strict, ReplicaStatus::State::Lagging);
    QVERIFY2(QRegularExpression(QStringLiteral("^reading from the primary: replica lag \\d+\\.0 s is above the 1\\.0 s limit$"))
                 .match(lagging.text())
                 .hasMatch(),
             qPrintable(lagging.text()));
    QCOMPARE(pageKeys(strict), QStringList());
    QCOMPARE(statusOf(strict, QStringLiteral("w:other")), QString::number(Success));

    // The SQL thread stopped: Seconds_Behind_Master is NULL, the lag unknown: the primary.
    QCOMPARE(replica.exec(QStringLiteral("STOP SLAVE SQL_THREAD")), QString());
    Workspace stopped(withReplica(ticketAbsentConfig(db.config()), replicaUrlOf(db), 3600));
    const ReplicaStatus unknown = waitState(stopped, ReplicaStatus::State::Unknown);
    QCOMPARE(unknown.text(),
             QStringLiteral("reading from the primary: replica lag unknown (Seconds_Behind_Master is NULL: replication is not running)"));
    QCOMPARE(statusOf(stopped, QStringLiteral("w:replica-only")), QStringLiteral("none"));

    // Replication resumed without delay and caught up: the replica serves the marked key again.
    QVERIFY(replica.delay(0));
    QVERIFY(replica.caughtUp());
    QCOMPARE(int(waitState(ws, ReplicaStatus::State::Usable).state), int(ReplicaStatus::State::Usable));
    QCOMPARE(replica.exec(QStringLiteral("UPDATE idempotency_record SET result_snapshot = 'replica' WHERE idem_key = 'w:mine'")), QString());
    const KeyDetail mine = loadKeyDetail(ws, QStringLiteral("w:mine")).result();
    QVERIFY(mine.record);
    QCOMPARE(mine.record->resultSnapshot, std::optional<QString>(QStringLiteral("replica")));
    QCOMPARE(statusOf(ws, QStringLiteral("w:other")), QString::number(Success));
}

QTEST_GUILESS_MAIN(TestReplicaMysql)
#include "tst_replica_mysql.moc"
