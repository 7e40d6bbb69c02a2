#include "CompensationKeys.h"

#include <QCryptographicHash>

namespace triage {

QString compensationKey(const QString &action, const QString &ticketId, const QString &sourceKey)
{
    const QString full = QStringLiteral("comp:%1:%2:%3").arg(action, ticketId, sourceKey);
    if (full.size() < kMaxCompensationKeyLength)
        return full;
    const QByteArray hash = QCryptographicHash::hash(full.toUtf8(), QCryptographicHash::Sha256).toHex();
    qsizetype prefix = 47;
    if (full.at(prefix - 1).isHighSurrogate())
        --prefix; // never cut a character in two; the hash fills the difference
    return full.left(prefix) + QLatin1Char(':')
        + QString::fromLatin1(hash.left(kMaxCompensationKeyLength - 1 - prefix));
}

QString compensationStatusName(CompensationStatus s)
{
    switch (s) {
    case CompensationStatus::Intent: return QStringLiteral("INTENT");
    case CompensationStatus::Succeeded: return QStringLiteral("SUCCEEDED");
    case CompensationStatus::Failed: return QStringLiteral("FAILED");
    case CompensationStatus::Unknown: return QStringLiteral("UNKNOWN");
    }
    return QStringLiteral("UNKNOWN");
}

std::optional<CompensationStatus> compensationStatusFromName(const QString &name)
{
    for (auto s : {CompensationStatus::Intent, CompensationStatus::Succeeded, CompensationStatus::Failed,
                   CompensationStatus::Unknown})
        if (name.trimmed().compare(compensationStatusName(s), Qt::CaseInsensitive) == 0)
            return s;
    return std::nullopt;
}

} // namespace triage
