#include "MarkRules.h"

#include "RecordStatus.h"

#include <QStringList>
#include <QVariant>

namespace triage {

MarkDecision decideMark(const MarkFacts &facts, int toStatus, const QString &reason, bool override,
                        bool snapshotIsJsonObject, const QString &snapshotError)
{
    MarkDecision d;
    auto refuse = [&](const QString &why) {
        d.allowed = false;
        d.reason = why;
        return d;
    };
    if (!facts.recordExists)
        return refuse(QStringLiteral("no idempotency record has this key"));
    if (reason.trimmed().isEmpty())
        return refuse(QStringLiteral("a reason is required for every manual mark"));
    const QString from = facts.fromStatus ? recordStatusText(QVariant(*facts.fromStatus)) : QStringLiteral("NULL");
    const QString to = recordStatusText(QVariant(toStatus));
    if (facts.fromStatus == Success)
        return refuse(QStringLiteral("SUCCESS is final: its snapshot was returned to callers (DESIGN.md §2)"));
    const bool allowedPair = (facts.fromStatus == Processing && (toStatus == Success || toStatus == Failed))
        || (facts.fromStatus == Failed && toStatus == Success);
    if (!allowedPair)
        return refuse(QStringLiteral("%1 → %2 is not an allowed transition (allowed: PROCESSING→SUCCESS, "
                                     "PROCESSING→FAILED, FAILED→SUCCESS)")
                          .arg(from, to));
    if (toStatus == Success && !snapshotIsJsonObject)
        return refuse(QStringLiteral("SUCCESS needs a result snapshot that is a JSON object: %1").arg(snapshotError));
    if (toStatus == Failed) {
        QStringList blockers;
        if (facts.ticketCount > 0)
            blockers << QStringLiteral("%1 ticket row(s) carry the key (the side effect happened)").arg(facts.ticketCount);
        if (facts.succeededAttempts > 0)
            blockers << QStringLiteral("the intent log shows %1 SUCCEEDED attempt(s)").arg(facts.succeededAttempts);
        if (!facts.stale)
            blockers << QStringLiteral("the record is younger than its processing timeout (the request may still be running)");
        if (!blockers.isEmpty()) {
            if (!override)
                return refuse(QStringLiteral("FAILED means \"confirmed no side effect\", but %1; use --override with a "
                                             "reason of at least %2 characters if you are sure")
                                  .arg(blockers.join(QStringLiteral("; ")))
                                  .arg(kOverrideReasonMinLength));
            if (reason.trimmed().size() < kOverrideReasonMinLength)
                return refuse(QStringLiteral("--override needs a reason of at least %1 characters").arg(kOverrideReasonMinLength));
            d.overridden = blockers.join(QStringLiteral("; "));
        }
    }
    d.allowed = true;
    d.reason = QStringLiteral("%1 → %2 allowed").arg(from, to);
    return d;
}

} // namespace triage
