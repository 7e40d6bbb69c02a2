// triage-bundle-bench: exporting an incident bundle (DESIGN.md §7 "Bundles") from a window of
// --events events (default 100,000) on PostgreSQL. Creates its own database: --keys keys, each
// with a record (created and updated: two events) and intent attempts for the rest, all in one
// hour that ended 10 minutes ago (every event final), the requests holding a token (redacted).
// Measures, each the median of --reps: the same pages read raw (every stream's rows in
// (time, id) order, the window's columns), the console's pages (readWindowPage() to the end),
// the whole export (pages, summary, clocks, every key's detail read in bulk, redaction, hash) and
// writing its JSON streamed to a file (checked identical to writeBundleJson()'s bytes); prints
// events/s and the ratios; drops its database unless --keep.
#include "BenchUtil.h"

#include "Bundle.h"
#include "Log.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryDir>

using namespace triage;
using namespace triage::bench;

namespace {

void fill(QSqlDatabase &raw, qint64 events, qint64 keys)
{
    // Records: one per key, created in the hour, updated 2 s later (two events each).
    rawExec(raw, QStringLiteral(
        "INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, created_at, updated_at, expire_at) "
        "SELECT %1, 'ticket_create', 1, '{\"ticket_id\":' || g || '}', ts, ts + interval '2 seconds', ts + interval '7 days' "
        "FROM (SELECT g, date_trunc('minute', now()) - interval '70 minutes' + (g * 3500.0 / %2) * interval '1 second' AS ts "
        "      FROM generate_series(1, %2) g) s")
                     .arg(benchKeySql(QStringLiteral("g")))
                     .arg(keys));
    // Intent attempts for the rest of the events, spread over the keys and the hour.
    const qint64 intents = events - 2 * keys;
    rawExec(raw, QStringLiteral(
        "INSERT INTO intent_log (task_id, step_id, action, idem_key, status, request, response, error, state_before, "
        "state_after, actor, created_at, updated_at) "
        "SELECT 'task_' || k, 'step_' || (g % 3), 'create_ticket', %1, "
        "       (ARRAY['SUCCEEDED','SUCCEEDED','UNKNOWN','FAILED'])[1 + g % 4], "
        "       '{\"title\":\"VPN down\",\"token\":\"t-' || g || '\",\"n\":12345678901234567890}', '{\"ok\":true}', NULL, NULL, NULL, "
        "       'agent-' || (g % 8), ts, ts "
        "FROM (SELECT g, 1 + g % %2 AS k, date_trunc('minute', now()) - interval '70 minutes' + 1 * interval '1 second' "
        "             + (g * 3590.0 / %3) * interval '1 second' AS ts FROM generate_series(1, %3) g) s")
                     .arg(benchKeySql(QStringLiteral("k")))
                     .arg(keys)
                     .arg(intents));
    rawExec(raw, QStringLiteral("ANALYZE"));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-bundle-bench"));
    spdlog::set_level(spdlog::level::warn);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Benchmarks exporting an incident bundle against reading the same pages raw, "
                                               "on PostgreSQL, in a database it fills and drops."));
    p.addHelpOption();
    p.addOptions({
        serverOption(),
        {QStringLiteral("events"), QStringLiteral("Events in the window (default 100000)."), QStringLiteral("N"), QStringLiteral("100000")},
        {QStringLiteral("keys"), QStringLiteral("Distinct keys (default 2000)."), QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("reps"), QStringLiteral("Repetitions per measurement (median; default 3)."), QStringLiteral("N"), QStringLiteral("3")},
        {QStringLiteral("json"), QStringLiteral("Write the figures to this JSON file (default bundle-bench.json)."), QStringLiteral("FILE"),
         QStringLiteral("bundle-bench.json")},
        {QStringLiteral("keep"), QStringLiteral("Keep the database for the next run.")},
        {QStringLiteral("refill"), QStringLiteral("Drop and refill a kept database.")},
    });
    p.process(app);
    const QString serverUrl = benchServer(p);
    const qint64 events = p.value(QStringLiteral("events")).toLongLong(), keys = p.value(QStringLiteral("keys")).toLongLong();
    const int reps = p.value(QStringLiteral("reps")).toInt();
    if (keys < 1 || events < 3 * keys || reps < 1)
        die(QStringLiteral("--keys must be at least 1, --events at least 3 per key, --reps at least 1"));

    const QString dbName = QStringLiteral("triage_bench_bundle_%1_%2").arg(events).arg(keys);
    const QUrl server(serverUrl);
    QSqlDatabase admin = openPg(server, QStringLiteral("admin"), server.path().mid(1));
    const bool mustFill = prepareDatabase(admin, dbName, p.isSet(QStringLiteral("refill")));
    QJsonObject doc;
    {
        Workspace ws(benchConfig(databaseUrl(server, dbName)));
        QSqlDatabase raw = openPg(server, QStringLiteral("raw"), dbName);
        rawExec(raw, QStringLiteral("SET TIME ZONE 'UTC'"));
        if (mustFill) {
            createBenchSchema(ws);
            QElapsedTimer t;
            t.start();
            fill(raw, events, keys);
            std::printf("filled %s in %.1f s\n", qPrintable(dbName), t.elapsed() / 1000.0);
        }
        // The window: the hour of the fill (whole minutes, so a kept database is found again).
        auto bounds = rawExec(raw, QStringLiteral("SELECT MIN(created_at), MAX(updated_at) FROM idempotency_record"));
        bounds.next();
        WindowQuery q;
        q.from = *parseUtcMicros(canonicalTimeText(bounds.value(0))) / 60000000 * 60000000;
        q.to = q.from + 3600LL * 1000000;
        const QString from = formatUtcMicros(q.from), to = formatUtcMicros(q.to);
        auto in = [&](const QString &col) { return QStringLiteral("%1 >= '%2' AND %1 < '%3'").arg(col, from, to); };

        qint64 read = 0, rawRows = 0;
        const QStringList rawStreams{
            QStringLiteral("SELECT id, idem_key, biz_type, status, created_at FROM idempotency_record WHERE %1 ORDER BY created_at, id").arg(in(QStringLiteral("created_at"))),
            QStringLiteral("SELECT id, idem_key, biz_type, status, updated_at FROM idempotency_record WHERE %1 AND updated_at <> created_at ORDER BY updated_at, id").arg(in(QStringLiteral("updated_at"))),
            QStringLiteral("SELECT id, idem_key, status, actor, action, created_at FROM intent_log WHERE %1 ORDER BY created_at, id").arg(in(QStringLiteral("created_at"))),
        };
        const double rawMs = medianMs(reps, [&] {
            rawRows = 0;
            for (const QString &sql : rawStreams) {
                auto r = rawExec(raw, sql);
                rawRows += drain(r);
            }
        });
        const double pagesMs = medianMs(reps, [&] {
            read = 0;
            WindowCursor cursor;
            for (;;) {
                const auto page = readWindowPage(ws, q, cursor, 5000).result();
                if (!page.ok())
                    die(page.error->message);
                read += page->events.size();
                cursor = page->next;
                if (page->end)
                    break;
            }
        });
        // Timed as medianMs() times (one warm-up run, then the median of --reps), except that the
        // previous run's bundle is freed before each run's timing starts: freeing 100,000 events
        // and their keys is not the export's work (it is timed alone, and printed).
        IncidentBundle bundle;
        QVector<double> exportTimes;
        double freeMs = 0;
        for (int rep = 0; rep <= reps; ++rep) {
            QElapsedTimer freeing;
            freeing.start();
            bundle = IncidentBundle();
            if (rep > 0)
                freeMs = freeing.nsecsElapsed() / 1e6;
            QElapsedTimer t;
            t.start();
            auto out = exportBundle(ws, q, std::nullopt, RedactionRules(), false).result();
            if (!out.ok())
                die(out.error->message);
            bundle = std::move(*out.value);
            if (rep > 0)
                exportTimes << t.nsecsElapsed() / 1e6;
        }
        const double exportMs = median(exportTimes);
        // Written as the CLI writes it: streamed into a file (QSaveFile), never held whole.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bundle.json"));
        const double writeMs = medianMs(reps, [&] {
            QSaveFile file(path);
            QString writeError;
            if (!file.open(QIODevice::WriteOnly) || !writeBundleJson(bundle, &file, &writeError) || !file.commit())
                die(QStringLiteral("cannot write %1: %2").arg(path, writeError.isEmpty() ? file.errorString() : writeError));
        });
        QFile written(path);
        if (!written.open(QIODevice::ReadOnly))
            die(QStringLiteral("cannot read %1").arg(path));
        const QByteArray json = written.readAll();
        if (json != writeBundleJson(bundle))
            die(QStringLiteral("the streamed file differs from writeBundleJson()'s bytes"));
        QString error;
        QElapsedTimer t;
        t.start();
        const auto back = readBundleJson(json, &error);
        const double readMs = t.nsecsElapsed() / 1e6;
        if (!back || !verifyBundleHash(*back))
            die(QStringLiteral("the bundle does not read back: ") + error);

        auto perSecond = [](qint64 n, double ms) { return ms > 0 ? n * 1000.0 / ms : 0; };
        std::printf("\nwindow %s .. %s: %lld events (raw rows %lld), %lld keys, %lld redactions, bundle %.1f MB\n", qPrintable(from),
                    qPrintable(to), qint64(bundle.events.size()), rawRows, qint64(bundle.keys.size()),
                    qint64(bundle.redactions.size()), json.size() / 1e6);
        std::printf("%-48s %10s %14s %8s\n", "operation", "ms", "events/s", "vs raw");
        auto line = [&](const char *name, double ms) {
            std::printf("%-48s %10.1f %14.0f %7.2fx\n", name, ms, perSecond(bundle.events.size(), ms), rawMs > 0 ? ms / rawMs : 0);
        };
        line("raw: the window's streams, every row", rawMs);
        line("console: every page (readWindowPage, 5000)", pagesMs);
        line("export: pages, summary, keys, redaction, hash", exportMs);
        line("export + JSON written (total)", exportMs + writeMs);
        line("JSON written alone (streamed to a file)", writeMs);
        line("JSON read back (readBundleJson, once)", readMs);
        std::printf("(not counted: freeing one run's bundle took %.1f ms)\n", freeMs);
        const double total = perSecond(bundle.events.size(), exportMs + writeMs);
        std::printf("\ntarget exporting %lld events to JSON >= 50000 events/s: %s (%.0f events/s)\n", qint64(bundle.events.size()),
                    total >= 50000 ? "met" : "MISSED", total);
        if (read != bundle.events.size())
            die(QStringLiteral("pages read %1 events, the export %2").arg(read).arg(bundle.events.size()));
        doc[QStringLiteral("events")] = qint64(bundle.events.size());
        doc[QStringLiteral("keys")] = qint64(bundle.keys.size());
        doc[QStringLiteral("raw_ms")] = rawMs;
        doc[QStringLiteral("pages_ms")] = pagesMs;
        doc[QStringLiteral("export_ms")] = exportMs;
        doc[QStringLiteral("write_json_ms")] = writeMs;
        doc[QStringLiteral("read_json_ms")] = readMs;
        doc[QStringLiteral("free_bundle_ms")] = freeMs;
        doc[QStringLiteral("export_events_per_s")] = total;
        doc[QStringLiteral("bundle_bytes")] = qint64(json.size());
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    dropUnlessKept(admin, dbName, p.isSet(QStringLiteral("keep")));
    writeJson(p.value(QStringLiteral("json")), doc);
    return 0;
}
