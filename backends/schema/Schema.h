#pragma once

#include "DbSession.h"
#include "SchemaMap.h"

#include <QFuture>
#include <QStringList>
#include <QVector>

namespace triage {

/// Options for creating the schema (DESIGN.md §4, §10, resources/schema/).
struct SchemaOptions {
    /// Create UNIQUE(idem_key) on ticket, the backstop. Off only for demo and test
    /// workspaces that must reproduce a breached defence (duplicate-key groups). Applies only
    /// when init-schema creates the default ticket table itself.
    bool ticketBackstop = true;
};

/// What init-schema did on one store (DESIGN.md §10).
struct SchemaStoreReport {
    /// What became of the store's agents' table.
    enum class AgentsTable {
        Created,        ///< the default table did not exist: created with its indexes (demo and test databases)
        Existing,       ///< the default table exists: nothing was run on it
        Mapped,         ///< a mapped ([*.map]) table that exists: never created nor altered
        MappedMissing,  ///< a mapped table that does not exist: the console never creates one
    };
    DbRole role = DbRole::Idempotency;
    int statements = 0;        ///< CREATE … IF NOT EXISTS statements run on this store
    QString table;             ///< the agents' table as mapped ("ticket", "billing.orders")
    AgentsTable agentsTable = AgentsTable::Created;
    /// For an agents' table that exists: the indexes the queues need that it lacks, as the
    /// statements a DBA runs (indexNeeds(): `CREATE INDEX CONCURRENTLY …;` on PostgreSQL).
    QStringList wantedIndexes;
    /// The console schema version triage_meta held before (idempotency and intent-log
    /// databases; 0: none, an older init-schema or a fresh database).
    int schemaVersionBefore = 0;
};

/// What init-schema did on all three stores, in the order idempotency, intent, ticket.
struct SchemaReport {
    QVector<SchemaStoreReport> stores;
    /// The CREATE … IF NOT EXISTS statements run on all stores.
    int statements() const;
};

/// The statements of resources/schema/<dialect>/<role>.sql for `options`, in order: the
/// default agents' table of `role` and its indexes. Statements end with a line ending in
/// ';'; one preceded by "-- @backstop" runs only with the backstop, one preceded by
/// "-- @no-backstop" only without it.
QStringList agentsTableStatements(Dialect dialect, DbRole role, const SchemaOptions &options);

/// The console-owned tables kept in `role`'s database: for the idempotency role audit.sql
/// (triage_audit), incident.sql (triage_incident, _pin, _note) and meta.sql (triage_meta),
/// for the intent role compensation.sql (triage_compensation, triage_compensation_attempt)
/// and meta.sql; none for the ticket role.
QStringList consoleTableStatements(Dialect dialect, DbRole role);

/// agentsTableStatements() followed by consoleTableStatements(): everything init-schema
/// runs on a fresh database with the default mapping.
QStringList schemaStatements(Dialect dialect, DbRole role, const SchemaOptions &options);

/// Creates the console's own tables and indexes of `session`'s role, and the default
/// agents' table only where it does not exist at all and `map` is the default for that
/// role (DESIGN.md §10): init-schema never runs CREATE INDEX or ALTER on an agents' table
/// that exists, and never creates a mapped one; it lists the indexes the queues want
/// instead. Idempotent: every statement is CREATE … IF NOT EXISTS (MySQL's missing CREATE
/// INDEX IF NOT EXISTS is handled by ignoring "duplicate key name"). Records
/// kConsoleSchemaVersion in triage_meta (idempotency and intent roles). Throws
/// DbException: kind Refused, before anything is run, when the database's console schema
/// is newer than this build's; Privilege when the user may not CREATE.
SchemaStoreReport createSchema(DbSession &session, const SchemaOptions &options, const SchemaMap &map);

class Workspace;

/// Runs createSchema() on all three stores of `workspace` with its mapping. Stores sharing
/// one database run one after the other (concurrent DDL on one SQLite file fails with
/// "database is locked"), the others at the same time. Returns the stores' reports, or the
/// first store's failure.
QFuture<Outcome<SchemaReport>> initSchemaReport(Workspace &workspace, const SchemaOptions &options);

/// initSchemaReport() reduced to the number of statements run.
QFuture<Outcome<int>> initSchema(Workspace &workspace, const SchemaOptions &options);

} // namespace triage
