// triage-bundle-open-bench: the offline viewer (DESIGN.md §7 "Offline viewer", issue 14's
// "reopening it offline shows the first page in ≤ 1 s"). Writes a bundle of --events events
// (default 100,000; hand-built like a 30-minute window: a quarter records, a quarter tickets,
// the rest intent attempts, each with its key's detail) with writeBundleJson() to a temporary
// file, then measures, in an offscreen 1400x900 BundleWindow with no database, as --open-bundle
// opens it: reading the file, readBundleHead() (header and first events), and the window until
// its event list shows the first page (IncidentView::windowLoaded()); then the rest read
// (readBundleJson()) and the hash checked (bundleEventsSha256()), both off the GUI thread, and
// the whole list paged to its end. Needs no server.
#include "BenchUtil.h"

#include "Bundle.h"
#include "BundleWindow.h"
#include "IncidentView.h"
#include "WindowEventsModel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <limits>

using namespace triage;
using namespace triage::bench;

namespace {

IncidentBundle makeBundle(qint64 events)
{
    IncidentBundle b;
    b.toolVersion = QStringLiteral("bench");
    b.generatedAt = QStringLiteral("2026-01-02T00:00:00.000000Z");
    b.generatedBy = QStringLiteral("bench");
    b.query.from = *parseUtcMicros(QStringLiteral("2026-01-01T00:00:00.000000Z"));
    b.query.to = b.query.from + 1800LL * 1000000;
    b.events.reserve(events);
    const qint64 keys = qMax<qint64>(1, events / 4);
    for (qint64 i = 0; i < events; ++i) {
        WindowEvent e;
        e.at = b.query.from + i * 1800LL * 1000000 / events;
        e.atText = formatUtcMicros(e.at);
        const int kind = int(i % 4);
        e.kind = kind == 0 ? EventKind::RecordCreated : kind == 1 ? EventKind::TicketCreated : EventKind::IntentAttempt;
        e.store = storeOf(e.kind);
        e.id = QString::number(i);
        e.idemKey = QStringLiteral("ticket_create:acme:%1").arg(i % keys, 8, 10, QLatin1Char('0'));
        e.status = e.kind == EventKind::IntentAttempt ? QStringLiteral("UNKNOWN") : e.kind == EventKind::TicketCreated ? QStringLiteral("OPEN") : QString();
        e.actor = e.kind == EventKind::IntentAttempt ? QStringLiteral("agent-%1").arg(i % 8) : QString();
        e.detail = e.kind == EventKind::IntentAttempt ? QStringLiteral("create_ticket") : QStringLiteral("ticket %1").arg(i);
        b.events << e;
    }
    b.eventsSha256 = bundleEventsSha256(b.events);
    for (qint64 k = 0; k < keys; ++k) {
        KeyDetail d;
        d.idemKey = QStringLiteral("ticket_create:acme:%1").arg(k, 8, 10, QLatin1Char('0'));
        IntentAttempt a;
        a.id = k;
        a.taskId = QStringLiteral("task_%1").arg(k);
        a.action = QStringLiteral("create_ticket");
        a.status = QStringLiteral("UNKNOWN");
        a.createdAt = a.updatedAt = formatUtcMicros(b.query.from);
        d.attempts << a;
        b.keys << d;
    }
    return b;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triage-bundle-open-bench"));
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Measures reopening a bundle offline: file read, parse, first page shown (target <= 1 s)."));
    p.addHelpOption();
    p.addOptions({
        {QStringLiteral("events"), QStringLiteral("Events in the bundle (default 100000)."), QStringLiteral("N"), QStringLiteral("100000")},
        {QStringLiteral("json"), QStringLiteral("Write the figures to this JSON file (default bundle-open-bench.json)."), QStringLiteral("FILE"),
         QStringLiteral("bundle-open-bench.json")},
    });
    p.process(app);
    bool valid = false;
    const qint64 events = p.value(QStringLiteral("events")).toLongLong(&valid);
    if (!valid || events < 1) {
        std::fprintf(stderr, "triage-bundle-open-bench: --events must be a whole number of at least 1\n");
        return 1;
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bundle.json"));
    {
        QElapsedTimer t;
        t.start();
        const QByteArray json = writeBundleJson(makeBundle(events));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(json) != json.size())
            die(QStringLiteral("cannot write %1").arg(path));
        std::printf("wrote a bundle of %lld events (%.1f MB) in %.1f s\n", events, json.size() / 1e6, t.elapsed() / 1000.0);
    }

    QElapsedTimer clock;
    clock.start();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        die(QStringLiteral("cannot read %1").arg(path));
    const QByteArray bytes = f.readAll();
    const double readMs = clock.nsecsElapsed() / 1e6;
    QString error;
    // As --open-bundle does: the header and the first events now, the rest in the window.
    std::optional<BundleHead> head = readBundleHead(bytes, kBundleFirstEvents, &error);
    if (!head)
        die(error);
    if (head->whole)
        die(QStringLiteral("the bundle was not read in two steps"));
    const double parsedMs = clock.nsecsElapsed() / 1e6;
    BundleWindow window(std::move(*head), bytes, path, nullptr);
    window.resize(1400, 900);
    IncidentView *view = window.incidentView();
    double firstPageMs = 0, hashMs = 0;
    QEventLoop wait;
    QObject::connect(view, &IncidentView::windowLoaded, &wait, [&] {
        firstPageMs = clock.nsecsElapsed() / 1e6;
        wait.quit();
    });
    QTimer::singleShot(120000, &wait, [] { die(QStringLiteral("the first page did not show within 2 minutes")); });
    window.show();
    wait.exec();
    const int firstRows = view->eventsModel()->rowCount();
    {
        QEventLoop hashed;
        QObject::connect(&window, &BundleWindow::hashChecked, &hashed, &QEventLoop::quit);
        if (!window.hashDone())
            hashed.exec();
        hashMs = clock.nsecsElapsed() / 1e6;
    }
    {
        QEventLoop all;
        QObject::connect(view->eventsModel(), &WindowEventsModel::pageLoaded, &all, [&](int, int, bool atEnd) {
            if (atEnd)
                all.quit();
        });
        view->scrollToTime(std::numeric_limits<qint64>::max());
        if (!view->eventsModel()->atEnd())
            all.exec();
    }
    const double allMs = clock.nsecsElapsed() / 1e6;
    if (view->eventsModel()->eventCount() != events)
        die(QStringLiteral("the list holds %1 events, expected %2").arg(view->eventsModel()->eventCount()).arg(events));
    std::printf("\nreopening %lld events offline (no database), offscreen 1400x900:\n", events);
    std::printf("  file read                     %10.1f ms\n", readMs);
    std::printf("  readBundleHead()              %10.1f ms (cumulative)\n", parsedMs);
    std::printf("  first page shown (%d rows)   %10.1f ms (cumulative; target <= 1000 ms: %s)\n", firstRows, firstPageMs,
                firstPageMs <= 1000 ? "met" : "MISSED");
    std::printf("  rest read, hash checked       %10.1f ms (cumulative)\n", hashMs);
    std::printf("  whole list paged to its end   %10.1f ms (cumulative)\n", allMs);
    QJsonObject doc;
    doc[QStringLiteral("events")] = events;
    doc[QStringLiteral("file_read_ms")] = readMs;
    doc[QStringLiteral("parsed_ms")] = parsedMs;
    doc[QStringLiteral("first_page_ms")] = firstPageMs;
    doc[QStringLiteral("hash_checked_ms")] = hashMs;
    doc[QStringLiteral("all_pages_ms")] = allMs;
    writeJson(p.value(QStringLiteral("json")), doc);
    return 0;
}
