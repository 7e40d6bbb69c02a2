// The mark service: evidence gathered from the ticket and intent workers, then the
// compare-and-set (MarkSql.cpp) on an idempotency worker, futures continued on the
// workspace's merge pool (FutureChain.h).
#include "Mark.h"
#include "FutureChain.h"

#include "CanonicalTicket.h"
#include "JsonText.h"
#include "MarkSql.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QJsonObject>
#include <QSet>
#include <QUuid>

#include <limits>
#include <memory>

namespace triage {

void setSnapshotFrom(MarkRequest &r, const SnapshotTicketChoice &choice)
{
    if (choice.ticket) {
        r.snapshot = choice.ticket->payload;
        r.snapshotSource = QStringLiteral("ticket:%1").arg(choice.ticket->id.text());
        r.snapshotMissingReason.clear();
    } else {
        r.snapshotMissingReason = choice.refusal;
    }
}

QString markKindName(MarkResult::Kind kind)
{
    switch (kind) {
    case MarkResult::Kind::Applied: return QStringLiteral("applied");
    case MarkResult::Kind::Conflict: return QStringLiteral("conflict");
    case MarkResult::Kind::Refused: return QStringLiteral("refused");
    case MarkResult::Kind::Error: return QStringLiteral("error");
    case MarkResult::Kind::DryRun: return QStringLiteral("dry-run");
    }
    return {};
}

std::optional<RecordedUpstreamAnswer> recordedUpstreamAnswer(const AuditEntry &row)
{
    if (canonicalAuditAction(row.action) != QStringView(audit_action::QueryUpstream))
        return std::nullopt;
    RecordedUpstreamAnswer u;
    u.auditId = row.id;
    u.atText = row.at;
    u.at = parseUtcMicros(row.at);
    const ParsedJson parsed = parseJsonText(row.evidence);
    const QString c = parsed.ok ? parsed.root.toObject().value(QStringLiteral("evidence")).toObject().value(QStringLiteral("classification")).toString()
                                : QString();
    u.answer = c == QLatin1String("FOUND")            ? UpstreamAnswer::Found
        : c == QLatin1String("NOT_FOUND")             ? UpstreamAnswer::NotFound
        : c == QLatin1String("AMBIGUOUS")             ? UpstreamAnswer::Ambiguous
        : c == QLatin1String("NOT_CONFIGURED")        ? UpstreamAnswer::NotConfigured
                                                      : UpstreamAnswer::Unusable;
    return u;
}

MarkEvidence markEvidenceOf(const KeyDetail &detail)
{
    MarkEvidence ev;
    for (const TicketRow &t : detail.tickets)
        ev.ticketIds << t.id;
    for (const IntentAttempt &a : detail.attempts) {
        const QString status = a.status.value_or(QString());
        if (status == QLatin1String("SUCCEEDED"))
            ev.succeededAttemptIds << a.id;
        else if (status == QLatin1String("ESCALATED"))
            ev.escalatedAttemptIds << a.id;
        for (const QString *time : {&a.createdAt, &a.updatedAt}) {
            if (time->isNull())
                continue;
            const auto t = parseUtcMicros(*time);
            if (!t)
                ev.attemptTimeUnreadable = true;
            else if (!ev.latestAttemptAt || *t > *ev.latestAttemptAt)
                ev.latestAttemptAt = *t;
        }
    }
    std::optional<std::pair<UtcMicros, qint64>> latest;
    for (const AuditEntry &row : detail.audit) {
        const auto u = recordedUpstreamAnswer(row);
        if (!u)
            continue;
        const std::pair<UtcMicros, qint64> order{u->at.value_or(std::numeric_limits<UtcMicros>::min()), u->auditId};
        if (!latest || order > *latest) {
            latest = order;
            ev.upstream = u;
        }
    }
    if (detail.errors.contains(DbRole::Ticket))
        ev.ticketError = detail.errors.value(DbRole::Ticket).message;
    if (detail.errors.contains(DbRole::Intent))
        ev.intentError = detail.errors.value(DbRole::Intent).message;
    return ev;
}

MarkFacts markFactsFrom(const std::optional<RecordDetail> &record, const MarkEvidence &ev)
{
    MarkFacts f;
    f.recordExists = record.has_value();
    if (record) {
        f.fromStatus = record->statusCode;
        f.stale = record->stale;
        f.processingTimeoutS = record->processingTimeoutS;
        f.failedEvidence = record->failedEvidence;
        f.failedEvidenceMaxAgeS = record->failedEvidenceMaxAgeS;
        f.upstreamConfigured = record->upstreamConfigured;
        f.now = parseUtcMicros(record->serverNow);
        f.updatedAt = parseUtcMicros(record->updatedAt);
    }
    f.ticketCount = int(ev.ticketIds.size());
    f.succeededAttempts = int(ev.succeededAttemptIds.size());
    f.escalatedAttempts = int(ev.escalatedAttemptIds.size());
    f.latestAttemptAt = ev.latestAttemptAt;
    f.attemptTimeUnreadable = ev.attemptTimeUnreadable;
    f.upstream = ev.upstream;
    if (!ev.ticketError.isEmpty())
        f.storeErrors << QStringLiteral("ticket store: ") + ev.ticketError;
    if (!ev.intentError.isEmpty())
        f.storeErrors << QStringLiteral("intent store: ") + ev.intentError;
    return f;
}

namespace {

/// The evidence of every key of `keys` from the two readers' outcomes; `rowKeys` (SUCCESS
/// marks) also get their ticket rows. A store that failed leaves its error on every key.
QHash<QString, MarkEvidence> evidenceFrom(const QStringList &keys, const QStringList &rowKeys,
                                          const Outcome<mark_sql::TicketEvidence> &t,
                                          const Outcome<mark_sql::AttemptEvidence> &a)
{
    QHash<QString, MarkEvidence> out;
    for (const QString &k : keys) {
        MarkEvidence &e = out[k];
        if (t.ok())
            e.ticketIds = t->ids.value(k);
        else
            e.ticketError = t.error->message;
        if (a.ok()) {
            e.succeededAttemptIds = a->succeeded.value(k);
            e.escalatedAttemptIds = a->escalated.value(k);
            if (a->latest.contains(k))
                e.latestAttemptAt = a->latest.value(k);
            e.attemptTimeUnreadable = a->unreadable.contains(k);
        } else {
            e.intentError = a.error->message;
        }
    }
    if (t.ok())
        for (const QString &k : rowKeys)
            out[k].tickets = t->rows.value(k);
    return out;
}

/// Evidence for `keys` from the ticket and intent workers, read in parallel and combined
/// on the merge pool; the tickets of SUCCESS requests' keys are read too (for the
/// canonical-ticket rule).
QFuture<QHash<QString, MarkEvidence>> gatherEvidence(Workspace &ws, const QVector<MarkRequest> &requests)
{
    QStringList keys, rowKeys;
    QSet<QString> seen, seenRow;
    for (const MarkRequest &r : requests) {
        if (!seen.contains(r.idemKey)) {
            seen.insert(r.idemKey);
            keys << r.idemKey;
        }
        if (r.toStatus == Success && !seenRow.contains(r.idemKey)) {
            seenRow.insert(r.idemKey);
            rowKeys << r.idemKey;
        }
    }
    const WorkspaceConfig config = ws.config();
    auto tickets = ws.worker(DbRole::Ticket).run<mark_sql::TicketEvidence>(
        [config, keys, rowKeys](DbSession &s) { return mark_sql::readTicketEvidence(s, config, keys, rowKeys); });
    auto attempts = ws.worker(DbRole::Intent).run<mark_sql::AttemptEvidence>(
        [config, keys](DbSession &s) { return mark_sql::readAttemptEvidence(s, config, keys); });
    QThreadPool *pool = ws.mergePool();
    return continueWith(tickets, pool, [attempts, keys, rowKeys, pool](Outcome<mark_sql::TicketEvidence> t) mutable {
                  return continueWith(attempts, pool, [t, keys, rowKeys](Outcome<mark_sql::AttemptEvidence> a) {
                      return evidenceFrom(keys, rowKeys, t, a);
                  });
              });
}

/// `request` with its SUCCESS snapshot taken from the canonical ticket when it names one
/// (request.snapshotFromTicket, DESIGN.md §6); a refusal or an unreadable ticket store is
/// left in snapshotMissingReason, which mark_sql::apply() reports and audits.
QFuture<MarkRequest> withTicketSnapshot(Workspace &ws, MarkRequest request)
{
    if (!request.snapshotFromTicket)
        return QtFuture::makeReadyFuture(std::move(request));
    const QString key = request.idemKey;
    return continueWith(ws.worker(DbRole::Ticket)
        .run<QVector<TicketRow>>([key, config = ws.config()](DbSession &s) { return detail_sql::readTickets(s, config, key); }), ws.mergePool(), [request](Outcome<QVector<TicketRow>> rows) mutable {
            request.snapshot.reset();
            request.snapshotSource = QStringLiteral("ticket:%1").arg(request.snapshotFromTicket->text());
            if (!rows.ok()) {
                // No ticket to take the snapshot from: apply() reports the unreadable ticket
                // store as an error (exit 2) and audits it like every real outcome.
                request.snapshotMissingReason = storeFailureText(DbRole::Ticket, rows.error->message);
            } else {
                KeyDetail d;
                d.idemKey = request.idemKey;
                d.tickets = *rows;
                setSnapshotFrom(request, snapshotTicketFor(d, request.snapshotFromTicket));
            }
            return request;
        });
}

Outcome<MarkResult> readOnlyRefusal(const MarkRequest &req)
{
    MarkResult r;
    r.kind = MarkResult::Kind::Refused;
    r.idemKey = req.idemKey;
    r.requestId = req.requestId;
    r.message = QStringLiteral("read-only mode: marking is disabled (started with --read-only or read_only=true)");
    return Outcome<MarkResult>::success(r);
}

void prepare(const Workspace &ws, MarkRequest &req)
{
    if (req.requestId.isEmpty())
        req.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (req.operatorName.isEmpty())
        req.operatorName = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
}

} // namespace

QFuture<Outcome<MarkResult>> markRecord(Workspace &ws, MarkRequest request)
{
    prepare(ws, request);
    if (ws.config().readOnly && !request.dryRun)
        return QtFuture::makeReadyFuture(readOnlyRefusal(request));
    Workspace *w = &ws;
    QThreadPool *pool = ws.mergePool();
    return continueWith(withTicketSnapshot(ws, std::move(request)), pool, [w, pool](MarkRequest r) {
                  return continueWith(gatherEvidence(*w, {r}), pool, [w, r](QHash<QString, MarkEvidence> all) {
                      const MarkEvidence ev = all.value(r.idemKey);
                      const WorkspaceConfig config = w->config();
                      return w->worker(DbRole::Idempotency).run<MarkResult>([=](DbSession &s) {
                          return mark_sql::apply(s, config, r, ev);
                      });
                  });
              });
}

QFuture<QVector<Outcome<MarkResult>>> markRecords(Workspace &ws, QVector<MarkRequest> requests)
{
    for (MarkRequest &r : requests) {
        prepare(ws, r);
        r.bulk = true;
    }
    if (ws.config().readOnly) {
        bool allDry = true;
        for (const MarkRequest &r : requests)
            allDry = allDry && r.dryRun;
        if (!allDry) {
            QVector<Outcome<MarkResult>> results;
            for (const MarkRequest &r : requests)
                results.append(readOnlyRefusal(r));
            return QtFuture::makeReadyFuture(std::move(results));
        }
    }
    Workspace *w = &ws;
    QThreadPool *pool = ws.mergePool();
    return continueWith(gatherEvidence(ws, requests), pool, [w, pool, requests](QHash<QString, MarkEvidence> evidence) {
                  const WorkspaceConfig config = w->config();
                  // Extra connections for large runs; the workspace's own worker takes a share too.
                  WorkerPool &extra = w->bulkWorkers(DbRole::Idempotency);
                  const int extraCount = requests.size() >= 200 ? extra.size() : 0;
                  // One job (and one transaction) per record; queue them all, then collect in order.
                  QList<QFuture<Outcome<MarkResult>>> pending;
                  pending.reserve(requests.size());
                  for (int i = 0; i < requests.size(); ++i) {
                      MarkRequest r = requests[i];
                      r.readBack = false;
                      const MarkEvidence ev = evidence.value(r.idemKey);
                      DbWorker &worker = extraCount == 0 || i % (extraCount + 1) == 0 ? w->worker(DbRole::Idempotency)
                                                                                       : extra.at(i % (extraCount + 1) - 1);
                      pending.append(worker.run<MarkResult>([=](DbSession &s) { return mark_sql::apply(s, config, r, ev); }));
                  }
                  QList<QFuture<void>> all;
                  for (const auto &f : std::as_const(pending))
                      all << QFuture<void>(f);
                  return continueAfterAll(all, pool, [pending]() {
                      QVector<Outcome<MarkResult>> results;
                      results.reserve(pending.size());
                      for (const auto &f : pending)
                          results.append(f.result()); // finished: continueAfterAll() waited for every one
                      return results;
                  });
              });
}

QFuture<Outcome<QVector<AuditEntry>>> readAudit(Workspace &ws, AuditQuery query)
{
    return ws.worker(DbRole::Idempotency).run<QVector<AuditEntry>>([query](DbSession &s) { return audit_sql::read(s, query); });
}

} // namespace triage
