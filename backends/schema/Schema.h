#pragma once

#include "DbSession.h"

#include <QFuture>

#include <QStringList>

namespace triage {

/// Options for creating the schema (DESIGN.md §4, resources/schema/).
struct SchemaOptions {
    /// Create UNIQUE(idem_key) on ticket, the backstop. Off only for demo and test
    /// workspaces that must reproduce a breached defence (duplicate-key groups).
    bool ticketBackstop = true;
};

/// The statements of resources/schema/<dialect>/<role>.sql for `options`, in order, followed
/// for the idempotency role by the console-owned audit.sql (triage_audit), for the intent
/// role by compensation.sql (triage_compensation, triage_compensation_attempt).
/// Statements end with a line ending in ';'; one preceded by "-- @backstop" runs only
/// with the backstop, one preceded by "-- @no-backstop" only without it.
QStringList schemaStatements(Dialect dialect, DbRole role, const SchemaOptions &options);

/// Creates the tables and indexes of `role` in `session`'s database. Idempotent: every
/// statement is CREATE … IF NOT EXISTS (MySQL's missing CREATE INDEX IF NOT EXISTS is
/// handled by ignoring "duplicate key name"). Returns the statements run.
/// Throws DbException (e.g. Privilege when the user may not CREATE).
QStringList createSchema(DbSession &session, const SchemaOptions &options);

class Workspace;

/// Creates the tables and indexes of all three stores on `workspace`'s workers
/// (idempotent, createSchema()). Stores sharing one database run one after the other
/// (concurrent DDL on one SQLite file fails with "database is locked"), the others at the
/// same time. Returns the number of statements run, or the first store's failure.
QFuture<Outcome<int>> initSchema(Workspace &workspace, const SchemaOptions &options);

} // namespace triage
