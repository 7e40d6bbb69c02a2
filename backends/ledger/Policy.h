#pragma once
// Changing the safety policy (DESIGN.md §8 "Safety policy"): triagectl policy set / freeze /
// unfreeze. Each change and its audit row commit in one transaction; every change is a
// compare-and-set on the row's version.

#include "PolicySql.h"

#include <QFuture>

#include <optional>

namespace triage {

class Workspace;

/// At least this many characters (trimmed) in a policy change's reason, as every operator
/// reason (DESIGN.md §8).
constexpr int kPolicyReasonMinChars = 10;

/// What a `policy set` did (DESIGN.md §8 "Safety policy", §9 "Four-eyes"): applied — `row` as
/// written —, or, while four_eyes_policy = on, proposed — `proposalId` and `message` ("proposed
/// as proposal 12 (four_eyes_policy): policy biz.pay.reconcile = escalate is not set until
/// another operator approves it (triagectl approve 12 --reason …) before <expiry>"), `row` as it
/// still is (version 0: unset) — or, under four-eyes, nothing when the row already has the
/// value (`message` "policy NAME is already VALUE (version 3): nothing to propose").
struct PolicyChange {
    PolicyRow row;
    qint64 proposalId = 0; ///< 0: applied
    QString message;
    bool proposed() const { return proposalId != 0; }
};

/// The proposal action of a policy change under four-eyes (triage_proposal.action).
inline QString policyProposalAction()
{
    return QStringLiteral("policy.set");
}

namespace policy_sql {
/// Sets `name` (parsePolicyName()) to `value` (checkPolicyValue(), stored canonical) for
/// `reason` (≥ kPolicyReasonMinChars), by `operatorName`, with an audit row policy.set
/// (idem_key "policy:<name>", from/to state {"value","version"}) in the same transaction.
/// Compare-and-set on the row's version: `expectedVersion` when given (0: the row must not
/// exist yet), else the version read in this transaction. Returns the row as written.
/// Throws DbException: Config (exit 1) for an unknown name or a bad value (the exact message
/// of parsePolicyName() / checkPolicyValue()); Refused (exit 4) for a short reason ("a policy
/// change needs a reason of at least 10 characters (got 3)"), while frozen (freezeMessage())
/// or on a newer console schema; Conflict (exit 3) when the version moved: "policy NAME is at
/// version 4, not 3: read it again with triagectl policy show". Nothing is written then.
/// While four_eyes_policy = on (read in the same transaction) the change is not applied but
/// proposed: a triage_proposal row (action policy.set, idem_key "policy:<name>", to_status
/// "SET", expected_state {"value","version"} of the row now — {"value":null,"version":0}
/// when unset —, snapshot {"name","value"}) and its audit row (policy.set, recorded); the
/// freeze and unfreeze are never proposed (the freeze must act at once). An open unexpired
/// proposal for the same name is a Conflict naming it; four_eyes_policy on without
/// triage_proposal (console schema version 7) is a Config error ("… run `triagectl
/// init-schema`"), never a change applied at once.
PolicyChange set(DbSession &session, const QString &name, const QString &value, const QString &reason,
                 const QString &operatorName, std::optional<qint64> expectedVersion);

/// Approves policy proposal `id` as `approver` for `reason` and applies it, in one
/// transaction: THE approving statement (proposal_sql::approve(): another operator, unexpired,
/// unedited), then the row must still be as proposed (value and version) — the change is
/// written by compare-and-set with set_by the proposer and the audit row policy.set says
/// "approved proposal 12 of alice (…)". Throws DbException, after auditing the refusal
/// (policy.set, refused) in a transaction of its own: Refused for a short reason, while
/// frozen, for a refused approval (proposal_sql::approve()'s message); Conflict when the row
/// changed since ("policy NAME changed since proposal 12 was made (version 3 then, 4 now):
/// void", the proposal voided); Config when `id` is not a policy proposal.
PolicyChange approve(DbSession &session, qint64 id, const QString &approver, const QString &reason);
/// Turns the global freeze on (`on`) or off, with an audit row policy.freeze / policy.unfreeze
/// written through the freeze (audit_sql::insertThroughFreeze()). Returns the freeze row.
/// Throws DbException: Refused for a short reason; Conflict "already frozen: <freezeMessage>"
/// or "not frozen: nothing to unfreeze" (nothing written).
PolicyRow setFreeze(DbSession &session, bool on, const QString &reason, const QString &operatorName);
} // namespace policy_sql

/// Every triage_policy row (empty before console schema version 6), on the idempotency worker.
QFuture<Outcome<QVector<PolicyRow>>> readPolicy(Workspace &ws);
/// The freeze row when the freeze is on, else nullopt (the console's bar).
QFuture<Outcome<std::optional<PolicyRow>>> readFreeze(Workspace &ws);
/// policy_sql::set() on the idempotency worker as the workspace's operator; never re-sent.
QFuture<Outcome<PolicyChange>> setPolicy(Workspace &ws, const QString &name, const QString &value, const QString &reason,
                                         std::optional<qint64> expectedVersion);

/// policy_sql::approve() on the idempotency worker as the workspace's operator; never re-sent.
QFuture<Outcome<PolicyChange>> approvePolicyProposal(Workspace &ws, qint64 id, const QString &reason);
/// policy_sql::setFreeze() on the idempotency worker as the workspace's operator; never re-sent.
QFuture<Outcome<PolicyRow>> setFreeze(Workspace &ws, bool on, const QString &reason);

} // namespace triage
