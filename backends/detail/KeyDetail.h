#pragma once

#include "DbSession.h"
#include "KeyDetailTypes.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

namespace detail_sql {
/// Reads the record with `key` (nullopt when none) from `config`'s mapped record table
/// (DESIGN.md §10): times as canonical ISO UTC text, the status decoded by
/// StoredRecordStatus::fromMapped() with the stored value kept (statusStored, what a
/// compare-and-set compares), every column under its own name in allColumns. Throws
/// DbException.
std::optional<RecordDetail> readRecord(DbSession &session, const WorkspaceConfig &config, const QString &key);
/// Reads the ticket rows carrying `key`, oldest first, from `config`'s mapped ticket table
/// (a missing tenant / title / updated_at column reads NULL; the status as
/// TicketSql::statusName(): "CANCELLED" for a mapped cancelled spelling). Throws DbException.
QVector<TicketRow> readTickets(DbSession &session, const WorkspaceConfig &config, const QString &key);
/// Reads the intent-log attempts for `key`, oldest first. Throws DbException.
QVector<IntentAttempt> readAttempts(DbSession &session, const QString &key);
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
/// valid UTF-8 (per table and column, at most five row ids named), and a SUCCESS record
/// whose result_snapshot is not valid JSON or writes a member name twice (callers were
/// given it).
QStringList storedTextWarnings(const KeyDetail &detail);

/// Warnings about evidence reaping (DESIGN.md §1: records are kept 7–30 days):
/// expire_at missing, before created_at, or soon (< 24 h) / past for an unresolved record.
QStringList expiryWarnings(const RecordDetail &record);

class Workspace;

/// Everything about one key from all three stores, read at the same time through
/// `workspace`'s workers, with the merged timeline and the warnings (expiry, duplicate
/// tickets, the canonical-ticket rule's findings, stored text). A store that fails leaves
/// its part empty and its error in KeyDetail::errors; the rest still shows.
QFuture<KeyDetail> loadKeyDetail(Workspace &workspace, const QString &idemKey);

} // namespace triage
