#include "ReconcileDecide.h"

#include <algorithm>

namespace triage {

namespace {

using R = EscalationReason;

QString answerRef(const RecordedUpstreamAnswer &a)
{
    return QStringLiteral("audit #%1 at %2").arg(a.auditId).arg(a.atText.isEmpty() ? QStringLiteral("?") : a.atText);
}

/// A NOT_FOUND that speaks about the record's current state: obtained after updated_at +
/// processing_timeout and after the latest intent attempt (DESIGN.md §6).
bool qualifies(const ReconcileInput &in, const RecordedUpstreamAnswer &a)
{
    if (a.answer != UpstreamAnswer::NotFound || !a.at || !in.updatedAt)
        return false;
    if (*a.at <= *in.updatedAt + qint64(in.processingTimeoutS) * 1000000)
        return false;
    if (in.attemptTimeUnreadable)
        return false;
    return !in.latestAttemptAt || *a.at > *in.latestAttemptAt;
}

void add(ReconcileAction &a, R reason, const QString &note, const QString &sourceRef = {})
{
    if (a.raises(reason))
        return;
    a.escalations << ReconcileEscalation{reason, sourceRef, note};
}

} // namespace

QString reconcileActionName(ReconcileActionKind kind)
{
    switch (kind) {
    case ReconcileActionKind::None: return QStringLiteral("none");
    case ReconcileActionKind::ApplySuccess: return QStringLiteral("apply_success");
    case ReconcileActionKind::ApplyFailed: return QStringLiteral("apply_failed");
    case ReconcileActionKind::WaitConfirmation: return QStringLiteral("wait_confirmation");
    case ReconcileActionKind::Escalate: return QStringLiteral("escalate");
    }
    return {};
}

bool ReconcileAction::raises(EscalationReason reason) const
{
    return std::any_of(escalations.cbegin(), escalations.cend(), [reason](const ReconcileEscalation &e) { return e.reason == reason; });
}

QString ReconcileAction::reasonList() const
{
    QStringList names;
    for (const ReconcileEscalation &e : escalations)
        names << escalationReasonName(e.reason);
    return names.join(QLatin1Char(','));
}

NotFoundPair notFoundPair(const ReconcileInput &in)
{
    NotFoundPair p;
    // The later answer: the latest recorded answer, which must itself be a qualifying NOT_FOUND.
    if (in.answers.isEmpty()) {
        p.why = QStringLiteral("no upstream answer is recorded for the key");
        return p;
    }
    const RecordedUpstreamAnswer &last = in.answers.last();
    if (last.answer != UpstreamAnswer::NotFound) {
        p.why = QStringLiteral("the latest recorded upstream answer (%1) is %2, not NOT_FOUND").arg(answerRef(last), upstreamAnswerName(last.answer));
        return p;
    }
    if (!qualifies(in, last)) {
        p.why = QStringLiteral("the latest NOT_FOUND (%1) was obtained before updated_at + processing_timeout or before the "
                               "key's latest intent attempt")
                    .arg(answerRef(last));
        return p;
    }
    if (!in.now || double(*in.now - *last.at) / 1e6 > in.failedEvidenceMaxAgeS) {
        p.why = QStringLiteral("the latest NOT_FOUND (%1) is older than failed_evidence_max_age (%2 s)")
                    .arg(answerRef(last))
                    .arg(in.failedEvidenceMaxAgeS);
        return p;
    }
    p.later = last;
    // The earlier one: the latest qualifying NOT_FOUND at least confirmDelayS before it, with
    // no FOUND / AMBIGUOUS answer in between (an UNUSABLE one says nothing either way).
    const UtcMicros bound = *last.at - qint64(in.confirmDelayS) * 1000000;
    for (qsizetype i = in.answers.size() - 2; i >= 0; --i) {
        const RecordedUpstreamAnswer &a = in.answers.at(i);
        if (a.answer == UpstreamAnswer::Found || a.answer == UpstreamAnswer::Ambiguous) {
            p.why = QStringLiteral("an upstream answer %1 (%2) came before the latest NOT_FOUND: no two NOT_FOUND answers "
                                   "agree after it")
                        .arg(upstreamAnswerName(a.answer), answerRef(a));
            return p;
        }
        if (a.at && *a.at <= bound && qualifies(in, a)) {
            p.earlier = a;
            return p;
        }
    }
    p.why = QStringLiteral("only one NOT_FOUND (%1) is recorded at least reconcile_confirm_delay (%2 s) after the record "
                           "went stale and after the latest intent attempt: a second one must confirm it")
                .arg(answerRef(last))
                .arg(in.confirmDelayS);
    return p;
}

ReconcileAction decideReconcile(const ReconcileInput &in)
{
    ReconcileAction a;
    const Verdict &v = in.verdict;
    const QString verdictWords = QStringLiteral("§6 row %1 → %2").arg(v.row).arg(verdictName(v.kind));

    // Amounts: the business rows first, then the upstream object, then the record's snapshot.
    QVector<QPair<QString, QString>> amounts; // (source, amount)
    for (const auto &[label, payload] : in.ticketPayloads) {
        QString cur;
        if (const auto amt = amountOf(payload, &cur)) {
            amounts << qMakePair(label, *amt);
            if (!a.amount) {
                a.amount = *amt;
                a.currency = cur;
            }
        }
    }
    if (!in.upstreamObject.isEmpty()) {
        QString cur;
        if (const auto amt = amountOf(in.upstreamObject, &cur)) {
            amounts << qMakePair(QStringLiteral("upstream"), *amt);
            if (!a.amount) {
                a.amount = *amt;
                a.currency = cur;
            }
        }
    }
    {
        QString cur;
        if (const auto amt = amountOf(in.recordSnapshot, &cur)) {
            amounts << qMakePair(QStringLiteral("snapshot"), *amt);
            if (!a.amount) {
                a.amount = *amt;
                a.currency = cur;
            }
        }
    }
    QString mismatch;
    for (qsizetype i = 1; i < amounts.size() && mismatch.isEmpty(); ++i) {
        if (!sameAmount(amounts.at(0).second, amounts.at(i).second))
            mismatch = QStringLiteral("amount %1 (%2) vs %3 (%4)")
                           .arg(amounts.at(0).second, amounts.at(0).first, amounts.at(i).second, amounts.at(i).first);
    }

    if (!in.storeErrors.isEmpty()) {
        a.why = QStringLiteral("nothing decided: the evidence is incomplete (%1)").arg(in.storeErrors.join(QStringLiteral("; ")));
        return a;
    }
    if (!in.recordProcessing) {
        a.why = QStringLiteral("nothing to do: the record is no longer PROCESSING");
        return a;
    }
    if (v.row == 1) {
        a.why = QStringLiteral("nothing to do: %1 (the record is younger than its processing timeout)").arg(verdictWords);
        return a;
    }

    switch (v.row) {
    case 2:
        if (!v.keyReuseFields.isEmpty())
            add(a, R::KeyReuse, QStringLiteral("tickets of the key differ in %1").arg(v.keyReuseFields.join(QStringLiteral(", "))));
        else
            add(a, R::Duplicate, QStringLiteral("%1: more than one side effect").arg(verdictWords));
        a.why = verdictWords;
        break;
    case 3:
        add(a, R::Contradiction, QStringLiteral("one ticket carries the key but the upstream answered NOT_FOUND"));
        a.why = verdictWords;
        break;
    case 4:
    case 5:
        if (!mismatch.isEmpty()) {
            add(a, R::AmountMismatch, mismatch);
            a.why = QStringLiteral("%1, not applied: %2").arg(verdictWords, mismatch);
        } else if (!v.snapshot) {
            add(a, R::Policy, QStringLiteral("no snapshot to write: the ticket's payload is NULL"));
            a.why = QStringLiteral("%1, not applied: the ticket's payload is NULL (a SUCCESS needs a snapshot)").arg(verdictWords);
        } else {
            a.kind = ReconcileActionKind::ApplySuccess;
            a.snapshot = v.snapshot;
            a.snapshotSource = v.snapshotSource;
            a.why = QStringLiteral("%1: apply SUCCESS with the snapshot from %2").arg(verdictWords, v.snapshotSource);
        }
        break;
    case 6:
        if (in.succeededAttempts > 0)
            add(a, R::AgentSawSuccess, QStringLiteral("no ticket and the upstream answered NOT_FOUND, but the intent log has %1 "
                                                      "SUCCEEDED attempt(s)")
                                           .arg(in.succeededAttempts));
        a.why = verdictWords;
        break;
    case 7: {
        if (in.policy == ReconcilePolicy::Escalate) {
            add(a, R::Policy, QStringLiteral("the verdict is FAILED but the biz_type's policy is reconcile = escalate"));
            a.why = QStringLiteral("%1, not applied: reconcile = escalate").arg(verdictWords);
            break;
        }
        const NotFoundPair pair = notFoundPair(in);
        if (pair.later && pair.earlier) {
            a.kind = ReconcileActionKind::ApplyFailed;
            a.firstNotFoundAuditId = pair.earlier->auditId;
            a.secondNotFoundAuditId = pair.later->auditId;
            a.why = QStringLiteral("%1: apply FAILED: two NOT_FOUND answers at least %2 s apart agree (%3; %4)")
                        .arg(verdictWords)
                        .arg(in.confirmDelayS)
                        .arg(answerRef(*pair.earlier), answerRef(*pair.later));
        } else if (pair.later) {
            a.kind = ReconcileActionKind::WaitConfirmation;
            a.awaitingConfirmation = true;
            a.secondNotFoundAuditId = pair.later->auditId;
            a.why = QStringLiteral("%1: waiting for a second NOT_FOUND: %2").arg(verdictWords, pair.why);
        } else if (!in.upstreamConfigured) {
            add(a, R::NoQueryApi, QStringLiteral("FAILED by failed_evidence = ticket_absent, but an automatic FAILED needs two "
                                                 "NOT_FOUND answers and the biz_type has no upstream query API"));
            a.why = QStringLiteral("%1, not applied: %2").arg(verdictWords, pair.why);
        } else {
            add(a, R::UpstreamUnusable, in.breakerOpen ? QStringLiteral("not queried: the circuit breaker had opened") : pair.why);
            a.why = QStringLiteral("%1, not applied: %2").arg(verdictWords, pair.why);
        }
        break;
    }
    default: // 8
        if (in.breakerOpen)
            add(a, R::UpstreamUnusable, QStringLiteral("not queried: the circuit breaker had opened after consecutive unusable answers"));
        else if (in.upstreamConfigured)
            add(a, R::UpstreamUnusable, QStringLiteral("the upstream's answer was not definitive"));
        else
            add(a, R::NoQueryApi, QStringLiteral("the biz_type has no upstream query API (upstream_query_url)"));
        a.why = verdictWords;
        break;
    }

    // Facts that stay with a human whatever the verdict.
    if (in.latestEscalatedAttemptId)
        add(a, R::External, QStringLiteral("the agents' reconciler escalated the step (intent attempt #%1)").arg(*in.latestEscalatedAttemptId),
            QStringLiteral("intent:%1").arg(*in.latestEscalatedAttemptId));
    if (!in.unsettledCompensations.isEmpty())
        add(a, R::StuckCompensation, QStringLiteral("compensation(s) not settled: %1").arg(in.unsettledCompensations.join(QStringLiteral(", "))));
    if (!mismatch.isEmpty() && a.kind != ReconcileActionKind::ApplySuccess)
        add(a, R::AmountMismatch, mismatch);
    const bool applies = a.kind == ReconcileActionKind::ApplySuccess || a.kind == ReconcileActionKind::ApplyFailed;
    if (!applies && in.expiresInS && *in.expiresInS < kExpiringWithinS)
        add(a, R::Expiring, *in.expiresInS < 0 ? QStringLiteral("expire_at has passed: a retry after the purge would run again")
                                               : QStringLiteral("expire_at is within 24 h: a retry after the purge would run again"));
    std::sort(a.escalations.begin(), a.escalations.end(),
              [](const ReconcileEscalation &x, const ReconcileEscalation &y) { return int(x.reason) < int(y.reason); });
    if (!applies && !a.escalations.isEmpty())
        a.kind = ReconcileActionKind::Escalate;
    return a;
}

} // namespace triage
