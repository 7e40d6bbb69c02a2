#pragma once

#include "JsonText.h"
#include "TimeText.h"

#include <QString>
#include <QStringView>

#include <optional>

namespace triage {

/// One row of the console-owned audit trail `triage_audit` (DESIGN.md §2). from/to
/// states and evidence are JSON text; outcome is applied, conflict, refused or error for a
/// state change, recorded for an action that changes nothing (action query_upstream).
struct AuditEntry {
    qint64 id = 0;
    QString requestId;  ///< unique per operator request; lets a retried request find its own row
    QString at;         ///< server time, canonical ISO UTC
    QString operatorName, dbUser, host, action, idemKey;
    QString fromState, toState, reason, evidence, outcome, detail;
};

/// The spelling of every action in triage_audit.action: snake_case, verb first. Writers use
/// these constants; readers pass stored text through canonicalAuditAction().
namespace audit_action {
inline constexpr char16_t MarkSuccess[] = u"mark_success";
inline constexpr char16_t MarkFailed[] = u"mark_failed";
inline constexpr char16_t QueryUpstream[] = u"query_upstream";
inline constexpr char16_t Compensate[] = u"compensate";
inline constexpr char16_t CompensateResume[] = u"compensate_resume";
// Incidents (DESIGN.md §7): kind.verb, idem_key "incident:<id>".
inline constexpr char16_t IncidentCreate[] = u"incident.create";
inline constexpr char16_t IncidentPin[] = u"incident.pin";
inline constexpr char16_t IncidentUnpin[] = u"incident.unpin";
inline constexpr char16_t IncidentNote[] = u"incident.note";
inline constexpr char16_t IncidentClose[] = u"incident.close";
inline constexpr char16_t IncidentReopen[] = u"incident.reopen";
/// A bundle exported (DESIGN.md §7 "Bundles"): idem_key "incident:<id>", or "window:<from>/<to>".
inline constexpr char16_t IncidentExport[] = u"incident.export";
// Escalations and claims (DESIGN.md §8): idem_key the key (claims on an escalation:
// "escalation:<id>").
inline constexpr char16_t EscalationRaise[] = u"escalation.raise";
inline constexpr char16_t EscalationResolve[] = u"escalation.resolve";
inline constexpr char16_t ClaimTake[] = u"claim.take";
inline constexpr char16_t ClaimRelease[] = u"claim.release";
inline constexpr char16_t ClaimTakeover[] = u"claim.takeover";
// The daily review (DESIGN.md §8 "The daily review"): sign-off (idem_key "review:<day>/<zone>"),
// mark reviewed and notes (idem_key the escalation's key).
inline constexpr char16_t ReviewSignOff[] = u"review.signoff";
inline constexpr char16_t ReviewReviewed[] = u"review.reviewed";
inline constexpr char16_t ReviewNote[] = u"review.note";
// The safety policy (DESIGN.md §8 "Safety policy"): idem_key "policy:<name>".
inline constexpr char16_t PolicySet[] = u"policy.set";
inline constexpr char16_t PolicyFreeze[] = u"policy.freeze";
inline constexpr char16_t PolicyUnfreeze[] = u"policy.unfreeze";
// PostgreSQL push triggers (DESIGN.md §9 "Push"): triagectl notify install / uninstall.
inline constexpr char16_t PushInstall[] = u"push.install";
inline constexpr char16_t PushUninstall[] = u"push.uninstall";
// Four-eyes (DESIGN.md §9): idem_key the proposal's key. A proposing mark is audited as its
// mark action with outcome "recorded"; an applied approval as the mark (outcome applied).
inline constexpr char16_t ProposalApprove[] = u"proposal.approve"; ///< a refused approval
inline constexpr char16_t ProposalReject[] = u"proposal.reject";
} // namespace audit_action

/// An action as stored, in today's spelling: lower case, '-' and ' ' as '_' (rows written
/// as "compensate-resume" read as "compensate_resume"). Other text is returned unchanged.
QString canonicalAuditAction(const QString &stored);

/// Filters for reading the audit trail.
struct AuditQuery {
    QString idemKey;                 ///< exact key, or empty for all
    std::optional<UtcMicros> since;  ///< at >= since
    int limit = 100;                 ///< 0 = no limit
};

/// `entry` bounded to `maxRowBytes` (kAuditRowMaxBytes, 64 KB) of UTF-8 in its text
/// columns — the final guard of every audit writer (audit_sql::insert applies it). When the
/// row is over the bound, the large columns (from_state, to_state, evidence, detail) are
/// shared out: each gets an equal part of what the small columns leave, smaller ones giving
/// their unused part to the larger; a column over its part is replaced by boundedText()
/// (the JSON cut object with the full length and SHA-256). Small columns are never cut.
AuditEntry boundedAuditEntry(AuditEntry entry, qsizetype maxRowBytes = kAuditRowMaxBytes);

/// The host name every audit row records (QSysInfo::machineHostName(), at most 255
/// characters): one source, so one machine has one spelling in triage_audit.
QString auditHostName();

/// The stamp every audit row starts from — the one builder of who, where and what for
/// marks, upstream queries and compensations (DESIGN.md §2 "every action is audited"):
/// `requestId` (a new UUID when empty), `operatorName` as given, `dbUser` (auditDbUser(),
/// or null where the writer records none), host auditHostName(), `action` (an
/// audit_action constant) and `idemKey`. The writer adds states, reason, evidence and outcome.
AuditEntry auditStamp(QStringView action, const QString &idemKey, const QString &operatorName,
                      const QString &dbUser = QString(), const QString &requestId = QString());

} // namespace triage
