// triagectl timeline as a fresh user meets it (DESIGN.md §7), on every backend: a filtered
// summary says "not counted" where a filter left a figure out; a listing cut by --limit says
// there is more; time options name the option and the value and take minutes; impossible
// filters exit 1; a --status that is no console status gets a note; an unmapped status is
// flagged; NULL and "" stay apart in JSON; an incident refuses a pin outside its window,
// kinds or filters. Exact output throughout.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "WindowFixture.h"
#include "WindowGap.h"

#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestTimelineCli : public QObject {
    Q_OBJECT
    static void rows()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, false);
    }
private slots:
    void filteredSummary_data() { rows(); }
    void filteredSummary();
    void limitSaysMore_data() { rows(); }
    void limitSaysMore();
    void timeOptionsAndConflicts_data() { rows(); }
    void timeOptionsAndConflicts();
    void statusesAndNulls_data() { rows(); }
    void statusesAndNulls();
    void pinOutsideIncident_data() { rows(); }
    void pinOutsideIncident();
};

namespace {

const QStringList kWindow{QStringLiteral("timeline"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"),
                          QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z")};

QStringList words(const char *text)
{
    return QString::fromUtf8(text).split(QLatin1Char(' '));
}

} // namespace

void TestTimelineCli::filteredSummary()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));

    // Kinds left out: their figures say so, and their stores' minute columns are "-".
    CtlRun run = runCtl(ctlDbArgs(db) + kWindow + words("--summary --kind record.created,audit"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out).split(QLatin1Char('\n')), QStringLiteral(
        "Window 2026-01-01T00:01:40.000000Z .. 2026-01-01T00:03:20.000000Z (UTC, end excluded)\n"
        "KIND            EVENTS  KEYS\n"
        "record.created       2     2\n"
        "audit                1     1\n"
        "Keys with an UNKNOWN attempt: not counted (filtered out by --kind: intent.attempt not selected)\n"
        "Records created in the window, still PROCESSING: 1\n"
        "Keys with 2+ tickets created in the window: not counted (filtered out by --kind: ticket.created not selected)\n"
        "Settled by operators: alice mark_success 1\n"
        "Top biz_types: pay_capture 1, ticket_create 1\n"
        "Top tenants: not counted (filtered out by --kind: ticket.created not selected)\n"
        "MINUTE (UTC)      IDEMPOTENCY  INTENT  TICKET  CONSOLE\n"
        "2026-01-01T00:01            1       -       -        0\n"
        "2026-01-01T00:02            1       -       -        1\n").split(QLatin1Char('\n')));
    QCOMPARE(run.err, QByteArray());

    // A status filter without UNKNOWN, PROCESSING or applied: those figures are not counted
    // (JSON null, the reason under "not_counted"); a store left out by --store likewise.
    run = runCtl(ctlDbArgs(db) + kWindow + words("--summary --store idempotency,intent --status succeeded --format json"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out).split(QLatin1Char('\n')), QStringLiteral(R"json({
    "duplicate_groups": null,
    "from": "2026-01-01T00:01:40.000000Z",
    "kinds": {
        "intent.attempt": {
            "events": 1,
            "keys": 1
        },
        "record.created": {
            "events": 0,
            "keys": 0
        },
        "record.updated": {
            "events": 0,
            "keys": 0
        }
    },
    "not_counted": {
        "duplicate_groups": "--store: ticket.created not selected",
        "settled_by": "--store: audit not selected",
        "still_processing": "--status: PROCESSING not selected",
        "top_tenants": "--store: ticket.created not selected",
        "unknown_keys": "--status: UNKNOWN not selected"
    },
    "notes": [
    ],
    "per_minute": [
        {
            "events": 1,
            "kind": "intent.attempt",
            "minute": "2026-01-01T00:02"
        }
    ],
    "settled_by": null,
    "still_processing": null,
    "to": "2026-01-01T00:03:20.000000Z",
    "top_biz_types": [
    ],
    "top_tenants": null,
    "unknown_keys": null
}
)json").split(QLatin1Char('\n')));
    QCOMPARE(run.err, QByteArray());

    // CSV: the per-minute rows, and a note that the other figures are not in it.
    run = runCtl(ctlDbArgs(db) + kWindow + words("--summary --store idempotency,intent --status succeeded --format csv"));
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.out.startsWith("minute,kind,events\r\n"), run.describe().constData());
    QCOMPARE(run.err, QByteArray("triagectl: note: the CSV summary holds the per-minute counts only; --format json or table for "
                                 "the other figures\n"));
}

void TestTimelineCli::limitSaysMore()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));

    // 8 events in the window: --limit 3 says there are more; --limit 8 and 9 do not.
    CtlRun run = runCtl(ctlDbArgs(db) + kWindow + words("--limit 3 --page-size 2"));
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.out.endsWith("\n3 events shown; more in the window (--limit 0 for all)\n"), run.describe().constData());
    QCOMPARE(run.out.count('\n'), 5);
    for (const char *limit : {"8", "9", "0"}) {
        run = runCtl(ctlDbArgs(db) + kWindow + QStringList{QStringLiteral("--limit"), QString::fromLatin1(limit)});
        QVERIFY2(run.ok() && run.out.endsWith("VPN down (now OPEN)\n8 events\n") && run.err.isEmpty(), run.describe().constData());
    }
    // JSON and CSV stay lists of events; the cut is said on stderr.
    run = runCtl(ctlDbArgs(db) + kWindow + words("--limit 2 --format json"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(run.out.count('\n'), 4);
    QCOMPARE(run.err, QByteArray("triagectl: 2 events shown; more in the window (--limit 0 for all)\n"));
    run = runCtl(ctlDbArgs(db) + kWindow + words("--limit 8 --format csv"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(run.err, QByteArray());

    // A quiet stretch of 5 min or more: one line between the events, worded as the Incident
    // tab's gap row (windowGapText()).
    TRIAGE_OK(intent(db, QStringLiteral("k:late"), 1000000));
    run = runCtl(ctlDbArgs(db) + words("timeline --from 2026-01-01T00:03:00Z --to 2026-01-01T00:20:00Z"));
    QVERIFY2(run.ok(), run.describe().constData());
    QByteArrayList gaps;
    for (const QByteArray &line : run.out.split('\n'))
        if (line.contains("without events"))
            gaps << line.trimmed();
    // 00:03:20 (k:c) to 00:16:40 (k:late): 13 min 20 s.
    QCOMPARE(gaps, QByteArrayList{windowGapText(13LL * 60 * 1000000 + 20 * 1000000).toUtf8()});
    QCOMPARE(gaps.first(), QStringLiteral("\u2014 13 min without events \u2014").toUtf8());
    QVERIFY2(run.out.endsWith("\n4 events\n"), run.describe().constData());
}

void TestTimelineCli::timeOptionsAndConflicts()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QStringList base = ctlDbArgs(db);

    // Minute precision with Z, and a time without a zone (UTC): the same window as kWindow
    // but from 00:01:00, so k:z's record (created at 00:01:39.999) comes in.
    CtlRun run = runCtl(base + words("timeline --from 2026-01-01T00:01Z --to 2026-01-01T00:03:20"));
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.out.contains("2026-01-01T00:01:39.999000Z  idempotency  record.created"), run.describe().constData());
    QVERIFY2(run.out.endsWith("\n9 events\n"), run.describe().constData());

    const struct {
        const char *args;
        QByteArray err;
    } cases[] = {
        {"timeline --from yesterday --to 2026-01-01T00:03:20Z",
         "triagectl: --from: cannot read \"yesterday\" as a UTC time (expected e.g. 2026-12-01T02:10:00Z, 2026-12-01T02:10Z or "
         "2026-12-01; no zone means UTC)\n"},
        {"timeline --from 2026-01-01T00:01:40Z --to 2026-01-01T25:00Z",
         "triagectl: --to: cannot read \"2026-01-01T25:00Z\" as a UTC time (expected e.g. 2026-12-01T02:10:00Z, 2026-12-01T02:10Z "
         "or 2026-12-01; no zone means UTC)\n"},
        {"timeline --from 2026-01-01T00:01:40Z",
         "triagectl: timeline needs --from and --to, UTC times (e.g. 2026-12-01T02:10:00Z)\n"},
        {"timeline --from 2026-01-01T00:03:20Z --to 2026-01-01T00:01:40Z",
         "triagectl: --from 2026-01-01T00:03:20.000000Z is not before --to 2026-01-01T00:01:40.000000Z: the window is empty\n"},
        {"timeline --from 2026-01-01T00:01:40Z --to 2026-01-01T00:03:20Z --store ticket --kind audit",
         "triagectl: --kind audit and --store ticket select no event stream: that kind is not in that store\n"},
        {"timeline --from 2026-01-01T00:01:40Z --to 2026-01-01T00:03:20Z --store ticket,intent --kind audit,record.created",
         "triagectl: --kind audit,record.created and --store ticket,intent select no event stream: none of those kinds is in "
         "those stores\n"},
        {"list unknown --updated-from 2026-13-01",
         "triagectl: --updated-from: cannot read \"2026-13-01\" as a UTC time (expected e.g. 2026-12-01T02:10:00Z, "
         "2026-12-01T02:10Z or 2026-12-01; no zone means UTC)\n"},
    };
    for (const auto &c : cases) {
        run = runCtl(base + words(c.args));
        QVERIFY2(run.finished && run.exitCode == 1, run.describe().constData());
        QVERIFY2(run.err.startsWith(c.err), run.describe().constData());
        QCOMPARE(run.out, QByteArray());
    }
}

void TestTimelineCli::statusesAndNulls()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    // An attempt whose status the mapping does not know, one with an empty actor, one with none.
    IntentSpec weird;
    weird.key = QStringLiteral("k:d");
    weird.status = QStringLiteral("WEIRD");
    weird.actor = QString::fromLatin1("");
    weird.created = ts(db, 160000);
    IntentSpec anonymous = weird;
    anonymous.key = QStringLiteral("k:e");
    anonymous.status = QStringLiteral("FAILED");
    anonymous.actor = std::nullopt;
    anonymous.created = ts(db, 170000);
    TRIAGE_OK(insertIntents(db, {weird, anonymous}));

    // Not a console status: compared as stored, with a note; the status flagged as unmapped.
    CtlRun run = runCtl(ctlDbArgs(db) + kWindow + words("--kind intent.attempt --status WEIRD,failed"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "AT (UTC)                     STORE   KIND            STATUS            IDEM_KEY  ACTOR  DETAIL\n"
        "2026-01-01T00:02:40.000000Z  intent  intent.attempt  WEIRD (unmapped)  k:d              create_ticket\n"
        "2026-01-01T00:02:50.000000Z  intent  intent.attempt  FAILED            k:e              create_ticket\n"
        "2 events\n"));
    QCOMPARE(run.err, QByteArray("triagectl: note: status \"WEIRD\" is not a console status; compared as stored\n"));

    // JSON: "" for the stored empty actor, null for the NULL one and for what a kind does not
    // have (an attempt's biz_type, a record.created's status); the current status of a
    // creation event under status_now.
    run = runCtl(ctlDbArgs(db) + kWindow + words("--kind intent.attempt,record.created --key k: --status WEIRD,FAILED,PROCESSING "
                                                 "--format json"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "[\n"
        "{\"actor\":null,\"at\":\"2026-01-01T00:02:00.000000Z\",\"biz_type\":\"pay_capture\",\"detail\":\"now PROCESSING\","
        "\"id\":\"2\",\"idem_key\":\"k:b\",\"kind\":\"record.created\",\"settling\":false,\"status\":null,"
        "\"status_now\":\"PROCESSING\",\"status_unmapped\":false,\"store\":\"idempotency\"},\n"
        "{\"actor\":\"\",\"at\":\"2026-01-01T00:02:40.000000Z\",\"biz_type\":null,\"detail\":\"create_ticket\",\"id\":\"4\","
        "\"idem_key\":\"k:d\",\"kind\":\"intent.attempt\",\"settling\":false,\"status\":\"WEIRD\",\"status_now\":null,"
        "\"status_unmapped\":true,\"store\":\"intent\"},\n"
        "{\"actor\":null,\"at\":\"2026-01-01T00:02:50.000000Z\",\"biz_type\":null,\"detail\":\"create_ticket\",\"id\":\"5\","
        "\"idem_key\":\"k:e\",\"kind\":\"intent.attempt\",\"settling\":false,\"status\":\"FAILED\",\"status_now\":null,"
        "\"status_unmapped\":false,\"store\":\"intent\"}\n"
        "]\n"));
    QCOMPARE(run.err, QByteArray("triagectl: note: status \"WEIRD\" is not a console status; compared as stored\n"));

    // A ticket.created event says its status is the current one (DESIGN.md §7 "Honesty").
    run = runCtl(ctlDbArgs(db) + kWindow + words("--kind ticket.created --format csv"));
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "at,store,kind,id,idem_key,biz_type,status,actor,detail,settling,status_now,status_unmapped\r\n"
        "2026-01-01T00:01:40.000000Z,ticket,ticket.created,1,k:a,,,,VPN down (now OPEN),false,OPEN,false\r\n"
        "2026-01-01T00:03:19.999000Z,ticket,ticket.created,2,k:b,,,,VPN down (now OPEN),false,OPEN,false\r\n"));

    // The summary's JSON carries the note.
    run = runCtl(ctlDbArgs(db) + kWindow + words("--summary --status WEIRD --format json"));
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.out.contains("\"notes\": [\n        \"status \\\"WEIRD\\\" is not a console status; compared as stored\"\n    ]"),
             run.describe().constData());
    QCOMPARE(run.err, QByteArray());
}

void TestTimelineCli::pinOutsideIncident()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QStringList base = ctlDbArgs(db) + words("--operator alice");
    CtlRun run = runCtl(base + words("incident create --title t --from 2026-01-01T00:01:40Z --to 2026-01-01T00:03:20Z "
                                     "--kind record.created,intent.attempt --status unknown,processing,success"));
    QVERIFY2(run.ok(), run.describe().constData());

    const struct {
        const char *args;
        QByteArray err;
    } cases[] = {
        {"incident pin 1 --kind intent.attempt --event-id 3",
         "triagectl: intent.attempt 3 at 2026-01-01T00:03:20.000000Z is outside incident 1's window "
         "[2026-01-01T00:01:40.000000Z, 2026-01-01T00:03:20.000000Z): not pinned\n"},
        {"incident pin 1 --kind audit --event-id 1",
         "triagectl: incident 1 covers no audit events (its kinds: record.created, intent.attempt): audit 1 not pinned\n"},
        {"incident pin 1 --kind intent.attempt --event-id 2",
         "triagectl: intent.attempt 2 does not pass incident 1's filters (kinds record.created, intent.attempt; statuses "
         "unknown, processing, success): not pinned\n"},
    };
    for (const auto &c : cases) {
        run = runCtl(base + words(c.args));
        QVERIFY2(run.finished && run.exitCode == 1, run.describe().constData());
        QCOMPARE(run.err, c.err);
    }
    // Inside the window, kinds and filters: pinned.
    run = runCtl(base + words("incident pin 1 --kind intent.attempt --event-id 1"));
    QVERIFY2(run.ok(), run.describe().constData());
    run = runCtl(base + words("incident pin 1 --kind record.created --event-id 2"));
    QVERIFY2(run.ok(), run.describe().constData());
    // Nothing written for the refusals.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_incident_pin")), QStringList{QStringLiteral("2")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'incident.pin'")),
             QStringList{QStringLiteral("2")});
}

QTEST_GUILESS_MAIN(TestTimelineCli)
#include "tst_timeline_cli.moc"
