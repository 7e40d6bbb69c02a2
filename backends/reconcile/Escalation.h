#pragma once
// CONTRACT (written by the lead before implementation; implementers may add members and
// functions, but keep these names and meanings: two helpers code against them).
//
// Escalations (DESIGN.md §8 "Reconciliation"): what reconciliation hands to humans, in the
// console-owned table triage_escalation (idempotency database, beside triage_audit, so an
// escalation change and its audit row commit in one transaction). At most one OPEN
// escalation per (idem_key, reason); reruns update its facts, never duplicate it, never
// reset its age (first_escalated_at).

#include "DbSession.h"
#include "TimeText.h"

#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// The closed set of reason codes (DESIGN.md §8). Adding one is a code change documented in
/// docs/DESIGN.md.
enum class EscalationReason {
    Contradiction,     ///< CONTRADICTION: ticket vs upstream disagree (§6 row 3)
    AgentSawSuccess,   ///< AGENT_SAW_SUCCESS: 0 tickets, NOT_FOUND, but a SUCCEEDED attempt (§6 row 6)
    Duplicate,         ///< DUPLICATE: ≥ 2 tickets or upstream AMBIGUOUS, same payloads (§6 row 2)
    KeyReuse,          ///< KEY_REUSE: tickets of the key with different business payloads
    UpstreamUnusable,  ///< UPSTREAM_UNUSABLE: the upstream answered nothing definitive (or the breaker opened)
    NoQueryApi,        ///< NO_QUERY_API: no upstream configured for the biz_type (§6 row 8)
    AmountMismatch,    ///< AMOUNT_MISMATCH: snapshot amount vs business row amount
    Expiring,          ///< EXPIRING: unresolved and expire_at within 24 h
    StuckCompensation, ///< STUCK_COMPENSATION: a compensation not settled
    Policy,            ///< POLICY: the verdict allows an action the biz_type's policy does not automate
    External,          ///< EXTERNAL: an ESCALATED step written by the agents' own reconciler
};

/// "CONTRADICTION", "AGENT_SAW_SUCCESS", "DUPLICATE", "KEY_REUSE", "UPSTREAM_UNUSABLE",
/// "NO_QUERY_API", "AMOUNT_MISMATCH", "EXPIRING", "STUCK_COMPENSATION", "POLICY", "EXTERNAL".
QString escalationReasonName(EscalationReason reason);
/// The reason spelled `name` (exact, upper case); nullopt for any other text.
std::optional<EscalationReason> escalationReasonFromName(const QString &name);
/// Every reason, in the enum's order.
QVector<EscalationReason> allEscalationReasons();

/// One escalation row (triage_escalation). Times are canonical ISO UTC from the server's clock.
struct Escalation {
    qint64 id = 0;
    QString idemKey;
    QString bizType;               ///< as stored on the record ("" when unknown)
    QString tenant;                ///< from the key by the biz_type's tenant pattern ("" when none)
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    QString facts;                 ///< JSON object text: the facts the reconciler saw (verdict JSON, answers, …)
    std::optional<QString> amount; ///< decimal text exactly as read (snapshot or business row), nullopt: unknown
    QString currency;              ///< "" when unknown
    /// Stable reference of the source row when there is one, e.g. "intent:<attempt id>" for
    /// EXTERNAL: a resolved EXTERNAL escalation is never reopened for the same source_ref.
    QString sourceRef;
    QString firstEscalatedAt;      ///< first time this key+reason was escalated (never reset while open)
    QString lastSeenAt;            ///< the latest run that still saw it
    qint64 runId = 0;              ///< the triage_reconcile_run that raised/updated it last (0: an operator)
    QString slaDueAt;              ///< firstEscalatedAt + the biz_type's review_sla_hours (default 24 h); "" unknown
    QString resolution;            ///< "" while open; else why it was resolved (rule or operator's reason)
    QString resolvedAt;            ///< "" while open
    QString resolvedBy;            ///< "" while open; "reconciler" for automatic resolutions
    qint64 version = 1;            ///< compare-and-set on resolve
    /// Whole seconds since firstEscalatedAt on the server's clock when read (-1 unknown).
    qint64 ageS = -1;
    /// Open and past slaDueAt on the server's clock when read.
    bool overdue = false;
    bool isOpen() const { return resolvedAt.isEmpty(); }
};

/// What a reconcile run (or an operator) escalates.
struct EscalationRaise {
    QString idemKey, bizType, tenant;
    EscalationReason reason = EscalationReason::UpstreamUnusable;
    QString facts;                 ///< JSON object text
    std::optional<QString> amount;
    QString currency;
    QString sourceRef;
    qint64 runId = 0;
    int slaHours = 24;             ///< review_sla_hours of the biz_type
    /// The latest sla_due_at (EXPIRING: the record's expire_at): a created row's sla_due_at is
    /// min(first_escalated_at + slaHours, dueBy) (DESIGN.md §8). nullopt: no such bound.
    std::optional<UtcMicros> dueBy;
    QString operatorName;          ///< "reconciler" for runs
};

/// What raise() did.
struct EscalationRaiseResult {
    enum class Kind { Created, Updated, NotReopened };
    Kind kind = Kind::Created;
    Escalation escalation;         ///< the row as it is now (for NotReopened: the resolved row)
};

/// Filters for listing.
struct EscalationQuery {
    bool openOnly = true;
    QString idemKey, bizType, tenant;
    std::optional<EscalationReason> reason;
    int limit = 0;                 ///< 0: no limit
};

/// Why an open escalation may be closed without an operator, given the key's state now
/// (DESIGN.md §8 "Resolution rules"). The reconciler fills this from the stores.
struct EscalationState {
    bool recordSettled = false;      ///< the record is SUCCESS or FAILED now
    int liveTickets = -1;            ///< tickets of the key not CANCELLED (-1: unknown)
    bool compensationSettled = false;///< STUCK_COMPENSATION: the compensation reached a final state
};

/// The automatic resolution text for `e` given `now`, or nullopt when only an operator may
/// resolve it. Rules (DESIGN.md §8): DUPLICATE / KEY_REUSE when liveTickets ∈ {0, 1};
/// STUCK_COMPENSATION when compensationSettled; EXPIRING, AGENT_SAW_SUCCESS,
/// UPSTREAM_UNUSABLE, NO_QUERY_API and POLICY when recordSettled; AMOUNT_MISMATCH,
/// CONTRADICTION and EXTERNAL never (operator only, with a reason). Pure.
std::optional<QString> automaticResolution(const Escalation &e, const EscalationState &now);

/// True for the reasons only an operator may resolve (AMOUNT_MISMATCH, CONTRADICTION,
/// EXTERNAL; DESIGN.md §8 "Resolution rules"). Pure.
bool escalationNeedsOperator(EscalationReason reason);

/// The shortest reason an operator may give to resolve an escalation or take over a claim
/// (characters, after trimming; DESIGN.md §8).
constexpr int kOperatorReasonMinChars = 10;

/// The operator name of automatic actions (runs of `triagectl reconcile`).
inline QString reconcilerOperator()
{
    return QStringLiteral("reconciler");
}

/// Refuses to work on a database without the reconciliation tables (triage_escalation,
/// triage_claim, triage_reconcile_run; console schema version 4): throws DbException of kind
/// Config (triagectl exit 1) "the idempotency database has no escalation tables (console
/// schema version 3; escalations and claims need version 4): run `triagectl init-schema`".
void requireReconcileTables(DbSession &session);

namespace escalation_sql {
/// In the caller's transaction (the caller commits; the audit row of action
/// "escalation.raise" is written here too): creates the open (key, reason) escalation, or
/// updates the open one's facts / amount / last_seen_at / run_id (first_escalated_at and
/// sla_due_at untouched). EXTERNAL with a sourceRef that a RESOLVED escalation of the same key
/// already carries: NotReopened, nothing written. Concurrent raises of the same key+reason
/// end with one open row (a unique constraint on (idem_key, reason, open_slot); the loser
/// updates). Throws DbException.
EscalationRaiseResult raise(DbSession &session, const EscalationRaise &raise);
/// What resolve() did: Resolved (the row as it is now), Conflict (already resolved or the
/// version moved: `current` is the row now, nothing written but the `conflict` audit row),
/// NotFound, Refused (an operator reason shorter than 10 characters, or a rule that needs an
/// operator; `message` says which, audited).
struct EscalationResolveResult {
    enum class Kind { Resolved, Conflict, NotFound, Refused };
    Kind kind = Kind::NotFound;
    std::optional<Escalation> current;
    QString message;
};

/// Resolves open escalation `id` by compare-and-set on `expectedVersion` (nullopt: current),
/// with `resolution` (an operator's reason ≥ 10 characters, or automaticResolution()'s text
/// when `operatorName` is "reconciler") by `operatorName`, audited ("escalation.resolve") in
/// its own transaction. Throws DbException only for store failures.
EscalationResolveResult resolve(DbSession &session, qint64 id, const QString &resolution, const QString &operatorName,
                                std::optional<qint64> expectedVersion = std::nullopt);
/// "resolved", "conflict", "not-found", "refused".
QString resolveKindName(EscalationResolveResult::Kind kind);
/// The escalation `id` as stored now (open or resolved), or nullopt. Throws DbException.
std::optional<Escalation> byId(DbSession &session, qint64 id);
/// Lists escalations, oldest first_escalated_at first. Throws DbException.
QVector<Escalation> list(DbSession &session, const EscalationQuery &query);
/// How many escalations list() would return without its limit. Throws DbException.
qint64 count(DbSession &session, const EscalationQuery &query);
/// The open escalations of `keys` (one statement per ≤ 500 keys). Throws DbException.
QVector<Escalation> openForKeys(DbSession &session, const QStringList &keys);
/// The escalations matching every condition of `where` (SQL on alias `e`, values bound
/// through `b`), ordered by `orderBy` (e.g. "e.first_escalated_at, e.id"). For the daily
/// review (backends/review), whose conditions are times; at most `limit` rows (0: all).
/// Throws DbException.
QVector<Escalation> select(DbSession &session, SqlBuilder &b, const QStringList &where, const QString &orderBy, int limit = 0);
/// The source_refs that resolved EXTERNAL escalations of `keys` carry, as "<key>\n<source_ref>"
/// (one statement per ≤ 500 keys): a raise of EXTERNAL with one of them is NotReopened
/// (raise()); the dry run reads them to say so (DESIGN.md §8 "Dry run"). Throws DbException.
QSet<QString> resolvedExternalRefs(DbSession &session, const QStringList &keys);
} // namespace escalation_sql

} // namespace triage
