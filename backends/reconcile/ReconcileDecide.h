#pragma once
// The reconciler's decision for one stale PROCESSING record (DESIGN.md §8 "Reconciliation",
// the decision table): the §6 verdict × the biz_type's reconcile policy × the two-answer rule
// × the facts (expiry, amounts, the agents' own escalations, compensations) → one action.
// Pure: no I/O, no clock (every time is a database's, passed in).

#include "Amount.h"
#include "Escalation.h"
#include "ReconcileConfig.h"
#include "MarkRules.h"
#include "Verdict.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// What the reconciler does with one key.
enum class ReconcileActionKind {
    None,             ///< nothing: the record is no longer stale PROCESSING, or its evidence could not be read
    ApplySuccess,     ///< compare-and-set PROCESSING → SUCCESS with `snapshot` (operator "reconciler")
    ApplyFailed,      ///< compare-and-set PROCESSING → FAILED (two NOT_FOUND answers, §6 evidence, policy auto)
    WaitConfirmation, ///< one qualifying NOT_FOUND recorded: the next run after reconcile_confirm_delay decides
    Escalate,         ///< hand to a human: `escalations` says why
};

/// "none", "apply_success", "apply_failed", "wait_confirmation", "escalate".
QString reconcileActionName(ReconcileActionKind kind);

/// One escalation the action raises: its reason, the source row it refers to ("intent:<attempt
/// id>" for EXTERNAL; "" otherwise) and a one-line note for operators.
struct ReconcileEscalation {
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    QString sourceRef;
    QString note;
};

/// Everything the decision looks at (DESIGN.md §6 inputs plus §8's facts). Built by the run
/// from a key's detail and this run's upstream answer (reconcileInputFrom(), Reconcile.h).
struct ReconcileInput {
    /// suggestVerdict() on the key's detail and this run's upstream answer (the breaker's "not
    /// sent" answer is UNUSABLE).
    Verdict verdict;
    ReconcilePolicy policy = ReconcilePolicy::Auto; ///< ReconcileBizConfig::policy()
    int confirmDelayS = 300;                        ///< reconcile_confirm_delay (s)
    bool upstreamConfigured = false;                ///< the biz_type has an upstream query API
    bool breakerOpen = false;       ///< this key was not queried: the circuit breaker had opened
    bool recordProcessing = true;   ///< the record is still PROCESSING as read for the decision
    QStringList storeErrors;        ///< a store whose part could not be read (nothing is decided)

    // The FAILED evidence rule (DESIGN.md §6) and the two-answer rule (§8), database clocks.
    std::optional<UtcMicros> now;             ///< the idempotency database's clock at the decision
    std::optional<UtcMicros> updatedAt;       ///< the record's updated_at
    int processingTimeoutS = 300;
    int failedEvidenceMaxAgeS = 900;
    std::optional<UtcMicros> latestAttemptAt; ///< latest created_at / updated_at of the key's intent attempts
    bool attemptTimeUnreadable = false;
    /// Every recorded upstream answer of the key (query_upstream rows of triage_audit), oldest
    /// first, this run's included once it is recorded.
    QVector<RecordedUpstreamAnswer> answers;

    int succeededAttempts = 0;                ///< intent attempts SUCCEEDED
    std::optional<qint64> latestEscalatedAttemptId; ///< the latest ESCALATED intent attempt (EXTERNAL)
    std::optional<double> expiresInS;         ///< expire_at − now (s); nullopt: no expire_at
    /// Amount sources (raw JSON object texts): the record's result_snapshot, the upstream's
    /// FOUND object, and each ticket's payload with its label ("ticket:<id>").
    std::optional<QString> recordSnapshot;
    QString upstreamObject;
    QVector<QPair<QString, std::optional<QString>>> ticketPayloads;
    /// Compensations of the key that have not settled (INTENT older than the processing
    /// timeout, or UNKNOWN): their comp keys.
    QStringList unsettledCompensations;
};

/// The action, with every escalation it raises and why.
struct ReconcileAction {
    ReconcileActionKind kind = ReconcileActionKind::None;
    /// In the enum order of EscalationReason, at most one per reason. May be non-empty with
    /// ApplySuccess (EXTERNAL, STUCK_COMPENSATION stay with a human whatever the record says).
    QVector<ReconcileEscalation> escalations;
    QString why;                          ///< one paragraph: the §8 table row and the facts used
    std::optional<QString> snapshot;      ///< ApplySuccess: the result_snapshot to write (byte-exact)
    QString snapshotSource;               ///< ApplySuccess: "ticket:<id>" or "upstream"
    /// ApplyFailed / WaitConfirmation: the audit rows of the NOT_FOUND answers relied on
    /// (first = the earlier one, 0 when there is none yet; second = the later one).
    qint64 firstNotFoundAuditId = 0, secondNotFoundAuditId = 0;
    /// A one-qualifying-NOT_FOUND key that also escalates (e.g. EXPIRING) keeps waiting.
    bool awaitingConfirmation = false;
    std::optional<QString> amount;        ///< the key's amount as read (business row first), decimal text
    QString currency;                     ///< "" unknown

    /// True when the action raises `reason`.
    bool raises(EscalationReason reason) const;
    /// The reasons' names joined by ",", in order ("" none).
    QString reasonList() const;
};

/// A record whose expire_at is this close (or past) and that stays unresolved is EXPIRING.
constexpr double kExpiringWithinS = 24 * 3600;

/// The decision table (DESIGN.md §8), exactly. Never ApplyFailed unless the verdict is §6
/// row 7 now, the policy is auto, and two definitive NOT_FOUND answers at least
/// confirmDelayS apart agree — both obtained after updated_at + processing_timeout and
/// after the latest intent attempt, no FOUND / AMBIGUOUS answer between them, the later one
/// younger than failed_evidence_max_age.
ReconcileAction decideReconcile(const ReconcileInput &input);

/// The two-answer rule alone: the later and earlier qualifying NOT_FOUND answers of `input`
/// (see decideReconcile()); `later` nullopt when no answer qualifies; `earlier` nullopt
/// when none is at least confirmDelayS before it.
struct NotFoundPair {
    std::optional<RecordedUpstreamAnswer> later, earlier;
    QString why; ///< why not (empty when both are there)
};
NotFoundPair notFoundPair(const ReconcileInput &input);

} // namespace triage
