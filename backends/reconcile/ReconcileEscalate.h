#pragma once
// The escalations of a reconcile run (DESIGN.md §8 "Reconciliation", step 7 and "Dry run"):
// raising them after the decisions, and a dry run's prediction of what raising would do.
// Internal to backends/reconcile (runReconcile(), Reconcile.cpp).

#include "DbError.h"
#include "KeyDetail.h"
#include "Reconcile.h"
#include "ReconcileDecide.h"
#include "WorkspaceConfig.h"

#include <QVector>

#include <optional>

namespace triage {

class DbWorker;

/// The escalation's facts as stored (a JSON object as text): the run, the decision, the
/// verdict and the latest ten upstream answers relied on.
QString reconcileFactsJson(const ReconcileKeyResult &key, const ReconcileInput &input, const ReconcileEscalation &escalation,
                           qint64 runId);

/// Step 7 of a real run: each key's escalations (`results[i].action.escalations`, facts from
/// `inputs[i]`, tenant and expiry from `after[i]`) raised in one transaction per key on `idem`
/// (escalation_sql::raise(), audited there). Counts created / updated / escalated keys and
/// by_reason into `sum` (NotReopened counts nothing) and sets an empty key outcome to
/// "escalated" or "nothing". Returns the first store failure (the caller fails the run).
std::optional<DbError> raiseEscalations(DbWorker &idem, const WorkspaceConfig &config, QVector<ReconcileKeyResult> &results, const QVector<ReconcileInput> &inputs,
                                        const QVector<KeyDetail> &after, const ReconcileOptions &options, ReconcileSummary &sum);

/// A dry run's prediction of raiseEscalations() (DESIGN.md §8 "Dry run"): reads the keys'
/// open escalations and resolved EXTERNAL source_refs on `idem` (nothing written) and counts
/// into `sum` what a real run would: an EXTERNAL whose source_ref a resolved EXTERNAL of the
/// key carries is not reopened (not counted; a key with nothing else to raise gets outcome
/// "dry_run:none"), a reason with an open escalation of the key is updated, any other
/// created; escalated keys, by_reason and the escalated keys awaiting a second NOT_FOUND
/// (waiting) as a real run counts them. Returns the store failure, if any.
std::optional<DbError> predictEscalations(DbWorker &idem, QVector<ReconcileKeyResult> &results, ReconcileSummary &sum);

/// The POLICY escalation a run raises when the mark rules refused its automatic mark
/// (`message`: the refusal, e.g. the canonical-ticket rule or rejectedAgainText()).
ReconcileEscalation refusedMarkEscalation(const QString &message);

/// The POLICY escalation a run raises when four-eyes (DESIGN.md §9) made its automatic mark
/// proposal `proposalId` (a real run), or would make it one (a dry run: `proposalId` 0).
ReconcileEscalation fourEyesEscalation(qint64 proposalId);

/// A dry run's prediction of four-eyes (DESIGN.md §9 "Four-eyes", §8 "Dry run"): each
/// ApplySuccess / ApplyFailed key of `results` whose record (`after[i]`) has an effective
/// policy giving that mark to a second operator becomes what the real run makes of it: an
/// Escalate action with fourEyesEscalation(0), or, when the key already has an open proposal
/// for that mark, a conflict (outcome "dry_run:conflict", counted in sum.conflicts, the
/// message naming the proposal). Reads triage_proposal on `idem`, writes nothing. Returns
/// the store failure, if any. A mark an operator rejected on the same record state is what the
/// real run makes of it too: refused (refusedMarkEscalation(rejectedAgainText())).
std::optional<DbError> predictFourEyes(DbWorker &idem, const QVector<KeyDetail> &after, QVector<ReconcileKeyResult> &results,
                                       ReconcileSummary &sum);

} // namespace triage
