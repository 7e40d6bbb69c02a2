#pragma once
// The parts of one mark that mark_sql::apply() (one record, MarkSql.cpp) and
// mark_sql::applyBatch() (a bulk batch, MarkBatchSql.cpp) share, so a record decided in a
// batch is decided, worded and audited exactly as alone (DESIGN.md §6, §9 "Bulk marks").

#include "MarkSql.h"
#include "SchemaSql.h"

namespace triage::mark_sql {

/// What the rules decide for one mark before anything is written.
struct MarkPlan {
    enum class Step {
        Conflict, ///< the record is not in the requested expected state (checked before any rule)
        Refuse,   ///< a rule refuses, or a store could not be read (evidenceUnreadable)
        Proceed,  ///< allowed: the compare-and-set (or, with fourEyes, a proposal) follows
    };
    Step step = Step::Proceed;
    ExpectedState expected;          ///< the compare-and-set's expected state
    AuditEntry audit;                ///< the audit row: who, what, from which state, evidence (no outcome yet)
    MarkDecision decision;           ///< decideMark() with the canonical-ticket and unreadable-store rules
    bool evidenceUnreadable = false; ///< Refuse: a store error (kind Error), not a safety verdict
    FourEyesRule fourEyes;           ///< Proceed: the rule that wants a second operator (propose()); none: not required
    bool hasVersion = false;         ///< the mapped version column is there (DESIGN.md §10)
};

/// Decides `req` on `current` (nullopt: no record) with `ev` and the key's latest recorded
/// upstream answer `latestUpstream` (audit_sql::latestUpstreamQuery()): the expected-state
/// check, decideMark(), the canonical-ticket rule for SUCCESS snapshots, unreadable stores
/// (DESIGN.md §6). Reads only the memoised column list; writes nothing.
MarkPlan planMark(DbSession &session, const RecordSql &r, const MarkRequest &req, const MarkEvidence &ev,
                  const std::optional<RecordDetail> &current, const std::optional<AuditEntry> &latestUpstream);

/// The record table's status mapping when it is not the seeds' integer codes (audit rows then
/// keep the stored value), else nullptr.
const StatusMapping *mappedStatuses(const RecordSql &r);
/// Sets `res` (kind Refused, or Error for an unreadable store; message) and `a` (outcome,
/// detail) for a plan whose step is Refuse.
void settleRefusal(const MarkPlan &plan, MarkResult &res, AuditEntry &a);
/// Whether a refusal of `req` is audited: every real one, unless the key has no record and is
/// longer than triage_audit.idem_key (64 characters): a typo.
bool auditsRefusal(const MarkRequest &req, const std::optional<RecordDetail> &current);
/// Sets `res` (kind Conflict, message naming the state now and who changed it last, from
/// res.current and res.changedBy) and `a` (outcome conflict, detail) for a lost compare-and-set.
void settleConflict(MarkResult &res, AuditEntry &a);
/// Sets `res` after a COMMIT whose reply was lost, from what the audit trail holds for its
/// request id after reconnecting (`found`, never re-sent): Applied with that row, or Error
/// "not applied: the COMMIT failed (<commitError>); verified after reconnecting that no change
/// was recorded".
void settleLostCommit(MarkResult &res, const std::optional<AuditEntry> &found, const QString &commitError);
/// Sets `res` (Error, "outcome UNKNOWN: …") when the connection cannot be re-opened to verify a
/// lost COMMIT; the message names the triagectl commands that check res.idemKey.
void settleCommitUnknown(MarkResult &res, const QString &reopenError);
/// The audit row's state JSON of `state` (status, code, stored value when mapped, updated_at, version).
QString auditStateJson(const ExpectedState &state, const StatusMapping *mapped);
/// The MarkResult kind of a stored audit outcome (applied, conflict, refused, recorded; else Error).
MarkResult::Kind kindOfOutcome(const QString &outcome);
/// The SET value of updated_at in a compare-and-set: the server's now in the column's
/// representation (epoch columns move forward by at least one unit).
QString updatedAtSetValue(Dialect d, const RecordSql &r);
/// The one-second blind-spot warning for the record table (DESIGN.md §4), memoised per session.
QString precisionWarningFor(DbSession &session, const RecordSql &r, bool hasVersion);
/// The `applied` audit row's detail: the decision's reason, with the override named.
QString appliedDetail(const MarkDecision &decision);
/// "already recorded for this request: <detail>" — a retried request that finds its own row.
QString alreadyRecordedText(const AuditEntry &prior);

} // namespace triage::mark_sql
