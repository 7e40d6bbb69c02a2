#pragma once

#include "DbError.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QStringList>

namespace triage {

class DbSession;
class Workspace;

/// The biz_types the idempotency records hold, as far as they were read.
struct BizTypeCensus {
    /// Distinct biz_type values in the database's sort order: all of them, or the first
    /// kBizTypeCensusLimit when `complete` is false.
    QStringList bizTypes;
    bool complete = true;
    /// The configured biz_types that are not in `bizTypes` but do have records (looked up
    /// one by one, only when `complete` is false).
    QStringList configuredWithRecords;
};

/// The most distinct biz_types a census reads (one statement each).
constexpr int kBizTypeCensusLimit = 100;

namespace biztype_sql {

/// Reads the distinct biz_types of the record table `records` (the mapping, DESIGN.md §10)
/// by a loose index scan: one `SELECT biz_type … WHERE biz_type > ? ORDER BY biz_type LIMIT 1`
/// per value, each a seek in an index that biz_type leads
/// (idx_idempotency_record_biz_status_updated on the default schema), so the cost grows
/// with the number of biz_types, not of records (`SELECT DISTINCT` reads every row where
/// the server has no loose scan: 10 M rows on PostgreSQL and SQLite). Stops after `limit`
/// values; then each of `configured` not yet seen is looked up by `biz_type = ? LIMIT 1`.
/// On MySQL/MariaDB the census is exact whatever the column's collation: a case- or
/// accent-insensitive one merges 'Ticket' and 'ticket' for the seek, so each group's other
/// spellings are read with BINARY inside the group's index range (a range scan of that
/// biz_type's index entries when it has one spelling: the cost of exactness there).
/// A table without a biz_type column holds the mapping's biz_type_value only: the census is
/// that value when the table has a row, else empty. Runs on the idempotency worker; throws
/// DbException.
BizTypeCensus census(DbSession &session, const RecordSql &records, const QStringList &configured,
                     int limit = kBizTypeCensusLimit);

} // namespace biztype_sql

/// True when the [biz.*] settings should be compared with the records: a config file is
/// in use (WorkspaceConfig::sourceFile), or the demo with its own biz_type settings.
/// Without either every biz_type uses the defaults by design, and nothing is checked.
bool checksBizTypeSections(const WorkspaceConfig &config);

/// The warnings a census gives for `config` (pure; empty when !checksBizTypeSections() or
/// the census found no record at all):
/// - a [biz.<biz_type>] section whose biz_type has no idempotency record: its settings
///   apply to nothing, with the nearest biz_type of the records that has no section when
///   one is close ("did you mean ticket_create?");
/// - a biz_type of the records without a [biz.<biz_type>] section: its records use the
///   default processing_timeout and no upstream;
/// - a census cut at kBizTypeCensusLimit.
/// Each is one line that starts with "config PATH:LINE:" (the section's line), "config
/// PATH:" or "demo settings:".
QStringList bizTypeSectionWarnings(const WorkspaceConfig &config, const BizTypeCensus &census);

/// Runs biztype_sql::census() on the workspace's idempotency worker (never the calling
/// thread) and returns bizTypeSectionWarnings(); resolves at once to no warnings when
/// !checksBizTypeSections(). A database error comes back as the Outcome's error.
QFuture<Outcome<QStringList>> checkBizTypeSections(Workspace &workspace);

} // namespace triage
