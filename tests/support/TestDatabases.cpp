#include "TestDatabases.h"

#include "ShopShape.h"

#include <QAtomicInt>
#include <QCoreApplication>
#include <QDir>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <libpq-fe.h>

namespace triage::test {

namespace {
QAtomicInt s_counter;
}

QStringList backendNames(bool withPooler, bool withShop)
{
    QStringList names{QStringLiteral("sqlite"), QStringLiteral("postgresql"), QStringLiteral("mysql")};
    if (withPooler)
        names << QStringLiteral("pgbouncer");
    if (withShop)
        names << QStringLiteral("sqlite/shop") << QStringLiteral("postgresql/shop") << QStringLiteral("mysql/shop");
    return names;
}

void addBackendRows(bool withPooler, bool withShop)
{
    for (const QString &b : backendNames(withPooler, withShop))
        QTest::newRow(qPrintable(b)) << b;
}

QString dialectOf(const QString &backend)
{
    const QString plain = backend.section(QLatin1Char('/'), 0, 0);
    return plain == QLatin1String("pgbouncer") ? QStringLiteral("postgresql") : plain;
}

bool requireAllBackends()
{
    return qEnvironmentVariable("TRIAGE_TEST_REQUIRE_ALL_BACKENDS") == QLatin1String("1") || !qEnvironmentVariableIsEmpty("CI");
}

QHash<QString, int> poolerServerStates(const QString &database, QString *error)
{
    const QUrl u(qEnvironmentVariable("TRIAGE_TEST_PGBOUNCER_ADMIN_URL"));
    if (u.isEmpty()) {
        *error = QStringLiteral("TRIAGE_TEST_PGBOUNCER_ADMIN_URL is not set (run the tests through tests/run-all.sh)");
        return {};
    }
    const QByteArray conninfo = QStringLiteral("host=%1 port=%2 user=%3 dbname=%4 password=%5 connect_timeout=10")
                                    .arg(u.host())
                                    .arg(u.port())
                                    .arg(u.userName(), u.path().mid(1), qEnvironmentVariable("TRIAGE_TEST_PG_PASSWORD"))
                                    .toUtf8();
    QHash<QString, int> byState;
    PGconn *conn = PQconnectdb(conninfo.constData());
    if (PQstatus(conn) != CONNECTION_OK) {
        *error = QString::fromUtf8(PQerrorMessage(conn)).trimmed();
        PQfinish(conn);
        return byState;
    }
    PGresult *r = PQexec(conn, "SHOW SERVERS");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        *error = QString::fromUtf8(PQerrorMessage(conn)).trimmed();
    } else {
        const int dbColumn = PQfnumber(r, "database"), stateColumn = PQfnumber(r, "state");
        for (int i = 0; i < PQntuples(r); ++i)
            if (QString::fromUtf8(PQgetvalue(r, i, dbColumn)) == database)
                ++byState[QString::fromUtf8(PQgetvalue(r, i, stateColumn))];
    }
    PQclear(r);
    PQfinish(conn);
    return byState;
}

TestDatabase::TestDatabase(const QString &row)
    : m_backend(row.section(QLatin1Char('/'), 0, 0)), m_shape(row.section(QLatin1Char('/'), 1, 1))
{
    const QString backend = m_backend;
    const int n = s_counter.fetchAndAddRelaxed(1);
    const QString app = QCoreApplication::applicationName().isEmpty() ? QStringLiteral("t")
                                                                      : QCoreApplication::applicationName();
    m_dbName = QStringLiteral("t_%1_%2_%3").arg(app.left(20)).arg(QCoreApplication::applicationPid()).arg(n).toLower();
    m_dbName.replace(QLatin1Char('-'), QLatin1Char('_'));
    if (backend == QLatin1String("sqlite")) {
        QTemporaryDir dir;
        dir.setAutoRemove(false);
        m_tempDir = dir.path();
        m_url = QStringLiteral("sqlite://") + m_tempDir + QStringLiteral("/test.db");
        m_available = true;
        return;
    }
    const bool pg = dialectOf(backend) == QLatin1String("postgresql");
    const bool pooled = backend == QLatin1String("pgbouncer");
    const QString serverUrl = qEnvironmentVariable(pg ? "TRIAGE_TEST_PG_URL" : "TRIAGE_TEST_MYSQL_URL");
    const QString password = qEnvironmentVariable(pg ? "TRIAGE_TEST_PG_PASSWORD" : "TRIAGE_TEST_MYSQL_PASSWORD");
    const QString poolerUrl = qEnvironmentVariable("TRIAGE_TEST_PGBOUNCER_URL");
    if (serverUrl.isEmpty() || (pooled && poolerUrl.isEmpty())) {
        m_skipReason = QStringLiteral("%1 not configured (run the tests through tests/run-all.sh)").arg(backend);
        return;
    }
    const QUrl u(serverUrl);
    m_adminConnection = QStringLiteral("admin-%1").arg(m_dbName);
    QSqlDatabase admin = QSqlDatabase::addDatabase(pg ? QStringLiteral("QPSQL") : QStringLiteral("QMYSQL"), m_adminConnection);
    admin.setHostName(u.host());
    admin.setPort(u.port(pg ? 5432 : 3306));
    admin.setUserName(u.userName());
    admin.setPassword(password);
    admin.setDatabaseName(u.path().mid(1));
    if (!admin.open()) {
        m_skipReason = QStringLiteral("cannot connect to %1: %2").arg(serverUrl, admin.lastError().text());
        return;
    }
    QSqlQuery q(admin);
    if (!q.exec(QStringLiteral("CREATE DATABASE %1").arg(m_dbName))) {
        m_skipReason = QStringLiteral("cannot create database %1: %2").arg(m_dbName, q.lastError().text());
        return;
    }
    // The console reads passwords from the environment only (DESIGN.md §5).
    qputenv("TRIAGE_DB_PASSWORD", password.toUtf8());
    QUrl dbUrl = pooled ? QUrl(poolerUrl) : u;
    dbUrl.setPath(QLatin1Char('/') + m_dbName);
    m_url = dbUrl.toString();
    // Admin statements for this test run inside the new database.
    admin.close();
    admin.setDatabaseName(m_dbName);
    if (!admin.open()) {
        m_skipReason = QStringLiteral("cannot open database %1: %2").arg(m_dbName, admin.lastError().text());
        return;
    }
    if (!pg)
        QSqlQuery(admin).exec(QStringLiteral("SET time_zone = '+00:00'"));
    else
        QSqlQuery(admin).exec(QStringLiteral("SET TIME ZONE 'UTC'"));
    m_available = true;
}

TestDatabase::~TestDatabase()
{
    if (!m_tempDir.isEmpty())
        QDir(m_tempDir).removeRecursively();
    if (m_adminConnection.isEmpty())
        return;
    {
        QSqlDatabase admin = QSqlDatabase::database(m_adminConnection, false);
        if (admin.isOpen() && m_available) {
            const bool pg = dialect() == QLatin1String("postgresql");
            admin.close();
            admin.setDatabaseName(QUrl(qEnvironmentVariable(pg ? "TRIAGE_TEST_PG_URL" : "TRIAGE_TEST_MYSQL_URL")).path().mid(1));
            if (admin.open()) {
                QSqlQuery q(admin);
                q.exec(pg ? QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(m_dbName)
                          : QStringLiteral("DROP DATABASE IF EXISTS %1").arg(m_dbName));
            }
        }
        admin.close();
    }
    QSqlDatabase::removeDatabase(m_adminConnection);
}

WorkspaceConfig TestDatabase::config() const
{
    WorkspaceConfig c;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString error;
        auto p = ConnectionProfile::fromUrl(m_url, role, &error);
        if (p)
            c.setProfile(*p);
    }
    c.operatorName = QStringLiteral("test-operator");
    if (isShop())
        c.schema = shopSchemaMap();
    return c;
}

QString TestDatabase::adminExec(const QString &sql) const
{
    if (m_backend == QLatin1String("sqlite")) {
        const QString name = QStringLiteral("sqlite-admin-%1").arg(m_dbName);
        QString err;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(m_tempDir + QStringLiteral("/test.db"));
            db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
            if (!db.open())
                err = db.lastError().text();
            else {
                QSqlQuery q(db);
                if (!q.exec(sql))
                    err = q.lastError().text();
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(name);
        return err;
    }
    QSqlDatabase admin = QSqlDatabase::database(m_adminConnection, false);
    QSqlQuery q(admin);
    return q.exec(sql) ? QString() : q.lastError().text();
}

QStringList TestDatabase::adminQueryColumn(const QString &sql, QString *error) const
{
    QStringList out;
    auto run = [&](QSqlDatabase db) {
        QSqlQuery q(db);
        if (!q.exec(sql)) {
            if (error)
                *error = q.lastError().text();
            return;
        }
        while (q.next())
            out << (q.value(0).isNull() ? QStringLiteral("NULL") : q.value(0).toString());
    };
    if (m_backend == QLatin1String("sqlite")) {
        const QString name = QStringLiteral("sqlite-adminq-%1").arg(m_dbName);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(m_tempDir + QStringLiteral("/test.db"));
            db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
            if (db.open())
                run(db);
            db.close();
        }
        QSqlDatabase::removeDatabase(name);
        return out;
    }
    run(QSqlDatabase::database(m_adminConnection, false));
    return out;
}

} // namespace triage::test
