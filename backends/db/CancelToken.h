#pragma once

#include "PgCancel.h"

#include <QtGlobal>

#include <atomic>
#include <memory>
#include <mutex>

namespace triage {

// The cancel token and the activity facts a cancel needs: plain flags shared between
// threads, no SQL. The server-side cancel that uses them is in QueryCancel.h.

/// Thread-safe facts about one worker's connection, shared (by shared_ptr) between the
/// DbWorker, the DbSession on its thread and cancel tasks on the cancel pool. Written only
/// by the worker thread; read from any thread.
struct SessionActivity {
    /// The server's id for the open connection: PostgreSQL pg_backend_pid(), MySQL/MariaDB
    /// CONNECTION_ID(). 0 while closed, and always on SQLite.
    std::atomic<qint64> backendId{0};
    /// Serial number (1, 2, …, per worker) of the job running now; 0 while idle.
    std::atomic<quint64> runningJob{0};
    /// CancelToken::id() the running job was submitted under; 0 when none.
    std::atomic<quint64> runningToken{0};
    /// Serial of the job whose statement an operator asked to cancel (set by the cancel
    /// task just before it sends the cancel). An interrupted statement of that job becomes
    /// DbError::Kind::Cancelled; any other interruption stays a plain statement error.
    std::atomic<quint64> cancelRequested{0};
    /// PostgreSQL: the open connection's cancel request (null while closed, and elsewhere).
    PgCancelSlot pgCancel;
    /// PostgreSQL: true while a statement of DbSession::exec() waits for the server (a job
    /// busy in the client has nothing to cancel).
    std::atomic<bool> statementOnServer{false};
    /// PostgreSQL: held by a cancel task from its last "still running?" check to the end of
    /// its cancel request, and taken by DbSession::exec() before a statement starts. A
    /// statement therefore never starts while a cancel meant for the one before is still
    /// being delivered: the postmaster signals the backend twice (its pid, then its process
    /// group), and a second SIGINT landing after the next statement was read cancels that
    /// one. Once PQcancel() has returned both signals are pending, and the backend drops a
    /// cancel that is pending when it reads its next command (DESIGN.md §4 "Cancel").
    std::mutex cancelDelivery;
};

/// A handle on a group of jobs that can be cancelled together (e.g. one queue load: its
/// page and its count, on one or two workers). Copies share one state; a default-constructed
/// token is null (isNull()) and never cancelled. Thread-safe.
///
/// Jobs are tagged with a token by submitting them inside a CancelScope (DbWorker::run()
/// reads CancelToken::current()), so work submitted through Workspace, which takes no token
/// parameter, can still be tagged by its caller.
class CancelToken {
public:
    /// A null token: tags nothing, isCancelled() is false, cancel() does nothing.
    CancelToken() = default;
    /// A fresh token with a process-unique id (> 0), not cancelled.
    static CancelToken create();
    /// The token of the innermost CancelScope alive on the calling thread, or a null token.
    static CancelToken current();

    /// True for a default-constructed token (tags nothing).
    bool isNull() const { return !m_state; }
    /// Process-unique id (> 0), 0 for a null token.
    quint64 id() const { return m_state ? m_state->id : 0; }
    /// True once cancel() was called on any copy.
    bool isCancelled() const { return m_state && m_state->cancelled.load(); }
    /// Marks the token cancelled (for good). Jobs carrying it that have not started yet fail
    /// with DbError::Kind::Cancelled without running; a job already running is not touched
    /// here: use cancelRunningStatement(worker, token) or cancelWork() to stop its statement.
    void cancel() const
    {
        if (m_state)
            m_state->cancelled.store(true);
    }

private:
    struct State {
        quint64 id = 0;
        std::atomic<bool> cancelled{false};
    };
    std::shared_ptr<State> m_state;
};

/// While alive, every DbWorker::run() called on this thread tags its job with `token`
/// (RAII; scopes nest, the innermost wins; a null token untags). Not copyable.
/// Thread-local: jobs that a Workspace method submits later from its merge pool (initSchema,
/// seed, the duplicate-group readers) are not tagged; capture CancelToken::current() and
/// open a scope inside such a task to tag them.
class CancelScope {
public:
    explicit CancelScope(const CancelToken &token);
    ~CancelScope();
    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;

private:
    CancelToken m_previous;
};

} // namespace triage
