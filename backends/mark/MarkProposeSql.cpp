// Four-eyes inside a mark (DESIGN.md §9 "Four-eyes"): proposing instead of applying, and the
// outcomes of an approval that applied nothing. Called by mark_sql::apply() (MarkSql.cpp).
#include "MarkSql.h"

#include "Audit.h"
#include "RecordStatus.h"

namespace triage::mark_sql {

/// An approval whose mark was refused by a safety rule or lost its compare-and-set voids
/// the proposal: what was proposed can no longer apply (DESIGN.md §9 "Four-eyes").
void voidApproved(DbSession &s, const MarkRequest &req, MarkResult &res)
{
    if (!req.approves)
        return;
    res.proposalId = req.approves->id;
    if (proposal_sql::close(s, req.approves->id, QStringLiteral("void"), req.operatorName,
                            QStringLiteral("not applied at approval: ") + res.message))
        res.message += QStringLiteral(" — proposal %1 is void").arg(req.approves->id);
}

QString rejectedAgainText(const ProposalRow &rejected)
{
    return QStringLiteral("proposal %1 (%2 on this record state) was rejected by %3 at %4: %5; not proposed again until the record changes")
        .arg(QString::number(rejected.id), rejected.action, rejected.decidedBy, rejected.decidedAt, rejected.decisionReason);
}

MarkResult openProposalConflict(MarkResult res, const ProposalRow &open)
{
    res.kind = MarkResult::Kind::Conflict;
    res.proposalId = open.id;
    res.message = QStringLiteral("%1 already has open proposal %2 (%3 by %4, expires %5): approve or reject it first")
                      .arg(open.idemKey, QString::number(open.id), open.action, open.proposedBy, open.expiresAt);
    return res;
}

/// Reports and audits (action proposal.approve, outcome refused) an approval the approving
/// statement refused; an edited proposal is voided, the others stay as they are.
MarkResult approvalRefused(DbSession &s, const MarkRequest &req, MarkResult res, AuditEntry a, const QString &refusal)
{
    res.kind = MarkResult::Kind::Refused;
    res.proposalId = req.approves->id;
    res.message = refusal;
    a.action = QString::fromUtf16(audit_action::ProposalApprove);
    a.outcome = QStringLiteral("refused");
    a.reason = req.approvalReason;
    a.detail = refusal;
    res.auditId = audit_sql::insert(s, a);
    if (refusal.endsWith(QLatin1String(": void")))
        proposal_sql::close(s, req.approves->id, QStringLiteral("void"), req.operatorName, refusal);
    return res;
}

/// Makes the mark `req` (allowed by every rule, not a dry run) a four-eyes proposal: one
/// triage_proposal row and its audit row (the mark's action, outcome "recorded") in one
/// transaction. A key with an open proposal for the same action is a conflict (audited).
MarkResult propose(DbSession &s, const MarkRequest &req, MarkResult res, const ExpectedState &expected, const RecordDetail &current,
                   AuditEntry a, const FourEyesRule &rule)
{
    // Not proposed: `res` as decided, audited with `outcome`.
    auto notProposed = [&](MarkResult out, const QString &outcome) {
        a.outcome = outcome;
        a.detail = out.message;
        out.auditId = audit_sql::insert(s, a);
        return out;
    };
    if (const std::optional<ProposalRow> open = proposal_sql::openFor(s, req.idemKey, a.action))
        return notProposed(openProposalConflict(res, *open), QStringLiteral("conflict"));
    if (!req.proposeAfterRejection)
        if (const std::optional<ProposalRow> rejected = proposal_sql::rejectedFor(s, req.idemKey, a.action, proposalExpectedStateJson(expected))) {
            res.kind = MarkResult::Kind::Refused;
            res.message = rejectedAgainText(*rejected);
            return notProposed(res, QStringLiteral("refused"));
        }
    ProposalRow p;
    p.action = a.action;
    p.idemKey = req.idemKey;
    p.bizType = current.bizType.value_or(QString());
    p.toStatus = recordStatusName(req.toStatus);
    p.expectedState = proposalExpectedStateJson(expected);
    if (req.toStatus == Success)
        p.snapshot = req.snapshot;
    p.snapshotSource = req.snapshotSource;
    p.reason = req.reason;
    p.evidence = req.evidenceJson;
    p.proposedBy = req.operatorName;
    p.override = req.override;
    const proposal_sql::Proposed made = proposal_sql::propose(s, p, a, rule.text(), QStringLiteral("nothing applied"));
    res.proposalId = made.id;
    res.auditId = made.auditId;
    res.message = made.message;
    res.kind = MarkResult::Kind::Proposed;
    return res;
}

} // namespace triage::mark_sql
