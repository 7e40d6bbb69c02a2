// The bundle report (DESIGN.md §7 "Reports") from a hand-built IncidentBundle: exact HTML
// facts (escaping of keys, titles and notes holding <, &, quotes; UTC and the reader's zone;
// the hash checked; every event row; one inline SVG; no http(s) resource), the PDF's page
// count, text, repeated header and rows kept whole (pdfinfo / pdftotext from poppler-utils),
// and `triagectl report` (format by extension or --format, exact errors). Saves
// bundle-report.html / .pdf / .png (headless Chromium, pdftoppm) in this build directory.
#include "Bundle.h"
#include "BundleReport.h"
#include "CtlRun.h"
#include "ReportColumns.h"
#include "ReportPages.h"

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
            e.detail += QStringLiteral(" long") + QStringLiteral(" words to wrap over several lines").repeated(14)
                + QStringLiteral(" tail%1").arg(i, 3, 10, QLatin1Char('0'));
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
    audit.id = 11;
    audit.at = QStringLiteral("2026-12-01T02:30:00.000000Z");
    audit.operatorName = QStringLiteral("bob");
    audit.action = QStringLiteral("mark_success");
    audit.outcome = QStringLiteral("applied");
    // Operator actions as the stores list them (audit rows, then compensations), not in time
    // order: the report orders them by time, then id.
    AuditEntry query = audit;
    query.id = 4;
    query.at = QStringLiteral("2026-12-01T02:10:00.000000Z");
    query.operatorName = QStringLiteral("alice");
    query.action = QStringLiteral("query_upstream");
    query.outcome = QStringLiteral("done");
    AuditEntry late = audit;
    late.id = 12;
    late.at = QStringLiteral("2026-12-01T02:30:00.000000Z"); // same time as audit 11: by id
    late.operatorName = QStringLiteral("carol");
    late.outcome = QStringLiteral("conflict");
    k1.audit << audit << query << late;
    CompensationRow comp;
    comp.id = 2;
    comp.action = QStringLiteral("cancel_ticket");
    comp.operatorName = QStringLiteral("bob");
    comp.status = QStringLiteral("SUCCEEDED");
    comp.createdAt = QStringLiteral("2026-12-01T02:20:00.000000Z");
    k1.compensations << comp;
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
    void paginate();
    void columnWidths();
    void keysTableKeepsKeysWhole();
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
    // k1's operator actions in time order, then by id (DESIGN.md §7 "Reports").
    QVERIFY2(html.contains(QStringLiteral(
                 "2026-12-01 02:10:00 UTC <span class=\"local\">(2026-12-01 10:10:00 +08:00 Asia/Shanghai)</span> alice query_upstream "
                 "<b>done</b><br>"
                 "2026-12-01 02:20:00 UTC <span class=\"local\">(2026-12-01 10:20:00 +08:00 Asia/Shanghai)</span> compensation "
                 "cancel_ticket by bob: <b>SUCCEEDED</b><br>"
                 "2026-12-01 02:30:00 UTC <span class=\"local\">(2026-12-01 10:30:00 +08:00 Asia/Shanghai)</span> bob mark_success "
                 "<b>applied</b><br>"
                 "2026-12-01 02:30:00 UTC <span class=\"local\">(2026-12-01 10:30:00 +08:00 Asia/Shanghai)</span> carol mark_success "
                 "<b>conflict</b></td>")),
             "operator actions not in time order");
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
    // Said at the top too, before the first section, where a reader starts.
    const QString warning = QStringLiteral("<p class=\"bad\">THE EVENTS DO NOT MATCH THIS BUNDLE'S HASH: the file was changed after "
                                           "the export; do not trust its events (see \"Integrity and redaction\").</p>");
    QCOMPARE(html.count(warning), qsizetype(1));
    QVERIFY(html.indexOf(warning) < html.indexOf(QStringLiteral("<h2>")));
    QVERIFY(!bundleReportHtml(sampleBundle(), utc).contains(QStringLiteral("THE EVENTS DO NOT MATCH")));
    b.redactionRules.enabled = false;
    b.redactions.clear();
    const QString plain = bundleReportHtml(b, utc);
    QVERIFY(plain.contains(QStringLiteral("Redaction was OFF for this export (--no-redact, audited)")));
    const QString off = QStringLiteral("<p class=\"bad\">Redaction was OFF for this export (--no-redact): secrets are as stored.</p>");
    QVERIFY(plain.indexOf(off) >= 0 && plain.indexOf(off) < plain.indexOf(QStringLiteral("<h2>")));
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
    QStringList texts;
    for (int page = 1; page <= pages; ++page)
        texts << pdfPageText(path, page);
    // Every event row whole on exactly one page: its id, the start and the end of its detail
    // (the long ones wrap over several lines).
    for (const WindowEvent &e : b.events) {
        int on = 0, page = -1;
        for (int i = 0; i < texts.size(); ++i)
            if (texts[i].contains(e.id)) {
                ++on;
                page = i;
            }
        QVERIFY2(on == 1 || (on == 2 && e.id == QLatin1String("ev-001")), qPrintable(e.id)); // ev-001 is also pinned
        QVERIFY2(texts[page].contains(QStringLiteral("title-%1").arg(e.id.mid(3))), qPrintable(e.id));
        if (e.detail.contains(QStringLiteral(" tail"))) {
            const QString end = QStringLiteral("tail%1").arg(e.id.mid(3));
            for (int i = 0; i < texts.size(); ++i)
                QVERIFY2(texts[i].contains(end) == (i == page), qPrintable(QStringLiteral("%1 split: its end on page %2").arg(e.id).arg(i + 1)));
        }
    }
    // The events table's header row on every page that holds event rows; the footer on every
    // page; no page ends with a section heading (it goes to the next page with its content).
    // ("Events per bucket" is not checked: its content is an image, which has no text.)
    const QStringList headings{QStringLiteral("Stores"), QStringLiteral("Summary"),
                               QStringLiteral("Pinned events (1)"), QStringLiteral("Notes (1)"), QStringLiteral("Keys (2): outcomes"),
                               QStringLiteral("Events (240)"), QStringLiteral("Integrity and redaction")};
    int eventPages = 0;
    for (int i = 0; i < texts.size(); ++i) {
        const QString &text = texts[i];
        const bool events = text.contains(QRegularExpression(QStringLiteral("\\bev-\\d{3}\\b")))
            && (i > 0 || text.contains(QStringLiteral("Events (240)")));
        if (events && !text.contains(QStringLiteral("Pinned by"))) {
            ++eventPages;
            QVERIFY2(text.contains(QStringLiteral("At (UTC)")) && text.contains(QStringLiteral("At (America/New_York)")),
                     qPrintable(QStringLiteral("page %1 has event rows but no header row:\n%2").arg(i + 1).arg(text)));
        }
        QVERIFY2(text.contains(QStringLiteral("page %1 of %2").arg(i + 1).arg(pages)), qPrintable(text));
        QStringList lines;
        for (const QString &line : text.split(QLatin1Char('\n')))
            if (!line.trimmed().isEmpty() && !line.contains(QStringLiteral("page %1 of").arg(i + 1)))
                lines << line.trimmed();
        QVERIFY(!lines.isEmpty());
        QVERIFY2(!headings.contains(lines.last()), qPrintable(QStringLiteral("page %1 ends with the heading \"%2\"").arg(i + 1).arg(lines.last())));
    }
    QVERIFY2(eventPages >= 3, qPrintable(QString::number(eventPages)));
    QVERIFY(texts.last().contains(b.eventsSha256));
    // The first pages as PNGs (looked at by people: bundle-report-page-N.png).
    run(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("60"), path,
                                     outputPath(QStringLiteral("bundle-report-page"))});
}

void TestBundleReport::paginate()
{
    // Pieces of 0..100: a heading (keep with next), a paragraph, a table's header row and its
    // body rows, one taller than a page.
    const QVector<ReportTableHead> heads{{30, 40}};
    const QVector<ReportAtom> atoms{
        {0, 10, true, -1},    // heading
        {12, 20, false, -1},  // paragraph
        {22, 28, true, -1},   // heading of the table
        {30, 40, true, -1},   // the table's header row
        {40, 55, false, 0},   // row 1
        {55, 70, false, 0},   // row 2
        {70, 170, false, 0},  // row 3, taller than a page
        {170, 180, false, 0}, // row 4
    };
    // Page 1 would end inside row 2: it ends after row 1; row 2 starts page 2 below the
    // repeated header; row 3 does not fit there, starts page 3, and is sliced at 60 units a page.
    QCOMPARE(paginateReport(atoms, heads, 60),
             (QVector<ReportPage>{{0, 55, -1}, {55, 70, 0}, {70, 120, 0}, {120, 170, 0}, {170, 180, 0}}));
    // A page that would end on the heading "of the table" ends before it: the heading goes on with
    // its table's header and first row.
    QCOMPARE(paginateReport(atoms.mid(0, 5), heads, 50), (QVector<ReportPage>{{0, 20, -1}, {22, 55, -1}}));
    // A header row is never last on a page either.
    QCOMPARE(paginateReport({{0, 10, false, -1}, {12, 20, true, -1}, {20, 30, false, 0}}, {{12, 20}}, 25),
             (QVector<ReportPage>{{0, 10, -1}, {12, 30, -1}}));
    QCOMPARE(paginateReport({}, {}, 60), QVector<ReportPage>{});
}

void TestBundleReport::columnWidths()
{
    // The events table's columns (#, at UTC, at local, store, kind, id, status, key, actor,
    // detail), widest cells in pt, a table 800 pt wide: 430 pt fixed, 370 left; the detail
    // first takes at most a quarter of it (92.5), the key up to its widest cell of the rest,
    // the detail what remains; the rounding's rest goes to the detail.
    const QVector<double> widest{10, 100, 100, 50, 60, 20, 50, 300, 40, 200};
    QCOMPARE(reportColumnPercents(widest, 7, 9, 800), (QVector<int>{1, 12, 12, 6, 7, 2, 6, 34, 5, 15}));
    // A short key: the detail gets the rest.
    QVector<double> shortKey = widest;
    shortKey[7] = 100;
    QCOMPARE(reportColumnPercents(shortKey, 7, 9, 800), (QVector<int>{1, 12, 12, 6, 7, 2, 6, 12, 5, 37}));
    // The detail's longest word (150 pt) is not cut: the key gets less.
    QCOMPARE(reportColumnPercents(widest, 7, 9, 800, 150), (QVector<int>{1, 12, 12, 6, 7, 2, 6, 27, 5, 22}));
    // Fixed columns wider than the table: everything in proportion.
    QCOMPARE(reportColumnPercents({500, 400, 100, 100}, 2, 3, 800), (QVector<int>{45, 36, 9, 10}));
    QCOMPARE(breakAtNaturalPoints(QStringLiteral("pay:capture_x/y")),
             QStringLiteral("pay:") + QChar(0x200B) + QStringLiteral("capture_") + QChar(0x200B) + QStringLiteral("x/") + QChar(0x200B)
                 + QStringLiteral("y"));
}

void TestBundleReport::keysTableKeepsKeysWhole()
{
    // DESIGN.md §7 "Reports": the PDF's keys table gives the key column its longest key (up to
    // 45 % of the page), so the demo's long keys are not wrapped inside a word; a longer key
    // wraps at its natural points (':' '_' '/' '.' '@'). Each key has operator actions, as in
    // the demo: before, their words took the width and the key column was a few characters.
    IncidentBundle b = sampleBundle();
    const QStringList keys{QStringLiteral("ticket:create:umbrella:457d97ea-8b60-4024-5c0e-7812d875:attempt2"),
                           QStringLiteral("ticket:create:globex:ae3f6ab3-369a-43cb-e598-80b3c578a372"),
                           QStringLiteral("pay:capture:acme:b6ff9b23-9ba6-4b4d-157b-aad9385db3e7")};
    b.keys.clear();
    for (const QString &key : keys) {
        KeyDetail k;
        k.idemKey = key;
        for (int i = 0; i < 3; ++i) {
            AuditEntry a;
            a.id = i + 1;
            a.at = QStringLiteral("2026-12-01T02:1%1:00.000001Z").arg(i);
            a.operatorName = QStringLiteral("alice");
            a.action = i == 0 ? QStringLiteral("query_upstream") : QStringLiteral("mark_success");
            a.outcome = QStringLiteral("ok: the upstream holds the ticket, recorded as evidence");
            k.audit << a;
        }
        b.keys << k;
    }
    KeyDetail longKey;
    longKey.idemKey = QStringLiteral("ticket:create:") + QString(150, QLatin1Char('x')) + QStringLiteral(":tail");
    b.keys << longKey;
    const QString path = outputPath(QStringLiteral("bundle-report-keys.pdf"));
    QString error;
    QVERIFY2(writeBundleReportPdf(b, path, ReportOptions(), &error), qPrintable(error));
    QString text;
    for (int page = 1, pages = pdfPages(path); page <= pages; ++page)
        text += pdfPageText(path, page);
    text.remove(QChar(0x200B));
    const qsizetype table = text.indexOf(QStringLiteral("Keys (4): outcomes"));
    QVERIFY(table >= 0);
    const QString keysTable = text.mid(table, text.indexOf(QStringLiteral("Events ("), table) - table);
    for (const QString &key : keys)
        QVERIFY2(keysTable.contains(key), qPrintable(key + QStringLiteral(" not on one line in:\n") + keysTable));
    // The long key wraps after "ticket:create:" (its 150 x's, wider than the column, are then cut
    // where the line ends), and the headers stay whole.
    QVERIFY2(keysTable.contains(QRegularExpression(QStringLiteral("ticket:create:\\s"))), qPrintable(keysTable));
    QVERIFY2(keysTable.contains(QStringLiteral("xxxxx:tail")), qPrintable(keysTable));
    QVERIFY2(keysTable.contains(QRegularExpression(QStringLiteral("Record status\\s+Tickets\\s+Attempts\\s+Operator actions"))),
             qPrintable(keysTable));
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

    // Run as from cron: no session (no XDG_RUNTIME_DIR), no display, a temporary folder of its
    // own. A successful report writes nothing on stdout or stderr (no Qt warning about the
    // runtime folder) and leaves nothing behind.
    QTemporaryDir tmp;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("TMPDIR"), tmp.path());

    // HTML by extension: the same report as the library's; no database options needed.
    const QString html = dir.filePath(QStringLiteral("r.HTML"));
    CtlRun r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), html, QStringLiteral("--zone"), QStringLiteral("UTC")}, env);
    QVERIFY2(r.ok(), r.describe().constData());
    QCOMPARE(r.out, QByteArray());
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    QFile h(html);
    QVERIFY(h.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(h.readAll()), bundleReportHtml(*reread, utc));

    // PDF by --format whatever the name says.
    const QString pdf = dir.filePath(QStringLiteral("report.out"));
    r = runCtl({QStringLiteral("report"), bundlePath, QStringLiteral("--out"), pdf, QStringLiteral("--format"), QStringLiteral("pdf")}, env);
    QVERIFY2(r.ok(), r.describe().constData());
    QCOMPARE(r.out, QByteArray());
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
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
