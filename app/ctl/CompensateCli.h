#pragma once
// What compensate prints, shared with approve for a compensation proposal (DESIGN.md §5,
// §9 "Four-eyes").

#include "Command.h"

#include "Compensation.h"

#include <memory>
#include <optional>

namespace triage {
class UpstreamSimulatorProcess;
}

namespace triage::ctl {

/// Prints a compensation's outcome (text: outcome, proposal, comp_key, request — "not sent"
/// when refused, planned or proposed —, reason, status, attempts, the ticket after; JSON: the
/// same fields) and returns its exit code (DESIGN.md §5): 0 succeeded or planned, 1 unknown
/// COMP_KEY or configuration, 3 existing, 4 refused or failed, 5 UNKNOWN, 6 proposed
/// (four-eyes), a database failure's own code.
int reportCompensation(const CommandContext &context, const CompensationOutcome &outcome);

/// The compensation settings to use: the configured ones, or for the demo the upstream
/// simulator's (started into `*simulator`, which must outlive the run); nullopt after a
/// message.
std::optional<CompensationConfigs> compensationsFor(Workspace &workspace, Output &out,
                                                    std::unique_ptr<UpstreamSimulatorProcess> *simulator);

} // namespace triage::ctl
