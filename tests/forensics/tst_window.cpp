// A time window across every store (DESIGN.md §7), on every backend and both shapes: the
// bounds (start included, end excluded), ties across stores in one stable order, every
// event exactly once whatever the page size, the filters, the watermark (settling events
// apart from final pages; a late commit shown, never lost, never twice), the stores' clocks.
#include "BackendTestUtil.h"
#include "ShopShape.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "WindowFixture.h"

#include "DeepLink.h"
#include "Window.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QThread>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestWindow : public QObject {
    Q_OBJECT
    static void rows(bool withPooler, bool withShop)
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(withPooler, withShop);
    }
private slots:
    void merge_takesNoRowBeyondAFullStream();

    void boundsOrderAndPaging_data() { rows(true, true); }
    void boundsOrderAndPaging();
    void filters_data() { rows(false, true); }
    void filters();
    void summaryCounts_data() { rows(false, true); }
    void summaryCounts();
    void watermark_data() { rows(true, false); }
    void watermark();
    void clocks_data() { rows(true, false); }
    void clocks();
    void timelineCli_data() { rows(false, true); }
    void timelineCli();
};

void TestWindow::merge_takesNoRowBeyondAFullStream()
{
    // Stream 0 (full: 2 rows of a limit of 2) ends at t=5; stream 1 has t=3 and t=9. The page
    // may not hold t=9: stream 0's next row (not read yet) may come before it.
    auto ev = [](EventKind k, qint64 t, const QString &id) {
        WindowEvent e;
        e.kind = k;
        e.store = storeOf(k);
        e.at = t;
        e.id = id;
        return e;
    };
    const QVector<QVector<WindowEvent>> streams{
        {ev(EventKind::RecordCreated, 1, QStringLiteral("1")), ev(EventKind::RecordCreated, 5, QStringLiteral("2"))},
        {ev(EventKind::IntentAttempt, 3, QStringLiteral("7")), ev(EventKind::IntentAttempt, 9, QStringLiteral("8"))}};
    const WindowPage page = mergeWindowStreams(streams, {{QStringLiteral("c1"), QStringLiteral("c5")}, {QStringLiteral("c3"), QStringLiteral("c9")}},
                                               {EventKind::RecordCreated, EventKind::IntentAttempt}, {true, false}, WindowCursor{}, 10);
    QCOMPARE(page.events.size(), 3);
    QCOMPARE(page.events[2].id, QStringLiteral("2"));
    QCOMPARE(page.next.streams[int(EventKind::RecordCreated)].time, QStringLiteral("c5"));
    QCOMPARE(page.next.streams[int(EventKind::RecordCreated)].done, false);
    QCOMPARE(page.next.streams[int(EventKind::IntentAttempt)].time, QStringLiteral("c3"));
    QCOMPARE(page.next.streams[int(EventKind::IntentAttempt)].id, QStringLiteral("7"));
    QCOMPARE(page.next.streams[int(EventKind::IntentAttempt)].done, false);
    QCOMPARE(page.end, false);
}

void TestWindow::boundsOrderAndPaging()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    for (int pageSize : {1, 2, 3, 7, 1000}) {
        QString error;
        const QVector<WindowEvent> events = wholeWindow(ws, window(), pageSize, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(lines(events), expected(db));
        for (const WindowEvent &e : events)
            QCOMPARE(e.settling, false);
    }
    // The settling tail of an old window is empty.
    const auto tail = await(readSettlingTail(ws, window(), 0));
    TRIAGE_VERIFY_OUTCOME(tail);
    QCOMPARE(tail->size(), 0);
}

void TestWindow::filters()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    const QStringList kExpected = expected(db);
    auto run = [&](const WindowQuery &q) {
        QString error;
        const QStringList out = lines(wholeWindow(ws, q, 2, &error));
        if (!error.isEmpty())
            return QStringList{error};
        return out;
    };
    WindowQuery q = window();
    q.keySubstring = QStringLiteral(":b");
    QCOMPARE(run(q), (QStringList{kExpected[3], kExpected[5], kExpected[7]}));
    q = window();
    q.stores = {EventStore::Ticket, EventStore::Console};
    QCOMPARE(run(q), (QStringList{kExpected[2], kExpected[6], kExpected[7]}));
    q = window();
    q.kinds = {EventKind::RecordUpdated, EventKind::IntentAttempt};
    QCOMPARE(run(q), (QStringList{kExpected[1], kExpected[4], kExpected[5]}));
    q = window();
    q.statuses = {QStringLiteral("SUCCEEDED"), QStringLiteral("applied")};
    QCOMPARE(run(q), (QStringList{kExpected[5], kExpected[6]}));
    // biz_type: records by column; intents, tickets and audit rows through their key's record
    // (the test's three roles share one database).
    q = window();
    q.bizType = QStringLiteral("pay_capture");
    QCOMPARE(run(q), (QStringList{kExpected[3], kExpected[5], kExpected[7]}));
    // task: intent attempts by task_id; the other streams through their key's attempts of
    // that task (one database here). k:b's attempt of task_b is outside the window: its key's
    // record and ticket are in, its attempt in the window (task_1) is not.
    IntentSpec other;
    other.key = QStringLiteral("k:b");
    other.taskId = QStringLiteral("task_b");
    other.created = ts(db, 300000);
    TRIAGE_OK(insertIntents(db, {other}));
    q = window();
    q.taskId = QStringLiteral("task_b");
    QCOMPARE(run(q), (QStringList{kExpected[3], kExpected[7]}));
    q.taskId = QStringLiteral("task_1");
    QCOMPARE(run(q), kExpected);
    q.kinds = {EventKind::IntentAttempt, EventKind::TicketCreated};
    q.keySubstring = QStringLiteral(":a");
    QCOMPARE(run(q), (QStringList{kExpected[1], kExpected[2]}));
    q = window();
    q.taskId = QStringLiteral("task_none");
    QCOMPARE(run(q), QStringList());
    // The summary counts through the same streams.
    q.taskId = QStringLiteral("task_b");
    const auto summary = await(summarizeWindow(ws, q));
    TRIAGE_VERIFY_OUTCOME(summary);
    QCOMPARE(summary->events[int(EventKind::RecordCreated)], 1);
    QCOMPARE(summary->events[int(EventKind::IntentAttempt)], 0);
    QCOMPARE(summary->events[int(EventKind::TicketCreated)], 1);
}

void TestWindow::summaryCounts()
{
    // The summary's counts, distinct keys and minutes on each backend (on PostgreSQL counted
    // through a GROUP BY and, for a timestamp column, grouped by date_trunc; the shop's
    // epoch-millisecond times through their canonical text).
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QString unknown = db.isShop() ? QStringLiteral("timeout") : QStringLiteral("UNKNOWN");
    const QString succeeded = db.isShop() ? QStringLiteral("ok") : QStringLiteral("SUCCEEDED");
    QVector<IntentSpec> specs;
    const auto add = [&](std::optional<QString> key, const QString &status, qint64 ms) {
        IntentSpec s;
        s.key = key;
        s.status = status;
        s.created = ts(db, ms);
        specs << s;
    };
    // 00:06:40 .. 00:08:10 UTC: s:1 three times, s:2 once UNKNOWN, s:3 twice UNKNOWN, two
    // attempts without a key (not counted as a key; one a millisecond before 00:07), and
    // one at the window's end (excluded).
    add(QStringLiteral("s:1"), succeeded, 400000);
    add(QStringLiteral("s:1"), succeeded, 410000);
    add(QStringLiteral("s:2"), unknown, 420000);
    add(QStringLiteral("s:3"), unknown, 430000);
    add(std::nullopt, unknown, 419999);
    add(QStringLiteral("s:1"), succeeded, 460000);
    add(QStringLiteral("s:3"), unknown, 480000);
    add(std::nullopt, succeeded, 490000);
    add(QStringLiteral("s:4"), unknown, 520000);
    TRIAGE_OK(insertIntents(db, specs));
    Workspace ws(db.config());
    WindowQuery q;
    q.from = at(400000);
    q.to = at(520000);
    q.kinds = {EventKind::IntentAttempt};
    const auto summary = await(summarizeWindow(ws, q));
    TRIAGE_VERIFY_OUTCOME(summary);
    QCOMPARE(summary->events[int(EventKind::IntentAttempt)], 8);
    QCOMPARE(summary->keys[int(EventKind::IntentAttempt)], 3);
    QCOMPARE(summary->unknownKeys, 2);
    QStringList minutes;
    for (const MinuteCount &m : summary->perMinute)
        minutes << QStringLiteral("%1 %2 %3").arg(m.minute, eventKindName(m.kind)).arg(m.events);
    QCOMPARE(minutes, (QStringList{QStringLiteral("2026-01-01T00:06 intent.attempt 3"), QStringLiteral("2026-01-01T00:07 intent.attempt 3"),
                                   QStringLiteral("2026-01-01T00:08 intent.attempt 2")}));
    // A window without attempts: zeros and no minute.
    q.from = at(600000);
    q.to = at(700000);
    const auto empty = await(summarizeWindow(ws, q));
    TRIAGE_VERIFY_OUTCOME(empty);
    QCOMPARE(empty->events[int(EventKind::IntentAttempt)], 0);
    QCOMPARE(empty->keys[int(EventKind::IntentAttempt)], 0);
    QCOMPARE(empty->unknownKeys, 0);
    QVERIFY(empty->perMinute.isEmpty());
}

void TestWindow::watermark()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    // A window reaching now: one old intent (final) and one 5 s old (settling at a 60 s lookback).
    TRIAGE_OK(insertOldAndRecent(db));
    WindowQuery q = intentsAroundNow();
    auto keys = [](const QVector<WindowEvent> &events) {
        QStringList k;
        for (const WindowEvent &e : events)
            k << e.idemKey + (e.settling ? QStringLiteral("~") : QString());
        return k;
    };
    QString error;
    QCOMPARE(keys(wholeWindow(ws, q, 1, &error)), QStringList{QStringLiteral("w:old")});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    auto tail = await(readSettlingTail(ws, q, 0));
    TRIAGE_VERIFY_OUTCOME(tail);
    QCOMPARE(keys(*tail), QStringList{QStringLiteral("w:recent~")});

    if (db.dialect() == QLatin1String("sqlite"))
        return; // one writer: no transaction held open beside the reader
    // A late commit: a transaction holds an attempt dated 3 s ago while the window is read;
    // it is in no page and no tail until it commits, then in the tail, never in a final page.
    {
        QSqlDatabase held = QSqlDatabase::addDatabase(db.dialect() == QLatin1String("mysql") ? QStringLiteral("QMYSQL")
                                                                                          : QStringLiteral("QPSQL"),
                                                       QStringLiteral("held"));
        const ConnectionProfile p = profileOf(db);
        held.setHostName(p.host);
        held.setPort(p.port);
        held.setDatabaseName(p.database);
        held.setUserName(p.user);
        held.setPassword(qEnvironmentVariable("TRIAGE_DB_PASSWORD")); // set by TestDatabase
        QVERIFY2(held.open(), qPrintable(held.lastError().text()));
        QVERIFY(held.transaction());
        QSqlQuery insert(held);
        QVERIFY2(insert.exec(QStringLiteral("INSERT INTO intent_log (idem_key, status, created_at, updated_at) VALUES "
                                            "('w:late', 'UNKNOWN', %1, %1)")
                                 .arg(serverAgoSeconds(db, 3))),
                 qPrintable(insert.lastError().text()));
        QCOMPARE(keys(wholeWindow(ws, q, 1, &error)), QStringList{QStringLiteral("w:old")});
        tail = await(readSettlingTail(ws, q, 0));
        QCOMPARE(keys(*tail), QStringList{QStringLiteral("w:recent~")});
        QVERIFY(held.commit());
        tail = await(readSettlingTail(ws, q, 0));
        QCOMPARE(keys(*tail), (QStringList{QStringLiteral("w:recent~"), QStringLiteral("w:late~")}));
        QCOMPARE(keys(wholeWindow(ws, q, 1, &error)), QStringList{QStringLiteral("w:old")});
        // Once the lookback has passed (2 s here), both are final, each once.
        q.lookbackS = 2;
        QThread::msleep(2100);
        QCOMPARE(keys(wholeWindow(ws, q, 1, &error)),
                 (QStringList{QStringLiteral("w:old"), QStringLiteral("w:recent"), QStringLiteral("w:late")}));
        tail = await(readSettlingTail(ws, q, 0));
        QCOMPARE(keys(*tail), QStringList());
        held.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("held"));
}

void TestWindow::clocks()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    const auto clocks = await(measureStoreClocks(ws));
    TRIAGE_VERIFY_OUTCOME(clocks);
    // The three roles share one database: measured once, as the idempotency store.
    QCOMPARE(clocks->size(), 1);
    QCOMPARE(clocks->first().role, DbRole::Idempotency);
    // The test servers run on this machine: their clocks are this machine's.
    QVERIFY2(qAbs(clocks->first().offsetMs) <= clocks->first().roundTripMs + 5,
             qPrintable(QStringLiteral("offset %1 ms, round trip %2 ms").arg(clocks->first().offsetMs).arg(clocks->first().roundTripMs)));
}

void TestWindow::timelineCli()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QStringList window{QStringLiteral("timeline"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"),
                             QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z")};
    const QString live = db.isShop() ? QStringLiteral("live") : QStringLiteral("OPEN");
    CtlRun run = runCtl(ctlDbArgs(db) + window);
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "AT (UTC)                     STORE        KIND            STATUS     IDEM_KEY  ACTOR    DETAIL\n"
        "2026-01-01T00:01:40.000000Z  idempotency  record.created             k:a                now SUCCESS\n"
        "2026-01-01T00:01:40.000000Z  intent       intent.attempt  UNKNOWN    k:a       agent-1  create_ticket\n"
        "2026-01-01T00:01:40.000000Z  ticket       ticket.created             k:a                VPN down (now %1)\n"
        "2026-01-01T00:02:00.000000Z  idempotency  record.created             k:b                now PROCESSING\n"
        "2026-01-01T00:02:30.000000Z  idempotency  record.updated  SUCCESS    k:a\n"
        "2026-01-01T00:02:30.000000Z  intent       intent.attempt  SUCCEEDED  k:b       agent-1  create_ticket\n"
        "2026-01-01T00:02:30.000000Z  console      audit           applied    k:a       alice    mark_success\n"
        "2026-01-01T00:03:19.999000Z  ticket       ticket.created             k:b                VPN down (now %1)\n"
        "8 events\n").arg(live));
    if (!db.isShop()) // the shop's config names no biz_type: warnings about that on stderr
        QCOMPARE(run.err, QByteArray());

    run = runCtl(ctlDbArgs(db) + window + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--kind"),
                                                      QStringLiteral("audit,record.updated")});
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "[\n"
        "{\"actor\":null,\"at\":\"2026-01-01T00:02:30.000000Z\",\"biz_type\":\"ticket_create\",\"detail\":null,\"id\":\"1\","
        "\"idem_key\":\"k:a\",\"kind\":\"record.updated\",\"settling\":false,\"status\":\"SUCCESS\",\"status_now\":null,"
        "\"status_unmapped\":false,\"store\":\"idempotency\"},\n"
        "{\"actor\":\"alice\",\"at\":\"2026-01-01T00:02:30.000000Z\",\"biz_type\":null,\"detail\":\"mark_success\",\"id\":\"1\","
        "\"idem_key\":\"k:a\",\"kind\":\"audit\",\"settling\":false,\"status\":\"applied\",\"status_now\":null,"
        "\"status_unmapped\":false,\"store\":\"console\"}\n"
        "]\n"));

    // --task: the key's record through its attempts of that task (k:b's task_b attempt is
    // after the window).
    IntentSpec other;
    other.key = QStringLiteral("k:b");
    other.taskId = QStringLiteral("task_b");
    other.created = ts(db, 300000);
    TRIAGE_OK(insertIntents(db, {other}));
    run = runCtl(ctlDbArgs(db) + window + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--kind"),
                                                      QStringLiteral("record.created,intent.attempt"), QStringLiteral("--task"),
                                                      QStringLiteral("task_b")});
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out), QStringLiteral(
        "[\n"
        "{\"actor\":null,\"at\":\"2026-01-01T00:02:00.000000Z\",\"biz_type\":\"pay_capture\",\"detail\":\"now PROCESSING\",\"id\":\"2\","
        "\"idem_key\":\"k:b\",\"kind\":\"record.created\",\"settling\":false,\"status\":null,\"status_now\":\"PROCESSING\","
        "\"status_unmapped\":false,\"store\":\"idempotency\"}\n"
        "]\n"));

    run = runCtl(ctlDbArgs(db) + window + QStringList{QStringLiteral("--summary")});
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out).split(QLatin1Char('\n')), QStringLiteral(
        "Window 2026-01-01T00:01:40.000000Z .. 2026-01-01T00:03:20.000000Z (UTC, end excluded)\n"
        "KIND                  EVENTS  KEYS\n"
        "record.created             2     2\n"
        "record.updated             1     1\n"
        "intent.attempt             2     2\n"
        "ticket.created             2     2\n"
        "audit                      1     1\n"
        "compensation               0     0\n"
        "compensation.attempt       0     0\n"
        "Keys with an UNKNOWN attempt: 1\n"
        "Records created in the window, still PROCESSING: 1\n"
        "Keys with 2+ tickets created in the window: 0\n"
        "Settled by operators: alice mark_success 1\n"
        "Top biz_types: pay_capture 1, ticket_create 1\n"
        "Top tenants: acme 2\n"
        "MINUTE (UTC)      IDEMPOTENCY  INTENT  TICKET  CONSOLE\n"
        "2026-01-01T00:01            1       1       1        0\n"
        "2026-01-01T00:02            2       1       0        1\n"
        "2026-01-01T00:03            0       0       1        0\n").split(QLatin1Char('\n')));

    // The same window and filters as a link (DESIGN.md §7 "Links"): the same output.
    WindowQuery linked = wfix::window();
    linked.keySubstring = QStringLiteral("k:");
    linked.kinds = {EventKind::Audit, EventKind::RecordUpdated};
    const QString link = windowLink(linked, std::pair(EventKind::Audit, QStringLiteral("1")));
    for (const QStringList &format : {QStringList{}, QStringList{QStringLiteral("--format"), QStringLiteral("json")},
                                      QStringList{QStringLiteral("--summary")}}) {
        const CtlRun flags = runCtl(ctlDbArgs(db) + window + format + QStringList{QStringLiteral("--key"), QStringLiteral("k:"),
                                                                                  QStringLiteral("--kind"), QStringLiteral("audit,record.updated")});
        QVERIFY2(flags.ok(), flags.describe().constData());
        run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--link"), link} + format);
        QVERIFY2(run.ok(), run.describe().constData());
        QCOMPARE(run.out, flags.out);
        // The event the link names is for the console; said on stderr.
        QVERIFY2(run.err.contains("triagectl: note: the link names the event audit 1; timeline lists the whole window "
                                  "(triage-console --open LINK selects it)\n"),
                 run.describe().constData());
        QVERIFY2(!run.err.contains("may have been purged"), run.describe().constData());
    }
    // A link to a window older than the oldest record still held: said, as the console's banner.
    WindowQuery old = wfix::window();
    old.from = wfix::at(0);
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--link"), windowLink(old)});
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.err.contains("triagectl: note: The idempotency store holds no record created before "),
             run.describe().constData());
    QVERIFY2(run.err.contains("(records expire): events of this window before then may have been purged.\n"),
             run.describe().constData());
    QVERIFY2(!run.err.contains("the link names the event"), run.describe().constData());
    run = runCtl(ctlDbArgs(db) + window + QStringList{QStringLiteral("--link"), link});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --link takes the window and filters from the link: leave out --from, --to and the filters\n"),
             run.describe().constData());
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--link"), keyLink(QStringLiteral("k:a"))});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --link: timeline takes a window link (triage://window?from=…&to=…); open a key link "
                                "with triagectl show --link\n"),
             run.describe().constData());
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--link"), QStringLiteral("triage://window?to=x")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --link: to: not an ISO time: \"x\"\n"), run.describe().constData());
    // show --link: the key from a key link, the same output as the key.
    const QStringList asOf{QStringLiteral("--as-of"), QStringLiteral("2026-01-01T00:02:00Z")};
    const CtlRun byKey = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("show"), QStringLiteral("k:a")} + asOf);
    QVERIFY2(byKey.ok(), byKey.describe().constData());
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("show"), QStringLiteral("--link"), keyLink(QStringLiteral("k:a"))} + asOf);
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(run.out, byKey.out);
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("show"), QStringLiteral("--link"), link});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --link: show takes a key link (triage://key/<key>); open a window link with "
                                "triagectl timeline --link\n"),
             run.describe().constData());

    // Bad input: a clear message, exit 1.
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:03:20Z"),
                                             QStringLiteral("--to"), QStringLiteral("2026-01-01T00:01:40Z")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --from 2026-01-01T00:03:20.000000Z is not before --to 2026-01-01T00:01:40.000000Z: "
                                "the window is empty\n"),
             run.describe().constData());
    run = runCtl(ctlDbArgs(db) + window + QStringList{QStringLiteral("--kind"), QStringLiteral("record.deleted")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --kind \"record.deleted\": one of record.created, record.updated, intent.attempt, "
                                "ticket.created, audit, compensation, compensation.attempt\n"),
             run.describe().constData());
}

QTEST_GUILESS_MAIN(TestWindow)
#include "tst_window.moc"
