#pragma once

#include "WorkspaceConfig.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>

namespace triage::test {

/// The backends a data-driven test runs on: "sqlite", "postgresql", "mysql", and with
/// `withPooler` also "pgbouncer" (PostgreSQL reached through PgBouncer in transaction mode),
/// and with `withShop` also "sqlite/shop", "postgresql/shop", "mysql/shop": the same
/// backends holding the "shop" shape (ShopShape.h, DESIGN.md §10).
QStringList backendNames(bool withPooler = false, bool withShop = false);

/// Adds one QTest data row per backend (column "backend", a QString), as in qtbase's
/// tst_qsqlquerymodel.cpp. Call from a *_data() function after QTest::addColumn<QString>("backend").
/// `withPooler` adds the "pgbouncer" row (DESIGN.md §4: no session state a pooler breaks);
/// `withShop` the "<backend>/shop" rows.
void addBackendRows(bool withPooler = false, bool withShop = false);

/// The SQL dialect of a backend row: "postgresql" for "postgresql" and "pgbouncer", else
/// the name itself ("sqlite", "mysql"); a "/shop" suffix is ignored. Tests choose
/// dialect-specific SQL by this.
QString dialectOf(const QString &backend);

/// A fresh, empty database of one backend for one test, dropped again on destruction.
/// PostgreSQL and MariaDB databases are created on the servers that tests/run-all.sh
/// started (URLs in TRIAGE_TEST_PG_URL / TRIAGE_TEST_MYSQL_URL, passwords in
/// TRIAGE_TEST_PG_PASSWORD / TRIAGE_TEST_MYSQL_PASSWORD); SQLite is a file in a
/// temporary directory. When a server is not configured, available() is false and
/// skipReason() says why; with TRIAGE_TEST_REQUIRE_ALL_BACKENDS=1 (CI) the test must fail
/// instead of skipping — use TRIAGE_REQUIRE_BACKEND(db).
///
/// "pgbouncer": the database is created on the PostgreSQL server directly (admin
/// statements stay direct), and url() reaches it through the pooler that tests/run-all.sh
/// started (TRIAGE_TEST_PGBOUNCER_URL; its `* = host=… port=…` entry forwards every
/// database name, so a new database needs no reload).
class TestDatabase {
public:
    explicit TestDatabase(const QString &backend);
    ~TestDatabase();
    TestDatabase(const TestDatabase &) = delete;
    TestDatabase &operator=(const TestDatabase &) = delete;

    bool available() const { return m_available; }
    QString skipReason() const { return m_skipReason; }
    /// The backend without its shape ("mysql" for the row "mysql/shop").
    QString backend() const { return m_backend; }
    /// "shop" for a "<backend>/shop" row, else "" (the default schema).
    QString shape() const { return m_shape; }
    bool isShop() const { return m_shape == QLatin1String("shop"); }
    /// dialectOf(backend()).
    QString dialect() const { return dialectOf(m_backend); }
    /// The database's own name (per test and process, e.g. "t_tst_mark_1234_0").
    QString databaseName() const { return m_dbName; }
    /// The database URL (all three roles may use it).
    QString url() const { return m_url; }
    /// A workspace whose three connections all open this database (with the shop mapping
    /// on a shop row).
    WorkspaceConfig config() const;
    /// Runs `sql` directly as the admin (test setup only; not through the console's code).
    /// Returns the error text, empty on success.
    QString adminExec(const QString &sql) const;
    /// Runs a query as the admin and returns the first column of every row as text.
    QStringList adminQueryColumn(const QString &sql, QString *error = nullptr) const;

private:
    QString m_backend;
    QString m_shape;
    QString m_url;
    QString m_dbName;
    QString m_adminConnection;
    QString m_tempDir;
    bool m_available = false;
    QString m_skipReason;
};

/// PgBouncer's server connections for database `database`, counted by state ("active",
/// "idle", "used", …), from `SHOW SERVERS` on the pooler's admin console
/// (TRIAGE_TEST_PGBOUNCER_ADMIN_URL, password TRIAGE_TEST_PG_PASSWORD; libpq directly, as
/// the console speaks only the simple protocol). Empty with `*error` set on failure.
QHash<QString, int> poolerServerStates(const QString &database, QString *error);

/// True when CI demands every backend (TRIAGE_TEST_REQUIRE_ALL_BACKENDS=1, or CI set to anything).
bool requireAllBackends();

} // namespace triage::test

/// Skips (or, in CI, fails) the current test when `db` is not available.
#define TRIAGE_REQUIRE_BACKEND(db)                                                                       \
    do {                                                                                                 \
        if (!(db).available()) {                                                                         \
            if (triage::test::requireAllBackends())                                                      \
                QFAIL(qPrintable(QStringLiteral("backend required in CI: ") + (db).skipReason()));       \
            QSKIP(qPrintable((db).skipReason()));                                                        \
        }                                                                                                \
    } while (false)
