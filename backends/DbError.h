#pragma once

#include "ConnectionProfile.h"

#include <QSqlError>
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
    };
    DbRole role = DbRole::Idempotency;
    Kind kind = Kind::Statement;
    QString message;    ///< one line, for operators
    QString nativeCode; ///< SQLSTATE on PostgreSQL, errno on MySQL/MariaDB, or empty
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

} // namespace triage
