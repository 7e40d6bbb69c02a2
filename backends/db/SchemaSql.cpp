#include "SchemaSql.h"

#include "SqlDialect.h"

#include <QRegularExpression>

#include <algorithm>

namespace triage {

namespace {

constexpr auto kPgIso = "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'";
constexpr auto kMyIso = "'%Y-%m-%dT%H:%i:%s.%fZ'";

bool isOffset(const QString &zone)
{
    return zone.startsWith(QLatin1Char('+')) || zone.startsWith(QLatin1Char('-'));
}

/// Minutes east of UTC of an offset "+08:00".
int offsetMinutes(const QString &zone)
{
    const int sign = zone.startsWith(QLatin1Char('-')) ? -1 : 1;
    return sign * (zone.mid(1, 2).toInt() * 60 + zone.mid(4, 2).toInt());
}

/// Epoch units per second for the epoch encodings.
qint64 perSecond(TimeEncoding e)
{
    return e == TimeEncoding::EpochMillis ? 1000 : 1;
}

} // namespace

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

// ---------------------------------------------------------------------------------- TimeSql

QString TimeSql::zone() const
{
    const QString z = m_map.zone;
    switch (m_dialect) {
    case Dialect::PostgreSql:
        // AT TIME ZONE '+08:00' would read the offset with POSIX's inverted sign.
        return isOffset(z) ? QStringLiteral("INTERVAL '%1'").arg(z) : QStringLiteral("'%1'").arg(z);
    case Dialect::MySql: return QStringLiteral("'%1'").arg(z);
    case Dialect::Sqlite: return QString::number(offsetMinutes(z));
    }
    return {};
}

QString TimeSql::instant(const QString &c) const
{
    const qint64 unit = perSecond(m_map.encoding);
    switch (m_dialect) {
    case Dialect::PostgreSql:
        switch (m_map.encoding) {
        case TimeEncoding::Native: return c;
        case TimeEncoding::Local: return QStringLiteral("(%1 AT TIME ZONE %2)").arg(c, zone());
        case TimeEncoding::EpochSeconds: return QStringLiteral("(TIMESTAMPTZ 'epoch' + %1 * INTERVAL '1 second')").arg(c);
        case TimeEncoding::EpochMillis: return QStringLiteral("(TIMESTAMPTZ 'epoch' + %1 * INTERVAL '1 millisecond')").arg(c);
        case TimeEncoding::IsoText: return QStringLiteral("CAST(%1 AS timestamptz)").arg(c);
        }
        break;
    case Dialect::MySql:
        switch (m_map.encoding) {
        case TimeEncoding::Native: return c;
        case TimeEncoding::Local: return QStringLiteral("CONVERT_TZ(%1, %2, '+00:00')").arg(c, zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("(TIMESTAMP '1970-01-01 00:00:00' + INTERVAL (%1 * %2) MICROSECOND)")
                .arg(c, QString::number(1000000 / unit));
        case TimeEncoding::IsoText:
            return QStringLiteral("CAST(REPLACE(REPLACE(%1, 'T', ' '), 'Z', '') AS DATETIME(6))").arg(c);
        }
        break;
    case Dialect::Sqlite:
        switch (m_map.encoding) {
        case TimeEncoding::Native:
        case TimeEncoding::IsoText: return QStringLiteral("julianday(%1)").arg(c);
        case TimeEncoding::Local: return QStringLiteral("(julianday(%1) - %2 / 1440.0)").arg(c, zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("(%1 / %2.0 / 86400.0 + 2440587.5)").arg(c, QString::number(unit));
        }
        break;
    }
    return c;
}

QString TimeSql::text(const QString &c) const
{
    const TimeEncoding e = m_map.encoding;
    switch (m_dialect) {
    case Dialect::PostgreSql:
        return QStringLiteral("to_char(%1 AT TIME ZONE 'UTC', %2)").arg(instant(c), QLatin1String(kPgIso));
    case Dialect::MySql:
        return QStringLiteral("DATE_FORMAT(%1, %2)").arg(instant(c), QLatin1String(kMyIso));
    case Dialect::Sqlite:
        switch (e) {
        case TimeEncoding::Native:
        case TimeEncoding::IsoText: return c;
        case TimeEncoding::Local:
            return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', %1, '%2 minutes') || '000Z')")
                .arg(c, QString::number(-offsetMinutes(m_map.zone)));
        case TimeEncoding::EpochSeconds:
            return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%S', %1, 'unixepoch') || '.000000Z')").arg(c);
        case TimeEncoding::EpochMillis:
            // Integer arithmetic: exact milliseconds (a double would round some of them).
            return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%S', %1 / 1000, 'unixepoch') || '.' || printf('%03d', %1 % 1000) "
                                  "|| '000Z')")
                .arg(c);
        }
    }
    return c;
}

QString TimeSql::secondsSince(const QString &c) const
{
    const TimeEncoding e = m_map.encoding;
    const bool epoch = e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis;
    const QString unit = QString::number(perSecond(e));
    switch (m_dialect) {
    case Dialect::PostgreSql:
        if (epoch)
            return QStringLiteral("(EXTRACT(EPOCH FROM now())::float8 - %1 / %2.0)").arg(c, unit);
        return QStringLiteral("EXTRACT(EPOCH FROM (now() - %1))::float8").arg(instant(c));
    case Dialect::MySql:
        if (epoch)
            return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) / 1000000.0 "
                                  "- %1 / %2.0)")
                .arg(c, unit);
        return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, %1, UTC_TIMESTAMP(6)) / 1000000.0)").arg(instant(c));
    case Dialect::Sqlite:
        return QStringLiteral("((julianday('now') - %1) * 86400.0)").arg(instant(c));
    }
    return {};
}

QString TimeSql::nowValue() const
{
    const TimeEncoding e = m_map.encoding;
    const QString unit = QString::number(perSecond(e));
    switch (m_dialect) {
    case Dialect::PostgreSql:
        switch (e) {
        case TimeEncoding::Native: return QStringLiteral("clock_timestamp()");
        case TimeEncoding::Local: return QStringLiteral("(clock_timestamp() AT TIME ZONE %1)").arg(zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * %1) AS bigint)").arg(unit);
        case TimeEncoding::IsoText: return QStringLiteral("to_char(clock_timestamp() AT TIME ZONE 'UTC', %1)").arg(QLatin1String(kPgIso));
        }
        break;
    case Dialect::MySql:
        switch (e) {
        case TimeEncoding::Native: return QStringLiteral("UTC_TIMESTAMP(6)");
        case TimeEncoding::Local: return QStringLiteral("CONVERT_TZ(UTC_TIMESTAMP(6), '+00:00', %1)").arg(zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV %1)")
                .arg(QString::number(1000000 / perSecond(e)));
        case TimeEncoding::IsoText: return QStringLiteral("DATE_FORMAT(UTC_TIMESTAMP(6), %1)").arg(QLatin1String(kMyIso));
        }
        break;
    case Dialect::Sqlite:
        switch (e) {
        case TimeEncoding::Native:
        case TimeEncoding::IsoText: return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')");
        case TimeEncoding::Local:
            return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%f', 'now', '%1 minutes')").arg(zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("CAST((julianday('now') - 2440587.5) * 86400.0 * %1 AS INTEGER)").arg(unit);
        }
        break;
    }
    return {};
}

QString TimeSql::nowMinusSeconds(const QString &p) const
{
    const TimeEncoding e = m_map.encoding;
    const QString unit = QString::number(perSecond(e));
    switch (m_dialect) {
    case Dialect::PostgreSql: {
        const QString t = QStringLiteral("(now() - CAST(%1 AS double precision) * interval '1 second')").arg(p);
        switch (e) {
        case TimeEncoding::Native: return t;
        case TimeEncoding::Local: return QStringLiteral("(%1 AT TIME ZONE %2)").arg(t, zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("CAST(FLOOR((EXTRACT(EPOCH FROM now()) - CAST(%1 AS double precision)) * %2) AS bigint)").arg(p, unit);
        case TimeEncoding::IsoText: return QStringLiteral("to_char(%1 AT TIME ZONE 'UTC', %2)").arg(t, QLatin1String(kPgIso));
        }
        break;
    }
    case Dialect::MySql: {
        const QString t = QStringLiteral("(UTC_TIMESTAMP(6) - INTERVAL %1 SECOND)").arg(p);
        switch (e) {
        case TimeEncoding::Native: return t;
        case TimeEncoding::Local: return QStringLiteral("CONVERT_TZ(%1, '+00:00', %2)").arg(t, zone());
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', %1) DIV %2)")
                .arg(t, QString::number(1000000 / perSecond(e)));
        case TimeEncoding::IsoText: return QStringLiteral("DATE_FORMAT(%1, %2)").arg(t, QLatin1String(kMyIso));
        }
        break;
    }
    case Dialect::Sqlite:
        switch (e) {
        case TimeEncoding::Native:
        case TimeEncoding::IsoText:
            return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || CAST(%1 AS TEXT) || ' seconds') || '000Z')").arg(p);
        case TimeEncoding::Local:
            return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%f', 'now', '%1 minutes', '-' || CAST(%2 AS TEXT) || ' seconds')")
                .arg(zone(), p);
        case TimeEncoding::EpochSeconds:
        case TimeEncoding::EpochMillis:
            return QStringLiteral("CAST(((julianday('now') - 2440587.5) * 86400.0 - %1) * %2 AS INTEGER)").arg(p, unit);
        }
        break;
    }
    return {};
}

QString TimeSql::param(const QString &p) const
{
    const TimeEncoding e = m_map.encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis)
        return m_dialect == Dialect::MySql ? QStringLiteral("CAST(%1 AS SIGNED)").arg(p)
             : m_dialect == Dialect::PostgreSql ? QStringLiteral("CAST(%1 AS bigint)").arg(p)
                                               : p;
    if (e == TimeEncoding::IsoText || m_dialect == Dialect::Sqlite) {
        if (m_dialect == Dialect::Sqlite && e == TimeEncoding::Local)
            return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%f', %1, '%2 minutes')").arg(p, zone());
        return p;
    }
    const QString native = SqlDialect(m_dialect).timeParam(p);
    if (e == TimeEncoding::Local)
        return m_dialect == Dialect::PostgreSql ? QStringLiteral("(%1 AT TIME ZONE %2)").arg(native, zone())
                                                : QStringLiteral("CONVERT_TZ(%1, '+00:00', %2)").arg(native, zone());
    return native;
}

QVariant TimeSql::bind(UtcMicros t) const
{
    const TimeEncoding e = m_map.encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis) {
        const qint64 div = 1000000 / perSecond(e);
        return qint64(t >= 0 ? t / div : -((-t + div - 1) / div));
    }
    if (e == TimeEncoding::IsoText)
        return formatUtcMicros(t);
    return SqlDialect(m_dialect).bindTime(t);
}

QVariant TimeSql::boundAt(UtcMicros t) const
{
    const TimeEncoding e = m_map.encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis)
        return bind(t + (e == TimeEncoding::EpochMillis ? 999 : 999999));
    return bind(t);
}

bool TimeSql::matchesStoredText() const
{
    return m_map.encoding == TimeEncoding::IsoText
        || (m_dialect == Dialect::Sqlite && (m_map.encoding == TimeEncoding::Native || m_map.encoding == TimeEncoding::Local));
}

QString TimeSql::cursor(const QString &column) const
{
    const TimeEncoding e = m_map.encoding;
    if (matchesStoredText())
        return column;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis)
        return m_dialect == Dialect::PostgreSql ? QStringLiteral("CAST(%1 AS text)").arg(column)
             : m_dialect == Dialect::MySql ? QStringLiteral("CAST(%1 AS CHAR)").arg(column)
                                           : QStringLiteral("CAST(%1 AS TEXT)").arg(column);
    return text(column);
}

QVariant TimeSql::cursorValue(const QString &cursorText) const
{
    const TimeEncoding e = m_map.encoding;
    if (matchesStoredText())
        return cursorText;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis)
        return cursorText.toLongLong();
    // Canonical ISO text: bound as the dialect's value (MySQL wants "YYYY-MM-DD HH:MM:SS.ffffff").
    const auto t = parseUtcMicros(cursorText);
    return t ? SqlDialect(m_dialect).bindTime(*t) : QVariant(cursorText);
}

QString TimeSql::cursorAt(UtcMicros t, bool roundUp) const
{
    const TimeEncoding e = m_map.encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis) {
        const qint64 div = 1000000 / perSecond(e);
        return QString::number(bind(roundUp ? t + div - 1 : t).toLongLong());
    }
    if (m_dialect == Dialect::Sqlite && e == TimeEncoding::Local)
        return formatUtcMicros(t + qint64(offsetMinutes(m_map.zone)) * 60 * 1000000).chopped(1);
    return formatUtcMicros(t);
}

QString TimeSql::keysetAfter(SqlBuilder &b, const QString &timeCol, const QString &idCol, const QVariant &value,
                             const QVariant &id, bool descending) const
{
    const QString op = descending ? QStringLiteral("<") : QStringLiteral(">");
    // A stored-text cursor is compared with the column as it is (param() leaves it alone
    // except for SQLite's local text, which cursorValue() already gives as stored).
    auto p = [&](const QString &ph) { return matchesStoredText() ? ph : param(ph); };
    if (m_dialect == Dialect::MySql) {
        // MySQL/MariaDB do not use an index range for row-value comparisons.
        return QStringLiteral("(%1 %2 %3 OR (%1 = %4 AND %5 %2 %6))")
            .arg(timeCol, op, p(b.bind(value)), p(b.bind(value)), idCol, b.bind(id));
    }
    return QStringLiteral("((%1, %2) %3 (%4, %5))").arg(timeCol, idCol, op, p(b.bind(value)), b.bind(id));
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

QStringList schemaMapProblems(const SchemaMap &map, Dialect records, Dialect intents, Dialect tickets)
{
    QStringList out;
    auto check = [&](const char *section, const TimeMapping &t, Dialect d) {
        if (t.encoding == TimeEncoding::Local && d != Dialect::PostgreSql && !isOffset(t.zone))
            out << QStringLiteral("[%1] time_zone \"%2\" is a zone name: on %3 give the offset (such as +08:00)")
                       .arg(QLatin1String(section), t.zone, dialectName(d));
    };
    check("idempotency.map", map.records.time, records);
    check("intent.map", map.intents.time, intents);
    check("ticket.map", map.tickets.time, tickets);
    return out;
}

} // namespace triage
