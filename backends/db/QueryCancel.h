#pragma once

#include "CancelToken.h"
#include "ConnectionProfile.h"
#include "DbError.h"

#include <QFuture>
#include <QList>
#include <QString>

#include <atomic>
#include <memory>

namespace triage {

class DbWorker;

// Cancelling a running query.
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

} // namespace triage
