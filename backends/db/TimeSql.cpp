// TimeSql (the mapped time columns' SQL per encoding and dialect, DESIGN.md §10) and the
// mapping checks that concern time: split from SchemaSql.cpp, whose header declares them.
#include "SchemaSql.h"

#include "SqlDialect.h"

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
