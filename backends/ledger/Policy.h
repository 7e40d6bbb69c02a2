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
PolicyRow set(DbSession &session, const QString &name, const QString &value, const QString &reason,
              const QString &operatorName, std::optional<qint64> expectedVersion);
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
QFuture<Outcome<PolicyRow>> setPolicy(Workspace &ws, const QString &name, const QString &value, const QString &reason,
                                      std::optional<qint64> expectedVersion);
/// policy_sql::setFreeze() on the idempotency worker as the workspace's operator; never re-sent.
QFuture<Outcome<PolicyRow>> setFreeze(Workspace &ws, bool on, const QString &reason);

} // namespace triage
