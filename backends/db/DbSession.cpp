#include "DbSession.h"

#include "Log.h"
#include "PgStatement.h"
#include "SqlDriverRegistry.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QMutex>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSqlDriver>
#include <QSqlRecord>
#include <QThread>
#include <QWaitCondition>

#include <map>

namespace triage {

namespace {

/// A driver's message on one line: its lines joined, a line that ends without punctuation
/// ended by "." (libpq: "… Connection refused\n\tIs the server running …" reads
/// "… Connection refused. Is the server running …").
QString oneLine(const QString &text)
{
    QStringList lines;
    for (const QString &l : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (const QString t = l.simplified(); !t.isEmpty())
            lines << t;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        if (!QStringLiteral(".;:!?,").contains(lines[i].back()))
            lines[i] += QLatin1Char('.');
    return lines.join(QLatin1Char(' '));
}

/// What this process knows about logins with one credential (see loginState()).
struct CredentialState {
    bool attempting = false;  ///< a login that others wait for is in flight
    quint64 attempts = 0;     ///< serial of the latest such login
    quint64 failedAttempt = 0; ///< serial of the latest such login that failed (any reason)
    QString failure;          ///< that failure's reason, for the sessions that waited on it
    bool refused = false;     ///< the server refused this credential: never try it again
    QString refusedReason;    ///< the server's words
    DbRole refusedBy = DbRole::Idempotency;
    QDateTime refusedAt;
};

/// The one-login-per-credential rule (DbSession::ensureOpen()). A credential is (dialect,
/// host, port, user, password source, salted SHA-256 of the password): the secret itself is
/// never kept. Logins with one credential do not run side by side: the first one leads,
/// the others wait for it; if it fails they report its failure without trying themselves
/// (an unreachable server costs one connect timeout, a wrong password one failed login),
/// if it succeeds they log in in parallel. A refused credential stays refused for the
/// process (forgetRefusedLogins()).
QMutex g_loginMutex;
QWaitCondition g_loginChanged;
std::map<QByteArray, CredentialState> g_logins; // guarded by g_loginMutex; nodes are stable

QByteArray credentialKey(const ConnectionProfile &p, const PasswordLookup &password)
{
    static const QByteArray salt = [] {
        QByteArray s(16, '\0');
        QRandomGenerator::system()->generate(s.begin(), s.end());
        return s;
    }();
    QCryptographicHash secret(QCryptographicHash::Sha256);
    secret.addData(salt);
    secret.addData(password.secret.toUtf8());
    return QStringList{dialectName(p.dialect), p.host, QString::number(p.port), p.user, password.source}.join(QChar(0x1f)).toUtf8()
        + '\x1f' + secret.result().toHex();
}

} // namespace

void forgetRefusedLogins()
{
    QMutexLocker lock(&g_loginMutex);
    for (auto &[key, state] : g_logins) {
        state.refused = false;
        state.refusedReason.clear();
    }
}

bool DbSession::isAuthenticationFailure(Dialect dialect, const QSqlError &error)
{
    const QString code = error.nativeErrorCode();
    if (dialect == Dialect::MySql)
        return code == QLatin1String("1045") || code == QLatin1String("1698") || code == QLatin1String("3118")
            || code == QLatin1String("3955");
    if (dialect != Dialect::PostgreSql)
        return false;
    // QPSQL reports no SQLSTATE for a failed connect: libpq's message is all there is.
    if (code == QLatin1String("28P01") || code == QLatin1String("28000"))
        return true;
    const QString text = error.databaseText() + QLatin1Char(' ') + error.driverText();
    static const QRegularExpression unknownRole(QStringLiteral("role \"[^\"]*\" does not exist"));
    return text.contains(QLatin1String("authentication failed"), Qt::CaseInsensitive)
        || text.contains(QLatin1String("no password supplied"), Qt::CaseInsensitive)
        || text.contains(QLatin1String("no pg_hba.conf entry"), Qt::CaseInsensitive)
        || text.contains(QLatin1String("pg_hba.conf rejects"), Qt::CaseInsensitive) || text.contains(unknownRole);
}

DbSession::DbSession(const ConnectionProfile &profile, const QString &connectionName,
                     std::shared_ptr<SessionActivity> activity)
    : m_profile(profile), m_dialect(profile.dialect), m_name(connectionName), m_activity(std::move(activity))
{
    registerSqlDriversOnce(); // before the first addDatabase() of the process: SqlDriverRegistry.h
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
    m_db.setConnectOptions(m_profile.connectOptions());
    const QString cannot = QStringLiteral("cannot connect to the %1 (%2): ").arg(roleTitle(role()), m_profile.displayUrl());
    if (m_profile.dialect == Dialect::Sqlite) {
        if (!m_db.open()) {
            const QSqlError e = m_db.lastError();
            const QString why = e.driverText().isEmpty() ? e.text() : (e.driverText() + QStringLiteral(": ") + e.databaseText());
            throw DbException({role(), DbError::Kind::Connection, cannot + why.simplified(), e.nativeErrorCode()});
        }
    } else {
        m_db.setHostName(m_profile.host);
        m_db.setPort(m_profile.port);
        m_db.setUserName(m_profile.user);
        const PasswordLookup password = lookupPasswordWithSource(m_profile);
        const QString credential = QStringLiteral("the login as user \"%1\" on %2:%3 with the password from %4")
                                       .arg(m_profile.user, m_profile.host)
                                       .arg(m_profile.port)
                                       .arg(password.source);
        const QString remedy = QStringLiteral("this process does not try this credential again, so as not to lock the "
                                              "account: fix the user or password, then restart");
        CredentialState *state = nullptr;
        bool leader = false;
        quint64 serial = 0;
        {
            QMutexLocker lock(&g_loginMutex);
            state = &g_logins[credentialKey(m_profile, password)];
            quint64 awaited = 0;
            if (!state->refused && state->attempting) {
                awaited = state->attempts;
                while (state->attempting && !state->refused)
                    g_loginChanged.wait(&g_loginMutex);
            }
            if (state->refused) {
                throw DbException({role(), DbError::Kind::Connection,
                                   cannot + QStringLiteral("not trying again: %1 was refused at %2 UTC by the server (%3, on the "
                                                           "%4's connection); %5")
                                                .arg(credential, state->refusedAt.toString(QStringLiteral("HH:mm:ss")),
                                                     state->refusedReason, roleTitle(state->refusedBy), remedy),
                                   {}});
            }
            if (awaited != 0 && state->failedAttempt == awaited)
                throw DbException({role(), DbError::Kind::Connection, cannot + state->failure, {}});
            if (awaited == 0) { // nobody was logging in with it: this login leads
                leader = true;
                state->attempting = true;
                serial = ++state->attempts;
            }
        }
        m_db.setPassword(password.secret);
        const bool opened = m_db.open();
        m_db.setPassword(QString()); // do not keep the secret around longer than needed
        const QSqlError e = m_db.lastError();
        const QString why = oneLine(e.driverText().isEmpty() ? e.text() : (e.driverText() + QStringLiteral(": ") + e.databaseText()));
        const bool refused = !opened && isAuthenticationFailure(m_profile.dialect, e);
        {
            QMutexLocker lock(&g_loginMutex);
            if (refused && !state->refused) {
                state->refused = true;
                state->refusedReason = why;
                state->refusedBy = role();
                state->refusedAt = QDateTime::currentDateTimeUtc();
            }
            if (leader) {
                state->attempting = false;
                if (!opened) {
                    state->failedAttempt = serial;
                    state->failure = why;
                }
            }
            g_loginChanged.wakeAll();
        }
        if (!opened) {
            throw DbException({role(), DbError::Kind::Connection,
                               refused ? cannot + QStringLiteral("%1; %2 was refused by the server; %3").arg(why, credential, remedy)
                                       : cannot + why,
                               e.nativeErrorCode()});
        }
    }
    try {
        switch (m_profile.dialect) {
        case Dialect::PostgreSql:
            // QPSQL never sets the session time zone (docs/QT-PITFALLS.md).
            execDirect(QStringLiteral("SET TIME ZONE 'UTC'"));
            // init-schema's IF NOT EXISTS notices are not worth a line on stderr.
            execDirect(QStringLiteral("SET client_min_messages = warning"));
            // The statement timeout is set per statement (SET LOCAL, execPostgres()): a
            // session SET would not follow this client through a pooler (DESIGN.md §4).
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
        if (m_activity)
            m_activity->pgCancel.set(PgCancelHandle::fromDriver(m_db.driver()));
        if (q.next()) {
            setBackendId(q.value(0).toLongLong());
            if (m_profile.statementTimeoutMs <= 0)
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
    if (m_activity) {
        m_activity->backendId.store(id);
        if (id == 0)
            m_activity->pgCancel.set(nullptr);
    }
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
    if (m_profile.dialect == Dialect::PostgreSql)
        return execPostgres(sql, binds);
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

qint64 DbSession::insertReturningId(const QString &sql, const SqlBuilder &binds, const QString &idColumn)
{
    if (m_profile.dialect == Dialect::PostgreSql) {
        QSqlQuery q = exec(sql + QStringLiteral(" RETURNING ") + idColumn, binds);
        return q.next() ? q.value(0).toLongLong() : 0;
    }
    QSqlQuery q = exec(sql, binds);
    const QVariant id = q.lastInsertId();
    return id.isValid() ? id.toLongLong() : 0;
}

QSqlQuery DbSession::execPostgres(const QString &sql, const SqlBuilder &binds)
{
    QString why;
    const std::optional<QString> inlined = inlineBoundValues(sql, binds, m_db.driver(), &why);
    if (!inlined)
        throw DbException({role(), DbError::Kind::Statement,
                           QStringLiteral("%1: cannot run a statement: %2").arg(roleTitle(role()), why), {}});
    const QStringList preamble = pgStatementPreamble(m_profile.statementTimeoutMs);
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (m_activity) {
        // Not while a cancel meant for an earlier statement is being delivered (SessionActivity).
        const std::lock_guard<std::mutex> delivered(m_activity->cancelDelivery);
        m_activity->statementOnServer.store(true);
    }
    bool ok = q.exec(preamble.join(QStringLiteral("; ")) + QStringLiteral("; ") + *inlined);
    if (m_activity)
        m_activity->statementOnServer.store(false);
    for (qsizetype i = 0; ok && i < preamble.size(); ++i)
        ok = q.nextResult(); // past each SET LOCAL to the statement's own result
    if (!ok) {
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
