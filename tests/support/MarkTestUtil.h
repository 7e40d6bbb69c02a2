#pragma once

// Helpers shared by the mark tests: rows inserted by plain SQL (not the console's code),
// with times on the database server's own clock.
#include "ServerTime.h"
#include "TestDatabases.h"

#include <QString>

namespace triage::test {

/// Inserts an idempotency record updated `ageSeconds` ago. Returns the admin error text.
inline QString insertRecord(const TestDatabase &db, const QString &key, int status, int ageSeconds,
                            const QString &bizType = QStringLiteral("ticket_create"))
{
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
    return db.adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload, created_at, "
                                       "updated_at) VALUES (%1, '%2', 'acme', 'VPN outage', 'OPEN', '%3', %4, %4)")
                            .arg(id)
                            .arg(key, payload, serverNowMinus(db.backend(), 60)));
}

/// Inserts an intent-log attempt for `key` with `status`.
inline QString insertAttempt(const TestDatabase &db, const QString &key, const QString &status)
{
    return db.adminExec(QStringLiteral("INSERT INTO intent_log (task_id, step_id, action, idem_key, status, created_at, "
                                       "updated_at) VALUES ('task_1', 'step_1', 'create_ticket', '%1', '%2', %3, %3)")
                            .arg(key, status, serverNowMinus(db.backend(), 120)));
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

/// The first value of the admin query `sql` as a number (-1: no row).
inline int count(const TestDatabase &db, const QString &sql)
{
    const QStringList v = db.adminQueryColumn(sql);
    return v.isEmpty() ? -1 : v.first().toInt();
}

} // namespace triage::test
