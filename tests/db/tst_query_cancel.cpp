// Cancelling a running query and server-side statement timeouts, against the
// real PostgreSQL and MariaDB servers of tests/run-all.sh: a sleeping statement cancelled
// through the second connection fails with Kind::Cancelled and the exact message, the
// worker keeps its connection (same server id, no connectionEvent) and the next job runs;
// a `statement_timeout` URL parameter stops a longer statement with Kind::StatementTimeout
// naming the limit; a cancel with nothing running says "nothing to cancel"; a CancelToken
// drops the jobs of its group that have not started and leaves other jobs alone; an
// interruption nobody here asked for stays a plain statement error; SQLite says plainly
// that it cannot cancel. Outcomes are asserted, never durations.

#include "BackendTestUtil.h"
#include "DbWorker.h"
#include "QueryCancel.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace triage;
using namespace triage::test;

namespace {

QString sleepSql(const TestDatabase &db, int seconds)
{
    return db.dialect() == QLatin1String("postgresql") ? QStringLiteral("SELECT pg_sleep(%1)").arg(seconds)
                                                        : QStringLiteral("SELECT SLEEP(%1)").arg(seconds);
}

/// A job running `sql` (its first value, or -1).
std::function<qint64(DbSession &)> statement(const QString &sql)
{
    return [sql](DbSession &s) {
        QSqlQuery q = s.exec(sql);
        return q.next() ? q.value(0).toLongLong() : qint64(-1);
    };
}

/// True when the server shows connection `id` executing a statement (so a cancel sent now
/// certainly meets it, not the moment before it arrives).
bool serverShowsRunning(const TestDatabase &db, qint64 id)
{
    if (db.backend() == QLatin1String("postgresql"))
        return db.adminQueryColumn(QStringLiteral("SELECT state FROM pg_stat_activity WHERE pid = %1").arg(id))
            == QStringList{QStringLiteral("active")};
    const QStringList command =
        db.adminQueryColumn(QStringLiteral("SELECT command FROM information_schema.processlist WHERE id = %1").arg(id));
    return command.size() == 1 && command.first() != QLatin1String("Sleep");
}

/// Opens the worker's connection (the first job) and returns its server id.
qint64 openConnection(DbWorker &w)
{
    const Outcome<qint64> o = await(w.run<qint64>(statement(QStringLiteral("SELECT 1"))));
    return o.ok() ? w.backendId() : -1;
}

QString describe(const QSignalSpy &spy)
{
    QStringList out;
    for (const QList<QVariant> &args : spy)
        out << QStringLiteral("%1: %2").arg(args.at(1).toBool() ? QStringLiteral("up") : QStringLiteral("down"),
                                            args.at(2).toString());
    return out.join(QStringLiteral(" | "));
}

/// Runs `SELECT value` on `w` and checks that it ran on connection `id` with no connection
/// event (when `events` is given): "" when so, else what differed.
QString runsOnSameConnection(DbWorker &w, qint64 id, qint64 value, const QSignalSpy *events = nullptr)
{
    const Outcome<qint64> next = await(w.run<qint64>(statement(QStringLiteral("SELECT %1").arg(value))));
    if (!next.ok())
        return QStringLiteral("the next statement failed: ") + next.error->message;
    if (*next != value)
        return QStringLiteral("the next statement returned %1, not %2").arg(*next).arg(value);
    if (w.backendId() != id)
        return QStringLiteral("connection %1, not %2").arg(w.backendId()).arg(id);
    if (events && !events->isEmpty())
        return describe(*events);
    return {};
}

void addServerRows()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

} // namespace

class TstQueryCancel : public QObject {
    Q_OBJECT

private slots:
    void cancelRunningStatement_data() { addServerRows(); }
    void cancelRunningStatement();
    void statementTimeout_data()
    {
        addServerRows();
        QTest::newRow("pgbouncer") << QStringLiteral("pgbouncer"); // SET LOCAL per statement
    }
    void statementTimeout();
    void nothingToCancel_data() { addServerRows(); }
    void nothingToCancel();
    void tokenCancelsItsGroupOnly_data() { addServerRows(); }
    void tokenCancelsItsGroupOnly();
    void foreignInterruptIsAStatementError_data() { addServerRows(); }
    void foreignInterruptIsAStatementError();
    void sqliteCannotCancel();
};

void TstQueryCancel::cancelRunningStatement()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker worker(profileOf(db));
    const qint64 id = openConnection(worker);
    QVERIFY2(id > 0, "the worker publishes its connection id after connecting");
    QVERIFY(!worker.isBusy());
    QSignalSpy events(&worker, &DbWorker::connectionEvent);
    QVERIFY(events.isValid());

    auto sleeping = worker.run<qint64>(statement(sleepSql(db, 30)));
    QTRY_VERIFY_WITH_TIMEOUT(worker.isBusy() && serverShowsRunning(db, id), 20000);
    QTest::qWait(200);

    const Outcome<CancelResult> cancel = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(cancel);
    QCOMPARE(cancel->kind, CancelResult::Kind::Cancelled);
    QCOMPARE(cancel->role, DbRole::Idempotency);
    QCOMPARE(cancel->backendId, id);
    QCOMPARE(cancel->message,
             QStringLiteral("idempotency database: asked the server to cancel the running query (connection %1)").arg(id));

    const Outcome<qint64> slept = await(sleeping);
    QVERIFY2(!slept.ok(), "the sleep must not complete");
    QCOMPARE(slept.error->kind, DbError::Kind::Cancelled);
    QCOMPARE(slept.error->message, QStringLiteral("idempotency database: query cancelled by the operator"));
    QCOMPARE(slept.error->role, DbRole::Idempotency);

    // The same connection runs the next job: no reconnect, no connection event.
    const QString same = runsOnSameConnection(worker, id, 42, &events);
    QVERIFY2(same.isEmpty(), qPrintable(same));
    QVERIFY(!worker.isBusy());
}

void TstQueryCancel::statementTimeout()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker worker(profileOf(db, QStringLiteral("?statement_timeout=200")));
    const qint64 id = openConnection(worker);
    QVERIFY(id > 0);
    QSignalSpy events(&worker, &DbWorker::connectionEvent);

    const Outcome<qint64> slept = await(worker.run<qint64>(statement(sleepSql(db, 5))));
    QVERIFY2(!slept.ok(), "a 5 s statement must not outlive a 200 ms statement timeout");
    QCOMPARE(slept.error->kind, DbError::Kind::StatementTimeout);
    QCOMPARE(slept.error->message,
             QStringLiteral("idempotency database: query stopped by the server after the statement timeout of 200 ms"));
    QCOMPARE(slept.error->nativeCode, db.dialect() == QLatin1String("postgresql") ? QStringLiteral("57014") : QStringLiteral("1969"));

    const QString same = runsOnSameConnection(worker, id, 7, &events);
    QVERIFY2(same.isEmpty(), qPrintable(same));
}

void TstQueryCancel::nothingToCancel()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker worker(profileOf(db));

    // Before the first connection: no id yet.
    QCOMPARE(worker.backendId(), qint64(0));
    Outcome<CancelResult> r = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->kind, CancelResult::Kind::NothingToCancel);
    QCOMPARE(r->message, QStringLiteral("nothing to cancel"));

    // Connected and idle.
    QVERIFY(openConnection(worker) > 0);
    r = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->kind, CancelResult::Kind::NothingToCancel);
    QCOMPARE(r->message, QStringLiteral("nothing to cancel"));
    QCOMPARE(r->backendId, qint64(0));

    // A job busy in the client (no statement on the server): the server check says so.
    auto busy = worker.run<int>([](DbSession &) {
        QThread::msleep(1500);
        return 1;
    });
    QTRY_VERIFY(worker.isBusy());
    r = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->message, QStringLiteral("nothing to cancel"));
    const Outcome<int> done = await(busy);
    TRIAGE_VERIFY_OUTCOME(done);
}

void TstQueryCancel::tokenCancelsItsGroupOnly()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker worker(profileOf(db));
    const qint64 id = openConnection(worker);
    QVERIFY(id > 0);
    QSignalSpy events(&worker, &DbWorker::connectionEvent);

    // An untagged statement runs: a token that is not its own cancels nothing.
    const CancelToken mine = CancelToken::create();
    auto foreign = worker.run<qint64>(statement(sleepSql(db, 30)));
    QTRY_VERIFY_WITH_TIMEOUT(serverShowsRunning(db, id), 20000);
    Outcome<CancelResult> r = await(triage::cancelRunningStatement(worker, mine));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->message, QStringLiteral("nothing to cancel"));
    QVERIFY(!foreign.isFinished());

    // Queue two jobs under the token behind it, and one untagged job after them.
    QFuture<Outcome<qint64>> tagged1, tagged2;
    {
        const CancelScope scope(mine);
        QCOMPARE(CancelToken::current().id(), mine.id());
        tagged1 = worker.run<qint64>(statement(sleepSql(db, 30)));
        tagged2 = worker.run<qint64>(statement(QStringLiteral("SELECT 2")));
    }
    QVERIFY(CancelToken::current().isNull());
    auto untagged = worker.run<qint64>(statement(QStringLiteral("SELECT 3")));

    // Stop the foreign statement (the operator's generic cancel), then cancel the group
    // while its first job runs: both of its jobs fail, the untagged one runs.
    r = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->kind, CancelResult::Kind::Cancelled);
    const Outcome<qint64> f = await(foreign);
    QVERIFY(!f.ok());
    QCOMPARE(f.error->kind, DbError::Kind::Cancelled);

    QTRY_VERIFY_WITH_TIMEOUT(worker.activity()->runningToken.load() == mine.id() && serverShowsRunning(db, id), 20000);
    const QList<Outcome<CancelResult>> group = await(cancelWork(mine, {&worker, &worker}));
    QCOMPARE(group.size(), 1); // the same worker is asked once
    TRIAGE_VERIFY_OUTCOME(group.first());
    QCOMPARE(group.first()->kind, CancelResult::Kind::Cancelled);
    QVERIFY(mine.isCancelled());

    for (auto *t : {&tagged1, &tagged2}) {
        const Outcome<qint64> o = await(*t);
        QVERIFY(!o.ok());
        QCOMPARE(o.error->kind, DbError::Kind::Cancelled);
        QCOMPARE(o.error->message, QStringLiteral("idempotency database: query cancelled by the operator"));
    }
    const Outcome<qint64> u = await(untagged);
    TRIAGE_VERIFY_OUTCOME(u);
    QCOMPARE(*u, qint64(3));
    QCOMPARE(worker.backendId(), id);
    QVERIFY2(events.isEmpty(), qPrintable(describe(events)));
}

void TstQueryCancel::foreignInterruptIsAStatementError()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    DbWorker worker(profileOf(db));
    const qint64 id = openConnection(worker);
    QVERIFY(id > 0);
    auto sleeping = worker.run<qint64>(statement(sleepSql(db, 30)));
    QTRY_VERIFY_WITH_TIMEOUT(serverShowsRunning(db, id), 20000);
    // A DBA cancels it: not the operator's cancel, and not a timeout.
    TRIAGE_ADMIN(db, backend == QLatin1String("postgresql") ? QStringLiteral("SELECT pg_cancel_backend(%1)").arg(id)
                                                            : QStringLiteral("KILL QUERY %1").arg(id));
    const Outcome<qint64> o = await(sleeping);
    QVERIFY(!o.ok());
    QCOMPARE(o.error->kind, DbError::Kind::Statement);
    QVERIFY2(o.error->message.startsWith(QStringLiteral("idempotency database failed while running a statement: ")),
             qPrintable(o.error->message));
    const QString same = runsOnSameConnection(worker, id, 1);
    QVERIFY2(same.isEmpty(), qPrintable(same));
}

void TstQueryCancel::sqliteCannotCancel()
{
    TestDatabase db(QStringLiteral("sqlite"));
    QVERIFY(db.available());
    DbWorker worker(profileOf(db));
    QCOMPARE(openConnection(worker), qint64(0)); // no server, no connection id
    auto busy = worker.run<int>([](DbSession &) {
        QThread::msleep(500);
        return 1;
    });
    QTRY_VERIFY(worker.isBusy());
    const Outcome<CancelResult> r = await(triage::cancelRunningStatement(worker));
    TRIAGE_VERIFY_OUTCOME(r);
    QCOMPARE(r->kind, CancelResult::Kind::NotSupported);
    QCOMPARE(r->message, QStringLiteral("idempotency database: cancelling a running query is not supported on SQLite "
                                        "(its statements run inside this process, not on a server)"));
    TRIAGE_VERIFY_OUTCOME(await(busy));
}

QTEST_GUILESS_MAIN(TstQueryCancel)
#include "tst_query_cancel.moc"
