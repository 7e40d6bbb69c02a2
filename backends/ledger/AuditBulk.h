#pragma once
// The audit trail read and written for a batch of marks at once (mark_sql::applyBatch(),
// DESIGN.md §9 "Bulk marks"): one statement per chunk of keys or rows instead of one per record.

#include "AuditEntry.h"
#include "DbSession.h"

#include <QHash>
#include <QStringList>
#include <QVector>

namespace triage::audit_sql {

/// The row of each request id of `requestIds` that has one (the newest, as byRequestId()),
/// keyed by request id; one statement per 500 ids. Throws DbException.
QHash<QString, AuditEntry> byRequestIds(DbSession &session, const QStringList &requestIds);
/// latestUpstreamQuery() for every key of `keys`, keyed by the exact key (a key without one is
/// absent); one statement per 500 keys. Throws DbException.
QHash<QString, AuditEntry> latestUpstreamQueries(DbSession &session, const QStringList &keys);
/// lastApplied() for every key of `keys`, keyed by the exact key. Throws DbException.
QHash<QString, AuditEntry> lastAppliedFor(DbSession &session, const QStringList &keys);
/// Inserts `entries` like insert() does one (bounded, `at` the server's clock, refused while
/// frozen or on a newer console schema), in one multi-row INSERT per 500 rows, in the
/// session's current transaction. Returns each new row's id by its request id (PostgreSQL:
/// RETURNING; elsewhere read back by request id: every entry needs a distinct, non-empty
/// one). Throws DbException (the caller rolls back).
QHash<QString, qint64> insertMany(DbSession &session, const QVector<AuditEntry> &entries);

} // namespace triage::audit_sql
