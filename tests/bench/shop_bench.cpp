// triage-bench --shape shop: the console on the "shop" shape of tests/support/shop (other
// table and column names, text statuses in odd case and spacing compared case-folded,
// epoch-millisecond times, UUID order ids, JSONB payloads, a real tenant column; DESIGN.md
// §10) against the raw statements a DBA would write for the same answers on those tables,
// in one process and run. Fills its own PostgreSQL database with generate_series.
#include "BenchUtil.h"

#include "DemoData.h"
#include "Duplicates.h"
#include "KeyDetail.h"
#include "Queue.h"
#include "Schema.h"
#include "ShopShape.h"
#include "Workspace.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QUrl>

namespace triage::bench {

namespace {

/// Epoch milliseconds of a timestamptz expression (the shop's time columns).
QString ms(const QString &ts)
{
    return QStringLiteral("CAST(FLOOR(EXTRACT(EPOCH FROM (%1)) * 1000) AS bigint)").arg(ts);
}

void fill(QSqlDatabase &raw, qint64 rows)
{
    for (const QString &st : test::shopDdl(QStringLiteral("postgresql")))
        rawExec(raw, st);
    const QString keys = QStringLiteral(
        "(ARRAY['ticket:create:','pay:capture:','refund:issue:','notify:send:'])[1 + (g / 7) % 4] "
        "|| (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5] || ':' || md5(g::text)");
    const QString tenant = QStringLiteral("(ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5]");
    // The default schema's proportions (2 % stale PROCESSING, 1 % in flight), in the shop's
    // spellings: each status in two spellings the mapping folds together.
    rawExec(raw, QStringLiteral(
        "INSERT INTO idem_requests (request_key, kind, tenant, state, response_body, created_ms, updated_ms) "
        "SELECT %1, (ARRAY['ticket_create','payment_capture','refund_issue','notify_send'])[1 + (g / 7) %% 4], %2, "
        "       CASE WHEN g %% 50 = 0 THEN (CASE WHEN g %% 100 = 0 THEN 'pending ' ELSE 'PENDING' END) "
        "            WHEN g %% 100 = 1 THEN 'Pending' WHEN g %% 6 = 0 THEN 'ERROR' "
        "            WHEN g %% 2 = 0 THEN 'Done' ELSE 'DONE ' END, "
        "       CASE WHEN g %% 6 <> 0 AND g %% 50 <> 0 AND g %% 100 <> 1 THEN '{\"ticket_id\":\"' || md5(g::text)::uuid || '\"}' END, "
        "       %3, %4 "
        "FROM (SELECT g, now() - CASE WHEN g %% 50 = 0 THEN (900 + g %% 86400) * interval '1 second' "
        "                             WHEN g %% 100 = 1 THEN (g %% 100) * interval '1 second' "
        "                             ELSE (g %% (6 * 86400)) * interval '1 second' END AS ts "
        "      FROM generate_series(1, %5) g) s")
                     .replace(QStringLiteral("%%"), QStringLiteral("%"))
                     .arg(keys, tenant, ms(QStringLiteral("ts - interval '1 second'")), ms(QStringLiteral("ts")))
                     .arg(rows));
    rawExec(raw, QStringLiteral(
        "INSERT INTO agent_steps (job_id, step_name, op, request_key, step_state, req_json, resp_json, err_text, before_json, "
        "after_json, agent, created_ms, updated_ms) "
        "SELECT 'task_1', 'step_' || (g % 5), 'create_ticket', 'ticket:create:acme:' || md5('1'), "
        "       (ARRAY['timeout','reconcile','failed','timeout'])[1 + g % 4], '{\"title\":\"x\"}', NULL, "
        "       'timeout after 30000 ms', '{\"state\":\"pending\"}', NULL, 'agent-1', %1, %2 FROM generate_series(1, 1000) g")
                     .arg(ms(QStringLiteral("now() - g * interval '1 minute'")),
                          ms(QStringLiteral("now() - g * interval '1 minute' + interval '30 seconds'"))));
    rawExec(raw, QStringLiteral(
        "INSERT INTO orders (order_id, request_key, tenant, summary, order_state, body, placed_ms, changed_ms) "
        "SELECT md5('acme-' || g)::uuid, 'ticket:create:acme:' || md5('1'), 'acme', 'VPN outage', 'live', "
        "       '{\"ticket_id\":1}'::jsonb, %1, %1 FROM generate_series(1, 3) g").arg(ms(QStringLiteral("now()"))));
    rawExec(raw, QStringLiteral(
        "INSERT INTO orders (order_id, request_key, tenant, summary, order_state, body, placed_ms, changed_ms) "
        "SELECT md5(g::text)::uuid, %1, %2, 'ticket ' || g, 'live', "
        "       jsonb_build_object('ticket_id', md5(g::text)::uuid, 'title', 'ticket ' || g), %3, %3 "
        "FROM (SELECT g, now() - (g * 518400.0 / %4) * interval '1 second' AS ts FROM generate_series(1, %4) g) s")
                     .arg(keys, tenant, ms(QStringLiteral("ts"))).arg(rows));
    // 0.1 % of the keys get a second order 5-120 s later; one in three of those is voided.
    rawExec(raw, QStringLiteral(
        "INSERT INTO orders (order_id, request_key, tenant, summary, order_state, body, placed_ms, changed_ms) "
        "SELECT md5('retry-' || g)::uuid, %1, %2, 'ticket ' || g, CASE WHEN g % 3000 = 0 THEN 'voided' ELSE 'live' END, "
        "       jsonb_build_object('ticket_id', md5('retry-' || g)::uuid, 'title', 'ticket ' || g || ' (retry)'), "
        "       %3 + (5 + g % 116) * 1000, %3 + (5 + g % 116) * 1000 "
        "FROM (SELECT g, now() - (g * 518400.0 / %4) * interval '1 second' AS ts FROM generate_series(1000, %4, 1000) g) s")
                     .arg(keys, tenant, ms(QStringLiteral("ts"))).arg(rows));
    rawExec(raw, QStringLiteral("ANALYZE"));
}

} // namespace

int runShopBench(const QString &serverUrl, qint64 rows, int reps, const QString &jsonPath, bool refill, bool fillOnly)
{
    const QString dbName = QStringLiteral("triage_bench_shop_%1").arg(rows);
    const QUrl server(serverUrl);
    QSqlDatabase admin = openPg(server, QStringLiteral("shop-admin"), server.path().mid(1));
    const bool doFill = prepareDatabase(admin, dbName, refill);
    QUrl dbUrl = server;
    dbUrl.setPath(QLatin1Char('/') + dbName);
    WorkspaceConfig config = benchConfig(dbUrl);
    config.schema = test::shopSchemaMap(); // tests/support/shop/shop.ini, as the tests read it
    Workspace ws(config);
    QSqlDatabase raw = openPg(server, QStringLiteral("shop-raw"), dbName);
    rawExec(raw, QStringLiteral("SET TIME ZONE 'UTC'"));
    if (doFill) {
        QElapsedTimer t;
        t.start();
        std::printf("filling the shop shape: %lld requests ...\n", rows);
        std::fflush(stdout);
        fill(raw, rows);
        const auto s = initSchema(ws, SchemaOptions{false}).result();
        if (!s.ok())
            die(s.error->message);
        std::printf("filled in %.1f s\n", t.elapsed() / 1000.0);
    }
    if (fillOnly)
        return 0;

    QVector<Figure> figures;
    auto page = [&](QueueRequest req, QueueCursor cursor, int n) {
        const auto o = fetchQueuePage(ws, req, cursor, n).result();
        if (!o.ok())
            die(o.error->message);
        return *o;
    };
    const QString nowMs = QStringLiteral("(EXTRACT(EPOCH FROM now()) * 1000)");
    const QString stale = QStringLiteral(
        "upper(trim(state)) = 'PENDING' AND ((kind = 'notify_send' AND updated_ms < %1 - 120000) OR "
        "(kind = 'payment_capture' AND updated_ms < %1 - 600000) OR (kind = 'refund_issue' AND updated_ms < %1 - 600000) OR "
        "(kind = 'ticket_create' AND updated_ms < %1 - 300000) OR "
        "(kind NOT IN ('notify_send','payment_capture','refund_issue','ticket_create') AND updated_ms < %1 - 300000))")
                              .arg(nowMs);
    auto iso = [](const QString &col) {
        return QStringLiteral("to_char((TIMESTAMPTZ 'epoch' + %1 * INTERVAL '1 millisecond') AT TIME ZONE 'UTC', "
                              "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')").arg(col);
    };
    const QString cols = QStringLiteral("req_id, request_key, kind, state, %1, %2, EXTRACT(EPOCH FROM now()) - updated_ms / 1000.0")
                             .arg(iso(QStringLiteral("created_ms")), iso(QStringLiteral("updated_ms")));
    const QString intentPage = QStringLiteral(
        "SELECT l.step_pk, l.request_key, l.op, l.step_state, %1, %2, EXTRACT(EPOCH FROM now()) - l.updated_ms / 1000.0, "
        "l.job_id, l.step_name FROM agent_steps l WHERE l.step_state IN ('timeout', 'reconcile') AND l.request_key IS NOT NULL "
        "AND l.step_pk = (SELECT n.step_pk FROM agent_steps n WHERE n.request_key = l.request_key "
        "ORDER BY n.created_ms DESC, n.step_pk DESC LIMIT 1) "
        "AND NOT EXISTS (SELECT 1 FROM idem_requests r WHERE r.request_key = l.request_key AND upper(trim(r.state)) IN ('DONE', 'ERROR')) "
        "%3 ORDER BY l.updated_ms, l.step_pk LIMIT 50")
                                   .arg(iso(QStringLiteral("l.created_ms")), iso(QStringLiteral("l.updated_ms")));
    auto rawIntents = [&](const QString &extra) {
        auto q = rawExec(raw, QString(intentPage).replace(QStringLiteral("%3"), extra));
        drain(q);
    };
    QueueRequest unknown;
    unknown.kind = QueueKind::Unknown;
    {
        Figure f;
        f.name = QStringLiteral("shop unknown: first page (50)");
        f.consoleMs = medianMs(reps, [&] { page(unknown, {}, 50); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idem_requests WHERE %2 ORDER BY updated_ms, req_id LIMIT 50").arg(cols, stale));
            drain(q);
            rawIntents(QString());
        });
        figures << f;
    }
    {
        Figure f;
        f.name = QStringLiteral("shop unknown: count");
        f.consoleMs = medianMs(reps, [&] { (void)countQueue(ws, unknown).result(); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT COUNT(*) FROM idem_requests WHERE %1").arg(stale));
            drain(q);
            auto i = rawExec(raw, QStringLiteral("SELECT COUNT(*) FROM (%1) t")
                                      .arg(QString(intentPage).replace(QStringLiteral("%3"), QString()).replace(QStringLiteral(" LIMIT 50"), QString())));
            drain(i);
        });
        figures << f;
    }
    {
        QueueRequest req = unknown;
        req.filter.tenant = QStringLiteral("acme");
        Figure f;
        f.name = QStringLiteral("shop unknown: tenant column, first page");
        f.consoleMs = medianMs(reps, [&] { page(req, {}, 50); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idem_requests WHERE %2 AND tenant = 'acme' ORDER BY updated_ms, req_id LIMIT 50")
                                      .arg(cols, stale));
            drain(q);
            rawIntents(QStringLiteral("AND l.request_key LIKE '%:acme:%'"));
        });
        figures << f;
    }
    {
        QueueRequest req;
        req.kind = QueueKind::Succeeded;
        const QString success = QStringLiteral("upper(trim(state)) = 'DONE'");
        Figure first;
        first.name = QStringLiteral("shop succeeded: first page (50)");
        first.consoleMs = medianMs(reps, [&] { page(req, {}, 50); });
        first.rawMs = medianMs(reps, [&] {
            auto r = rawExec(raw, QStringLiteral("SELECT %1 FROM idem_requests WHERE %2 ORDER BY updated_ms, req_id LIMIT 50").arg(cols, success));
            drain(r);
        });
        figures << first;
        auto q = rawExec(raw, QStringLiteral("SELECT CAST(updated_ms AS text), req_id FROM idem_requests WHERE %1 "
                                             "ORDER BY updated_ms, req_id LIMIT 1 OFFSET 99999").arg(success));
        if (q.next()) {
            QueueCursor c;
            c.record.started = true;
            c.record.time = q.value(0).toString();
            c.record.id = q.value(1).toLongLong();
            c.intent.exhausted = true;
            Figure f;
            f.name = QStringLiteral("shop succeeded: page at row 100,000 (keyset)");
            f.consoleMs = medianMs(reps, [&] { page(req, c, 50); });
            f.rawMs = medianMs(reps, [&] {
                auto r = rawExec(raw, QStringLiteral("SELECT %1 FROM idem_requests WHERE %2 AND (updated_ms, req_id) > (%3, %4) "
                                                     "ORDER BY updated_ms, req_id LIMIT 50")
                                          .arg(cols, success, c.record.time).arg(c.record.id));
                drain(r);
            });
            figures << f;
        }
    }
    {
        const QString key = QStringLiteral("ticket:create:acme:") + QString::fromLatin1(QCryptographicHash::hash("1", QCryptographicHash::Md5).toHex());
        Figure f;
        f.name = QStringLiteral("shop detail + timeline (1,000 attempts)");
        int events = 0;
        f.consoleMs = medianMs(reps, [&] { events = loadKeyDetail(ws, key).result().timeline.size(); });
        f.rawMs = medianMs(reps, [&] {
            for (const QString &sql : {QStringLiteral("SELECT * FROM idem_requests WHERE request_key = '%1'"),
                                       QStringLiteral("SELECT * FROM orders WHERE request_key = '%1' ORDER BY placed_ms, order_id"),
                                       QStringLiteral("SELECT * FROM agent_steps WHERE request_key = '%1' ORDER BY created_ms, step_pk"),
                                       QStringLiteral("SELECT * FROM triage_audit WHERE idem_key = '%1' ORDER BY at, id")}) {
                auto a = rawExec(raw, sql.arg(key));
                drain(a);
            }
        });
        f.note = QStringLiteral("%1 timeline events").arg(events);
        figures << f;
    }
    {
        Figure f;
        f.name = QStringLiteral("shop duplicates: first page (50 groups)");
        DuplicatePage first;
        f.consoleMs = medianMs(reps, [&] {
            const auto o = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 50, kInteractivePageBudgetMs).result();
            if (!o.ok())
                die(o.error->message);
            first = *o;
        });
        const auto lower = parseUtcMicros(first.scannedTo.isEmpty() ? first.oldestAt : first.scannedTo);
        const auto upper = parseUtcMicros(first.newestAt);
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral(
                "SELECT t.request_key, COUNT(*), SUM(CASE WHEN t.order_state = 'voided' THEN 0 ELSE 1 END), MIN(t.placed_ms), "
                "MAX(t.placed_ms) FROM orders t JOIN (SELECT DISTINCT w.request_key FROM orders w WHERE w.request_key IS NOT NULL "
                "AND w.placed_ms >= %1 AND w.placed_ms <= %2) k ON t.request_key = k.request_key GROUP BY t.request_key "
                "HAVING COUNT(*) > 1 AND SUM(CASE WHEN t.order_state = 'voided' THEN 0 ELSE 1 END) > 1 AND MAX(t.placed_ms) >= %1 "
                "ORDER BY MAX(t.placed_ms) DESC, t.request_key DESC LIMIT 50")
                                      .arg(lower.value_or(0) / 1000)
                                      .arg(upper.value_or(0) / 1000));
            drain(q);
        });
        f.note = QStringLiteral("%1 groups in %2 windows").arg(first.groups.size()).arg(first.windows);
        figures << f;
    }
    const QJsonArray out = printFigures(figures);
    QJsonObject doc;
    doc[QStringLiteral("shape")] = QStringLiteral("shop");
    doc[QStringLiteral("rows")] = rows;
    doc[QStringLiteral("repetitions")] = reps;
    doc[QStringLiteral("figures")] = out;
    QFile f(jsonPath);
    if (f.open(QIODevice::WriteOnly))
        f.write(QJsonDocument(doc).toJson());
    std::printf("\nwrote %s\n", qPrintable(f.fileName()));
    return 0;
}

} // namespace triage::bench
