#pragma once

#include "Catalog.h"
#include "DbSession.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

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
    QVector<SuggestTable> tables;            ///< the store's tables, triage_* left out
    /// Filled for the chosen table only: up to 20 DISTINCT stored values of its status column
    /// (as text, exact) and the largest value of each integer time column.
    QStringList statusValues;
    QMap<QString, qint64> maxValues;
};

/// The table of `input` that looks most like `input.role`'s table, by name and column
/// heuristics: records a unique key-like column (idem_key, request_key, …) with a status and
/// an updated time; the intent log task and step columns; the business table a key column and
/// a payload, title or tenant. A table that looks more like another store's is never chosen.
/// -1 when none fits.
int chooseTable(const SuggestInput &input);

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
} // namespace map_suggest_sql

/// The draft of all three [*.map] sections from `workspace`'s three databases (`triagectl map
/// --suggest`), with a header saying it is a draft; or the first store's error.
QFuture<Outcome<QString>> suggestMapping(Workspace &workspace);

} // namespace triage
