#pragma once
// The escalation and claim services (DESIGN.md §8): futures over the idempotency store's
// worker for the console and triagectl, in the one service shape (DESIGN.md §3). The SQL is
// escalation_sql / claim_sql; read-only mode is refused here, before any job runs.

#include "Claim.h"
#include "Escalation.h"

#include <QFuture>

#include <optional>

namespace triage {

class Workspace;

/// One escalation with the unexpired claims on it: on its key (scope Key) and on the
/// escalation itself (scope Escalation), for "claimed by alice, 4 min ago".
struct EscalationRow {
    Escalation escalation;
    std::optional<Claim> keyClaim;
    std::optional<Claim> escalationClaim;
    /// The claim to show (the escalation's own, else its key's), nullopt when neither.
    std::optional<Claim> shownClaim() const { return escalationClaim ? escalationClaim : keyClaim; }
};

/// Lists escalations as escalation_sql::list() does, each with its claims. Fails with
/// Config when the database has no escalation tables (requireReconcileTables()).
QFuture<Outcome<QVector<EscalationRow>>> listEscalations(Workspace &ws, const EscalationQuery &query);

/// Resolves escalation `id` with an operator's `reason` (≥ kOperatorReasonMinChars)
/// by `operatorName` (default: the workspace's operator) — escalation_sql::resolve(). In
/// read-only mode: Refused, nothing written or audited.
QFuture<Outcome<escalation_sql::EscalationResolveResult>>
resolveEscalation(Workspace &ws, qint64 id, const QString &reason, std::optional<qint64> expectedVersion = std::nullopt,
                  const QString &operatorName = QString());

/// Takes, renews or (with `takeoverReason`) takes over the claim on (`scope`, `subject`) for
/// `ttlS` seconds as `operatorName` (default: the workspace's operator) — claim_sql::acquire().
/// In read-only mode: Refused, nothing written or audited.
QFuture<Outcome<ClaimResult>> takeClaim(Workspace &ws, ClaimScope scope, const QString &subject, int ttlS,
                                        const QString &takeoverReason = QString(), const QString &operatorName = QString());
/// Releases the claim on (`scope`, `subject`) held by `operatorName` (default: the
/// workspace's operator) — claim_sql::release(). Read-only mode: Refused, nothing written.
QFuture<Outcome<ClaimResult>> releaseClaim(Workspace &ws, ClaimScope scope, const QString &subject,
                                           const QString &operatorName = QString());
/// Every claim (unexpired unless `includeExpired`), newest first — claim_sql::list().
QFuture<Outcome<QVector<Claim>>> listClaims(Workspace &ws, bool includeExpired);
/// The unexpired claims of `scope` on `subjects`, by subject — claim_sql::activeFor(). A
/// database without the claim table (console schema version < 4) gives an empty map, so
/// queues and the key detail still load there.
QFuture<Outcome<QHash<QString, Claim>>> activeClaims(Workspace &ws, ClaimScope scope, const QStringList &subjects);

/// Reconciliation's freshness (DESIGN.md §8 "Freshness"), the one check doctor and the
/// console share: reconcile_run_sql::freshnessWarning() with `[console]
/// reconcile_expected_every` of the workspace's config (reconcileExpectedEveryS()), on the
/// idempotency worker. The warning's text ("no reconcile run has finished for 2h 5m
/// (reconcile_expected_every = 3600 s; last finished …): check the cron job running `triagectl
/// reconcile`"), or nullopt: no run was ever logged (or no run table), or one finished within
/// the period.
QFuture<Outcome<std::optional<QString>>> reconcileFreshness(Workspace &ws);

/// How many escalations listEscalations() would list without the query's limit —
/// escalation_sql::count() (for "100 escalations (of 111)").
QFuture<Outcome<qint64>> countEscalations(Workspace &ws, const EscalationQuery &query);

/// The operator the services act as: `given`, else the workspace's operator, else the OS user.
QString claimOperator(const Workspace &ws, const QString &given);

} // namespace triage
