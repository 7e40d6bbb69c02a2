#include "CompensationRules.h"

namespace triage {

bool compensationSettled(std::optional<CompensationStatus> rowStatus)
{
    return rowStatus == CompensationStatus::Succeeded;
}

bool compensationRunnable(const CompensationPlanEntry &entry, bool overriding)
{
    if (compensationSettled(entry.rowStatus) || !entry.hasKey)
        return false;
    return entry.outcome != CompensationOutcome::Kind::Refused || (entry.overridable && overriding);
}

} // namespace triage
