#pragma once

// Shared by the compensation service's step files (CompensationRunner.cpp,
// CompensationDrive.cpp); not a public API.

#include "Compensation.h"
#include "FutureChain.h"

#include <QFuture>
#include <QJsonValue>

namespace triage::compensation_steps {

/// A future that already holds `v`.
template <typename T>
QFuture<T> ready(T v)
{
    return QtFuture::makeReadyFuture(std::move(v));
}

/// Continues `f` with `fn` (which returns the next step's future) on `pool` (the
/// workspace's merge pool, so ~Workspace waits for it) once `f` has finished, and flattens
/// the result (FutureChain.h).
template <typename T, typename F>
auto andThen(QThreadPool *pool, QFuture<T> f, F &&fn)
{
    return continueWith(std::move(f), pool, std::forward<F>(fn));
}

/// Error: a database failed.
CompensationOutcome dbFailure(const DbError &e, const QString &compKey = {});
/// Refused: `why`; `config` when it is the configuration's fault (CLI exit 1).
CompensationOutcome refused(const QString &why, bool config = false);

/// A compensation proposal's expected state (triage_proposal.expected_state): the compact JSON
/// object {"action", "comp_key", "record_status", "target", "ticket_status"} of what the
/// proposer saw; an approval that reads anything else applies nothing and voids the proposal.
QString compensationExpectedState(const QString &compKey, const QString &action, const QString &target,
                                  const std::optional<QString> &ticketStatus, const QString &recordStatus);

/// What gate() is asked about: a real start (every rule already passed), its rendered request
/// (CompensationHttpRequest::toJson() text) and, for an approval, the proposal as read.
struct GateInput {
    CompensationRequest request;
    QString bizType, compKey, expectedState, requestJson, evidenceJson;
    QVector<AmountSeen> amounts; ///< the target ticket's and the record's amounts (four_eyes_amount_over)
    std::optional<CompensationApproval> approval;
};

/// gate()'s answer: go on and write the intent (`message`: the approval's note, a dry run's
/// "four-eyes (biz.pay.four_eyes): a real run proposes it", else ""), proposed instead (nothing written to the intent
/// log, nothing sent), a conflict with an open proposal for the same compensation, or refused.
struct Gate {
    enum class Kind { Proceed, Proposed, Conflict, Refused };
    Kind kind = Kind::Proceed;
    QString message;
    qint64 proposalId = 0;
};

/// On the idempotency database, before the intent is written: the freeze
/// (requireKnownConsoleSchema(), throws Refused "Frozen by …"; not for a dry run); then for an
/// approval THE approving statement (proposal_sql::approve()) and, once it passed, the check that
/// the expected state and the request's substance (method, path, headers, body) are still the
/// proposed ones — else the approval is rolled back and the proposal voided; a refusal is
/// audited as proposal.approve. Else, when the effective policy lists compensate under
/// four_eyes: Conflict naming an open proposal for the same comp_key, a dry run's note, or a
/// triage_proposal row and its audit row (compensate, outcome recorded) in one transaction.
/// DESIGN.md §9 "Four-eyes". Throws DbException.
Gate gate(DbSession &s, const WorkspaceConfig &config, const GateInput &in);

} // namespace triage::compensation_steps
