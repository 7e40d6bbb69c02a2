#include "StatusTone.h"

namespace triage {

Tone recordStatusTone(const QString &statusText, bool stale)
{
    if (statusText == QLatin1String("PROCESSING"))
        return stale ? Tone::Warning : Tone::Info;
    if (statusText == QLatin1String("SUCCESS"))
        return Tone::Ok;
    if (statusText == QLatin1String("FAILED"))
        return Tone::Danger;
    if (statusText == QLatin1String("NULL") || statusText.isEmpty())
        return Tone::Muted;
    return Tone::Warning; // UNKNOWN_CODE_<n>: a code the console does not know is never safe
}

Tone intentStatusTone(const QString &status)
{
    if (status == QLatin1String("INTENT"))
        return Tone::Info;
    if (status == QLatin1String("SUCCEEDED"))
        return Tone::Ok;
    if (status == QLatin1String("FAILED"))
        return Tone::Danger;
    if (status == QLatin1String("ESCALATED"))
        return Tone::Escalated;
    if (status == QLatin1String("COMPENSATED") || status == QLatin1String("NULL"))
        return Tone::Muted;
    return Tone::Warning; // UNKNOWN, RECONCILE_PENDING, or a state the console does not know
}

Tone ticketStatusTone(const QString &status)
{
    if (status == QLatin1String("OPEN"))
        return Tone::Info;
    if (status == QLatin1String("CLOSED"))
        return Tone::Ok;
    if (status == QLatin1String("CANCELLED") || status == QLatin1String("NULL"))
        return Tone::Muted;
    return Tone::Neutral;
}

} // namespace triage
