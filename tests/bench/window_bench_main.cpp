// triage-window-bench: the incident window (DESIGN.md §7) at the scale. Creates its
// own PostgreSQL database, fills it on the server with generate_series (--records records,
// --tickets tickets with 0.1 % duplicated keys, --intents intent attempts, and a few audit
// rows and compensations, all spread over the last 6 days), then measures windowFigures()
// (window_bench.cpp): a 30-minute window's first 500 events and its summary, each against
// the same per-store statements run raw in this process. Prints the table, the targets and
// writes a JSON file; drops its database at the end unless --keep.
#include "BenchUtil.h"

#include "Log.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>

using namespace triage;
using namespace triage::bench;

namespace {

/// Runs `fill` with the secondary indexes and unique constraints of `tables` dropped, then
/// builds them again as they were (one sorted build each is much cheaper than keeping them
/// up to date row by row: DESIGN.md §7 needs only what init-schema made, not how).
void withoutIndexes(QSqlDatabase &raw, const QStringList &tables, const std::function<void()> &fill)
{
    QStringList drops, creates;
    auto q = rawExec(raw, QStringLiteral(
        "SELECT i.tablename, i.indexname, i.indexdef, c.contype, pg_get_constraintdef(c.oid) "
        "FROM pg_indexes i LEFT JOIN pg_constraint c ON c.conname = i.indexname "
        "AND c.conrelid = (quote_ident(i.schemaname) || '.' || quote_ident(i.tablename))::regclass "
        "WHERE i.schemaname = current_schema() AND i.tablename IN ('%1') AND (c.contype IS NULL OR c.contype = 'u')")
                                 .arg(tables.join(QStringLiteral("', '"))));
    while (q.next()) {
        const QString table = q.value(0).toString(), name = q.value(1).toString();
        if (q.value(3).isNull()) {
            drops << QStringLiteral("DROP INDEX %1").arg(name);
            creates << q.value(2).toString();
        } else {
            drops << QStringLiteral("ALTER TABLE %1 DROP CONSTRAINT %2").arg(table, name);
            creates << QStringLiteral("ALTER TABLE %1 ADD CONSTRAINT %2 %3").arg(table, name, q.value(4).toString());
        }
    }
    for (const QString &sql : drops)
        rawExec(raw, sql);
    fill();
    QElapsedTimer t;
    t.start();
    rawExec(raw, QStringLiteral("SET maintenance_work_mem = '256MB'"));
    for (const QString &sql : creates)
        rawExec(raw, sql);
    std::printf("  %lld indexes built again in %.1f s\n", qint64(creates.size()), t.elapsed() / 1000.0);
}

/// Fills the agents' tables and the console's own of the bench database (schema made by
/// init-schema). Times spread evenly over the 6 days before the server's now().
void fill(QSqlDatabase &raw, qint64 records, qint64 tickets, qint64 intents)
{
    auto step = [&](const char *what, const QString &sql) {
        QElapsedTimer t;
        t.start();
        rawExec(raw, sql);
        std::printf("  %s in %.1f s\n", what, t.elapsed() / 1000.0);
        std::fflush(stdout);
    };
    withoutIndexes(raw, {QStringLiteral("idempotency_record"), QStringLiteral("ticket"), QStringLiteral("intent_log")}, [&] {
        // Records: 2 % still PROCESSING, 1/6 FAILED, the rest SUCCESS; created up to 5 min before their update.
        step("records", QStringLiteral(
            "INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, created_at, updated_at, expire_at) "
            "SELECT %1, (ARRAY['ticket_create','payment_capture','refund_issue','notify_send'])[1 + (g / 7) % 4], "
            "       CASE WHEN g % 50 = 0 THEN 0 WHEN g % 6 = 0 THEN 2 ELSE 1 END, "
            "       CASE WHEN g % 6 <> 0 AND g % 50 <> 0 THEN '{\"ticket_id\":' || g || '}' END, "
            "       ts - (1 + g % 300) * interval '1 second', ts, ts + interval '7 days' "
            "FROM (SELECT g, now() - (g * 518400.0 / %2) * interval '1 second' AS ts FROM generate_series(1, %2) g) s")
                               .arg(benchKeySql(QStringLiteral("g")))
                               .arg(records));
        // Tickets: one per key g, and for 0.1 % of them a second one 5-120 s later (a retry
        // that went through twice).
        step("tickets", QStringLiteral(
            "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
            "SELECT %1, (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5], 'ticket ' || g, 'OPEN', "
            "       '{\"ticket_id\":' || g || ',\"title\":\"ticket ' || g || '\"}', ts, ts "
            "FROM (SELECT g, now() - (g * 518400.0 / %2) * interval '1 second' AS ts FROM generate_series(1, %2) g) s")
                               .arg(benchKeySql(QStringLiteral("g")))
                               .arg(tickets));
        step("duplicate tickets", QStringLiteral(
            "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
            "SELECT idem_key, tenant_id, title, CASE WHEN id % 3000 = 0 THEN 'CANCELLED' ELSE 'OPEN' END, payload, "
            "       created_at + (5 + id % 116) * interval '1 second', created_at + (5 + id % 116) * interval '1 second' "
            "FROM ticket WHERE id % 1000 = 0"));
        // Intent attempts: 60 % SUCCEEDED, 10 % each UNKNOWN, FAILED, RECONCILE_PENDING, ESCALATED.
        step("intent attempts", QStringLiteral(
            "INSERT INTO intent_log (task_id, step_id, action, idem_key, status, request, response, error, state_before, "
            "state_after, actor, created_at, updated_at) "
            "SELECT 'task_' || k, 'step_' || (g % 3), "
            "       (ARRAY['create_ticket','capture_payment','issue_refund','send_notification'])[1 + (k / 7) % 4], %1, "
            "       (ARRAY['SUCCEEDED','SUCCEEDED','SUCCEEDED','SUCCEEDED','SUCCEEDED','SUCCEEDED','UNKNOWN','FAILED',"
            "              'RECONCILE_PENDING','ESCALATED'])[1 + g % 10], "
            "       '{\"title\":\"x\"}', NULL, NULL, '{\"state\":\"pending\"}', NULL, 'agent-' || (g % 8), ts, ts + interval '2 seconds' "
            "FROM (SELECT g, 1 + (g * 7) % %2 AS k, now() - (g * 518400.0 / %3) * interval '1 second' AS ts "
            "      FROM generate_series(1, %3) g) s")
                                       .arg(benchKeySql(QStringLiteral("k")))
                                       .arg(records)
                                       .arg(intents));
    });
    // The console's own rows: one audit row per 1,000 records, one compensation (and its
    // attempt) per 10,000.
    const qint64 audits = qMax<qint64>(1, records / 1000), comps = qMax<qint64>(1, records / 10000);
    step("audit rows", QStringLiteral(
        "INSERT INTO triage_audit (request_id, at, operator, action, idem_key, reason, outcome) "
        "SELECT 'bench-' || g, now() - (g * 518400.0 / %2) * interval '1 second', (ARRAY['alice','bob','carol'])[1 + g % 3], "
        "       CASE g % 4 WHEN 0 THEN 'query_upstream' WHEN 1 THEN 'mark_failed' ELSE 'mark_success' END, %1, "
        "       'bench: settled after the outage', CASE g % 4 WHEN 0 THEN 'recorded' ELSE 'applied' END "
        "FROM (SELECT g, 1 + (g * 13) % %3 AS k FROM generate_series(1, %2) g) s")
                               .arg(benchKeySql(QStringLiteral("k")))
                               .arg(audits)
                               .arg(records));
    step("compensations", QStringLiteral(
        "INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, status, attempts, operator, "
        "reason, created_at, updated_at) "
        "SELECT 'comp:cancel_ticket:' || g || ':bench', %1, 'ticket_create', 'cancel_ticket', g::text, '{}', 'SUCCEEDED', 1, "
        "       'alice', 'bench: cancel the duplicate', ts, ts + interval '1 second' "
        "FROM (SELECT g, 1 + (g * 1000) % %3 AS k, now() - (g * 518400.0 / %2) * interval '1 second' AS ts "
        "      FROM generate_series(1, %2) g) s")
                                  .arg(benchKeySql(QStringLiteral("k")))
                                  .arg(comps)
                                  .arg(records));
    step("compensation attempts", QStringLiteral(
        "INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, classification) "
        "SELECT comp_key, 'send', created_at + interval '1 second', 200, 'SUCCEEDED' FROM triage_compensation"));
    step("ANALYZE", QStringLiteral("ANALYZE"));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-window-bench"));
    spdlog::set_level(spdlog::level::warn);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Benchmarks the incident window (a 30-minute window's first 500 events and its summary) against raw SQL "
        "on PostgreSQL, in a database it fills and drops."));
    p.addHelpOption();
    p.addOptions({
        serverOption(),
        {QStringLiteral("records"), QStringLiteral("Idempotency records (default 1000000)."), QStringLiteral("N"), QStringLiteral("1000000")},
        {QStringLiteral("tickets"), QStringLiteral("Tickets, plus 0.1 % duplicates (default: as many as records)."), QStringLiteral("N")},
        {QStringLiteral("intents"), QStringLiteral("Intent-log attempts (default: a tenth of the records)."), QStringLiteral("N")},
        {QStringLiteral("reps"), QStringLiteral("Repetitions per measurement (median; default 7)."), QStringLiteral("N"), QStringLiteral("7")},
        {QStringLiteral("json"), QStringLiteral("Write every figure to this JSON file (default window-bench.json)."), QStringLiteral("FILE"),
         QStringLiteral("window-bench.json")},
        {QStringLiteral("keep"), QStringLiteral("Keep the database for the next run (default: drop it at the end).")},
        {QStringLiteral("refill"), QStringLiteral("Drop and refill a kept database.")},
    });
    p.process(app);
    const QString serverUrl = benchServer(p);
    bool ok = true;
    auto count = [&](const QString &option, qint64 fallback) {
        if (!p.isSet(option))
            return fallback;
        bool valid = false;
        const qint64 n = p.value(option).toLongLong(&valid);
        if (!valid || n < 1) {
            std::fprintf(stderr, "triage-window-bench: --%s must be a whole number of at least 1, not \"%s\"\n", qPrintable(option),
                         qPrintable(p.value(option)));
            ok = false;
        }
        return n;
    };
    const qint64 records = count(QStringLiteral("records"), 1000000);
    const qint64 tickets = count(QStringLiteral("tickets"), records);
    const qint64 intents = count(QStringLiteral("intents"), qMax<qint64>(1, records / 10));
    const int reps = int(count(QStringLiteral("reps"), 7));
    if (!ok)
        return 1;

    const QString dbName = QStringLiteral("triage_bench_window_%1_%2_%3").arg(records).arg(tickets).arg(intents);
    const QUrl server(serverUrl);
    QSqlDatabase admin = openPg(server, QStringLiteral("admin"), server.path().mid(1));
    const bool mustFill = prepareDatabase(admin, dbName, p.isSet(QStringLiteral("refill")));
    QJsonObject doc;
    {
        Workspace ws(benchConfig(databaseUrl(server, dbName)));
        QSqlDatabase raw = openPg(server, QStringLiteral("raw"), dbName);
        rawExec(raw, QStringLiteral("SET TIME ZONE 'UTC'"));
        if (mustFill) {
            QElapsedTimer t;
            t.start();
            createBenchSchema(ws);
            std::printf("filling %s: %lld records, %lld tickets (+0.1 %% duplicates), %lld intent attempts over 6 days ...\n",
                        qPrintable(dbName), records, tickets, intents);
            std::fflush(stdout);
            fill(raw, records, tickets, intents);
            std::printf("filled in %.1f s\n", t.elapsed() / 1000.0);
        }
        auto size = rawExec(raw, QStringLiteral("SELECT pg_size_pretty(pg_database_size(current_database()))"));
        if (size.next())
            std::printf("database %s: %s\n", qPrintable(dbName), qPrintable(size.value(0).toString()));

        const QVector<Figure> figures = windowFigures(ws, raw, reps);
        doc[QStringLiteral("figures")] = printFigures(figures);
        // The targets (DESIGN.md §7): first page <= 1 s and <= 1.2x raw; summary <= 1.2x raw.
        std::printf("\n");
        for (const Figure &f : figures) {
            const double ratio = f.rawMs > 0 ? f.consoleMs / f.rawMs : 0, critical = f.anchorMs > 0 ? f.consoleMs / f.anchorMs : 0;
            const bool page = f.name.contains(QStringLiteral("first 500"));
            const bool met = ratio <= 1.2 && (!page || f.consoleMs <= 1000);
            std::printf("target %-36s %s: %.2f ms, %.2fx raw (target%s <= 1.20x); %.2fx the slowest database's raw statements alone\n",
                        qPrintable(f.name), met ? "met" : "MISSED", f.consoleMs, ratio, page ? " <= 1000 ms and" : "", critical);
        }
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    dropUnlessKept(admin, dbName, p.isSet(QStringLiteral("keep")));
    doc[QStringLiteral("records")] = records;
    doc[QStringLiteral("tickets")] = tickets;
    doc[QStringLiteral("intents")] = intents;
    doc[QStringLiteral("repetitions")] = reps;
    writeJson(p.value(QStringLiteral("json")), doc);
    return 0;
}
