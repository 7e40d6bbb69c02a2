#pragma once
// Four-eyes proposals (DESIGN.md §9 "Four-eyes"): a manual mark the safety policy gives to a
// second operator is stored as a proposal in triage_proposal (console schema version 7); the
// approving statement itself refuses the proposer, so no client path can skip it.

#include "AuditEntry.h"
#include "DbSession.h"

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// Hours an open proposal waits for a second operator before it expires (DESIGN.md §9).
constexpr int kProposalTtlHours = 24;

/// One triage_proposal row. Times are canonical ISO UTC text from the server's clock.
struct ProposalRow {
    qint64 id = 0;
    QString action;          ///< "mark_success", "mark_failed", "compensate" or "policy.set" (policyProposalAction())
    QString idemKey, bizType;
    QString toStatus;        ///< "SUCCESS" or "FAILED"; "SUCCEEDED" (the compensation's aim) for compensate; "SET" for policy.set
    /// The compare-and-set's expected state as JSON text: {"status": code|null,
    /// "status_stored": text|null, "updated_at": ISO text|null, "version": n|null}.
    QString expectedState;
    std::optional<QString> snapshot; ///< the SUCCESS snapshot, byte-exact; nullopt for FAILED
    QString snapshotSource, reason;
    bool override = false;   ///< the proposer asked for --override (DESIGN.md §6); the approval runs with it
    QString evidence;        ///< the mark's evidence JSON as the proposer's console gathered it
    QString hash;            ///< proposal_hash as stored (64 hex digits)
    QString proposedBy, proposedDbUser, proposedAt, expiresAt;
    QString state;           ///< open | approved | rejected | void (as stored)
    QString decidedBy, decidedDbUser, decidedAt, decisionReason; ///< empty while open
    qint64 version = 0;
    bool expired = false;    ///< open and expires_at <= the server's now when read

    /// The state shown to operators: "expired" for an open proposal past expires_at, else state.
    QString stateText() const { return state == QLatin1String("open") && expired ? QStringLiteral("expired") : state; }
};

/// SHA-256 (64 lower-case hex digits) over the canonical serialisation of what a proposal
/// proposes: the compact JSON array [action, idem_key, biz_type, to_status, expected_state,
/// snapshot (null when none), snapshot_source, reason, evidence, proposed_by, override]
/// (UTF-8, Qt's compact JSON). Any edit of these fields changes it (DESIGN.md §9 "Four-eyes").
QString proposalHash(const ProposalRow &row);

/// An operator name as four-eyes compares people (DESIGN.md §9): compatibility-decomposed
/// (NFKD), Unicode case-folded, with every white-space character (spaces, tabs, no-break
/// spaces), format character and combining mark (accents) removed, then NFKC: " Alice\t" →
/// "alice", "ＡＬＩＣＥ" → "alice", "alicé" → "alice", "ZOË" → "zoe". The proposer's and the
/// approver's must differ; a name that is only marks and spaces has an empty key.
QString operatorKey(const QString &name);

/// The reason rule of every operator decision on a proposal (approve, reject; marks and
/// compensations alike): "" when `reason` has at least 10 characters once trimmed, else "a
/// decision on a proposal needs a reason of at least 10 characters (got 2)".
QString proposalDecisionReasonRefusal(const QString &reason);

/// What a compensation proposal (action compensate) would do, for one line: "compensation
/// cancel_ticket of ticket 102 (ticket OPEN, record PROCESSING when proposed)", read from its
/// expected state; "" for a mark's proposal.
QString compensationProposalText(const ProposalRow &p);

/// What any proposal would do, for one line: compensationProposalText() for a compensation,
/// "policy biz.pay.four_eyes = mark_failed (was none)" for a policy change (four_eyes_policy;
/// "was unset" when there was no row), "→ FAILED" for a mark.
QString proposalWhatText(const ProposalRow &p);

/// The record key a proposal acts on, to open it: its idem_key; "" for a policy change (its
/// idem_key "policy:<name>" names no record).
QString proposalRecordKey(const ProposalRow &p);

namespace proposal_sql {
/// True when the idempotency database has triage_proposal (console schema version 7).
bool hasProposalTable(DbSession &session);
/// Inserts `row` (state open, proposed_at now, expires_at now + kProposalTtlHours, the
/// server's CURRENT_USER as proposed_db_user, hash = proposalHash(row)) in the caller's
/// transaction. Returns the new id. Throws DbException (Config when the table is missing:
/// "… needs console schema version 7: run `triagectl init-schema`").
qint64 insert(DbSession &session, const ProposalRow &row);
/// The proposal `id`, or nullopt. Throws DbException.
std::optional<ProposalRow> read(DbSession &session, qint64 id);
/// The open, unexpired proposal for `idemKey` and `action`, if any (the newest).
std::optional<ProposalRow> openFor(DbSession &session, const QString &idemKey, const QString &action);
/// The newest rejected proposal for `idemKey` and `action` made against exactly
/// `expectedState` (proposalExpectedStateJson() text), if any: the same mark on the same
/// record state an operator already turned down. Throws DbException.
std::optional<ProposalRow> rejectedFor(DbSession &session, const QString &idemKey, const QString &action, const QString &expectedState);
/// The open proposals of `idemKey` (expired ones included), oldest first. Throws DbException.
QVector<ProposalRow> openForKey(DbSession &session, const QString &idemKey);
/// Open proposals (expired ones included, shown "expired"), oldest first; with `all` every
/// proposal, newest 500 first. Empty before console schema version 7. Throws DbException.
QVector<ProposalRow> list(DbSession &session, bool all);
/// THE approving statement, in the caller's transaction: sets `asRead` approved by
/// `approver` for `reason` only when, in the same UPDATE, it is still open, unexpired, its
/// stored hash equals proposalHash(asRead), the operator names differ after TRIM and LOWER,
/// and the database users differ unless triage_policy says four_eyes_db_users = shared (or the
/// database has no users: SQLite). Returns "" when approved, else the refusal, read back:
/// "proposal 12 was proposed by bob: a different operator must approve it (four-eyes)",
/// "… by the same database user (triage) …", "proposal 12 expired at …", "proposal 12 is
/// rejected (…)", "proposal 12 was changed after it was proposed (its hash no longer matches):
/// void". Throws DbException.
QString approve(DbSession &session, const ProposalRow &asRead, const QString &approver, const QString &reason);
/// A proposal made by propose(): its id, the audit row's id and the operator's message.
struct Proposed {
    qint64 id = 0;
    qint64 auditId = 0;
    QString message;
};
/// Inserts `row` (insert()) and the audit row `audit` (outcome "recorded", detail the message)
/// in one transaction of its own. The message: "proposed as proposal 12 (<rule>): <nothingDone>
/// until another operator approves it (triagectl approve 12 --reason …) before <expiry>",
/// `rule` the policy rule that asked for it (FourEyesRule::text(), e.g. "biz.pay.four_eyes"),
/// `nothingDone` e.g. "nothing applied". Throws DbException (rolled back).
Proposed propose(DbSession &session, const ProposalRow &row, AuditEntry audit, const QString &rule, const QString &nothingDone);
/// Closes open proposal `id` as `state` ("rejected" or "void") by `by` for `reason`, in the
/// caller's transaction (or autocommit). Returns whether it was open (false: someone else
/// decided it first). Throws DbException.
bool close(DbSession &session, qint64 id, const QString &state, const QString &by, const QString &reason);
/// Whether the triage_policy row four_eyes_db_users says "shared".
bool dbUsersShared(DbSession &session);
/// The server's CURRENT_USER ("" on SQLite). Throws DbException.
QString currentDbUser(DbSession &session);
} // namespace proposal_sql

} // namespace triage
