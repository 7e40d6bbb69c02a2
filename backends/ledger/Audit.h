#pragma once

#include "AuditEntry.h"
#include "DbSession.h"

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// The database user an audit row records for a store reached through `profile`: the
/// profile's user, none (null) on SQLite, which has no users.
QString auditDbUser(const ConnectionProfile &profile);

namespace audit_sql {
/// Inserts one audit row in the session's current transaction (or autocommit), bounded by
/// boundedAuditEntry(). `at` is the server's clock. Returns the new row's id. Throws
/// DbException (e.g. a reason longer than the column: the caller rolls back; kind Refused
/// when the database's console schema is newer than this build's: requireKnownConsoleSchema()).
/// Refused while the global freeze is on (requireKnownConsoleSchema(), DESIGN.md §8 "Safety
/// policy"): inside the writer's transaction, so no audited write commits after a freeze.
qint64 insert(DbSession &session, const AuditEntry &entry);
/// insert() without the freeze check: only the audit rows of policy freeze and unfreeze,
/// which write while frozen by design (backends/ledger/Policy.cpp). Throws DbException.
qint64 insertThroughFreeze(DbSession &session, const AuditEntry &entry);
/// Reads audit rows, oldest first. Throws DbException.
QVector<AuditEntry> read(DbSession &session, const AuditQuery &query);
/// The rows of every key of `keys` (idem_key IN, each bound; at most a few hundred keys), by
/// at then id; the caller groups them by idem_key. Empty `keys`: nothing read.
QVector<AuditEntry> readForKeys(DbSession &session, const QStringList &keys);
/// The row written by request `requestId`, if any.
std::optional<AuditEntry> byRequestId(DbSession &session, const QString &requestId);
/// The latest `applied` row for `idemKey`, if any (who changed it last).
std::optional<AuditEntry> lastApplied(DbSession &session, const QString &idemKey);
/// The latest `query_upstream` row for `idemKey` (by at, then id), if any. Throws DbException.
std::optional<AuditEntry> latestUpstreamQuery(DbSession &session, const QString &idemKey);
} // namespace audit_sql

} // namespace triage
