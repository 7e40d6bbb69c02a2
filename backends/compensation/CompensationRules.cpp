#include "CompensationRules.h"

namespace triage {

bool compensationSettled(std::optional<CompensationStatus> rowStatus)
{
    return rowStatus == CompensationStatus::Succeeded;
}

bool compensationResumable(std::optional<CompensationStatus> status)
{
    return status == CompensationStatus::Intent || status == CompensationStatus::Unknown;
}

QVector<BusinessId> ticketsToCompensate(const QVector<TicketRow> &tickets, const std::optional<BusinessId> &canonicalTicketId)
{
    QVector<BusinessId> ids;
    for (const TicketRow &t : tickets)
        if (t.id != canonicalTicketId && t.status.value_or(QString()) != QLatin1String("CANCELLED"))
            ids.append(t.id);
    return ids;
}

bool compensationRunnable(const CompensationPlanEntry &entry, bool overriding)
{
    if (compensationSettled(entry.rowStatus) || !entry.hasKey)
        return false;
    return entry.outcome != CompensationOutcome::Kind::Refused || (entry.overridable && overriding);
}

} // namespace triage
