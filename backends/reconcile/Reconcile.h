#pragma once
// The reconcile run (DESIGN.md §8 "Reconciliation"): settles what the evidence allows and
// hands the rest to humans as escalations, safe to run unattended from cron. One run:
//   lease (claim "reconcile") → run row → stale PROCESSING records (skip operator-claimed
//   keys) → each key's detail → the upstream in bulk (in-flight limit, Retry-After, circuit
//   breaker; every answer recorded as a query_upstream audit row) → the key's detail again →
//   decideReconcile() → compare-and-set marks (mark_sql through markRecords(), operator
//   "reconciler") → automatic resolutions → escalations → run row finished → lease released.

#include "Claim.h"
#include "Escalation.h"
#include "ReconcileDecide.h"

#include "DbError.h"

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QVector>

#include <functional>
#include <optional>

namespace triage {

class Workspace;
class UpstreamClient;
struct KeyDetail;
struct UpstreamEvidence;
struct WorkspaceConfig;

/// Options of one run (`triagectl reconcile`).
struct ReconcileOptions {
    QString bizType;          ///< only records of this biz_type ("" = all)
    int limit = 0;            ///< at most this many stale records (0 = no limit), oldest updated_at first
    /// Decide and report, write nothing: no lease, no run row, no audit row (the upstream is
    /// still asked, read-only, and this run's answer counts as recorded now for the decision).
    bool dryRun = false;
    QString holder;           ///< the lease holder; "" = "reconciler:<host>:<pid>"
    int leaseTtlS = 300;      ///< the lease's expiry, renewed at every step
    int concurrency = 6;      ///< upstream requests in flight (1..6)
    int breakerAfter = 10;    ///< stop querying after this many consecutive UNUSABLE answers (0 = never)
    int retryAfterMaxS = 60;  ///< honour Retry-After up to this long (UpstreamBulkOptions::retryAfterMaxS)
    QString operatorName = QStringLiteral("reconciler"); ///< marks, audit rows, escalations
    /// Called once (on the calling thread) after the decisions, before the first
    /// compare-and-set: where a test makes an operator's concurrent change deterministic.
    std::function<void()> beforeCompareAndSet;
    /// Reconcile settings by biz_type that win over the config file's (reconcileConfigFor()).
    QMap<QString, ReconcileBizConfig> bizConfig;
};

/// What happened to one key.
struct ReconcileKeyResult {
    QString idemKey, bizType;
    ReconcileAction action;        ///< the decision
    /// "applied_success", "applied_failed", "conflict", "waiting", "escalated", "skipped_claimed",
    /// "nothing", "error", or "dry_run:<action>" in a dry run.
    QString outcome;
    QString message;               ///< the mark's message, a refusal, an error
    QString upstream;              ///< this run's answer: FOUND, NOT_FOUND, …, "NOT_QUERIED" (breaker), "" none
    qint64 auditId = 0;            ///< this run's query_upstream row (0: none)
};

/// The run's summary: the JSON printed by `--format json` and stored in
/// triage_reconcile_run.counts (CONTRACT.md / DESIGN.md §8).
struct ReconcileSummary {
    qint64 runId = 0;
    bool dryRun = false;
    QString state = QStringLiteral("finished"); ///< "finished", "failed", "stopped"
    QString startedAt, finishedAt;
    int examined = 0, appliedSuccess = 0, appliedFailed = 0, escalated = 0, escalationsCreated = 0,
        escalationsUpdated = 0, resolved = 0, conflicts = 0, skippedClaimed = 0, waiting = 0, errors = 0;
    QMap<QString, int> byReason;   ///< escalations raised per reason name
    int queried = 0, unusable = 0, retriedAfter = 0, maxInFlight = 0;
    bool breakerOpen = false;
    qint64 upstreamWallMs = 0;     ///< time the bulk query took (answers recorded included)
    qint64 casWallMs = 0;          ///< time the compare-and-sets took (markRecords())
    QVector<ReconcileKeyResult> keys;

    /// {"run_id","dry_run","state","started_at","finished_at","examined","applied_success",
    /// "applied_failed","escalated","escalations_created","escalations_updated","resolved",
    /// "conflicts","skipped_claimed","waiting","errors","by_reason":{…},"upstream":{"queried",
    /// "unusable","breaker_open","retried_after","max_in_flight"}}; with `withKeys` also
    /// "keys":[{"idem_key","biz_type","action","reasons","outcome","upstream","message"}].
    QByteArray toJson(bool withKeys = false) const;
};

/// How a run ended.
struct ReconcileResult {
    enum class Kind {
        Finished,   ///< the run completed (escalations are a normal outcome): exit 0
        LeaseHeld,  ///< another live run holds the lease: exit 3, nothing written
        Refused,    ///< read-only, or the database's console schema is newer: exit 4
        StoreError, ///< a store failed: exit 2 (the run row says "failed" where it could be written)
        ConfigError, ///< a configuration problem, e.g. no escalation tables (console schema 3): exit 1
    };
    Kind kind = Kind::Finished;
    ReconcileSummary summary;
    QString message;               ///< one line for operators
    std::optional<Claim> leaseHolder; ///< LeaseHeld: the other run's lease
};

/// "finished", "lease_held", "refused", "store_error".
QString reconcileResultName(ReconcileResult::Kind kind);

/// The process exit code of `result` (DESIGN.md §8): 0 finished, 1 configuration, 2 store, 3 lease held,
/// 4 refused.
int reconcileExitCode(const ReconcileResult &result);

/// Builds the decision input for `detail` (its biz_type's reconcile settings `bizConfig`) (read after this run's answer was recorded) with
/// this run's `evidence` (nullptr: not queried — not configured, or `breakerOpen`). In a dry
/// run `unrecordedAnswerAt` is the database time this run's answer counts as recorded at.
ReconcileInput reconcileInputFrom(const WorkspaceConfig &config, const ReconcileBizConfig &bizConfig, const KeyDetail &detail,
                                  const UpstreamEvidence *evidence, bool breakerOpen,
                                  std::optional<UtcMicros> unrecordedAnswerAt = std::nullopt);

/// The facts an escalation resolution rule needs (EscalationState) from a key's detail.
EscalationState escalationStateOf(const KeyDetail &detail);

/// The deterministic points where a test may end the process (env TRIAGE_RECONCILE_FAULT):
/// "after_lease" (lease taken, run row written), "after_answers" (every answer recorded,
/// nothing applied), "after_cas:N" (N compare-and-sets committed), "before_finish" (everything
/// done but the run row and the lease). The process then _exit(99)s at once.
void reconcileFaultPoint(const QString &point, int casDone = -1);

/// Runs one reconcile pass. Blocking: call it from a thread that is no pool or GUI thread
/// (triagectl's main thread, a test); the SQL runs on the workspace's workers and the network
/// on `client`'s thread. Never throws.
ReconcileResult runReconcile(Workspace &workspace, UpstreamClient &client, const ReconcileOptions &options);

namespace reconcile_run_sql {
/// Inserts a run row (state running, started_at = heartbeat_at = now on the server) and
/// returns its id. Throws DbException.
qint64 start(DbSession &session, const QString &holder, bool dryRun, const QString &filtersJson);
/// Moves heartbeat_at to now. Throws DbException.
void heartbeat(DbSession &session, qint64 runId);
/// Ends run `runId`: state, finished_at = now (for "finished" / "stopped"; NULL for "failed"
/// when the run could not finish), counts JSON, error. Returns finished_at as text. Throws DbException.
QString finish(DbSession &session, qint64 runId, const QString &state, const QByteArray &countsJson, const QString &error);
/// Marks every other run still "running" whose holder is `deadHolder` as "failed" with
/// `error` (a killed run's row, when its lease is taken over). Returns how many. Throws DbException.
int closeAbandoned(DbSession &session, const QString &deadHolder, qint64 exceptRunId, const QString &error);
/// started_at of run `runId` as canonical text ("" when none). Throws DbException.
QString startedAt(DbSession &session, qint64 runId);
/// The finished_at of the latest run in state "finished" (non-dry), and the server's now;
/// nullopt first when no run has finished. For doctor's reconcile_expected_every check.
std::pair<std::optional<QString>, QString> lastFinished(DbSession &session);
/// doctor's check (DESIGN.md §8): where reconcile runs are logged (the table holds a run),
/// the warning "no reconcile run has finished for 2h 5m (reconcile_expected_every = 3600 s;
/// last finished …)" — or "… has ever finished" — when none finished in the last
/// `expectedEveryS` seconds on the server's clock; nullopt otherwise (no table, no run yet,
/// or a recent one). Throws DbException.
std::optional<QString> freshnessWarning(DbSession &session, int expectedEveryS);
} // namespace reconcile_run_sql

} // namespace triage
