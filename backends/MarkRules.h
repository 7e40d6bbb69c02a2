#pragma once

#include <QString>

#include <optional>

namespace triage {

/// What the rules need to know about a record and its evidence before a manual mark.
struct MarkFacts {
    bool recordExists = true;
    std::optional<qint64> fromStatus; ///< the status the operator saw (nullopt: NULL)
    bool stale = false;               ///< PROCESSING older than the processing timeout (DESIGN.md §4)
    int ticketCount = 0;              ///< ticket rows carrying the key
    int succeededAttempts = 0;        ///< intent-log attempts with status SUCCEEDED
};

/// The rules' answer: allowed or refused with the reason; `overridden` lists the safety
/// rules an --override set aside (audited).
struct MarkDecision {
    bool allowed = false;
    QString reason;
    QString overridden;
};

/// Minimum length of the reason that must accompany --override (issue 3).
constexpr int kOverrideReasonMinLength = 20;

/// Decides whether a manual transition to `toStatus` is allowed (DESIGN.md §2 "Mark
/// SUCCESS / Mark FAILED", §1 recovery table). Allowed: PROCESSING→SUCCESS,
/// PROCESSING→FAILED, FAILED→SUCCESS (a correction). SUCCESS is final. SUCCESS needs
/// `snapshotIsJsonObject`. FAILED means "confirmed no side effect", so it is refused when a
/// ticket carries the key, when the intent log shows a SUCCEEDED attempt, or when the
/// record is younger than its processing timeout — unless `override` with a reason of at
/// least kOverrideReasonMinLength characters. Every mark needs a non-empty reason.
/// Pure function: no I/O.
MarkDecision decideMark(const MarkFacts &facts, int toStatus, const QString &reason, bool override,
                        bool snapshotIsJsonObject, const QString &snapshotError);

} // namespace triage
