#pragma once

#include <QString>

#include <optional>

namespace triage {

/// What counts as evidence that a key's side effect did not happen (DESIGN.md §6 "FAILED
/// needs positive evidence of absence").
enum class FailedEvidence {
    /// Default: a recorded definitive upstream NOT_FOUND, obtained after updated_at +
    /// processing_timeout and after the key's latest intent attempt, younger than
    /// failed_evidence_max_age. Config spelling "upstream".
    Upstream,
    /// The side effect *is* the ticket row and tickets always carry the key: stale and no
    /// ticket is enough (the seeds' reconciliation rule). Config spelling "ticket_absent".
    TicketAbsent,
};

/// What the reconciler may do on its own for a biz_type (DESIGN.md §8 "Reconciliation":
/// `reconcile = auto | escalate`). It governs automatic FAILED only: SUCCESS verdicts are
/// applied under both.
enum class ReconcilePolicy {
    Auto,     ///< "auto": FAILED where every rule allows it (two NOT_FOUND answers, §6 evidence)
    Escalate, ///< "escalate": a FAILED verdict becomes a POLICY escalation
};

/// Per-biz_type settings (DESIGN.md §4): the processing timeout and where the tenant
/// sits in the idempotency key.
struct BizTypeConfig {
    /// Seconds after which a PROCESSING record is stale (outcome UNKNOWN). Must exceed
    /// the operation's P99. Default 300 s.
    int processingTimeoutS = 300;
    /// Tenant pattern: "{tenant}" marks the tenant field, "*" one ':'-free field, anything
    /// else is literal; fields are ':'-separated. Default "*:*:{tenant}" (third field).
    QString tenantPattern = QStringLiteral("*:*:{tenant}");
    /// `failed_evidence = upstream | ticket_absent` (default upstream).
    FailedEvidence failedEvidence = FailedEvidence::Upstream;
    /// `failed_evidence_max_age` in seconds: how old a NOT_FOUND may be and still prove
    /// absence (default 900 s = 15 min).
    int failedEvidenceMaxAgeS = 900;
    /// `money_moving = true`: the side effect moves money (pay, refund). Changes the default
    /// reconcile policy to escalate (DESIGN.md §8). Default false.
    bool moneyMoving = false;
    /// `reconcile = auto | escalate`; nullopt: not set (reconcilePolicy() then defaults by
    /// moneyMoving).
    std::optional<ReconcilePolicy> reconcile;
    /// `reconcile_confirm_delay` in seconds: how far apart the two definitive NOT_FOUND
    /// answers behind an automatic FAILED must be (query APIs are often eventually
    /// consistent). Default 300 s.
    int reconcileConfirmDelayS = 300;

    /// The policy in force: `reconcile` when set, else escalate for money-moving biz_types
    /// and auto otherwise (DESIGN.md §8).
    ReconcilePolicy reconcilePolicy() const
    {
        return reconcile ? *reconcile : (moneyMoving ? ReconcilePolicy::Escalate : ReconcilePolicy::Auto);
    }
};

} // namespace triage
