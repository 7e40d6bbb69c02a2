#pragma once

#include "Audit.h"
#include "CompensationConfig.h"
#include "CompensationKeys.h"
#include "CompensationPlan.h"
#include "CompensationReply.h"
#include "CompensationRow.h"
#include "CompensationSql.h"
#include "DbWorker.h"
#include "KeyDetail.h"
#include "MarkRules.h"
#include "Proposal.h"

#include <QByteArray>
#include <QFuture>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QThread>
#include <QVector>

#include <memory>
#include <optional>

namespace triage {

class CompensationHttp;
class Workspace;

/// A four-eyes proposal being approved (CompensationRunner::approve()): the row as read and
/// the approver's reason.
struct CompensationApproval {
    ProposalRow row;
    QString reason;
};

/// The result of start() / resume().
struct CompensationOutcome {
    enum class Kind {
        Planned,   ///< dry run: nothing written or sent
        Succeeded, ///< the effect is confirmed (reply or confirmation query)
        Failed,    ///< an explicit 4xx refusal with no side effect
        Unknown,   ///< the outcome is not known: resume later (CLI exit 5)
        Existing,  ///< start(): a compensation with this key already exists (CLI exit 3)
        Refused,   ///< a safety rule or the configuration forbids it (CLI exit 4 / 1)
        Error,     ///< a database failed (CLI exit 2)
        NotFound,  ///< resume(): no compensation has this key (CLI exit 1)
        Proposed,  ///< four-eyes: a proposal waits for a second operator; nothing written to the intent log or sent (CLI exit 6)
    };
    Kind kind = Kind::Error;
    QString message;                 ///< one line for operators
    bool configError = false;        ///< Refused because of missing configuration (CLI exit 1)
    bool overridable = false;        ///< Refused only by rules that `override` sets aside (compensationTargetRule())
    QString compKey;
    CompensationHttpRequest request; ///< the rendered request (also for Planned)
    std::optional<CompensationRow> row;
    QVector<CompensationAttemptRow> history;
    std::optional<TicketRow> ticketAfter; ///< re-read from the ticket database after success
    std::optional<DbError> dbError;
    qint64 proposalId = 0;           ///< the four-eyes proposal made (Proposed), approved, or refused for approval
    bool approvalRefused = false;    ///< approve(): the approving statement refused (the proposal stays as it is)
};
/// "planned", "succeeded", "failed", "unknown", "existing", "refused", "error", "not_found", "proposed".
QString compensationOutcomeName(CompensationOutcome::Kind k);

/// The compensation service (DESIGN.md §1 "Compensation is a side effect too"): renders the
/// request once, writes the intent into triage_compensation (UNIQUE comp_key) before any
/// HTTP call, sends it with its deterministic X-Idempotency-Key, classifies the reply
/// (FAILED only for an explicit 4xx refusal before any possible side effect; anything
/// unclear is UNKNOWN), confirms UNKNOWN by the confirmation query, records every attempt,
/// re-reads the ticket after success and audits the outcome (triage_audit).
///
/// Async shape (the one the services share): every method returns a QFuture at once and
/// never blocks. The work is a chain of steps — SQL jobs on the Workspace's workers, HTTP
/// exchanges on this object's network thread — joined by continueWith() jobs on the
/// Workspace's merge pool (FutureChain.h) that decide and submit the next step. GUI: `whenReady(future, this, …)`; CLI: `.result()` on its
/// main thread. The Workspace and this object must outlive the futures (views hold it by
/// shared_ptr for that).
class CompensationRunner {
public:
    /// Uses the workspace's configured compensations (WorkspaceConfig::compensations).
    explicit CompensationRunner(Workspace &workspace);
    /// Uses `configs` instead (the demo points its biz types at the upstream simulator).
    CompensationRunner(Workspace &workspace, CompensationConfigs configs);
    ~CompensationRunner();
    CompensationRunner(const CompensationRunner &) = delete;
    CompensationRunner &operator=(const CompensationRunner &) = delete;

    /// Plans (dry run) or starts a new compensation. A second start for the same key
    /// reports Existing with the stored row and sends nothing. compensationTargetRule()
    /// decides first (for a dry run too). Every outcome of a real start is audited (action
    /// `compensate`), refusals included; a request without a reason is refused unaudited.
    ///
    /// Before the intent is written (a real start), the idempotency database is asked
    /// (compensation_steps::gate()): while frozen the start is refused; where the policy lists
    /// compensate under four_eyes (DESIGN.md §9 "Four-eyes") it becomes a proposal (Proposed,
    /// nothing written to the intent log, nothing sent).
    QFuture<CompensationOutcome> start(const CompensationRequest &request);
    /// Approves four-eyes proposal `id` (action compensate) as `approver` with `reason` (≥ 10
    /// characters): reads the proposal, then starts its compensation again as the approver —
    /// fresh reads, every rule, the same rendered request — with THE approving statement
    /// (proposal_sql::approve(): another operator, unexpired, unedited) just before the intent
    /// is written. Refused by that statement: approvalRefused, the proposal as it was. Refused by
    /// a rule, or the ticket, the record or the request changed: nothing sent, the proposal void.
    QFuture<CompensationOutcome> approve(qint64 id, const QString &approver, const QString &reason);
    /// Continues the compensation `compKey` with its stored request: nothing to do when it
    /// SUCCEEDED or FAILED; otherwise the canonical-ticket rule is checked again on the
    /// key's current tickets (an intent whose target is now, or always was, the canonical
    /// ticket is refused and sends nothing), then confirm first, then (if the effect is
    /// absent, or the upstream honours the key) re-send with the same key. Key reuse was
    /// decided when it started. Outcomes are audited (action `compensate_resume`); an
    /// unknown `compKey` is NotFound, unaudited.
    QFuture<CompensationOutcome> resume(const QString &compKey, const QString &operatorName);
    /// Lists compensations (intent-log database).
    QFuture<Outcome<QVector<CompensationRow>>> list(const CompensationQuery &query);
    /// The attempt history of `compKey`.
    QFuture<Outcome<QVector<CompensationAttemptRow>>> history(const QString &compKey);

private:
    struct Drive;
    using DriveState = std::shared_ptr<Drive>;
    QFuture<CompensationOutcome> runStart(const CompensationRequest &request,
                                          const std::optional<CompensationApproval> &approval = std::nullopt);
    /// runStart() once the record and the key's tickets are read: renders, checks, asks the
    /// gate and writes the intent.
    QFuture<CompensationOutcome> planned(const CompensationRequest &request, const QString &key, const QString &bizType,
                                         const CompensationActionConfig &cfg, const RecordDetail &rec,
                                         const Outcome<QVector<TicketRow>> &tickets,
                                         const std::optional<CompensationApproval> &approval);
    /// The intent written and driven, once the gate said Proceed (`note`: its approval note).
    QFuture<CompensationOutcome> writeIntent(const CompensationRequest &request, CompensationOutcome out, CompensationRow intent,
                                             const QString &overridden, const QString &note);
    /// Existing: the stored row and request, with a `conflict` audit row.
    QFuture<CompensationOutcome> existingOutcome(CompensationOutcome out, const CompensationRow &row,
                                                 const CompensationRequest &request);
    QFuture<CompensationOutcome> runResume(const QString &compKey, const QString &operatorName);
    /// Writes the audit row of a refused start or resume (idempotency database); the
    /// outcome's message then says when the row could not be written.
    QFuture<CompensationOutcome> auditRefusal(CompensationOutcome out, const QString &action, const QString &sourceKey,
                                              const QString &target, const QString &operatorName, const QString &reason);
    /// Sends (or resumes) and records the outcome; `overridden` names the rules an
    /// override set aside (audit evidence). Steps: confirmFirst → sendCall → finish.
    QFuture<CompensationOutcome> drive(CompensationRow row, const CompensationHttpRequest &req, bool resumed,
                                       const QString &operatorName, const QString &overridden = {}, const QString &note = {});
    QFuture<CompensationOutcome> sendCall(DriveState st);
    /// The call's reply `r` is recorded: decides the status, confirming an unclear reply.
    QFuture<CompensationOutcome> afterCall(DriveState st, const CompensationHttpResult &r, SendClass cls);
    /// Stores the status, re-reads the row and its history.
    QFuture<CompensationOutcome> finish(DriveState st);
    /// The row and history are read: the outcome, the ticket after success, then audit().
    QFuture<CompensationOutcome> recorded(DriveState st, const Outcome<QVector<CompensationAttemptRow>> &hist);
    /// The outcome's message and its audit row (action compensate or compensate_resume).
    QFuture<CompensationOutcome> audit(DriveState st);
    /// The confirmation query of the compensation, recorded as a "confirm" attempt.
    QFuture<ConfirmClass> confirm(DriveState st);
    /// Writes `entry` to triage_audit; `outcome` passes through (a failed write is logged).
    QFuture<CompensationOutcome> writeAudit(const AuditEntry &entry, CompensationOutcome outcome);

    Workspace &m_workspace;
    CompensationConfigs m_configs;
    QThread m_thread;
    CompensationHttp *m_http = nullptr; ///< lives in m_thread
};

} // namespace triage
