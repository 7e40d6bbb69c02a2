// The bundle report (DESIGN.md §7 "Reports") from a hand-built IncidentBundle: exact HTML
// facts (escaping of keys, titles and notes holding <, &, quotes; UTC and the reader's zone;
// the hash checked; every event row; one inline SVG; no http(s) resource), the PDF's page
// count, text, repeated header and rows kept whole (pdfinfo / pdftotext from poppler-utils),
// and `triagectl report` (format by extension or --format, exact errors). Saves
// bundle-report.html / .pdf / .png (headless Chromium, pdftoppm) in this build directory.
#include "Bundle.h"
#include "BundleReport.h"
#include "CtlRun.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

const QString kOddKey = QStringLiteral("k:<script>alert(\"x\")</script>&'q'");
constexpr int kEvents = 240;

UtcMicros at(const char *iso)
{
    return *parseUtcMicros(QString::fromLatin1(iso));
}

/// An outage-like bundle: 240 events over an hour (every 12th with a long detail), an
/// incident with a pin and notes, two keys, one failed store, redactions.
IncidentBundle sampleBundle()
{
    IncidentBundle b;
    b.toolVersion = QStringLiteral("0.1.0");
    b.generatedAt = QStringLiteral("2026-12-01T04:00:00.000000Z");
    b.generatedBy = QStringLiteral("alice <ops>");
    b.query.from = at("2026-12-01T02:00:00Z");
    b.query.to = at("2026-12-01T03:00:00Z");
    b.query.bizType = QStringLiteral("ticket<&>create");
    b.stores = {BundleStore{DbRole::Idempotency, true, {}, QStringLiteral("2026-12-01T03:59:00.000000Z")},
                BundleStore{DbRole::Intent, true, {}, QStringLiteral("2026-12-01T03:59:00.000000Z")},
                BundleStore{DbRole::Ticket, false, QStringLiteral("connection refused <tickets-db>"), QString()}};
    b.clocks = {StoreClock{DbRole::Idempotency, 12, 2}, StoreClock{DbRole::Intent, -2300, 3}};
    for (int i = 0; i < kEvents; ++i) {
        WindowEvent e;
        e.at = b.query.from + qint64(i) * 15 * 1000000;
        e.atText = formatUtcMicros(e.at);
        e.kind = i % 3 == 0 ? EventKind::RecordCreated : i % 3 == 1 ? EventKind::IntentAttempt : EventKind::Audit;
        e.store = storeOf(e.kind);
        e.id = QStringLiteral("ev-%1").arg(i, 3, 10, QLatin1Char('0'));
        e.idemKey = i % 2 ? kOddKey : QStringLiteral("κλειδί/键 #%1").arg(i % 5);
        e.status = e.kind == EventKind::IntentAttempt ? QStringLiteral("UNKNOWN") : QString();
        e.actor = e.kind == EventKind::Audit ? QStringLiteral("bob") : QString();
        e.detail = QStringLiteral("title-%1 <b>bold</b> & \"quoted\"").arg(i, 3, 10, QLatin1Char('0'));
        if (i % 12 == 5)
            e.detail += QStringLiteral(" long") + QStringLiteral(" words to wrap over several lines").repeated(14);
        e.settling = i >= kEvents - 2;
        b.events << e;
    }
    b.eventsSha256 = bundleEventsSha256(b.events);
    for (int m = 0; m < 60; ++m)
        for (EventKind k : {EventKind::RecordCreated, EventKind::IntentAttempt, EventKind::Audit})
            b.summary.perMinute << MinuteCount{QStringLiteral("2026-12-01T02:%1").arg(m, 2, 10, QLatin1Char('0')), k, 1 + (m % 7 == 0 ? 3 : 0)};
    b.summary.events[int(EventKind::RecordCreated)] = 80;
    b.summary.events[int(EventKind::IntentAttempt)] = 80;
    b.summary.events[int(EventKind::Audit)] = 80;
    b.summary.unknownKeys = 2;
    b.summary.settledBy = {NameCount{QStringLiteral("bob mark_success"), 3}};

    IncidentDetail incident;
    incident.incident.id = 7;
    incident.incident.title = QStringLiteral("Outage <b>\"tickets\"</b> & co");
    incident.incident.query = b.query;
    incident.incident.createdBy = QStringLiteral("carol");
    incident.incident.createdAt = QStringLiteral("2026-12-01T03:30:00.000000Z");
    IncidentPin pin;
    pin.kind = EventKind::IntentAttempt;
    pin.eventId = QStringLiteral("ev-001");
    pin.eventAt = b.events[1].atText;
    pin.note = QStringLiteral("first <timeout>");
    pin.pinnedBy = QStringLiteral("carol");
    pin.event = b.events[1];
    incident.pins << pin;
    incident.notes << IncidentNote{1, QStringLiteral("dave"), QStringLiteral("2026-12-01T03:40:00.000000Z"),
                                   QStringLiteral("upstream said 'maybe' & retried <3 times>"), std::nullopt, QString()};
    b.incident = incident;

    KeyDetail k1;
    k1.idemKey = kOddKey;
    RecordDetail r;
    r.idemKey = kOddKey;
    r.statusText = QStringLiteral("PROCESSING");
    r.stale = true;
    k1.record = r;
    IntentAttempt a;
    a.status = QStringLiteral("UNKNOWN");
    k1.attempts = {a, a};
    AuditEntry audit;
    audit.at = QStringLiteral("2026-12-01T02:30:00.000000Z");
    audit.operatorName = QStringLiteral("bob");
    audit.action = QStringLiteral("mark_success");
    audit.outcome = QStringLiteral("applied");
    k1.audit << audit;
    k1.errors.insert(DbRole::Ticket, DbError{DbRole::Ticket, DbError::Kind::Connection, QStringLiteral("connection refused <tickets-db>"), {}});
    KeyDetail k2;
    k2.idemKey = QStringLiteral("κλειδί/键 #0");
    b.keys = {k1, k2};
    b.redactions = {Redaction{QStringLiteral("keys[0].attempts[0].request.password"), QStringLiteral("password"),
                              QStringLiteral("5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8")}};
    return b;
}

/// Runs `program` with `args`; its stdout (fails the test on a non-zero exit).
QByteArray run(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        qWarning("%s %s failed: %s", qPrintable(program), qPrintable(args.join(QLatin1Char(' '))), p.readAllStandardError().constData());
    return p.exitCode() == 0 ? p.readAllStandardOutput() : QByteArray();
}

int pdfPages(const QString &path)
{
    const QString info = QString::fromUtf8(run(QStringLiteral("pdfinfo"), {path}));
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(info);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QString pdfPageText(const QString &path, int page)
{
    return QString::fromUtf8(run(QStringLiteral("pdftotext"), {QStringLiteral("-f"), QString::number(page), QStringLiteral("-l"),
                                                               QString::number(page), QStringLiteral("-layout"), path, QStringLiteral("-")}));
}

} // namespace

class TestBundleReport : public QObject {
    Q_OBJECT
private slots:
    void htmlFacts();
    void hashMismatchIsSaid();
    void pdf();
    void cli();
};

void TestBundleReport::htmlFacts()
{
    const IncidentBundle b = sampleBundle();
    ReportOptions options;
    options.zone = QTimeZone("Asia/Shanghai");
    const QString html = bundleReportHtml(b, options);
    QFile out(outputPath(QStringLiteral("bundle-report.html")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(html.toUtf8());
    out.close();

    // Escaping: nothing of the data becomes markup.
    QVERIFY(!html.contains(QStringLiteral("<script")));
    QVERIFY(!html.contains(QStringLiteral("<b>bold</b>")));
    QVERIFY(html.contains(QStringLiteral("<title>Incident 7: Outage &lt;b&gt;&quot;tickets&quot;&lt;/b&gt; &amp; co</title>")));
    QVERIFY(html.contains(QStringLiteral("<h1>Incident 7: Outage &lt;b&gt;&quot;tickets&quot;&lt;/b&gt; &amp; co</h1>")));
    const QString oddKey = QStringLiteral("k:&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;q&#39;");
    QCOMPARE(html.count(QStringLiteral("<td class=\"key mono\">") + oddKey + QStringLiteral("</td>")), kEvents / 2 + 1);
    QVERIFY(html.contains(QStringLiteral("upstream said &#39;maybe&#39; &amp; retried &lt;3 times&gt;")));
    QVERIFY(html.contains(QStringLiteral("biz_type ticket&lt;&amp;&gt;create")));
    QVERIFY(html.contains(QStringLiteral("FAILED: connection refused &lt;tickets-db&gt;")));
    QVERIFY(html.contains(QStringLiteral("by alice &lt;ops&gt;")));

    // Both zones: the window, the export time and every event.
    QVERIFY(html.contains(QStringLiteral("from 2026-12-01 02:00:00 UTC <span class=\"local\">(2026-12-01 10:00:00 +08:00 Asia/Shanghai)</span>")));
    QVERIFY(html.contains(QStringLiteral("to 2026-12-01 03:00:00 UTC <span class=\"local\">(2026-12-01 11:00:00 +08:00 Asia/Shanghai)</span>")));
    QVERIFY(html.contains(QStringLiteral("<th>At (Asia/Shanghai)</th>")));
    QVERIFY(html.contains(QStringLiteral("<td class=\"mono\">2026-12-01T02:00:15.000000Z</td><td class=\"mono local\">2026-12-01 10:00:15 +08:00</td>")));

    // Every event row, in order, the two settling ones marked; the pinned one in bold.
    QCOMPARE(html.count(QStringLiteral("<tr class=\"ev")), kEvents);
    qsizetype from = 0;
    for (const WindowEvent &e : b.events) {
        const qsizetype pos = html.indexOf(QStringLiteral("<td class=\"mono\">%1</td>").arg(e.id), from);
        QVERIFY2(pos > from, qPrintable(e.id));
        from = pos;
    }
    QCOMPARE(html.count(QStringLiteral("<tr class=\"ev settling\">")), 2);
    QCOMPARE(html.count(QStringLiteral("<tr class=\"ev pinned\">")), 1);
    QVERIFY(html.contains(QStringLiteral("<td class=\"mono\">~2026-12-01T02:59:45.000000Z</td>")));

    // Stores, clocks, summary, keys, hash, redactions.
    QVERIFY(html.contains(QStringLiteral("−2300 ms (round trip 3 ms) <span class=\"bad\">order across stores approximate</span>")));
    QVERIFY(html.contains(QStringLiteral("Incomplete: a store failed during the export")));
    QVERIFY(html.contains(QStringLiteral("PROCESSING <span class=\"bad\">stale</span>")));
    QVERIFY(html.contains(QStringLiteral("<td class=\"num\">2 (last UNKNOWN)</td>")));
    QVERIFY(html.contains(QStringLiteral("bob mark_success <b>applied</b>")));
    QVERIFY(html.contains(QStringLiteral("Settled by operators: bob mark_success 3")));
    QVERIFY(html.contains(QStringLiteral("<span class=\"mono\">%1</span>").arg(b.eventsSha256)));
    QVERIFY(html.contains(QStringLiteral("matches the 240 events in this bundle")));
    QVERIFY(html.contains(QStringLiteral("<td class=\"mono\">keys[0].attempts[0].request.password</td><td>password</td>")));

    // One inline SVG drawn by Qt Charts (bars in the store colours), nothing fetched.
    QCOMPARE(html.count(QStringLiteral("<svg")), 1);
    QCOMPARE(html.count(QStringLiteral("</svg>")), 1);
    QVERIFY(!html.contains(QStringLiteral("<?xml")));
    QVERIFY(html.contains(QStringLiteral("fill=\"#0072b2\"")));
    QVERIFY(html.contains(QStringLiteral("Events per minute (UTC), by store")));
    QVERIFY(!html.contains(QStringLiteral("http://")));
    QVERIFY(!html.contains(QStringLiteral("https://")));
    QVERIFY(!html.contains(QRegularExpression(QStringLiteral("\\b(src|href)\\s*="))));
    QVERIFY(!html.contains(QStringLiteral("url(")));
    QVERIFY(!html.contains(QStringLiteral("@import")));

    // Headless Chromium renders it (the PNG is looked at by people: bundle-report.png).
    const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    if (chromium.isEmpty())
        QSKIP("chromium is not installed (tests/packages.txt): the HTML was not rendered");
    const QString png = outputPath(QStringLiteral("bundle-report.png"));
    QFile::remove(png);
    QProcess p;
    p.start(chromium, {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                       QStringLiteral("--screenshot=") + png, QStringLiteral("--window-size=1280,2400"),
                       QUrl::fromLocalFile(out.fileName()).toString()});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(QFileInfo(png).size() > 10000, p.readAllStandardError().constData());
}

void TestBundleReport::hashMismatchIsSaid()
{
    IncidentBundle b = sampleBundle();
    b.events[3].detail = QStringLiteral("changed after the export");
    ReportOptions utc;
    utc.zone = QTimeZone::utc();
    const QString html = bundleReportHtml(b, utc);
    QVERIFY(html.contains(QStringLiteral("DOES NOT MATCH the events in this bundle (recomputed: %1)").arg(bundleEventsSha256(b.events))));
    QVERIFY(html.contains(QStringLiteral("<th>At (UTC)</th><th>At (UTC)</th>")));
    b.redactionRules.enabled = false;
    b.redactions.clear();
    QVERIFY(bundleReportHtml(b, utc).contains(QStringLiteral("Redaction was OFF for this export (--no-redact, audited)")));
}

void TestBundleReport::pdf()
{
    const IncidentBundle b = sampleBundle();
    ReportOptions options;
    options.zone = QTimeZone("America/New_York");
    const QString path = outputPath(QStringLiteral("bundle-report.pdf"));
    QString error;
    QVERIFY2(writeBundleReportPdf(b, path, options, &error), qPrintable(error));
    const int pages = pdfPages(path);
    QVERIFY2(pages >= 5 && pages <= 40, qPrintable(QString::number(pages)));
    const QString first = pdfPageText(path, 1);
    QVERIFY2(first.contains(QStringLiteral("Incident 7: Outage <b>\"tickets\"</b> & co")), qPrintable(first));
    QVERIFY(first.contains(QStringLiteral("2026-12-01 02:00:00 UTC (2026-11-30 21:00:00 -05:00 America/New_York)")));
    // Every event on exactly one page with the start of its detail, the header row on every
    // page of the table.
    QStringList texts;
    for (int page = 1; page <= pages; ++page)
        texts << pdfPageText(path, page);
    for (const WindowEvent &e : b.events) {
        int on = 0, page = -1;
        for (int i = 0; i < texts.size(); ++i)
            if (texts[i].contains(e.id)) {
                ++on;
                page = i;
            }
        QVERIFY2(on == 1 || (on == 2 && e.id == QLatin1String("ev-001")), qPrintable(e.id)); // ev-001 is also pinned
        const QString title = QStringLiteral("title-%1").arg(e.id.mid(3));
        QVERIFY2(texts[page].contains(title), qPrintable(e.id));
        // Known limit: QTextDocument continues a tall cell (the long details) on the next page.
    }
    int tablePages = 0;
    for (const QString &t : texts)
        if (t.contains(QStringLiteral("ev-")) && !t.contains(QStringLiteral("Pinned events")))
            tablePages += t.contains(QStringLiteral("At (UTC)")) ? 1 : 0;
    QVERIFY2(tablePages >= pages - 3, qPrintable(QString::number(tablePages)));
    QVERIFY(texts.last().contains(b.eventsSha256));
    // The first page as a PNG (looked at by people: bundle-report-page1.png).
    run(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("60"), QStringLiteral("-f"),
                                     QStringLiteral("1"), QStringLiteral("-l"), QStringLiteral("2"), path,
                                     outputPath(QStringLiteral("bundle-report-page"))});
}

void TestBundleReport::cli()
{
    QTemporaryDir dir;
    const IncidentBundle b = sampleBundle();
    const QString bundlePath = dir.filePath(QStringLiteral("outage.json"));
    QFile f(bundlePath);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(writeBundleJson(b));
    f.close();
    QString error;
    const auto reread = readBundleJson(writeBundleJson(b), &error);
    QVERIFY2(reread, qPrintable(error));
    ReportOptions utc;
    utc.zone = QTimeZone::utc();

    // HTML by extension: the same report as the library's; no database options needed.
    const QString html = dir.filePath(QStringLiteral("r.HTML"));
    CtlRun r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), html, QStringLiteral("--zone"), QStringLiteral("UTC")});
    QVERIFY2(r.ok(), r.describe().constData());
    QCOMPARE(r.out, QByteArray());
    QFile h(html);
    QVERIFY(h.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(h.readAll()), bundleReportHtml(*reread, utc));

    // PDF by --format whatever the name says.
    const QString pdf = dir.filePath(QStringLiteral("report.out"));
    r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), pdf, QStringLiteral("--format"), QStringLiteral("pdf")});
    QVERIFY2(r.ok(), r.describe().constData());
    QVERIFY(pdfPages(pdf) >= 5);

    // Bad input: exact messages, exit 1, nothing written.
    r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), dir.filePath(QStringLiteral("r.txt"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith(QStringLiteral("triagectl: --out \"%1\": name a .html or .pdf file, or give --format html|pdf\n")
                                  .arg(dir.filePath(QStringLiteral("r.txt")))
                                  .toUtf8()),
             r.describe().constData());
    r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), html, QStringLiteral("--format"), QStringLiteral("csv")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("triagectl: --format \"csv\": report writes html or pdf\n"), r.describe().constData());
    r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), html, QStringLiteral("--zone"), QStringLiteral("Mars/Olympus")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("triagectl: --zone \"Mars/Olympus\": not a time zone (an IANA name such as Europe/Berlin, or UTC)\n"),
             r.describe().constData());
    r = runCtl({QStringLiteral("report"), bundlePath});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("triagectl: report: give --out FILE.html or FILE.pdf\n"), r.describe().constData());
    const QString missing = dir.filePath(QStringLiteral("missing.json"));
    r = runCtl({QStringLiteral("report"), missing, QStringLiteral("--out"), html});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err, QStringLiteral("triagectl: cannot read %1: No such file or directory\n").arg(missing).toUtf8());
    QFile notBundle(dir.filePath(QStringLiteral("other.json")));
    QVERIFY(notBundle.open(QIODevice::WriteOnly));
    notBundle.write("{\"hello\": 1}");
    notBundle.close();
    r = runCtl({QStringLiteral("report"), notBundle.fileName(), QStringLiteral("--out"), html});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err, QStringLiteral("triagectl: %1: not a triage incident bundle (no \"format\")\n").arg(notBundle.fileName()).toUtf8());
}

QTEST_MAIN(TestBundleReport)
#include "tst_bundle_report.moc"
