// The daily review's view models and report (DESIGN.md §8 "The Review view and the report")
// from a hand-built ReviewSnapshot (pure rendering, no database): the models' counts equal the
// snapshot's totals; the HTML prints exactly the totals, the bucket check (sum == open), the
// zone and the absolute window in UTC and in the zone (a 25-hour DST day in Europe/Berlin),
// absolute deep links, every text escaped, inline charts, no external resource, the same bytes
// twice; the PDF through pdftotext holds the same totals. Saves review-report.html / .pdf /
// -html.png (headless Chromium) / -pdf-1.png (pdftoppm) in this build directory.
#include "WidgetTestUtil.h"
#include "ReviewModel.h"
#include "ReviewPane.h"
#include "ReviewExport.h"
#include "ReviewReport.h"
#include "DemoHistory.h"
#include "DemoReview.h"
#include "ModelTestUtil.h"
#include "BackendTestUtil.h"
#include "TestDatabases.h"
#include "Workspace.h"

#include <QApplication>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace triage;

namespace {

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

const QString kOddKey = QStringLiteral("pay/<&>\"x\" #1");

ReviewItem item(qint64 id, const QString &key, EscalationReason reason, const QString &biz, AgeBucket bucket, const QString &first)
{
    ReviewItem i;
    i.row.escalation.id = id;
    i.row.escalation.idemKey = key;
    i.row.escalation.reason = reason;
    i.row.escalation.bizType = biz;
    i.row.escalation.firstEscalatedAt = first;
    i.row.escalation.slaDueAt = first; // not read by the report's totals
    i.bucket = bucket;
    return i;
}

/// 2026-10-25 in Europe/Berlin (the 25-hour day summer time ends): 7 open escalations in 6
/// keys, buckets 3 / 2 / 1 / 1, one breached, 3 new and 1 changed since the last sign-off.
ReviewSnapshot sampleSnapshot()
{
    ReviewSnapshot s;
    s.day.day = QDate(2026, 10, 25);
    s.day.zone = QTimeZone("Europe/Berlin");
    s.day.from = QDateTime(QDate(2026, 10, 24), QTime(22, 0), QTimeZone::utc());
    s.day.to = QDateTime(QDate(2026, 10, 25), QTime(23, 0), QTimeZone::utc());
    s.day.asOf = QDateTime(QDate(2026, 10, 25), QTime(9, 30), QTimeZone::utc());
    s.serverNow = QStringLiteral("2026-10-25T09:30:00.000000Z");
    s.generatedBy = QStringLiteral("alice <ops>");
    s.deepLinkBase = QStringLiteral("triage://");
    ReviewSignOff last;
    last.id = 3;
    last.day = QDate(2026, 10, 24);
    last.zone = QStringLiteral("Europe/Berlin");
    last.windowFrom = QStringLiteral("2026-10-23T22:00:00.000000Z");
    last.windowTo = QStringLiteral("2026-10-24T22:00:00.000000Z");
    last.signedBy = QStringLiteral("bob");
    last.signedAt = QStringLiteral("2026-10-24T16:00:00.000000Z");
    last.countsJson = QStringLiteral("{\"open\":5}");
    last.openByBucketJson = QStringLiteral("{\"lt_24h\":2,\"1_3d\":1,\"3_7d\":1,\"gt_7d\":1}");
    last.reportSha256 = QString(64, QLatin1Char('a'));
    s.lastSignOff = last;

    using R = EscalationReason;
    using B = AgeBucket;
    s.open = {item(11, QStringLiteral("refund:t1:9"), R::Policy, QStringLiteral("refund"), B::OverSevenDays, QStringLiteral("2026-10-15T08:00:00.000000Z")),
              item(12, QStringLiteral("pay:t1:4"), R::AmountMismatch, QStringLiteral("pay"), B::ThreeToSevenDays, QStringLiteral("2026-10-20T08:00:00.000000Z")),
              item(13, QStringLiteral("pay:t2:7"), R::Policy, QStringLiteral("pay"), B::OneToThreeDays, QStringLiteral("2026-10-23T08:00:00.000000Z")),
              item(14, QStringLiteral("pay:t2:7"), R::AmountMismatch, QStringLiteral("pay"), B::OneToThreeDays, QStringLiteral("2026-10-24T07:00:00.000000Z")),
              item(15, kOddKey, R::Policy, QStringLiteral("pay"), B::Under1Day, QStringLiteral("2026-10-24T23:00:00.000000Z")),
              item(16, QStringLiteral("pay:t3:1"), R::Policy, QStringLiteral("pay"), B::Under1Day, QStringLiteral("2026-10-25T01:00:00.000000Z")),
              item(17, QStringLiteral("ticket:t3:2"), R::Duplicate, QStringLiteral("ticket"), B::Under1Day, QStringLiteral("2026-10-25T02:00:00.000000Z"))};
    s.open[0].breached = true;
    s.open[0].breachDueAt = QStringLiteral("2026-10-16T08:00:00.000000Z");
    s.open[0].row.escalation.amount = QStringLiteral("1000.00");
    s.open[0].row.escalation.currency = QStringLiteral("EUR");
    s.open[1].changedSinceSignOff = true;
    s.open[1].lastReviewedBy = QStringLiteral("bob");
    s.open[1].lastReviewedAt = QStringLiteral("2026-10-24T15:00:00.000000Z");
    s.open[1].notes = 2;
    for (int i : {4, 5, 6})
        s.open[i].newSinceSignOff = true;
    Claim claim;
    claim.holder = QStringLiteral("carol");
    s.open[2].row.keyClaim = claim;

    s.totals.open = 7;
    s.totals.openByBucket = {3, 2, 1, 1};
    s.totals.openKeys = 6;
    s.totals.opened = 3;
    s.totals.resolved = 2;
    s.totals.breaches = 1;
    s.totals.newSinceSignOff = 3;
    s.totals.changedSinceSignOff = 1;
    s.totals.openMoney = {MoneyTotal{QStringLiteral("EUR"), QStringLiteral("1250.50"), 2, 0}, MoneyTotal{QStringLiteral("USD"), QStringLiteral("10.00"), 1, 1}};

    const auto group = [](B b, R r, const QString &biz, int n, int keys, int breached, QVector<qint64> ids) {
        ReviewGroup g;
        g.bucket = b;
        g.reason = r;
        g.bizType = biz;
        g.escalations = n;
        g.keys = keys;
        g.breached = breached;
        g.escalationIds = ids;
        return g;
    };
    s.groups = {group(B::Under1Day, R::Duplicate, QStringLiteral("ticket"), 1, 1, 0, {17}),
                group(B::Under1Day, R::Policy, QStringLiteral("pay"), 2, 2, 0, {15, 16}),
                group(B::OneToThreeDays, R::AmountMismatch, QStringLiteral("pay"), 1, 1, 0, {14}),
                group(B::OneToThreeDays, R::Policy, QStringLiteral("pay"), 1, 1, 0, {13}),
                group(B::ThreeToSevenDays, R::AmountMismatch, QStringLiteral("pay"), 1, 1, 0, {12}),
                group(B::OverSevenDays, R::Policy, QStringLiteral("refund"), 1, 1, 1, {11})};
    s.groups[5].money = {MoneyTotal{QStringLiteral("EUR"), QStringLiteral("1000.00"), 1, 0}};
    s.sla = {ReviewSla{QStringLiteral("pay"), 24, 5, 2, 0}, ReviewSla{QStringLiteral("refund"), 48, 1, 1, 1},
             ReviewSla{QStringLiteral("ticket"), 24, 1, 0, 0}};
    for (int d = 0; d < 30; ++d) {
        ReviewDailyRow r;
        r.day = s.day.day.addDays(-d);
        r.bizType = QStringLiteral("pay");
        r.reason = R::Policy;
        r.opened = d % 4;
        r.resolved = d % 3;
        r.openAtEnd = 5;
        r.complete = d > 0;
        if (r.resolved)
            r.medianResolveS = 3600.0 * (d + 1);
        s.trend << r;
    }
    s.median14S = 7200;
    s.median30S = 9000;
    return s;
}

QByteArray run(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        qWarning("%s failed: %s", qPrintable(program), p.readAllStandardError().constData());
    return p.exitCode() == 0 ? p.readAllStandardOutput() : QByteArray();
}

} // namespace

class TestViewsReview : public QObject {
    Q_OBJECT
private slots:
    void models();
    void trendFigures();
    void html();
    void pdf();
    void pane();
    void paneActionsOnDemo();
    void panePages();
};

void TestViewsReview::models()
{
    const ReviewSnapshot s = sampleSnapshot();
    ReviewGroupsModel groups;
    groups.setSnapshot(s);
    QCOMPARE(groups.rowCount(), 7); // 6 groups + the total row
    QCOMPARE(groups.totalEscalations(), s.totals.open);
    QCOMPARE(groups.index(6, ReviewGroupsModel::EscalationsColumn).data().toInt(), 7);
    QCOMPARE(groups.index(6, ReviewGroupsModel::BreachedColumn).data().toInt(), 1);
    QCOMPARE(groups.index(6, ReviewGroupsModel::MoneyColumn).data().toString(), QStringLiteral("EUR 1250.50 (2) · USD 10.00 (1, 1 unknown)"));
    QCOMPARE(groups.index(1, ReviewGroupsModel::BucketColumn).data().toString(), QStringLiteral("< 24 h"));
    QCOMPARE(groups.index(1, 0).data(ReviewGroupsModel::EscalationIdsRole).toList(), (QVariantList{qint64(15), qint64(16)}));
    QCOMPARE(groups.index(5, ReviewGroupsModel::MoneyColumn).data().toString(), QStringLiteral("EUR 1000.00 (1)"));

    ReviewItemsModel items;
    items.setSnapshot(s);
    QCOMPARE(items.rowCount(), s.totals.open);
    QCOMPARE(items.index(0, ReviewItemsModel::KeyColumn).data().toString(), QStringLiteral("refund:t1:9"));
    QCOMPARE(items.index(0, ReviewItemsModel::SlaColumn).data().toString(), QStringLiteral("BREACHED 2026-10-16 08:00:00"));
    QCOMPARE(items.index(2, ReviewItemsModel::ClaimColumn).data().toString(), QStringLiteral("carol"));
    QCOMPARE(items.index(1, ReviewItemsModel::ReviewedColumn).data().toString(), QStringLiteral("bob 2026-10-24 15:00:00"));
    items.setNewOnly(true);
    QCOMPARE(items.rowCount(), s.totals.newSinceSignOff + s.totals.changedSinceSignOff);
    QCOMPARE(items.index(0, ReviewItemsModel::SinceColumn).data().toString(), QStringLiteral("changed"));
    QCOMPARE(items.index(1, ReviewItemsModel::SinceColumn).data().toString(), QStringLiteral("new"));
    QCOMPARE(items.rowOf(15), 1);
    QCOMPARE(items.rowOf(11), -1);
}

void TestViewsReview::trendFigures()
{
    const ReviewSnapshot s = sampleSnapshot();
    const QVector<ReviewTrendDay> days = reviewTrendByDay(s, 14);
    QCOMPARE(days.size(), 14);
    QCOMPARE(days.first().day, QDate(2026, 10, 12));
    QCOMPARE(days.last().day, QDate(2026, 10, 25));
    QCOMPARE(days.last().opened, 0);   // d = 0
    QCOMPARE(days.last().complete, false);
    QCOMPARE(days[12].opened, 1);      // d = 1
    QCOMPARE(days[12].resolved, 1);
    int reasons = 0;
    for (const auto &[reason, n] : reviewOpenByReason(s))
        reasons += n;
    QCOMPARE(reasons, s.totals.open);
    QCOMPARE(reviewOpenByReason(s).first(), (std::pair<EscalationReason, int>{EscalationReason::Duplicate, 1}));
}

void TestViewsReview::html()
{
    const ReviewSnapshot s = sampleSnapshot();
    const QByteArray bytes = reviewHtml(s);
    QCOMPARE(reviewHtml(s), bytes); // deterministic
    QFile out(outputPath(QStringLiteral("review-report.html")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    const QString html = QString::fromUtf8(bytes);

    QVERIFY(html.contains(QStringLiteral("<title>Daily review 2026-10-25 (Europe/Berlin)</title>")));
    QVERIFY(html.contains(QStringLiteral("<dt>Review time zone</dt><dd>Europe/Berlin</dd>")));
    // The absolute window of the 25-hour day, in UTC and in the zone (offsets on each side).
    QVERIFY(html.contains(QStringLiteral("from 2026-10-24 22:00:00 UTC <span class=\"local\">(2026-10-25 00:00:00 +02:00 Europe/Berlin)</span>"
                                         "<br>to 2026-10-25 23:00:00 UTC <span class=\"local\">(2026-10-26 00:00:00 +01:00 Europe/Berlin)</span> (excluded)")));
    // Exactly the totals.
    const auto figure = [&html](const QString &name, int n) {
        return html.contains(QStringLiteral("<tr><td>%1</td><td class=\"num\">%2</td></tr>").arg(name).arg(n));
    };
    QVERIFY(figure(QStringLiteral("Open escalations (as of)"), 7));
    QVERIFY(figure(QStringLiteral("Open keys (distinct)"), 6));
    QVERIFY(figure(QStringLiteral("Opened in the day"), 3));
    QVERIFY(figure(QStringLiteral("Resolved in the day"), 2));
    QVERIFY(figure(QStringLiteral("SLA breaches due in the day"), 1));
    QVERIFY(figure(QStringLiteral("New since the last sign-off"), 3));
    QVERIFY(figure(QStringLiteral("Changed since the last sign-off"), 1));
    QVERIFY(html.contains(QStringLiteral("<tr><td>Open money (per currency)</td><td>EUR 1250.50 (2) · USD 10.00 (1, 1 unknown)</td></tr>")));
    QVERIFY(html.contains(QStringLiteral("<tr><td>Median time to resolve, 14 days</td><td>2h 0m</td></tr>")));
    // Buckets add up to the open total, visibly.
    QVERIFY(html.contains(QStringLiteral("<tr><td>&lt; 24 h</td><td class=\"num\">3</td></tr><tr><td>1–3 d</td><td class=\"num\">2</td></tr>"
                                         "<tr><td>3–7 d</td><td class=\"num\">1</td></tr><tr><td>&gt; 7 d</td><td class=\"num\">1</td></tr>"
                                         "<tr class=\"total\"><td>Total</td><td class=\"num\">7</td></tr>")));
    QVERIFY(html.contains(QStringLiteral("<p class=\"good\">Check: 3 + 2 + 1 + 1 = 7 = open total 7</p>")));
    // Absolute deep links: every open item (7) and the new/changed ones again (4); the odd key
    // percent-encoded as one component, the text escaped.
    QCOMPARE(html.count(QStringLiteral("<a href=\"triage://key/")), 11);
    QVERIFY(html.contains(QStringLiteral("<a href=\"triage://key/pay%2F%3C%26%3E%22x%22%20%231\">pay/&lt;&amp;&gt;&quot;x&quot; #1</a>")));
    QVERIFY(!html.contains(QStringLiteral("<&>")));
    QVERIFY(html.contains(QStringLiteral("<h2>New or changed since the last sign-off (3 new, 1 changed)</h2>")));
    QVERIFY(html.contains(QStringLiteral("<h2>Every open escalation (7), oldest first</h2>")));
    QVERIFY(html.contains(QStringLiteral("<span class=\"bad\">BREACHED</span> due 2026-10-16 08:00:00")));
    // Groups and SLA rows.
    QVERIFY(html.contains(QStringLiteral("<tr><td>&gt; 7 d</td><td>POLICY</td><td>refund</td><td class=\"num\">1</td><td class=\"num\">1</td>"
                                         "<td class=\"num bad\">1</td><td>EUR 1000.00 (1)</td></tr>")));
    QVERIFY(html.contains(QStringLiteral("<tr><td>pay</td><td class=\"num\">24</td><td class=\"num\">5</td><td class=\"num bad\">2</td>"
                                         "<td class=\"num\">0</td></tr>")));
    // Trends: per-day rows (30), each day's medians as written, never an average.
    QVERIFY(html.contains(QStringLiteral("<tr><td>2026-10-24</td><td class=\"num\">1</td><td class=\"num\">1</td><td class=\"num\">5</td>"
                                         "<td class=\"num\">0</td><td>complete</td></tr>")));
    QVERIFY(html.contains(QStringLiteral("<tr><td>2026-10-24</td><td>pay</td><td>POLICY</td><td class=\"num\">1</td><td>2h 0m</td></tr>")));
    QVERIFY(html.contains(QStringLiteral("Median time to resolve: 14 days 2h 0m · 30 days 2h 30m")));
    // The last sign-off.
    QVERIFY(html.contains(QStringLiteral("<dt>Report SHA-256</dt><dd class=\"mono\">%1</dd>").arg(QString(64, QLatin1Char('a')))));
    // Self-contained: four inline charts, nothing fetched.
    QCOMPARE(html.count(QStringLiteral("<svg")), 4);
    QVERIFY(!html.contains(QStringLiteral("http://")));
    QVERIFY(!html.contains(QStringLiteral("https://")));
    QVERIFY(!html.contains(QStringLiteral("<script")));

    const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    if (chromium.isEmpty())
        QSKIP("chromium is not installed: the HTML was not rendered");
    QProcess p;
    p.start(chromium, {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                       QStringLiteral("--hide-scrollbars"), QStringLiteral("--screenshot=") + outputPath(QStringLiteral("review-report-html.png")),
                       QStringLiteral("--window-size=1400,4200"), QStringLiteral("file://") + outputPath(QStringLiteral("review-report.html"))});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY(QFile::exists(outputPath(QStringLiteral("review-report-html.png"))));
}

void TestViewsReview::pdf()
{
    const ReviewSnapshot s = sampleSnapshot();
    const QString path = outputPath(QStringLiteral("review-report.pdf"));
    QString error;
    QVERIFY2(writeReviewPdf(s, path, &error), qPrintable(error));
    QVERIFY(!writeReviewPdf(s, QStringLiteral("/nonexistent-dir/r.pdf"), &error));
    QCOMPARE(error, QStringLiteral("cannot write /nonexistent-dir/r.pdf: No such file or directory"));

    // NFKC: the PDF's fonts set "ff" as a ligature (U+FB00).
    const QString text = QString::fromUtf8(run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), path, QStringLiteral("-")}))
                             .normalized(QString::NormalizationForm_KC);
    QVERIFY(!text.isEmpty());
    const auto has = [&text](const QString &pattern) {
        return QRegularExpression(pattern).match(text).hasMatch();
    };
    QVERIFY(text.contains(QStringLiteral("Daily review 2026-10-25 (Europe/Berlin)")));
    QVERIFY(has(QStringLiteral("Review time zone\\s+Europe/Berlin")));
    QVERIFY(has(QStringLiteral("from 2026-10-24 22:00:00 UTC \\(2026-10-25 00:00:00 \\+02:00 Europe/Berlin\\)")));
    QVERIFY(has(QStringLiteral("to 2026-10-25 23:00:00 UTC \\(2026-10-26 00:00:00 \\+01:00 Europe/Berlin\\)")));
    QVERIFY(has(QStringLiteral("Open escalations \\(as of\\)\\s+7\\n")));
    QVERIFY(has(QStringLiteral("Open keys \\(distinct\\)\\s+6\\n")));
    QVERIFY(has(QStringLiteral("Opened in the day\\s+3\\n")));
    QVERIFY(has(QStringLiteral("Resolved in the day\\s+2\\n")));
    QVERIFY(has(QStringLiteral("SLA breaches due in the day\\s+1\\n")));
    QVERIFY(has(QStringLiteral("New since the last sign-off\\s+3\\n")));
    QVERIFY(has(QStringLiteral("Changed since the last sign-off\\s+1\\n")));
    QVERIFY(has(QStringLiteral("EUR 1250.50 \\(2\\) · USD 10.00 \\(1, 1 unknown\\)")));
    QVERIFY(text.contains(QStringLiteral("Check: 3 + 2 + 1 + 1 = 7 = open total 7")));
    QVERIFY(text.contains(QStringLiteral("Every open escalation (7), oldest first")));

    run(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("70"), path,
                                     outputPath(QStringLiteral("review-report-pdf"))});
}

void TestViewsReview::pane()
{
    // The Review tab shown from a snapshot (no database read: setSnapshot()); a workspace on a
    // SQLite file only because the pane needs one for its actions.
    WorkspaceConfig config;
    Workspace ws(config);
    ReviewPane pane(&ws);
    pane.resize(1100, 860);
    QStringList keys;
    connect(&pane, &ReviewPane::keyActivated, &pane, [&keys](const QString &k) { keys << k; });
    const ReviewSnapshot s = sampleSnapshot();
    pane.setSnapshot(s);
    QCOMPARE(pane.headerText(), QStringLiteral("2026-10-25 · Europe/Berlin · window 2026-10-24 22:00:00 – 2026-10-25 23:00:00 UTC · as of "
                                               "2026-10-25 09:30:00 UTC · 7 open (6 keys): < 24 h 3, 1–3 d 2, 3–7 d 1, > 7 d 1 · 3 new, 1 changed since sign-off"));
    QCOMPARE(pane.itemsModel()->rowCount(), 4); // new or changed only, by default
    QCOMPARE(pane.groupsModel()->totalEscalations(), 7);
    // A group opens its escalations' keys: the first one's key, all of them selected.
    QVERIFY(pane.selectEscalation(11));
    QCOMPARE(pane.itemsModel()->rowCount(), 7);
    QCOMPARE(keys, QStringList{QStringLiteral("refund:t1:9")});
    QString error;
    QVERIFY(!pane.exportReport(outputPath(QStringLiteral("r.txt")), &error));
    QCOMPARE(error, QStringLiteral("export as .html, .pdf, .json or .csv: \"%1\"").arg(outputPath(QStringLiteral("r.txt"))));
    QVERIFY(pane.exportReport(outputPath(QStringLiteral("review-pane-export.html")), &error));
    QFile exported(outputPath(QStringLiteral("review-pane-export.html")));
    QVERIFY(exported.open(QIODevice::ReadOnly));
    QCOMPARE(exported.readAll(), reviewHtml(s));
    // JSON from the same snapshot (ReviewExport.h): the same totals as the HTML and the tab.
    QVERIFY(pane.exportReport(outputPath(QStringLiteral("review-pane-export.json")), &error));
    QFile json(outputPath(QStringLiteral("review-pane-export.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject totals = QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("totals")).toObject();
    QCOMPARE(totals.value(QStringLiteral("open")).toInt(), 7);
    QCOMPARE(totals.value(QStringLiteral("open_keys")).toInt(), 6);
    QCOMPARE(totals.value(QStringLiteral("new_since_signoff")).toInt(-1) + totals.value(QStringLiteral("changed_since_signoff")).toInt(-1), 4);
    const QJsonObject buckets = totals.value(QStringLiteral("open_by_bucket")).toObject();
    QCOMPARE(buckets.value(QStringLiteral("lt_24h")).toInt(), 3);
    QCOMPARE(buckets.value(QStringLiteral("gt_7d")).toInt(), 1);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QTest::qWait(100);
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("review-pane.png"))));
    auto *lower = pane.findChild<QTabWidget *>(QStringLiteral("reviewLower"));
    QVERIFY(lower);
    lower->setCurrentIndex(2); // Trends
    QTest::qWait(100);
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("review-pane-trends.png"))));
}

namespace {

/// The window title and label of the last QInputDialog answerNextInput() answered.
QString lastInputTitle, lastInputLabel;

/// Answers the next QInputDialog the pane opens: `text` then OK (or Cancel when `accept` is false).
void answerNextInput(const QString &text, bool accept = true)
{
    QTimer::singleShot(0, [text, accept] {
        auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return answerNextInput(text, accept); // not shown yet: the next turn of the loop
        lastInputTitle = dialog->windowTitle();
        lastInputLabel = dialog->labelText();
        dialog->grab().save(outputPath(QStringLiteral("review-prompt-%1.png").arg(dialog->windowTitle().section(QStringLiteral(" \u2014 "), -1).section(QLatin1Char(' '), 0, 0).toLower())));
        dialog->setTextValue(text);
        accept ? dialog->accept() : dialog->reject();
    });
}

} // namespace

void TestViewsReview::paneActionsOnDemo()
{
    // The day's review start to finish on the demo (a real SQLite database): load, claim,
    // mark reviewed, note, resolve (a short reason refused, nothing written), sign off; each
    // checked in the tables.
    using namespace triage::test;
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = demoConfig(db);
    config.operatorName = QStringLiteral("erin");
    config.environment = Environment::Staging; // every prompt before a write carries it (DESIGN.md §5 "Environments")
    config.profileName = QStringLiteral("review-staging");
    Workspace ws(config);
    QCOMPARE(seedDemo(ws), QString());
    const auto history = seedEscalationHistory(ws); // the 14 days of escalations, some still open
    QVERIFY2(history.ok(), history.ok() ? "" : qPrintable(history.error->message));
    const auto reviews = seedReviewHistory(ws); // breaches, trend rows, alice's sign-off of the day before yesterday
    QVERIFY2(reviews.ok(), reviews.ok() ? "" : qPrintable(reviews.error->message));
    ReviewPane pane(&ws);
    pane.resize(1100, 860);
    QSignalSpy loaded(&pane, &ReviewPane::loaded);
    QSignalSpy finished(&pane, &ReviewPane::actionFinished);
    pane.load();
    QVERIFY(loaded.wait(30000));
    QVERIFY(pane.snapshot());
    const ReviewSnapshot first = *pane.snapshot();
    QVERIFY(!first.open.isEmpty());
    QVERIFY(!first.thisDaySignOff);
    // An open escalation nobody holds.
    qint64 id = 0;
    for (const ReviewItem &i : first.open)
        if (!i.row.shownClaim()) {
            id = i.row.escalation.id;
            break;
        }
    QVERIFY(id > 0);
    const QString ids = QString::number(id);
    // Selects the escalation and clicks `label`; false (with the reason) when it cannot.
    const auto act = [&](const QString &label) -> bool {
        finished.clear();
        if (!pane.selectEscalation(id))
            return false;
        QPushButton *b = buttonWithText(pane, label);
        if (!b || !b->isEnabled())
            return false;
        b->click();
        return true;
    };
    // Waits for the action's end and the reload after it; the message must match `pattern` whole.
    const auto waitFinished = [&](bool ok, const QString &pattern) -> QString {
        if (!finished.wait(30000))
            return QStringLiteral("no actionFinished");
        const QString message = finished.first().at(1).toString();
        if (finished.first().at(0).toBool() != ok || !QRegularExpression(QRegularExpression::anchoredPattern(pattern)).match(message).hasMatch())
            return QStringLiteral("unexpected: ") + message;
        return loaded.wait(30000) ? QString() : QStringLiteral("no reload after: ") + message;
    };

    QVERIFY(act(QStringLiteral("Claim")));
    QCOMPARE(waitFinished(true, QStringLiteral("Escalation %1: taken \\(escalation %1 claimed by erin until \\S+Z\\)").arg(id)), QString());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT holder FROM triage_claim WHERE scope = 'escalation' AND subject = '%1'").arg(ids)),
             QStringList{QStringLiteral("erin")});

    QVERIFY(act(QStringLiteral("Mark reviewed")));
    QCOMPARE(waitFinished(true, QStringLiteral("Escalation %1 marked reviewed\\.").arg(id)), QString());
    answerNextInput(QStringLiteral("  asked the PSP; waiting for their answer  "));
    QVERIFY(act(QStringLiteral("Add note\u2026")));
    QCOMPARE(waitFinished(true, QStringLiteral("Note added to escalation %1\\.").arg(id)), QString());
    QCOMPARE(lastInputTitle, QStringLiteral("STAGING \u2014 review-staging \u2014 Add note"));
    QVERIFY2(lastInputLabel.startsWith(QStringLiteral("STAGING \u2014 review-staging\n\nNote on escalation %1 (").arg(id)), qPrintable(lastInputLabel));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT kind || '|' || COALESCE(note_text, '') || '|' || noted_by FROM triage_review_note "
                                                "WHERE escalation_id = %1 ORDER BY id")
                                     .arg(ids)),
             (QStringList{QStringLiteral("reviewed||erin"), QStringLiteral("note|asked the PSP; waiting for their answer|erin")}));
    const ReviewItem *reviewed = nullptr;
    for (const ReviewItem &i : pane.snapshot()->open)
        if (i.row.escalation.id == id)
            reviewed = &i;
    QVERIFY(reviewed);
    QCOMPARE(reviewed->lastReviewedBy, QStringLiteral("erin"));
    QCOMPARE(reviewed->notes, 1); // notes of kind "note" (a "reviewed" mark is lastReviewedBy)

    // A reason under 10 characters: refused in the tab, nothing written.
    answerNextInput(QStringLiteral("dup"));
    QVERIFY(act(QStringLiteral("Resolve\u2026")));
    QTRY_COMPARE(pane.messageText(), QStringLiteral("A resolution needs a reason of at least 10 characters (got 3): nothing was written."));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT resolved_at IS NULL FROM triage_escalation WHERE id = %1").arg(ids)), QStringList{QStringLiteral("1")});
    answerNextInput(QStringLiteral("upstream confirmed the refund exists"));
    QVERIFY(act(QStringLiteral("Resolve\u2026")));
    QCOMPARE(waitFinished(true, QStringLiteral("Escalation %1 resolved\\.").arg(id)), QString());
    QCOMPARE(lastInputTitle, QStringLiteral("STAGING \u2014 review-staging \u2014 Resolve escalation %1").arg(id));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT resolved_by || '|' || resolution FROM triage_escalation WHERE id = %1").arg(ids)),
             QStringList{QStringLiteral("erin|upstream confirmed the refund exists")});
    QCOMPARE(pane.snapshot()->totals.open, first.totals.open - 1);

    // Sign off: the fingerprint of the snapshot shown (its JSON form), recorded; the day is then signed.
    const ReviewSnapshot signedSnapshot = *pane.snapshot();
    const QString fingerprint = reviewReportSha256(signedSnapshot);
    finished.clear();
    answerNextInput(QStringLiteral("all seen"));
    buttonWithText(pane, QStringLiteral("Sign off\u2026"))->click();
    QVERIFY(finished.wait(30000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QVERIFY(loaded.wait(30000));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT signed_by || '|' || note || '|' || report_sha256 FROM triage_review_signoff WHERE day = '%1'")
                                     .arg(signedSnapshot.day.day.toString(Qt::ISODate))),
             QStringList{QStringLiteral("erin|all seen|") + fingerprint});
    QVERIFY(finished.first().at(1).toString().endsWith(QStringLiteral("; report SHA-256 %1.").arg(fingerprint)));
    QVERIFY(pane.snapshot()->thisDaySignOff);
    QCOMPARE(pane.snapshot()->thisDaySignOff->signedBy, QStringLiteral("erin"));
    // A signed day cannot be signed again from the tab (a second sign-off is a Conflict in the
    // service: tst_review signOff); the line under the header says who signed it.
    QVERIFY(!buttonWithText(pane, QStringLiteral("Sign off\u2026"))->isEnabled());
    auto *line = pane.findChild<QLabel *>(QStringLiteral("reviewSignOff"));
    QVERIFY(line);
    QVERIFY2(line->text().contains(QStringLiteral(" This day is signed off by erin at ")), qPrintable(line->text()));
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("review-pane-demo-signed.png"))));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_review_signoff WHERE day = '%1'").arg(signedSnapshot.day.day.toString(Qt::ISODate))),
             QStringList{QStringLiteral("1")});
}

QTEST_MAIN(TestViewsReview)
void TestViewsReview::panePages()
{
    // More open escalations than the first page: the tab shows the figures of all of them and
    // the first kFirstPage items, appends the rest, and exports only once the list is complete.
    using namespace triage::test;
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QCOMPARE(setUpSchema(ws), QString());
    const int n = ReviewPane::kFirstPage + 250;
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_escalation (idem_key, biz_type, tenant, reason, facts, amount, currency, "
                                         "first_escalated_at, last_seen_at, open_slot) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
                                         "SELECT i + 1 FROM n WHERE i < %1) SELECT 'page:' || i, 'ticket_create', '', 'POLICY', '{}', "
                                         "'1.00', 'EUR', strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || i || ' minutes') || '000Z', "
                                         "strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || i || ' minutes') || '000Z', 1 FROM n")
                              .arg(n)),
             QString());
    ReviewPane pane(&ws);
    QSignalSpy loaded(&pane, &ReviewPane::loaded);
    QSignalSpy complete(&pane, &ReviewPane::itemsComplete);
    pane.load();
    QVERIFY(loaded.wait(30000));
    QCOMPARE(pane.snapshot()->totals.open, n);
    QCOMPARE(pane.snapshot()->totals.openMoney.value(0).sum, QStringLiteral("%1.00").arg(n));
    QString error;
    const QString path = outputPath(QStringLiteral("review-pages.json"));
    if (!pane.snapshot()->openComplete) { // the rest may already have arrived
        QCOMPARE(pane.snapshot()->open.size(), ReviewPane::kFirstPage);
        QVERIFY(!pane.exportReport(path, &error));
        QCOMPARE(error, QStringLiteral("the open items are still loading: export when the list is complete"));
        QVERIFY(complete.wait(30000));
    }
    QCOMPARE(pane.itemsModel()->rowCount(), n);
    QCOMPARE(pane.snapshot()->open.size(), n);
    QCOMPARE(pane.snapshot()->open.first().row.escalation.idemKey, QStringLiteral("page:%1").arg(n)); // oldest first
    QCOMPARE(pane.snapshot()->open.last().row.escalation.idemKey, QStringLiteral("page:1"));
    QVERIFY2(pane.exportReport(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("open")).toArray().size(), n);
}

#include "tst_views_review.moc"
