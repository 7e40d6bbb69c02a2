#pragma once

#include "DbError.h"
#include "PgCancel.h"

#include <QFuture>
#include <QList>
#include <QString>

#include <atomic>
#include <memory>

namespace triage {

class DbWorker;

// Cancelling a running query (issue #6).
//
// Qt SQL cannot interrupt a statement from another thread: QSqlQuery::exec() blocks the
// worker thread until the server answers. The server can, though: PostgreSQL takes
// libpq's protocol-level cancel request carrying the connection's cancel key (PgCancel.h;
// PgBouncer forwards it to the server connection serving that client, where
// `pg_cancel_backend(pid)` with a pid read at open could hit another client's backend), and
// MySQL/MariaDB take `KILL QUERY <connection id>` over a SECOND connection (ends the
// statement, keeps the connection; a user may always kill the statements of its own
// connections). The worker's connection id is read right after connecting
// (pg_backend_pid(), CONNECTION_ID()) and kept in SessionActivity.
//
// SQLite statements run inside this process, not on a server: cancelling is reported as
// not supported (sqlite3_interrupt() would need the SQLite library as a direct dependency).

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

/// What a cancel request did (the cancelled job itself reports DbError::Kind::Cancelled
/// through its own Outcome).
struct CancelResult {
    enum class Kind {
        Cancelled,       ///< the server accepted the cancel for a running statement
        NothingToCancel, ///< no statement (of the given token) was running on the connection
        NotSupported,    ///< SQLite: statements run in this process; nothing to send
    };
    DbRole role = DbRole::Idempotency;
    Kind kind = Kind::NothingToCancel;
    /// The server's connection id the cancel was sent for (pg_backend_pid(), CONNECTION_ID());
    /// 0 when nothing was sent.
    qint64 backendId = 0;
    /// One line for operators. Exactly "nothing to cancel" for NothingToCancel;
    /// "<store>: cancelling a running query is not supported on SQLite (…)" for NotSupported;
    /// "<store>: asked the server to cancel the running query (connection <id>)" for Cancelled.
    QString message;

    /// True when a cancel reached the server for a running statement.
    bool cancelled() const { return kind == Kind::Cancelled; }
};

/// Cancels the statement running now on `worker`'s connection, whatever job it belongs to.
/// Returns at once; the work happens on a dedicated thread pool (never the calling thread,
/// never the busy worker thread): on PostgreSQL libpq's cancel request for the worker's
/// own connection (PgCancelHandle; only while a statement waits for the server), on
/// MySQL/MariaDB a short-lived second connection with the worker's own ConnectionProfile
/// (same user, TLS and password source) sends `KILL QUERY :id` (only while
/// information_schema.processlist shows it busy), the id bound as a value. The cancelled job's Outcome then carries
/// DbError::Kind::Cancelled ("<store>: query cancelled by the operator"); the worker keeps
/// its connection (no reconnect, no retry).
///
/// Outcome value: CancelResult (Cancelled, NothingToCancel, NotSupported on SQLite).
/// Outcome error: the second connection could not be opened or the cancel statement failed
/// (Connection, Privilege or Statement kind, naming the store).
///
/// Race, inherent to any server-side cancel: if the statement ends and the worker starts
/// its next job in the round trip between the last check and the cancel reaching the
/// server, that next statement is interrupted instead; it then fails as a plain statement
/// error ("canceling statement due to user request" / "Query execution was interrupted"),
/// never silently.
QFuture<Outcome<CancelResult>> cancelRunningStatement(DbWorker &worker);

/// The same, but only when the running job was submitted under `onlyFor` (a CancelScope);
/// otherwise NothingToCancel. Does not cancel the token itself (see cancelWork()).
QFuture<Outcome<CancelResult>> cancelRunningStatement(DbWorker &worker, const CancelToken &onlyFor);

/// Cancels everything submitted under `token`: marks it cancelled (jobs not started yet
/// fail with Kind::Cancelled without running) and cancels its running statement on each of
/// `workers` (the stores the work went to; the same worker twice is asked once). One
/// Outcome per distinct worker, in order. `workers` must outlive the call only (the cancel
/// tasks copy what they need).
QFuture<QList<Outcome<CancelResult>>> cancelWork(const CancelToken &token, const QList<DbWorker *> &workers);

/// The error of a job cancelled by the operator: kind Cancelled, message
/// "<store>: query cancelled by the operator" (store = roleTitle(role)).
DbError operatorCancelledError(DbRole role, const QString &nativeCode = {});

/// The error of a statement stopped by the server's statement timeout: kind
/// StatementTimeout, message "<store>: query stopped by the server after the statement
/// timeout of <limitMs> ms", or "… after the server's statement timeout" when `limitMs` <= 0
/// (unknown). The limit comes from the URL's `statement_timeout` or the server's setting.
DbError statementTimeoutError(DbRole role, qint64 limitMs, const QString &nativeCode = {});

} // namespace triage
