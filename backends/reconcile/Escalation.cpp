// Escalation reason names and the automatic resolution rules (DESIGN.md §8 "Resolution
// rules"): pure, no database. The SQL is in EscalationSql.cpp.
#include "Escalation.h"

namespace triage {

namespace {

struct ReasonName {
    EscalationReason reason;
    const char *name;
};

// The enum's order; the one spelling of every reason.
constexpr ReasonName kReasonNames[] = {
    {EscalationReason::Contradiction, "CONTRADICTION"},
    {EscalationReason::AgentSawSuccess, "AGENT_SAW_SUCCESS"},
    {EscalationReason::Duplicate, "DUPLICATE"},
    {EscalationReason::KeyReuse, "KEY_REUSE"},
    {EscalationReason::UpstreamUnusable, "UPSTREAM_UNUSABLE"},
    {EscalationReason::NoQueryApi, "NO_QUERY_API"},
    {EscalationReason::AmountMismatch, "AMOUNT_MISMATCH"},
    {EscalationReason::Expiring, "EXPIRING"},
    {EscalationReason::StuckCompensation, "STUCK_COMPENSATION"},
    {EscalationReason::Policy, "POLICY"},
    {EscalationReason::External, "EXTERNAL"},
};

} // namespace

QString escalationReasonName(EscalationReason reason)
{
    for (const ReasonName &r : kReasonNames)
        if (r.reason == reason)
            return QString::fromLatin1(r.name);
    return {};
}

std::optional<EscalationReason> escalationReasonFromName(const QString &name)
{
    for (const ReasonName &r : kReasonNames)
        if (name == QLatin1String(r.name))
            return r.reason;
    return std::nullopt;
}

QVector<EscalationReason> allEscalationReasons()
{
    QVector<EscalationReason> all;
    for (const ReasonName &r : kReasonNames)
        all << r.reason;
    return all;
}

bool escalationNeedsOperator(EscalationReason reason)
{
    return reason == EscalationReason::AmountMismatch || reason == EscalationReason::Contradiction
        || reason == EscalationReason::External;
}

std::optional<QString> automaticResolution(const Escalation &e, const EscalationState &now)
{
    if (!e.isOpen())
        return std::nullopt;
    switch (e.reason) {
    case EscalationReason::Duplicate:
    case EscalationReason::KeyReuse:
        if (now.liveTickets == 0)
            return QStringLiteral("automatic: no live ticket of the key remains");
        if (now.liveTickets == 1)
            return QStringLiteral("automatic: one live ticket of the key remains");
        return std::nullopt;
    case EscalationReason::StuckCompensation:
        if (now.compensationSettled)
            return QStringLiteral("automatic: the compensation reached a final state");
        return std::nullopt;
    case EscalationReason::Expiring:
        if (now.recordSettled)
            return QStringLiteral("automatic: the key is settled, a retry after the purge cannot run it again");
        return std::nullopt;
    case EscalationReason::AgentSawSuccess:
    case EscalationReason::UpstreamUnusable:
    case EscalationReason::NoQueryApi:
    case EscalationReason::Policy:
        if (now.recordSettled)
            return QStringLiteral("automatic: the record is settled (SUCCESS or FAILED)");
        return std::nullopt;
    case EscalationReason::AmountMismatch:
    case EscalationReason::Contradiction:
    case EscalationReason::External:
        return std::nullopt; // an operator only, with a reason
    }
    return std::nullopt;
}

} // namespace triage
