#pragma once

// The fixture of the duplicate / compensation UI tests: a seeded SQLite database without the
// ticket backstop (so duplicate keys exist), the upstream simulator on the same database,
// and `cancel_ticket` configured for biz_type ticket_create against it.
#include "CompTestUtil.h"

#include <QStringList>

namespace triage::test {

/// Group A: three live tickets (canonical #1; extras #2 and #3, retries: the same business payload), stale PROCESSING record.
const QString kGroupA = QStringLiteral("ticket:create:acme:dup-a");
/// Group B: two live globex tickets (#4, #5), stale PROCESSING record.
const QString kGroupB = QStringLiteral("ticket:create:globex:dup-b");
/// Group C: resolved (#6 live, #7 CANCELLED), SUCCESS record.
const QString kGroupC = QStringLiteral("ticket:create:acme:dup-c");

/// A fixed time literal `sec` seconds after 2026-01-01T00:00:00Z (SQLite canonical text).
inline QString uiTs(int sec)
{
    return QStringLiteral("'2026-01-01T00:%1:%2.000000Z'").arg(sec / 60, 2, 10, QLatin1Char('0')).arg(sec % 60, 2, 10, QLatin1Char('0'));
}

/// Inserts one ticket at `sec`. Returns the admin error text.
inline QString uiTicket(const TestDatabase &db, int id, const QString &key, const QString &tenant, const QString &status,
                        const QString &payload, int sec)
{
    return db.adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload, created_at, updated_at) "
                                       "VALUES (%1, %2, %3, 'VPN outage', %4, %5, %6, %6)")
                            .arg(id)
                            .arg(key.isEmpty() ? QStringLiteral("NULL") : sqlText(key), sqlText(tenant), sqlText(status),
                                 sqlText(payload), uiTs(sec)));
}

/// The payload of ticket `id` with priority `prio`.
inline QString uiPayload(int id, const QString &prio)
{
    return QStringLiteral("{\"ticket_id\":%1,\"title\":\"VPN\",\"prio\":\"%2\"}").arg(id).arg(prio);
}

/// Seeds the fixture. Returns the error text, empty on success.
inline QString seedUiFixture(const TestDatabase &db)
{
    const QStringList errors{
        createSchemaWithoutBackstop(db),
        uiTicket(db, 1, kGroupA, QStringLiteral("acme"), QStringLiteral("OPEN"), uiPayload(1, QStringLiteral("P1")), 100),
        uiTicket(db, 2, kGroupA, QStringLiteral("acme"), QStringLiteral("OPEN"), uiPayload(2, QStringLiteral("P1")), 200),
        uiTicket(db, 3, kGroupA, QStringLiteral("acme"), QStringLiteral("OPEN"), uiPayload(3, QStringLiteral("P1")), 250),
        uiTicket(db, 4, kGroupB, QStringLiteral("globex"), QStringLiteral("OPEN"), uiPayload(4, QStringLiteral("P3")), 300),
        uiTicket(db, 5, kGroupB, QStringLiteral("globex"), QStringLiteral("OPEN"), uiPayload(5, QStringLiteral("P3")), 310),
        uiTicket(db, 6, kGroupC, QStringLiteral("acme"), QStringLiteral("OPEN"), uiPayload(6, QStringLiteral("P2")), 400),
        uiTicket(db, 7, kGroupC, QStringLiteral("acme"), QStringLiteral("CANCELLED"), uiPayload(7, QStringLiteral("P2")), 410),
        uiTicket(db, 8, QString(), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 500),
        uiTicket(db, 9, QStringLiteral("ticket:create:acme:single"), QStringLiteral("acme"), QStringLiteral("OPEN"), QStringLiteral("{}"), 510),
        insertRecord(db, kGroupA, 0, 3600),
        insertRecord(db, kGroupB, 0, 3600),
        insertRecord(db, kGroupC, 1, 3600),
    };
    for (const QString &e : errors)
        if (!e.isEmpty())
            return e;
    return {};
}

} // namespace triage::test
