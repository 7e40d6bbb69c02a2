#pragma once

#include <QString>

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
};

} // namespace triage
