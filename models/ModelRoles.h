#pragma once

#include <Qt>

namespace triage::roles {

/// Item-data roles shared by every model in models/ (each model adds its own roles from
/// FirstModelRole on). Views read these to draw cells; models never draw anything.
enum : int {
    /// triage::Tone (as int) of a status-like cell; absent (invalid QVariant) for plain cells.
    /// Views draw a cell that has a tone as a coloured status badge.
    Tone = Qt::UserRole + 1,
    /// bool: the cell is SQL NULL (its DisplayRole is the text "NULL").
    IsNull,
    /// bool: the cell holds machine text best shown in a fixed-width font (keys, times, JSON).
    Monospace,
    /// QString: the full, unabridged value (canonical ISO UTC time with microseconds, the
    /// whole key, the whole JSON text) where DisplayRole shows a shortened form.
    FullText,
    /// bool: shorten this cell in the middle (keys, whose both ends tell them apart); every
    /// other cell is shortened on the right, so a time or an age is never cut inside.
    ElideMiddle,
    /// int: the live update's mark on the row (0 none, 1 entered the list since it was loaded,
    /// 2 left it: shown greyed until the next refresh). Views highlight / grey the row.
    LiveChange,
    /// First role a model may define for itself.
    FirstModelRole = Qt::UserRole + 32,
};

} // namespace triage::roles
