#pragma once
// The key detail read for many keys at once (the bundle's export, DESIGN.md §7 "Bundles").

#include "KeyDetail.h"
#include "SqlBuilder.h"

#include <QStringList>

namespace triage {

namespace detail_sql {
/// Condition: text `column` equals one of `keys` exactly (textIs() for one key; for several
/// `IN` with every key bound through `b`, and on MySQL/MariaDB also compared as BINARY, as
/// textIs() does). At most a few hundred keys; `keys` must not be empty.
QString keyIn(SqlBuilder &b, Dialect dialect, const QString &column, const QStringList &keys);
/// readRecord() / readTickets() / readAttempts() for several keys in one statement each:
/// `key IN (…)` with every key bound (on MySQL/MariaDB also compared as BINARY, as for one
/// key), so at most a few hundred keys per call. Records: one per key (the first row), in no
/// particular order; tickets and attempts in the one-key order (created_at, then id) across the
/// keys: the caller groups them by their idem_key. Empty `keys`: nothing read. Throw DbException.
/// readRecords() with `decisionOnly` reads what a mark decides on and no more: no snapshot
/// (resultSnapshot null) and, of the table's own columns, only the mapped id, key and version
/// (allColumns holds just those) — mark_sql::applyBatch()'s read.
QVector<RecordDetail> readRecords(DbSession &session, const WorkspaceConfig &config, const QStringList &keys,
                                  bool decisionOnly = false);
QVector<TicketRow> readTickets(DbSession &session, const WorkspaceConfig &config, const QStringList &keys);
QVector<IntentAttempt> readAttempts(DbSession &session, const WorkspaceConfig &config, const QStringList &keys);
} // namespace detail_sql

/// Keys per bulk statement of loadKeyDetails().
constexpr int kKeysPerStatement = 500;

/// loadKeyDetail() for many keys at once: each store's part (record, tickets, attempts, audit,
/// compensations and their attempts) read in bulk, one statement per part per
/// kKeysPerStatement keys (every key bound), on the same workers; the same details as
/// loadKeyDetail() gives key by key (rows grouped by their exact key, then the same warnings
/// and timeline), in `keys`' order. A part that fails gives every key its error, as one read
/// per key would.
QFuture<QVector<KeyDetail>> loadKeyDetails(Workspace &workspace, const QStringList &keys);

} // namespace triage
