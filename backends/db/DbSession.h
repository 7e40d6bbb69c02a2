#pragma once

#include "CancelToken.h"
#include "ConnectionProfile.h"
#include "DbError.h"
#include "SqlBuilder.h"
#include "SqlDialect.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <functional>
#include <memory>

namespace triage {

/// One open connection to one store, used only on the worker thread that owns it
/// (docs/QT-PITFALLS.md: a QSqlDatabase belongs to the thread that opened it). Every helper
/// prepares and binds; failures throw DbException with a message naming the store.
///
/// A worker's session publishes its server-side connection id and learns of operator
/// cancels through `activity` (QueryCancel.h); a short-lived session (the cancel
/// connection itself) passes none.
class DbSession {
public:
    DbSession(const ConnectionProfile &profile, const QString &connectionName,
              std::shared_ptr<SessionActivity> activity = nullptr);
    ~DbSession();
    DbSession(const DbSession &) = delete;
    DbSession &operator=(const DbSession &) = delete;

    const ConnectionProfile &profile() const { return m_profile; }
    const SqlDialect &dialect() const { return m_dialect; }
    DbRole role() const { return m_profile.role; }
    QSqlDatabase &db() { return m_db; }

    /// Opens the connection if it is not open and pins the session: time zone UTC,
    /// statement timeout (PostgreSQL: both per statement instead, SET LOCAL in exec(), so
    /// they hold behind a pooler; DESIGN.md §4 "Poolers"); on SQLite WAL (retried while another connection holds the lock)
    /// and case-sensitive LIKE, as on the other backends. Then reads the server's id for
    /// the connection (PostgreSQL pg_backend_pid(), MySQL/MariaDB CONNECTION_ID(); kept in
    /// backendId() and the SessionActivity) and the statement timeout in force (for
    /// messages). Throws DbException(Connection) naming the store.
    ///
    /// One login attempt per credential (a wrong password must not lock the account): the
    /// login runs under the process-wide rule of loginGate() below, so every connection of
    /// the process — the three stores' workers, the cancel connection, a re-open after a
    /// drop — shares it. A credential whose login the server refused is not tried again;
    /// the DbException then says which store and user failed, with which password source,
    /// and that the console does not retry.
    void ensureOpen();
    /// Closes the connection (the next ensureOpen() reconnects). backendId() becomes 0.
    void close();
    /// The server's id for the open connection (see ensureOpen()); 0 when closed or on SQLite.
    qint64 backendId() const { return m_backendId; }
    /// The statement timeout in force on the open connection, in milliseconds, as the
    /// server reported it after connecting (PostgreSQL statement_timeout, MariaDB
    /// max_statement_time, MySQL max_execution_time; a role or server default counts too);
    /// 0 when none or unknown.
    qint64 statementTimeoutMs() const { return m_statementTimeoutMs; }
    /// True when a trivial statement still succeeds (used after a failure, to tell a
    /// dropped connection from a failed statement).
    bool alive();

    /// Prepares (forward-only), binds `binds` and executes; on PostgreSQL runs it unprepared
    /// with the values inlined by the driver's escaping instead (execPostgres()). Throws
    /// DbException.
    QSqlQuery exec(const QString &sql, const SqlBuilder &binds = {});
    /// Runs an INSERT of one row (exec()) and returns the id the database gave it; 0 when
    /// none. On PostgreSQL the id comes back in the same statement (`RETURNING <idColumn>`):
    /// QPSQL's lastInsertId() runs `SELECT lastval()` separately, a second round trip that
    /// behind a pooler may reach another client's session (DESIGN.md §4 "Poolers"); elsewhere
    /// the driver's lastInsertId(). Throws DbException.
    qint64 insertReturningId(const QString &sql, const SqlBuilder &binds, const QString &idColumn = QStringLiteral("id"));
    /// Same for a statement without bound values that must not be prepared (DDL,
    /// session settings). Throws DbException.
    void execDirect(const QString &sql);
    /// Executes a statement that carries no values and cannot be prepared (EXPLAIN on
    /// PostgreSQL) and returns its rows. Throws DbException.
    QSqlQuery queryDirect(const QString &sql);
    void begin();
    void commit();
    void rollback() noexcept;

    /// True when `table` has `column` (cached per session).
    bool hasColumn(const QString &table, const QString &column);
    /// True when `table` exists.
    bool hasTable(const QString &table);
    /// A per-connection memo: returns the value cached under `key`, computing it with
    /// `compute` on first use (cleared whenever the connection is re-opened). For facts
    /// about the schema that do not change while connected (column precision, …).
    QVariant memo(const QString &key, const std::function<QVariant()> &compute);
    /// Drops the memo under `key` (the next memo() computes it again).
    void forgetMemo(const QString &key) { m_memo.remove(key); }

    /// Builds the DbError for a failed QSqlError, classifying privilege and connection
    /// errors, with `context` ("reading the Unknown queue") in the message. A statement the
    /// server stopped at its statement timeout becomes Kind::StatementTimeout
    /// (statementTimeoutError()); one interrupted after an operator's cancel of the running
    /// job (SessionActivity::cancelRequested) becomes Kind::Cancelled
    /// (operatorCancelledError()). An interruption nobody here asked for stays Statement.
    DbError makeError(const QSqlError &e, const QString &context) const;

    /// True when a failed open() is the server refusing the credential (PostgreSQL
    /// "password authentication failed", "no pg_hba.conf entry", an unknown role, …;
    /// MySQL/MariaDB errno 1045 ER_ACCESS_DENIED_ERROR, 1698, 3118 and 3955 account locked /
    /// blocked), rather than an unreachable server.
    static bool isAuthenticationFailure(Dialect dialect, const QSqlError &error);

private:
    void readConnectionFacts();
    /// exec() on PostgreSQL: the values inlined with the driver's escaping
    /// (inlineBoundValues()) and pgStatementPreamble() in front, unprepared, one round trip
    /// (DESIGN.md §4 "Poolers"). Throws DbException.
    QSqlQuery execPostgres(const QString &sql, const SqlBuilder &binds);
    void setBackendId(qint64 id);

    ConnectionProfile m_profile;
    SqlDialect m_dialect;
    QString m_name;
    QSqlDatabase m_db;
    QHash<QString, QStringList> m_columns;
    QHash<QString, QVariant> m_memo;
    std::shared_ptr<SessionActivity> m_activity; ///< may be null
    qint64 m_backendId = 0;
    qint64 m_statementTimeoutMs = 0;
};

/// Forgets every credential refused so far in this process (see DbSession::ensureOpen()),
/// so the next open tries each once more. For tests, and for an explicit operator action
/// after the credential was changed; nothing calls it by itself.
void forgetRefusedLogins();

} // namespace triage
