#include "ShopShape.h"

#include <QFile>
#include <QSettings>

namespace triage::test {

QString shopIniPath()
{
    return QStringLiteral(TRIAGE_SOURCE_DIR "/tests/support/shop/shop.ini");
}

SchemaMap shopSchemaMap()
{
    QSettings s(shopIniPath(), QSettings::IniFormat);
    QString error;
    const std::optional<SchemaMap> m = SchemaMap::fromSettings(s, &error);
    if (!m)
        qFatal("tests/support/shop/shop.ini: %s", qPrintable(error));
    return *m;
}

QStringList shopDdl(const QString &dialect)
{
    QFile f(QStringLiteral(TRIAGE_SOURCE_DIR "/tests/support/shop/schema-%1.sql").arg(dialect));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    QStringList statements;
    QString text;
    for (const QString &line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n')))
        if (!line.trimmed().startsWith(QLatin1String("--")))
            text += line + QLatin1Char('\n');
    for (const QString &s : text.split(QLatin1Char(';')))
        if (!s.trimmed().isEmpty())
            statements << s.trimmed();
    return statements;
}

QString shopRecordStatus(const QString &e)
{
    const QString t = e.trimmed();
    if (t == QLatin1String("0"))
        return QStringLiteral("'pending '");
    if (t == QLatin1String("1"))
        return QStringLiteral("'Done'");
    if (t == QLatin1String("2"))
        return QStringLiteral("'ERROR'");
    if (t.compare(QLatin1String("NULL"), Qt::CaseInsensitive) == 0)
        return QStringLiteral("NULL");
    if (t.startsWith(QLatin1Char('\'')))
        return t;
    return QLatin1Char('\'') + t + QLatin1Char('\'');
}

std::optional<QString> shopIntentStatus(const std::optional<QString> &s)
{
    if (!s)
        return s;
    static const QHash<QString, QString> m = {
        {QStringLiteral("INTENT"), QStringLiteral("started")},   {QStringLiteral("SUCCEEDED"), QStringLiteral("ok")},
        {QStringLiteral("FAILED"), QStringLiteral("failed")},    {QStringLiteral("UNKNOWN"), QStringLiteral("timeout")},
        {QStringLiteral("RECONCILE_PENDING"), QStringLiteral("reconcile")},
        {QStringLiteral("ESCALATED"), QStringLiteral("escalated")}, {QStringLiteral("COMPENSATED"), QStringLiteral("compensated")}};
    return m.value(*s, *s);
}

std::optional<QString> shopTicketStatus(const std::optional<QString> &s)
{
    if (!s)
        return s;
    if (*s == QLatin1String("CANCELLED"))
        return QStringLiteral("voided");
    if (*s == QLatin1String("OPEN"))
        return QStringLiteral("live");
    return s;
}

QString shopOrderId(qint64 n)
{
    return QStringLiteral("00000000-0000-4000-8000-%1").arg(n, 12, 10, QLatin1Char('0'));
}

QString epochMillisOf(const QString &dialect, const QString &expr)
{
    if (expr.trimmed().compare(QLatin1String("NULL"), Qt::CaseInsensitive) == 0)
        return QStringLiteral("NULL");
    if (dialect == QLatin1String("postgresql"))
        return QStringLiteral("CAST(FLOOR(EXTRACT(EPOCH FROM (%1)) * 1000) AS BIGINT)").arg(expr);
    if (dialect == QLatin1String("mysql"))
        return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', %1) DIV 1000)").arg(expr);
    return QStringLiteral("CAST(ROUND((julianday(%1) - 2440587.5) * 86400000.0) AS INTEGER)").arg(expr);
}

} // namespace triage::test
