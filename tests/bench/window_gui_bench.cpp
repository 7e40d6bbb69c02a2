// triage-window-gui-bench: the Incident tab (views/IncidentView, DESIGN.md §7) loading a
// window of --events events (default 100,000) in an offscreen 1400x900 window, its table
// fetching page after page (WindowEventsModel, 500 events a page) until the window ends,
// driven two ways in turn:
//   - jump: the tab's own scrollToTime() to the window's end (what a click on the
//     histogram's last bar does): pages are fetched one after another, the view stays put;
//   - scroll: an operator holding End: the table is scrolled to the bottom every 16 ms, so
//     QAbstractItemView fetches the next page whenever its last row shows, and repaints.
// For each: the GUI event loop's gaps (a 1 ms timer's intervals: longest, p99, median, the
// five longest with when they ended), the load time (load() until the model holds the whole
// window) and the heap held per loaded event (glibc's mallinfo2(): bytes in use in every
// arena, mmapped chunks included, after minus before, over the events; beside it the model's
// own bytesHeld()). Then the cost of one repaint of the table's viewport.
// Creates its own PostgreSQL database (the window's events and nothing else), drops it at
// the end unless --keep.
#include "BenchUtil.h"

#include "IncidentView.h"
#include "Log.h"
#include "WindowEventsModel.h"

#include <QApplication>
#include <QEvent>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <malloc.h>
#include <time.h>

#include <vector>

using namespace triage;
using namespace triage::bench;

namespace {

/// Bytes the process's heap holds now (every arena, mmapped chunks included).
qint64 heapInUse()
{
    const struct mallinfo2 m = mallinfo2();
    return qint64(m.uordblks + m.hblkhd);
}

/// Fills the bench database (schema made by init-schema) with exactly `events` events in
/// the 30 minutes from `from` (SQL timestamptz text): a quarter records (each a
/// record.created and, 1 ms later, a record.updated event), a quarter tickets, the rest
/// intent attempts, each stream spread evenly over the window.
void fill(QSqlDatabase &raw, qint64 events, const QString &from)
{
    const qint64 records = events / 4, tickets = events / 4, intents = events - 3 * (events / 4);
    rawExec(raw, QStringLiteral(
        "INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, created_at, updated_at, expire_at) "
        "SELECT %1, (ARRAY['ticket_create','payment_capture','refund_issue','notify_send'])[1 + (g / 7) % 4], "
        "       CASE WHEN g % 50 = 0 THEN 0 WHEN g % 6 = 0 THEN 2 ELSE 1 END, "
        "       CASE WHEN g % 6 <> 0 AND g % 50 <> 0 THEN '{\"ticket_id\":' || g || '}' END, "
        "       ts, ts + interval '1 millisecond', ts + interval '7 days' "
        "FROM (SELECT g, timestamptz '%2' + (g * 1800.0 / %3) * interval '1 second' AS ts FROM generate_series(0, %3 - 1) g) s")
                     .arg(benchKeySql(QStringLiteral("g")), from)
                     .arg(records));
    rawExec(raw, QStringLiteral(
        "INSERT INTO ticket (idem_key, tenant_id, title, status, payload, created_at, updated_at) "
        "SELECT %1, (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + g % 5], 'ticket ' || g, 'OPEN', "
        "       '{\"ticket_id\":' || g || '}', ts, ts "
        "FROM (SELECT g, timestamptz '%2' + (g * 1800.0 / %3) * interval '1 second' + interval '250 microseconds' AS ts "
        "      FROM generate_series(0, %3 - 1) g) s")
                     .arg(benchKeySql(QStringLiteral("g")), from)
                     .arg(tickets));
    rawExec(raw, QStringLiteral(
        "INSERT INTO intent_log (task_id, step_id, action, idem_key, status, request, response, error, state_before, "
        "state_after, actor, created_at, updated_at) "
        "SELECT 'task_' || g, 'step_' || (g % 3), "
        "       (ARRAY['create_ticket','capture_payment','issue_refund','send_notification'])[1 + (g / 7) % 4], %1, "
        "       (ARRAY['SUCCEEDED','SUCCEEDED','SUCCEEDED','UNKNOWN','FAILED'])[1 + g % 5], '{\"title\":\"x\"}', NULL, NULL, "
        "       NULL, NULL, 'agent-' || (g % 8), ts, ts "
        "FROM (SELECT g, timestamptz '%2' + (g * 1800.0 / %3) * interval '1 second' + interval '500 microseconds' AS ts "
        "      FROM generate_series(0, %3 - 1) g) s")
                     .arg(benchKeySql(QStringLiteral("(g % %1)").arg(records)), from)
                     .arg(intents));
    rawExec(raw, QStringLiteral("ANALYZE"));
}


enum class Drive { Jump, Scroll };

/// One gap of the GUI event loop: its length, when it ended (ms after load()) and the rows
/// the model held then.
struct Gap {
    double ms = 0;
    double endMs = 0;
    int rows = 0;
    double cpuMs = 0; ///< CPU time the GUI thread used within the gap (the rest: waiting for a core)
};

/// CPU time used by the calling thread, ns.
qint64 threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return qint64(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// What one load of the window measured.
struct LoadRun {
    int events = 0;
    double loadMs = 0;
    double longest = 0, p99 = 0, median = 0;
    double longestCpu = 0, p99Cpu = 0; ///< the GUI thread's CPU time within the gaps
    qint64 ticks = 0;
    int paints = 0;   ///< paint events of the table's viewport during the load
    int pages = 0;    ///< pages applied (pageLoaded signals)
    QVector<Gap> top; ///< the five longest gaps, longest first
    qint64 heapGrowth = 0;
    qint64 modelBytes = 0;
};

/// Counts the paint events `watched` receives.
class PaintCounter : public QObject {
public:
    int paints = 0;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            ++paints;
        return QObject::eventFilter(watched, event);
    }
};

/// Loads `view`'s window (the empty window [warmFrom, warmTo) first, so the model starts
/// empty), then [from, to) driven by `drive`, until the model is at its end; measures it.
LoadRun loadWindow(IncidentView &view, UtcMicros from, UtcMicros to, Drive drive, UtcMicros warmFrom, UtcMicros warmTo)
{
    WindowEventsModel *model = view.eventsModel();
    QTableView *table = view.eventTable();
    {
        QEventLoop wait;
        QObject::connect(&view, &IncidentView::windowLoaded, &wait, &QEventLoop::quit);
        view.setRange(warmFrom, warmTo);
        view.load();
        wait.exec();
        QCoreApplication::processEvents();
    }
    std::vector<Gap> gaps;
    gaps.reserve(2000000);
    QElapsedTimer clock;
    qint64 last = 0, lastCpu = 0;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, &view, [&] {
        const qint64 now = clock.nsecsElapsed(), cpu = threadCpuNs();
        if (last)
            gaps.push_back({(now - last) / 1e6, now / 1e6, model->rowCount(), (cpu - lastCpu) / 1e6});
        last = now;
        lastCpu = cpu;
    });
    QTimer end;
    end.setInterval(16);
    QObject::connect(&end, &QTimer::timeout, table, [table] { table->scrollToBottom(); });
    QEventLoop done;
    int pageCount = 0;
    const QMetaObject::Connection pages = QObject::connect(model, &WindowEventsModel::pageLoaded, &done, [&](int, int, bool atEnd) {
        ++pageCount;
        if (atEnd)
            done.quit();
    });
    PaintCounter paints;
    table->viewport()->installEventFilter(&paints);
    const QMetaObject::Connection errors =
        QObject::connect(model, &WindowEventsModel::errorOccurred, &done, [](const QString &message) { die(message); });
    QTimer limit;
    limit.setSingleShot(true);
    QObject::connect(&limit, &QTimer::timeout, &done, [] { die(QStringLiteral("the window did not load within 10 minutes")); });
    limit.start(600000);

    const qint64 heapBefore = heapInUse();
    clock.start();
    probe.start();
    if (drive == Drive::Scroll)
        end.start();
    view.setRange(from, to);
    view.load();
    if (drive == Drive::Jump)
        view.scrollToTime(to); // no event at or after the end: pages are fetched to the last
    done.exec();
    LoadRun r;
    r.loadMs = clock.nsecsElapsed() / 1e6;
    end.stop();
    probe.stop();
    limit.stop();
    QObject::disconnect(pages);
    QObject::disconnect(errors);
    table->viewport()->removeEventFilter(&paints);
    r.paints = paints.paints;
    r.pages = pageCount;
    QCoreApplication::processEvents();
    r.heapGrowth = heapInUse() - heapBefore;
    r.events = model->eventCount();
    r.modelBytes = model->bytesHeld();
    r.ticks = qint64(gaps.size());
    std::vector<double> sorted, cpu;
    sorted.reserve(gaps.size());
    cpu.reserve(gaps.size());
    for (const Gap &g : gaps) {
        sorted.push_back(g.ms);
        cpu.push_back(g.cpuMs);
    }
    std::sort(sorted.begin(), sorted.end());
    std::sort(cpu.begin(), cpu.end());
    if (!sorted.empty()) {
        const size_t p99 = std::min(sorted.size() - 1, size_t(double(sorted.size()) * 0.99));
        r.longest = sorted.back();
        r.p99 = sorted[p99];
        r.median = sorted[sorted.size() / 2];
        r.longestCpu = cpu.back();
        r.p99Cpu = cpu[p99];
    }
    std::partial_sort(gaps.begin(), gaps.begin() + std::min<size_t>(5, gaps.size()), gaps.end(),
                      [](const Gap &a, const Gap &b) { return a.ms > b.ms; });
    for (size_t i = 0; i < std::min<size_t>(5, gaps.size()); ++i)
        r.top << gaps[i];
    return r;
}
} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-window-gui-bench"));
    spdlog::set_level(spdlog::level::warn);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Measures the Incident tab loading a large window offscreen: the GUI event loop's longest and p99 gaps, the load "
        "time and the heap held per event, on PostgreSQL, in a database it fills and drops."));
    p.addHelpOption();
    p.addOptions({
        serverOption(),
        {QStringLiteral("events"), QStringLiteral("Events in the window (default 100000)."), QStringLiteral("N"), QStringLiteral("100000")},
        {QStringLiteral("json"), QStringLiteral("Write the figures to this JSON file (default window-gui-bench.json)."), QStringLiteral("FILE"),
         QStringLiteral("window-gui-bench.json")},
        {QStringLiteral("keep"), QStringLiteral("Keep the database for the next run (default: drop it at the end).")},
    });
    p.process(app);
    const QString serverUrl = benchServer(p);
    bool valid = false;
    const qint64 events = p.value(QStringLiteral("events")).toLongLong(&valid);
    if (!valid || events < 4) {
        std::fprintf(stderr, "triage-window-gui-bench: --events must be a whole number of at least 4, not \"%s\"\n",
                     qPrintable(p.value(QStringLiteral("events"))));
        return 1;
    }

    const QString dbName = QStringLiteral("triage_bench_window_gui_%1").arg(events);
    const QUrl server(serverUrl);
    QSqlDatabase admin = openPg(server, QStringLiteral("admin"), server.path().mid(1));
    const bool mustFill = prepareDatabase(admin, dbName, false);
    QJsonObject doc;
    {
        Workspace ws(benchConfig(databaseUrl(server, dbName)));
        QSqlDatabase raw = openPg(server, QStringLiteral("raw"), dbName);
        rawExec(raw, QStringLiteral("SET TIME ZONE 'UTC'"));
        if (mustFill) {
            createBenchSchema(ws);
            // The window: 30 minutes ending 10 minutes ago, on whole seconds (older than the
            // watermark: every event is final).
            auto start = rawExec(raw, QStringLiteral("SELECT to_char(date_trunc('second', now()) - interval '40 minutes', "
                                                     "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"));
            start.next();
            QElapsedTimer t;
            t.start();
            fill(raw, events, start.value(0).toString());
            std::printf("filled %s with %lld events in %.1f s\n", qPrintable(dbName), events, t.elapsed() / 1000.0);
        }
        // The window starts at the first record's creation (a kept database keeps its window).
        auto first = rawExec(raw, QStringLiteral("SELECT EXTRACT(EPOCH FROM MIN(created_at))::bigint FROM idempotency_record"));
        first.next();
        const UtcMicros from = first.value(0).toLongLong() * 1000000, to = from + 1800LL * 1000000;

        IncidentView view(&ws);
        view.resize(1400, 900);
        WindowEventsModel *model = view.eventsModel();
        const UtcMicros warmFrom = from - 3600LL * 1000000, warmTo = from - 1800LL * 1000000;
        // Warm-up: the tab's first show loads an empty window before the data (connections
        // opened, the mapping checked, the summary and clocks once), as when the console starts.
        {
            view.setRange(warmFrom, warmTo);
            QEventLoop wait;
            QObject::connect(&view, &IncidentView::windowLoaded, &wait, &QEventLoop::quit);
            QTimer::singleShot(60000, &wait, &QEventLoop::quit);
            view.show();
            wait.exec();
            if (model->eventCount() != 0)
                die(QStringLiteral("the warm-up window is not empty: %1 events").arg(model->eventCount()));
        }
        QCoreApplication::processEvents();

        QJsonObject runs;
        std::printf("\nIncident tab loading %lld events (pages of 500) in an offscreen 1400x900 window\n", events);
        for (const Drive drive : {Drive::Jump, Drive::Scroll}) {
            const LoadRun r = loadWindow(view, from, to, drive, warmFrom, warmTo);
            if (r.events != events)
                die(QStringLiteral("the window holds %1 events, expected %2").arg(r.events).arg(events));
            const char *name = drive == Drive::Jump ? "jump" : "scroll";
            std::printf("\n%s: %s\n", name,
                        drive == Drive::Jump ? "scrollToTime(window end), the view stays put (a click on the last histogram bar)"
                                             : "the table scrolled to the bottom every 16 ms (End held): the view fetches and repaints");
            std::printf("  load time                   %10.1f ms   (load() until the model holds the whole window; %d pages applied, "
                        "%d paints of the table's viewport)\n",
                        r.loadMs, r.pages, r.paints);
            std::printf("  GUI event loop: longest gap %10.2f ms   (target <= 50 ms: %s)\n", r.longest, r.longest <= 50 ? "met" : "MISSED");
            std::printf("  GUI event loop: p99 gap     %10.2f ms   (median %.2f ms; %lld ticks of a 1 ms timer)\n", r.p99, r.median, r.ticks);
            std::printf("  GUI thread's CPU in a gap:  %10.2f ms longest, %.2f ms p99 (the rest of a gap: waiting for a core)\n",
                        r.longestCpu, r.p99Cpu);
            std::printf("  longest gaps (ms [CPU ms] ended at ms after load(), rows then):");
            for (const Gap &g : r.top)
                std::printf(" %.1f [%.1f] @%.0f/%d", g.ms, g.cpuMs, g.endMs, g.rows);
            std::printf("\n  heap held per event         %10.0f bytes (mallinfo2 growth %lld bytes / %d events; target <= 1024: %s)\n",
                        double(r.heapGrowth) / r.events, r.heapGrowth, r.events, double(r.heapGrowth) / r.events <= 1024 ? "met" : "MISSED");
            std::printf("  model's own bytesHeld()     %10.0f bytes per event\n", double(r.modelBytes) / r.events);
            QJsonObject o;
            o[QStringLiteral("events")] = r.events;
            o[QStringLiteral("load_ms")] = r.loadMs;
            o[QStringLiteral("gui_longest_gap_ms")] = r.longest;
            o[QStringLiteral("gui_p99_gap_ms")] = r.p99;
            o[QStringLiteral("gui_median_gap_ms")] = r.median;
            o[QStringLiteral("gui_longest_gap_cpu_ms")] = r.longestCpu;
            o[QStringLiteral("gui_p99_gap_cpu_ms")] = r.p99Cpu;
            o[QStringLiteral("timer_ticks")] = r.ticks;
            o[QStringLiteral("pages")] = r.pages;
            o[QStringLiteral("table_paints")] = r.paints;
            o[QStringLiteral("heap_growth_bytes")] = r.heapGrowth;
            o[QStringLiteral("heap_bytes_per_event")] = double(r.heapGrowth) / r.events;
            o[QStringLiteral("model_bytes_per_event")] = double(r.modelBytes) / r.events;
            runs[QString::fromLatin1(name)] = o;
        }
        // One repaint of the table's viewport (about 35 visible rows), at the window's end.
        view.eventTable()->scrollToBottom();
        QCoreApplication::processEvents();
        const double repaintMs = medianMs(20, [&] { view.eventTable()->viewport()->repaint(); });
        std::printf("\none repaint of the event table's viewport: %.2f ms (median of 20)\n", repaintMs);
        doc[QStringLiteral("runs")] = runs;
        doc[QStringLiteral("table_repaint_ms")] = repaintMs;
        view.hide();
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    dropUnlessKept(admin, dbName, p.isSet(QStringLiteral("keep")));
    writeJson(p.value(QStringLiteral("json")), doc);
    return 0;
}
