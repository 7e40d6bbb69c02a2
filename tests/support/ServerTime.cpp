#include "ServerTime.h"

#include "TestDatabases.h"

namespace triage::test {

QString serverNowMinus(const QString &backend, qint64 seconds)
{
    const QString dialect = dialectOf(backend);
    if (dialect == QLatin1String("postgresql"))
        return QStringLiteral("(now() - interval '%1 seconds')").arg(seconds);
    if (dialect == QLatin1String("mysql"))
        return QStringLiteral("(UTC_TIMESTAMP(6) - INTERVAL %1 SECOND)").arg(seconds);
    return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '%1 seconds') || '000Z')").arg(-seconds);
}

} // namespace triage::test
