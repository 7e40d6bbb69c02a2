#pragma once
// Raising escalations in tests as a reconcile run does (DESIGN.md §8 "Escalations").

#include "BackendTestUtil.h"
#include "Escalation.h"
#include "Workspace.h"

namespace triage::test {

/// An escalation of `key` by the reconciler (run 1): biz_type ticket_create, tenant acme.
inline EscalationRaise escalationOf(const QString &key, EscalationReason reason, const QString &facts = QStringLiteral("{\"n\":1}"))
{
    EscalationRaise r;
    r.idemKey = key;
    r.bizType = QStringLiteral("ticket_create");
    r.tenant = QStringLiteral("acme");
    r.reason = reason;
    r.facts = facts;
    r.runId = 1;
    r.operatorName = QStringLiteral("reconciler");
    return r;
}

/// escalation_sql::raise() in its own transaction on `ws`'s idempotency worker, as a run does
/// (never re-sent); the future of its result.
inline QFuture<Outcome<EscalationRaiseResult>> raiseLater(Workspace &ws, const EscalationRaise &r)
{
    return ws.worker(DbRole::Idempotency).run<EscalationRaiseResult>([r](DbSession &s) {
        s.begin();
        try {
            EscalationRaiseResult result = escalation_sql::raise(s, r);
            s.commit();
            return result;
        } catch (const DbException &) {
            s.rollback();
            throw;
        }
    }, DbWorker::Retry::Never);
}

/// raiseLater(), awaited.
inline Outcome<EscalationRaiseResult> raiseNow(Workspace &ws, const EscalationRaise &r)
{
    return await(raiseLater(ws, r));
}

} // namespace triage::test
