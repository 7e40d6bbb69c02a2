// The escalations of a reconcile run (DESIGN.md §8): step 7 and the dry run's prediction of it.
#include "ReconcileEscalate.h"
#include "ReconcileConfig.h"

#include "AuditEntry.h"
#include "DbWorker.h"
#include "Escalation.h"
#include "MarkSql.h"
#include "Proposal.h"
#include "RecordStatus.h"
#include "SafetyPolicy.h"
#include "TimeText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace triage {

namespace {
/// An empty, non-null text: a null QString binds as SQL NULL, and the columns are NOT NULL.
const QString kNoText = QStringLiteral("");
} // namespace

QString reconcileFactsJson(const ReconcileKeyResult &k, const ReconcileInput &in, const ReconcileEscalation &e, qint64 runId)
{
    QJsonObject o;
    o.insert(QStringLiteral("run_id"), runId);
    o.insert(QStringLiteral("note"), e.note);
    o.insert(QStringLiteral("action"), reconcileActionName(k.action.kind));
    o.insert(QStringLiteral("why"), k.action.why);
    o.insert(QStringLiteral("upstream"), k.upstream);
    if (k.auditId)
        o.insert(QStringLiteral("upstream_audit_id"), k.auditId);
    if (!k.message.isEmpty())
        o.insert(QStringLiteral("message"), k.message);
    o.insert(QStringLiteral("verdict"), QJsonDocument::fromJson(in.verdict.toJson(4096)).object());
    QJsonArray answers;
    const qsizetype from = std::max<qsizetype>(0, in.answers.size() - 10); // the latest ten
    for (qsizetype i = from; i < in.answers.size(); ++i)
        answers.append(QJsonObject{{QStringLiteral("audit_id"), in.answers[i].auditId},
                                   {QStringLiteral("answer"), upstreamAnswerName(in.answers[i].answer)},
                                   {QStringLiteral("at"), in.answers[i].atText}});
    o.insert(QStringLiteral("answers"), answers);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

std::optional<DbError> raiseEscalations(DbWorker &idem, const WorkspaceConfig &config, QVector<ReconcileKeyResult> &results, const QVector<ReconcileInput> &inputs,
                                        const QVector<KeyDetail> &after, const ReconcileOptions &o, ReconcileSummary &sum)
{
    QVector<QFuture<Outcome<QVector<EscalationRaiseResult>>>> raising;
    QVector<int> raisedOf;
    for (qsizetype i = 0; i < results.size(); ++i) {
        const ReconcileKeyResult &k = results[i];
        if (k.action.escalations.isEmpty())
            continue;
        QVector<EscalationRaise> raises;
        for (const ReconcileEscalation &e : k.action.escalations) {
            EscalationRaise r;
            r.idemKey = k.idemKey;
            r.bizType = k.bizType;
            r.tenant = after[i].record ? after[i].record->tenant : QString();
            r.reason = e.reason;
            r.facts = reconcileFactsJson(k, inputs[i], e, sum.runId);
            r.amount = k.action.amount;
            r.currency = k.action.currency.isNull() ? kNoText : k.action.currency; // NOT NULL columns: never a null QString
            r.sourceRef = e.sourceRef.isNull() ? kNoText : e.sourceRef;
            r.runId = sum.runId;
            // The record's effective policy (DESIGN.md §8 "Safety policy"); the INI alone without one.
            r.slaHours = after[i].record ? after[i].record->policy.reviewSlaHours.value_or(24) : reviewSlaHours(config, k.bizType);
            r.operatorName = o.operatorName;
            // EXPIRING is due before the record is purged (DESIGN.md §8 "Tables": sla_due_at).
            if (e.reason == EscalationReason::Expiring && after[i].record)
                r.dueBy = parseUtcMicros(after[i].record->expireAt);
            raises << r;
        }
        raising << idem.run<QVector<EscalationRaiseResult>>([raises](DbSession &s) {
            QVector<EscalationRaiseResult> out;
            s.begin();
            try {
                for (const EscalationRaise &r : raises)
                    out << escalation_sql::raise(s, r);
                s.commit();
            } catch (...) {
                s.rollback();
                throw;
            }
            return out;
        }, DbWorker::Retry::Never);
        raisedOf << int(i);
    }
    for (qsizetype r = 0; r < raising.size(); ++r) {
        const auto out = raising[r].result();
        if (!out.ok())
            return *out.error;
        ReconcileKeyResult &k = results[raisedOf[r]];
        bool any = false;
        for (const EscalationRaiseResult &x : *out) {
            switch (x.kind) {
            case EscalationRaiseResult::Kind::Created: ++sum.escalationsCreated; any = true; break;
            case EscalationRaiseResult::Kind::Updated: ++sum.escalationsUpdated; any = true; break;
            case EscalationRaiseResult::Kind::NotReopened: break;
            }
            if (x.kind != EscalationRaiseResult::Kind::NotReopened)
                sum.byReason[escalationReasonName(x.escalation.reason)] += 1;
        }
        sum.escalated += any;
        if (k.outcome.isEmpty())
            k.outcome = any ? QStringLiteral("escalated") : QStringLiteral("nothing");
    }
    return std::nullopt;
}

std::optional<DbError> predictEscalations(DbWorker &idem, QVector<ReconcileKeyResult> &results, ReconcileSummary &sum)
{
    // What a real run would create, update or leave alone (step 7, DESIGN.md §8 "Dry run"):
    // EXTERNAL with a source_ref that a resolved EXTERNAL escalation of the key carries is
    // NotReopened (nothing written, not counted); else a reason with an open escalation of
    // the key updates it, any other creates one.
    QStringList raisingKeys;
    for (const ReconcileKeyResult &k : std::as_const(results))
        if (!k.action.escalations.isEmpty())
            raisingKeys << k.idemKey;
    if (!raisingKeys.isEmpty()) {
        struct Known {
            QSet<QString> open;     ///< "<key>\n<reason>"
            QSet<QString> resolved; ///< "<key>\n<source_ref>" of resolved EXTERNAL
        };
        const auto known = idem.run<Known>([raisingKeys](DbSession &s) {
                                   Known k;
                                   for (const Escalation &e : escalation_sql::openForKeys(s, raisingKeys))
                                       k.open.insert(e.idemKey + QLatin1Char('\n') + escalationReasonName(e.reason));
                                   k.resolved = escalation_sql::resolvedExternalRefs(s, raisingKeys);
                                   return k;
                               })
                               .result();
        if (!known.ok())
            return *known.error;
        for (ReconcileKeyResult &k : results) {
            bool any = false;
            for (const ReconcileEscalation &e : k.action.escalations) {
                if (e.reason == EscalationReason::External && !e.sourceRef.isEmpty()
                    && known->resolved.contains(k.idemKey + QLatin1Char('\n') + e.sourceRef))
                    continue; // NotReopened
                any = true;
                sum.byReason[escalationReasonName(e.reason)] += 1;
                if (known->open.contains(k.idemKey + QLatin1Char('\n') + escalationReasonName(e.reason)))
                    ++sum.escalationsUpdated;
                else
                    ++sum.escalationsCreated;
            }
            sum.escalated += any;
            sum.waiting += any && k.action.awaitingConfirmation; // as the real run counts it
            if (!any && !k.action.escalations.isEmpty() && k.action.kind == ReconcileActionKind::Escalate)
                k.outcome = QStringLiteral("dry_run:") + reconcileActionName(ReconcileActionKind::None); // a real run: "nothing"
        }
    }
    return std::nullopt;
}

ReconcileEscalation refusedMarkEscalation(const QString &message)
{
    return {EscalationReason::Policy, QString(), QStringLiteral("the mark rules refused the automatic mark: %1").arg(message)};
}

ReconcileEscalation fourEyesEscalation(qint64 proposalId)
{
    if (proposalId == 0)
        return {EscalationReason::Policy, QString(),
                QStringLiteral("four-eyes: a real run makes the automatic mark a proposal that waits for an operator's approval")};
    return {EscalationReason::Policy, QString(),
            QStringLiteral("four-eyes: the automatic mark is proposal %1, waiting for an operator's approval (triagectl approve %1 --reason …)")
                .arg(proposalId)};
}

std::optional<DbError> predictFourEyes(DbWorker &idem, const QVector<KeyDetail> &after, QVector<ReconcileKeyResult> &results,
                                       ReconcileSummary &sum)
{
    struct Asked {
        int index;
        QString action;
        QString expectedState; ///< proposalExpectedStateJson() of the record as read
    };
    QVector<Asked> asked;
    for (qsizetype i = 0; i < results.size(); ++i) {
        const ReconcileActionKind kind = results[i].action.kind;
        if (kind != ReconcileActionKind::ApplySuccess && kind != ReconcileActionKind::ApplyFailed)
            continue;
        const bool success = kind == ReconcileActionKind::ApplySuccess;
        const std::optional<RecordDetail> &record = after[i].record;
        // The real run's rule (mark_sql::planMark()); the canonical ticket, whose payload its
        // SUCCESS snapshot would be, is among the detail's tickets.
        if (record
            && fourEyesRuleForMark(record->policy, record->bizType.value_or(QString()), success ? Success : Failed,
                                   markAmounts(std::nullopt, *record, markEvidenceOf(after[i])))
                   .required())
            asked << Asked{int(i), QString::fromUtf16(success ? audit_action::MarkSuccess : audit_action::MarkFailed),
                           proposalExpectedStateJson(expectedStateOf(*after[i].record))};
    }
    if (asked.isEmpty())
        return std::nullopt;
    // One read of the open and rejected proposals of these keys, as mark_sql::propose() checks
    // them (the reconciler never proposes again what an operator rejected on the same state).
    using Found = std::pair<std::optional<ProposalRow>, std::optional<ProposalRow>>; // open, rejected
    const auto found = idem.run<QVector<Found>>([&results, asked](DbSession &s) {
                               QVector<Found> rows;
                               for (const Asked &a : asked) {
                                   const QString &key = results[a.index].idemKey;
                                   std::optional<ProposalRow> open = proposal_sql::openFor(s, key, a.action);
                                   rows << Found{open, open ? std::nullopt : proposal_sql::rejectedFor(s, key, a.action, a.expectedState)};
                               }
                               return rows;
                           })
                           .result();
    if (!found.ok())
        return *found.error;
    for (qsizetype j = 0; j < asked.size(); ++j) {
        ReconcileKeyResult &k = results[asked[j].index];
        const auto &[open, rejected] = found->at(j);
        if (open) {
            MarkResult conflict;
            k.message = mark_sql::openProposalConflict(conflict, *open).message;
            k.outcome = QStringLiteral("dry_run:conflict");
            ++sum.conflicts;
            continue;
        }
        k.action.escalations.prepend(rejected ? refusedMarkEscalation(mark_sql::rejectedAgainText(*rejected)) : fourEyesEscalation(0));
        k.action.kind = ReconcileActionKind::Escalate;
    }
    return std::nullopt;
}

} // namespace triage
