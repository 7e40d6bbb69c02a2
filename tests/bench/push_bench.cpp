// triage-push-bench: how soon a change committed by another session appears in an open queue
// (DESIGN.md §9 "Push"), on PostgreSQL, in a database it creates and drops. Measures, for
// --changes records inserted one at a time, 100 ms apart, by a session of its own: the time from its COMMIT
// returning to the row being in the QueueModel (shown in an offscreen QTableView), with push
// (the NOTIFY triggers and a PushFeed, no polling) and with polling alone (every --poll-ms);
// then a burst of --burst-per-minute changes a minute for --burst-seconds with push, measuring
// the GUI event loop's longest gap (a 1 ms timer); then the poll statement (the Failed queue's
// first page of 1,000 rows and its count) over --records records. Prints p50 / p99 / max and
// writes push-bench.json.
#include "BenchUtil.h"

#include "Log.h"
#include "PushFeed.h"
#include "PushTriggers.h"
#include "Queue.h"
#include "ModelRoles.h"
#include "QueueModel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTableView>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <thread>

using namespace triage;
using namespace triage::bench;

namespace {

double percentile(QVector<double> v, double p)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.at(std::min<qsizetype>(v.size() - 1, qsizetype(p * (v.size() - 1) + 0.5)));
}

bool holds(const QueueModel &m, const QString &key)
{
    for (int i = m.rowCount() - 1; i >= 0; --i)
        if (m.queueRow(i).idemKey == key)
            return true;
    return false;
}

/// Inserts FAILED record `key` through `raw` (its own session; autocommit).
void insertFailed(QSqlDatabase &raw, const QString &key)
{
    rawExec(raw, QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                                "VALUES ('%1', 'ticket_create', 2, now(), now(), now() + interval '7 days')")
                     .arg(key));
}

/// Waits (event loop running) until `done` or `ms` passed; false on time out.
bool waitFor(const std::function<bool()> &done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

struct Latencies {
    QVector<double> ms;
    QJsonObject json(const char *name) const
    {
        std::printf("%-34s n=%-5lld p50 %8.1f ms   p99 %8.1f ms   max %8.1f ms\n", name, qint64(ms.size()), percentile(ms, 0.5),
                    percentile(ms, 0.99), percentile(ms, 1.0));
        return {{QStringLiteral("n"), qint64(ms.size())}, {QStringLiteral("p50_ms"), percentile(ms, 0.5)},
                {QStringLiteral("p99_ms"), percentile(ms, 0.99)}, {QStringLiteral("max_ms"), percentile(ms, 1.0)}};
    }
};

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-push-bench"));
    spdlog::set_level(spdlog::level::err);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Measures how soon another session's change reaches an open queue, by push and by polling."));
    p.addHelpOption();
    p.addOptions({
        serverOption(),
        {QStringLiteral("changes"), QStringLiteral("Changes measured one at a time (default 200)."), QStringLiteral("N"), QStringLiteral("200")},
        {QStringLiteral("poll-ms"), QStringLiteral("The polling interval compared (default 1000 ms)."), QStringLiteral("MS"), QStringLiteral("1000")},
        {QStringLiteral("burst-per-minute"), QStringLiteral("Changes a minute in the burst (default 10000)."), QStringLiteral("N"), QStringLiteral("10000")},
        {QStringLiteral("burst-seconds"), QStringLiteral("Length of the burst (default 20)."), QStringLiteral("S"), QStringLiteral("20")},
        {QStringLiteral("records"), QStringLiteral("Records in the table for the poll statement (default 1000000)."), QStringLiteral("N"),
         QStringLiteral("1000000")},
        {QStringLiteral("json"), QStringLiteral("Write the figures here (default push-bench.json)."), QStringLiteral("FILE"), QStringLiteral("push-bench.json")},
        {QStringLiteral("keep"), QStringLiteral("Keep the database.")},
    });
    p.process(app);
    const QString serverUrl = benchServer(p);
    const int changes = p.value(QStringLiteral("changes")).toInt(), pollMs = p.value(QStringLiteral("poll-ms")).toInt();
    const int perMinute = p.value(QStringLiteral("burst-per-minute")).toInt(), burstS = p.value(QStringLiteral("burst-seconds")).toInt();
    const qint64 records = p.value(QStringLiteral("records")).toLongLong();
    const QUrl server(serverUrl);
    const QString dbName = QStringLiteral("triage_bench_push");
    QSqlDatabase admin = openPg(server, QStringLiteral("admin"), server.path().mid(1));
    prepareDatabase(admin, dbName, true);
    QJsonObject doc;
    {
        Workspace ws(benchConfig(databaseUrl(server, dbName)));
        createBenchSchema(ws);
        QSqlDatabase raw = openPg(server, QStringLiteral("raw"), dbName);
        const auto installed = changePushTriggers(ws, true, QStringLiteral("push benchmark run")).result();
        if (!installed.ok())
            die(installed.error->message);
        QueueModel model(&ws);
        QTableView view;
        view.setModel(&model);
        view.resize(1200, 800);
        view.show();
        QueueRequest req;
        req.kind = QueueKind::Failed;
        model.setRequest(req);
        if (!waitFor([&] { return !model.isLoading() && !model.isCounting(); }, 60000))
            die(QStringLiteral("the queue did not load"));

        // Push: a feed, no polling timer.
        Latencies push;
        {
            PushFeed feed(ws.config());
            QObject::connect(&feed, &PushFeed::changed, &model, [&](const QSet<int> &) { model.requestPoll(); });
            QObject::connect(&feed, &PushFeed::resynced, &model, [&](const QSet<int> &) { model.requestPoll(); });
            feed.start();
            if (!waitFor([&] { return feed.state() == PushState::Live; }, 30000))
                die(QStringLiteral("push did not come live: ") + feed.statusText());
            for (int i = 0; i < changes; ++i) {
                waitFor([] { return false; }, 100); // lone changes: past the feed's 50 ms coalescing
                const QString key = QStringLiteral("push:%1").arg(i);
                insertFailed(raw, key);
                QElapsedTimer t;
                t.start();
                if (!waitFor([&] { return holds(model, key); }, 30000))
                    die(QStringLiteral("change %1 never arrived by push").arg(i));
                push.ms << t.nsecsElapsed() / 1e6;
            }
            doc[QStringLiteral("push")] = push.json("push (NOTIFY), one change at a time");

            // The burst: perMinute changes a minute, the GUI loop's gaps measured.
            QElapsedTimer clock;
            clock.start();
            qint64 last = 0, worst = 0;
            QTimer tick;
            QObject::connect(&tick, &QTimer::timeout, [&] {
                const qint64 now = clock.elapsed();
                worst = std::max(worst, now - last);
                last = now;
            });
            // From a session of its own in another thread, as another process would: a FAILED
            // record, and the one inserted 5 before settled (it leaves the queue), paced at
            // perMinute statements a minute in all.
            const int total = perMinute * burstS / 60;
            const double every = 60000.0 / perMinute;
            std::atomic<int> sent{0};
            std::atomic<bool> writing{true};
            QElapsedTimer burst;
            burst.start();
            last = clock.elapsed();
            tick.start(1);
            std::thread writer([&] {
                {
                    QSqlDatabase w = QSqlDatabase::cloneDatabase(QStringLiteral("raw"), QStringLiteral("burst"));
                    if (!w.open())
                        die(w.lastError().text());
                    QElapsedTimer pace;
                    pace.start();
                    for (int i = 0; sent < total; ++i) {
                        while (pace.elapsed() < sent * every)
                            QThread::msleep(1);
                        insertFailed(w, QStringLiteral("burst:%1").arg(i));
                        ++sent;
                        if (i >= 5) {
                            rawExec(w, QStringLiteral("UPDATE idempotency_record SET status = 1, updated_at = now() WHERE idem_key = 'burst:%1'")
                                           .arg(i - 5));
                            ++sent;
                        }
                    }
                    w.close();
                }
                QSqlDatabase::removeDatabase(QStringLiteral("burst"));
                writing = false;
            });
            while (writing)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            writer.join();
            const double burstMs = burst.elapsed();
            // Then the queue as the model holds it must be the table's (push alone moved it).
            auto tableKeys = [&] {
                QStringList keys;
                QSqlQuery q = rawExec(raw, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 2 ORDER BY updated_at, id"));
                while (q.next())
                    keys << q.value(0).toString();
                return keys;
            };
            auto heldKeys = [&] {
                QStringList keys;
                for (int i = 0; i < model.rowCount(); ++i)
                    if (model.index(i, 0).data(roles::LiveChange).toInt() != 2)
                        keys << model.queueRow(i).idemKey;
                return keys;
            };
            const QStringList want = tableKeys();
            const bool exact = waitFor([&] { return heldKeys() == want; }, 30000);
            tick.stop();
            std::printf("%-34s %d changes in %.1f s: GUI loop's longest gap %lld ms (target <= 50 ms); the queue %s the table's (%lld rows)\n",
                        "burst with push", int(sent), burstMs / 1000.0, worst, exact ? "equals" : "DIFFERS FROM", qint64(want.size()));
            doc[QStringLiteral("burst_exact")] = exact;
            doc[QStringLiteral("burst_changes")] = int(sent);
            doc[QStringLiteral("burst_longest_gap_ms")] = worst;
        }

        // Polling alone, every pollMs, on a queue opened afresh.
        Latencies poll;
        QueueModel polled(&ws);
        QueueRequest newest = req; // newest first: a new row enters at the top, whatever the model holds
        newest.newestFirst = true;
        polled.setRequest(newest);
        if (!waitFor([&] { return !polled.isLoading() && !polled.isCounting(); }, 60000))
            die(QStringLiteral("the queue did not load"));
        polled.setLiveInterval(pollMs);
        for (int i = 0; i < std::max(10, changes / 10); ++i) {
            const QString key = QStringLiteral("poll:%1").arg(i);
            insertFailed(raw, key);
            QElapsedTimer t;
            t.start();
            if (!waitFor([&] { return holds(polled, key); }, 30000))
                die(QStringLiteral("change %1 never arrived by polling").arg(i));
            poll.ms << t.nsecsElapsed() / 1e6;
        }
        polled.setLiveInterval(0);
        doc[QStringLiteral("polling")] = poll.json(qPrintable(QStringLiteral("polling every %1 ms").arg(pollMs)));

        // The poll statement over `records` records (most of them settled, as in production).
        rawExec(raw, QStringLiteral("ALTER TABLE idempotency_record DISABLE TRIGGER triage_console_notify"));
        rawExec(raw, QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                                    "SELECT 'fill:' || g, 'ticket_create', CASE WHEN g % 1000 = 0 THEN 2 ELSE 1 END, "
                                    "now() - g * interval '1 second', now() - g * interval '1 second', now() + interval '7 days' "
                                    "FROM generate_series(1, %1) g")
                         .arg(records));
        rawExec(raw, QStringLiteral("ANALYZE idempotency_record"));
        // Measured twice: right after the bulk load (no page all-visible yet: every row the
        // index finds is also read from the heap), and once a VACUUM has set the visibility map,
        // as autovacuum does on a table in steady use.
        const auto measurePoll = [&](const char *when, const QString &suffix) {
            const double pageMs = medianMs(7, [&] {
                const auto page = fetchQueuePage(ws, req, QueueCursor{}, 1000).result();
                if (!page.ok())
                    die(page.error->message);
            });
            const double smallMs = medianMs(7, [&] {
                const auto page = fetchQueuePage(ws, req, QueueCursor{}, 120).result();
                if (!page.ok())
                    die(page.error->message);
            });
            const double countMs = medianMs(7, [&] {
                const auto n = countQueue(ws, req).result();
                if (!n.ok())
                    die(n.error->message);
            });
            std::printf("%-34s %s: first 120 rows %.2f ms, first 1,000 rows %.2f ms, count %.2f ms over %lld records (target <= 5 ms)\n",
                        "poll statement (median of 7)", when, smallMs, pageMs, countMs, records);
            doc[QStringLiteral("poll_page_120_ms") + suffix] = smallMs;
            doc[QStringLiteral("poll_page_ms") + suffix] = pageMs;
            doc[QStringLiteral("poll_count_ms") + suffix] = countMs;
        };
        doc[QStringLiteral("records")] = records;
        measurePoll("after the bulk load", QString());
        rawExec(raw, QStringLiteral("VACUUM ANALYZE idempotency_record"));
        measurePoll("after VACUUM", QStringLiteral("_vacuumed"));
        raw.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    dropUnlessKept(admin, dbName, p.isSet(QStringLiteral("keep")));
    writeJson(p.value(QStringLiteral("json")), doc);
    return 0;
}
