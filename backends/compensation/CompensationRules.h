#pragma once

#include "Compensation.h"

#include <QVector>

#include <optional>

namespace triage {

/// One planned compensation of a duplicate group as a plan or a run left it: what
/// compensationRunnable() needs. Pure data; no I/O.
struct CompensationPlanEntry {
    std::optional<CompensationStatus> rowStatus;      ///< the stored row's status (nullopt: no row yet)
    std::optional<CompensationOutcome::Kind> outcome; ///< the last plan / run outcome (nullopt: none, or running)
    bool overridable = false; ///< refused only by rules an override sets aside (CompensationOutcome::overridable)
    bool hasKey = false;      ///< the plan rendered a compensation key
};

/// True when the compensation is settled: its row is SUCCEEDED, nothing is left to send
/// (DESIGN.md §1 "Compensation is a side effect too"). Pure.
bool compensationSettled(std::optional<CompensationStatus> rowStatus);

/// True when a stored compensation in `status` may be resumed: INTENT or UNKNOWN (sent or
/// about to be, outcome not known). SUCCEEDED and FAILED are settled; nullopt (no row, or a
/// status the console does not know) is not resumable. Pure.
bool compensationResumable(std::optional<CompensationStatus> status);

/// The tickets of a duplicate group to compensate, in the order given: every ticket but the
/// canonical one (`canonicalTicketId`, DESIGN.md §6 "Canonical ticket") and those already
/// CANCELLED. Pure.
QVector<BusinessId> ticketsToCompensate(const QVector<TicketRow> &tickets, const std::optional<BusinessId> &canonicalTicketId);

/// True when the compensation may be started or resumed now: not settled, a key was
/// rendered, and the plan did not refuse it — unless it was refused only by rules an
/// override sets aside and `overriding` (the operator asked for an audited override).
/// Pure; the one rule the compensation dialog's Run button follows.
bool compensationRunnable(const CompensationPlanEntry &entry, bool overriding);

} // namespace triage
