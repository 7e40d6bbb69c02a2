#pragma once

#include "Catalog.h"
#include "Dialect.h"
#include "SchemaMap.h"
#include "StoreRole.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace triage {

/// One index a queue or view needs, on the mapped columns (DESIGN.md §2, §10). The console
/// never creates one on an agents' table that exists: init-schema and doctor print
/// createSql for the DBA.
struct IndexNeed {
    DbRole role;
    QString table;        ///< the table as mapped ("idempotency_record", "billing.idem_requests")
    QStringList columns;  ///< the mapped leading columns an index must start with, in order
    QString usedBy;       ///< "Unknown / In flight / Failed / Succeeded queues", …
    /// The statement that creates it for the dialect: `CREATE INDEX CONCURRENTLY …` on
    /// PostgreSQL (no lock on a table the agents write), plain `CREATE INDEX …` elsewhere;
    /// names quoted by sqlName(), no trailing ';'.
    QString createSql;
    /// True for an index on an agents' table (mapped by [*.map]); false for the console's
    /// own triage_audit, which init-schema creates itself.
    bool agents = true;
    /// With status_ignore_case (text statuses) the status queues filter on
    /// `UPPER(TRIM(<status as text>))` (StatusSql::compared()), which an index on the plain
    /// column cannot serve: the expression an index must start with instead of
    /// columns.first(), written exactly as the queues' statements write it (PostgreSQL:
    /// `UPPER(TRIM(CAST(state AS text)))`, SQLite `… AS TEXT`); "" otherwise.
    QString leadingExpression;
    /// Why no index the console can recommend serves this need on the dialect ("" when one
    /// can): MySQL/MariaDB with status_ignore_case (MariaDB has no index on an expression).
    /// createSql is then a SQL comment saying so, for the DBA's script.
    QString unservable;

    /// The leading columns as a DBA reads them: columns with leadingExpression in place of
    /// the first ("idem_requests(UPPER(TRIM(CAST(state AS text))), updated_ms, req_id)" shows these).
    QStringList shownColumns() const;
};

/// The indexes the console's queues and views rely on, for `map`'s tables in `dialect`:
/// records (status, updated_at, id) and (idem_key) (PostgreSQL: text_pattern_ops, for the
/// tenant's key prefix), triage_audit (idem_key, at, id), intents (idem_key, created_at, id)
/// and (status, updated_at, id), tickets (idem_key) and (created_at, id); for the incident
/// window (DESIGN.md §7) records (created_at, id) and (updated_at, id), intents (created_at,
/// id). Index names are
/// "idx_<table>_<purpose>" (the table without its schema, lower-case, cut to fit 63
/// characters): for the default mapping exactly the names resources/schema/ gives, so a
/// fix run before init-schema never leaves two copies of one index.
QVector<IndexNeed> indexNeeds(const SchemaMap &map, Dialect dialect);

/// indexNeeds() of `role` only.
QVector<IndexNeed> indexNeeds(const SchemaMap &map, Dialect dialect, DbRole role);

/// The first of `indexes` (catalog_sql::indexesOf()) that serves `need`, or null: its leading
/// keys are need.columns in order (names compared case-insensitively); with
/// need.leadingExpression its first key must be that expression instead, compared as the
/// catalogs print it (case, quotes, parentheses, casts to text and PostgreSQL's `btrim` for
/// TRIM aside), so `((UPPER(TRIM(state))), …)` on a varchar column counts. A need with
/// `unservable` set is never served.
const CatalogIndex *servingIndex(const QVector<CatalogIndex> &indexes, const IndexNeed &need);

} // namespace triage
