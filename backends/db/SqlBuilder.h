#pragma once

#include <QList>
#include <QPair>
#include <QStringList>
#include <QString>
#include <QVariant>

namespace triage {

/// Collects bound values while a statement's text is assembled: bind() returns a fresh
/// placeholder (":p0", ":p1", …) for each value, so no value ever enters the SQL text and
/// no placeholder name is used twice (some Qt drivers mishandle repeated names).
class SqlBuilder {
public:
    /// Registers `value` and returns its placeholder.
    QString bind(const QVariant &value)
    {
        const QString name = QStringLiteral(":p%1").arg(m_values.size());
        m_values.append({name, value});
        return name;
    }
    const QList<QPair<QString, QVariant>> &values() const { return m_values; }

private:
    QList<QPair<QString, QVariant>> m_values;
};

/// "SELECT <columns> FROM <from>[ WHERE <where, joined by AND>] ORDER BY <orderBy>[ LIMIT
/// <limit, bound through `b`>]"; `limit` <= 0: no limit.
inline QString selectSql(SqlBuilder &b, const QString &columns, const QString &from, const QStringList &where,
                         const QString &orderBy, int limit)
{
    QString sql = QStringLiteral("SELECT %1 FROM %2").arg(columns, from);
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY ") + orderBy;
    if (limit > 0)
        sql += QStringLiteral(" LIMIT ") + b.bind(limit);
    return sql;
}

} // namespace triage
