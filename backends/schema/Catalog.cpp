#include "Catalog.h"

#include "SchemaSql.h"

#include <QRegularExpression>
#include <QSqlQuery>

#include <algorithm>

namespace triage {

namespace {

/// "billing.idem" → {"billing", "idem"}; "idem" → {"", "idem"}.
std::pair<QString, QString> splitTable(const QString &table)
{
    const int dot = table.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return {QString(), table};
    return {table.left(dot), table.mid(dot + 1)};
}

/// The SQL for "the table's schema": the bound schema name, else the current one.
QString schemaExpr(Dialect d, SqlBuilder &b, const QString &schema)
{
    if (!schema.isEmpty())
        return b.bind(schema);
    return d == Dialect::PostgreSql ? QStringLiteral("current_schema()") : QStringLiteral("DATABASE()");
}

ColumnKind pgKind(const QString &type, const QString &typtype)
{
    if (typtype == QLatin1String("e"))
        return ColumnKind::Enum;
    if (type.startsWith(QLatin1String("timestamp")))
        return type.contains(QLatin1String("with time zone")) && !type.contains(QLatin1String("without"))
            ? ColumnKind::Zoned
            : ColumnKind::Unzoned;
    if (type == QLatin1String("smallint") || type == QLatin1String("integer") || type == QLatin1String("bigint"))
        return ColumnKind::Integer;
    if (type.startsWith(QLatin1String("character")) || type == QLatin1String("text") || type == QLatin1String("citext")
        || type == QLatin1String("name"))
        return ColumnKind::Text;
    if (type == QLatin1String("json") || type == QLatin1String("jsonb"))
        return ColumnKind::Json;
    if (type == QLatin1String("uuid"))
        return ColumnKind::Uuid;
    return ColumnKind::Other;
}

ColumnKind myKind(const QString &dataType)
{
    static const QStringList ints = {QStringLiteral("tinyint"), QStringLiteral("smallint"), QStringLiteral("mediumint"),
                                     QStringLiteral("int"), QStringLiteral("integer"), QStringLiteral("bigint")};
    static const QStringList texts = {QStringLiteral("char"), QStringLiteral("varchar"), QStringLiteral("tinytext"),
                                      QStringLiteral("text"), QStringLiteral("mediumtext"), QStringLiteral("longtext")};
    const QString t = dataType.toLower();
    if (ints.contains(t))
        return ColumnKind::Integer;
    if (texts.contains(t))
        return ColumnKind::Text;
    if (t == QLatin1String("datetime"))
        return ColumnKind::Unzoned;
    if (t == QLatin1String("timestamp"))
        return ColumnKind::Zoned;
    if (t == QLatin1String("json"))
        return ColumnKind::Json;
    if (t == QLatin1String("enum"))
        return ColumnKind::Enum;
    return ColumnKind::Other;
}

/// SQLite's affinity rules (https://sqlite.org/datatype3.html §3.1), with DATE/TIME-named
/// and JSON-named numeric types told apart.
ColumnKind liteKind(const QString &declared)
{
    const QString t = declared.toUpper();
    if (t.contains(QLatin1String("INT")))
        return ColumnKind::Integer;
    if (t.contains(QLatin1String("CHAR")) || t.contains(QLatin1String("CLOB")) || t.contains(QLatin1String("TEXT")))
        return ColumnKind::Text;
    if (t.contains(QLatin1String("JSON")))
        return ColumnKind::Json;
    if (t.contains(QLatin1String("DATE")) || t.contains(QLatin1String("TIME")))
        return ColumnKind::Unzoned;
    return ColumnKind::Other;
}

/// The labels of a MySQL COLUMN_TYPE "enum('a','it''s')".
QStringList enumLabels(const QString &columnType)
{
    QStringList labels;
    const int open = columnType.indexOf(QLatin1Char('('));
    if (open < 0)
        return labels;
    QString current;
    bool inQuote = false;
    for (int i = open + 1; i < columnType.size(); ++i) {
        const QChar c = columnType[i];
        if (!inQuote) {
            if (c == QLatin1Char('\''))
                inQuote = true;
            continue;
        }
        if (c == QLatin1Char('\'')) {
            if (i + 1 < columnType.size() && columnType[i + 1] == QLatin1Char('\'')) {
                current += c;
                ++i;
                continue;
            }
            labels << current;
            current.clear();
            inQuote = false;
            continue;
        }
        current += c;
    }
    return labels;
}

/// The keys of a SQLite "CREATE [UNIQUE] INDEX name ON table (key, key, …) [WHERE …]" as
/// written, split at the top-level commas of the first parenthesised list after ON (quotes
/// and nested parentheses respected), each trimmed; empty when `createSql` is not one.
QStringList indexKeysOf(const QString &createSql)
{
    static const QRegularExpression on(QStringLiteral("\\sON\\s"), QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = on.match(createSql);
    if (!m.hasMatch())
        return {};
    const int open = createSql.indexOf(QLatin1Char('('), m.capturedEnd());
    if (open < 0)
        return {};
    QStringList keys;
    QString current;
    int depth = 0;
    QChar quote;
    for (int i = open + 1; i < createSql.size(); ++i) {
        const QChar c = createSql[i];
        if (!quote.isNull()) {
            current += c;
            if (c == quote)
                quote = QChar();
            continue;
        }
        if (c == QLatin1Char('\'') || c == QLatin1Char('"') || c == QLatin1Char('`')) {
            quote = c;
        } else if (c == QLatin1Char('(')) {
            ++depth;
        } else if (c == QLatin1Char(')')) {
            if (depth == 0) {
                keys << current.trimmed();
                return keys;
            }
            --depth;
        } else if (c == QLatin1Char(',') && depth == 0) {
            keys << current.trimmed();
            current.clear();
            continue;
        }
        current += c;
    }
    return {};
}

QString text(const QVariant &v)
{
    return v.metaType().id() == QMetaType::QByteArray ? QString::fromUtf8(v.toByteArray()) : v.toString();
}

} // namespace

QString columnKindName(ColumnKind kind)
{
    switch (kind) {
    case ColumnKind::Integer: return QStringLiteral("integer");
    case ColumnKind::Text: return QStringLiteral("text");
    case ColumnKind::Zoned: return QStringLiteral("zoned timestamp");
    case ColumnKind::Unzoned: return QStringLiteral("timestamp without zone");
    case ColumnKind::Json: return QStringLiteral("json");
    case ColumnKind::Uuid: return QStringLiteral("uuid");
    case ColumnKind::Enum: return QStringLiteral("enum");
    case ColumnKind::Other: return QStringLiteral("other");
    }
    return {};
}

namespace catalog_sql {

std::optional<QVector<CatalogColumn>> columnsOf(DbSession &s, const QString &table)
{
    const Dialect d = s.dialect().kind();
    const auto [schema, name] = splitTable(table);
    SqlBuilder b;
    QVector<CatalogColumn> out;
    switch (d) {
    case Dialect::PostgreSql: {
        const QString sql = QStringLiteral(
                                "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typtype, t.typname, "
                                "(SELECT string_agg(e.enumlabel, chr(10) ORDER BY e.enumsortorder) FROM pg_enum e "
                                "WHERE e.enumtypid = t.oid), EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid "
                                "AND x.indisprimary AND a.attnum = ANY (x.indkey)) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                                "JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid "
                                "WHERE c.relname = %1 AND n.nspname = %2 AND a.attnum > 0 AND NOT a.attisdropped "
                                "ORDER BY a.attnum")
                                .arg(b.bind(name), schemaExpr(d, b, schema));
        QSqlQuery q = s.exec(sql, b);
        while (q.next()) {
            CatalogColumn c;
            c.name = q.value(0).toString();
            c.type = q.value(1).toString();
            c.kind = pgKind(c.type, q.value(2).toString());
            if (c.kind == ColumnKind::Enum) {
                c.enumType = q.value(3).toString();
                c.labels = q.value(4).toString().split(QLatin1Char('\n'));
            }
            c.primaryKey = q.value(5).toBool();
            out << c;
        }
        break;
    }
    case Dialect::MySql: {
        const QString sql = QStringLiteral("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS "
                                           "WHERE TABLE_SCHEMA = %1 AND TABLE_NAME = %2 ORDER BY ORDINAL_POSITION")
                                .arg(schemaExpr(d, b, schema), b.bind(name));
        QSqlQuery q = s.exec(sql, b);
        while (q.next()) {
            CatalogColumn c;
            c.name = text(q.value(0));
            c.type = text(q.value(2));
            c.kind = myKind(text(q.value(1)));
            if (c.kind == ColumnKind::Enum)
                c.labels = enumLabels(c.type);
            c.primaryKey = text(q.value(3)) == QLatin1String("PRI");
            out << c;
        }
        break;
    }
    case Dialect::Sqlite: {
        const QString sql = schema.isEmpty()
            ? QStringLiteral("SELECT name, type, pk FROM pragma_table_info(%1) ORDER BY cid").arg(b.bind(name))
            : QStringLiteral("SELECT name, type, pk FROM pragma_table_info(%1, %2) ORDER BY cid").arg(b.bind(name), b.bind(schema));
        QSqlQuery q = s.exec(sql, b);
        while (q.next()) {
            CatalogColumn c;
            c.name = q.value(0).toString();
            c.type = q.value(1).toString();
            c.kind = liteKind(c.type);
            c.primaryKey = q.value(2).toInt() > 0;
            out << c;
        }
        break;
    }
    }
    if (out.isEmpty())
        return std::nullopt;
    return out;
}

QVector<CatalogIndex> indexesOf(DbSession &s, const QString &table)
{
    const Dialect d = s.dialect().kind();
    const auto [schema, name] = splitTable(table);
    SqlBuilder b;
    QString sql;
    switch (d) {
    case Dialect::PostgreSql:
        // An expression key (attnum 0) as PostgreSQL deparses it ("upper(btrim((state)::text))").
        sql = QStringLiteral(
                  "SELECT i.relname, string_agg(CASE WHEN k.attnum = 0 THEN pg_get_indexdef(x.indexrelid, k.ord::int, true) "
                  "ELSE a.attname END, chr(10) ORDER BY k.ord), x.indisunique FROM pg_index x "
                  "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid "
                  "JOIN pg_namespace n ON n.oid = t.relnamespace "
                  "CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) "
                  "LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
                  "WHERE t.relname = %1 AND n.nspname = %2 GROUP BY i.relname, x.indisunique")
                  .arg(b.bind(name), schemaExpr(d, b, schema));
        break;
    case Dialect::MySql:
        sql = QStringLiteral("SELECT INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ','), "
                             "MIN(NON_UNIQUE) = 0 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %1 "
                             "AND TABLE_NAME = %2 GROUP BY INDEX_NAME")
                  .arg(schemaExpr(d, b, schema), b.bind(name));
        break;
    case Dialect::Sqlite: {
        const QString list = schema.isEmpty() ? QStringLiteral("pragma_index_list(%1)").arg(b.bind(name))
                                              : QStringLiteral("pragma_index_list(%1, %2)").arg(b.bind(name), b.bind(schema));
        // An expression key has no name (cid -2): "" here, its text taken from the index's SQL below.
        sql = QStringLiteral("SELECT il.name, (SELECT group_concat(coalesce(name, ''), char(10)) FROM (SELECT ii.name FROM "
                             "pragma_index_info(il.name) ii ORDER BY ii.seqno)), il.\"unique\", (SELECT m.sql FROM %2 m "
                             "WHERE m.type = 'index' AND m.name = il.name) FROM %1 il")
                  .arg(list, schema.isEmpty() ? QStringLiteral("sqlite_master")
                                              : sqlName(d, schema) + QStringLiteral(".sqlite_master"));
        break;
    }
    }
    QSqlQuery q = s.exec(sql, b);
    QVector<CatalogIndex> out;
    const QChar separator = d == Dialect::MySql ? QLatin1Char(',') : QLatin1Char('\n');
    while (q.next()) {
        const QString keys = text(q.value(1));
        QStringList columns = keys.isEmpty() ? QStringList() : keys.split(separator);
        if (d == Dialect::Sqlite && columns.contains(QString())) {
            const QStringList written = indexKeysOf(text(q.value(3)));
            for (int i = 0; i < columns.size(); ++i)
                if (columns[i].isEmpty())
                    columns[i] = written.value(i);
        }
        out.append({text(q.value(0)), columns, q.value(2).toInt() != 0 || q.value(2).toBool()});
    }
    std::sort(out.begin(), out.end(), [](const CatalogIndex &a, const CatalogIndex &b) { return a.name < b.name; });
    return out;
}

QStringList tablesOf(DbSession &s)
{
    QString sql;
    switch (s.dialect().kind()) {
    case Dialect::PostgreSql:
        // Every schema but the system ones; schema-qualified where not the current schema.
        sql = QStringLiteral("SELECT CASE WHEN table_schema = current_schema() THEN table_name "
                             "ELSE table_schema || '.' || table_name END FROM information_schema.tables "
                             "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') "
                             "AND table_schema NOT LIKE 'pg\\_%' "
                             "ORDER BY table_schema <> current_schema(), table_schema, table_name");
        break;
    case Dialect::MySql:
        sql = QStringLiteral("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() "
                             "AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME");
        break;
    case Dialect::Sqlite:
        sql = QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                             "ORDER BY name");
        break;
    }
    QSqlQuery q = s.exec(sql);
    QStringList out;
    while (q.next())
        out << text(q.value(0));
    return out;
}

bool tableExists(DbSession &s, const QString &table)
{
    return columnsOf(s, table).has_value();
}

QStringList distinctValues(DbSession &s, const QString &table, const QString &column, int limit)
{
    const Dialect d = s.dialect().kind();
    const QString c = sqlName(d, column);
    QString value;
    switch (d) {
    case Dialect::PostgreSql: value = QStringLiteral("CAST(%1 AS text)").arg(c); break;
    case Dialect::MySql: value = QStringLiteral("CAST(%1 AS BINARY)").arg(c); break; // every spelling, case and spaces kept
    case Dialect::Sqlite: value = QStringLiteral("CAST(%1 AS TEXT)").arg(c); break;
    }
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT DISTINCT %1 FROM %2 WHERE %3 IS NOT NULL ORDER BY 1 LIMIT %4")
                             .arg(value, sqlName(d, table), c, b.bind(limit)),
                         b);
    QStringList out;
    while (q.next())
        out << text(q.value(0));
    // The same order on every backend, whatever the column's collation.
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<qint64> maxValue(DbSession &s, const QString &table, const QString &column)
{
    const Dialect d = s.dialect().kind();
    QSqlQuery q = s.exec(QStringLiteral("SELECT MAX(%1) FROM %2").arg(sqlName(d, column), sqlName(d, table)));
    if (!q.next() || q.value(0).isNull())
        return std::nullopt;
    return q.value(0).toLongLong();
}

} // namespace catalog_sql

} // namespace triage
