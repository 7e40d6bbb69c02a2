#pragma once

#include "DbSession.h"
#include "IndexNeeds.h"
#include "SchemaMap.h"

#include <QFuture>
#include <QString>
#include <QStringList>
#include <QVector>

namespace triage {

class Workspace;

/// The finding for one index need (IndexNeeds.h).
struct IndexFinding {
    IndexNeed need;
    bool present = false;
    QString satisfiedBy;  ///< the index that serves it, when present
    /// When missing: the statement that creates it (need.createSql: CREATE INDEX CONCURRENTLY
    /// on PostgreSQL), or for a default table that does not exist the hint to run init-schema.
    QString fix;
    QString plan;         ///< PostgreSQL/MySQL: the access path EXPLAIN chose for the queue's query, if probed
};

/// What doctor found on one store (DESIGN.md §5 `doctor`, §10).
struct StoreCheck {
    /// The mapping against the live catalog: one line per problem, naming the config key
    /// ("[ticket.map] payload: column orders.body does not exist"). Any → exit 1.
    QStringList mappingProblems;
    /// What the time values themselves say (doctor_sql::timeValueFindings()), when the
    /// mapping has no problem above: an unambiguous misfit (epoch milliseconds mapped as
    /// epoch_s, …) is appended to mappingProblems (exit 1); a doubtful sample lands here,
    /// printed as "warning: …" without changing the exit code.
    QStringList mappingWarnings;
    /// The indexes the queues need on the mapped columns. A missing one → exit 4.
    QVector<IndexFinding> indexes;
};

namespace doctor_sql {
/// Checks `map`'s table of `session`'s role against the live catalog: the table and each
/// mapped column exist (a default table that does not exist at all is left to the index
/// findings: run init-schema), and each time and status column has a type the console can
/// read for its role: epoch_s / epoch_ms an integer type, native a timestamp (PostgreSQL
/// timestamptz or timestamp, MySQL/MariaDB DATETIME or TIMESTAMP, SQLite text), local a
/// timestamp without zone, iso_text text; integer status_type an integer column, text
/// statuses a text or enum column (or an integer one when every spelling is an integer); an
/// enum column must have every mapped spelling among its labels. An iso_text column's values
/// must all be in the one form YYYY-MM-DDTHH:MM:SS.ffffffZ (text times compare as text):
/// the rows of the 500 highest and 500 lowest ids are sampled and any other form is a
/// problem (DESIGN.md §10). One
/// "[<section>] <key>: …" line per problem, in the order of the section's keys.
/// Throws DbException.
QStringList mappingProblems(DbSession &session, const SchemaMap &map);
/// What doctor_sql::timeValueFindings() found.
struct TimeValueFindings {
    QStringList problems; ///< unambiguous: the values cannot be what the mapping says (exit 1)
    QStringList warnings; ///< doubtful: some sampled values are not plausible times
};

/// Samples the mapped time columns of `session`'s role (at most 100 rows, `SELECT … LIMIT
/// 100`: cheap on any table size, never a full scan) and checks the values against the
/// mapping's `time` (DESIGN.md §10 "doctor"): a value is plausible in a unit when it lies in
/// the years 2000..2099 (epoch seconds 946684800 ≤ v < 4102444800, milliseconds and
/// microseconds ×1000 and ×10⁶). epoch_s / epoch_ms: when every sampled value is plausible
/// in another unit, a problem "[<section>] <key>: values look like epoch milliseconds (e.g.
/// 1764650000000) but the mapping says time = epoch_s"; when some values are plausible in
/// no unit or in several, a warning. SQLite native / local (text times): integer or real
/// values, or text of digits only (what a TEXT column makes of a written number), are a problem ("holds numbers … not ISO-8601 text"), with the unit they look like.
/// Columns are sampled only when the table and columns exist with a usable type (run after
/// mappingProblems() found none). Throws DbException.
TimeValueFindings timeValueFindings(DbSession &session, const SchemaMap &map);

/// Checks every index need of `session`'s role (indexNeeds() of `map`): present (an index
/// whose leading columns match) or missing with the statement that fixes it; for the
/// status queues also reports the plan EXPLAIN chooses (a full scan shows as "Seq Scan" /
/// "type ALL"). A default table that does not exist is reported as missing with the hint to
/// run init-schema; a need on a mapped table or column that does not exist is left out (it
/// is a mapping problem). `probe` false skips EXPLAIN (a mapping with problems may not even
/// compare, e.g. integer codes against a text column). Throws DbException.
QVector<IndexFinding> inspect(DbSession &session, const SchemaMap &map, bool probe = true);
} // namespace doctor_sql

/// doctor_sql::mappingProblems() and inspect() on the worker of `role`'s store with the
/// workspace's mapping, or the store's error (DESIGN.md §5 `doctor`, §10).
QFuture<Outcome<StoreCheck>> checkStore(Workspace &workspace, DbRole role);

/// Makes doctor_sql::mappingProblems() with the workspace's mapping the check each store
/// passes before its first job (Workspace::setOpenCheck(), DESIGN.md §10 "Checked at open"):
/// once per store for the life of `workspace`, a few catalog reads and, when the structure
/// matches, timeValueFindings()' problems (a sample of at most 100 rows per table: a wrong
/// epoch unit is refused before it can move stale records). A store whose mapping
/// does not match then fails every job with kind Config (CLI exit 1) and the message
/// "<store>: the mapping does not match the database: [<section>] <key>: …; run `triagectl
/// doctor`", and says so by connectionEvent(). A default table that does not exist yet
/// passes (init-schema creates it). triagectl installs it for every command but doctor,
/// init-schema and map (CommandSpec::checksMapping); the console at start. Call right after
/// constructing the workspace.
void installMappingCheck(Workspace &workspace);

/// doctor_sql::inspect() on the worker of `role`'s store: its index findings, or the
/// store's error.
QFuture<Outcome<QVector<IndexFinding>>> inspectIndexes(Workspace &workspace, DbRole role);

} // namespace triage
