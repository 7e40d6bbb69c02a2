#pragma once

#include "ReplicaRoute.h"

#include "DbSession.h"
#include "KeyDetailTypes.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// Reads of the agents' tables, built from the mapping (config.records() / tickets() /
/// intents(): names, status spellings, time encodings; DESIGN.md §10).
namespace detail_sql {
/// Reads the record with `key` (nullopt when none): every column under its real name
/// (allColumns), the status through the mapping (statusText "UNKNOWN_CODE_<stored>" for a
/// value no spelling matches, statusStored the raw value), the version only when mapped and
/// present, the tenant from the mapped tenant column or else the key pattern, expire_at NULL
/// when the table has none. Throws DbException.
std::optional<RecordDetail> readRecord(DbSession &session, const WorkspaceConfig &config, const QString &key);
/// Reads the ticket rows carrying `key`, oldest first (created_at, then id); status
/// "CANCELLED" for a mapped cancelled spelling, other values as stored; columns the table
/// lacks (tenant, title, updated_at) NULL. Throws DbException.
QVector<TicketRow> readTickets(DbSession &session, const WorkspaceConfig &config, const QString &key);
/// Reads the intent-log attempts for `key`, oldest first (created_at, then id); statuses in
/// the console's spelling (a value no spelling matches as stored). Throws DbException.
QVector<IntentAttempt> readAttempts(DbSession &session, const WorkspaceConfig &config, const QString &key);
} // namespace detail_sql

/// Builds the merged timeline of `detail` in time order (ties: record, intent, ticket,
/// audit, then by id); events whose time cannot be parsed go last. Operator actions come
/// from triage_audit (source "triage_audit"), never from the agents' intent_log.
QVector<TimelineEvent> buildTimeline(const KeyDetail &detail);

/// A re-read of the same key whose store failed keeps what the earlier read of that store
/// gave (a failed refresh never empties what was shown): for each store in `fresh.errors`
/// that `earlier` read without error, its rows (record and audit; tickets; attempts and
/// compensations) come from `earlier`, the store is listed in keptFromEarlier, the error
/// stays in `errors`, and the timeline is rebuilt. Any other pair: `fresh` unchanged.
KeyDetail keepEarlierParts(const KeyDetail &fresh, const KeyDetail &earlier);

/// Warnings about stored text (DESIGN.md §4 "Odd bytes"): each column whose bytes are not
/// valid UTF-8 (per table and column as `schema` names them, at most five row ids named), and
/// a SUCCESS record whose result_snapshot is not valid JSON or writes a member name twice
/// (callers were given it).
QStringList storedTextWarnings(const KeyDetail &detail, const SchemaMap &schema = SchemaMap::defaults());

/// Warnings about evidence reaping (DESIGN.md §1: records are kept 7–30 days):
/// expire_at missing, before created_at, or soon (< 24 h) / past for an unresolved record;
/// none when the table has no expire_at (RecordDetail::hasExpireAtColumn).
QStringList expiryWarnings(const RecordDetail &record);

class Workspace;

/// Everything about one key from all three stores, read at the same time through
/// `workspace`'s workers, with the merged timeline and the warnings (expiry, duplicate
/// tickets, the canonical-ticket rule's findings, stored text). A store that fails leaves
/// its part empty and its error in KeyDetail::errors; the rest still shows. Read from the
/// replicas where the lag allows and the key has no own write pending (Workspace::reader());
/// `from` Primary where a decision depends on it (the reconciler; DESIGN.md §9 "Read replicas").
QFuture<KeyDetail> loadKeyDetail(Workspace &workspace, const QString &idemKey, ReadFrom from = ReadFrom::Routed);

} // namespace triage
