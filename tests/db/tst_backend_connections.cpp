// Connection handling: a store that cannot be reached gives an Outcome error of kind
// Connection naming the store and its URL (never a password); a connection the server
// dropped is noticed, re-opened, reported through DbWorker::connectionEvent, and reads are
// retried once (writes are not).

#include "BackendTestUtil.h"
#include "SqlBuilder.h"
#include "FutureChain.h"
#include "Workspace.h"
#include "Schema.h"
#include "Queue.h"
#include "KeyDetail.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QSqlQuery>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <memory>

using namespace triage;
using namespace triage::test;

namespace {

struct Event {
    DbRole role;
    bool up;
    QString message;
};

QVector<Event> eventsOf(const QSignalSpy &spy)
{
    QVector<Event> out;
    for (const QList<QVariant> &args : spy)
        out << Event{args.at(0).value<DbRole>(), args.at(1).toBool(), args.at(2).toString()};
    return out;
}

QString describe(const QVector<Event> &events)
{
    QStringList out;
    for (const Event &e : events)
        out << QStringLiteral("%1 %2: %3").arg(roleName(e.role), e.up ? QStringLiteral("up") : QStringLiteral("down"), e.message);
    return out.join(QStringLiteral(" | "));
}

/// Ends every connection to `db` except the admin's own, and waits until the server
/// no longer lists them (termination is asynchronous on both servers).
QString dropConnections(const TestDatabase &db)
{
    const QString name = databaseName(db);
    QString error;
    if (db.backend() == QLatin1String("postgresql")) {
        const QStringList killed = db.adminQueryColumn(
            QStringLiteral("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%1' AND pid <> "
                           "pg_backend_pid()")
                .arg(name),
            &error);
        if (!error.isEmpty())
            return error;
        if (killed.isEmpty())
            return QStringLiteral("no connection to terminate");
    } else {
        const QStringList ids = db.adminQueryColumn(QStringLiteral("SELECT id FROM information_schema.processlist WHERE db = "
                                                                   "'%1' AND id <> CONNECTION_ID()")
                                                        .arg(name),
                                                    &error);
        if (!error.isEmpty())
            return error;
        if (ids.isEmpty())
            return QStringLiteral("no connection to kill");
        for (const QString &id : ids) {
            const QString e = db.adminExec(QStringLiteral("KILL %1").arg(id));
            if (!e.isEmpty() && !e.contains(QLatin1String("Unknown thread")))
                return e;
        }
    }
    const QString remaining = db.backend() == QLatin1String("postgresql")
        ? QStringLiteral("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '%1' AND pid <> pg_backend_pid()").arg(name)
        : QStringLiteral("SELECT COUNT(*) FROM information_schema.processlist WHERE db = '%1' AND id <> CONNECTION_ID()").arg(name);
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 10000) {
        if (db.adminQueryColumn(remaining) == QStringList{QStringLiteral("0")})
            return {};
        QThread::msleep(20);
    }
    return QStringLiteral("connections still listed after 10 s");
}

} // namespace

class TstBackendConnections : public QObject {
    Q_OBJECT

private slots:
    void deadServer_data();
    void deadServer();
    void droppedConnection_data();
    void droppedConnection();
    void statementErrorIsNotADrop_data();
    void statementErrorIsNotADrop();
    void destroyedWithJobsInFlight();
};

// ===================================================================== dead server

void TstBackendConnections::deadServer_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("url");
    // Port 1 on the loopback: nothing listens, the connection is refused at once.
    QTest::newRow("sqlite") << "sqlite" << "sqlite:///nonexistent-triage-dir/sub/test.db";
    QTest::newRow("postgresql") << "postgresql" << "postgresql://triage@127.0.0.1:1/triage_dead?connect_timeout=5";
    QTest::newRow("mysql") << "mysql" << "mysql://triage@127.0.0.1:1/triage_dead?connect_timeout=5";
}

void TstBackendConnections::deadServer()
{
    QFETCH(QString, backend);
    QFETCH(QString, url);
    // A password is configured: it must never appear in a message.
    const QByteArray secret = "Pa55-word-never-shown";
    qputenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD", secret);
    qputenv("TRIAGE_INTENT_DB_PASSWORD", secret);
    qputenv("TRIAGE_TICKET_DB_PASSWORD", secret);
    auto restore = qScopeGuard([&] {
        qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
        qunsetenv("TRIAGE_INTENT_DB_PASSWORD");
        qunsetenv("TRIAGE_TICKET_DB_PASSWORD");
    });
    WorkspaceConfig config;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString error;
        const auto p = ConnectionProfile::fromUrl(url, role, &error);
        QVERIFY2(p.has_value(), qPrintable(error));
        config.setProfile(*p);
    }
    const QString display = config.idempotency.displayUrl();
    Workspace ws(config);
    QSignalSpy spy(&ws.worker(DbRole::Idempotency), &DbWorker::connectionEvent);
    QVERIFY(spy.isValid());

    QueueRequest req;
    req.kind = QueueKind::InFlight; // records only: the idempotency database
    const Outcome<QueuePage> page = fetchQueuePage(ws, req, {}, 10).result();
    QVERIFY(!page.ok());
    QCOMPARE(page.error->kind, DbError::Kind::Connection);
    QCOMPARE(page.error->role, DbRole::Idempotency);
    QVERIFY2(page.error->message.contains(QStringLiteral("idempotency database")), qPrintable(page.error->message));
    QVERIFY2(page.error->message.contains(display), qPrintable(page.error->message + " / " + display));
    QVERIFY2(!page.error->message.contains(QString::fromLatin1(secret)), qPrintable(page.error->message));
    QVERIFY2(!page.error->message.contains('\n'), qPrintable(page.error->message)); // one line for operators

    // The worker reported the store down, once.
    QVector<Event> events = eventsOf(spy);
    QCOMPARE(events.size(), 1);
    QCOMPARE(events[0].role, DbRole::Idempotency);
    QVERIFY(!events[0].up);
    QCOMPARE(events[0].message, page.error->message);

    // Counting fails the same way; the down state is not reported again.
    const Outcome<qint64> count = countQueue(ws, req).result();
    QVERIFY(!count.ok());
    QCOMPARE(count.error->kind, DbError::Kind::Connection);
    QCOMPARE(eventsOf(spy).size(), 1);

    // The detail view names each store that failed; nothing throws, nothing hangs.
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("any:key")).result();
    QVERIFY(!d.record.has_value());
    QCOMPARE(d.errors.size(), 3);
    QVERIFY(d.errors.value(DbRole::Intent).message.contains(QStringLiteral("intent-log database")));
    QVERIFY(d.errors.value(DbRole::Ticket).message.contains(QStringLiteral("ticket database")));
    for (const DbError &e : d.errors) {
        QCOMPARE(e.kind, DbError::Kind::Connection);
        QVERIFY2(!e.message.contains(QString::fromLatin1(secret)), qPrintable(e.message));
    }
    // Schema creation reports it too, as a Connection error.
    const Outcome<int> schema = initSchema(ws, {}).result();
    QVERIFY(!schema.ok());
    QCOMPARE(schema.error->kind, DbError::Kind::Connection);
}

// ===================================================================== dropped connection

void TstBackendConnections::droppedConnection_data()
{
    // SQLite has no server that could drop a connection.
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << "postgresql";
    QTest::newRow("mysql") << "mysql";
}

void TstBackendConnections::droppedConnection()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    RecordSpec r;
    r.key = QStringLiteral("drop:1");
    r.updated = serverAgoSeconds(db, 5);
    TRIAGE_OK(insertRecords(db, {r}));
    QueueRequest req;
    req.kind = QueueKind::InFlight;
    Outcome<QueuePage> page = fetchQueuePage(ws, req, {}, 10).result();
    TRIAGE_VERIFY_OUTCOME(page);
    QCOMPARE(page->rows.size(), 1);

    QSignalSpy spy(&ws.worker(DbRole::Idempotency), &DbWorker::connectionEvent);
    QVERIFY(spy.isValid());
    TRIAGE_OK(dropConnections(db));

    // The next read succeeds on a re-opened connection.
    page = fetchQueuePage(ws, req, {}, 10).result();
    TRIAGE_VERIFY_OUTCOME(page);
    QCOMPARE(rowTags(page->rows), QStringList{"record:drop:1"});
    QVector<Event> events = eventsOf(spy);
    QVERIFY2(events.size() == 2, qPrintable(describe(events)));
    QCOMPARE(events[0].role, DbRole::Idempotency);
    QVERIFY(!events[0].up);
    QVERIFY2(events[0].message.contains(QStringLiteral("dropped")) && events[0].message.contains(QStringLiteral("idempotency database")),
             qPrintable(events[0].message));
    QCOMPARE(events[1].role, DbRole::Idempotency);
    QVERIFY(events[1].up);
    QVERIFY2(events[1].message.contains(QStringLiteral("re-opened")), qPrintable(events[1].message));
    // The re-opened session is pinned again (time zone UTC).
    const Outcome<QueuePage> again = fetchQueuePage(ws, req, {}, 10).result();
    QVERIFY(again.ok());
    QCOMPARE(again->rows.value(0).updatedAt, page->rows.value(0).updatedAt);
    QCOMPARE(eventsOf(spy).size(), 2); // nothing more happened

    // A write (Retry::Never) after a drop is not re-sent: it fails as a Connection error,
    // and the next job re-opens.
    spy.clear();
    TRIAGE_OK(dropConnections(db));
    const Outcome<Done> write = ws.worker(DbRole::Idempotency)
                                    .run<Done>(
                                        [](DbSession &s) {
                                            s.exec(QStringLiteral("UPDATE idempotency_record SET status = 2 WHERE idem_key = 'drop:1'"));
                                            return Done{};
                                        },
                                        DbWorker::Retry::Never)
                                    .result();
    QVERIFY(!write.ok());
    QCOMPARE(write.error->kind, DbError::Kind::Connection);
    QVERIFY2(write.error->message.contains(QStringLiteral("idempotency database")), qPrintable(write.error->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = 'drop:1'")),
             QStringList{"0"});
    events = eventsOf(spy);
    QVERIFY2(events.size() == 1 && !events[0].up, qPrintable(describe(events)));
    page = fetchQueuePage(ws, req, {}, 10).result();
    TRIAGE_VERIFY_OUTCOME(page);
    QCOMPARE(page->rows.size(), 1);
    events = eventsOf(spy);
    QVERIFY2(events.size() == 2 && events[1].up, qPrintable(describe(events)));

    // Every store re-opens on its own: the detail view reads all three after a drop.
    TRIAGE_OK(dropConnections(db));
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("drop:1")).result();
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsText(d)));
    QVERIFY(d.record.has_value());
}

// ===================================================================== a failed statement

void TstBackendConnections::statementErrorIsNotADrop_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TstBackendConnections::statementErrorIsNotADrop()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    QSignalSpy spy(&ws.worker(DbRole::Idempotency), &DbWorker::connectionEvent);
    const Outcome<Done> bad = ws.worker(DbRole::Idempotency)
                                  .run<Done>([](DbSession &s) {
                                      s.exec(QStringLiteral("SELECT no_such_column FROM idempotency_record"));
                                      return Done{};
                                  })
                                  .result();
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error->kind, DbError::Kind::Statement);
    QCOMPARE(bad.error->role, DbRole::Idempotency);
    QVERIFY2(bad.error->message.startsWith(QStringLiteral("idempotency database failed while ")), qPrintable(bad.error->message));
    QVERIFY2(bad.error->message.contains(QStringLiteral("no_such_column")), qPrintable(bad.error->message));
    QVERIFY(spy.isEmpty()); // the connection is fine: no event

    // A statement that fails while it runs (a UNIQUE violation, which QSQLITE reports as a
    // "connection" error) is a Statement error too, and the session stays up.
    RecordSpec r;
    r.key = QStringLiteral("dup:1");
    r.updated = serverAgoSeconds(db, 1);
    TRIAGE_OK(insertRecords(db, {r}));
    const Outcome<Done> dup = ws.worker(DbRole::Idempotency)
                                  .run<Done>(
                                      [](DbSession &s) {
                                          SqlBuilder b;
                                          s.exec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, "
                                                                "expire_at) VALUES (%1, 'x', 0, %2)")
                                                     .arg(b.bind(QStringLiteral("dup:1")),
                                                          s.dialect().timeParam(b.bind(s.dialect().bindTime(0)))),
                                                 b);
                                          return Done{};
                                      },
                                      DbWorker::Retry::Never)
                                  .result();
    QVERIFY(!dup.ok());
    QCOMPARE(dup.error->kind, DbError::Kind::Statement);
    QVERIFY2(dup.error->message.startsWith(QStringLiteral("idempotency database failed while running a statement: ")),
             qPrintable(dup.error->message));
    QVERIFY(!dup.error->nativeCode.isEmpty());
    QVERIFY(spy.isEmpty());
    // The session is still usable.
    QueueRequest req;
    req.kind = QueueKind::Failed;
    const Outcome<QueuePage> page = fetchQueuePage(ws, req, {}, 10).result();
    TRIAGE_VERIFY_OUTCOME(page);
    QVERIFY(spy.isEmpty());
}

QTEST_GUILESS_MAIN(TstBackendConnections)
/// A workspace destroyed while jobs are queued and their continuations are still to come on its
/// merge pool (as a window closed during a refresh): every continuation runs, on a live pool,
/// and the jobs the continuations queue run too, before the destructor returns. Before the fix
/// the pool was destroyed first and the jobs still queued started their continuations on it
/// (use after free: the heap corruption seen once in tst_views_display).
void TstBackendConnections::destroyedWithJobsInFlight()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    auto first = std::make_shared<std::atomic<int>>(0);
    auto second = std::make_shared<std::atomic<int>>(0);
    constexpr int kJobs = 300;
    {
        auto ws = std::make_unique<Workspace>(db.config());
        Workspace *w = ws.get();
        QThreadPool *pool = ws->mergePool();
        for (int i = 0; i < kJobs; ++i) {
            const DbRole role = i % 2 == 0 ? DbRole::Idempotency : DbRole::Ticket;
            continueWith(ws->worker(role).run<int>([i](DbSession &s) {
                QSqlQuery q = s.exec(QStringLiteral("SELECT 1"), SqlBuilder());
                return q.next() ? i : -1;
            }),
                         pool, [w, first, second](const Outcome<int> &o) {
                             if (!o.ok() || *o < 0)
                                 return;
                             ++*first;
                             // A continuation that queues another job, whose own continuation follows.
                             continueWith(w->worker(DbRole::Intent).run<int>([](DbSession &) { return 1; }), w->mergePool(),
                                          [second](const Outcome<int> &r) {
                                              if (r.ok())
                                                  ++*second;
                                          });
                         });
        }
        ws.reset(); // at once: most jobs are still queued
    }
    QCOMPARE(first->load(), kJobs);
    QCOMPARE(second->load(), kJobs);
}

#include "tst_backend_connections.moc"
