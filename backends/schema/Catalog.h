#pragma once

#include "DbSession.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// What a column's type can hold, as far as the console's roles care (DESIGN.md §10: doctor
/// checks a mapping against it, map --suggest drafts one from it).
enum class ColumnKind {
    Integer,  ///< smallint … bigint (SQLite: a declared type containing "INT")
    Text,     ///< char, varchar, text (SQLite: CHAR, CLOB or TEXT affinity)
    Zoned,    ///< PostgreSQL timestamptz, MySQL/MariaDB TIMESTAMP
    Unzoned,  ///< PostgreSQL timestamp without time zone, MySQL/MariaDB DATETIME, SQLite DATE/TIME-named
    Json,     ///< json, jsonb (MariaDB's JSON is LONGTEXT: Text)
    Uuid,     ///< PostgreSQL uuid
    Enum,     ///< PostgreSQL enum type, MySQL/MariaDB ENUM (labels in CatalogColumn::labels)
    Other,    ///< anything else (numeric, real, blob, date, …)
};

/// One column of a table as the live catalog describes it.
struct CatalogColumn {
    QString name;        ///< as the catalog spells it
    QString type;        ///< the type as the catalog prints it ("timestamp with time zone", "bigint", "enum('a','b')", "TEXT")
    ColumnKind kind = ColumnKind::Other;
    QString enumType;    ///< PostgreSQL: the enum type's name; "" otherwise
    QStringList labels;  ///< enum labels in their order (Kind Enum only)
    bool primaryKey = false; ///< part of the table's primary key
};

/// One index of a table: its name, its keys in order, and whether it is unique.
struct CatalogIndex {
    QString name;
    /// Column names; an expression key as its text (PostgreSQL as pg_get_indexdef() deparses
    /// it, "upper(btrim((state)::text))"; SQLite as the CREATE INDEX wrote it). MySQL/MariaDB:
    /// column names only.
    QStringList columns;
    bool unique = false;
};

/// Reads the live catalog of `session`'s database (information_schema / pg_catalog / PRAGMA).
/// Table names may be schema-qualified ("billing.idem_records": that schema on PostgreSQL,
/// that database on MySQL/MariaDB, that attached schema on SQLite); an unqualified name is
/// looked up in the current schema / database. Every name is bound. Each function throws
/// DbException.
namespace catalog_sql {
/// The columns of `table` in their order; nullopt when the table does not exist.
std::optional<QVector<CatalogColumn>> columnsOf(DbSession &session, const QString &table);
/// The indexes of `table` (none when it does not exist), by name.
QVector<CatalogIndex> indexesOf(DbSession &session, const QString &table);
/// The base tables a mapping may name, sorted by name: on PostgreSQL those of every schema but
/// the system ones (pg_catalog, information_schema, pg_*), the current schema's first and
/// unqualified, the others as "schema.table"; on MySQL/MariaDB the current database's; on
/// SQLite the main schema's.
QStringList tablesOf(DbSession &session);
/// True when `table` exists (a base table or view).
bool tableExists(DbSession &session, const QString &table);
/// Up to `limit` distinct non-null values of `column` in `table` as text (exact: case and
/// spaces kept), sorted by code point, for
/// map --suggest (column and table are catalog names, quoted by sqlName()).
QStringList distinctValues(DbSession &session, const QString &table, const QString &column, int limit);
/// The largest value of the integer column `column` of `table`; nullopt for an empty table.
std::optional<qint64> maxValue(DbSession &session, const QString &table, const QString &column);
} // namespace catalog_sql

/// "integer", "text", "timestamptz", … for messages.
QString columnKindName(ColumnKind kind);

} // namespace triage
