// The escalation and claim services (DESIGN.md §8): one job each on the idempotency store's
// worker. Writers are never re-sent after a dropped connection (DbWorker::Retry::Never).
#include "EscalationService.h"
#include "ReadOnlyText.h"
#include "Reconcile.h"
#include "ReconcileConfig.h"

#include "OwnWrite.h"
#include "Workspace.h"

namespace triage {

namespace {

/// The idempotency keys a claim operation writes on (its audit row): the key of a key claim;
/// none for escalation and reconcile claims (their rows are read from the primary anyway).
QStringList claimedKeys(ClaimScope scope, const QString &subject)
{
    return scope == ClaimScope::Key ? QStringList{subject} : QStringList{};
}

} // namespace

QString claimOperator(const Workspace &ws, const QString &given)
{
    if (!given.isEmpty())
        return given;
    return ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
}

QFuture<Outcome<QVector<EscalationRow>>> listEscalations(Workspace &ws, const EscalationQuery &query)
{
    return ws.worker(DbRole::Idempotency).run<QVector<EscalationRow>>([query](DbSession &s) {
        const QVector<Escalation> rows = escalation_sql::list(s, query);
        QStringList keys, ids;
        for (const Escalation &e : rows) {
            keys << e.idemKey;
            ids << QString::number(e.id);
        }
        keys.removeDuplicates();
        const QHash<QString, Claim> byKey = claim_sql::activeFor(s, ClaimScope::Key, keys);
        const QHash<QString, Claim> byId = claim_sql::activeFor(s, ClaimScope::Escalation, ids);
        QVector<EscalationRow> out;
        out.reserve(rows.size());
        for (const Escalation &e : rows) {
            EscalationRow r;
            r.escalation = e;
            // A resolved escalation is nobody's work: it shows no claim (DESIGN.md §8).
            if (e.isOpen() && byKey.contains(e.idemKey))
                r.keyClaim = byKey.value(e.idemKey);
            if (e.isOpen() && byId.contains(QString::number(e.id)))
                r.escalationClaim = byId.value(QString::number(e.id));
            out << r;
        }
        return out;
    });
}

QFuture<Outcome<escalation_sql::EscalationResolveResult>>
resolveEscalation(Workspace &ws, qint64 id, const QString &reason, std::optional<qint64> expectedVersion, const QString &operatorName)
{
    using R = escalation_sql::EscalationResolveResult;
    if (ws.config().readOnly) {
        R r;
        r.kind = R::Kind::Refused;
        r.message = readOnlyText(ws.config(), QStringLiteral("escalations cannot be resolved"));
        return QtFuture::makeReadyFuture(Outcome<R>::success(r));
    }
    const QString who = claimOperator(ws, operatorName);
    return ws.worker(DbRole::Idempotency)
        .run<R>([=](DbSession &s) { return escalation_sql::resolve(s, id, reason, who, expectedVersion); }, DbWorker::Retry::Never);
}

QFuture<Outcome<ClaimResult>> takeClaim(Workspace &ws, ClaimScope scope, const QString &subject, int ttlS,
                                        const QString &takeoverReason, const QString &operatorName)
{
    if (ws.config().readOnly) {
        ClaimResult r;
        r.kind = ClaimResult::Kind::Refused;
        r.message = readOnlyText(ws.config(), QStringLiteral("claims cannot be taken"));
        return QtFuture::makeReadyFuture(Outcome<ClaimResult>::success(r));
    }
    const QString who = claimOperator(ws, operatorName);
    return afterOwnWrite(ws,
                         ws.worker(DbRole::Idempotency)
                             .run<ClaimResult>([=](DbSession &s) { return claim_sql::acquire(s, scope, subject, who, ttlS, takeoverReason); },
                                               DbWorker::Retry::Never),
                         [scope, subject](const Outcome<ClaimResult> &) { return claimedKeys(scope, subject); });
}

QFuture<Outcome<ClaimResult>> releaseClaim(Workspace &ws, ClaimScope scope, const QString &subject, const QString &operatorName)
{
    if (ws.config().readOnly) {
        ClaimResult r;
        r.kind = ClaimResult::Kind::Refused;
        r.message = readOnlyText(ws.config(), QStringLiteral("claims cannot be released"));
        return QtFuture::makeReadyFuture(Outcome<ClaimResult>::success(r));
    }
    const QString who = claimOperator(ws, operatorName);
    return afterOwnWrite(ws,
                         ws.worker(DbRole::Idempotency)
                             .run<ClaimResult>([=](DbSession &s) { return claim_sql::release(s, scope, subject, who); }, DbWorker::Retry::Never),
                         [scope, subject](const Outcome<ClaimResult> &) { return claimedKeys(scope, subject); });
}

QFuture<Outcome<QVector<Claim>>> listClaims(Workspace &ws, bool includeExpired)
{
    return ws.worker(DbRole::Idempotency).run<QVector<Claim>>([includeExpired](DbSession &s) {
        return claim_sql::list(s, includeExpired);
    });
}

QFuture<Outcome<QHash<QString, Claim>>> activeClaims(Workspace &ws, ClaimScope scope, const QStringList &subjects)
{
    return ws.worker(DbRole::Idempotency).run<QHash<QString, Claim>>([scope, subjects](DbSession &s) {
        if (!s.hasTable(QStringLiteral("triage_claim")))
            return QHash<QString, Claim>();
        return claim_sql::activeFor(s, scope, subjects);
    });
}

QFuture<Outcome<std::optional<QString>>> reconcileFreshness(Workspace &ws)
{
    const int every = reconcileExpectedEveryS(ws.config());
    return ws.worker(DbRole::Idempotency).run<std::optional<QString>>([every](DbSession &s) {
        return reconcile_run_sql::freshnessWarning(s, every);
    });
}

QFuture<Outcome<qint64>> countEscalations(Workspace &ws, const EscalationQuery &query)
{
    return ws.worker(DbRole::Idempotency).run<qint64>([query](DbSession &s) { return escalation_sql::count(s, query); });
}

} // namespace triage
