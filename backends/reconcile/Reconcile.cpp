// The reconcile run's orchestration (DESIGN.md §8 "Reconciliation"): lease, run row, stale
// records, upstream answers, decisions, compare-and-sets, resolutions, escalations.
#include "Reconcile.h"
#include "ReviewRecord.h"
#include "ClaimGuard.h"
#include "ReconcileEscalate.h"

#include "ConsoleSchema.h"
#include "KeyDetail.h"
#include "Log.h"
#include "Mark.h"
#include "Queue.h"
#include "UpstreamCheck.h"
#include "UpstreamClient.h"
#include "TimeText.h"
#include "Workspace.h"

#include <QElapsedTimer>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace triage {

namespace {

const QString kLeaseSubject = QStringLiteral("reconcile");
/// An empty, non-null reason: a null QString binds as SQL NULL, and triage_claim.reason is NOT NULL.
const QString kNoReason = QStringLiteral("");

QString defaultHolder()
{
    return QStringLiteral("reconciler:%1:%2").arg(QHostInfo::localHostName()).arg(::getpid());
}

/// True when `holder` ("reconciler:<host>:<pid>") names a process of this host that has ended:
/// its lease may be taken over at once (a killed run never released it).
bool holderEndedHere(const QString &holder)
{
    const QStringList parts = holder.split(QLatin1Char(':'));
    if (parts.size() != 3 || parts[0] != QLatin1String("reconciler") || parts[1] != QHostInfo::localHostName())
        return false;
    bool ok = false;
    const qint64 pid = parts[2].toLongLong(&ok);
    if (!ok || pid <= 0 || pid == ::getpid())
        return false;
    return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

bool leaseHeld(ClaimResult::Kind k)
{
    return k == ClaimResult::Kind::Taken || k == ClaimResult::Kind::Renewed || k == ClaimResult::Kind::TakenOver;
}

/// Waits for every future of `futures` in order (the caller's thread is no pool thread).
template <typename T>
QVector<T> collect(QVector<QFuture<T>> &futures)
{
    QVector<T> out;
    out.reserve(futures.size());
    for (auto &f : futures)
        out << f.result();
    return out;
}

struct Started {
    ClaimResult lease;
    qint64 runId = 0;
    QString startedAt;
    QString tookOverFrom;
};

} // namespace

ReconcileResult runReconcile(Workspace &ws, UpstreamClient &client, const ReconcileOptions &o)
{
    ReconcileResult res;
    ReconcileSummary &sum = res.summary;
    sum.dryRun = o.dryRun;
    const WorkspaceConfig config = ws.config();
    DbWorker &idem = ws.worker(DbRole::Idempotency);
    const QString holder = o.holder.isEmpty() ? defaultHolder() : o.holder;
    const int ttl = std::max(30, o.leaseTtlS);
    auto log = logger("backend.sql");

    auto fail = [&](ReconcileResult::Kind kind, const QString &message) {
        res.kind = kind;
        res.message = message;
        return res;
    };
    // Ends the run row (and the lease) after a store failure; best effort.
    auto failRun = [&](const DbError &e) {
        sum.state = QStringLiteral("failed");
        if (!o.dryRun && sum.runId) {
            const QByteArray counts = sum.toJson();
            const qint64 id = sum.runId;
            idem.run<Done>([=](DbSession &s) {
                    reconcile_run_sql::finish(s, id, QStringLiteral("failed"), counts, e.message);
                    claim_sql::release(s, ClaimScope::Reconcile, kLeaseSubject, holder);
                    return Done{};
                }, DbWorker::Retry::Never)
                .waitForFinished();
        }
        // The exit codes of DESIGN.md §5: 4 refused, 1 configuration (e.g. console schema 3:
        // no escalation tables, as escalations, claims and claim say), else 2.
        return fail(e.kind == DbError::Kind::Refused  ? ReconcileResult::Kind::Refused
                        : e.kind == DbError::Kind::Config ? ReconcileResult::Kind::ConfigError
                                                          : ReconcileResult::Kind::StoreError,
                    e.message);
    };
    // Renews the lease and the run's heartbeat; false when the lease was lost.
    auto renew = [&]() -> std::optional<bool> {
        if (o.dryRun)
            return true;
        const qint64 id = sum.runId;
        const auto out = idem.run<bool>([=](DbSession &s) {
                                const ClaimResult r = claim_sql::acquire(s, ClaimScope::Reconcile, kLeaseSubject, holder, ttl, kNoReason);
                                reconcile_run_sql::heartbeat(s, id);
                                return leaseHeld(r.kind);
                            }, DbWorker::Retry::Never)
                             .result();
        if (!out.ok())
            return std::nullopt;
        return *out;
    };

    // 1. The lease and the run row (a dry run takes neither: it writes nothing).
    if (!o.dryRun) {
        if (config.readOnly)
            return fail(ReconcileResult::Kind::Refused,
                        QStringLiteral("read-only mode: reconcile writes (marks, audit rows, escalations); use --dry-run"));
        const QString filters = QString::fromUtf8(
            QJsonDocument(QJsonObject{{QStringLiteral("biz_type"), o.bizType.isEmpty() ? QJsonValue() : QJsonValue(o.bizType)},
                                      {QStringLiteral("limit"), o.limit}})
                .toJson(QJsonDocument::Compact));
        const auto started = idem.run<Started>([=](DbSession &s) {
                                     requireKnownConsoleSchema(s);
                                     requireReconcileTables(s);
                                     Started st;
                                     st.lease = claim_sql::acquire(s, ClaimScope::Reconcile, kLeaseSubject, holder, ttl, kNoReason);
                                     if (st.lease.kind == ClaimResult::Kind::HeldByOther && st.lease.claim
                                         && holderEndedHere(st.lease.claim->holder)) {
                                         st.tookOverFrom = st.lease.claim->holder;
                                         st.lease = claim_sql::acquire(
                                             s, ClaimScope::Reconcile, kLeaseSubject, holder, ttl,
                                             QStringLiteral("the run holding the lease (%1) has ended without releasing it").arg(st.tookOverFrom));
                                     }
                                     if (!leaseHeld(st.lease.kind))
                                         return st;
                                     st.runId = reconcile_run_sql::start(s, holder, false, filters);
                                     if (!st.tookOverFrom.isEmpty())
                                         reconcile_run_sql::closeAbandoned(
                                             s, st.tookOverFrom, st.runId,
                                             QStringLiteral("ended without finishing (killed?); its lease was taken over by run %1").arg(st.runId));
                                     st.startedAt = reconcile_run_sql::startedAt(s, st.runId);
                                     return st;
                                 }, DbWorker::Retry::Never)
                                 .result();
        if (!started.ok())
            return failRun(*started.error);
        if (!leaseHeld(started->lease.kind)) {
            res.leaseHolder = started->lease.claim;
            return fail(ReconcileResult::Kind::LeaseHeld,
                        started->lease.claim ? QStringLiteral("another reconcile run holds the lease: %1 until %2")
                                                   .arg(started->lease.claim->holder, started->lease.claim->expiresAt)
                                             : started->lease.message);
        }
        sum.runId = started->runId;
        sum.startedAt = started->startedAt;
        log->info("reconcile run {} started by {}", sum.runId, holder);
    }
    reconcileFaultPoint(QStringLiteral("after_lease"));

    // 2. The stale PROCESSING records, oldest first, and the keys an operator holds.
    struct Listed {
        QVector<QueueRow> rows;
        QSet<QString> claimed;
        QString now;
    };
    const QString bizType = o.bizType;
    const int limit = o.limit;
    const auto listed = idem.run<Listed>([=](DbSession &s) {
                                // A database without the escalation tables (console schema 3) is a
                                // configuration problem also for a dry run (exit 1, §5).
                                requireReconcileTables(s);
                                Listed l;
                                QueueRequest req;
                                req.kind = QueueKind::Unknown;
                                req.filter.bizType = bizType;
                                SourceCursor cursor;
                                constexpr int kPage = 500;
                                while (limit == 0 || l.rows.size() < limit) {
                                    const QVector<QueueRow> page = queue_sql::pageRecords(s, config, req, cursor, kPage);
                                    for (const QueueRow &r : page)
                                        if (r.status == QLatin1String("PROCESSING") && (limit == 0 || l.rows.size() < limit))
                                            l.rows << r; // the queue also lists unknown statuses: not ours
                                    if (page.size() < kPage)
                                        break;
                                    cursor.started = true;
                                    cursor.time = page.last().cursorTime;
                                    cursor.id = page.last().id;
                                }
                                QStringList keys;
                                for (const QueueRow &r : std::as_const(l.rows))
                                    keys << r.idemKey;
                                // A key an operator claimed, or one whose open escalation an operator
                                // claimed, is theirs (DESIGN.md §8 "Claims stop others").
                                const auto claims = claim_sql::blockingClaims(s, keys, reconcilerOperator());
                                for (auto it = claims.cbegin(); it != claims.cend(); ++it)
                                    l.claimed.insert(it.key());
                                return l;
                            })
                            .result();
    if (!listed.ok())
        return failRun(*listed.error);

    QStringList keys;
    for (const QueueRow &r : listed->rows) {
        if (keys.contains(r.idemKey))
            continue;
        if (listed->claimed.contains(r.idemKey)) {
            ReconcileKeyResult k;
            k.idemKey = r.idemKey;
            k.bizType = r.bizType;
            k.outcome = QStringLiteral("skipped_claimed");
            sum.keys << k;
            ++sum.skippedClaimed;
            continue;
        }
        keys << r.idemKey;
    }
    sum.examined = int(keys.size());

    // 3. Each key's detail, then the upstream in bulk: in-flight limit, Retry-After, breaker.
    QVector<QFuture<KeyDetail>> loading;
    for (const QString &k : keys)
        loading << loadKeyDetail(ws, k, ReadFrom::Primary);
    const QVector<KeyDetail> before = collect(loading);
    QVector<int> queriedIndex; // key index → index in the bulk query, or -1
    QVector<KeyDetail> toQuery;
    for (const KeyDetail &d : before) {
        const QString bt = d.record && d.record->bizType ? *d.record->bizType : QString();
        if (config.upstreams.contains(bt) && d.errors.isEmpty()) {
            queriedIndex << int(toQuery.size());
            toQuery << d;
        } else {
            queriedIndex << -1;
        }
    }
    UpstreamBulkOptions bo;
    bo.concurrency = o.concurrency;
    bo.pauseAfterUnusable = o.breakerAfter;
    bo.retryAfterMaxS = o.retryAfterMaxS;
    auto breaker = [](const UpstreamBulkPause &) { return UpstreamBulkDecision::Stop; };
    QVector<UpstreamEvidence> evidence(toQuery.size());
    QVector<qint64> auditIds(toQuery.size(), 0);
    QVector<bool> answered(toQuery.size(), false);
    UpstreamBulkReport run;
    if (!toQuery.isEmpty()) {
        if (o.dryRun) {
            QVector<UpstreamQuery> queries;
            for (const KeyDetail &d : toQuery)
                queries << makeUpstreamQuery(config, d);
            auto bulk = client.queryMany(queries, bo, breaker);
            run = bulk->report().result();
            for (qsizetype i = 0; i < toQuery.size(); ++i) {
                evidence[i] = run.results.value(i);
                answered[i] = evidence[i].sent && evidence[i].kind != UnusableKind::Cancelled;
            }
        } else {
            auto bulk = checkUpstreamMany(ws, client, toQuery, bo, breaker, o.operatorName);
            // The lease is renewed while the answers come in (every 100 answers recorded).
            auto count = std::make_shared<std::atomic<int>>(0);
            const qint64 runId = sum.runId;
            QObject::connect(bulk.get(), &UpstreamBulkCheck::checked, bulk.get(), [&ws, count, runId, holder, ttl](int, const UpstreamCheck &) {
                if (++*count % 100 == 0)
                    ws.worker(DbRole::Idempotency).run<Done>([=](DbSession &s) {
                        claim_sql::acquire(s, ClaimScope::Reconcile, kLeaseSubject, holder, ttl, kNoReason);
                        reconcile_run_sql::heartbeat(s, runId);
                        return Done{};
                    });
            }, Qt::DirectConnection);
            const UpstreamBulkCheckReport report = bulk->report().result();
            run = report.run;
            for (qsizetype i = 0; i < toQuery.size(); ++i) {
                evidence[i] = report.checks.value(i).evidence;
                auditIds[i] = report.checks.value(i).auditId;
                answered[i] = report.answered.value(i);
            }
            if (report.auditError)
                return failRun(*report.auditError);
        }
    }
    sum.queried = run.found + run.notFound + run.ambiguous + run.unusable;
    sum.unusable = run.unusable;
    sum.breakerOpen = run.state == UpstreamBulkState::Stopped && !run.keepFailed;
    sum.retriedAfter = run.retriedAfter;
    sum.maxInFlight = run.maxInFlight;
    sum.upstreamWallMs = run.wallMs;
    reconcileFaultPoint(QStringLiteral("after_answers"));
    if (const auto held = renew(); !held || !*held)
        return held ? fail(ReconcileResult::Kind::LeaseHeld, QStringLiteral("the reconcile lease was taken over during the run"))
                    : failRun(DbError{DbRole::Idempotency, DbError::Kind::Connection, QStringLiteral("idempotency database: cannot renew the reconcile lease")});

    // 4. Each key's detail again (the answer recorded, the record as it is now), the decision.
    loading.clear();
    for (const QString &k : keys)
        loading << loadKeyDetail(ws, k, ReadFrom::Primary);
    const QVector<KeyDetail> after = collect(loading);
    QVector<ReconcileInput> inputs;
    QVector<ReconcileKeyResult> results;
    QMap<QString, ReconcileBizConfig> bizConfigs = o.bizConfig;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const KeyDetail &d = after[i];
        const int qi = queriedIndex[i];
        const UpstreamEvidence *e = qi >= 0 ? &evidence[qi] : nullptr;
        const bool breakerSkipped = qi >= 0 && !answered[qi];
        std::optional<UtcMicros> dryAt;
        if (o.dryRun && d.record)
            dryAt = parseUtcMicros(d.record->serverNow);
        ReconcileKeyResult k;
        k.idemKey = keys[i];
        k.bizType = d.record && d.record->bizType ? *d.record->bizType : QString();
        // The record's effective policy (triage_policy made stricter by the INI, read with it:
        // DESIGN.md §8 "Safety policy"); the INI alone for a key without a record.
        if (!bizConfigs.contains(k.bizType))
            bizConfigs.insert(k.bizType, d.record ? reconcileConfigOf(d.record->policy) : reconcileConfigFor(config, k.bizType));
        ReconcileInput in = reconcileInputFrom(config, bizConfigs.value(k.bizType), d, e, breakerSkipped && sum.breakerOpen, dryAt);
        k.action = decideReconcile(in);
        k.upstream = qi < 0 ? QString() : breakerSkipped ? QStringLiteral("NOT_QUERIED") : upstreamClassName(e->classification);
        k.auditId = qi >= 0 ? auditIds[qi] : 0;
        inputs << in;
        results << k;
    }

    if (o.dryRun) {
        // Four-eyes: the marks a real run would propose (or find already proposed) instead.
        if (const std::optional<DbError> e = predictFourEyes(idem, after, results, sum))
            return failRun(*e);
        for (ReconcileKeyResult &k : results) {
            if (!k.outcome.isEmpty())
                continue; // "dry_run:conflict": an open proposal (predictFourEyes())
            k.outcome = QStringLiteral("dry_run:") + reconcileActionName(k.action.kind);
            switch (k.action.kind) {
            case ReconcileActionKind::ApplySuccess: ++sum.appliedSuccess; break;
            case ReconcileActionKind::ApplyFailed: ++sum.appliedFailed; break;
            case ReconcileActionKind::WaitConfirmation: ++sum.waiting; break;
            case ReconcileActionKind::None: sum.errors += !inputs[&k - results.data()].storeErrors.isEmpty(); break;
            case ReconcileActionKind::Escalate: break;
            }
        }
        // What a real run would create, update or leave alone (step 7; ReconcileEscalate.cpp).
        if (const std::optional<DbError> e = predictEscalations(idem, results, sum))
            return failRun(*e);
        sum.keys << results;
        sum.state = QStringLiteral("finished");
        return res;
    }

    // 5. Compare-and-sets (an operator's concurrent change wins: a conflict, audited by mark_sql).
    QVector<MarkRequest> marks;
    QVector<int> markOf;
    for (qsizetype i = 0; i < results.size(); ++i) {
        const ReconcileAction &a = results[i].action;
        if (a.kind != ReconcileActionKind::ApplySuccess && a.kind != ReconcileActionKind::ApplyFailed)
            continue;
        MarkRequest r;
        r.idemKey = keys[i];
        r.toStatus = a.kind == ReconcileActionKind::ApplySuccess ? Success : Failed;
        r.reason = QStringLiteral("reconcile run %1: %2").arg(sum.runId).arg(a.why);
        r.snapshot = a.snapshot;
        r.snapshotSource = a.snapshotSource;
        r.expect = expectedStateOf(*after[i].record);
        r.operatorName = o.operatorName;
        r.proposeAfterRejection = false; // an operator's rejection stands until the record changes
        r.evidenceJson = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("reconcile_run"), sum.runId},
                                                                     {QStringLiteral("upstream_audit_id"), results[i].auditId},
                                                                     {QStringLiteral("not_found_audit_ids"),
                                                                      QJsonArray{a.firstNotFoundAuditId, a.secondNotFoundAuditId}}})
                                               .toJson(QJsonDocument::Compact));
        marks << r;
        markOf << int(i);
    }
    if (o.beforeCompareAndSet)
        o.beforeCompareAndSet();
    static const QString fault = qEnvironmentVariable("TRIAGE_RECONCILE_FAULT");
    qsizetype stopAt = -1;
    if (fault.startsWith(QLatin1String("after_cas:")))
        stopAt = fault.mid(10).toLongLong();
    QVector<Outcome<MarkResult>> marked;
    if (stopAt >= 0 && stopAt <= marks.size()) {
        // The fault hook: exactly N compare-and-sets committed, then the process ends.
        marked = markRecords(ws, marks.mid(0, stopAt)).result();
        reconcileFaultPoint(QStringLiteral("after_cas"), int(stopAt));
    }
    QElapsedTimer casClock;
    casClock.start();
    if (!marks.isEmpty())
        marked = markRecords(ws, marks).result();
    sum.casWallMs = casClock.elapsed();
    QSet<int> settledNow;
    for (qsizetype m = 0; m < marked.size(); ++m) {
        ReconcileKeyResult &k = results[markOf[m]];
        const Outcome<MarkResult> &out = marked[m];
        if (!out.ok()) {
            ++sum.errors;
            k.outcome = QStringLiteral("error");
            k.message = out.error->message;
            continue;
        }
        k.message = out->message;
        switch (out->kind) {
        case MarkResult::Kind::Applied:
            settledNow.insert(markOf[m]);
            if (marks[m].toStatus == Success) {
                ++sum.appliedSuccess;
                k.outcome = QStringLiteral("applied_success");
            } else {
                ++sum.appliedFailed;
                k.outcome = QStringLiteral("applied_failed");
            }
            break;
        case MarkResult::Kind::Conflict:
            ++sum.conflicts;
            k.outcome = QStringLiteral("conflict");
            break;
        case MarkResult::Kind::Refused:
            // The mark rules said no (e.g. the canonical-ticket rule, or an operator rejected
            // this mark's proposal on this record state): a human decides.
            k.action.escalations.prepend(refusedMarkEscalation(out->message));
            k.action.kind = ReconcileActionKind::Escalate;
            break;
        case MarkResult::Kind::Proposed:
            // Four-eyes (DESIGN.md §9): the run's mark is a proposal; a human approves it.
            k.action.escalations.prepend(fourEyesEscalation(out->proposalId));
            k.action.kind = ReconcileActionKind::Escalate;
            break;
        default:
            ++sum.errors;
            k.outcome = QStringLiteral("error");
            break;
        }
    }

    // 6. Automatic resolutions of every open escalation (never one this run raises again): the
    //    visited keys as decided, the others (settled meanwhile, e.g. by an operator) as read now.
    {
        // A run limited to one biz_type (--biz-type) touches that biz_type's escalations only.
        const auto open = idem.run<QVector<Escalation>>([bizType = o.bizType](DbSession &s) {
                                  EscalationQuery q;
                                  q.openOnly = true;
                                  q.bizType = bizType;
                                  return escalation_sql::list(s, q);
                              })
                              .result();
        if (!open.ok())
            return failRun(*open.error);
        QHash<QString, int> indexOf;
        for (qsizetype i = 0; i < keys.size(); ++i)
            indexOf.insert(keys[i], int(i));
        QHash<QString, KeyDetail> others;
        {
            QStringList otherKeys;
            for (const Escalation &e : *open)
                if (!indexOf.contains(e.idemKey) && !otherKeys.contains(e.idemKey) && !listed->claimed.contains(e.idemKey))
                    otherKeys << e.idemKey;
            QVector<QFuture<KeyDetail>> reading;
            for (const QString &k : std::as_const(otherKeys))
                reading << loadKeyDetail(ws, k, ReadFrom::Primary);
            for (const KeyDetail &d : collect(reading))
                others.insert(d.idemKey, d);
        }
        QVector<QFuture<Outcome<escalation_sql::EscalationResolveResult>>> resolving;
        for (const Escalation &e : *open) {
            const int i = indexOf.value(e.idemKey, -1);
            if (i < 0 && !others.contains(e.idemKey))
                continue;
            const KeyDetail &d = i >= 0 ? after[i] : others[e.idemKey];
            if (!d.errors.isEmpty() || (i >= 0 && results[i].action.raises(e.reason)))
                continue;
            EscalationState st = escalationStateOf(d);
            st.recordSettled = st.recordSettled || (i >= 0 && settledNow.contains(i));
            const auto text = automaticResolution(e, st);
            if (!text)
                continue;
            const qint64 id = e.id, version = e.version;
            const QString by = o.operatorName, why = *text;
            resolving << idem.run<escalation_sql::EscalationResolveResult>([=](DbSession &s) { return escalation_sql::resolve(s, id, why, by, version); },
                                                            DbWorker::Retry::Never);
        }
        for (auto &f : resolving) {
            const auto r = f.result();
            if (!r.ok())
                return failRun(*r.error);
            sum.resolved += r->kind == escalation_sql::EscalationResolveResult::Kind::Resolved;
        }
    }

    // 7. Escalations: one transaction per key (ReconcileEscalate.cpp).
    if (const std::optional<DbError> e = raiseEscalations(idem, config, results, inputs, after, o, sum))
        return failRun(*e);
    for (qsizetype i = 0; i < results.size(); ++i) {
        ReconcileKeyResult &k = results[i];
        if (!k.outcome.isEmpty())
            continue;
        if (k.action.kind == ReconcileActionKind::WaitConfirmation) {
            ++sum.waiting;
            k.outcome = QStringLiteral("waiting");
        } else if (!inputs[i].storeErrors.isEmpty()) {
            ++sum.errors;
            k.outcome = QStringLiteral("error");
        } else {
            k.outcome = QStringLiteral("nothing");
        }
    }
    // A key both escalated and awaiting its second NOT_FOUND counts as waiting too.
    for (const ReconcileKeyResult &k : results)
        if (k.action.awaitingConfirmation && k.outcome == QStringLiteral("escalated"))
            ++sum.waiting;
    sum.keys << results;
    reconcileFaultPoint(QStringLiteral("before_finish"));
    // The daily review's breaches and trend rows (DESIGN.md §8 "The daily review"); a failure
    // here is logged, the run's own work is done.
    const QTimeZone reviewZone = reviewTimeZone(config);
    const auto reviewed = idem.run<bool>([reviewZone](DbSession &s) {
                                  review_sql::afterReconcileRun(s, reviewZone, reconcilerOperator());
                                  return true;
                              }, DbWorker::Retry::Never)
                              .result();
    if (!reviewed.ok())
        log->warn("reconcile run {}: the daily review's breaches and trend rows were not written: {}", sum.runId,
                  reviewed.error->message.toStdString());

    // 8. The run row and the lease.
    sum.state = QStringLiteral("finished");
    const qint64 id = sum.runId;
    ReconcileSummary forRow = sum;
    forRow.keys.clear();
    const QByteArray counts = forRow.toJson();
    const auto finished = idem.run<QString>([=](DbSession &s) {
                                  const QString at = reconcile_run_sql::finish(s, id, QStringLiteral("finished"), counts, QString());
                                  claim_sql::release(s, ClaimScope::Reconcile, kLeaseSubject, holder);
                                  return at;
                              }, DbWorker::Retry::Never)
                              .result();
    if (!finished.ok())
        return fail(ReconcileResult::Kind::StoreError, finished.error->message);
    sum.finishedAt = *finished;
    log->info("reconcile run {} finished: {} examined, {} SUCCESS, {} FAILED, {} escalated, {} conflicts", sum.runId,
              sum.examined, sum.appliedSuccess, sum.appliedFailed, sum.escalated, sum.conflicts);
    return res;
}

} // namespace triage
