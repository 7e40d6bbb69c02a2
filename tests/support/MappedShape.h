#pragma once

// A schema of another shape than the seeds' (DESIGN.md §10), created by the mark and
// duplicates tests themselves: other table and column names, text statuses with odd case and
// spaces (status_ignore_case), epoch-millisecond times, no expire_at and no version column.
// Rows are inserted through the admin connection (never through the console's code).
#include "TestDatabases.h"
#include "WorkspaceConfig.h"

#include <QString>
#include <QStringList>

namespace triage::test {

/// 2026-01-01T00:00:00.123Z in epoch milliseconds: old enough to be stale, exact to the ms.
constexpr qint64 kMappedMs = 1767225600123LL;

/// `config` reading the mapped shape: records in `idem_req`, attempts in `agent_step`,
/// tickets in `orders_t` (see createMappedTables()).
/// Record statuses (text, ignore case): PROCESSING "pending"; SUCCESS "Done", "ok";
/// FAILED "ERROR", "failed" (the first spelling is the one written). Intent statuses in
/// lower case (started, ok, failed, timeout, reconcile, escalated, compensated); the
/// cancelled ticket status is "voided". Every time column holds epoch milliseconds.
inline WorkspaceConfig mappedConfig(WorkspaceConfig config)
{
    RecordTableMap &r = config.schema.records;
    r.table = QStringLiteral("idem_req");
    r.id = QStringLiteral("rid");
    r.key = QStringLiteral("rkey");
    r.bizType = QStringLiteral("kind");
    r.status = QStringLiteral("state");
    r.snapshot = QStringLiteral("body");
    r.createdAt = QStringLiteral("created_ms");
    r.updatedAt = QStringLiteral("updated_ms");
    r.expireAt.clear();
    r.version.clear();
    r.statuses.text = true;
    r.statuses.ignoreCase = true;
    r.statuses.spellings = {{QStringLiteral("PROCESSING"), {QStringLiteral("pending")}},
                            {QStringLiteral("SUCCESS"), {QStringLiteral("Done"), QStringLiteral("ok")}},
                            {QStringLiteral("FAILED"), {QStringLiteral("ERROR"), QStringLiteral("failed")}}};
    r.time.encoding = TimeEncoding::EpochMillis;

    IntentTableMap &i = config.schema.intents;
    i.table = QStringLiteral("agent_step");
    i.id = QStringLiteral("sid");
    i.taskId = QStringLiteral("job");
    i.stepId = QStringLiteral("step");
    i.action = QStringLiteral("op");
    i.key = QStringLiteral("rkey");
    i.status = QStringLiteral("st");
    i.request = QStringLiteral("req");
    i.response = QStringLiteral("resp");
    i.error = QStringLiteral("err");
    i.stateBefore = QStringLiteral("before_j");
    i.stateAfter = QStringLiteral("after_j");
    i.actor = QStringLiteral("who");
    i.createdAt = QStringLiteral("created_ms");
    i.updatedAt = QStringLiteral("updated_ms");
    i.statuses.text = true;
    i.statuses.ignoreCase = false;
    i.statuses.spellings = {{QStringLiteral("INTENT"), {QStringLiteral("started")}},
                            {QStringLiteral("SUCCEEDED"), {QStringLiteral("ok")}},
                            {QStringLiteral("FAILED"), {QStringLiteral("failed")}},
                            {QStringLiteral("UNKNOWN"), {QStringLiteral("timeout")}},
                            {QStringLiteral("RECONCILE_PENDING"), {QStringLiteral("reconcile")}},
                            {QStringLiteral("ESCALATED"), {QStringLiteral("escalated")}},
                            {QStringLiteral("COMPENSATED"), {QStringLiteral("compensated")}}};
    i.time.encoding = TimeEncoding::EpochMillis;

    TicketTableMap &t = config.schema.tickets;
    t.table = QStringLiteral("orders_t");
    t.id = QStringLiteral("oid");
    t.key = QStringLiteral("rkey");
    t.tenant = QStringLiteral("tenant");
    t.title = QStringLiteral("summary");
    t.status = QStringLiteral("ostate");
    t.payload = QStringLiteral("body");
    t.createdAt = QStringLiteral("placed_ms");
    t.updatedAt = QStringLiteral("changed_ms");
    t.statuses.text = true;
    t.statuses.ignoreCase = false;
    t.statuses.spellings = {{QStringLiteral("CANCELLED"), {QStringLiteral("voided")}}};
    t.time.encoding = TimeEncoding::EpochMillis;
    return config;
}

/// Creates the three tables of mappedConfig() in `db` (no unique index on orders_t.rkey: the
/// backstop is missing, as where duplicates happen). Returns the first error text.
inline QString createMappedTables(const TestDatabase &db)
{
    const QString d = db.dialect();
    const QString autoId = d == QLatin1String("postgresql") ? QStringLiteral("BIGSERIAL PRIMARY KEY")
        : d == QLatin1String("mysql")                       ? QStringLiteral("BIGINT AUTO_INCREMENT PRIMARY KEY")
                                                            : QStringLiteral("INTEGER PRIMARY KEY AUTOINCREMENT");
    const QString text = d == QLatin1String("mysql") ? QStringLiteral("LONGTEXT") : QStringLiteral("TEXT");
    const QStringList ddl = {
        QStringLiteral("CREATE TABLE idem_req (rid %1, rkey VARCHAR(64) NOT NULL UNIQUE, kind VARCHAR(32) NOT NULL, "
                       "state VARCHAR(16) NOT NULL, body %2, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)")
            .arg(autoId, text),
        QStringLiteral("CREATE TABLE agent_step (sid %1, job VARCHAR(64), step VARCHAR(64), op VARCHAR(64), rkey VARCHAR(64), "
                       "st VARCHAR(24), req %2, resp %2, err %2, before_j %2, after_j %2, who VARCHAR(64), "
                       "created_ms BIGINT, updated_ms BIGINT)")
            .arg(autoId, text),
        QStringLiteral("CREATE TABLE orders_t (oid BIGINT PRIMARY KEY, rkey VARCHAR(64), tenant VARCHAR(64), "
                       "summary VARCHAR(255), ostate VARCHAR(16), body %1, placed_ms BIGINT NOT NULL, changed_ms BIGINT)")
            .arg(text),
        QStringLiteral("CREATE INDEX orders_t_placed ON orders_t (placed_ms, oid)"),
        QStringLiteral("CREATE INDEX orders_t_rkey ON orders_t (rkey)"),
    };
    for (const QString &sql : ddl)
        if (const QString e = db.adminExec(sql); !e.isEmpty())
            return e + QStringLiteral(" in: ") + sql;
    return {};
}

/// SQL string literal with quotes doubled (backslashes doubled on MariaDB), or NULL.
inline QString mappedText(const TestDatabase &db, const std::optional<QString> &v)
{
    if (!v)
        return QStringLiteral("NULL");
    QString s = *v;
    if (db.dialect() == QLatin1String("mysql"))
        s.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    return QLatin1Char('\'') + s.replace(QLatin1Char('\''), QStringLiteral("''")) + QLatin1Char('\'');
}

/// Inserts a record of the mapped shape: `state` exactly as stored ("pending ", "Done"),
/// created and updated at `ms` (epoch milliseconds). Returns the admin error text.
inline QString insertMappedRecord(const TestDatabase &db, const QString &key, const QString &state, qint64 ms = kMappedMs,
                                  const std::optional<QString> &body = std::nullopt,
                                  const QString &kind = QStringLiteral("ticket_create"))
{
    return db.adminExec(QStringLiteral("INSERT INTO idem_req (rkey, kind, state, body, created_ms, updated_ms) "
                                       "VALUES (%1, %2, %3, %4, %5, %5)")
                            .arg(mappedText(db, key), mappedText(db, kind), mappedText(db, state), mappedText(db, body))
                            .arg(ms));
}

/// Inserts a ticket of the mapped shape (order `id`, placed at `ms`).
inline QString insertMappedTicket(const TestDatabase &db, qint64 id, const std::optional<QString> &key, const QString &tenant,
                                  const QString &state, const QString &body, qint64 ms = kMappedMs)
{
    return db.adminExec(QStringLiteral("INSERT INTO orders_t (oid, rkey, tenant, summary, ostate, body, placed_ms, changed_ms) "
                                       "VALUES (%1, %2, %3, 'VPN outage', %4, %5, %6, %6)")
                            .arg(id)
                            .arg(mappedText(db, key), mappedText(db, tenant), mappedText(db, state), mappedText(db, body))
                            .arg(ms));
}

/// Inserts an attempt of the mapped shape (status `st` as stored, at `ms`).
inline QString insertMappedAttempt(const TestDatabase &db, const QString &job, const QString &step, const QString &key,
                                   const QString &st, qint64 ms = kMappedMs)
{
    return db.adminExec(QStringLiteral("INSERT INTO agent_step (job, step, op, rkey, st, who, created_ms, updated_ms) "
                                       "VALUES (%1, %2, 'create_ticket', %3, %4, 'agent-1', %5, %5)")
                            .arg(mappedText(db, job), mappedText(db, step), mappedText(db, key), mappedText(db, st))
                            .arg(ms));
}

} // namespace triage::test
