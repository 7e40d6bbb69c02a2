#pragma once
// The demo's 14 days of reconciliation history (DESIGN.md §8 "The demo's reconcile pass and
// history"): one reconcile run a day, the escalations those runs raised on keys of their own
// (records, tickets, intent-log rows and operators' audit rows seeded with them), how each
// ended — resolved by a later run, resolved by a named operator with a reason, or still open
// (overdue past its SLA when older than 24 h) — and the claims operators hold now. Written
// through the stores' own functions (reconcile_run_sql, escalation_sql, claim_sql), then
// moved back in time by bound UPDATEs.

#include "Claim.h"
#include "DemoData.h"
#include "Escalation.h"

#include <QHash>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// One run of the history: `ago` µs before the idempotency database's now, 40 s long.
struct HistoryRun {
    qint64 startedAgo = 0;
    QString holder; ///< "reconciler:demo-cron:<n>": a host that is not this one, never taken over
};

/// One escalation of the history and how it ended.
struct HistoryEscalation {
    enum class End {
        Open,       ///< still open (the creation pass updates it when its key is still stale)
        Operator,   ///< resolved by `resolvedBy` with `resolution` at `resolvedAgo`
        Reconciler, ///< resolved by run `resolvedByRun` by its automatic rule (DESIGN.md §8)
    };
    QString idemKey, bizType, tenant;
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    QString note;                  ///< the decision's words for this reason (as decideReconcile() writes them)
    QString why;                   ///< the decision's "why" ("§6 row 3 → UNKNOWN")
    QString upstream;              ///< the run's answer: FOUND, NOT_FOUND, AMBIGUOUS, UNUSABLE
    QString verdictJson;           ///< Verdict::toJson() of what the run saw
    std::optional<QString> amount; ///< the business row's amount (money biz_types)
    QString currency;
    bool externalSource = false;   ///< EXTERNAL: source_ref = intent:<the key's latest ESCALATED attempt id>
    int raisedByRun = 0;           ///< index into EscalationHistory::runs
    int lastSeenByRun = 0;         ///< the last run of the history that still saw it
    End end = End::Open;
    int resolvedByRun = -1;        ///< End::Reconciler
    QString resolvedBy, resolution; ///< End::Operator
    qint64 resolvedAgo = 0;        ///< End::Operator
};

/// A claim operators hold at the demo's creation: on an escalation of the history (scope
/// Escalation) or on its key (scope Key). Taken `claimedAgo` µs before now for `ttlS` s.
struct HistoryClaim {
    ClaimScope scope = ClaimScope::Escalation;
    int escalation = 0; ///< index into EscalationHistory::escalations
    QString holder;
    qint64 claimedAgo = 0;
    int ttlS = kClaimMaxTtlS;
};

/// The history to write: its keys' rows, runs, escalations and claims. Times are µs before
/// the idempotency database's now (SeedPlan's convention).
struct EscalationHistory {
    SeedPlan keys;
    QVector<HistoryRun> runs; ///< oldest first: runs[i] started (14 − i) days minus 2 h before now
    QVector<HistoryEscalation> escalations;
    QVector<HistoryClaim> claims;
};

/// The demo's history (pure, deterministic): 14 runs, run i at (14 − i) days before now plus
/// 2 h (so the newest is 22 h old), and ~60 escalations on keys of their own
/// (keys shaped like the demo set's, from a seed of their own; ticket ids from `firstTicketId`) across the reasons CONTRADICTION,
/// AGENT_SAW_SUCCESS, DUPLICATE, KEY_REUSE, UPSTREAM_UNUSABLE, AMOUNT_MISMATCH and EXTERNAL,
/// every biz_type and tenant of the demo; operators alice, bob, carol, dave and erin.
EscalationHistory makeEscalationHistory(qint64 firstTicketId);

/// What writing the history did.
struct HistoryReport {
    qint64 records = 0, tickets = 0, intents = 0, audits = 0;
    qint64 runs = 0, escalations = 0, resolved = 0, claims = 0;
};

/// Writes the demo's history into `workspace`'s stores (ticket ids after the tickets there):
/// its keys' records, tickets, intent-log rows and operators' audit rows (seed_sql, times on
/// the idempotency database's clock), then the runs, escalations, resolutions and claims on
/// the idempotency worker (insertEscalationHistory()). Needs console schema version 4
/// (init-schema). Blocking: call it from a thread that is no pool or GUI thread (the demo's
/// creation). Returns the first failure.
Outcome<HistoryReport> seedEscalationHistory(Workspace &workspace);

namespace seed_sql {
/// The escalation part of seedEscalationHistory() on the idempotency database: each run by
/// reconcile_run_sql::start() / finish() (its counts the summary of what it did in the
/// history), each escalation by escalation_sql::raise() with that run, each resolution by
/// escalation_sql::resolve(), each claim by claim_sql::acquire(); then one bound UPDATE per
/// row moves the times they wrote (and the audit rows' `at`, and the times inside their
/// from/to states) to `now` minus the history's offsets. `escalatedAttempt` gives the
/// EXTERNAL keys' latest ESCALATED intent attempt id. Throws DbException.
HistoryReport insertEscalationHistory(DbSession &session, const EscalationHistory &history,
                                      const QHash<QString, qint64> &escalatedAttempt, UtcMicros now);
} // namespace seed_sql

} // namespace triage
