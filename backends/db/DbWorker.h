#pragma once

#include "CancelToken.h"
#include "DbSession.h"
#include "OpenCheck.h"

#include <QFuture>
#include <QObject>
#include <QPointer>
#include <QPromise>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>

namespace triage {

/// Owns one store's connection on a thread of its own (DESIGN.md §3: no SQL on the GUI
/// thread). Jobs are functions `T(DbSession&)` run in submission order on that thread;
/// each result comes back as a QFuture<Outcome<T>>.
///
/// Connection handling: the connection opens lazily on the first job. When a job fails
/// and a probe shows the connection is gone (server restart, idle timeout), the session
/// is re-opened and — for jobs submitted with Retry::OnReconnect (reads) — the job runs
/// once more; connectionEvent() reports both the loss and the re-open. Writes use
/// Retry::Never: their outcome after a drop must be re-read, never re-sent blindly.
///
/// Cancelling (QueryCancel.h): the worker publishes, thread-safely, its connection's
/// server-side id and which job is running (activity()); cancelRunningStatement() uses them
/// from another thread. A statement cancelled by the operator (DbError::Kind::Cancelled) or
/// stopped by the server's statement timeout (Kind::StatementTimeout) is neither retried
/// nor taken for a connection loss: no probe, no reconnect, no connectionEvent(); the next
/// job runs on the same connection.
class DbWorker : public QObject {
    Q_OBJECT
public:
    enum class Retry { OnReconnect, Never };

    explicit DbWorker(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~DbWorker() override;

    const ConnectionProfile &profile() const { return m_profile; }

    /// The server's id for the worker's connection (PostgreSQL pg_backend_pid(),
    /// MySQL/MariaDB CONNECTION_ID()), read right after each (re-)connect; 0 while not
    /// connected and always on SQLite. Thread-safe.
    qint64 backendId() const { return m_activity->backendId.load(); }
    /// True while a job runs on the worker thread (its statements may be running on the
    /// server). Thread-safe; a snapshot that may be stale as soon as it is read.
    bool isBusy() const { return m_activity->runningJob.load() != 0; }
    /// The shared, thread-safe state behind backendId() and isBusy() (for QueryCancel).
    std::shared_ptr<SessionActivity> activity() const { return m_activity; }

    /// Installs `check` (null: none), which every job submitted after this call passes
    /// first, on the worker thread after the connection opened (OpenCheck.h, DESIGN.md §10
    /// "Checked at open"): a store that fails it fails each job with the check's DbError
    /// (kind Config), and the first such failure on this worker is also reported by
    /// connectionEvent(role, false, message). Thread-safe; Workspace::setOpenCheck() installs
    /// one check on the store's worker and its bulk workers.
    void setOpenCheck(std::shared_ptr<OpenCheck> check);

    /// Queues `job` on the worker thread. Thread-safe; callable from any thread.
    /// The job carries CancelToken::current() of the calling thread (see CancelScope):
    /// when that token is cancelled before the job's turn comes, the job does not run and
    /// its Outcome is operatorCancelledError().
    template <typename T>
    QFuture<Outcome<T>> run(std::function<T(DbSession &)> job, Retry retry = Retry::OnReconnect)
    {
        m_submitted.fetch_add(1);
        auto promise = std::make_shared<QPromise<Outcome<T>>>();
        QFuture<Outcome<T>> future = promise->future();
        promise->start();
        QMetaObject::invokeMethod(
            m_context,
            [this, promise, job = std::move(job), retry, token = CancelToken::current()]() {
                if (token.isCancelled())
                    promise->addResult(Outcome<T>::failure(operatorCancelledError(m_profile.role)));
                else
                    promise->addResult(execute<T>(job, retry, token.id()));
                promise->finish();
            },
            Qt::QueuedConnection);
        return future;
    }

    /// How many jobs run() has queued so far. Thread-safe.
    quint64 submittedJobs() const { return m_submitted.load(); }
    /// Returns once every job queued before this call has run and finished its future, so the
    /// continuations those futures start have been handed on (e.g. to a thread pool). Opens
    /// nothing. Call from another thread than the worker's, never from a job.
    void waitForQueuedJobs();

signals:
    /// The store's connection changed: `up` false with the reason when it failed or
    /// dropped, true with a note when it was (re-)opened. Emitted from the worker thread.
    void connectionEvent(triage::DbRole role, bool up, const QString &message);

private:
    /// Publishes the running job in SessionActivity for as long as it lives (worker thread).
    class RunningJob {
    public:
        RunningJob(SessionActivity &activity, quint64 serial, quint64 token) : m_activity(activity)
        {
            m_activity.runningToken.store(token);
            m_activity.runningJob.store(serial);
        }
        ~RunningJob()
        {
            m_activity.runningJob.store(0);
            m_activity.runningToken.store(0);
        }
        RunningJob(const RunningJob &) = delete;
        RunningJob &operator=(const RunningJob &) = delete;

    private:
        SessionActivity &m_activity;
    };

    template <typename T>
    Outcome<T> execute(const std::function<T(DbSession &)> &job, Retry retry, quint64 token)
    {
        for (int attempt = 0;; ++attempt) {
            try {
                openIfNeeded(); // throws Connection when the server cannot be reached
            } catch (const DbException &e) {
                return Outcome<T>::failure(e.error);
            }
            try {
                RunningJob running(*m_activity, ++m_jobSerial, token);
                if (m_openCheck)
                    requireOpenCheck();
                return Outcome<T>::success(job(*m_session));
            } catch (const DbException &e) {
                // A cancel or a statement timeout leaves the connection usable: no probe
                // (inside an aborted PostgreSQL transaction it would fail and look like a drop).
                const DbError::Kind k = e.error.kind;
                if (k == DbError::Kind::Config || k == DbError::Kind::Cancelled || k == DbError::Kind::StatementTimeout
                    || k == DbError::Kind::Refused
                    || m_session->alive())
                    return Outcome<T>::failure(e.error);
                // The statement failed because the connection is gone.
                noteDropped(e.error.message);
                if (retry == Retry::OnReconnect && attempt == 0)
                    continue;
                DbError lost = e.error;
                lost.kind = DbError::Kind::Connection;
                return Outcome<T>::failure(lost);
            } catch (const std::exception &e) {
                return Outcome<T>::failure({m_profile.role, DbError::Kind::Statement,
                                            QStringLiteral("%1: %2").arg(roleTitle(m_profile.role), QString::fromUtf8(e.what())),
                                            {}});
            }
        }
    }
    void openIfNeeded();
    void noteDropped(const QString &why);
    /// m_openCheck->require(), reporting its first refusal by connectionEvent(). Throws DbException.
    void requireOpenCheck();

    ConnectionProfile m_profile;
    QThread m_thread;
    QObject *m_context = nullptr;           ///< lives in m_thread; jobs are queued to it
    std::unique_ptr<DbSession> m_session;   ///< created, used and destroyed in m_thread
    std::shared_ptr<SessionActivity> m_activity = std::make_shared<SessionActivity>();
    quint64 m_jobSerial = 0;                ///< last job serial (worker thread only)
    std::atomic<quint64> m_submitted{0};    ///< jobs queued by run() (any thread)
    bool m_wasOpen = false;                 ///< opened successfully at least once
    bool m_reportedDown = false;
    std::shared_ptr<OpenCheck> m_openCheck; ///< worker thread only (set through m_context)
    bool m_reportedCheck = false;           ///< its refusal was reported by connectionEvent()
};

} // namespace triage
