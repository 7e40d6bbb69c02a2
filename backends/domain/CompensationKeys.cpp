#include "CompensationKeys.h"

#include <QCryptographicHash>

namespace triage {

QString compensationKey(const QString &action, const QString &ticketId, const QString &sourceKey)
{
    const QString full = QStringLiteral("comp:%1:%2:%3").arg(action, ticketId, sourceKey);
    if (full.size() < kMaxCompensationKeyLength)
        return full;
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(full.toUtf8(), QCryptographicHash::Sha256).toHex());
    // The readable part always ends after the whole ticket id: a business id is opaque and is
    // never cut (DESIGN.md §10 "Business ids").
    const QString head = QStringLiteral("comp:%1:%2:").arg(action, ticketId);
    qsizetype prefix = 47;
    if (full.at(prefix - 1).isHighSurrogate())
        --prefix; // never cut a character in two; the hash fills the difference
    if (head.size() <= prefix) // the id ends inside the first 47 characters: the layout as always
        return full.left(prefix) + QLatin1Char(':') + hash.left(kMaxCompensationKeyLength - 1 - prefix);
    if (head.size() + kMinCompensationKeyHashDigits <= kMaxCompensationKeyLength) // the whole id, then the hash
        return head + hash.left(kMaxCompensationKeyLength - head.size());
    // Action and id together leave no room: the key is the hash alone (deterministic, and it
    // never shows a part of the id as if it were the id).
    return QStringLiteral("comp:sha256:") + hash.left(kMaxCompensationKeyLength - 12);
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
