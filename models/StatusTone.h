#pragma once

#include <QString>

namespace triage {

/// How alarming a status is, independent of any colour: views map tones to colours
/// (UNKNOWN / stale amber, FAILED red, SUCCESS green, …). Exposed through roles::Tone.
enum class Tone {
    Neutral,   ///< nothing to say
    Info,      ///< in progress, look don't touch (fresh PROCESSING, INTENT, OPEN ticket)
    Ok,        ///< settled successfully (SUCCESS, SUCCEEDED)
    Warning,   ///< outcome unknown: stale PROCESSING, UNKNOWN, RECONCILE_PENDING, UNKNOWN_CODE_<n>
    Danger,    ///< confirmed failure (FAILED)
    Escalated, ///< handed to a human (ESCALATED)
    Muted,     ///< closed out or absent (COMPENSATED, CANCELLED, NULL)
};

/// Tone of an idempotency-record status as the backends spell it (RecordStatus.h):
/// "PROCESSING" is Warning when `stale` (older than the processing timeout), else Info;
/// "SUCCESS" Ok; "FAILED" Danger; "UNKNOWN_CODE_<n>" Warning; "NULL" Muted.
Tone recordStatusTone(const QString &statusText, bool stale);

/// Tone of an intent-log / compensation status (DESIGN.md §1 spelling, case-sensitive):
/// INTENT Info, SUCCEEDED Ok, FAILED Danger, UNKNOWN and RECONCILE_PENDING Warning,
/// ESCALATED Escalated, COMPENSATED Muted; anything else Warning (an unknown state is not safe).
Tone intentStatusTone(const QString &status);

/// Tone of a ticket status: OPEN Info, CLOSED Ok, CANCELLED Muted, anything else Neutral.
Tone ticketStatusTone(const QString &status);

} // namespace triage
