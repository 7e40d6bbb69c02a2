#include "DbSession.h"

#include "Log.h"

#include <QElapsedTimer>
#include <QSqlDriver>
#include <QSqlRecord>
#include <QThread>

namespace triage {

DbSession::DbSession(const ConnectionProfile &profile, const QString &connectionName,
                     std::shared_ptr<SessionActivity> activity)
    : m_profile(profile), m_dialect(profile.dialect), m_name(connectionName), m_activity(std::move(activity))
{
    m_db = QSqlDatabase::addDatabase(profile.driverName(), m_name);
}

DbSession::~DbSession()
{
    setBackendId(0);
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_name);
}

void DbSession::ensureOpen()
{
    if (m_db.isOpen())
        return;
    if (!m_db.isValid()) {
        throw DbException({role(), DbError::Kind::Config,
                           QStringLiteral("%1: the Qt SQL driver %2 is not installed").arg(roleTitle(role()), m_profile.driverName()),
                           {}});
    }
    m_columns.clear();
    m_memo.clear();
    setBackendId(0);
    m_statementTimeoutMs = 0;
    m_db.setDatabaseName(m_profile.database);
    if (m_profile.dialect != Dialect::Sqlite) {
        m_db.setHostName(m_profile.host);
        m_db.setPort(m_profile.port);
        m_db.setUserName(m_profile.user);
        m_db.setPassword(lookupPassword(m_profile));
    }
    m_db.setConnectOptions(m_profile.connectOptions());
    const bool opened = m_db.open();
    m_db.setPassword(QString()); // do not keep the secret around longer than needed
    if (!opened) {
        const QSqlError e = m_db.lastError();
        const QString why = e.driverText().isEmpty() ? e.text() : (e.driverText() + QStringLiteral(": ") + e.databaseText());
        throw DbException({role(), DbError::Kind::Connection,
                           QStringLiteral("cannot connect to the %1 (%2): %3")
                               .arg(roleTitle(role()), m_profile.displayUrl(), why.simplified()),
                           e.nativeErrorCode()});
    }
    try {
        switch (m_profile.dialect) {
        case Dialect::PostgreSql:
            // QPSQL never sets the session time zone (QT-NOTES.md).
            execDirect(QStringLiteral("SET TIME ZONE 'UTC'"));
            // init-schema's IF NOT EXISTS notices are not worth a line on stderr.
            execDirect(QStringLiteral("SET client_min_messages = warning"));
            if (m_profile.statementTimeoutMs > 0)
                execDirect(QStringLiteral("SET statement_timeout = %1").arg(m_profile.statementTimeoutMs));
            break;
        case Dialect::MySql:
            execDirect(QStringLiteral("SET NAMES utf8mb4"));
            execDirect(QStringLiteral("SET time_zone = '+00:00'"));
            // Refuse over-long values instead of truncating them (an audit reason must not be cut).
            execDirect(QStringLiteral("SET SESSION sql_mode = CONCAT_WS(',', @@SESSION.sql_mode, 'STRICT_ALL_TABLES')"));
            if (m_profile.statementTimeoutMs > 0) {
                // MariaDB: max_statement_time (seconds, fractional); MySQL: max_execution_time (ms).
                QSqlQuery q(m_db);
                if (!q.exec(QStringLiteral("SET SESSION max_statement_time = %1").arg(m_profile.statementTimeoutMs / 1000.0)))
                    execDirect(QStringLiteral("SET SESSION max_execution_time = %1").arg(m_profile.statementTimeoutMs));
            }
            break;
        case Dialect::Sqlite: {
            // Switching a new file to WAL takes an exclusive lock without calling the busy
            // handler: when several workers open the same new file at once, all but one get
            // "database is locked". Retry for as long as the busy timeout would have waited.
            QElapsedTimer waited;
            waited.start();
            for (;;) {
                QSqlQuery q(m_db);
                if (q.exec(QStringLiteral("PRAGMA journal_mode = WAL")))
                    break;
                const int code = q.lastError().nativeErrorCode().toInt() & 0xff; // primary result code
                const bool busy = code == 5 /* SQLITE_BUSY */ || code == 6 /* SQLITE_LOCKED */;
                if (!busy || waited.elapsed() > 5000)
                    throw DbException(makeError(q.lastError(), QStringLiteral("switching to WAL journal mode")));
                QThread::msleep(10);
            }
            execDirect(QStringLiteral("PRAGMA synchronous = NORMAL"));
            // LIKE is case-sensitive on PostgreSQL and on our MySQL columns (utf8mb4_bin): the
            // same key filter must match the same keys on SQLite (its LIKE folds ASCII case).
            execDirect(QStringLiteral("PRAGMA case_sensitive_like = ON"));
            break;
        }
        }
        readConnectionFacts();
    } catch (...) {
        setBackendId(0);
        m_db.close();
        throw;
    }
    if (m_backendId != 0)
        logger("backend.sql")->info("opened {} ({}), connection id {}", roleTitle(role()), m_profile.displayUrl(), m_backendId);
    else
        logger("backend.sql")->info("opened {} ({})", roleTitle(role()), m_profile.displayUrl());
}

void DbSession::readConnectionFacts()
{
    m_statementTimeoutMs = m_profile.statementTimeoutMs;
    switch (m_profile.dialect) {
    case Dialect::PostgreSql: {
        // pg_settings reports statement_timeout in its base unit, milliseconds.
        QSqlQuery q = queryDirect(QStringLiteral(
            "SELECT pg_backend_pid(), (SELECT setting FROM pg_settings WHERE name = 'statement_timeout')"));
        if (q.next()) {
            setBackendId(q.value(0).toLongLong());
            m_statementTimeoutMs = q.value(1).toLongLong();
        }
        break;
    }
    case Dialect::MySql: {
        QSqlQuery q = queryDirect(QStringLiteral("SELECT CONNECTION_ID()"));
        if (q.next())
            setBackendId(q.value(0).toLongLong());
        // MariaDB: max_statement_time in seconds (fractional); MySQL: max_execution_time in
        // ms. The one the server does not know fails; that is expected, not an error.
        QSqlQuery mariadb(m_db);
        if (mariadb.exec(QStringLiteral("SELECT @@SESSION.max_statement_time")) && mariadb.next()) {
            m_statementTimeoutMs = qRound64(mariadb.value(0).toDouble() * 1000.0);
        } else {
            QSqlQuery mysql(m_db);
            if (mysql.exec(QStringLiteral("SELECT @@SESSION.max_execution_time")) && mysql.next())
                m_statementTimeoutMs = mysql.value(0).toLongLong();
        }
        break;
    }
    case Dialect::Sqlite:
        break;
    }
}

void DbSession::setBackendId(qint64 id)
{
    m_backendId = id;
    if (m_activity)
        m_activity->backendId.store(id);
}

void DbSession::close()
{
    setBackendId(0);
    m_db.close();
}

bool DbSession::alive()
{
    if (!m_db.isOpen())
        return false;
    QSqlQuery q(m_db);
    return q.exec(QStringLiteral("SELECT 1")) && q.next();
}

DbError DbSession::makeError(const QSqlError &e, const QString &context) const
{
    DbError out;
    out.role = role();
    out.nativeCode = e.nativeErrorCode();
    // QPSQL's isOpen() follows libpq's status: once libpq noticed a broken socket (even in
    // a schema lookup), every later statement fails with an empty "database not open".
    const bool driverClosed = m_profile.dialect != Dialect::Sqlite && !m_db.isOpen();
    QString text = (e.databaseText().isEmpty() ? e.text() : e.databaseText()).simplified();
    if (text.isEmpty() && driverClosed)
        text = QStringLiteral("the connection is closed");
    const QString code = e.nativeErrorCode();
    const bool privilege = (m_profile.dialect == Dialect::PostgreSql && code == QLatin1String("42501"))
        || (m_profile.dialect == Dialect::MySql
            && (code == QLatin1String("1142") || code == QLatin1String("1143") || code == QLatin1String("1044")
                || code == QLatin1String("1227") || code == QLatin1String("1095") /* KILL: not owner */));
    // QSQLITE reports every failed sqlite3_step (a UNIQUE violation included) as a
    // ConnectionError, but a SQLite file has no connection to lose: trust the type elsewhere.
    const bool connection = driverClosed || (e.type() == QSqlError::ConnectionError && m_profile.dialect != Dialect::Sqlite)
        || (m_profile.dialect == Dialect::MySql && (code == QLatin1String("2006") || code == QLatin1String("2013")))
        || (m_profile.dialect == Dialect::PostgreSql
            && (code.startsWith(QLatin1String("08")) || code == QLatin1String("57P01")
                || text.contains(QLatin1String("server closed the connection"))
                || text.contains(QLatin1String("no connection to the server"))));
    // Interrupted statements (not connection losses: the connection stays usable).
    // PostgreSQL uses SQLSTATE 57014 query_canceled for both a cancel request and the
    // statement timeout, told apart only by the text; MariaDB has ER_STATEMENT_TIMEOUT
    // (1969) and ER_QUERY_INTERRUPTED (1317), MySQL ER_QUERY_TIMEOUT (3024).
    const bool pg = m_profile.dialect == Dialect::PostgreSql, my = m_profile.dialect == Dialect::MySql;
    const bool timedOut = !driverClosed
        && ((pg && code == QLatin1String("57014") && text.contains(QLatin1String("statement timeout")))
            || (my && (code == QLatin1String("1969") || code == QLatin1String("3024"))));
    const bool interrupted = !driverClosed && !timedOut
        && ((pg && code == QLatin1String("57014")) || (my && code == QLatin1String("1317")));
    const quint64 job = m_activity ? m_activity->runningJob.load() : 0;
    const bool cancelledHere = interrupted && job != 0 && m_activity->cancelRequested.load() == job;
    if (timedOut) {
        out = statementTimeoutError(role(), m_statementTimeoutMs, code);
        logger("backend.sql")->info("{} while {}: {}", out.message, context, text);
        return out;
    }
    if (cancelledHere) {
        out = operatorCancelledError(role(), code);
        logger("backend.sql")->info("{} while {}: {}", out.message, context, text);
        return out;
    }
    if (privilege) {
        out.kind = DbError::Kind::Privilege;
        out.message = QStringLiteral("permission denied on the %1 while %2: the database user \"%3\" lacks the "
                                     "privilege (%4)")
                          .arg(roleTitle(role()), context, m_profile.user, text);
    } else if (connection) {
        out.kind = DbError::Kind::Connection;
        out.message = QStringLiteral("lost the connection to the %1 while %2: %3").arg(roleTitle(role()), context, text);
    } else {
        out.kind = DbError::Kind::Statement;
        out.message = QStringLiteral("%1 failed while %2: %3").arg(roleTitle(role()), context, text);
    }
    return out;
}

QSqlQuery DbSession::exec(const QString &sql, const SqlBuilder &binds)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        throw DbException(makeError(q.lastError(), QStringLiteral("preparing a statement")));
    for (const auto &[name, value] : binds.values())
        q.bindValue(name, value);
    if (!q.exec()) {
        logger("backend.sql")->debug("failed statement on {}: {}", roleName(role()), sql);
        throw DbException(makeError(q.lastError(), QStringLiteral("running a statement")));
    }
    return q;
}

void DbSession::execDirect(const QString &sql)
{
    QSqlQuery q(m_db);
    if (!q.exec(sql))
        throw DbException(makeError(q.lastError(), QStringLiteral("running \"%1\"").arg(sql.left(60).simplified())));
}

QSqlQuery DbSession::queryDirect(const QString &sql)
{
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.exec(sql))
        throw DbException(makeError(q.lastError(), QStringLiteral("running \"%1\"").arg(sql.left(60).simplified())));
    return q;
}

void DbSession::begin()
{
    if (m_profile.dialect == Dialect::Sqlite) {
        // Take the write lock up front: a deferred transaction that reads, then writes,
        // fails with SQLITE_BUSY_SNAPSHOT instead of waiting for another writer.
        execDirect(QStringLiteral("BEGIN IMMEDIATE"));
        return;
    }
    if (!m_db.transaction())
        throw DbException(makeError(m_db.lastError(), QStringLiteral("starting a transaction")));
}

void DbSession::commit()
{
    if (!m_db.commit())
        throw DbException(makeError(m_db.lastError(), QStringLiteral("committing")));
}

void DbSession::rollback() noexcept
{
    m_db.rollback();
}

bool DbSession::hasTable(const QString &table)
{
    return m_db.tables().contains(table, Qt::CaseInsensitive);
}

QVariant DbSession::memo(const QString &key, const std::function<QVariant()> &compute)
{
    auto it = m_memo.find(key);
    if (it == m_memo.end())
        it = m_memo.insert(key, compute());
    return *it;
}

bool DbSession::hasColumn(const QString &table, const QString &column)
{
    auto it = m_columns.find(table);
    if (it == m_columns.end()) {
        QStringList cols;
        const QSqlRecord rec = m_db.record(table);
        for (int i = 0; i < rec.count(); ++i)
            cols << rec.fieldName(i).toLower();
        it = m_columns.insert(table, cols);
    }
    return it->contains(column.toLower());
}

} // namespace triage
