// triage-bench: measures the console's database operations against the same SQL run raw
// through the same Qt driver, in one process and one run. Fills a PostgreSQL
// database itself with generate_series (minutes, not hours). Prints a table and writes a
// JSON file with every figure. Medians of --reps repetitions; ratios console / raw.
#include "BenchUtil.h"
#include "DemoWorkspace.h"
#include "Duplicates.h"
#include "KeyDetailView.h"
#include "Log.h"
#include "QueueModel.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "DbSession.h"
#include "Workspace.h"
#include "Schema.h"
#include "Queue.h"
#include "KeyDetail.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTableView>
#include <QTimer>
#include <QCryptographicHash>
#include <QSqlRecord>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace triage;

using namespace triage::bench;

int main(int argc, char **argv)
{
    // Widgets for the GUI-gap probe; offscreen unless a platform was chosen.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-bench"));
    spdlog::set_level(spdlog::level::warn);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Benchmarks Triage Console's queries against raw SQL on PostgreSQL."));
    p.addHelpOption();
    p.addOptions({
        serverOption(),
        {QStringLiteral("rows"), QStringLiteral("Idempotency records to generate (default 1000000)."), QStringLiteral("N"), QStringLiteral("1000000")},
        {QStringLiteral("reps"), QStringLiteral("Repetitions per measurement (median; default 7)."), QStringLiteral("N"), QStringLiteral("7")},
        {QStringLiteral("json"), QStringLiteral("Write every figure to this JSON file (default bench-results.json)."), QStringLiteral("FILE"), QStringLiteral("bench-results.json")},
        {QStringLiteral("refill"), QStringLiteral("Drop and refill the benchmark database even if it exists.")},
        {QStringLiteral("fill-only"), QStringLiteral("Fill (or keep) the benchmark database and exit without measuring.")},
        {QStringLiteral("bulk"), QStringLiteral("Records in the bulk compare-and-set measurement (default 10000)."), QStringLiteral("N"), QStringLiteral("10000")},
        {QStringLiteral("only-bulk"), QStringLiteral("Measure only the bulk compare-and-set (and its raw batches).")},
        {QStringLiteral("shape"), QStringLiteral("default, or shop: the \"shop\" shape of tests/support/shop (other names, text statuses, epoch ms, UUID ids; DESIGN.md §10) in its own database."),
         QStringLiteral("NAME"), QStringLiteral("default")},
        {QStringLiteral("model-rows"), QStringLiteral("Rows the queue model pages through for the memory / GUI-gap figures (default 100000; 0 = skip)."),
         QStringLiteral("N"), QStringLiteral("100000")},
    });
    p.process(app);
    const QString serverUrl = benchServer(p);
    const qint64 rows = p.value(QStringLiteral("rows")).toLongLong();
    const int reps = qMax(1, p.value(QStringLiteral("reps")).toInt());
    const int bulk = p.value(QStringLiteral("bulk")).toInt();
    const bool onlyBulk = p.isSet(QStringLiteral("only-bulk"));
    if (p.value(QStringLiteral("shape")) == QLatin1String("shop"))
        return runShopBench(serverUrl, rows, reps, p.value(QStringLiteral("json")), p.isSet(QStringLiteral("refill")),
                            p.isSet(QStringLiteral("fill-only")));
    if (p.value(QStringLiteral("shape")) != QLatin1String("default"))
        die(QStringLiteral("--shape must be default or shop"));
    const QString dbName = QStringLiteral("triage_bench_%1").arg(rows);

    // Admin connection: create the database.
    const QUrl server(serverUrl);
    QSqlDatabase admin = openPg(server, QStringLiteral("admin"), server.path().mid(1));
    const bool fill = prepareDatabase(admin, dbName, p.isSet(QStringLiteral("refill")));
    QUrl dbUrl = server;
    dbUrl.setPath(QLatin1Char('/') + dbName);
    const WorkspaceConfig config = benchConfig(dbUrl);
    Workspace ws(config);

    QSqlDatabase raw = openPg(server, QStringLiteral("raw"), dbName);
    rawExec(raw, QStringLiteral("SET TIME ZONE 'UTC'"));

    if (fill) {
        QElapsedTimer t;
        t.start();
        const auto s = initSchema(ws, SchemaOptions{false}).result();
        if (!s.ok())
            die(s.error->message);
        std::printf("filling %lld records (2%% stale PROCESSING, 1%% in flight) ...\n", rows);
        std::fflush(stdout);
        // Keys follow the demo's tenant patterns; the tenant filter is a key prefix.
        rawExec(raw, QStringLiteral(
            "INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, created_at, updated_at, expire_at) "
            "SELECT (ARRAY['ticket:create:','pay:capture:','refund:issue:','notify:send:'])[1 + (g / 7) % 4] "
            "       || (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5] || ':' || md5(g::text), "
            "       (ARRAY['ticket_create','payment_capture','refund_issue','notify_send'])[1 + (g / 7) % 4], "
            "       CASE WHEN g % 50 = 0 THEN 0 WHEN g % 100 = 1 THEN 0 WHEN g % 6 = 0 THEN 2 ELSE 1 END, "
            "       CASE WHEN g % 6 <> 0 AND g % 50 <> 0 AND g % 100 <> 1 THEN '{\"ticket_id\":' || g || '}' END, "
            "       ts - interval '1 second', ts, ts + interval '7 days' "
            "FROM (SELECT g, now() - CASE WHEN g % 50 = 0 THEN (900 + g % 86400) * interval '1 second' "
            "                             WHEN g % 100 = 1 THEN (g % 100) * interval '1 second' "
            "                             ELSE (g % (6 * 86400)) * interval '1 second' END AS ts "
            "      FROM generate_series(1, %1) g) s").arg(rows));
        // One key with 1,000 intent-log attempts and a few tickets (detail + timeline).
        rawExec(raw, QStringLiteral(
            "INSERT INTO intent_log (task_id, step_id, action, idem_key, status, request, response, error, state_before, "
            "state_after, actor, created_at, updated_at) "
            "SELECT 'task_1', 'step_' || (g % 5), 'create_ticket', 'ticket:create:acme:' || md5('1'), "
            "       (ARRAY['UNKNOWN','RECONCILE_PENDING','FAILED','UNKNOWN'])[1 + g % 4], '{\"title\":\"x\"}', NULL, "
            "       'timeout after 30000 ms', '{\"state\":\"pending\"}', NULL, 'agent-1', now() - g * interval '1 minute', "
            "       now() - g * interval '1 minute' + interval '30 seconds' FROM generate_series(1, 1000) g"));
        rawExec(raw, QStringLiteral(
            "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
            "SELECT 'ticket:create:acme:' || md5('1'), 'acme', 'VPN outage', 'OPEN', '{\"ticket_id\":1}', now(), now() "
            "FROM generate_series(1, 3)"));
        // One ticket per record key (created over the same 6 days, newest for small g), and
        // for 0.1 % of the keys a second ticket 5-120 s later (a retry that went through
        // twice): duplicate groups over `rows` tickets with 0.1 % duplicated keys.
        rawExec(raw, QStringLiteral(
            "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
            "SELECT (ARRAY['ticket:create:','pay:capture:','refund:issue:','notify:send:'])[1 + (g / 7) % 4] "
            "       || (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5] || ':' || md5(g::text), "
            "       (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5], 'ticket ' || g, 'OPEN', "
            "       '{\"ticket_id\":' || g || ',\"title\":\"ticket ' || g || '\"}', ts, ts "
            "FROM (SELECT g, now() - (g * 518400.0 / %1) * interval '1 second' AS ts FROM generate_series(1, %1) g) s").arg(rows));
        rawExec(raw, QStringLiteral(
            "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
            "SELECT idem_key, tenant_id, title, CASE WHEN id % 3000 = 0 THEN 'CANCELLED' ELSE 'OPEN' END, "
            "       replace(payload, '\"}', ' (retry)\"}'), created_at + (5 + id % 116) * interval '1 second', "
            "       created_at + (5 + id % 116) * interval '1 second' "
            "FROM ticket WHERE id % 1000 = 0 AND idem_key <> 'ticket:create:acme:' || md5('1')"));
        rawExec(raw, QStringLiteral("ANALYZE"));
        std::printf("filled in %.1f s\n", t.elapsed() / 1000.0);
    }

    if (p.isSet(QStringLiteral("fill-only")))
        return 0;

    QVector<Figure> figures;
    auto page = [&](QueueRequest req, QueueCursor cursor, int n) {
        const auto o = fetchQueuePage(ws, req, cursor, n).result();
        if (!o.ok())
            die(o.error->message);
        return *o;
    };
    const QString stale = QStringLiteral(
        "status = 0 AND ((biz_type = 'notify_send' AND updated_at < now() - 120 * interval '1 second') OR "
        "(biz_type = 'payment_capture' AND updated_at < now() - 600 * interval '1 second') OR "
        "(biz_type = 'refund_issue' AND updated_at < now() - 600 * interval '1 second') OR "
        "(biz_type = 'ticket_create' AND updated_at < now() - 300 * interval '1 second') OR "
        "(biz_type NOT IN ('notify_send','payment_capture','refund_issue','ticket_create') AND updated_at < now() - 300 * interval '1 second'))");
    const QString cols = QStringLiteral(
        "id, idem_key, biz_type, status, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
        "to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
        "to_char(expire_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), EXTRACT(EPOCH FROM (now() - updated_at))");
    // The Unknown queue merges records with intent-log steps (latest attempt UNKNOWN /
    // RECONCILE_PENDING, record not settled): the raw side runs both statements too.
    const QString intentPage = QStringLiteral(
        "SELECT l.id, l.idem_key, l.action, l.status, to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
        "to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), EXTRACT(EPOCH FROM (now() - l.updated_at)), "
        "l.task_id, l.step_id FROM intent_log l WHERE l.status IN ('UNKNOWN', 'RECONCILE_PENDING') AND l.idem_key IS NOT NULL "
        "AND l.id = (SELECT n.id FROM intent_log n WHERE n.idem_key = l.idem_key ORDER BY n.created_at DESC, n.id DESC LIMIT 1) "
        "AND NOT EXISTS (SELECT 1 FROM idempotency_record r WHERE r.idem_key = l.idem_key AND r.status IN (1, 2)) %1 "
        "ORDER BY l.updated_at, l.id LIMIT 50");
    auto rawIntents = [&](const QString &extra) {
        auto q = rawExec(raw, intentPage.arg(extra));
        drain(q);
    };
    QueueRequest unknown;
    unknown.kind = QueueKind::Unknown;

    if (!onlyBulk) {
        Figure f;
        f.name = QStringLiteral("unknown: first page (50)");
        f.consoleMs = medianMs(reps, [&] { page(unknown, {}, 50); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE %2 ORDER BY updated_at, id LIMIT 50").arg(cols, stale));
            drain(q);
            rawIntents(QString());
        });
        f.anchorName = QStringLiteral("same page by OFFSET 10000");
        f.anchorMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE %2 ORDER BY updated_at, id LIMIT 50 OFFSET 10000").arg(cols, stale));
            drain(q);
        });
        figures << f;
    }
    if (!onlyBulk) {
        Figure f;
        f.name = QStringLiteral("unknown: count");
        f.consoleMs = medianMs(reps, [&] { (void)countQueue(ws, unknown).result(); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE %1").arg(stale));
            drain(q);
            auto i = rawExec(raw, QStringLiteral("SELECT COUNT(*) FROM (%1) t").arg(intentPage.arg(QString()).replace(QStringLiteral(" LIMIT 50"), QString())));
            drain(i);
        });
        f.note = QStringLiteral("runs beside the first page, never before it");
        figures << f;
    }
    if (!onlyBulk) {
        QueueRequest req = unknown;
        req.filter.tenant = QStringLiteral("acme");
        Figure f;
        f.name = QStringLiteral("unknown: tenant filter, first page");
        f.consoleMs = medianMs(reps, [&] { page(req, {}, 50); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE %2 AND idem_key LIKE '%:acme:%' ORDER BY updated_at, id LIMIT 50").arg(cols, stale));
            drain(q);
            rawIntents(QStringLiteral("AND l.idem_key LIKE '%:acme:%'"));
        });
        f.note = QStringLiteral("raw anchor: LIKE '%:acme:%'");
        figures << f;
    }
    if (!onlyBulk) {
        QueueRequest req = unknown;
        req.filter.keySubstring = QStringLiteral("ab1");
        Figure f;
        f.name = QStringLiteral("unknown: key substring, first page");
        f.consoleMs = medianMs(reps, [&] { page(req, {}, 50); });
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE %2 AND idem_key LIKE '%ab1%' ORDER BY updated_at, id LIMIT 50").arg(cols, stale));
            drain(q);
            rawIntents(QStringLiteral("AND l.idem_key LIKE '%ab1%'"));
        });
        figures << f;
    }
    if (!onlyBulk) {
        // The page at row 100,000 of the Succeeded queue (80 % of rows), reached by keyset.
        QueueRequest req;
        req.kind = QueueKind::Succeeded;
        auto q = rawExec(raw, QStringLiteral("SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), id "
                                             "FROM idempotency_record WHERE status = 1 ORDER BY updated_at, id LIMIT 1 OFFSET 99999"));
        if (q.next()) {
            QueueCursor c;
            c.record.started = true;
            c.record.time = q.value(0).toString();
            c.record.id = q.value(1).toLongLong();
            c.intent.exhausted = true;
            const QString t = c.record.time;
            Figure first;
        first.name = QStringLiteral("succeeded: first page (50)");
            first.consoleMs = medianMs(reps, [&] { page(req, {}, 50); });
            first.rawMs = medianMs(reps, [&] {
                auto r = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE status = 1 ORDER BY updated_at, id LIMIT 50").arg(cols));
                drain(r);
            });
            figures << first;
            Figure f;
        f.name = QStringLiteral("succeeded: page at row 100,000 (keyset)");
            f.consoleMs = medianMs(reps, [&] { page(req, c, 50); });
            f.rawMs = medianMs(reps, [&] {
                auto r = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE status = 1 AND (updated_at, id) > "
                                                     "(CAST('%2' AS timestamptz), %3) ORDER BY updated_at, id LIMIT 50").arg(cols, t).arg(c.record.id));
                drain(r);
            });
            f.anchorName = QStringLiteral("OFFSET 100000");
            f.anchorMs = medianMs(reps, [&] {
                auto r = rawExec(raw, QStringLiteral("SELECT %1 FROM idempotency_record WHERE status = 1 ORDER BY updated_at, id LIMIT 50 OFFSET 100000").arg(cols));
                drain(r);
            });
            f.note = QStringLiteral("%1x the first page").arg(f.consoleMs / first.consoleMs, 0, 'f', 2);
            figures << f;
        }
    }
    if (!onlyBulk) {
        const QString key = QStringLiteral("ticket:create:acme:") + QString::fromLatin1(QCryptographicHash::hash("1", QCryptographicHash::Md5).toHex());
        Figure f;
        f.name = QStringLiteral("detail + timeline (1,000 attempts)");
        int events = 0;
        f.consoleMs = medianMs(reps, [&] { events = loadKeyDetail(ws, key).result().timeline.size(); });
        f.rawMs = medianMs(reps, [&] {
            auto a = rawExec(raw, QStringLiteral("SELECT * FROM idempotency_record WHERE idem_key = '%1'").arg(key));
            drain(a);
            auto b = rawExec(raw, QStringLiteral("SELECT * FROM ticket WHERE idem_key = '%1' ORDER BY created_at, id").arg(key));
            drain(b);
            auto c = rawExec(raw, QStringLiteral("SELECT * FROM intent_log WHERE idem_key = '%1' ORDER BY created_at, id").arg(key));
            drain(c);
            auto d = rawExec(raw, QStringLiteral("SELECT * FROM triage_audit WHERE idem_key = '%1' ORDER BY at, id").arg(key));
            drain(d);
        });
        f.note = QStringLiteral("%1 timeline events; raw runs the 4 statements one after another").arg(events);
        figures << f;
    }
    if (!onlyBulk) {
        // Duplicate groups over the tickets (0.1 % duplicated keys): the console's first page
        // (budgeted creation-time window scan, newest first) against one raw statement that
        // answers the same page over the same creation-time range, plus the tenants and
        // record-status lookups the page also does; anchors: the seeds' whole-table GROUP BY
        // and its first 50 groups by index order (each run once: they take seconds).
        const QString groupCols = QStringLiteral(
            "t.idem_key, COUNT(*), SUM(CASE WHEN t.status = 'CANCELLED' THEN 0 ELSE 1 END), "
            "to_char(MIN(t.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
            "to_char(MAX(t.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
        DuplicatePage first;
        Figure f;
        f.name = QStringLiteral("duplicates: first page (50 groups)");
        f.consoleMs = medianMs(reps, [&] {
            const auto o = fetchDuplicateGroups(ws, DuplicateFilter{}, std::nullopt, 50, kInteractivePageBudgetMs).result();
            if (!o.ok())
                die(o.error->message);
            first = *o;
        });
        const QString lower = first.scannedTo.isEmpty() ? first.oldestAt : first.scannedTo;
        f.rawMs = medianMs(reps, [&] {
            auto q = rawExec(raw, QStringLiteral(
                "SELECT %1 FROM ticket t JOIN (SELECT DISTINCT w.idem_key FROM ticket w WHERE w.idem_key IS NOT NULL "
                "AND w.created_at >= '%2' AND w.created_at <= '%3') k ON t.idem_key = k.idem_key GROUP BY t.idem_key "
                "HAVING COUNT(*) > 1 AND SUM(CASE WHEN t.status = 'CANCELLED' THEN 0 ELSE 1 END) > 1 AND MAX(t.created_at) >= '%2' "
                "ORDER BY MAX(t.created_at) DESC, t.idem_key DESC LIMIT 50").arg(groupCols, lower, first.newestAt));
            QStringList keys;
            while (q.next())
                keys << QStringLiteral("'%1'").arg(q.value(0).toString());
            if (keys.isEmpty())
                return;
            auto tq = rawExec(raw, QStringLiteral("SELECT DISTINCT idem_key, tenant_id FROM ticket WHERE idem_key IN (%1)").arg(keys.join(QLatin1Char(','))));
            drain(tq);
            auto sq = rawExec(raw, QStringLiteral("SELECT idem_key, status FROM idempotency_record WHERE idem_key IN (%1)").arg(keys.join(QLatin1Char(','))));
            drain(sq);
        });
        QElapsedTimer t;
        t.start();
        auto firstByIndex = rawExec(raw, QStringLiteral("SELECT idem_key, COUNT(*) FROM ticket GROUP BY idem_key HAVING COUNT(*) > 1 ORDER BY idem_key LIMIT 50"));
        drain(firstByIndex);
        f.anchorName = QStringLiteral("GROUP BY's first 50 by index order (once)");
        f.anchorMs = t.nsecsElapsed() / 1e6;
        f.note = QStringLiteral("%1 groups in %2 windows; raw: one statement over the same range (%3 .. %4) + tenants + statuses")
                     .arg(first.groups.size()).arg(first.windows).arg(lower, first.newestAt);
        figures << f;

        // The full scan on demand (fetchAllDuplicateGroups(): one aggregate statement, then
        // tenants and record statuses 1,000 groups at a time) against the seeds' whole-table
        // GROUP BY, alternating, median of `reps` (at least 3); and the window scan it
        // replaced, once.
        Figure all;
        all.name = QStringLiteral("duplicates: full scan (all groups)");
        int groups = 0, rawGroups = 0;
        QVector<double> consoleRuns, rawRuns;
        for (int i = 0; i < std::max(3, reps); ++i) {
            t.restart();
            const auto o = fetchAllDuplicateGroups(ws, DuplicateFilter{}).result();
            if (!o.ok())
                die(o.error->message);
            groups = int(o->groups.size());
            consoleRuns << t.nsecsElapsed() / 1e6;
            t.restart();
            auto whole = rawExec(raw, QStringLiteral("SELECT idem_key, COUNT(*) FROM ticket GROUP BY idem_key HAVING COUNT(*) > 1 "
                                                     "AND SUM(CASE WHEN status = 'CANCELLED' THEN 0 ELSE 1 END) > 1"));
            rawGroups = drain(whole);
            rawRuns << t.nsecsElapsed() / 1e6;
        }
        all.consoleMs = median(consoleRuns);
        all.rawMs = median(rawRuns);
        t.restart();
        int windowGroups = 0, windows = 0;
        std::optional<DuplicateCursor> cursor;
        do {
            const auto o = fetchDuplicateGroups(ws, DuplicateFilter{}, cursor, 100000).result();
            if (!o.ok())
                die(o.error->message);
            windowGroups += o->groups.size();
            windows += o->windows;
            cursor = o->next;
        } while (cursor);
        all.anchorName = QStringLiteral("the window scan, page after page (once)");
        all.anchorMs = t.nsecsElapsed() / 1e6;
        all.note = QStringLiteral("%1 groups (whole-table GROUP BY: %2 groups, its NULL-key group included; window scan: %3 groups in %4 windows)")
                       .arg(groups).arg(rawGroups).arg(windowGroups).arg(windows);
        figures << all;
    }
    // Round trips per statement through PgBouncer (DESIGN.md §4 "Poolers"): the queries the
    // pooler counts (SHOW STATS total_query_count, updated live) per statement, for QPSQL's
    // own prepare() + exec() (PREPARE, EXECUTE, DEALLOCATE: how the console ran before) and for
    // the console's DbSession::exec() (one unprepared query with its SET LOCALs in front).
    const QString poolerUrl = qEnvironmentVariable("TRIAGE_TEST_PGBOUNCER_URL");
    const QString poolerAdminUrl = qEnvironmentVariable("TRIAGE_TEST_PGBOUNCER_ADMIN_URL");
    if (!onlyBulk && !poolerUrl.isEmpty() && !poolerAdminUrl.isEmpty()) {
        const QUrl pu(poolerUrl), au(poolerAdminUrl);
        QSqlDatabase stats = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("pooler-admin"));
        stats.setHostName(au.host());
        stats.setPort(au.port(6432));
        stats.setUserName(au.userName());
        stats.setPassword(qEnvironmentVariable("TRIAGE_DB_PASSWORD"));
        stats.setDatabaseName(au.path().mid(1));
        auto queries = [&] {
            // The admin console speaks the simple protocol only: never prepare here.
            QSqlQuery q(stats);
            if (!q.exec(QStringLiteral("SHOW STATS")))
                die(q.lastError().text());
            while (q.next())
                if (q.value(0).toString() == dbName)
                    return q.value(2).toLongLong(); // total_query_count (1: total_xact_count)
            return qint64(0);
        };
        if (stats.open()) {
            constexpr int n = 50;
            const QString sql = QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = :s");
            QSqlDatabase old = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("pooler-prepared"));
            old.setHostName(pu.host());
            old.setPort(pu.port(6432));
            old.setUserName(pu.userName());
            old.setPassword(qEnvironmentVariable("TRIAGE_DB_PASSWORD"));
            old.setDatabaseName(dbName);
            int oldErrors = 0;
            double before = -1, after = -1;
            if (old.open()) {
                const qint64 start = queries();
                for (int i = 0; i < n; ++i) {
                    QSqlQuery q(old);
                    q.setForwardOnly(true);
                    oldErrors += !(q.prepare(sql) && (q.bindValue(QStringLiteral(":s"), 1), q.exec()));
                    while (q.next()) {
                    }
                }
                before = double(queries() - start) / n;
            }
            QUrl viaPooler = pu;
            viaPooler.setPath(QLatin1Char('/') + dbName);
            DbSession session(*ConnectionProfile::fromUrl(viaPooler.toString(), DbRole::Idempotency, nullptr),
                              QStringLiteral("pooler-console"));
            session.ensureOpen();
            const qint64 start = queries();
            for (int i = 0; i < n; ++i) {
                SqlBuilder b;
                QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = %1").arg(b.bind(1)), b);
                while (q.next()) {
                }
            }
            after = double(queries() - start) / n;
            Figure f;
            f.name = QStringLiteral("round trips per statement via PgBouncer");
            f.consoleMs = after;
            f.rawMs = before;
            f.note = QStringLiteral("not ms: queries PgBouncer counted per statement; raw = QPSQL prepare()+exec() (the console before), "
                                    "console = DbSession::exec() now; %1 of %2 prepared runs failed in transaction pooling")
                         .arg(oldErrors).arg(n);
            figures << f;
        } else {
            std::fprintf(stderr, "round trips: cannot open the PgBouncer admin console: %s\n", qPrintable(stats.lastError().text()));
        }
    }

    double bulkRate = 0;
    if (bulk > 0) {
        // Bulk CAS of `bulk` stale records to SUCCESS (each has exactly one ticket: the
        // snapshot names it), with audit rows (one transaction each).
        auto q = rawExec(raw, QStringLiteral(
            "SELECT s.idem_key, (SELECT MIN(t.id) FROM ticket t WHERE t.idem_key = s.idem_key) FROM "
            "(SELECT idem_key, id FROM idempotency_record WHERE %1 ORDER BY id LIMIT %2) s "
            "WHERE (SELECT COUNT(*) FROM ticket t WHERE t.idem_key = s.idem_key) = 1 ORDER BY s.id LIMIT %3")
                                 .arg(stale).arg(bulk + bulk / 10 + 10).arg(bulk));
        QVector<MarkRequest> requests;
        while (q.next()) {
            MarkRequest r;
            r.idemKey = q.value(0).toString();
            r.toStatus = Success;
            r.snapshot = QStringLiteral("{\"ticket_id\":%1}").arg(q.value(1).toLongLong());
            r.snapshotSource = QStringLiteral("ticket:%1").arg(q.value(1).toLongLong());
            r.reason = QStringLiteral("bench bulk mark");
            requests << r;
        }
        QElapsedTimer t;
        t.start();
        const auto results = markRecords(ws, requests).result();
        const double ms = t.nsecsElapsed() / 1e6;
        int applied = 0;
        QString firstOther;
        for (const auto &r : results) {
            applied += r.ok() && r->kind == MarkResult::Kind::Applied;
            if (firstOther.isEmpty() && !(r.ok() && r->kind == MarkResult::Kind::Applied))
                firstOther = r.ok() ? markKindName(r->kind) + QStringLiteral(": ") + r->message : r.error->message;
        }
        if (!firstOther.isEmpty())
            std::fprintf(stderr, "bulk CAS: not every record applied; first: %s\n", qPrintable(firstOther));
        bulkRate = applied / (ms / 1000.0);
        Figure f;
        f.name = QStringLiteral("bulk CAS + audit (%1 records)").arg(requests.size());
        f.consoleMs = ms;
        f.note = QStringLiteral("%1 applied, %2 records/s").arg(applied).arg(bulkRate, 0, 'f', 0);
        figures << f;
        // Restore them so a rerun measures the same data.
        const auto restore = [&raw] {
            rawExec(raw, QStringLiteral("UPDATE idempotency_record SET status = 0, result_snapshot = NULL, updated_at = now() - interval '2 days' WHERE idem_key IN (SELECT idem_key FROM triage_audit WHERE reason = 'bench bulk mark')"));
            rawExec(raw, QStringLiteral("DELETE FROM triage_audit WHERE reason = 'bench bulk mark'"));
        };
        restore();
        // The physical limit: the same batches as raw SQL on one connection, the statements
        // the console's batch sends (values inlined as the driver sends them): per 500 records
        // in key order, BEGIN, lock and read, one UPDATE joined to each record's snapshot
        // (RETURNING the new state), one multi-row audit INSERT, COMMIT. No evidence reads, no
        // rules.
        QVector<MarkRequest> sorted = requests;
        std::sort(sorted.begin(), sorted.end(), [](const MarkRequest &a, const MarkRequest &b) { return a.idemKey < b.idemKey; });
        auto lit = [](const QString &v) { return QLatin1Char('\'') + QString(v).replace(QLatin1Char('\''), QStringLiteral("''")) + QLatin1Char('\''); };
        QElapsedTimer rawTimer;
        rawTimer.start();
        for (qsizetype from = 0; from < sorted.size(); from += 500) {
            QStringList keys, snapshots, rows;
            for (const MarkRequest &r : sorted.mid(from, 500)) {
                keys << lit(r.idemKey);
                snapshots << QStringLiteral("(%1, %2)").arg(lit(r.idemKey), lit(*r.snapshot));
                rows << QStringLiteral("(gen_random_uuid()::text, now(), 'bench', 'mark_success', %1, '{\"status\":\"PROCESSING\"}', "
                                       "'{\"status\":\"SUCCESS\"}', 'bench bulk mark', '{}', 'applied', 'raw')")
                            .arg(lit(r.idemKey));
            }
            const QString in = keys.join(QStringLiteral(", "));
            rawExec(raw, QStringLiteral("BEGIN"));
            auto locked = rawExec(raw, QStringLiteral("SELECT idem_key, status, updated_at FROM idempotency_record WHERE idem_key IN (%1) "
                                                      "ORDER BY idem_key FOR UPDATE").arg(in));
            drain(locked);
            rawExec(raw, QStringLiteral("UPDATE idempotency_record AS r SET status = 1, updated_at = now(), result_snapshot = s.snapshot "
                                        "FROM (VALUES %1) AS s(k, snapshot) WHERE r.idem_key = s.k RETURNING r.idem_key, r.status, r.updated_at")
                             .arg(snapshots.join(QStringLiteral(", "))));
            rawExec(raw, QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, from_state, to_state, "
                                        "reason, evidence, outcome, detail) VALUES ") + rows.join(QStringLiteral(", ")));
            rawExec(raw, QStringLiteral("COMMIT"));
        }
        const double rawMs = rawTimer.nsecsElapsed() / 1e6;
        restore();
        figures.last().rawMs = rawMs;
        figures.last().note += QStringLiteral("; raw = the same batches as plain SQL on one connection: %1 records/s (the console: up "
                                              "to 5 connections)").arg(requests.size() / (rawMs / 1000.0), 0, 'f', 0);
    }

    // Model fill and GUI responsiveness: an offscreen window with a table on the
    // Succeeded queue; a 1 ms timer measures the longest gap of the GUI event loop while
    // the model pages through 100,000 rows and while each queue's first page and count load.
    double longestGapMs = 0;
    double bytesPerRow = 0;
    int filled = 0;
    if (!onlyBulk && p.value(QStringLiteral("model-rows")).toInt() > 0) {
        const int target = p.value(QStringLiteral("model-rows")).toInt();
        QWidget window;
        window.resize(1200, 800);
        auto *table = new QTableView(&window);
        table->resize(1200, 800);
        QueueModel model(&ws);
        table->setModel(&model);
        window.show();
        QElapsedTimer tick;
        tick.start();
        qint64 last = 0;
        QTimer probe;
        probe.setInterval(1);
        QObject::connect(&probe, &QTimer::timeout, &window, [&] {
            const qint64 now = tick.nsecsElapsed();
            if (last)
                longestGapMs = std::max(longestGapMs, (now - last) / 1e6);
            last = now;
        });
        auto rssKb = [] {
            QFile f(QStringLiteral("/proc/self/statm"));
            f.open(QIODevice::ReadOnly);
            const QList<QByteArray> parts = f.readAll().split(' ');
            return parts.value(1).toLongLong() * 4; // pages of 4 KiB
        };
        // Each queue's first page and count, with the probe running.
        probe.start();
        for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated}) {
            QueueRequest req;
            req.kind = k;
            bool loaded = false;
            QMetaObject::Connection c = QObject::connect(&model, &QueueModel::pageLoaded, &window, [&](int, int, bool) { loaded = true; });
            model.setRequest(req);
            QElapsedTimer wait;
            wait.start();
            while (!loaded && wait.elapsed() < 60000)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            QObject::disconnect(c);
        }
        QueueRequest req;
        req.kind = QueueKind::Succeeded;
        model.setRequest(req);
        const qint64 before = rssKb();
        QElapsedTimer wait;
        wait.start();
        // Until `target` rows, or the end of a smaller queue.
        while (model.rowCount() < target && !(model.atEnd() && !model.isLoading()) && wait.elapsed() < 600000) {
            if (model.canFetchMore({}))
                model.fetchMore({});
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            table->scrollToBottom();
        }
        probe.stop();
        filled = model.rowCount();
        bytesPerRow = filled > 0 ? (rssKb() - before) * 1024.0 / filled : 0;
        Figure f;
        f.name = QStringLiteral("model fill: %1 rows of the Succeeded queue").arg(filled);
        f.consoleMs = wait.elapsed();
        f.note = QStringLiteral("%1 bytes held per row (RSS growth; row summaries only)").arg(bytesPerRow, 0, 'f', 0);
        figures << f;
        Figure g;
        g.name = QStringLiteral("GUI: longest event-loop gap");
        g.consoleMs = longestGapMs;
        g.note = QStringLiteral("1 ms timer in an offscreen window while every queue's first page, count and the fill ran");
        figures << g;
    }

    // Detail view first paint of a key with 20,000 intent attempts (40,001 timeline
    // events): from loadKey() until the loaded detail has been painted once, offscreen.
    if (!onlyBulk) {
        const QString bigKey = QStringLiteral("ticket:create:acme:bench-20000-attempts");
        QSqlQuery have = rawExec(raw, QStringLiteral("SELECT count(*) FROM intent_log WHERE idem_key = '%1'").arg(bigKey));
        if (!have.next() || have.value(0).toLongLong() != 20000) {
            rawExec(raw, QStringLiteral("DELETE FROM intent_log WHERE idem_key = '%1'").arg(bigKey));
            rawExec(raw, QStringLiteral("DELETE FROM idempotency_record WHERE idem_key = '%1'").arg(bigKey));
            rawExec(raw, QStringLiteral(
                "INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                "VALUES ('%1', 'ticket_create', 0, now() - interval '2 days', now() - interval '2 days', now() + interval '5 days')")
                             .arg(bigKey));
            rawExec(raw, QStringLiteral(
                "INSERT INTO intent_log (task_id, step_id, action, idem_key, status, request, response, error, state_before, "
                "state_after, actor, created_at, updated_at) "
                "SELECT 'task_1', 'step_' || (g % 5), 'create_ticket', '%1', 'UNKNOWN', '{\"title\":\"x\"}', NULL, "
                "       'timeout after 30000 ms', '{\"state\":\"pending\"}', NULL, 'agent-1', now() - g * interval '1 second', "
                "       now() - g * interval '1 second' + interval '30 seconds' FROM generate_series(1, 20000) g")
                             .arg(bigKey));
        }
        KeyDetailView view(&ws);
        view.resize(750, 860);
        view.show();
        QCoreApplication::processEvents();
        bool painted = false;
        const double ms = medianMs(reps, [&] {
            bool loaded = false;
            QMetaObject::Connection c = QObject::connect(&view, &KeyDetailView::detailLoaded, &view, [&] { loaded = true; });
            view.loadKey(bigKey);
            QElapsedTimer wait;
            wait.start();
            while (!loaded && wait.elapsed() < 120000)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            QObject::disconnect(c);
            view.repaint(); // the first paint of the loaded detail (layouts and visible rows)
            painted = loaded && view.detail().attempts.size() == 20000;
            view.loadKey(QString()); // the next repetition loads it afresh
            QCoreApplication::processEvents();
        });
        Figure f;
        f.name = QStringLiteral("detail view first paint, 20,000 attempts");
        f.consoleMs = ms;
        f.note = painted ? QStringLiteral("loadKey() to the first paint of the loaded detail (40,001 timeline events); target <= 1000 ms")
                         : QStringLiteral("the detail did not load");
        figures << f;
    }

    figures << windowFigures(ws, raw, reps);
    const QJsonArray out = printFigures(figures);
    QJsonObject doc;
    doc[QStringLiteral("rows")] = rows;
    doc[QStringLiteral("repetitions")] = reps;
    doc[QStringLiteral("bulk_records_per_second")] = bulkRate;
    doc[QStringLiteral("model_rows_filled")] = filled;
    doc[QStringLiteral("model_bytes_per_row")] = bytesPerRow;
    doc[QStringLiteral("gui_longest_gap_ms")] = longestGapMs;
    doc[QStringLiteral("figures")] = out;
    QFile f(p.value(QStringLiteral("json")));
    if (f.open(QIODevice::WriteOnly))
        f.write(QJsonDocument(doc).toJson());
    std::printf("\nwrote %s\n", qPrintable(f.fileName()));
    return 0;
}
