// The mark service: evidence gathered from the ticket and intent workers, then the
// compare-and-set (MarkSql.cpp) on an idempotency worker, futures continued on the
// workspace's merge pool (FutureChain.h).
#include "Mark.h"
#include "ReadOnlyText.h"
#include "FutureChain.h"

#include "CanonicalTicket.h"
#include "ConsoleSchema.h"
#include "JsonText.h"
#include "Log.h"
#include "MarkSql.h"
#include "RecordStatus.h"
#include "SqlChunks.h"
#include "TimeText.h"
#include "OwnWrite.h"
#include "Workspace.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QUuid>

#include <algorithm>

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
    case MarkResult::Kind::Proposed: return QStringLiteral("proposed");
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
    for (const TicketRow &t : detail.tickets)
        collectAmount(ev.amounts, QStringLiteral("ticket %1").arg(t.id.text()), t.payload);
    for (const IntentAttempt &a : detail.attempts)
        collectAmount(ev.amounts, QStringLiteral("attempt %1").arg(a.id), a.request);
    if (detail.errors.contains(DbRole::Ticket))
        ev.ticketError = detail.errors.value(DbRole::Ticket).message;
    if (detail.errors.contains(DbRole::Intent))
        ev.intentError = detail.errors.value(DbRole::Intent).message;
    return ev;
}

QVector<AmountSeen> markAmounts(const std::optional<QString> &snapshot, const RecordDetail &record, const MarkEvidence &ev)
{
    QVector<AmountSeen> amounts;
    collectAmount(amounts, QStringLiteral("the snapshot"), snapshot);
    collectAmount(amounts, QStringLiteral("the record's snapshot"), record.resultSnapshot);
    return amounts + ev.amounts;
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
            e.amounts = a->amounts.value(k);
        } else {
            e.intentError = a.error->message;
        }
    }
    if (t.ok())
        for (const QString &k : rowKeys) {
            out[k].tickets = t->rows.value(k);
            out[k].amounts = t->amounts.value(k) + out[k].amounts; // the business rows first
        }
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
        [config, keys](DbSession &s) { return mark_sql::readAttemptEvidence(s, config, keys, keys); }); // with the requests' amounts
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

Outcome<MarkResult> readOnlyRefusal(const WorkspaceConfig &config, const MarkRequest &req)
{
    MarkResult r;
    r.kind = MarkResult::Kind::Refused;
    r.idemKey = req.idemKey;
    r.requestId = req.requestId;
    r.message = readOnlyText(config, QStringLiteral("marking is disabled"));
    return Outcome<MarkResult>::success(r);
}

void prepare(const Workspace &ws, MarkRequest &req)
{
    if (req.requestId.isEmpty())
        req.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (req.operatorName.isEmpty())
        req.operatorName = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
}

/// mark_sql::applyBatch() for `batch`, or — when the database refuses the batch as a whole on
/// a live connection (a statement error) — mark_sql::apply() record by record, so one bad
/// record does not fail its neighbours; request ids make that idempotent (what the batch wrote
/// before failing is found, never written twice). A dropped connection is rethrown: the worker
/// re-opens and runs the job again (DbWorker::Retry::OnReconnect), which finds what committed.
QVector<Outcome<MarkResult>> applyBatchOrEach(DbSession &s, const WorkspaceConfig &config, const QVector<MarkRequest> &batch,
                                              const QHash<QString, MarkEvidence> &evidence)
{
    QVector<Outcome<MarkResult>> out;
    try {
        for (MarkResult &r : mark_sql::applyBatch(s, config, batch, evidence))
            out.append(Outcome<MarkResult>::success(std::move(r)));
        return out;
    } catch (const DbException &e) {
        if (e.error.kind != DbError::Kind::Statement || !s.alive())
            throw;
        logger("backend.sql")->warn("a batch of {} marks failed as a whole ({}); applying them one by one", batch.size(),
                                    e.error.message);
    }
    for (const MarkRequest &r : batch) {
        try {
            out.append(Outcome<MarkResult>::success(mark_sql::apply(s, config, r, evidence.value(r.idemKey))));
        } catch (const DbException &e) {
            if (!s.alive())
                throw;
            out.append(Outcome<MarkResult>::failure(e.error));
        }
    }
    return out;
}

} // namespace

QFuture<Outcome<MarkResult>> markRecord(Workspace &ws, MarkRequest request)
{
    prepare(ws, request);
    if (ws.config().readOnly && !request.dryRun)
        return QtFuture::makeReadyFuture(readOnlyRefusal(ws.config(), request));
    Workspace *w = &ws;
    QThreadPool *pool = ws.mergePool();
    const bool dryRun = request.dryRun;
    const QString key = request.idemKey;
    auto done = continueWith(withTicketSnapshot(ws, std::move(request)), pool, [w, pool](MarkRequest r) {
        return continueWith(gatherEvidence(*w, {r}), pool, [w, r](QHash<QString, MarkEvidence> all) {
            const MarkEvidence ev = all.value(r.idemKey);
            const WorkspaceConfig config = w->config();
            return w->worker(DbRole::Idempotency).run<MarkResult>([=](DbSession &s) {
                return mark_sql::apply(s, config, r, ev);
            });
        });
    });
    if (dryRun)
        return done;
    // Every mark but a dry run writes (an applied change or an audited refusal/conflict): the
    // key's reads go to the primary until the replicas have it (DESIGN.md §9 "Read replicas").
    return afterOwnWrite(ws, done, [key](const Outcome<MarkResult> &) { return QStringList{key}; });
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
                results.append(readOnlyRefusal(ws.config(), r));
            return QtFuture::makeReadyFuture(std::move(results));
        }
    }
    QThreadPool *pool = ws.mergePool();
    // Batches of kInListChunk records, each record still its own compare-and-set
    // (mark_sql::applyBatch()), spread over the workspace's worker and, for several batches, up
    // to 4 extra connections. Each batch's evidence is read on the ticket and intent workers
    // while earlier batches are applied.
    using Results = QVector<Outcome<MarkResult>>;
    const WorkspaceConfig config = ws.config();
    WorkerPool &extra = ws.bulkWorkers(DbRole::Idempotency);
    const int batches = int((requests.size() + kInListChunk - 1) / kInListChunk);
    const int extraCount = batches > 1 ? std::min(int(extra.size()), batches - 1) : 0;
    QList<QFuture<Outcome<Results>>> pending;
    for (int j = 0; j < batches; ++j) {
        QVector<MarkRequest> batch = requests.mid(qsizetype(j) * kInListChunk, kInListChunk);
        for (MarkRequest &r : batch)
            r.readBack = false;
        DbWorker *worker = extraCount == 0 || j % (extraCount + 1) == 0 ? &ws.worker(DbRole::Idempotency)
                                                                        : &extra.at(j % (extraCount + 1) - 1);
        pending.append(continueWith(gatherEvidence(ws, batch), pool, [worker, config, batch](QHash<QString, MarkEvidence> ev) {
            return worker->run<Results>([=](DbSession &s) { return applyBatchOrEach(s, config, batch, ev); });
        }));
    }
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(pending))
        all << QFuture<void>(f);
    QStringList written; // every request but a dry run writes (see markRecord())
    for (const MarkRequest &r : std::as_const(requests))
        if (!r.dryRun)
            written << r.idemKey;
    Workspace *w = &ws;
    return continueAfterAll(all, pool, [pending, size = requests.size(), w, written]() {
        w->noteOwnWrite(written);
        Results results;
        results.reserve(size);
        for (qsizetype j = 0; j < pending.size(); ++j) {
            const Outcome<Results> done = pending[j].result(); // finished: continueAfterAll() waited
            if (done.ok()) {
                results += *done;
                continue;
            }
            // The batch failed as a whole (e.g. its connection could not be re-opened).
            const qsizetype n = std::min<qsizetype>(kInListChunk, size - j * kInListChunk);
            for (qsizetype i = 0; i < n; ++i)
                results.append(Outcome<MarkResult>::failure(*done.error));
        }
        return results;
    });
}

QStringList proposalChangesSince(const ProposalRow &p, const RecordDetail &now)
{
    const std::optional<ExpectedState> then = proposalExpectedState(p.expectedState);
    if (!then)
        return {QStringLiteral("the proposal's expected state cannot be read: %1").arg(p.expectedState)};
    const ExpectedState current = expectedStateOf(now);
    auto statusText = [](const ExpectedState &e) {
        return e.status ? recordStatusText(QVariant(*e.status)) : e.statusStored.value_or(QStringLiteral("NULL"));
    };
    auto timeText = [](const std::optional<UtcMicros> &t) { return t ? formatUtcMicros(*t) : QStringLiteral("NULL"); };
    auto number = [](const std::optional<qint64> &n) { return n ? QString::number(*n) : QStringLiteral("NULL"); };
    QStringList lines;
    const bool statusMoved = then->status != current.status
        || (then->statusStored && current.statusStored && *then->statusStored != *current.statusStored);
    if (statusMoved)
        lines << QStringLiteral("status %1 then, %2 now").arg(statusText(*then), now.statusText);
    if (then->updatedAt != current.updatedAt)
        lines << QStringLiteral("updated_at %1 then, %2 now").arg(timeText(then->updatedAt), timeText(current.updatedAt));
    if (now.hasVersionColumn && then->version != current.version)
        lines << QStringLiteral("version %1 then, %2 now").arg(number(then->version), number(current.version));
    return lines;
}

QString proposalExpectedStateJson(const ExpectedState &e)
{
    QJsonObject o;
    o[QStringLiteral("status")] = e.status ? QJsonValue(double(*e.status)) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("status_stored")] = e.statusStored ? QJsonValue(*e.statusStored) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("updated_at")] = e.updatedAt ? QJsonValue(formatUtcMicros(*e.updatedAt)) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("version")] = e.version ? QJsonValue(QString::number(*e.version)) : QJsonValue(QJsonValue::Null);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

std::optional<ExpectedState> proposalExpectedState(const QString &json)
{
    const ParsedJson parsed = parseJsonText(json);
    if (!parsed.ok || !parsed.root.isObject())
        return std::nullopt;
    const QJsonObject o = parsed.root.toObject();
    ExpectedState e;
    if (o.value(QStringLiteral("status")).isDouble())
        e.status = qint64(o.value(QStringLiteral("status")).toDouble());
    if (o.value(QStringLiteral("status_stored")).isString())
        e.statusStored = o.value(QStringLiteral("status_stored")).toString();
    if (o.value(QStringLiteral("updated_at")).isString()) {
        e.updatedAt = parseUtcMicros(o.value(QStringLiteral("updated_at")).toString());
        if (!e.updatedAt)
            return std::nullopt;
    }
    if (o.value(QStringLiteral("version")).isString()) {
        bool ok = false;
        e.version = o.value(QStringLiteral("version")).toString().toLongLong(&ok);
        if (!ok)
            return std::nullopt;
    }
    return e;
}

namespace {

Outcome<MarkResult> proposalFailure(DbError::Kind kind, const QString &message)
{
    return Outcome<MarkResult>::failure(DbError{DbRole::Idempotency, kind, message, {}});
}

} // namespace

QFuture<Outcome<MarkResult>> approveProposal(Workspace &ws, qint64 id, QString reason)
{
    if (const QString why = proposalDecisionReasonRefusal(reason); !why.isEmpty())
        return QtFuture::makeReadyFuture(proposalFailure(DbError::Kind::Refused, why));
    if (ws.config().readOnly)
        return QtFuture::makeReadyFuture(
            proposalFailure(DbError::Kind::Refused, readOnlyText(ws.config(), QStringLiteral("approving is disabled"))));
    Workspace *w = &ws;
    auto read = ws.worker(DbRole::Idempotency).run<std::optional<ProposalRow>>([id](DbSession &s) { return proposal_sql::read(s, id); });
    return continueWith(read, ws.mergePool(), [w, id, reason](Outcome<std::optional<ProposalRow>> row) -> QFuture<Outcome<MarkResult>> {
        if (!row.ok())
            return QtFuture::makeReadyFuture(Outcome<MarkResult>::failure(*row.error));
        if (!*row)
            return QtFuture::makeReadyFuture(proposalFailure(DbError::Kind::Config, QStringLiteral("no proposal %1").arg(id)));
        const ProposalRow &p = **row;
        if (p.action != QString::fromUtf16(audit_action::MarkSuccess) && p.action != QString::fromUtf16(audit_action::MarkFailed))
            return QtFuture::makeReadyFuture(proposalFailure(
                DbError::Kind::Config, QStringLiteral("proposal %1 is a %2, not a mark: approve it with CompensationRunner::approve() "
                                                      "(triagectl approve %1 does)")
                                           .arg(QString::number(id), p.action)));
        const std::optional<ExpectedState> expected = proposalExpectedState(p.expectedState);
        MarkRequest r;
        r.idemKey = p.idemKey;
        r.toStatus = p.toStatus == QLatin1String("SUCCESS") ? Success : Failed;
        r.reason = p.reason;
        r.snapshot = p.snapshot;
        r.snapshotSource = p.snapshotSource;
        // An unreadable expected state (edited by hand) matches nothing: the approving
        // statement's hash check names it.
        r.expect = expected.value_or(ExpectedState{});
        r.evidenceJson = p.evidence;
        r.override = p.override; // as proposed (part of the hash)
        r.approves = p;
        r.approvalReason = reason.trimmed();
        return markRecord(*w, r);
    });
}

QFuture<Outcome<ProposalRow>> rejectProposal(Workspace &ws, qint64 id, QString reason)
{
    auto fail = [](DbError::Kind kind, const QString &message) {
        return QtFuture::makeReadyFuture(Outcome<ProposalRow>::failure(DbError{DbRole::Idempotency, kind, message, {}}));
    };
    if (const QString why = proposalDecisionReasonRefusal(reason); !why.isEmpty())
        return fail(DbError::Kind::Refused, why);
    if (ws.config().readOnly)
        return fail(DbError::Kind::Refused, readOnlyText(ws.config(), QStringLiteral("rejecting is disabled")));
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    // A rejection writes the proposal's state and an audit row on its key: read-your-writes.
    return afterOwnWrite(ws, ws.worker(DbRole::Idempotency).run<ProposalRow>([id, reason = reason.trimmed(), who](DbSession &s) {
        requireKnownConsoleSchema(s);
        const std::optional<ProposalRow> before = proposal_sql::read(s, id);
        if (!before)
            throw DbException({DbRole::Idempotency, DbError::Kind::Config, QStringLiteral("no proposal %1").arg(id), {}});
        AuditEntry a = auditStamp(audit_action::ProposalReject, before->idemKey, who, auditDbUser(s.profile()),
                                  QUuid::createUuid().toString(QUuid::WithoutBraces));
        a.reason = reason;
        a.fromState = QStringLiteral("{\"proposal\":%1,\"state\":\"%2\"}").arg(id).arg(before->stateText());
        s.begin();
        bool closed = false;
        try {
            closed = proposal_sql::close(s, id, QStringLiteral("rejected"), who, reason);
        } catch (const DbException &) {
            s.rollback();
            throw;
        }
        if (!closed) {
            s.rollback();
            const std::optional<ProposalRow> now = proposal_sql::read(s, id);
            throw DbException({DbRole::Idempotency, DbError::Kind::Conflict,
                               QStringLiteral("proposal %1 is %2 (by %3 at %4: %5)")
                                   .arg(QString::number(id), now ? now->state : QStringLiteral("gone"), now ? now->decidedBy : QString(),
                                        now ? now->decidedAt : QString(), now ? now->decisionReason : QString()),
                               {}});
        }
        try {
            a.toState = QStringLiteral("{\"proposal\":%1,\"state\":\"rejected\"}").arg(id);
            a.outcome = QStringLiteral("applied");
            a.detail = QStringLiteral("rejected proposal %1 (%2 of %3 by %4)").arg(QString::number(id), before->action, before->idemKey, before->proposedBy);
            audit_sql::insert(s, a);
            s.commit();
        } catch (const DbException &) {
            s.rollback();
            throw;
        }
        return *proposal_sql::read(s, id);
    }), [](const Outcome<ProposalRow> &o) { return o.ok() ? QStringList{o->idemKey} : QStringList{}; });
}

QFuture<Outcome<QVector<ProposalRow>>> readProposals(Workspace &ws, bool all)
{
    return ws.worker(DbRole::Idempotency).run<QVector<ProposalRow>>([all](DbSession &s) { return proposal_sql::list(s, all); });
}

QFuture<Outcome<OpenProposals>> readOpenProposals(Workspace &ws, const QString &idemKey)
{
    return ws.worker(DbRole::Idempotency).run<OpenProposals>([idemKey](DbSession &s) {
        OpenProposals open;
        open.rows = proposal_sql::openForKey(s, idemKey);
        if (!open.rows.isEmpty())
            open.processControlOnly = s.dialect().kind() == Dialect::Sqlite || proposal_sql::dbUsersShared(s);
        return open;
    });
}

QFuture<Outcome<QVector<AuditEntry>>> readAudit(Workspace &ws, AuditQuery query)
{
    return ws.worker(DbRole::Idempotency).run<QVector<AuditEntry>>([query](DbSession &s) { return audit_sql::read(s, query); });
}

} // namespace triage
