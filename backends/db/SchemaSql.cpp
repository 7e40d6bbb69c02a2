// Mapped names and text comparisons, StatusSql and the per-table SQL (DESIGN.md §10); the time
// columns' SQL is in TimeSql.cpp.
#include "SchemaSql.h"

#include "SqlDialect.h"

#include <QRegularExpression>

#include <algorithm>

namespace triage {

QString sqlName(Dialect dialect, const QString &name)
{
    static const QRegularExpression plain(QStringLiteral("^[a-z_][a-z0-9_]*$"));
    // Words that are names of the default schema's columns but reserved somewhere.
    static const QStringList reserved = {QStringLiteral("order"), QStringLiteral("group"), QStringLiteral("user"),
                                         QStringLiteral("key"), QStringLiteral("table"), QStringLiteral("select")};
    QStringList parts;
    for (const QString &p : name.split(QLatin1Char('.'))) {
        if (plain.match(p).hasMatch() && !reserved.contains(p))
            parts << p;
        else if (dialect == Dialect::MySql)
            parts << QLatin1Char('`') + p + QLatin1Char('`');
        else
            parts << QLatin1Char('"') + p + QLatin1Char('"');
    }
    return parts.join(QLatin1Char('.'));
}

QString textIs(SqlBuilder &b, Dialect dialect, const QString &column, const QString &value)
{
    if (dialect == Dialect::MySql)
        return QStringLiteral("(%1 = %2 AND BINARY %1 = %3)").arg(column, b.bind(value), b.bind(value));
    return QStringLiteral("%1 = %2").arg(column, b.bind(value));
}

QString textSame(Dialect dialect, const QString &a, const QString &b)
{
    if (dialect == Dialect::MySql)
        return QStringLiteral("(%1 = %2 AND BINARY %1 = %2)").arg(a, b);
    return QStringLiteral("%1 = %2").arg(a, b);
}

QString exactText(Dialect dialect, const QString &column)
{
    return dialect == Dialect::MySql ? QStringLiteral("BINARY ") + column : column;
}

// -------------------------------------------------------------------------------- StatusSql

QString StatusSql::read(const QString &column) const
{
    if (!m_map.text)
        return column;
    switch (m_dialect) {
    case Dialect::PostgreSql: return QStringLiteral("CAST(%1 AS text)").arg(column);
    case Dialect::MySql: return QStringLiteral("CAST(%1 AS CHAR)").arg(column);
    case Dialect::Sqlite: return QStringLiteral("CAST(%1 AS TEXT)").arg(column);
    }
    return column;
}

QString StatusSql::folded(const QString &column) const
{
    return QStringLiteral("UPPER(TRIM(%1))").arg(read(column));
}

QString StatusSql::isAny(SqlBuilder &b, const QString &column, const QStringList &names) const
{
    QStringList values;
    for (const QString &n : names)
        for (const QString &s : m_map.spellings.value(n)) {
            if (!m_map.text)
                values << b.bind(s.toLongLong());
            else
                values << b.bind(m_map.ignoreCase ? s.trimmed().toUpper() : s);
        }
    if (values.isEmpty())
        return QStringLiteral("1 = 0");
    const QString list = values.join(QStringLiteral(", "));
    if (!m_map.text)
        return QStringLiteral("%1 IN (%2)").arg(column, list);
    if (m_map.ignoreCase)
        return QStringLiteral("%1 IN (%2)").arg(folded(column), list);
    if (m_dialect == Dialect::MySql) {
        // The column's collation narrows by index; BINARY makes case and trailing spaces count.
        QStringList exact;
        for (const QString &n : names)
            for (const QString &s : m_map.spellings.value(n))
                exact << b.bind(s);
        return QStringLiteral("(%1 IN (%2) AND BINARY %1 IN (%3))").arg(column, list, exact.join(QStringLiteral(", ")));
    }
    return QStringLiteral("%1 IN (%2)").arg(column, list);
}

QString StatusSql::isNone(SqlBuilder &b, const QString &column, const QStringList &names) const
{
    const QString any = isAny(b, column, names);
    return QStringLiteral("(%1 IS NULL OR NOT %2)").arg(column, any == QLatin1String("1 = 0") ? QStringLiteral("(1 = 0)") : any);
}

QStringList StatusSql::allSpellings() const
{
    QStringList out;
    for (auto it = m_map.spellings.cbegin(); it != m_map.spellings.cend(); ++it)
        for (const QString &s : *it)
            if (!out.contains(s))
                out << s;
    return out;
}

QString StatusSql::isUnknown(SqlBuilder &b, const QString &column, const QStringList &serverOrder) const
{
    const QString none = isNone(b, column, m_map.spellings.keys());
    QVariantList bounds; // ascending, distinct: the known values in the column's order
    if (!m_map.text) {
        QList<qint64> codes;
        for (const QString &s : allSpellings())
            if (!codes.contains(s.toLongLong()))
                codes << s.toLongLong();
        std::sort(codes.begin(), codes.end());
        for (qint64 c : codes)
            bounds << QVariant(c);
    } else if (m_dialect != Dialect::MySql) {
        for (const QString &s : serverOrder)
            if (bounds.isEmpty() || bounds.constLast().toString() != s)
                bounds << QVariant(s);
    }
    if (bounds.isEmpty())
        return none;
    // The open ranges below, between and above the known values: each one an index range.
    QStringList ranges{QStringLiteral("%1 IS NULL").arg(column), QStringLiteral("%1 < %2").arg(column, b.bind(bounds.first()))};
    for (int i = 0; i + 1 < bounds.size(); ++i)
        ranges << QStringLiteral("(%1 > %2 AND %1 < %3)").arg(column, b.bind(bounds[i]), b.bind(bounds[i + 1]));
    ranges << QStringLiteral("%1 > %2").arg(column, b.bind(bounds.constLast()));
    const QString narrowed = QLatin1Char('(') + ranges.join(QStringLiteral(" OR ")) + QLatin1Char(')');
    // Integer codes: the ranges are the exact complement (SQLite's text or 1.5 in an integer
    // column falls in one of them too: text sorts after every number there).
    if (!m_map.text)
        return narrowed;
    return QStringLiteral("(%1 AND %2)").arg(narrowed, none);
}

QString StatusSql::spellingOrderSql(SqlBuilder &b, const QString &table, const QString &column) const
{
    if (!m_map.text || m_dialect == Dialect::MySql)
        return {};
    QStringList parts{QStringLiteral("SELECT %1 AS v FROM %2 WHERE 1 = 0").arg(column, table)};
    for (const QString &s : allSpellings())
        parts << QStringLiteral("SELECT %1").arg(b.bind(s));
    // Ordered by o.v, the column's own type (an enum by its labels), not by the text output.
    return QStringLiteral("SELECT %1 AS tc_spelling FROM (%2) o ORDER BY o.v")
        .arg(read(QStringLiteral("o.v")), parts.join(QStringLiteral(" UNION ALL ")));
}

QString StatusSql::equalsStored(SqlBuilder &b, const QString &column, const std::optional<QString> &stored) const
{
    if (!stored)
        return QStringLiteral("%1 IS NULL").arg(column);
    if (!m_map.text) {
        bool ok = false;
        const qint64 n = stored->toLongLong(&ok);
        return ok ? QStringLiteral("%1 = %2").arg(column, b.bind(n)) : QStringLiteral("%1 = %2").arg(column, b.bind(*stored));
    }
    if (m_dialect == Dialect::MySql)
        return QStringLiteral("BINARY %1 = BINARY %2").arg(read(column), b.bind(*stored));
    return QStringLiteral("%1 = %2").arg(read(column), b.bind(*stored));
}

QString StatusSql::write(SqlBuilder &b, const QString &name) const
{
    const QString s = m_map.written(name);
    return m_map.text ? b.bind(s) : b.bind(s.toLongLong());
}

std::optional<QString> StatusSql::decode(const QVariant &stored) const
{
    if (stored.isNull())
        return std::nullopt;
    return m_map.decode(stored.toString());
}

// ------------------------------------------------------------------------------ table SQL

RecordSql::RecordSql(Dialect d, const RecordTableMap &m)
    : map(m), table(sqlName(d, m.table)), id(sqlName(d, m.id)), key(sqlName(d, m.key)), status(sqlName(d, m.status)),
      snapshot(sqlName(d, m.snapshot)), createdAt(sqlName(d, m.createdAt)), updatedAt(sqlName(d, m.updatedAt)),
      expireAt(m.expireAt.isEmpty() ? QString() : sqlName(d, m.expireAt)),
      version(m.version.isEmpty() ? QString() : sqlName(d, m.version)),
      tenant(m.tenant.isEmpty() ? QString() : sqlName(d, m.tenant)),
      bizTypeColumn(m.bizType.isEmpty() ? QString() : sqlName(d, m.bizType)), time(d, m.time), statuses(d, m.statuses)
{
}

QString RecordSql::bizType(SqlBuilder &b, const QString &alias) const
{
    if (!bizTypeColumn.isEmpty())
        return qualified(alias, bizTypeColumn);
    // MySQL: a length, or QMYSQL cannot fetch the row when this is a selected column (the
    // bound value's result buffer would be zero bytes long: MYSQL_DATA_TRUNCATED).
    return time.dialect() == Dialect::MySql ? QStringLiteral("CAST(%1 AS CHAR(64))").arg(b.bind(map.bizTypeValue))
                                            : QStringLiteral("CAST(%1 AS VARCHAR(64))").arg(b.bind(map.bizTypeValue));
}

QString RecordSql::bizTypeIs(SqlBuilder &b, const QString &value, const QString &alias) const
{
    if (bizTypeColumn.isEmpty())
        return value == map.bizTypeValue ? QStringLiteral("1 = 1") : QStringLiteral("1 = 0");
    // Exact on MySQL/MariaDB's case-insensitive collations too ('Ticket' is not 'ticket').
    return textIs(b, time.dialect(), qualified(alias, bizTypeColumn), value);
}

QString RecordSql::bizTypeNotIn(SqlBuilder &b, const QStringList &values, const QString &alias) const
{
    if (bizTypeColumn.isEmpty())
        return values.contains(map.bizTypeValue) ? QStringLiteral("1 = 0") : QStringLiteral("1 = 1");
    if (values.isEmpty())
        return QStringLiteral("1 = 1");
    QStringList ph;
    for (const QString &v : values)
        ph << b.bind(v);
    // Exact on MySQL/MariaDB (BINARY: neither case nor trailing spaces ignored).
    return QStringLiteral("%1 NOT IN (%2)").arg(exactText(time.dialect(), qualified(alias, bizTypeColumn)), ph.join(QStringLiteral(", ")));
}

QString RecordSql::expireAtText(const QString &alias) const
{
    return expireAt.isEmpty() ? QStringLiteral("NULL") : time.text(qualified(alias, expireAt));
}

IntentSql::IntentSql(Dialect d, const IntentTableMap &m)
    : map(m), table(sqlName(d, m.table)), id(sqlName(d, m.id)), taskId(sqlName(d, m.taskId)), stepId(sqlName(d, m.stepId)),
      action(sqlName(d, m.action)), key(sqlName(d, m.key)), status(sqlName(d, m.status)), request(sqlName(d, m.request)),
      response(sqlName(d, m.response)), error(sqlName(d, m.error)), stateBefore(m.stateBefore.isEmpty() ? QString() : sqlName(d, m.stateBefore)),
      stateAfter(m.stateAfter.isEmpty() ? QString() : sqlName(d, m.stateAfter)),
      actor(m.actor.isEmpty() ? QString() : sqlName(d, m.actor)), createdAt(sqlName(d, m.createdAt)),
      updatedAt(sqlName(d, m.updatedAt)), time(d, m.time), statuses(d, m.statuses)
{
}

QString IntentSql::statusName(const QVariant &stored) const
{
    if (stored.isNull())
        return {};
    return statuses.decode(stored).value_or(stored.toString());
}

TicketSql::TicketSql(Dialect d, const TicketTableMap &m)
    : map(m), table(sqlName(d, m.table)), id(sqlName(d, m.id)), key(sqlName(d, m.key)),
      tenant(m.tenant.isEmpty() ? QString() : sqlName(d, m.tenant)), title(m.title.isEmpty() ? QString() : sqlName(d, m.title)),
      status(sqlName(d, m.status)), payload(sqlName(d, m.payload)), createdAt(sqlName(d, m.createdAt)),
      updatedAt(m.updatedAt.isEmpty() ? QString() : sqlName(d, m.updatedAt)), time(d, m.time), statuses(d, m.statuses)
{
}

std::optional<QString> TicketSql::statusName(const QVariant &stored) const
{
    if (stored.isNull())
        return std::nullopt;
    return statuses.decode(stored).value_or(stored.toString());
}

QString TicketSql::idText(const QString &alias) const
{
    const QString c = qualified(alias, id);
    switch (time.dialect()) {
    case Dialect::PostgreSql: return QStringLiteral("CAST(%1 AS text)").arg(c);
    case Dialect::MySql: return QStringLiteral("CAST(%1 AS CHAR)").arg(c);
    case Dialect::Sqlite: return QStringLiteral("CAST(%1 AS TEXT)").arg(c);
    }
    return c;
}

QString TicketSql::tenantOrNull(const QString &alias) const
{
    return tenant.isEmpty() ? QStringLiteral("NULL") : qualified(alias, tenant);
}

QString TicketSql::titleOrNull(const QString &alias) const
{
    return title.isEmpty() ? QStringLiteral("NULL") : qualified(alias, title);
}

QString TicketSql::updatedAtTextOrNull(const QString &alias) const
{
    return updatedAt.isEmpty() ? QStringLiteral("NULL") : time.text(qualified(alias, updatedAt));
}

} // namespace triage

