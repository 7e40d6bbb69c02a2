#pragma once

#include "Catalog.h"
#include "DbSession.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace triage {

class Workspace;

/// One table of a store as map --suggest sees it (the live catalog).
struct SuggestTable {
    QString name;
    QVector<CatalogColumn> columns;
    QVector<CatalogIndex> indexes;
};

/// What the draft of one store's [*.map] section is made from (DESIGN.md §10).
struct SuggestInput {
    DbRole role = DbRole::Idempotency;
    Dialect dialect = Dialect::PostgreSql;
    /// The store's tables, triage_* left out: on PostgreSQL those of every schema but the
    /// system ones, "schema.table" where the schema is not the current one ("billing.idem_records");
    /// on MySQL/MariaDB those of the current database; on SQLite the main schema's.
    QVector<SuggestTable> tables;
    /// Tables of this store's database already drafted for another store (one table serves one
    /// store): table name → that store's section ("idempotency.map"). chooseTable() skips them.
    QMap<QString, QString> taken;
    /// Filled for the chosen table only: up to 20 DISTINCT stored values of its status column
    /// (as text, exact) and the largest value of each integer time column.
    QStringList statusValues;
    QMap<QString, qint64> maxValues;
};

/// The table of `input` that looks most like `input.role`'s table, by name and column
/// heuristics: records a unique key-like column (idem_key, request_key, …) with a status and
/// an updated time; the intent log task and step columns; the business table a key column and
/// a payload, title or tenant. A table that looks more like another store's is never chosen.
/// A table in `input.taken` is never chosen. -1 when none fits.
int chooseTable(const SuggestInput &input);

/// Assigns each table to one store at most where stores share a database (map --suggest):
/// repeatedly the store whose best remaining table (chooseTable()) scores highest takes it, and
/// that table goes into `taken` of every other store for which `sameDatabase(i, j)` holds
/// (`inputs` indexed as given). A store left without a table gets a "; TODO:" draft naming
/// the table another store took. Pure: no database.
void assignTables(QVector<SuggestInput> &inputs, const std::function<bool(int, int)> &sameDatabase);

/// The draft [<role>.map] section for `input` (chooseTable() and the column heuristics):
/// every key of the section in the order of resources/triage.example.ini, each value it
/// could not decide preceded by a "; TODO: …" line (status spellings it cannot know, listing
/// the DISTINCT values seen; a time encoding the column type does not settle; a column with
/// no candidate, left commented out). Pure: no database.
QString draftMapSection(const SuggestInput &input);

namespace map_suggest_sql {
/// Reads `session`'s catalog into a SuggestInput and, for the table chooseTable() picks, the
/// DISTINCT values of its status column (LIMIT 20) and the largest value of each integer time
/// column. Throws DbException.
SuggestInput read(DbSession &session);
/// The catalog part of read(): the tables, their columns and indexes. Throws DbException.
SuggestInput readCatalog(DbSession &session);
/// The rest of read() for the table chooseTable(`input`) picks now (after assignTables()):
/// its status column's DISTINCT values and the largest value of each integer time column.
/// Throws DbException.
void readDetails(DbSession &session, SuggestInput &input);
} // namespace map_suggest_sql

/// The draft of all three [*.map] sections from `workspace`'s three databases (`triagectl map
/// --suggest`), with a header saying it is a draft; or the first store's error.
QFuture<Outcome<QString>> suggestMapping(Workspace &workspace);

} // namespace triage
