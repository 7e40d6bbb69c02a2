#pragma once

#include "Audit.h"
#include "CanonicalTicket.h"
#include "KeyDetail.h"
#include "MarkRules.h"
#include "Proposal.h"

#include <QFuture>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// One manual mark (DESIGN.md §2): PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS.
struct MarkRequest {
    QString idemKey;
    RecordStatusCode toStatus = Success;   ///< SUCCESS or FAILED (decideMark refuses PROCESSING)
    QString reason;                        ///< required; ≥ kMarkReasonMinLength characters, ≥ 20 with override
    std::optional<QString> snapshot;       ///< result_snapshot for SUCCESS (a JSON object), kept byte-exact
    QString snapshotSource;                ///< "ticket:<id>", "file:<path>", "typed", "upstream"
    /// SUCCESS from a ticket's payload: markRecord() reads that ticket and fills `snapshot`
    /// and `snapshotSource`; a ticket that does not carry the key is a refusal (audited).
    std::optional<BusinessId> snapshotFromTicket; ///< the ticket's id exactly as stored (opaque)
    /// Why `snapshot` is empty (e.g. snapshotTicketFor()'s refusal): a SUCCESS mark without a
    /// snapshot is refused, and audited, with exactly this text.
    QString snapshotMissingReason;
    std::optional<ExpectedState> expect;   ///< nullopt: read the current state first and use it
    bool override = false;
    bool dryRun = false;                   ///< decide and report, write nothing (no audit row either)
    bool bulk = false;                     ///< part of markRecords(): an override is refused (decideMark())
    QString operatorName;
    QString evidenceJson;                  ///< extra evidence (JSON object text), e.g. an upstream answer
    QString requestId;                     ///< empty: generated; reuse to make a retry idempotent
    bool readBack = true;                  ///< re-read the record after applying (false in bulk runs)
    /// Set by approveProposal() only: this mark is the approval of that proposal (as read), by
    /// operatorName for approvalReason. mark_sql::apply() then runs the approving statement
    /// (proposal_sql::approve()) in the compare-and-set's own transaction and never proposes.
    std::optional<ProposalRow> approves;
    QString approvalReason;
    /// False for the reconciler (DESIGN.md §9 "Four-eyes", Reconcile): a mark four-eyes would
    /// propose while an operator rejected the same mark on the same record state
    /// (proposal_sql::rejectedFor()) is refused instead (rejectedAgainText()), not proposed
    /// again. Operators may propose again (their own decision).
    bool proposeAfterRejection = true;
};

/// What happened to one mark.
struct MarkResult {
    /// Proposed: four-eyes (DESIGN.md §9) made the mark a proposal (proposalId) that a second
    /// operator approves; nothing was applied.
    enum class Kind { Applied, Conflict, Refused, Error, DryRun, Proposed };
    Kind kind = Kind::Error;
    QString idemKey;
    QString message;                      ///< one line for operators
    QString requestId;
    qint64 auditId = 0;                   ///< the audit row written (0: none)
    qint64 proposalId = 0;                ///< Proposed: the new proposal; an approval: the one approved
    std::optional<RecordDetail> before;   ///< the record as read before the change
    std::optional<RecordDetail> current;  ///< the record as it is now (after, or the winner's state on conflict)
    std::optional<AuditEntry> changedBy;  ///< on conflict: the latest applied audit row (a person), if any
    QStringList warnings;                 ///< e.g. the one-second CAS blind spot
};

/// Fills `request`'s SUCCESS snapshot from the canonical-ticket rule's choice
/// (snapshotTicketFor()): the ticket's payload and source "ticket:<id>", or, when the rule
/// refused, the refusal as snapshotMissingReason (mark_sql::apply() then refuses and audits
/// the mark with exactly that text). The one place a snapshot is taken from a ticket.
void setSnapshotFrom(MarkRequest &request, const SnapshotTicketChoice &choice);

/// "applied", "conflict", "refused", "error", "dry-run", "proposed".
QString markKindName(MarkResult::Kind kind);

/// Evidence from the stores, gathered before the compare-and-set (DESIGN.md §6 inputs).
struct MarkEvidence {
    QVector<BusinessId> ticketIds;          ///< the key's tickets, as stored (opaque ids)
    /// SUCCESS marks: the key's tickets (id, status, created_at; no payload), for the
    /// canonical-ticket rule (snapshotCanonicalRefusal()).
    QVector<TicketRow> tickets;
    QVector<qint64> succeededAttemptIds;
    QVector<qint64> escalatedAttemptIds;
    std::optional<UtcMicros> latestAttemptAt; ///< latest created_at / updated_at of the key's attempts (intent database's clock)
    bool attemptTimeUnreadable = false;       ///< an attempt's time could not be parsed
    /// The latest recorded upstream answer (triage_audit, action query_upstream); mark_sql::apply()
    /// reads it itself on the idempotency database, markEvidenceOf() takes it from the detail.
    std::optional<RecordedUpstreamAnswer> upstream;
    QString ticketError, intentError; ///< a store that could not be read (evidence unknown)
    /// The amounts of the key's business rows ("ticket 42") and intent requests ("attempt 7")
    /// for four_eyes_amount_over (fourEyesRuleForMark()); the marks' own reads take the tickets'
    /// of SUCCESS marks only (FAILED is refused while a ticket carries the key).
    QVector<AmountSeen> amounts;
};

/// The upstream answer a `query_upstream` audit row recorded: its classification (from the
/// row's evidence JSON, {"evidence":{"classification":…}}; UNUSABLE when unreadable) and
/// its time. nullopt when the row is not a query_upstream row.
std::optional<RecordedUpstreamAnswer> recordedUpstreamAnswer(const AuditEntry &row);

/// The mark evidence a loaded detail shows: its tickets, SUCCEEDED / ESCALATED attempts,
/// latest attempt time, latest recorded upstream answer and store errors.
MarkEvidence markEvidenceOf(const KeyDetail &detail);

/// Every amount the console read for a mark of `record` (four_eyes_amount_over,
/// fourEyesRuleForMark()): the mark's `snapshot` ("the snapshot"; SUCCESS: the canonical
/// ticket's payload), the record's snapshot ("the record's snapshot"), then `ev.amounts` (its
/// business rows and intent requests).
QVector<AmountSeen> markAmounts(const std::optional<QString> &snapshot, const RecordDetail &record, const MarkEvidence &ev);

/// The facts decideMark() decides on, for `record` (nullopt: no record) and `evidence`:
/// the one place MarkFacts are built, for the CLI, the console and bulk runs. fromStatus is
/// the record's status (mark_sql::apply() replaces it by the expected one). Times come from
/// the stores (the record's serverNow and updated_at), never the desktop clock.
MarkFacts markFactsFrom(const std::optional<RecordDetail> &record, const MarkEvidence &evidence);

namespace mark_sql {
/// Runs one mark on the idempotency database: reads the record and the latest recorded
/// upstream answer, applies decideMark() to markFactsFrom() and, for SUCCESS, the
/// canonical-ticket rule (a snapshot comes only from the canonical ticket, DESIGN.md §6;
/// a request without a snapshot is refused with its snapshotMissingReason),
/// and either audits a refusal, or runs the compare-and-set UPDATE (matching key, status,
/// updated_at and version) with its `applied` audit row in one transaction; a CAS that
/// matches no row is rolled back and audited as `conflict` with the current state. If the
/// COMMIT's outcome is unknown (connection dropped), it reconnects and reports what the
/// audit table shows for the request id — never re-sends. Idempotent per request id: a
/// retried request that already applied reports Applied. A dry run (request.dryRun)
/// decides and reports, conflicts included, and writes nothing. Throws DbException only for
/// failures before anything was decided (the caller may retry with the same request id).
MarkResult apply(DbSession &session, const WorkspaceConfig &config, const MarkRequest &request,
                 const MarkEvidence &evidence);
} // namespace mark_sql

/// The mark service's functions return futures finished by the workers and the
/// workspace's merge pool (continueWith(), FutureChain.h). GUI-side code continues them
/// with whenReady() (WhenReady.h).
///
/// Marks one record: gathers evidence (tickets, SUCCEEDED / ESCALATED attempts, the latest
/// attempt's time; the ticket of request.snapshotFromTicket) from the other stores, then runs
/// mark_sql::apply() on the idempotency worker. A store error while gathering evidence
/// refuses a FAILED mark (evidence unknown). Every real outcome is audited, refusals
/// included. Read-only workspaces refuse a real mark without writing anything (read-only
/// writes nothing, so that refusal is not audited) and run a dry run like any other.
QFuture<Outcome<MarkResult>> markRecord(Workspace &workspace, MarkRequest request);

/// Marks several records; every row gets a result, in request order, the same result and
/// audit row it would get alone (markRecord()). Each row is decided on its own facts as a bulk
/// row (MarkRequest::bulk): a bulk FAILED applies only to rows whose own verdict is FAILED, the
/// rest are refused with their reason. Read-only as markRecord(). Rows go in batches of
/// kInListChunk (500) through mark_sql::applyBatch(): each row keeps its own compare-and-set
/// against its own expected state, one transaction per chunk of rows (DESIGN.md §9 "Bulk
/// marks"); several batches are spread over up to 4 extra connections to the idempotency
/// database. A batch the database refuses as a whole is applied row by row instead.
QFuture<QVector<Outcome<MarkResult>>> markRecords(Workspace &workspace, QVector<MarkRequest> requests);

/// The expected state of a proposal (ProposalRow::expectedState) as JSON text, and back:
/// {"status": code|null, "status_stored": text|null, "updated_at": ISO UTC|null, "version": n|null}.
/// proposalExpectedState() returns nullopt for text that is not such an object.
QString proposalExpectedStateJson(const ExpectedState &expected);
std::optional<ExpectedState> proposalExpectedState(const QString &json);

/// What changed on the record since proposal `p` was made, as the approver is shown it
/// (DESIGN.md §9 "Four-eyes": the approver sees what the proposer saw and what changed since):
/// one line per differing part of the compare-and-set's expected state, e.g.
/// "status PROCESSING then, SUCCESS now", "updated_at 2026-12-03T10:00:00.000000Z then,
/// 2026-12-03T10:05:00.000000Z now", "version 3 then, 4 now" (times canonical ISO UTC, NULL as
/// "NULL"). Empty when the record is as proposed (the approval's compare-and-set can match); a
/// proposal whose expected state cannot be read gives one line saying so. Pure.
QStringList proposalChangesSince(const ProposalRow &p, const RecordDetail &now);

/// Approves proposal `id` as the workspace's operator for `reason` (DESIGN.md §9 "Four-eyes"):
/// reads it, then runs its mark again like markRecord() — fresh evidence, every safety rule
/// at this moment, the compare-and-set against the proposed expected state — with the
/// approving statement in the same transaction. Outcomes: Applied (auditId the mark's row,
/// proposalId `id`); Refused with proposal_sql::approve()'s reason (the proposer, the same
/// database user, expired, decided, edited) or a safety rule's; Conflict when the record
/// changed. A refused or conflicting mark voids the proposal (state void with the reason);
/// the proposer or database-user refusals leave it open. An unknown id is an error of kind
/// Config ("no proposal 12"); a short reason (< 10 characters) kind Refused. Read-only
/// workspaces refuse.
QFuture<Outcome<MarkResult>> approveProposal(Workspace &workspace, qint64 id, QString reason);

/// Rejects open proposal `id` as the workspace's operator for `reason` (≥ 10 characters), with
/// an audit row proposal.reject. Returns the proposal as now stored. Errors: kind Config for
/// an unknown id, Conflict when it is no longer open ("proposal 12 is approved (…)"),
/// Refused for a short reason or read-only mode.
QFuture<Outcome<ProposalRow>> rejectProposal(Workspace &workspace, qint64 id, QString reason);

/// Open proposals (expired included), or with `all` the newest 500 of every state.
QFuture<Outcome<QVector<ProposalRow>>> readProposals(Workspace &workspace, bool all);

/// A key's open proposals and how far four-eyes can tell its operators apart.
struct OpenProposals {
    QVector<ProposalRow> rows; ///< open (expired included), oldest first
    /// True when the database cannot tell operators apart by database user: SQLite (no
    /// users) or four_eyes_db_users = shared. Four-eyes is then a process control, not a
    /// security boundary, and the console says so (DESIGN.md §9 "Four-eyes").
    bool processControlOnly = false;
};

/// The open proposals of `idemKey` (the key detail's bar), in one read of the idempotency
/// database.
QFuture<Outcome<OpenProposals>> readOpenProposals(Workspace &workspace, const QString &idemKey);

/// Reads the audit trail (idempotency worker). Throws nothing: a store error is the Outcome's.
QFuture<Outcome<QVector<AuditEntry>>> readAudit(Workspace &workspace, AuditQuery query);

} // namespace triage
