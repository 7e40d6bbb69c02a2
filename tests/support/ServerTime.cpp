#include "ServerTime.h"

#include "TestDatabases.h"

namespace triage::test {

QString serverNowMinus(const QString &backend, qint64 seconds)
{
    return serverNowMinusMicros(backend, seconds * 1000000);
}

QString serverNowMinusMicros(const QString &backend, qint64 micros)
{
    const QString dialect = dialectOf(backend);
    if (dialect == QLatin1String("postgresql"))
        return QStringLiteral("(now() - %1 * interval '1 microsecond')").arg(micros);
    if (dialect == QLatin1String("mysql"))
        return QStringLiteral("(UTC_TIMESTAMP(6) - INTERVAL %1 MICROSECOND)").arg(micros);
    const QString seconds = QString::number(double(qAbs(micros)) / 1e6, 'f', 6);
    return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '%1%2 seconds') || '000Z')")
        .arg(micros >= 0 ? QStringLiteral("-") : QStringLiteral("+"), seconds);
}

QString serverNowMinusWholeSeconds(const QString &backend, qint64 seconds)
{
    const QString dialect = dialectOf(backend);
    if (dialect == QLatin1String("mysql"))
        return QStringLiteral("UTC_TIMESTAMP() - INTERVAL %1 SECOND").arg(seconds);
    if (dialect == QLatin1String("postgresql"))
        return QStringLiteral("CAST(date_trunc('second', now() AT TIME ZONE 'UTC') - interval '%1 seconds' AS TIMESTAMP)").arg(seconds);
    return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%S', 'now', '-%1 seconds') || '.000000Z')").arg(seconds);
}

} // namespace triage::test
