#pragma once

// Helpers shared by the compensation tests: a fixture (record + two tickets sharing one key,
// inserted by plain SQL), the upstream simulator and the compensation settings pointing at it.
#include "MarkTestUtil.h"
#include "ShapeExpect.h"
#include "SimTestUtil.h"

#include "Compensation.h"

namespace triage::test {

const QString kCompKey = QStringLiteral("ticket:create:acme:dup-comp-1");

/// Record (PROCESSING, stale) and tickets 101 (canonical) and 102 (extra) carrying kCompKey,
/// in `db`'s shape (on a shop row the shop's tables first, orders with the UUID ids standing
/// for 101 and 102, ShapeExpect.h).
inline QString insertCompFixture(const TestDatabase &db)
{
    QString e = createAgentTables(db);
    if (e.isEmpty())
        e = createSchemaWithoutBackstop(db);
    if (e.isEmpty())
        e = insertRecord(db, kCompKey, 0, 3600);
    if (e.isEmpty())
        e = insertTicket(db, 101, kCompKey, ticketIdPayload(db, 101));
    if (e.isEmpty())
        e = insertTicket(db, 102, kCompKey, ticketIdPayload(db, 101));
    return e;
}

/// `cancel_ticket` for biz_type ticket_create on the simulator at `base`.
inline CompensationActionConfig cancelConfig(const QUrl &base, int timeoutMs, bool honoursKey)
{
    CompensationActionConfig c;
    c.bizType = QStringLiteral("ticket_create");
    c.action = QStringLiteral("cancel_ticket");
    c.baseUrl = base.toString();
    c.urlTemplate = QStringLiteral("/tickets/{ticket_id}/cancel");
    c.bodyTemplate = QStringLiteral("{\"reason\":\"duplicate of {idem_key}\"}");
    c.confirmUrlTemplate = QStringLiteral("/tickets/{ticket_id}");
    c.timeoutMs = timeoutMs;
    c.honoursKey = honoursKey;
    return c;
}

inline CompensationConfigs configsFor(const CompensationActionConfig &c)
{
    CompensationConfigs out;
    out[c.bizType].insert(c.action, c);
    return out;
}

/// Side effects the simulator executed for the ticket whose id is `id` as text.
inline int sideEffects(SimControl &ctl, const QString &id)
{
    return ctl.stats()[QStringLiteral("side_effects")][id].toInt();
}
/// Side effects the simulator executed for ticket `id`.
inline int sideEffects(SimControl &ctl, qint64 id)
{
    return sideEffects(ctl, QString::number(id));
}

/// The X-Idempotency-Key of every cancel request for the ticket whose id is `id` as text.
inline QStringList cancelKeys(SimControl &ctl, const QString &id)
{
    QStringList keys;
    for (const QJsonValue &r : ctl.requests()) {
        const QJsonObject o = r.toObject();
        if (o.value(QStringLiteral("path")).toString() != QStringLiteral("/tickets/%1/cancel").arg(id))
            continue;
        QString key = QStringLiteral("(none)");
        for (const QJsonValue &h : o.value(QStringLiteral("headers")).toArray())
            if (h.toArray().at(0).toString().compare(QLatin1String("X-Idempotency-Key"), Qt::CaseInsensitive) == 0)
                key = h.toArray().at(1).toString();
        keys << key;
    }
    return keys;
}

/// The X-Idempotency-Key of every cancel request for ticket `id` in the simulator's log.
inline QStringList cancelKeys(SimControl &ctl, qint64 id)
{
    return cancelKeys(ctl, QString::number(id));
}

} // namespace triage::test
