#include "SqlDialect.h"

namespace triage {

QString SqlDialect::timeText(const QString &column) const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        // AT TIME ZONE works for timestamptz and for timestamp (read as UTC, DESIGN.md §4).
        return QStringLiteral("to_char((%1) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')").arg(column);
    case Dialect::MySql:
        return QStringLiteral("DATE_FORMAT(%1, '%Y-%m-%dT%H:%i:%s.%fZ')").arg(column);
    case Dialect::Sqlite:
        return column;
    }
    return column;
}

QString SqlDialect::rawText(const QString &column) const
{
    switch (m_kind) {
    case Dialect::PostgreSql: return QStringLiteral("convert_to(CAST(%1 AS text), 'UTF8')").arg(column);
    case Dialect::MySql: return column;
    case Dialect::Sqlite: return QStringLiteral("CAST(%1 AS BLOB)").arg(column);
    }
    return column;
}

QString SqlDialect::secondsSince(const QString &column) const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        return QStringLiteral("EXTRACT(EPOCH FROM (now() - (%1)))::float8").arg(column);
    case Dialect::MySql:
        return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, %1, UTC_TIMESTAMP(6)) / 1000000.0)").arg(column);
    case Dialect::Sqlite:
        return QStringLiteral("((julianday('now') - julianday(%1)) * 86400.0)").arg(column);
    }
    return {};
}

QString SqlDialect::nowValue() const
{
    switch (m_kind) {
    case Dialect::PostgreSql: return QStringLiteral("clock_timestamp()");
    case Dialect::MySql: return QStringLiteral("UTC_TIMESTAMP(6)");
    case Dialect::Sqlite: return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')");
    }
    return {};
}

QString SqlDialect::nowText() const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        // now(), not clock_timestamp(): the very instant secondsSince() measures ages from,
        // so "server_now - updated_at" equals the age read beside it. Through PgBouncer the
        // two clocks of one statement were seen more than 1 ms apart (CI, tst_bundle_export).
        return timeText(QStringLiteral("now()"));
    case Dialect::MySql:
        return timeText(QStringLiteral("UTC_TIMESTAMP(6)"));
    case Dialect::Sqlite:
        return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z')");
    }
    return {};
}

QString SqlDialect::nowMinusSeconds(const QString &param) const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        return QStringLiteral("(now() - CAST(%1 AS double precision) * interval '1 second')").arg(param);
    case Dialect::MySql:
        return QStringLiteral("(UTC_TIMESTAMP(6) - INTERVAL %1 SECOND)").arg(param);
    case Dialect::Sqlite:
        return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || CAST(%1 AS TEXT) || ' seconds') || '000Z')")
            .arg(param);
    }
    return {};
}

QString SqlDialect::timeParam(const QString &param) const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        return QStringLiteral("CAST(%1 AS timestamptz)").arg(param);
    case Dialect::MySql:
        return QStringLiteral("CAST(%1 AS DATETIME(6))").arg(param);
    case Dialect::Sqlite:
        return param;
    }
    return param;
}

QVariant SqlDialect::bindTime(UtcMicros t) const
{
    const QString iso = formatUtcMicros(t);
    if (m_kind == Dialect::MySql)
        return QString(iso.left(10) + QLatin1Char(' ') + iso.mid(11, 15));
    return iso;
}

QString SqlDialect::keysetAfter(SqlBuilder &b, const QString &timeCol, const QString &idCol, const QVariant &time,
                                qint64 id, bool descending) const
{
    const QString op = descending ? QStringLiteral("<") : QStringLiteral(">");
    if (m_kind == Dialect::MySql) {
        // MySQL/MariaDB do not use an index range for row-value comparisons.
        return QStringLiteral("(%1 %2 %3 OR (%1 = %4 AND %5 %2 %6))")
            .arg(timeCol, op, timeParam(b.bind(time)), timeParam(b.bind(time)), idCol, b.bind(id));
    }
    return QStringLiteral("((%1, %2) %3 (%4, %5))").arg(timeCol, idCol, op, timeParam(b.bind(time)), b.bind(id));
}

QString SqlDialect::regexMatch(const QString &column, const QString &param) const
{
    switch (m_kind) {
    case Dialect::PostgreSql:
        return QStringLiteral("(%1 ~ %2)").arg(column, param);
    case Dialect::MySql:
    case Dialect::Sqlite:
        return QStringLiteral("(%1 REGEXP %2)").arg(column, param);
    }
    return {};
}

QString SqlDialect::likeLiteral(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (c == QLatin1Char('!') || c == QLatin1Char('%') || c == QLatin1Char('_'))
            out += QLatin1Char('!');
        out += c;
    }
    return out;
}

} // namespace triage
