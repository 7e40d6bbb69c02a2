#include "RecordStatus.h"

#include <QStringList>

namespace triage {

QString recordStatusText(const QVariant &status)
{
    if (status.isNull() || !status.isValid())
        return QStringLiteral("NULL");
    bool ok = false;
    const qlonglong code = status.toLongLong(&ok);
    if (!ok)
        return QStringLiteral("UNKNOWN_CODE_") + status.toString();
    switch (code) {
    case Processing: return QStringLiteral("PROCESSING");
    case Success: return QStringLiteral("SUCCESS");
    case Failed: return QStringLiteral("FAILED");
    default: return QStringLiteral("UNKNOWN_CODE_%1").arg(code);
    }
}

std::optional<int> recordStatusFromText(const QString &text)
{
    const QString t = text.trimmed().toUpper();
    if (t == QLatin1String("PROCESSING"))
        return Processing;
    if (t == QLatin1String("SUCCESS"))
        return Success;
    if (t == QLatin1String("FAILED"))
        return Failed;
    return std::nullopt;
}

const QStringList &intentStatuses()
{
    static const QStringList s = {QStringLiteral("INTENT"),  QStringLiteral("SUCCEEDED"),
                                  QStringLiteral("FAILED"),  QStringLiteral("UNKNOWN"),
                                  QStringLiteral("RECONCILE_PENDING"), QStringLiteral("ESCALATED"),
                                  QStringLiteral("COMPENSATED")};
    return s;
}

} // namespace triage
