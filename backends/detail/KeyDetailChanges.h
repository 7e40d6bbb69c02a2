#pragma once
// What changed between two reads of the same key's detail (DESIGN.md §9 "Live key detail"):
// the key detail re-reads its key while shown and says what moved, in operators' words.

#include "KeyDetailTypes.h"

#include <QStringList>

namespace triage {

/// The changes from `before` to `after` (two reads of the same key), one line each, in this
/// order: the record ("record appeared", "record gone", "status PROCESSING → SUCCESS",
/// "record updated (updated_at … → …)" when only the time moved, "result_snapshot changed"),
/// tickets by business id ("ticket 502 appeared (NEW)", "ticket 501 ACTIVE → CANCELLED",
/// "ticket 501 gone"), intent-log attempts by id ("intent attempt 7 appeared (PENDING)",
/// "intent attempt 7 PENDING → SUCCEEDED"), the audit trail's new rows ("mark_success applied
/// by alice"), compensations by comp_key ("compensation <comp_key> appeared (INTENT)",
/// "compensation <comp_key> UNKNOWN → SUCCEEDED"). NULL prints "NULL". Parts a store failed to
/// read in either read (KeyDetail::errors) are not compared. Empty: nothing changed. Pure.
QStringList keyDetailChanges(const KeyDetail &before, const KeyDetail &after);

} // namespace triage
