// PostgreSQL push (DESIGN.md §9 "Push"): `notify install | status | uninstall` on a real
// server (triggers in the catalog, audit rows, the function dropped with the last trigger);
// a change committed by another connection reaching an open queue that does not poll; the
// listener's backend killed in a bounded loop under concurrent writes — every loss detected
// within two heartbeats, resynced, and the queue at the end exactly the table's, no row twice;
// through PgBouncer push refused and polling said, and a direct listen_url working; MariaDB
// and SQLite polled only.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ModelTestUtil.h"

#include "PushFeed.h"
#include "PushTriggers.h"
#include "Queue.h"
#include "QueueModel.h"
#include "EscalationService.h"
#include "Workspace.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <atomic>
#include <thread>

using namespace triage;
using namespace triage::test;

namespace {

/// A FAILED record inserted by the admin connection (another session than the console's).
QString insertFailed(const TestDatabase &db, const QString &key)
{
    return db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                                       "VALUES ('%1', 'ticket_create', 2, now(), now(), now() + interval '7 days')")
                            .arg(key));
}

/// The keys of the rows the model holds that have not left the queue, in order.
QStringList heldKeys(const QueueModel &m)
{
    QStringList out;
    for (int i = 0; i < m.rowCount(); ++i)
        if (m.index(i, 0).data(roles::LiveChange).toInt() != 2)
            out << m.queueRow(i).idemKey;
    return out;
}

/// The model and the feed wired as MainWindow wires them (hints and resyncs poll).
void wire(PushFeed &feed, QueueModel &model)
{
    QObject::connect(&feed, &PushFeed::changed, &model, [&model](const QSet<int> &) { model.requestPoll(); });
    QObject::connect(&feed, &PushFeed::resynced, &model, [&model](const QSet<int> &) { model.requestPoll(); });
}

/// The console's notify triggers on the mapped tables of `db`, as the catalog lists them.
QStringList triggerTables(const TestDatabase &db)
{
    return db.adminQueryColumn(QStringLiteral("SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                                              "WHERE t.tgname = 'triage_console_notify' ORDER BY 1"));
}

/// The console's schema in the workspace's database, then the push triggers; the first error's
/// text, empty when both succeeded (both are idempotent: a second call only repeats them).
QString setUpWithTriggers(Workspace &ws)
{
    if (const QString error = initSchema(ws); !error.isEmpty())
        return error;
    const auto installed = changePushTriggers(ws, true, QStringLiteral("push test setup")).result();
    return installed.ok() ? QString() : installed.error->message;
}

/// Loads the Failed queue of `ws` into `model` (the first page and the count).
bool loadFailed(QueueModel &model)
{
    QueueRequest req;
    req.kind = QueueKind::Failed;
    model.setRequest(req);
    return QTest::qWaitFor([&] { return !model.isLoading() && !model.isCounting() && model.lastError().isEmpty(); }, 60000);
}

} // namespace

class TestPush : public QObject {
    Q_OBJECT
private slots:
    void installStatusUninstall();
    void hintReachesQueue();
    void killedListenerLoop();
    void throughPooler();
    void otherBackendsPoll_data();
    void otherBackendsPoll();
    void configKeys();
};

void TestPush::installStatusUninstall()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QString error = initSchema(ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QStringList base{QStringLiteral("--idempotency-db"), db.url(), QStringLiteral("--intent-db"), db.url(),
                           QStringLiteral("--ticket-db"), db.url(), QStringLiteral("--operator"), QStringLiteral("alice")};
    CtlRun r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("status")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out), QStringLiteral("idempotency: trigger triage_console_notify on idempotency_record not installed\n"
                                   "intent: trigger triage_console_notify on intent_log not installed\n"
                                   "ticket: trigger triage_console_notify on ticket not installed\n"));
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("install")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(QStringLiteral("notify install: --reason TEXT is required")), r.describe().constData());
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("install"), QStringLiteral("--reason"),
                                  QStringLiteral("incident room wants live queues")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out), QStringLiteral("idempotency: trigger triage_console_notify on idempotency_record installed\n"
                                   "intent: trigger triage_console_notify on intent_log installed\n"
                                   "ticket: trigger triage_console_notify on ticket installed\n"));
    QCOMPARE(triggerTables(db), (QStringList{QStringLiteral("idempotency_record"), QStringLiteral("intent_log"), QStringLiteral("ticket"),
                                             QStringLiteral("triage_claim")}));
    // Installing again replaces, never doubles, and says so.
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("install"), QStringLiteral("--reason"),
                                  QStringLiteral("again, after an upgrade")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out).section(QLatin1Char('\n'), 0, 0),
             QStringLiteral("idempotency: trigger triage_console_notify on idempotency_record installed (replaced the one there)"));
    QCOMPARE(triggerTables(db).size(), 4);
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("install"), QStringLiteral("--reason"), QStringLiteral("short")});
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(QString::fromUtf8(r.err).contains(QStringLiteral("notify install needs a reason of at least 10 characters (got 5)")),
             r.describe().constData());
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("status"), QStringLiteral("--format"), QStringLiteral("csv")});
    QCOMPARE(QString::fromUtf8(r.out), QStringLiteral("store,table,postgres,installed\nidempotency,idempotency_record,true,true\n"
                                   "intent,intent_log,true,true\nticket,ticket,true,true\n"));
    // The hint: "<store> <id>", never the row.
    QSqlDatabase listen = QSqlDatabase::cloneDatabase(QSqlDatabase::database(QStringLiteral("admin-") + db.databaseName(), false),
                                                      QStringLiteral("listen-") + db.databaseName());
    QVERIFY(listen.open());
    QStringList heard;
    connect(listen.driver(), &QSqlDriver::notification, this,
            [&heard](const QString &, QSqlDriver::NotificationSource, const QVariant &payload) { heard << payload.toString(); });
    QVERIFY(listen.driver()->subscribeToNotification(QStringLiteral("triage_console")));
    QVERIFY(insertFailed(db, QStringLiteral("push:one")).isEmpty());
    const QString id = db.adminQueryColumn(QStringLiteral("SELECT id FROM idempotency_record WHERE idem_key = 'push:one'")).value(0);
    QVERIFY(QTest::qWaitFor([&] { return !heard.isEmpty(); }, 10000));
    QCOMPARE(heard, QStringList{QStringLiteral("idempotency ") + id});
    listen.close();
    listen = QSqlDatabase();
    QSqlDatabase::removeDatabase(QStringLiteral("listen-") + db.databaseName());

    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("uninstall"), QStringLiteral("--reason"),
                                  QStringLiteral("incident closed")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out), QStringLiteral("idempotency: trigger triage_console_notify on idempotency_record removed\n"
                                   "intent: trigger triage_console_notify on intent_log removed\n"
                                   "ticket: trigger triage_console_notify on ticket removed\n"));
    QVERIFY(triggerTables(db).isEmpty());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT count(*) FROM pg_proc WHERE proname LIKE 'triage_console_notify%'")),
             QStringList{QStringLiteral("0")});
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("uninstall"), QStringLiteral("--reason"),
                                  QStringLiteral("once more, to be sure")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QString::fromUtf8(r.out).section(QLatin1Char('\n'), 0, 0),
             QStringLiteral("idempotency: trigger triage_console_notify on idempotency_record was not installed: nothing removed"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action || ' ' || operator || ' ' || reason FROM triage_audit "
                                                "WHERE idem_key = 'push:console' ORDER BY id")),
             (QStringList{QStringLiteral("push.install alice incident room wants live queues"),
                          QStringLiteral("push.install alice again, after an upgrade"), QStringLiteral("push.uninstall alice incident closed"),
                          QStringLiteral("push.uninstall alice once more, to be sure")}));
    // Frozen: refused before any DDL.
    r = runCtl(base + QStringList{QStringLiteral("policy"), QStringLiteral("freeze"), QStringLiteral("--reason"),
                                  QStringLiteral("nobody touches anything now")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    r = runCtl(base + QStringList{QStringLiteral("notify"), QStringLiteral("install"), QStringLiteral("--reason"),
                                  QStringLiteral("during the freeze")});
    QCOMPARE(r.exitCode, 4);
    QVERIFY(triggerTables(db).isEmpty());
}

void TestPush::hintReachesQueue()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpWithTriggers(ws));
    QVERIFY(insertFailed(db, QStringLiteral("push:a")).isEmpty());
    QueueModel model(&ws); // no polling: only push moves it
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(loadFailed(model));
    QCOMPARE(heldKeys(model), QStringList{QStringLiteral("push:a")});
    PushFeed feed(ws.config(), nullptr, 200);
    QVERIFY(feed.enabled());
    QCOMPARE(feed.statuses().size(), 1); // three stores, one database: one listener
    QCOMPARE(feed.statuses().first().where, QStringLiteral("idempotency, intent, ticket on ") + profileOf(db).displayUrl());
    wire(feed, model);
    feed.start();
    QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Live; }, 20000));
    QCOMPARE(feed.statusText(), QStringLiteral("push live"));
    QElapsedTimer t;
    t.start();
    QVERIFY(insertFailed(db, QStringLiteral("push:b")).isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return heldKeys(model).contains(QStringLiteral("push:b")); }, 20000));
    qInfo("a committed change reached the open queue by push in %lld ms", t.elapsed());
    QCOMPARE(heldKeys(model), (QStringList{QStringLiteral("push:a"), QStringLiteral("push:b")}));
    QCOMPARE(model.enteredRows(), 1);
    QVERIFY(feed.hints() >= 1);
    // Another operator's claim touches no record: its own trigger's hint brings it to the row.
    const auto claimed = takeClaim(ws, ClaimScope::Key, QStringLiteral("push:b"), 600, QString(), QStringLiteral("bob")).result();
    QVERIFY2(claimed.ok(), qPrintable(errorText(claimed)));
    QVERIFY(QTest::qWaitFor([&] { return model.claimOf(QStringLiteral("push:b")).has_value(); }, 20000));
    QCOMPARE(model.claimOf(QStringLiteral("push:b"))->holder, QStringLiteral("bob"));
    const auto released = releaseClaim(ws, ClaimScope::Key, QStringLiteral("push:b"), QStringLiteral("bob")).result();
    QVERIFY2(released.ok(), qPrintable(errorText(released)));
    QVERIFY(QTest::qWaitFor([&] { return !model.claimOf(QStringLiteral("push:b")).has_value(); }, 20000));
    // Removed elsewhere while listening: noticed at the next trigger check (every 30 s), said.
    const auto removed = changePushTriggers(ws, false, QStringLiteral("push test teardown")).result();
    QVERIFY2(removed.ok(), qPrintable(errorText(removed)));
    QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Unavailable; }, 45000));
    QCOMPARE(feed.statusText(), QStringLiteral("push unavailable (no NOTIFY triggers on idempotency_record, intent_log, ticket "
                                               "(`triagectl notify install` adds them)): polling only"));
    feed.stop();
}

void TestPush::killedListenerLoop()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpWithTriggers(ws));
    QueueModel model(&ws); // no polling timer: the queue moves only by push and resyncs
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(loadFailed(model));
    constexpr int kHeartbeatMs = 100;
    PushFeed feed(ws.config(), nullptr, kHeartbeatMs);
    wire(feed, model);
    feed.start();
    QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Live; }, 20000));

    // Concurrent writes from a session of their own: a FAILED record every 40 ms, every second
    // one settled (it leaves the queue) 3 rows later.
    std::atomic<bool> stop{false};
    std::atomic<int> written{0};
    QString writerError;
    std::thread writer([&] {
        const QString name = QStringLiteral("writer-") + db.databaseName();
        {
            QSqlDatabase w = QSqlDatabase::cloneDatabase(QStringLiteral("admin-") + db.databaseName(), name);
            if (!w.open()) {
                writerError = w.lastError().text();
            } else {
                QSqlQuery q(w);
                for (int i = 0; !stop.load() && writerError.isEmpty(); ++i) {
                    if (!q.exec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                                               "VALUES ('w:%1', 'ticket_create', 2, now(), now(), now() + interval '7 days')")
                                    .arg(i, 5, 10, QLatin1Char('0'))))
                        writerError = q.lastError().text();
                    if (i >= 3 && i % 2 == 1
                        && !q.exec(QStringLiteral("UPDATE idempotency_record SET status = 1, updated_at = now() WHERE idem_key = 'w:%1'")
                                       .arg(i - 3, 5, 10, QLatin1Char('0'))))
                        writerError = q.lastError().text();
                    written = i + 1;
                    QThread::msleep(40);
                }
                w.close();
            }
        }
        QSqlDatabase::removeDatabase(name);
    });
    // However the loop ends (a failed check returns), the writer stops and is joined.
    const auto joinWriter = qScopeGuard([&] {
        stop = true;
        if (writer.joinable())
            writer.join();
    });
    constexpr int kKills = 100;
    int killed = 0;
    for (int k = 0; k < kKills && writerError.isEmpty(); ++k) {
        // The listener's backend, once it is live (its last statement is a heartbeat).
        QString pid;
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         if (feed.state() != PushState::Live)
                             return false;
                         const QStringList pids = db.adminQueryColumn(
                             QStringLiteral("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> "
                                            "pg_backend_pid() AND query LIKE '%pg_notify(%heartbeat%'"));
                         pid = pids.size() == 1 ? pids.first() : QString();
                         return !pid.isEmpty();
                     },
                     20000),
                 qPrintable(feed.statusText()));
        const int before = feed.losses();
        if (db.adminQueryColumn(QStringLiteral("SELECT pg_terminate_backend(%1)").arg(pid)) != QStringList{QStringLiteral("true")})
            continue; // it had just reconnected by itself (a loss of its own): try again
        ++killed;
        QVERIFY2(QTest::qWaitFor([&] { return feed.losses() > before; }, 20000),
                 qPrintable(QStringLiteral("kill %1 not detected: %2 losses").arg(killed).arg(feed.losses())));
    }
    QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Live; }, 20000));
    stop = true;
    writer.join();
    QVERIFY2(writerError.isEmpty(), qPrintable(writerError));
    QCOMPARE(killed, kKills);
    QVERIFY2(feed.losses() >= kKills, qPrintable(QString::number(feed.losses()))); // a loss under load is one too: it resyncs
    QVERIFY2(feed.worstBeatsMissed() <= 2, qPrintable(QString::number(feed.worstBeatsMissed())));
    // Zero changes missed: the queue as the model holds it (without a poll of its own, without
    // paging) is exactly the table's.
    const QStringList table = db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 2 "
                                                                 "ORDER BY updated_at, id"));
    QVERIFY(QTest::qWaitFor([&] { return heldKeys(model) == table; }, 20000));
    QCOMPARE(heldKeys(model), table);
    QCOMPARE(QSet<QString>(table.cbegin(), table.cend()).size(), table.size());
    QStringList all;
    for (int i = 0; i < model.rowCount(); ++i)
        all << model.queueRow(i).idemKey;
    QCOMPARE(QSet<QString>(all.cbegin(), all.cend()).size(), all.size()); // no row twice
    qInfo("%d kills under %d writes: %d losses, each detected within %d heartbeat(s) of %d ms; %lld hints; queue of %lld rows exact",
          killed, written.load(), feed.losses(), feed.worstBeatsMissed(), kHeartbeatMs, feed.hints(), qint64(table.size()));
    feed.stop();
}

void TestPush::throughPooler()
{
    TestDatabase pooled(QStringLiteral("pgbouncer"));
    TRIAGE_REQUIRE_BACKEND(pooled);
    Workspace ws(pooled.config());
    TRIAGE_OK(setUpWithTriggers(ws));
    WorkspaceConfig config = ws.config();
    {
        PushFeed feed(config, nullptr, 200);
        feed.start();
        QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Unavailable; }, 20000));
        const QUrl server(qEnvironmentVariable("TRIAGE_TEST_PG_URL"));
        QCOMPARE(feed.statusText(),
                 QStringLiteral("push unavailable (%1 does not reach the server directly (the server answers on port %2): a pooler "
                                "or proxy is in the way, and LISTEN needs a session of its own; give listen_url a direct URL): "
                                "polling only")
                     .arg(profileOf(pooled).displayUrl())
                     .arg(server.port()));
    }
    // A direct listen_url: live, and a change heard.
    QUrl direct(qEnvironmentVariable("TRIAGE_TEST_PG_URL"));
    direct.setPath(QLatin1Char('/') + pooled.databaseName());
    QString why;
    const auto listen = ConnectionProfile::fromUrl(direct.toString(), DbRole::Idempotency, &why);
    QVERIFY2(listen, qPrintable(why));
    config.listenProfiles.insert(int(DbRole::Idempotency), *listen);
    PushFeed feed(config, nullptr, 200);
    QSignalSpy changed(&feed, &PushFeed::changed);
    feed.start();
    QVERIFY2(QTest::qWaitFor([&] { return feed.state() == PushState::Live; }, 20000), qPrintable(feed.statusText()));
    QVERIFY(insertFailed(pooled, QStringLiteral("pooled:a")).isEmpty());
    QVERIFY(changed.wait(20000));
    QCOMPARE(changed.first().first().value<QSet<int>>(), QSet<int>{int(DbRole::Idempotency)});
}

void TestPush::otherBackendsPoll_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("mysql") << QStringLiteral("mysql");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
}

void TestPush::otherBackendsPoll()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QString error = initSchema(ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    PushFeed feed(ws.config());
    QVERIFY(!feed.enabled());
    QCOMPARE(feed.state(), PushState::Off);
    QCOMPARE(feed.statusText(), QString());
    const auto refused = changePushTriggers(ws, true, QStringLiteral("push test setup")).result();
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error->message, QStringLiteral("push (LISTEN/NOTIFY) is PostgreSQL only, and no store is PostgreSQL: the console "
                                                    "polls them (live_poll_seconds)"));
    const auto states = readPushTriggers(ws).result();
    QVERIFY2(states.ok(), qPrintable(errorText(states)));
    QCOMPARE(states->size(), 3);
    QVERIFY(!states->first().postgres);
}

void TestPush::configKeys()
{
    QTemporaryDir dir;
    auto read = [&](const QString &text, QString *error) {
        const QString path = dir.filePath(QStringLiteral("t.ini"));
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(text.toUtf8());
        f.close();
        return WorkspaceConfig::fromIniFile(path, error);
    };
    QString error;
    auto c = read(QStringLiteral("[console]\npush = off\npush_heartbeat_ms = 500\n[idempotency]\nurl = postgresql://u@127.0.0.1:6432/app\n"
                                 "listen_url = postgresql://u@127.0.0.1:5432/app\n"),
                  &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->push, false);
    QCOMPARE(c->pushHeartbeatMs, 500);
    QCOMPARE(c->listenProfiles.value(int(DbRole::Idempotency)).port, 5432);
    c = read(QStringLiteral("[idempotency]\nurl = mysql://u@127.0.0.1:3306/app\nlisten_url = mysql://u@127.0.0.1:3306/app\n"), &error);
    QVERIFY(!c);
    QVERIFY2(error.contains(QStringLiteral("[idempotency] listen_url: push (LISTEN/NOTIFY) is PostgreSQL only; give a postgresql:// URL")),
             qPrintable(error));
    c = read(QStringLiteral("[idempotency]\nurl = postgresql://u@127.0.0.1:6432/app\nlisten_url = postgresql://u@127.0.0.1:5432/other\n"),
             &error);
    QVERIFY(!c);
    QVERIFY2(error.contains(QStringLiteral("[idempotency] listen_url: names database \"other\", url names \"app\": the listener must "
                                           "hear the database the store reads")),
             qPrintable(error));
    c = read(QStringLiteral("[console]\npush = maybe\n"), &error);
    QVERIFY(!c);
    QVERIFY2(error.contains(QStringLiteral("push")), qPrintable(error));
}

QTEST_MAIN(TestPush)
#include "tst_push.moc"
