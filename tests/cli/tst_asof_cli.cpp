// `triagectl show KEY --as-of T` (DESIGN.md §7 "As of T"), end to end on every backend and both
// shapes: the table and the json form with exact output, bad times and unknown keys (exit 1).
#include "CtlRun.h"
#include "WindowFixture.h"

#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestAsOfCli : public QObject {
    Q_OBJECT
private slots:
    void showAsOf_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, true);
    }
    void showAsOf();
};

void TestAsOfCli::showAsOf()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QString open = db.isShop() ? *shopTicketStatus(QStringLiteral("OPEN")) : QStringLiteral("OPEN");
    const QString ticketId = db.isShop() ? shopOrderId(1) : QStringLiteral("1");
    const QStringList show{QStringLiteral("show"), QStringLiteral("k:a"), QStringLiteral("--as-of")};

    // Between the record's creation and its last write: its status then is not recorded; the
    // attempt and the ticket were last written before T; alice's mark comes after T.
    CtlRun run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("2026-01-01T00:02:00Z")});
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out).split(QLatin1Char('\n')), QStringLiteral(
        "As of 2026-01-01T00:02:00.000000Z (UTC, inclusive): k:a\n"
        "Record: status at T not recorded\n"
        "  status not recorded before 2026-01-01T00:02:30.000000Z (the record's last write, after T; the table keeps only the "
        "current state); now SUCCESS (created at 2026-01-01T00:01:40.000000Z)\n"
        "Intent log: 1 attempt at T\n"
        "  attempt 1 create_ticket (task task_1 step step_1) at 2026-01-01T00:01:40.000000Z: UNKNOWN (last written at "
        "2026-01-01T00:01:40.000000Z, not after T)\n"
        "Tickets: 1 ticket at T\n"
        "  ticket %1 created at 2026-01-01T00:01:40.000000Z: %2 (last written at 2026-01-01T00:01:40.000000Z, not after T)\n"
        "Operator actions: none at T (1 created after T)\n"
        "Compensations: none at T\n").arg(ticketId, open).split(QLatin1Char('\n')));

    // Exactly at the last write (T is inclusive), as json.
    run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("2026-01-01T00:02:30Z"), QStringLiteral("--format"),
                                                     QStringLiteral("json")});
    QVERIFY2(run.ok(), run.describe().constData());
    QCOMPARE(QString::fromUtf8(run.out).split(QLatin1Char('\n')), QStringLiteral(R"json({
    "as_of": "2026-01-01T00:02:30.000000Z",
    "idem_key": "k:a",
    "inclusive": true,
    "parts": [
        {
            "created_after_t": 0,
            "items": [
                {
                    "basis": "unchanged",
                    "created_at": "2026-01-01T00:01:40.000000Z",
                    "ref": "record 1",
                    "since": "2026-01-01T00:02:30.000000Z",
                    "state_at_t": "SUCCESS",
                    "state_now": "SUCCESS",
                    "text": "SUCCESS: last written at 2026-01-01T00:02:30.000000Z, not after T (created at 2026-01-01T00:01:40.000000Z)"
                }
            ],
            "part": "record",
            "summary": "status at T: SUCCESS",
            "unknown": false
        },
        {
            "created_after_t": 0,
            "items": [
                {
                    "basis": "unchanged",
                    "created_at": "2026-01-01T00:01:40.000000Z",
                    "ref": "attempt 1",
                    "since": "2026-01-01T00:01:40.000000Z",
                    "state_at_t": "UNKNOWN",
                    "state_now": "UNKNOWN",
                    "text": "attempt 1 create_ticket (task task_1 step step_1) at 2026-01-01T00:01:40.000000Z: UNKNOWN (last written at 2026-01-01T00:01:40.000000Z, not after T)"
                }
            ],
            "part": "intent_log",
            "summary": "1 attempt at T",
            "unknown": false
        },
        {
            "created_after_t": 0,
            "items": [
                {
                    "basis": "unchanged",
                    "created_at": "2026-01-01T00:01:40.000000Z",
                    "ref": "ticket %1",
                    "since": "2026-01-01T00:01:40.000000Z",
                    "state_at_t": "%2",
                    "state_now": "%2",
                    "text": "ticket %1 created at 2026-01-01T00:01:40.000000Z: %2 (last written at 2026-01-01T00:01:40.000000Z, not after T)"
                }
            ],
            "part": "tickets",
            "summary": "1 ticket at T",
            "unknown": false
        },
        {
            "created_after_t": 0,
            "items": [
                {
                    "basis": "written",
                    "created_at": "2026-01-01T00:02:30.000000Z",
                    "ref": "audit 1",
                    "since": "2026-01-01T00:02:30.000000Z",
                    "state_at_t": "applied",
                    "state_now": "applied",
                    "text": "audit 1 at 2026-01-01T00:02:30.000000Z: alice mark_success applied"
                }
            ],
            "part": "operator_actions",
            "summary": "1 action at T",
            "unknown": false
        },
        {
            "created_after_t": 0,
            "items": [
            ],
            "part": "compensations",
            "summary": "none at T",
            "unknown": false
        }
    ]
}
)json").arg(ticketId, open).split(QLatin1Char('\n')));

    // Before its last write, as json: no state at T, so no "since"; a NULL-free "state_now".
    run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("2026-01-01T00:02Z"), QStringLiteral("--format"),
                                                     QStringLiteral("json")});
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.out.contains(R"json(                {
                    "basis": "not_recorded",
                    "created_at": "2026-01-01T00:01:40.000000Z",
                    "ref": "record 1",
                    "since": null,
                    "state_at_t": null,
                    "state_now": "SUCCESS",)json"),
             run.describe().constData());

    // T after the database's now: a warning, and the current state (every row as last written).
    run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("2999-01-01T00:00Z")});
    QVERIFY2(run.ok(), run.describe().constData());
    QVERIFY2(run.err.startsWith("triagectl: warning: --as-of 2999-01-01T00:00:00.000000Z is after the database's now ("),
             run.describe().constData());
    QVERIFY2(run.err.split('\n').first().endsWith("): showing the current state"), run.describe().constData());
    QVERIFY2(run.out.contains("Record: status at T: SUCCESS\n"), run.describe().constData());
    // A T before now warns of nothing.
    run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("2026-01-01T00:02:00Z")});
    QVERIFY2(run.ok() && !run.err.contains("--as-of"), run.describe().constData());

    // Bad input: a clear message, exit 1; a key found nowhere exits 1 as show does.
    run = runCtl(ctlDbArgs(db) + show + QStringList{QStringLiteral("yesterday")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: --as-of: cannot read \"yesterday\" as a UTC time (expected e.g. "
                                "2026-12-01T02:10:00Z, 2026-12-01T02:10Z or 2026-12-01; no zone means UTC)\n"),
             run.describe().constData());
    QCOMPARE(run.out, QByteArray());
    run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("show"), QStringLiteral("k:none"), QStringLiteral("--as-of"),
                                             QStringLiteral("2026-01-01T00:02:00Z")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("triagectl: no record, ticket or intent-log entry has key \"k:none\"\n"), run.describe().constData());
}

QTEST_GUILESS_MAIN(TestAsOfCli)
#include "tst_asof_cli.moc"
