#pragma once

#include "StoreRole.h"

#include <QString>

#include <exception>
#include <optional>
#include <utility>

namespace triage {

/// A database failure as the console reports it: which store, what kind, and a message
/// an operator can act on (it names the store and says why; never a password).
struct DbError {
    enum class Kind {
        Connection, ///< cannot connect, or the connection dropped (CLI exit 2)
        Statement,  ///< a statement failed (CLI exit 2)
        Privilege,  ///< the database user lacks a privilege (CLI exit 2, said plainly)
        Config,     ///< the workspace is misconfigured (CLI exit 1)
        /// The operator cancelled the statement (QueryCancel.h) or the job before it ran.
        /// Message: "<store>: query cancelled by the operator". Not a connection loss: the
        /// worker neither probes, reconnects nor retries; the next job reuses the connection.
        /// CLI exit 2, as any other database error.
        Cancelled,
        /// The server stopped the statement at its statement timeout (PostgreSQL SQLSTATE
        /// 57014 "canceling statement due to statement timeout", MariaDB errno 1969
        /// ER_STATEMENT_TIMEOUT, MySQL errno 3024 ER_QUERY_TIMEOUT). The message names the
        /// limit in milliseconds when it is known. Not a connection loss, never retried.
        /// CLI exit 2.
        StatementTimeout,
        /// A safety rule refused the write before anything changed: the database's console
        /// schema is newer than this build's (ConsoleSchema.h, DESIGN.md §10). The connection
        /// is fine and reading still works. CLI exit 4.
        Refused,
        /// Someone else already made the change (the daily review: the day is already signed
        /// off; the message names who and when). Nothing was written. CLI exit 3.
        Conflict,
    };
    DbRole role = DbRole::Idempotency;
    Kind kind = Kind::Statement;
    QString message;    ///< one line, for operators
    QString nativeCode; ///< SQLSTATE on PostgreSQL, errno on MySQL/MariaDB, or empty

    /// True for a unique-key violation: PostgreSQL SQLSTATE 23505, MySQL/MariaDB errno
    /// 1062, SQLite extended codes 2067 (UNIQUE) and 1555 (PRIMARY KEY).
    bool isUniqueViolation() const
    {
        return nativeCode == QLatin1String("23505") || nativeCode == QLatin1String("1062")
            || nativeCode == QLatin1String("2067") || nativeCode == QLatin1String("1555");
    }
};

/// Thrown inside worker jobs (DbSession helpers) and turned into Outcome::error by
/// DbWorker; it never crosses a thread boundary.
class DbException : public std::exception {
public:
    explicit DbException(DbError e) : error(std::move(e)), m_what(error.message.toUtf8()) {}
    const char *what() const noexcept override { return m_what.constData(); }
    DbError error;

private:
    QByteArray m_what;
};

/// The result of work done on a worker thread: a value or a DbError. Copyable, so it
/// can travel through QFuture.
template <typename T>
struct Outcome {
    std::optional<T> value;
    std::optional<DbError> error;

    static Outcome success(T v) { return Outcome{std::move(v), std::nullopt}; }
    static Outcome failure(DbError e) { return Outcome{std::nullopt, std::move(e)}; }
    bool ok() const { return value.has_value(); }
    const T &operator*() const { return *value; }
    const T *operator->() const { return &*value; }
};

/// Placeholder value for jobs that return nothing.
struct Done {};

/// The error of a job cancelled by the operator: kind Cancelled, message
/// "<store>: query cancelled by the operator" (store = roleTitle(role)).
inline DbError operatorCancelledError(DbRole role, const QString &nativeCode = {})
{
    return {role, DbError::Kind::Cancelled, QStringLiteral("%1: query cancelled by the operator").arg(roleTitle(role)),
            nativeCode};
}

/// The error of a statement stopped by the server's statement timeout: kind
/// StatementTimeout, message "<store>: query stopped by the server after the statement
/// timeout of <limitMs> ms", or "… after the server's statement timeout" when `limitMs` <= 0
/// (unknown). The limit comes from the URL's `statement_timeout` or the server's setting.
inline DbError statementTimeoutError(DbRole role, qint64 limitMs, const QString &nativeCode = {})
{
    const QString limit = limitMs > 0 ? QStringLiteral("the statement timeout of %1 ms").arg(limitMs)
                                      : QStringLiteral("the server's statement timeout");
    return {role, DbError::Kind::StatementTimeout,
            QStringLiteral("%1: query stopped by the server after %2").arg(roleTitle(role), limit), nativeCode};
}

} // namespace triage
