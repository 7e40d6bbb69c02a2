// triagectl review, review signoff, review note and report without a BUNDLE (the daily
// review, DESIGN.md §5, §8 "The daily review") on every backend: the day, zone and window on
// every output, the JSON and CSV counting the same, the sign-off storing the report's SHA-256
// and its conflict (exit 3 naming who signed when), notes, report --format json|csv, html not
// yet (exit 1), bad input with its exact message.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// 1 UPSTREAM_UNUSABLE open since 2026-01-01 00:00 (SLA 2026-01-02 00:00), 2 DUPLICATE open
/// since 01:00 (12.50 EUR), 3 EXTERNAL resolved at 03:00.
QString seedEscalations(const TestDatabase &db)
{
    auto t = [&](const char *iso) { return timeLiteral(db, QString::fromLatin1(iso)); };
    const QString cols = QStringLiteral("INSERT INTO triage_escalation (id, idem_key, biz_type, tenant, reason, facts, amount, currency, "
                                        "source_ref, first_escalated_at, last_seen_at, run_id, sla_due_at, resolution, resolved_at, "
                                        "resolved_by, version, open_slot) VALUES ");
    const QStringList rows{
        QStringLiteral("(1, 'ticket:create:acme:a1', 'ticket_create', 'acme', 'UPSTREAM_UNUSABLE', '{}', NULL, '', '', "
                       "%1, %1, 4, %2, NULL, NULL, NULL, 1, 1)")
            .arg(t("2026-01-01T00:00:00.000000Z"), t("2026-01-02T00:00:00.000000Z")),
        QStringLiteral("(2, 'refund:create:beta:b2', 'refund', 'beta', 'DUPLICATE', '{}', '12.50', 'EUR', '', "
                       "%1, %1, 4, %2, NULL, NULL, NULL, 1, 1)")
            .arg(t("2026-01-01T01:00:00.000000Z"), t("2099-01-01T00:00:00.000000Z")),
        QStringLiteral("(3, 'ticket:create:acme:c3', 'ticket_create', 'acme', 'EXTERNAL', '{}', NULL, '', 'intent:9', "
                       "%1, %1, 4, %2, 'checked with the agent team', %3, 'bob', 2, NULL)")
            .arg(t("2026-01-01T02:00:00.000000Z"), t("2026-01-02T02:00:00.000000Z"), t("2026-01-01T03:00:00.000000Z"))};
    for (const QString &r : rows)
        if (const QString error = db.adminExec(cols + r); !error.isEmpty())
            return error;
    return {};
}

const QByteArray kDay = "2026-01-01 (UTC, 2026-01-01T00:00:00.000000Z – 2026-01-02T00:00:00.000000Z)";

} // namespace

class TestReviewCli : public QObject {
    Q_OBJECT
private slots:
    void review_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, false);
    }
    void review();
};

void TestReviewCli::review()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db);
    auto as = [&](const char *who, const QStringList &args) {
        return base + QStringList{QStringLiteral("--operator"), QString::fromLatin1(who)} + args;
    };
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    TRIAGE_OK(seedEscalations(db));
    const QStringList day = {QStringLiteral("--date"), QStringLiteral("2026-01-01")};

    RUN_EXIT(table, 0, base + QStringList{QStringLiteral("review")} + day);
    QVERIFY2(table.out.startsWith("review of " + kDay + ", as of 2026-01-02T00:00:00.000000Z\n"
                                  "open: 2 escalations (2 keys); opened 3, resolved 1, breaches 0 that day\n"
                                  "no sign-off yet\n"
                                  "this day is not signed off\n"
                                  "open escalations without an amount: 1\n"
                                  "open money EUR: 12.50 (1 escalations, 0 unknown)\n"),
             table.describe().constData());
    QVERIFY2(table.out.contains("1–3 d"), table.out.constData());
    QCOMPARE(table.err, QByteArray());

    RUN_EXIT(json, 0, base + QStringList{QStringLiteral("review"), QStringLiteral("--format"), QStringLiteral("json")} + day);
    const QJsonObject o = QJsonDocument::fromJson(json.out).object();
    const QJsonObject totals = o.value(QStringLiteral("totals")).toObject();
    QCOMPARE(o.value(QStringLiteral("review")).toObject().value(QStringLiteral("day")).toString(), QStringLiteral("2026-01-01"));
    QCOMPARE(o.value(QStringLiteral("review")).toObject().value(QStringLiteral("zone")).toString(), QStringLiteral("UTC"));
    QCOMPARE(totals.value(QStringLiteral("open")).toInt(), 2);
    QCOMPARE(totals.value(QStringLiteral("opened")).toInt(), 3);
    QCOMPARE(totals.value(QStringLiteral("resolved")).toInt(), 1);
    QCOMPARE(totals.value(QStringLiteral("open_by_bucket")).toObject(),
             (QJsonObject{{QStringLiteral("lt_24h"), 1}, {QStringLiteral("1_3d"), 1}, {QStringLiteral("3_7d"), 0}, {QStringLiteral("gt_7d"), 0}}));
    QCOMPARE(o.value(QStringLiteral("open")).toArray().at(1).toObject().value(QStringLiteral("link")).toString(),
             QStringLiteral("triage://key/refund%3Acreate%3Abeta%3Ab2"));

    // Each open escalation, in the table and the CSV: who has it, what is new since the last sign-off.
    RUN_EXIT(claim, 0, as("carol", {QStringLiteral("claim"), QStringLiteral("--escalation"), QStringLiteral("2")}));
    RUN_EXIT(items, 0, base + QStringList{QStringLiteral("review")} + day);
    static const QRegularExpression itemHeader(QStringLiteral(
        R"(\n\s*ID\s+AGE\s+REASON\s+BIZ_TYPE\s+IDEM_KEY\s+SLA_DUE\s+BREACHED\s+CLAIMED_BY\s+SINCE_SIGNOFF\s+REVIEWED_BY\s+NOTES\n)"));
    QVERIFY2(itemHeader.match(QString::fromUtf8(items.out)).hasMatch(), items.out.constData());
    static const QRegularExpression itemTwo(QStringLiteral(
        R"(\n\s*2\s+< 24 h\s+DUPLICATE\s+refund\s+refund:create:beta:b2\s+2099-01-01T00:00:00\.000000Z\s+carol\s+0\n)"));
    QVERIFY2(itemTwo.match(QString::fromUtf8(items.out)).hasMatch(), items.out.mid(items.out.indexOf("\nID ")).constData());
    static const QRegularExpression itemOne(QStringLiteral(
        R"(\n\s*1\s+1–3 d\s+UPSTREAM_UNUSABLE\s+ticket_create\s+ticket:create:acme:a1\s+2026-01-02T00:00:00\.000000Z\s+0\n)"));
    QVERIFY2(itemOne.match(QString::fromUtf8(items.out)).hasMatch(), items.out.mid(items.out.indexOf("\nID ")).constData());

    RUN_EXIT(csv, 0, base + QStringList{QStringLiteral("review"), QStringLiteral("--format"), QStringLiteral("csv")} + day);
    QVERIFY2(csv.out.startsWith("section,day,zone,name,value,bucket,reason,biz_type,escalations,keys,breached,currency,sum,counted,"
                                "unknown,id,idem_key,first_escalated_at,sla_due_at,link,since_signoff,claimed_by,claimed_until,"
                                "last_reviewed_by,notes\r\n"),
             csv.out.constData());
    static const QRegularExpression csvTwo(QStringLiteral(
        R"(\r\nopen,2026-01-01,UTC,,,lt_24h,DUPLICATE,refund,1,,0,EUR,12\.50,,,2,refund:create:beta:b2,[^,]+,)"
        R"(2099-01-01T00:00:00\.000000Z,triage://key/refund%3Acreate%3Abeta%3Ab2,,carol,\d{4}-[^,]+Z,,0\r\n)"));
    QVERIFY2(csvTwo.match(QString::fromUtf8(csv.out)).hasMatch(), csv.out.mid(csv.out.indexOf("\r\nopen,")).constData());
    QCOMPARE(csv.out.count("\r\nopen,2026-01-01,UTC,"), 2);
    QVERIFY2(csv.out.contains("\r\nsummary,2026-01-01,UTC,open,2,"), csv.out.constData());
    QVERIFY2(csv.out.contains("\r\nmoney,2026-01-01,UTC,,,,,,,,,EUR,12.50,1,0,"), csv.out.constData());

    // Sign-off: the SHA-256 of the JSON report, stored and printed.
    RUN_EXIT(signoff, 0, as("alice", {QStringLiteral("review"), QStringLiteral("signoff"), QStringLiteral("--note"), QStringLiteral("all seen")}) + day);
    static const QRegularExpression signedLine(QStringLiteral(
        R"(^signed off 2026-01-01 \(UTC, 2026-01-01T00:00:00\.000000Z – 2026-01-02T00:00:00\.000000Z\) by alice at (\S+): 2 open; report sha256 ([0-9a-f]{64})\n$)"));
    const QRegularExpressionMatch m = signedLine.match(QString::fromUtf8(signoff.out));
    QVERIFY2(m.hasMatch(), signoff.out.constData());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT report_sha256 FROM triage_review_signoff")), QStringList{m.captured(2)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT note FROM triage_review_signoff")), QStringList{QStringLiteral("all seen")});
    RUN_EXIT(again, 3, as("bob", {QStringLiteral("review"), QStringLiteral("signoff")}) + day);
    QCOMPARE(again.err, QStringLiteral("triagectl: 2026-01-01 (UTC) is already signed off by alice at %1\n").arg(m.captured(1)).toUtf8());
    QCOMPARE(again.out, QByteArray());

    // report without a BUNDLE: the review's JSON / CSV file, the day and zone printed.
    QTemporaryDir dir;
    const QString jsonPath = dir.filePath(QStringLiteral("review.json"));
    RUN_EXIT(report, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), jsonPath} + day);
    static const QRegularExpression reportLine(QStringLiteral(
        R"(^review of 2026-01-01 \(UTC, 2026-01-01T00:00:00\.000000Z – 2026-01-02T00:00:00\.000000Z\): 2 open, 3 opened, 1 resolved, 0 breaches; )"
        R"(fingerprint ([0-9a-f]{64}) \(matches this day's sign-off\); signed off by alice at (\S+)\nwrote (.+)\n$)"));
    const QRegularExpressionMatch rm = reportLine.match(QString::fromUtf8(report.out));
    QVERIFY2(rm.hasMatch(), report.out.constData());
    QCOMPARE(rm.captured(2), m.captured(1));
    QCOMPARE(rm.captured(3), jsonPath);
    // The fingerprint is of the figures: the closed day, unchanged since, reproduces the sign-off's.
    QCOMPARE(rm.captured(1), m.captured(2));
    QFile jf(jsonPath);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    const QJsonObject fromFile = QJsonDocument::fromJson(jf.readAll()).object();
    QCOMPARE(fromFile.value(QStringLiteral("totals")).toObject().value(QStringLiteral("open")).toInt(), 2);
    QCOMPARE(fromFile.value(QStringLiteral("this_day_signoff")).toObject().value(QStringLiteral("signed_by")).toString(), QStringLiteral("alice"));
    const QString csvPath = dir.filePath(QStringLiteral("review.txt"));
    RUN_EXIT(reportCsv, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("csv"),
                                              QStringLiteral("--out"), csvPath, QStringLiteral("--from"), QStringLiteral("2026-01-01"),
                                              QStringLiteral("--to"), QStringLiteral("2026-01-02")});
    QFile cf(csvPath);
    QVERIFY(cf.open(QIODevice::ReadOnly));
    const QByteArray csvBytes = cf.readAll();
    QCOMPARE(csvBytes.count("section,day,zone"), 1);
    QCOMPARE(csvBytes.count("\r\nopen,2026-01-01,UTC,"), 2);
    QCOMPARE(csvBytes.count("\r\nopen,2026-01-02,UTC,"), 2);
    // HTML and PDF: one file each, the same totals, the fingerprint of the same snapshot printed inside.
    const QString htmlPath = dir.filePath(QStringLiteral("r.html"));
    RUN_EXIT(html, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), htmlPath} + day);
    const QRegularExpressionMatch hm = reportLine.match(QString::fromUtf8(html.out));
    QVERIFY2(hm.hasMatch(), html.out.constData());
    QFile hf(htmlPath);
    QVERIFY(hf.open(QIODevice::ReadOnly));
    const QByteArray htmlBytes = hf.readAll();
    QVERIFY(htmlBytes.startsWith("<!DOCTYPE html>\n"));
    QVERIFY2(htmlBytes.contains(hm.captured(1).toLatin1()), "the HTML prints its fingerprint");
    QVERIFY(htmlBytes.contains("<title>Daily review 2026-01-01 (UTC)</title>"));
    QVERIFY(htmlBytes.contains("<tr><td>Open escalations (as of)</td><td class=\"num\">2</td></tr>"));
    QVERIFY(htmlBytes.contains("<a href=\"triage://key/refund%3Acreate%3Abeta%3Ab2\">")); // absolute deep links
    const QString rangeHtml = dir.filePath(QStringLiteral("range.htm"));
    RUN_EXIT(htmlRange, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), rangeHtml, QStringLiteral("--from"),
                                              QStringLiteral("2026-01-01"), QStringLiteral("--to"), QStringLiteral("2026-01-02")});
    QCOMPARE(htmlRange.out.count("review of 2026-01-0"), 2);
    QFile rf(rangeHtml);
    QVERIFY(rf.open(QIODevice::ReadOnly));
    const QByteArray rangeBytes = rf.readAll();
    QVERIFY(rangeBytes.contains("<title>Daily reviews 2026-01-01 to 2026-01-02 (UTC)</title>"));
    QCOMPARE(rangeBytes.count("<h1>Daily review 2026-01-0"), 2);
    const QString pdfPath = dir.filePath(QStringLiteral("r.pdf"));
    RUN_EXIT(pdf, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("pdf"), QStringLiteral("--out"), pdfPath} + day);
    QFile pf(pdfPath);
    QVERIFY(pf.open(QIODevice::ReadOnly));
    QVERIFY(pf.readAll().startsWith("%PDF-"));
    RUN_EXIT(noOut, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("csv")});
    QCOMPARE(noOut.err, QByteArray("triagectl: report: give --out FILE.html, .pdf, .json or .csv (the daily review); for the JSON or "
                                   "CSV on standard output: triagectl review --format json|csv\n"
                                   "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(badFormat, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), dir.filePath(QStringLiteral("r.txt"))});
    QCOMPARE(badFormat.err, QByteArray("triagectl: --out \"") + dir.filePath(QStringLiteral("r.txt")).toUtf8()
                                + "\": name a .html, .pdf, .json or .csv file, or give --format html|pdf|json|csv\n"
                                  "triagectl: run \"triagectl --help\" for usage\n");

    // Notes.
    RUN_EXIT(note, 0, as("carol", {QStringLiteral("review"), QStringLiteral("note"), QStringLiteral("2"), QStringLiteral("--text"),
                                   QStringLiteral("asked the PSP")}));
    QCOMPARE(note.out, QByteArray("escalation 2: note added (review note id 1)\n"));
    RUN_EXIT(reviewed, 0, as("carol", {QStringLiteral("review"), QStringLiteral("note"), QStringLiteral("2"), QStringLiteral("--reviewed")}));
    QCOMPARE(reviewed.out, QByteArray("escalation 2 marked reviewed (review note id 2)\n"));
    RUN_EXIT(unknown, 1, as("carol", {QStringLiteral("review"), QStringLiteral("note"), QStringLiteral("99"), QStringLiteral("--reviewed")}));
    QCOMPARE(unknown.err, QByteArray("triagectl: no escalation 99\n"));

    // --text and --reviewed together: the note and the reviewed mark (a trial found the text lost).
    RUN_EXIT(both, 0, as("carol", {QStringLiteral("review"), QStringLiteral("note"), QStringLiteral("2"), QStringLiteral("--text"),
                                   QStringLiteral("PSP confirmed"), QStringLiteral("--reviewed")}));
    QCOMPARE(both.out, QByteArray("escalation 2: note added (review note id 3)\nescalation 2 marked reviewed (review note id 4)\n"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT kind FROM triage_review_note WHERE id >= 3 ORDER BY id")),
             (QStringList{QStringLiteral("note"), QStringLiteral("reviewed")}));

    // The figures changed after the sign-off (notes on an escalation of the day, written while
    // reviewing it): the report says so.
    RUN_EXIT(changed, 0, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), dir.filePath(QStringLiteral("changed.json"))} + day);
    QVERIFY2(changed.out.contains(QStringLiteral(" (differs from this day's sign-off (%1): the figures changed since it was signed); signed off by alice")
                                      .arg(m.captured(2))
                                      .toUtf8()),
             changed.out.constData());

    // The review zone: [console] review_time_zone; an unknown name is a config error naming it.
    auto ini = [&](const QString &zone) {
        const QString path = dir.filePath(QStringLiteral("triage-%1.ini").arg(QString(zone).replace(QLatin1Char('/'), QLatin1Char('-'))));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(QStringLiteral("[console]\nreview_time_zone=%1\n[idempotency]\nurl=%2\n[intent]\nurl=%2\n[ticket]\nurl=%2\n")
                        .arg(zone, db.url())
                        .toUtf8());
        return path;
    };
    RUN_EXIT(berlin, 0, QStringList{QStringLiteral("--config"), ini(QStringLiteral("Europe/Berlin")), QStringLiteral("review"),
                                    QStringLiteral("--format"), QStringLiteral("json")} + day);
    const QJsonObject berlinReview = QJsonDocument::fromJson(berlin.out).object().value(QStringLiteral("review")).toObject();
    QCOMPARE(berlinReview.value(QStringLiteral("zone")).toString(), QStringLiteral("Europe/Berlin"));
    QCOMPARE(berlinReview.value(QStringLiteral("window")).toObject().value(QStringLiteral("from_utc")).toString(),
             QStringLiteral("2025-12-31T23:00:00.000000Z"));
    QCOMPARE(berlinReview.value(QStringLiteral("window")).toObject().value(QStringLiteral("from_local")).toString(),
             QStringLiteral("2026-01-01T00:00:00+01:00"));
    const CtlRun mars = runCtl(QStringList{QStringLiteral("--config"), ini(QStringLiteral("Mars/Olympus")), QStringLiteral("review")});
    QVERIFY2(mars.finished && mars.exitCode == 1, mars.describe().constData());
    QVERIFY2(mars.err.contains("[console] review_time_zone: must be an IANA time zone name (such as Europe/Berlin) or UTC, not "
                               "\"Mars/Olympus\""),
             mars.describe().constData());

    // Bad input.
    RUN_EXIT(badDate, 1, base + QStringList{QStringLiteral("review"), QStringLiteral("--date"), QStringLiteral("12/03/2026")});
    QCOMPARE(badDate.err, QByteArray("triagectl: review: --date \"12/03/2026\": give a day as YYYY-MM-DD\n"
                                     "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(noSuchDay, 1, base + QStringList{QStringLiteral("review"), QStringLiteral("--date"), QStringLiteral("2026-02-30")});
    QCOMPARE(noSuchDay.err, QByteArray("triagectl: review: --date \"2026-02-30\": no such day\n"
                                       "triagectl: run \"triagectl --help\" for usage\n"));
    const QString out = dir.filePath(QStringLiteral("bad.html"));
    RUN_EXIT(backwards, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), out, QStringLiteral("--from"),
                                              QStringLiteral("2026-12-03"), QStringLiteral("--to"), QStringLiteral("2026-11-30")});
    QCOMPARE(backwards.err, QByteArray("triagectl: report: --from 2026-12-03 is after --to 2026-11-30\n"
                                       "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(tooLong, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), out, QStringLiteral("--from"),
                                            QStringLiteral("2026-10-01"), QStringLiteral("--to"), QStringLiteral("2026-12-03")});
    QCOMPARE(tooLong.err, QByteArray("triagectl: report: --from 2026-10-01 --to 2026-12-03 is 64 days; at most 31\n"
                                     "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(twoOuts, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), out, QStringLiteral("--out"),
                                            dir.filePath(QStringLiteral("bad.json"))});
    QCOMPARE(twoOuts.err, QByteArray("triagectl: report: --out is given 2 times: one report file per run\n"
                                     "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(disagree, 1, base + QStringList{QStringLiteral("report"), QStringLiteral("--out"), out, QStringLiteral("--format"), QStringLiteral("pdf")});
    QCOMPARE(disagree.err, QStringLiteral("triagectl: report: --out \"%1\" names a .html file but --format is pdf: make them agree\n"
                                          "triagectl: run \"triagectl --help\" for usage\n")
                               .arg(out)
                               .toUtf8());
    QVERIFY(!QFile::exists(out));
    // A day that has not begun cannot be signed off (exit 4, refused; nothing written).
    RUN_EXIT(future, 4, as("alice", {QStringLiteral("review"), QStringLiteral("signoff"), QStringLiteral("--date"), QStringLiteral("2100-01-01")}));
    QCOMPARE(future.err, QByteArray("triagectl: 2100-01-01 (UTC) has not begun: a day is signed off once it has started\n"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_review_signoff WHERE day = '2100-01-01'")), QStringList{QStringLiteral("0")});
    RUN_EXIT(badSub, 1, base + QStringList{QStringLiteral("review"), QStringLiteral("close")});
    QCOMPARE(badSub.err, QByteArray("triagectl: review: unknown subcommand \"close\" (signoff or note)\n"
                                    "triagectl: run \"triagectl --help\" for usage\n"));
}

QTEST_GUILESS_MAIN(TestReviewCli)
#include "tst_review_cli.moc"
