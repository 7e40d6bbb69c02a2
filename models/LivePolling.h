#pragma once
// What every live poller of the console shares (DESIGN.md §9 "Live queues"): the slowdown
// while the window is hidden and the one line that says how live a view is.

#include <QString>

namespace triage {

/// How much slower a live poll runs while the window is hidden or minimized.
inline constexpr int kLiveHiddenSlowdown = 6;

/// The live line of a poller polling every `intervalMs` (> 0; × kLiveHiddenSlowdown when
/// `slowed`): "live: polling every 5 s", "live: polling every 100 ms", with " (window hidden)"
/// when slowed; or, when `staleSinceHms` (HH:MM:SS UTC of the first failed poll) is not empty,
/// "stale since 02:14:07 UTC (<why>)". Pure.
inline QString livePollingText(int intervalMs, bool slowed, const QString &staleSinceHms, const QString &why)
{
    if (!staleSinceHms.isEmpty())
        return QStringLiteral("stale since %1 UTC (%2)").arg(staleSinceHms, why);
    const int seconds = intervalMs * (slowed ? kLiveHiddenSlowdown : 1) / 1000;
    QString text = seconds >= 1 ? QStringLiteral("live: polling every %1 s").arg(seconds)
                                : QStringLiteral("live: polling every %1 ms").arg(intervalMs);
    if (slowed)
        text += QStringLiteral(" (window hidden)");
    return text;
}

} // namespace triage
