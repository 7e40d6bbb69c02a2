#include "Compensation.h"
#include "FutureChain.h"

#include "CompensationHttp.h"
#include "CompensationSteps.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

using namespace compensation_steps;

/// The state of one drive() (a call or a resume of one compensation), shared by its steps;
/// each step runs after the previous one finished, so it is never touched by two at once.
struct CompensationRunner::Drive {
    CompensationRow row;           ///< as read before the drive
    CompensationHttpRequest req;
    bool resumed = false;
    QString operatorName, overridden;
    CompensationStatus final = CompensationStatus::Unknown; ///< the status to store
    QString lastError;
    QByteArray response;           ///< null: keep the stored response
    bool send = true;              ///< a call is (still) to be sent
    QStringList notes;             ///< what happened, for the message and the audit row
    /// Authorization, read from the environment per call; never stored or logged.
    QList<QPair<QByteArray, QByteArray>> auth;
    CompensationOutcome out;
};

QFuture<CompensationOutcome> CompensationRunner::drive(CompensationRow row, const CompensationHttpRequest &req, bool resumed,
                                                       const QString &operatorName, const QString &overridden, const QString &note)
{
    auto st = std::make_shared<Drive>();
    st->row = std::move(row);
    st->req = req;
    st->resumed = resumed;
    st->operatorName = operatorName;
    st->overridden = overridden;
    st->final = compensationStatusFromName(st->row.status).value_or(CompensationStatus::Unknown);
    st->out.compKey = st->row.compKey;
    st->out.request = req;
    if (!note.isEmpty())
        st->notes << note; // an approval's "approved proposal 12 of alice (…)": in the message and the audit row
    if (!req.tokenEnv.isEmpty() && qEnvironmentVariableIsSet(req.tokenEnv.toUtf8().constData()))
        st->auth.append(qMakePair(QByteArray("Authorization"), "Bearer " + qgetenv(req.tokenEnv.toUtf8().constData())));
    if (isFinal(st->final)) {
        st->send = false;
        st->notes << QStringLiteral("already %1: nothing to do").arg(st->row.status);
        return finish(st);
    }
    if (!(resumed && st->row.attempts > 0))
        return sendCall(st);
    // An earlier run sent a call (the counter is bumped before every call), which may have
    // reached the upstream (UNKNOWN, or killed while INTENT): ask first. Re-send only with
    // the same key to an upstream that honours it, or when the confirmation says the effect
    // is absent.
    return andThen(m_workspace.mergePool(), confirm(st), [this, st](ConfirmClass c) {
        if (c == ConfirmClass::Confirmed) {
            st->final = CompensationStatus::Succeeded;
            st->send = false;
        } else if (c == ConfirmClass::Unusable && !st->req.honoursKey) {
            st->final = CompensationStatus::Unknown;
            st->lastError = QStringLiteral("confirmation unusable; not re-sending to an upstream that does not honour the key");
            st->send = false;
        }
        return sendCall(st);
    });
}

QFuture<ConfirmClass> CompensationRunner::confirm(DriveState st)
{
    if (st->req.confirmUrl.isEmpty())
        return ready(ConfirmClass::Unusable);
    auto reply = m_http->send("GET", st->req.confirmUrl,
                              QList<QPair<QByteArray, QByteArray>>{{"Accept", "application/json"}} + st->auth, {},
                              st->req.timeoutMs);
    return andThen(m_workspace.mergePool(), reply, [this, st](const CompensationHttpResult &r) {
        const ConfirmClass cls = classifyConfirm(r);
        const QString compKey = st->row.compKey;
        return continueWith(m_workspace.worker(DbRole::Intent)
            .run<Done>(
                [compKey, r, cls](DbSession &s) {
                    compensation_sql::recordAttempt(s, compKey, 0, QStringLiteral("confirm"), r, confirmClassName(cls));
                    return Done{};
                },
                DbWorker::Retry::Never), m_workspace.mergePool(), [st, r, cls](const Outcome<Done> &) {
                st->notes << QStringLiteral("confirmation query: %1%2")
                                 .arg(confirmClassName(cls), r.gotResponse ? QStringLiteral(" (HTTP %1)").arg(r.status) : QString());
                return cls;
            });
    });
}

QFuture<CompensationOutcome> CompensationRunner::sendCall(DriveState st)
{
    if (!st->send)
        return finish(st);
    DbWorker &intentDb = m_workspace.worker(DbRole::Intent);
    const QString compKey = st->row.compKey;
    const int seen = st->row.attempts;
    auto begun = intentDb.run<qint64>([compKey, seen](DbSession &s) { return compensation_sql::beginSend(s, compKey, seen); },
                                      DbWorker::Retry::Never);
    return andThen(m_workspace.mergePool(), begun, [this, st, compKey](const Outcome<qint64> &begun) -> QFuture<CompensationOutcome> {
        DbWorker &intentDb = m_workspace.worker(DbRole::Intent);
        if (!begun.ok())
            return ready(dbFailure(*begun.error, compKey));
        if (*begun.value == 0) {
            // Another console sent a call for this compensation since we read it: leave it
            // to that run (one call at a time per key).
            st->out.kind = CompensationOutcome::Kind::Existing;
            st->out.message = QStringLiteral("compensation %1: another run sent a call meanwhile; look again with "
                                             "`triagectl compensations --key %2`")
                                  .arg(compKey, st->row.sourceKey);
            auto now = intentDb.run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); });
            return andThen(m_workspace.mergePool(), now, [st](const Outcome<std::optional<CompensationRow>> &now) {
                if (now.ok() && *now.value)
                    st->out.row = **now.value;
                return ready(st->out);
            });
        }
        const qint64 attemptId = std::max<qint64>(*begun.value, 0);
        const CompensationHttpRequest &req = st->req;
        auto reply = m_http->send(req.method, req.url, req.headers + st->auth, req.body, req.timeoutMs);
        return andThen(m_workspace.mergePool(), reply, [this, st, compKey, attemptId](const CompensationHttpResult &r) {
            const SendClass cls = classifySend(r);
            auto recorded = m_workspace.worker(DbRole::Intent).run<Done>(
                [compKey, attemptId, r, cls](DbSession &s) {
                    compensation_sql::recordAttempt(s, compKey, attemptId, QStringLiteral("send"), r, sendClassName(cls));
                    return Done{};
                },
                DbWorker::Retry::Never);
            return andThen(m_workspace.mergePool(), recorded, [this, st, r, cls](const Outcome<Done> &) { return afterCall(st, r, cls); });
        });
    });
}

QFuture<CompensationOutcome> CompensationRunner::afterCall(DriveState st, const CompensationHttpResult &r, SendClass cls)
{
    st->notes << QStringLiteral("call: %1%2").arg(sendClassName(cls), r.gotResponse ? QStringLiteral(" (HTTP %1)").arg(r.status)
                                                                                   : QStringLiteral(" (%1)").arg(r.error));
    if (cls == SendClass::Succeeded) {
        st->final = CompensationStatus::Succeeded;
        st->response = r.body;
        return finish(st);
    }
    if (cls == SendClass::Refused && st->row.attempts == 0) {
        st->final = CompensationStatus::Failed;
        st->response = r.body;
        st->lastError = QStringLiteral("refused by the upstream (HTTP %1)").arg(r.status);
        return finish(st);
    }
    // Timeout, reset, 5xx, HTML, or a refusal after an earlier call that may have worked:
    // the side effect may exist. Never FAILED; ask the upstream.
    st->final = CompensationStatus::Unknown;
    st->lastError = r.gotResponse ? QStringLiteral("HTTP %1: %2").arg(r.status).arg(replyPreview(r.body).left(200)) : r.error;
    return andThen(m_workspace.mergePool(), confirm(st), [this, st](ConfirmClass c) {
        if (c == ConfirmClass::Confirmed) {
            st->final = CompensationStatus::Succeeded;
            st->lastError.clear();
        }
        return finish(st);
    });
}

QFuture<CompensationOutcome> CompensationRunner::finish(DriveState st)
{
    DbWorker &intentDb = m_workspace.worker(DbRole::Intent);
    const QString compKey = st->row.compKey;
    QFuture<Outcome<Done>> stored = ready(Outcome<Done>::success(Done{}));
    if (compensationStatusName(st->final) != st->row.status || st->send) {
        const CompensationStatus status = st->final;
        const QString lastError = st->lastError;
        const QByteArray response = st->response;
        stored = intentDb.run<Done>(
            [compKey, status, lastError, response](DbSession &s) {
                compensation_sql::setStatus(s, compKey, status, lastError, response);
                return Done{};
            },
            DbWorker::Retry::Never);
    }
    return andThen(m_workspace.mergePool(), stored, [this, st, compKey](const Outcome<Done> &stored) -> QFuture<CompensationOutcome> {
        if (!stored.ok())
            return ready(dbFailure(*stored.error, compKey));
        DbWorker &intentDb = m_workspace.worker(DbRole::Intent);
        auto reread = intentDb.run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); });
        return andThen(m_workspace.mergePool(), reread, [this, st, compKey](const Outcome<std::optional<CompensationRow>> &row) {
            if (row.ok() && *row.value)
                st->out.row = **row.value;
            auto hist = m_workspace.worker(DbRole::Intent).run<QVector<CompensationAttemptRow>>(
                [compKey](DbSession &s) { return compensation_sql::attempts(s, compKey); });
            return andThen(m_workspace.mergePool(), hist, [this, st](const Outcome<QVector<CompensationAttemptRow>> &hist) { return recorded(st, hist); });
        });
    });
}

QFuture<CompensationOutcome> CompensationRunner::recorded(DriveState st, const Outcome<QVector<CompensationAttemptRow>> &hist)
{
    if (hist.ok())
        st->out.history = *hist.value;
    if (st->final != CompensationStatus::Succeeded) {
        st->out.kind = st->final == CompensationStatus::Failed ? CompensationOutcome::Kind::Failed
                                                              : CompensationOutcome::Kind::Unknown;
        return audit(st);
    }
    st->out.kind = CompensationOutcome::Kind::Succeeded;
    const QString source = st->row.sourceKey;
    auto tickets = m_workspace.worker(DbRole::Ticket).run<QVector<TicketRow>>([source, config = m_workspace.config()](DbSession &s) {
        return detail_sql::readTickets(s, config, source);
    });
    return andThen(m_workspace.mergePool(), tickets, [this, st](const Outcome<QVector<TicketRow>> &tickets) {
        const BusinessId id(st->row.target); // the target exactly as stored
        if (tickets.ok())
            for (const TicketRow &t : *tickets.value)
                if (t.id == id)
                    st->out.ticketAfter = t;
        return audit(st);
    });
}

QFuture<CompensationOutcome> CompensationRunner::audit(DriveState st)
{
    const QString compKey = st->row.compKey;
    const QString finalName = compensationStatusName(st->final);
    st->out.message = QStringLiteral("compensation %1: %2 (%3)").arg(compKey, finalName, st->notes.join(QStringLiteral("; ")));
    // Audit (idempotency database). A failure here does not undo the compensation.
    AuditEntry a = auditStamp(st->resumed ? audit_action::CompensateResume : audit_action::Compensate, st->row.sourceKey,
                              st->operatorName.left(64));
    a.reason = st->row.reason.isEmpty() ? QStringLiteral("compensation") : st->row.reason.left(1000);
    a.fromState = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), compKey},
                                                              {QStringLiteral("status"), st->row.status}})
                                        .toJson(QJsonDocument::Compact));
    a.toState = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), compKey},
                                                            {QStringLiteral("status"), finalName},
                                                            {QStringLiteral("target"), BusinessId(st->row.target).toJson()},
                                                            {QStringLiteral("action"), st->row.action}})
                                      .toJson(QJsonDocument::Compact));
    QJsonObject evidence{{QStringLiteral("comp_key"), compKey},
                         {QStringLiteral("attempts"), st->out.row ? st->out.row->attempts : st->row.attempts},
                         {QStringLiteral("notes"), QJsonArray::fromStringList(st->notes)}};
    if (!st->overridden.isEmpty())
        evidence.insert(QStringLiteral("override"), st->overridden);
    a.evidence = QString::fromUtf8(QJsonDocument(evidence).toJson(QJsonDocument::Compact));
    switch (st->final) {
    case CompensationStatus::Succeeded: a.outcome = QStringLiteral("applied"); break;
    case CompensationStatus::Failed: a.outcome = QStringLiteral("refused"); break;
    case CompensationStatus::Intent:
    case CompensationStatus::Unknown: a.outcome = QStringLiteral("error"); break;
    }
    a.detail = st->out.message;
    return writeAudit(a, st->out);
}

} // namespace triage
