// The reconcile run's parts that are not the orchestration: the run log
// (triage_reconcile_run), the summary JSON, the fault hooks, and the decision input built
// from a key's detail (DESIGN.md §8 "Reconciliation").
#include "Reconcile.h"
#include "ConsoleSchema.h"

#include "KeyDetail.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "SqlDialect.h"
#include "TimeText.h"
#include "UpstreamEvidence.h"
#include "WorkspaceConfig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

#include <cstdio>
#include <unistd.h>

namespace triage {

QString reconcileResultName(ReconcileResult::Kind kind)
{
    switch (kind) {
    case ReconcileResult::Kind::Finished: return QStringLiteral("finished");
    case ReconcileResult::Kind::LeaseHeld: return QStringLiteral("lease_held");
    case ReconcileResult::Kind::Refused: return QStringLiteral("refused");
    case ReconcileResult::Kind::StoreError: return QStringLiteral("store_error");
    case ReconcileResult::Kind::ConfigError: return QStringLiteral("config_error");
    }
    return {};
}

int reconcileExitCode(const ReconcileResult &result)
{
    switch (result.kind) {
    case ReconcileResult::Kind::Finished: return 0;
    case ReconcileResult::Kind::StoreError: return 2;
    case ReconcileResult::Kind::LeaseHeld: return 3;
    case ReconcileResult::Kind::Refused: return 4;
    case ReconcileResult::Kind::ConfigError: return 1;
    }
    return 2;
}

QByteArray ReconcileSummary::toJson(bool withKeys) const
{
    QJsonObject o;
    o.insert(QStringLiteral("run_id"), runId);
    o.insert(QStringLiteral("dry_run"), dryRun);
    o.insert(QStringLiteral("state"), state);
    o.insert(QStringLiteral("started_at"), startedAt.isEmpty() ? QJsonValue() : QJsonValue(startedAt));
    o.insert(QStringLiteral("finished_at"), finishedAt.isEmpty() ? QJsonValue() : QJsonValue(finishedAt));
    o.insert(QStringLiteral("examined"), examined);
    o.insert(QStringLiteral("applied_success"), appliedSuccess);
    o.insert(QStringLiteral("applied_failed"), appliedFailed);
    o.insert(QStringLiteral("escalated"), escalated);
    o.insert(QStringLiteral("escalations_created"), escalationsCreated);
    o.insert(QStringLiteral("escalations_updated"), escalationsUpdated);
    o.insert(QStringLiteral("resolved"), resolved);
    o.insert(QStringLiteral("conflicts"), conflicts);
    o.insert(QStringLiteral("skipped_claimed"), skippedClaimed);
    o.insert(QStringLiteral("waiting"), waiting);
    o.insert(QStringLiteral("errors"), errors);
    QJsonObject reasons;
    for (auto it = byReason.cbegin(); it != byReason.cend(); ++it)
        reasons.insert(it.key(), it.value());
    o.insert(QStringLiteral("by_reason"), reasons);
    o.insert(QStringLiteral("upstream"), QJsonObject{{QStringLiteral("queried"), queried},
                                                     {QStringLiteral("unusable"), unusable},
                                                     {QStringLiteral("breaker_open"), breakerOpen},
                                                     {QStringLiteral("retried_after"), retriedAfter},
                                                     {QStringLiteral("max_in_flight"), maxInFlight}});
    if (withKeys) {
        QJsonArray rows;
        for (const ReconcileKeyResult &k : keys)
            rows.append(QJsonObject{{QStringLiteral("idem_key"), k.idemKey},
                                    {QStringLiteral("biz_type"), k.bizType},
                                    {QStringLiteral("action"), reconcileActionName(k.action.kind)},
                                    {QStringLiteral("reasons"), QJsonArray::fromStringList(k.action.reasonList().isEmpty()
                                                                                               ? QStringList()
                                                                                               : k.action.reasonList().split(QLatin1Char(',')))},
                                    {QStringLiteral("outcome"), k.outcome},
                                    {QStringLiteral("upstream"), k.upstream},
                                    {QStringLiteral("message"), k.message.isEmpty() ? k.action.why : k.message}});
        o.insert(QStringLiteral("keys"), rows);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

void reconcileFaultPoint(const QString &point, int casDone)
{
    static const QString wanted = qEnvironmentVariable("TRIAGE_RECONCILE_FAULT");
    if (wanted.isEmpty())
        return;
    const QString here = casDone >= 0 ? QStringLiteral("%1:%2").arg(point).arg(casDone) : point;
    if (wanted != here)
        return;
    std::fprintf(stderr, "reconcile: fault hook %s: exiting\n", qPrintable(here));
    std::fflush(stderr);
    ::_exit(99); // no destructor, no commit, no release: as if the process were killed here
}

ReconcileInput reconcileInputFrom(const WorkspaceConfig &config, const ReconcileBizConfig &bizConfig, const KeyDetail &detail,
                                  const UpstreamEvidence *evidence, bool breakerOpen, std::optional<UtcMicros> unrecordedAnswerAt)
{
    ReconcileInput in;
    const VerdictInput vi = verdictInputFrom(detail, evidence);
    in.verdict = suggestVerdict(vi);
    const QString bizType = detail.record && detail.record->bizType ? *detail.record->bizType : QString();
    in.policy = bizConfig.policy();
    in.confirmDelayS = bizConfig.confirmDelayS;
    in.upstreamConfigured = config.upstreams.contains(bizType);
    in.breakerOpen = breakerOpen;
    in.recordProcessing = detail.record && detail.record->statusCode == qint64(Processing);
    for (const DbError &e : detail.errors)
        in.storeErrors << e.message;
    if (detail.record) {
        in.now = parseUtcMicros(detail.record->serverNow);
        in.updatedAt = parseUtcMicros(detail.record->updatedAt);
        in.processingTimeoutS = detail.record->processingTimeoutS;
        in.failedEvidenceMaxAgeS = detail.record->failedEvidenceMaxAgeS;
        in.expiresInS = detail.record->expiresInSeconds;
        in.recordSnapshot = detail.record->resultSnapshot;
    }
    const MarkEvidence ev = markEvidenceOf(detail);
    in.latestAttemptAt = ev.latestAttemptAt;
    in.attemptTimeUnreadable = ev.attemptTimeUnreadable;
    in.succeededAttempts = int(ev.succeededAttemptIds.size());
    for (qint64 id : ev.escalatedAttemptIds)
        if (!in.latestEscalatedAttemptId || id > *in.latestEscalatedAttemptId)
            in.latestEscalatedAttemptId = id;
    for (const AuditEntry &row : detail.audit)
        if (const auto a = recordedUpstreamAnswer(row))
            in.answers << *a;
    if (unrecordedAnswerAt && evidence && evidence->sent) {
        RecordedUpstreamAnswer a; // a dry run's answer, as if recorded now
        a.answer = upstreamAnswerOf(*evidence);
        a.at = unrecordedAnswerAt;
        a.atText = formatUtcMicros(*unrecordedAnswerAt);
        in.answers << a;
    }
    in.upstreamObject = vi.upstreamObject;
    for (const TicketRow &t : detail.tickets)
        in.ticketPayloads << qMakePair(QStringLiteral("ticket:%1").arg(t.id.text()), t.payload);
    for (const CompensationRow &c : detail.compensations) {
        const QString st = c.status.toUpper();
        if (st == QLatin1String("SUCCEEDED") || st == QLatin1String("FAILED"))
            continue;
        const auto at = parseUtcMicros(c.updatedAt);
        const bool old = !at || !in.now || double(*in.now - *at) / 1e6 > in.processingTimeoutS;
        if (st == QLatin1String("UNKNOWN") || old)
            in.unsettledCompensations << c.compKey;
    }
    return in;
}

EscalationState escalationStateOf(const KeyDetail &detail)
{
    EscalationState s;
    s.recordSettled = detail.record && (detail.record->statusCode == qint64(Success) || detail.record->statusCode == qint64(Failed));
    if (!detail.errors.contains(DbRole::Ticket)) {
        s.liveTickets = 0;
        for (const TicketRow &t : detail.tickets)
            s.liveTickets += t.status.value_or(QString()) != QLatin1String("CANCELLED");
    }
    if (!detail.errors.contains(DbRole::Intent)) {
        s.compensationSettled = true;
        for (const CompensationRow &c : detail.compensations) {
            const QString st = c.status.toUpper();
            s.compensationSettled = s.compensationSettled && (st == QLatin1String("SUCCEEDED") || st == QLatin1String("FAILED"));
        }
    }
    return s;
}

namespace reconcile_run_sql {

qint64 start(DbSession &s, const QString &holder, bool dryRun, const QString &filtersJson)
{
    // No run starts while frozen (DESIGN.md §8 "Safety policy"), not even a dry run: its row is a write.
    requireKnownConsoleSchema(s);
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    return s.insertReturningId(QStringLiteral("INSERT INTO triage_reconcile_run (holder, started_at, heartbeat_at, state, dry_run, "
                                              "filters, counts) VALUES (%1, %2, %2, 'running', %3, %4, '{}')")
                                   .arg(b.bind(holder), d.nowValue(), b.bind(dryRun ? 1 : 0), b.bind(filtersJson)),
                               b);
}

void heartbeat(DbSession &s, qint64 runId)
{
    SqlBuilder b;
    s.exec(QStringLiteral("UPDATE triage_reconcile_run SET heartbeat_at = %1 WHERE id = %2").arg(s.dialect().nowValue(), b.bind(runId)), b);
}

QString finish(DbSession &s, qint64 runId, const QString &state, const QByteArray &countsJson, const QString &error)
{
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    const bool ended = state != QLatin1String("failed");
    s.exec(QStringLiteral("UPDATE triage_reconcile_run SET state = %1, heartbeat_at = %2, finished_at = %3, counts = %4, error = %5 "
                          "WHERE id = %6")
               .arg(b.bind(state), d.nowValue(), ended ? d.nowValue() : QStringLiteral("NULL"),
                    b.bind(QString::fromUtf8(countsJson)), b.bind(error.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(error.left(1000))),
                    b.bind(runId)),
           b);
    SqlBuilder r;
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM triage_reconcile_run WHERE id = %2").arg(d.timeText(QStringLiteral("finished_at")), r.bind(runId)), r);
    return q.next() && !q.value(0).isNull() ? canonicalTimeText(q.value(0)) : QString();
}

int closeAbandoned(DbSession &s, const QString &deadHolder, qint64 exceptRunId, const QString &error)
{
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("UPDATE triage_reconcile_run SET state = 'failed', error = %1 WHERE state = 'running' "
                                        "AND holder = %2 AND id <> %3")
                             .arg(b.bind(error.left(1000)), b.bind(deadHolder), b.bind(exceptRunId)),
                         b);
    return q.numRowsAffected();
}

QString startedAt(DbSession &s, qint64 runId)
{
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM triage_reconcile_run WHERE id = %2").arg(s.dialect().timeText(QStringLiteral("started_at")), b.bind(runId)), b);
    return q.next() ? canonicalTimeText(q.value(0)) : QString();
}

std::pair<std::optional<QString>, QString> lastFinished(DbSession &s)
{
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2 FROM triage_reconcile_run WHERE state = 'finished' AND dry_run = 0 "
                                        "ORDER BY finished_at DESC LIMIT 1")
                             .arg(d.timeText(QStringLiteral("finished_at")), d.nowText()),
                         b);
    if (q.next())
        return {canonicalTimeText(q.value(0)), canonicalTimeText(q.value(1))};
    SqlBuilder n;
    QSqlQuery now = s.exec(QStringLiteral("SELECT %1").arg(d.nowText()), n);
    return {std::nullopt, now.next() ? canonicalTimeText(now.value(0)) : QString()};
}

std::optional<QString> freshnessWarning(DbSession &s, int expectedEveryS)
{
    if (!s.hasTable(QStringLiteral("triage_reconcile_run")))
        return std::nullopt;
    SqlBuilder b;
    QSqlQuery any = s.exec(QStringLiteral("SELECT COUNT(*) FROM triage_reconcile_run WHERE dry_run = 0"), b);
    if (!any.next() || any.value(0).toLongLong() == 0)
        return std::nullopt; // reconciliation is not in use here
    const auto [last, now] = lastFinished(s);
    const auto nowAt = parseUtcMicros(now);
    if (!last)
        return QStringLiteral("no reconcile run has ever finished (reconcile_expected_every = %1 s): check the cron job "
                              "running `triagectl reconcile`")
            .arg(expectedEveryS);
    const auto lastAt = parseUtcMicros(*last);
    if (!lastAt || !nowAt)
        return std::nullopt;
    const double age = double(*nowAt - *lastAt) / 1e6;
    if (age <= expectedEveryS)
        return std::nullopt;
    return QStringLiteral("no reconcile run has finished for %1 (reconcile_expected_every = %2 s; last finished %3): check the "
                          "cron job running `triagectl reconcile`")
        .arg(humanDuration(age))
        .arg(expectedEveryS)
        .arg(*last);
}

} // namespace reconcile_run_sql

} // namespace triage
