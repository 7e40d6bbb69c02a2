#pragma once

// A mapped schema unlike the default one (DESIGN.md §10), created by the tests of the read
// paths (queues, detail) in their own database, so every statement is seen to follow the
// mapping and not today's names:
// - "IdemRecs" (mixed case: quoted names): rid = id, rkey = idem_key, no biz_type column
//   (every row is biz_type "shop_order"), a real tenant column, "State" = status as text with
//   odd case and spaces (status_ignore_case; PROCESSING = PENDING, SUCCESS = DONE or OK,
//   FAILED = ERROR), snap = result_snapshot, c_ms / u_ms epoch milliseconds, no expire_at,
//   rev = version;
// - "agent_steps": the intent log under other names, lower-case status spellings (exact
//   case), native times (so the Unknown queue merges two tables that keep time differently);
// - "orders": the business table with no title and no updated_at, status order_state
//   ("live", cancelled = "voided"), epoch-millisecond placed_ms.
// Rows are written through the admin connection, never through the console's code.

#include "BackendTestUtil.h"
#include "SchemaMap.h"
#include "TimeText.h"

#include <QFile>
#include <QSettings>
#include <QTemporaryDir>

#include <optional>

namespace triage::test::odd {

inline bool isPg(const TestDatabase &db) { return db.dialect() == QLatin1String("postgresql"); }
inline bool isMy(const TestDatabase &db) { return db.dialect() == QLatin1String("mysql"); }

/// The three map sections of the shape, as a config file holds them.
inline QByteArray mapIni()
{
    return "[idempotency.map]\n"
           "table=IdemRecs\nid=rid\nidem_key=rkey\nbiz_type=\nbiz_type_value=shop_order\n"
           "status=State\nstatus_type=text\nstatus_ignore_case=true\n"
           "status_processing=PENDING\nstatus_success=DONE, OK\nstatus_failed=ERROR\n"
           "result_snapshot=snap\ncreated_at=c_ms\nupdated_at=u_ms\nexpire_at=\nversion=rev\ntenant=tenant\n"
           "time=epoch_ms\n"
           "[intent.map]\n"
           "table=agent_steps\nid=step_pk\ntask_id=job_id\nstep_id=step_name\naction=op\nidem_key=request_key\n"
           "status=step_state\nstatus_intent=started\nstatus_succeeded=ok\nstatus_failed=failed\n"
           "status_unknown=timeout\nstatus_reconcile_pending=reconcile\nstatus_escalated=escalated\n"
           "status_compensated=compensated\nrequest=req_json\nresponse=resp_json\nerror=err_text\n"
           "state_before=before_json\nstate_after=after_json\nactor=agent\ncreated_at=started_at\n"
           "updated_at=changed_at\n"
           "[ticket.map]\n"
           "table=orders\nid=order_id\nidem_key=request_key\ntenant_id=shop\ntitle=\nstatus=order_state\n"
           "status_cancelled=voided\npayload=body\ncreated_at=placed_ms\nupdated_at=\ntime=epoch_ms\n";
}

/// mapIni() read by SchemaMap::fromSettings() (a parse failure is a fatal test error).
inline SchemaMap schemaMap()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("map.ini"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(mapIni()) < 0)
        qFatal("cannot write %s", qPrintable(path));
    f.close();
    QSettings s(path, QSettings::IniFormat);
    QString error;
    const auto m = SchemaMap::fromSettings(s, &error);
    if (!m)
        qFatal("odd shape map: %s", qPrintable(error));
    return *m;
}

/// `db`'s workspace config with the shape's mapping and biz_type "shop_order" timing out
/// after `timeoutS`, its tenant pattern "s:{tenant}" (used by intent steps only: the records
/// have a tenant column).
inline WorkspaceConfig config(const TestDatabase &db, int timeoutS = 60)
{
    WorkspaceConfig c = db.config();
    c.schema = schemaMap();
    c.bizTypes.insert(QStringLiteral("shop_order"), BizTypeConfig{timeoutS, QStringLiteral("s:{tenant}")});
    return c;
}

/// `name` quoted for the admin's SQL on `db`.
inline QString q(const TestDatabase &db, const QString &name)
{
    return isMy(db) ? QLatin1Char('`') + name + QLatin1Char('`') : QLatin1Char('"') + name + QLatin1Char('"');
}

/// Creates the three tables. Returns the error text (empty on success).
inline QString create(const TestDatabase &db)
{
    const QString id = isPg(db) ? QStringLiteral("BIGSERIAL PRIMARY KEY")
        : isMy(db)              ? QStringLiteral("BIGINT AUTO_INCREMENT PRIMARY KEY")
                                : QStringLiteral("INTEGER PRIMARY KEY AUTOINCREMENT");
    const QString text = isMy(db) ? QStringLiteral("LONGTEXT") : QStringLiteral("TEXT");
    const QString time = isPg(db) ? QStringLiteral("TIMESTAMPTZ") : isMy(db) ? QStringLiteral("DATETIME(6)") : QStringLiteral("TEXT");
    const QStringList ddl = {
        QStringLiteral("CREATE TABLE %1 (rid %2, rkey VARCHAR(64) NOT NULL UNIQUE, tenant VARCHAR(64), %3 VARCHAR(16), "
                       "snap %4, c_ms BIGINT NOT NULL, u_ms BIGINT NOT NULL, rev BIGINT)")
            .arg(q(db, QStringLiteral("IdemRecs")), id, q(db, QStringLiteral("State")), text),
        QStringLiteral("CREATE TABLE agent_steps (step_pk %1, job_id VARCHAR(64), step_name VARCHAR(64), op VARCHAR(64), "
                       "request_key VARCHAR(64), step_state VARCHAR(24), req_json %2, resp_json %2, err_text %2, "
                       "before_json %2, after_json %2, agent VARCHAR(64), started_at %3 NOT NULL, changed_at %3 NOT NULL)")
            .arg(id, text, time),
        QStringLiteral("CREATE TABLE orders (order_id BIGINT PRIMARY KEY, request_key VARCHAR(64), shop VARCHAR(64), "
                       "order_state VARCHAR(16), body %1, placed_ms BIGINT NOT NULL)")
            .arg(text),
    };
    for (const QString &s : ddl)
        if (const QString e = db.adminExec(s); !e.isEmpty())
            return e + QStringLiteral(" in: ") + s;
    return {};
}

/// Epoch milliseconds of second `s` after 2020-01-01T00:00:00Z plus `ms`.
inline qint64 fixedMs(int s, int ms = 0)
{
    return *parseUtcMicros(QStringLiteral("2020-01-01T00:00:00Z")) / 1000 + qint64(s) * 1000 + ms;
}

/// fixedMs(s, ms) as canonical ISO UTC text ("2020-01-01T00:00:05.000000Z").
inline QString fixedIso(int s, int ms = 0)
{
    return formatUtcMicros(fixedMs(s, ms) * 1000);
}

/// SQL expression: the server's UTC now as epoch milliseconds minus `ms`.
inline QString nowMinusMs(const TestDatabase &db, qint64 ms)
{
    if (isPg(db))
        return QStringLiteral("(CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) - %1)").arg(ms);
    if (isMy(db))
        return QStringLiteral("(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 - %1)").arg(ms);
    return QStringLiteral("(CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) - %1)").arg(ms);
}

/// One IdemRecs row (NULL where nullopt); times are SQL expressions (numbers or nowMinusMs()).
struct Rec {
    qint64 id = 0;
    QString key;
    std::optional<QString> tenant = QStringLiteral("acme");
    std::optional<QString> state = QStringLiteral("PENDING");
    std::optional<QString> snap;
    QString createdMs, updatedMs; ///< empty createdMs copies updatedMs
    std::optional<qint64> rev;
};

inline QString insertRecs(const TestDatabase &db, const QVector<Rec> &rows)
{
    QStringList values;
    for (const Rec &r : rows)
        values << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8)")
                      .arg(QString::number(r.id), textLiteral(db, r.key), textLiteral(db, r.tenant), textLiteral(db, r.state),
                           textLiteral(db, r.snap), r.createdMs.isEmpty() ? r.updatedMs : r.createdMs, r.updatedMs,
                           r.rev ? QString::number(*r.rev) : QStringLiteral("NULL"));
    return db.adminExec(QStringLiteral("INSERT INTO %1 (rid, rkey, tenant, %2, snap, c_ms, u_ms, rev) VALUES ")
                            .arg(q(db, QStringLiteral("IdemRecs")), q(db, QStringLiteral("State")))
                        + values.join(QStringLiteral(", ")));
}

/// One agent_steps row; times are SQL expressions of the native column type (timeLiteral(),
/// serverAgo()); an empty `changed` copies `started`.
struct Step {
    qint64 id = 0;
    std::optional<QString> key, state = QStringLiteral("timeout"), job = QStringLiteral("job-1"),
                                step = QStringLiteral("s1"), op = QStringLiteral("place_order"), req, resp, err, before,
                                after, agent = QStringLiteral("agent-7");
    QString started, changed;
};

inline QString insertSteps(const TestDatabase &db, const QVector<Step> &rows)
{
    QStringList values;
    for (const Step &s : rows)
        values << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14)")
                      .arg(QString::number(s.id), textLiteral(db, s.job), textLiteral(db, s.step), textLiteral(db, s.op),
                           textLiteral(db, s.key), textLiteral(db, s.state), textLiteral(db, s.req), textLiteral(db, s.resp),
                           textLiteral(db, s.err), textLiteral(db, s.before), textLiteral(db, s.after),
                           textLiteral(db, s.agent), s.started, s.changed.isEmpty() ? s.started : s.changed);
    return db.adminExec(QStringLiteral("INSERT INTO agent_steps (step_pk, job_id, step_name, op, request_key, step_state, "
                                       "req_json, resp_json, err_text, before_json, after_json, agent, started_at, changed_at) "
                                       "VALUES ")
                        + values.join(QStringLiteral(", ")));
}

/// One orders row.
struct Order {
    qint64 id = 0;
    std::optional<QString> key, shop = QStringLiteral("acme"), state = QStringLiteral("live"), body;
    qint64 placedMs = 0;
};

inline QString insertOrders(const TestDatabase &db, const QVector<Order> &rows)
{
    QStringList values;
    for (const Order &o : rows)
        values << QStringLiteral("(%1, %2, %3, %4, %5, %6)")
                      .arg(QString::number(o.id), textLiteral(db, o.key), textLiteral(db, o.shop), textLiteral(db, o.state),
                           textLiteral(db, o.body), QString::number(o.placedMs));
    return db.adminExec(QStringLiteral("INSERT INTO orders (order_id, request_key, shop, order_state, body, placed_ms) VALUES ")
                        + values.join(QStringLiteral(", ")));
}

} // namespace triage::test::odd
