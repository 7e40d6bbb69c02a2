#pragma once
// The quiet stretch between two events of a window, as every view of it says it: the Incident
// tab's gap rows (models/WindowEventsModel) and `triagectl timeline`'s table (DESIGN.md §7
// "The Incident view").

#include <QString>
#include <QtGlobal>

namespace triage {

/// Consecutive events at least this far apart (µs, 5 min) get a gap line between them.
inline constexpr qint64 kWindowGapMicros = 5LL * 60 * 1000 * 1000;

/// The gap line for `micros` µs without events, in whole minutes (rounded down), hours and
/// minutes from 1 h, days and hours from 1 d: "— 14 min without events —", "— 2 h 5 min
/// without events —", "— 1 d 2 h without events —" (em dashes, UTF-8 in the CLI). Pure.
QString windowGapText(qint64 micros);

} // namespace triage
