#include "Schema.h"

#include "Catalog.h"
#include "ConsoleSchema.h"
#include "IndexNeeds.h"
#include "Log.h"
#include "PolicySql.h"

#include <QFile>

namespace triage {

namespace {

/// The statements of the resource files `files` of `dialect` (see agentsTableStatements()).
QStringList statementsOf(Dialect dialect, const QStringList &files, const SchemaOptions &options)
{
    QStringList lines;
    for (const QString &file : files) {
        QFile f(QStringLiteral(":/schema/%1/%2.sql").arg(dialectName(dialect), file));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        lines << QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    }
    QStringList statements;
    QString current;
    QString tag;
    for (const QString &line : lines) {
        const QString trimmed = line.trimmed();
        if (current.isEmpty() && trimmed.startsWith(QLatin1String("-- @"))) {
            tag = trimmed.mid(4);
            continue;
        }
        if (current.isEmpty() && (trimmed.isEmpty() || trimmed.startsWith(QLatin1String("--"))))
            continue;
        current += line + QLatin1Char('\n');
        if (trimmed.endsWith(QLatin1Char(';'))) {
            QString stmt = current.trimmed();
            stmt.chop(1);
            const bool keep = tag.isEmpty() || (tag == QLatin1String("backstop") && options.ticketBackstop)
                || (tag == QLatin1String("no-backstop") && !options.ticketBackstop);
            if (keep)
                statements << stmt;
            current.clear();
            tag.clear();
        }
    }
    return statements;
}

/// Runs one CREATE … IF NOT EXISTS statement.
void runCreate(DbSession &session, QString stmt)
{
    if (session.dialect().kind() == Dialect::MySql && stmt.startsWith(QLatin1String("CREATE"))
        && stmt.contains(QLatin1String(" INDEX IF NOT EXISTS "))) {
        // MySQL 8 lacks CREATE INDEX IF NOT EXISTS (MariaDB has it): run it plain and
        // treat "duplicate key name" (1061) as already done.
        stmt.replace(QLatin1String(" INDEX IF NOT EXISTS "), QLatin1String(" INDEX "));
        try {
            session.execDirect(stmt);
        } catch (const DbException &e) {
            if (e.error.nativeCode != QLatin1String("1061"))
                throw;
        }
        return;
    }
    session.execDirect(stmt);
}

/// The role's agents' table as mapped, and whether the mapping is the default one for it.
std::pair<QString, bool> agentsTableOf(const SchemaMap &map, DbRole role)
{
    const SchemaMap defaults = SchemaMap::defaults();
    switch (role) {
    case DbRole::Idempotency: return {map.records.table, map.records == defaults.records};
    case DbRole::Intent: return {map.intents.table, map.intents == defaults.intents};
    case DbRole::Ticket: return {map.tickets.table, map.tickets == defaults.tickets};
    }
    return {};
}

/// Writes kConsoleSchemaVersion into triage_meta (never lowers it: a newer one was refused).
void recordSchemaVersion(DbSession &session)
{
    const SqlDialect &d = session.dialect();
    const QString version = QString::number(kConsoleSchemaVersion);
    SqlBuilder u;
    QSqlQuery q = session.exec(QStringLiteral("UPDATE triage_meta SET meta_value = %1, updated_at = %2 WHERE meta_key = %3")
                                   .arg(u.bind(version), d.nowValue(), u.bind(consoleSchemaVersionKey())),
                               u);
    if (q.numRowsAffected() > 0)
        return;
    SqlBuilder i;
    session.exec(QStringLiteral("INSERT INTO triage_meta (meta_key, meta_value, updated_at) VALUES (%1, %2, %3)")
                     .arg(i.bind(consoleSchemaVersionKey()), i.bind(version), d.nowValue()),
                 i);
}

} // namespace

int SchemaReport::statements() const
{
    int n = 0;
    for (const SchemaStoreReport &s : stores)
        n += s.statements;
    return n;
}

QStringList agentsTableStatements(Dialect dialect, DbRole role, const SchemaOptions &options)
{
    return statementsOf(dialect, {roleName(role)}, options);
}

QStringList consoleTableStatements(Dialect dialect, DbRole role)
{
    // The console-owned tables kept in each database (triage_audit, the incidents and the
    // reconciliation tables beside the idempotency records, triage_compensation beside the
    // intent log; triage_meta in both).
    switch (role) {
    case DbRole::Idempotency:
        return statementsOf(dialect, {QStringLiteral("audit"), QStringLiteral("incident"), QStringLiteral("reconcile"), QStringLiteral("review"),
                                         QStringLiteral("policy"), QStringLiteral("proposal"), QStringLiteral("meta")}, {});
    case DbRole::Intent: return statementsOf(dialect, {QStringLiteral("compensation"), QStringLiteral("meta")}, {});
    case DbRole::Ticket: return {};
    }
    return {};
}

QStringList schemaStatements(Dialect dialect, DbRole role, const SchemaOptions &options)
{
    return agentsTableStatements(dialect, role, options) + consoleTableStatements(dialect, role);
}

SchemaStoreReport createSchema(DbSession &session, const SchemaOptions &options, const SchemaMap &map)
{
    const Dialect dialect = session.dialect().kind();
    const DbRole role = session.role();
    const QStringList agents = agentsTableStatements(dialect, role, options);
    if (agents.isEmpty())
        throw DbException({role, DbError::Kind::Config,
                           QStringLiteral("no schema resource for %1 / %2").arg(dialectName(dialect), roleName(role)), {}});
    SchemaStoreReport report;
    report.role = role;
    const bool keepsMeta = role != DbRole::Ticket;
    if (keepsMeta) {
        // A console older than the database's schema changes nothing (DESIGN.md §10).
        report.schemaVersionBefore = storedConsoleSchemaVersion(session);
        if (report.schemaVersionBefore < 0 || report.schemaVersionBefore > kConsoleSchemaVersion)
            throw DbException(consoleSchemaRefusal(role, report.schemaVersionBefore));
    }

    const auto [table, defaultMap] = agentsTableOf(map, role);
    report.table = table;
    const bool exists = catalog_sql::tableExists(session, table);
    if (!exists && defaultMap) {
        // A demo or test database: the default table with its indexes.
        report.agentsTable = SchemaStoreReport::AgentsTable::Created;
        for (const QString &stmt : agents)
            runCreate(session, stmt);
        report.statements += int(agents.size());
    } else if (!exists) {
        report.agentsTable = SchemaStoreReport::AgentsTable::MappedMissing;
    } else {
        // The agents' table exists: never an index or ALTER on it; what the queues want is
        // listed for the DBA instead.
        report.agentsTable = defaultMap ? SchemaStoreReport::AgentsTable::Existing : SchemaStoreReport::AgentsTable::Mapped;
        const QVector<CatalogIndex> indexes = catalog_sql::indexesOf(session, table);
        for (const IndexNeed &need : indexNeeds(map, dialect, role)) {
            if (!need.agents)
                continue;
            if (!servingIndex(indexes, need)) // an unservable need's createSql is a SQL comment: no ';'
                report.wantedIndexes << need.createSql + (need.unservable.isEmpty() ? QStringLiteral(";") : QString());
        }
    }

    const QStringList console = consoleTableStatements(dialect, role);
    for (const QString &stmt : console)
        runCreate(session, stmt);
    report.statements += int(console.size());
    if (role == DbRole::Idempotency)
        policy_sql::ensureFreezeRow(session); // the row every writer locks shared (DESIGN.md §8 "Safety policy")
    if (keepsMeta && report.schemaVersionBefore != kConsoleSchemaVersion)
        recordSchemaVersion(session);
    logger("backend.sql")->info("schema for the {} is in place ({} statements)", roleTitle(role), report.statements);
    return report;
}

} // namespace triage
