#include "Retention.h"
#include "FutureChain.h"

#include "Workspace.h"

namespace triage {

QString purgedWindowNote(const WindowQuery &window, std::optional<UtcMicros> oldestRecord)
{
    if (oldestRecord && *oldestRecord <= window.from)
        return {};
    const QString since = oldestRecord ? utcToSecond(formatUtcMicros(*oldestRecord)) + QStringLiteral(" UTC")
                                       : QStringLiteral("this window's end");
    return QStringLiteral("The idempotency store holds no record created before %1 (records expire): events of this window "
                          "before then may have been purged.")
        .arg(since);
}

QFuture<Outcome<QString>> checkWindowRetention(Workspace &workspace, const WindowQuery &window)
{
    WindowQuery probe;
    probe.from = 0;
    probe.to = window.to;
    probe.kinds = {EventKind::RecordCreated};
    probe.lookbackS = window.lookbackS;
    return continueWith(readWindowPage(workspace, probe, WindowCursor{}, 1), workspace.mergePool(), [window](const Outcome<WindowPage> &page) -> Outcome<QString> {
            if (!page.ok())
                return Outcome<QString>::failure(*page.error);
            return Outcome<QString>::success(
                purgedWindowNote(window, page->events.isEmpty() ? std::nullopt : std::optional(page->events.first().at)));
        });
}

} // namespace triage
