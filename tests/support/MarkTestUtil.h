#pragma once

// Helpers shared by the mark tests: rows inserted by plain SQL (not the console's code),
// with times on the database server's own clock; on a "<backend>/shop" row the same logical
// rows in the shop shape (ShopShape.h, through BackendTestUtil's insert*()).
#include "BackendTestUtil.h"
#include "ServerTime.h"
#include "TestDatabases.h"

#include <QString>

namespace triage::test {

/// Inserts an idempotency record updated `ageSeconds` ago. Returns the admin error text.
inline QString insertRecord(const TestDatabase &db, const QString &key, int status, int ageSeconds,
                            const QString &bizType = QStringLiteral("ticket_create"))
{
    if (db.isShop()) {
        RecordSpec r;
        r.key = key;
        r.bizType = bizType;
        r.status = QString::number(status);
        r.updated = serverNowMinus(db.backend(), ageSeconds);
        return insertRecords(db, {r});
    }
    const QString t = serverNowMinus(db.backend(), ageSeconds);
    return db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                       "expire_at) VALUES ('%1', '%2', %3, %4, %4, %5)")
                            .arg(key, bizType)
                            .arg(status)
                            .arg(t, serverNowMinus(db.backend(), -7 * 86400)));
}

/// Inserts a ticket row carrying `key`.
inline QString insertTicket(const TestDatabase &db, qint64 id, const QString &key, const QString &payload)
{
    if (db.isShop()) {
        TicketSpec t;
        t.id = id;
        t.key = key;
        t.tenant = QStringLiteral("acme");
        t.title = QStringLiteral("VPN outage");
        t.payload = payload;
        t.created = serverNowMinus(db.backend(), 60);
        return insertTickets(db, {t});
    }
    return db.adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload, created_at, "
                                       "updated_at) VALUES (%1, '%2', 'acme', 'VPN outage', 'OPEN', '%3', %4, %4)")
                            .arg(id)
                            .arg(key, payload, serverNowMinus(db.backend(), 60)));
}

/// Inserts an intent-log attempt for `key` with `status`.
inline QString insertAttempt(const TestDatabase &db, const QString &key, const QString &status)
{
    if (db.isShop()) {
        IntentSpec a;
        a.key = key;
        a.status = status;
        a.actor = std::nullopt;
        a.created = serverNowMinus(db.backend(), 120);
        return insertIntents(db, {a});
    }
    return db.adminExec(QStringLiteral("INSERT INTO intent_log (task_id, step_id, action, idem_key, status, created_at, "
                                       "updated_at) VALUES ('task_1', 'step_1', 'create_ticket', '%1', '%2', %3, %3)")
                            .arg(key, status, serverNowMinus(db.backend(), 120)));
}

/// The record statuses exactly as stored, by key (admin query on the shape's record table).
inline QStringList storedStatuses(const TestDatabase &db)
{
    return db.adminQueryColumn(db.isShop() ? QStringLiteral("SELECT state FROM idem_requests ORDER BY request_key")
                                           : QStringLiteral("SELECT status FROM idempotency_record ORDER BY idem_key"));
}

/// "<key>:<status as stored>" for every record, by key.
inline QStringList storedKeyStatuses(const TestDatabase &db)
{
    const bool my = db.dialect() == QLatin1String("mysql");
    const QString key = db.isShop() ? QStringLiteral("request_key") : QStringLiteral("idem_key");
    const QString status = db.isShop() ? QStringLiteral("state") : QStringLiteral("status");
    const QString both = my ? QStringLiteral("CONCAT(%1, ':', %2)").arg(key, status) : QStringLiteral("%1 || ':' || %2").arg(key, status);
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM %2 ORDER BY %3")
                                   .arg(both, db.isShop() ? QStringLiteral("idem_requests") : QStringLiteral("idempotency_record"), key));
}

/// What storedStatuses() shows for `codes` (the default shape's stored codes "0", "1", "2"):
/// the codes themselves, or on a shop row the spellings the shop rows hold ("pending " as
/// inserted, "Done" as inserted, "ERROR" as inserted and as the console writes FAILED).
inline QStringList stored(const TestDatabase &db, const QStringList &codes)
{
    if (!db.isShop())
        return codes;
    QStringList out;
    for (const QString &c : codes)
        out << (c == QLatin1String("0") ? QStringLiteral("pending ") : c == QLatin1String("1") ? QStringLiteral("Done")
                    : c == QLatin1String("2")                       ? QStringLiteral("ERROR")
                                                                    : c);
    return out;
}

/// The record's updated time as stored (admin query).
inline QString storedUpdatedAt(const TestDatabase &db)
{
    return db.adminQueryColumn(db.isShop() ? QStringLiteral("SELECT updated_ms FROM idem_requests")
                                           : QStringLiteral("SELECT updated_at FROM idempotency_record"))
        .value(0);
}

} // namespace triage::test

#include "WorkspaceConfig.h"

namespace triage::test {

/// Records an upstream answer for `key` as `triagectl query` would: a `query_upstream` row
/// of triage_audit with `classification` ("NOT_FOUND", "FOUND", …) recorded `ageSeconds`
/// ago on the server's clock. Returns the admin error text.
inline QString insertUpstreamAnswer(const TestDatabase &db, const QString &key, const QString &classification, int ageSeconds)
{
    return db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, reason, evidence, "
                                       "outcome, detail) VALUES ('q-%1-%2', %3, 'alice', 'query_upstream', '%4', 'upstream %2', "
                                       "'{\"evidence\":{\"classification\":\"%2\"},\"verdict\":{}}', 'recorded', 'test answer')")
                            .arg(QString::number(qHash(key + QString::number(ageSeconds))), classification,
                                 serverNowMinus(db.backend(), ageSeconds), key));
}

/// `config` where ticket_create (insertRecord()'s default biz_type) declares
/// `failed_evidence = ticket_absent`: its side effect is the ticket row, so stale and no
/// ticket proves absence (DESIGN.md §6). For tests about the compare-and-set itself.
inline WorkspaceConfig ticketAbsentConfig(WorkspaceConfig config)
{
    BizTypeConfig b = config.bizType(QStringLiteral("ticket_create"));
    b.failedEvidence = FailedEvidence::TicketAbsent;
    config.bizTypes.insert(QStringLiteral("ticket_create"), b);
    return config;
}

} // namespace triage::test

#include "Mark.h"
#include "RecordStatus.h"
#include "ShapeExpect.h"

namespace triage::test {

/// The exact payload of the mark tests' SUCCESS snapshots (a number past double precision).
inline const QString kPayload = QStringLiteral("{\"ticket_id\":41,\"status\":\"OPEN\",\"amount\":12345678901234567890}");

/// A mark of `key` to `to` by alice with `reason`; SUCCESS carries kPayload from ticket 41.
inline MarkRequest request(const QString &key, RecordStatusCode to, const QString &reason = QStringLiteral("verified in upstream console"))
{
    MarkRequest r;
    r.idemKey = key;
    r.toStatus = to;
    r.reason = reason;
    r.operatorName = QStringLiteral("alice");
    if (to == Success) {
        r.snapshot = kPayload;
        r.snapshotSource = QStringLiteral("ticket:41");
    }
    return r;
}

/// kPayload as ticket 41 of `db`'s shape carries it: its `ticket_id` names the ticket with
/// that table's own id (ShapeExpect.h: 41 on the default schema, the UUID order id on a shop
/// row), so the canonical-ticket rule recognises it on both shapes.
inline QString payloadOf(const TestDatabase &db)
{
    QString p = kPayload;
    return p.replace(QStringLiteral("\"ticket_id\":41"), QStringLiteral("\"ticket_id\":") + ticketIdLiteral(db, 41));
}

/// request() on `db`'s shape: a SUCCESS carries payloadOf(db) from "ticket:<ticketIdText(41)>".
inline MarkRequest request(const TestDatabase &db, const QString &key, RecordStatusCode to,
                           const QString &reason = QStringLiteral("verified in upstream console"))
{
    MarkRequest r = request(key, to, reason);
    if (to == Success) {
        r.snapshot = payloadOf(db);
        r.snapshotSource = QStringLiteral("ticket:") + ticketIdText(db, 41);
    }
    return r;
}

/// The first value of the admin query `sql` as a number (-1: no row).
inline int count(const TestDatabase &db, const QString &sql)
{
    const QStringList v = db.adminQueryColumn(sql);
    return v.isEmpty() ? -1 : v.first().toInt();
}

} // namespace triage::test
