// The idempotency database's say before a compensation writes its intent (DESIGN.md §9
// "Four-eyes", §8 "Freeze"): the global freeze, and four-eyes for `compensate` — proposing
// instead of starting, or approving a proposal in the same statement as marks do.
#include "CompensationSteps.h"

#include "Audit.h"
#include "ConsoleSchema.h"
#include "PolicySql.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <QUuid>

namespace triage::compensation_steps {

namespace {

const QString kCompensate = QString::fromUtf16(audit_action::Compensate);

/// What an approval compares of a rendered request (CompensationHttpRequest::toJson() text):
/// the compact JSON {"body", "headers", "method", "path"} — the URL's path and query, not its
/// scheme, host and port (where the upstream runs is configuration: the demo's simulator gets a
/// new port per process), nor the timeout or the confirmation URL. The text itself when it is
/// not a request.
QString requestSubstance(const QString &requestJson)
{
    const auto r = CompensationHttpRequest::fromJson(requestJson.toUtf8());
    if (!r)
        return requestJson;
    const QUrl url(r->url);
    QJsonArray headers;
    for (const auto &[name, value] : r->headers)
        headers.append(QJsonArray{QString::fromUtf8(name), QString::fromUtf8(value)});
    const QString path = url.path(QUrl::FullyEncoded) + (url.hasQuery() ? QLatin1Char('?') + url.query(QUrl::FullyEncoded) : QString());
    return QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("method"), QString::fromLatin1(r->method)},
                                                       {QStringLiteral("path"), path},
                                                       {QStringLiteral("headers"), headers},
                                                       {QStringLiteral("body"), QString::fromUtf8(r->body)}})
                                 .toJson(QJsonDocument::Compact));
}

/// The comp_key a compensation proposal's expected state names ("" when unreadable).
QString compKeyOf(const ProposalRow &p)
{
    return QJsonDocument::fromJson(p.expectedState.toUtf8()).object().value(QStringLiteral("comp_key")).toString();
}

} // namespace

QString compensationExpectedState(const QString &compKey, const QString &action, const QString &target,
                                  const std::optional<QString> &ticketStatus, const QString &recordStatus)
{
    return QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), compKey},
                                                       {QStringLiteral("action"), action},
                                                       {QStringLiteral("target"), target},
                                                       {QStringLiteral("ticket_status"), ticketStatus ? QJsonValue(*ticketStatus) : QJsonValue()},
                                                       {QStringLiteral("record_status"), recordStatus}})
                                 .toJson(QJsonDocument::Compact));
}

Gate gate(DbSession &s, const WorkspaceConfig &config, const GateInput &in)
{
    if (!in.request.dryRun)
        requireKnownConsoleSchema(s); // the freeze too: the intent log's database may have no triage_policy
    const CompensationRequest &req = in.request;
    AuditEntry a = auditStamp(audit_action::Compensate, req.sourceKey, req.operatorName.left(64), auditDbUser(s.profile()),
                              QUuid::createUuid().toString(QUuid::WithoutBraces));
    a.reason = req.reason.left(1000);
    a.fromState = in.expectedState;
    a.evidence = in.requestJson;
    if (in.approval) {
        const ProposalRow &p = in.approval->row;
        Gate g;
        g.proposalId = p.id;
        a.action = QString::fromUtf16(audit_action::ProposalApprove);
        a.reason = in.approval->reason;
        QString refusal;
        s.begin();
        try {
            // THE approving statement first: a refused approver (the proposer, an expired or
            // decided proposal) changes nothing, whatever else moved.
            refusal = proposal_sql::approve(s, p, req.operatorName, in.approval->reason);
            if (refusal.isEmpty()) {
                if (p.expectedState != in.expectedState)
                    refusal = QStringLiteral("proposal %1: the ticket or the record changed since it was proposed (then %2, now %3): void")
                                  .arg(QString::number(p.id), p.expectedState, in.expectedState);
                else if (const QString then = requestSubstance(p.snapshot.value_or(QString())), now = requestSubstance(in.requestJson);
                         then != now)
                    refusal = QStringLiteral("proposal %1: the request the configuration renders now differs from the proposed one "
                                             "(then %2, now %3): void")
                                  .arg(QString::number(p.id), then, now);
                if (refusal.isEmpty()) {
                    s.commit();
                    g.kind = Gate::Kind::Proceed;
                    g.message = QStringLiteral("approved proposal %1 of %2 (%3)").arg(QString::number(p.id), p.proposedBy, in.approval->reason);
                    return g;
                }
                s.rollback(); // the approval undone: what was proposed is not what would be sent
                s.begin();
            }
            // Refused: audited; an edited or outdated proposal is void.
            a.outcome = QStringLiteral("refused");
            a.detail = refusal;
            audit_sql::insert(s, a);
            if (refusal.endsWith(QLatin1String(": void")))
                proposal_sql::close(s, p.id, QStringLiteral("void"), req.operatorName, refusal);
            s.commit();
        } catch (const DbException &) {
            s.rollback();
            throw;
        }
        g.kind = Gate::Kind::Refused;
        g.message = refusal;
        return g;
    }
    const BizPolicy policy = effectiveBizPolicy(config, policy_sql::values(s), in.bizType);
    const FourEyesRule rule = fourEyesRuleForCompensation(policy, in.bizType, in.amounts);
    if (!rule.required())
        return {};
    Gate g;
    for (const ProposalRow &open : proposal_sql::openForKey(s, req.sourceKey))
        if (open.action == kCompensate && !open.expired && compKeyOf(open) == in.compKey) { // an expired one may be proposed again
            g.kind = Gate::Kind::Conflict;
            g.proposalId = open.id;
            g.message = QStringLiteral("compensation %1 already has open proposal %2 (by %3, expires %4): approve or reject it first")
                            .arg(in.compKey, QString::number(open.id), open.proposedBy, open.expiresAt);
            if (!req.dryRun) { // audited as a mark's conflict with an open proposal is
                a.outcome = QStringLiteral("conflict");
                a.detail = g.message;
                audit_sql::insert(s, a);
            }
            return g;
        }
    if (req.dryRun) {
        g.message = QStringLiteral("four-eyes (%1): a real run proposes it").arg(rule.text());
        return g;
    }
    ProposalRow p;
    p.action = kCompensate;
    p.idemKey = req.sourceKey;
    p.bizType = in.bizType;
    p.toStatus = QStringLiteral("SUCCEEDED"); // the compensation's aim
    p.expectedState = in.expectedState;
    p.snapshot = in.requestJson; // exactly what the approval will send
    p.snapshotSource = QStringLiteral("compensation request");
    p.reason = req.reason;
    p.evidence = in.evidenceJson;
    p.proposedBy = req.operatorName;
    p.override = req.override;
    const proposal_sql::Proposed made = proposal_sql::propose(s, p, a, rule.text(), QStringLiteral("nothing written or sent"));
    g.proposalId = made.id;
    g.message = made.message;
    g.kind = Gate::Kind::Proposed;
    return g;
}

} // namespace triage::compensation_steps
