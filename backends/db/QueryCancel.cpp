#include "QueryCancel.h"
#include "FutureChain.h"

#include "DbSession.h"
#include "DbWorker.h"
#include "Log.h"
#include "ThreadExit.h"

#include <QAtomicInteger>
#include <QPromise>
#include <QSqlQuery>
#include <QThreadPool>
#include <QtConcurrent>

namespace triage {

namespace {

QAtomicInt s_cancelConnections;

/// Cancel tasks open a connection and wait for the server: they get threads of their own,
/// never the global pool's (2 threads on a 2-core machine, shared with QtConcurrent users)
/// and never a worker's. Destroyed at exit after waiting for tasks still running (each is
/// bounded by the profile's connect_timeout and the statement timeout).
class CancelPool : public QThreadPool {
public:
    CancelPool()
    {
        setObjectName(QStringLiteral("query-cancel"));
        setMaxThreadCount(3); // one per store
        setExpiryTimeout(10000);
    }
};
Q_GLOBAL_STATIC(CancelPool, s_cancelPool)

CancelResult nothingToCancel(DbRole role)
{
    return {role, CancelResult::Kind::NothingToCancel, 0, QStringLiteral("nothing to cancel")};
}

/// Runs on the cancel pool: opens a second connection with the worker's profile and asks
/// the server to cancel job `job` on connection `backendId`, if it is still running.
Outcome<CancelResult> sendCancel(const ConnectionProfile &profile, const std::shared_ptr<SessionActivity> &activity,
                                 quint64 job, qint64 backendId)
{
    const DbRole role = profile.role;
    auto stillRunning = [&] { return activity->runningJob.load() == job && activity->backendId.load() == backendId; };
    auto cancelled = [&] {
        logger("backend.sql")->info("{}: asked the server to cancel the running query (connection {})", roleTitle(role),
                                    backendId);
        return Outcome<CancelResult>::success(
            CancelResult{role, CancelResult::Kind::Cancelled, backendId,
                         QStringLiteral("%1: asked the server to cancel the running query (connection %2)")
                             .arg(roleTitle(role))
                             .arg(backendId)});
    };
    if (profile.dialect == Dialect::PostgreSql) {
        // The protocol-level cancel of the worker's own connection: no second login, and
        // correct behind a pooler (PgCancel.h).
        const std::shared_ptr<PgCancelHandle> handle = activity->pgCancel.get();
        // The check and the request under cancelDelivery: the worker starts no statement in
        // between, nor before the request has been delivered (SessionActivity).
        const std::lock_guard<std::mutex> delivering(activity->cancelDelivery);
        if (!handle || !stillRunning() || !activity->statementOnServer.load())
            return Outcome<CancelResult>::success(nothingToCancel(role));
        activity->cancelRequested.store(job);
        QString why;
        if (!handle->send(&why)) {
            logger("backend.sql")->warn("cancelling on the {} failed: {}", roleTitle(role), why);
            return Outcome<CancelResult>::failure(
                DbError{role, DbError::Kind::Connection,
                        QStringLiteral("%1: the cancel request did not reach the server: %2").arg(roleTitle(role), why), {}});
        }
        return cancelled();
    }
    const QString name = QStringLiteral("triage-cancel-%1-%2").arg(roleName(role)).arg(s_cancelConnections.fetchAndAddRelaxed(1));
    try {
        DbSession session(profile, name); // no activity: this connection is not cancellable itself
        session.ensureOpen();
        if (!stillRunning())
            return Outcome<CancelResult>::success(nothingToCancel(role)); // it ended while we connected
        // From here on an interrupted statement of that job is the operator's cancel.
        activity->cancelRequested.store(job);
        bool sent = false;
        {
            SqlBuilder busy;
            const QString id = busy.bind(backendId);
            QSqlQuery q = session.exec(
                QStringLiteral("SELECT COUNT(*) FROM information_schema.processlist WHERE id = %1 AND command <> 'Sleep'").arg(id),
                busy);
            const bool running = q.next() && q.value(0).toLongLong() > 0;
            q.finish();
            if (running && stillRunning()) {
                // KILL QUERY takes an expression and is preparable: MariaDB lists KILL among
                // the statements PREPARE accepts, and `KILL QUERY ?` was checked against the
                // MariaDB 10.11 test server. So the id is bound, not formatted into the text.
                // A server that refuses to prepare it (ER_UNSUPPORTED_PS, 1295) gets the
                // integer formatted by us: it is a qint64 we read from CONNECTION_ID(), so
                // no text from outside reaches the statement. KILL QUERY ends the statement
                // and keeps the connection ("KILL [CONNECTION | QUERY]", MariaDB KB).
                SqlBuilder kill;
                const QString target = kill.bind(backendId);
                try {
                    try {
                        session.exec(QStringLiteral("KILL QUERY %1").arg(target), kill);
                    } catch (const DbException &e) {
                        if (e.error.nativeCode != QLatin1String("1295"))
                            throw;
                        session.execDirect(QStringLiteral("KILL QUERY %1").arg(backendId));
                    }
                    sent = true;
                } catch (const DbException &e) {
                    if (e.error.nativeCode != QLatin1String("1094")) // ER_NO_SUCH_THREAD: it disconnected
                        throw;
                }
            }
        }
        if (!sent)
            return Outcome<CancelResult>::success(nothingToCancel(role));
        return cancelled();
    } catch (const DbException &e) {
        logger("backend.sql")->warn("cancelling on the {} failed: {}", roleTitle(role), e.error.message);
        return Outcome<CancelResult>::failure(e.error);
    }
}

QFuture<Outcome<CancelResult>> cancelIf(DbWorker &worker, quint64 onlyToken)
{
    const ConnectionProfile profile = worker.profile();
    const DbRole role = profile.role;
    if (profile.dialect == Dialect::Sqlite) {
        return QtFuture::makeReadyFuture(Outcome<CancelResult>::success(CancelResult{
            role, CancelResult::Kind::NotSupported, 0,
            QStringLiteral("%1: cancelling a running query is not supported on SQLite (its statements run inside this "
                           "process, not on a server)")
                .arg(roleTitle(role))}));
    }
    const std::shared_ptr<SessionActivity> activity = worker.activity();
    // runningToken is published before runningJob and cleared after it, and job serials are
    // never reused: when runningJob reads the same serial before and after, the token read
    // in between is that job's.
    quint64 job = 0, token = 0;
    for (quint64 again = 1; job != again;) {
        job = activity->runningJob.load();
        token = activity->runningToken.load();
        again = activity->runningJob.load();
    }
    const qint64 backendId = activity->backendId.load();
    if (job == 0 || backendId == 0 || (onlyToken != 0 && token != onlyToken))
        return QtFuture::makeReadyFuture(Outcome<CancelResult>::success(nothingToCancel(role)));
    QThreadPool *pool = s_cancelPool();
    return QtConcurrent::run(pool,
                             [profile, activity, job, backendId]() {
                                 Outcome<CancelResult> r = sendCancel(profile, activity, job, backendId);
                                 // The pool's threads end on their own, possibly at exit: ThreadExit.h.
                                 releaseThreadLibraryState();
                                 return r;
                             });
}

} // namespace

QFuture<Outcome<CancelResult>> cancelRunningStatement(DbWorker &worker)
{
    return cancelIf(worker, 0);
}

QFuture<Outcome<CancelResult>> cancelRunningStatement(DbWorker &worker, const CancelToken &onlyFor)
{
    if (onlyFor.isNull())
        return QtFuture::makeReadyFuture(Outcome<CancelResult>::success(nothingToCancel(worker.profile().role)));
    return cancelIf(worker, onlyFor.id());
}

QFuture<QList<Outcome<CancelResult>>> cancelWork(const CancelToken &token, const QList<DbWorker *> &workers)
{
    token.cancel();
    QList<QFuture<Outcome<CancelResult>>> parts;
    QList<DbWorker *> seen;
    for (DbWorker *w : workers) {
        if (!w || seen.contains(w))
            continue;
        seen << w;
        parts << cancelRunningStatement(*w, token);
    }
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, valueChainPool(), [parts]() {
        QList<Outcome<CancelResult>> out;
        for (const auto &f : parts)
            out << f.result(); // finished
        return out;
    });
}

} // namespace triage
