#pragma once
// Whether a window reaches back before the data the stores still hold (DESIGN.md §7 "Links"):
// records expire (expire_at) and the agents' systems reap them, so a link to an old window
// may open on less than its author saw.

#include "Window.h"

#include <QFuture>
#include <QString>

#include <optional>

namespace triage {

class Workspace;

/// The note for a window whose start is before the oldest idempotency record still held
/// (`oldestRecord`, µs UTC; nullopt when the store holds none before the window's end):
/// "The idempotency store holds no record created before <oldest> UTC (records expire):
/// events of this window before then may have been purged." (or "… holds no record created
/// before this window's end …"); "" when the window starts at or after the oldest record.
QString purgedWindowNote(const WindowQuery &window, std::optional<UtcMicros> oldestRecord);

/// Reads the oldest record created before `window.to` (one final record.created event of
/// [epoch, to), no filters: a keyset read of one row on the (created_at, id) index) and
/// returns purgedWindowNote() for it. A store error is the Outcome's error.
QFuture<Outcome<QString>> checkWindowRetention(Workspace &workspace, const WindowQuery &window);

} // namespace triage
