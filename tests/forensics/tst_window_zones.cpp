// A time window when the clocks and zones are not this machine's UTC (DESIGN.md §7 "Zones and
// clocks"): this process runs with TZ=Asia/Shanghai (set in main(), before anything reads the
// time), each PostgreSQL test database's own default TimeZone is Asia/Shanghai (the shared
// server's is Asia/Kolkata), the MariaDB server runs in +05:30 (its GLOBAL zone is never
// changed here: the server is shared), and the window's events, bounds, summary minutes and
// watermark are the same UTC instants as in tst_window. Then a server clock forced off:
// MariaDB's session `SET timestamp` on the workspace's own idempotency connection, and
// measureStoreClocks() reports the offset within bounds taken from this machine's clock
// around the measurement. PostgreSQL has no per-session clock, so only MariaDB forces one.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "WindowFixture.h"

#include "Window.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTest>

#include <ctime>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestWindowZones : public QObject {
    Q_OBJECT
private slots:
    void sameInstantsInAnyZone_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(true, true);
    }
    void sameInstantsInAnyZone();
    void forcedClockOffset();
};

void TestWindowZones::sameInstantsInAnyZone()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    // This machine: the zone main() set (no DST in January or ever since 1991).
    QCOMPARE(QDateTime(QDate(2026, 1, 1), QTime(0, 0)).offsetFromUtc(), 8 * 3600);
    if (db.dialect() == QLatin1String("postgresql")) {
        // The test database's own default: every new session (direct or through the pooler's
        // new server connections) starts in Asia/Shanghai.
        TRIAGE_OK(db.adminExec(QStringLiteral("ALTER DATABASE %1 SET timezone TO 'Asia/Shanghai'").arg(db.databaseName())));
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT unnest(s.setconfig) FROM pg_db_role_setting s JOIN pg_database d "
                                                    "ON d.oid = s.setdatabase WHERE d.datname = current_database()")),
                 QStringList{QStringLiteral("TimeZone=Asia/Shanghai")});
    } else if (db.dialect() == QLatin1String("mysql")) {
        // MariaDB has no per-database zone, and no per-connection one the workspace's own
        // connections could get (an option file's init-command: Qt 6.4's QMYSQL refuses
        // MYSQL_READ_DEFAULT_FILE); GLOBAL is never changed on the shared server. The server
        // itself runs in +05:30 (tests/run-all.sh): every session starts there.
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT @@global.time_zone")), QStringList{QStringLiteral("+05:30")});
    }
    Workspace ws(db.config());

    // The fixture's events: the same UTC instants, bounds exact (100 s included, 200 s excluded).
    for (int pageSize : {1, 1000}) {
        QString error;
        const QVector<WindowEvent> events = wholeWindow(ws, window(), pageSize, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(lines(events), expected(db));
        QCOMPARE(events.first().at, at(100000));
        QCOMPARE(events.last().at, at(199999));
    }
    const auto tail = await(readSettlingTail(ws, window(), 0));
    TRIAGE_VERIFY_OUTCOME(tail);
    QCOMPARE(tail->size(), 0);

    // The summary's minutes are UTC minutes (a session zone would shift them by 8 h).
    const auto summary = await(summarizeWindow(ws, window()));
    TRIAGE_VERIFY_OUTCOME(summary);
    QStringList minutes;
    for (const MinuteCount &m : summary->perMinute)
        minutes << QStringLiteral("%1 %2 %3").arg(m.minute, eventKindName(m.kind)).arg(m.events);
    QCOMPARE(minutes, (QStringList{QStringLiteral("2026-01-01T00:01 record.created 1"),
                                   QStringLiteral("2026-01-01T00:01 intent.attempt 1"),
                                   QStringLiteral("2026-01-01T00:01 ticket.created 1"),
                                   QStringLiteral("2026-01-01T00:02 record.created 1"),
                                   QStringLiteral("2026-01-01T00:02 record.updated 1"),
                                   QStringLiteral("2026-01-01T00:02 intent.attempt 1"),
                                   QStringLiteral("2026-01-01T00:02 audit 1"),
                                   QStringLiteral("2026-01-01T00:03 ticket.created 1")}));

    // triagectl in the same zones (it inherits TZ): the same UTC window and minutes.
    const CtlRun run = runCtl(ctlDbArgs(db) + QStringList{QStringLiteral("timeline"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"),
                                                 QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--summary")});
    QVERIFY2(run.ok(), run.describe().constData());
    const QStringList out = QString::fromUtf8(run.out).split(QLatin1Char('\n'));
    QCOMPARE(out.first(), QStringLiteral("Window 2026-01-01T00:01:40.000000Z .. 2026-01-01T00:03:20.000000Z (UTC, end excluded)"));
    QCOMPARE(out.mid(out.indexOf(QStringLiteral("MINUTE (UTC)      IDEMPOTENCY  INTENT  TICKET  CONSOLE"))),
             (QStringList{QStringLiteral("MINUTE (UTC)      IDEMPOTENCY  INTENT  TICKET  CONSOLE"),
                          QStringLiteral("2026-01-01T00:01            1       1       1        0"),
                          QStringLiteral("2026-01-01T00:02            2       1       0        1"),
                          QStringLiteral("2026-01-01T00:03            0       0       1        0"), QString()}));

    if (db.isShop())
        return; // the watermark below writes the default schema's intent_log
    // The watermark is the server's UTC now minus the lookback, whatever the session's zone.
    TRIAGE_OK(insertOldAndRecent(db));
    const WindowQuery q = intentsAroundNow();
    QString error;
    const QVector<WindowEvent> finals = wholeWindow(ws, q, 10, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(finals.size(), 1);
    QCOMPARE(finals.first().idemKey, QStringLiteral("w:old"));
    const auto recentTail = await(readSettlingTail(ws, q, 0));
    TRIAGE_VERIFY_OUTCOME(recentTail);
    QCOMPARE(recentTail->size(), 1);
    QCOMPARE(recentTail->first().idemKey, QStringLiteral("w:recent"));
    // Both were written as the server's UTC now minus n seconds: within seconds of this
    // machine's UTC clock (the servers run here), not 8 h off.
    QVERIFY2(qAbs(recentTail->first().at / 1000 - (QDateTime::currentMSecsSinceEpoch() - 5000)) < 60000,
             qPrintable(recentTail->first().atText));
}

void TestWindowZones::forcedClockOffset()
{
    TestDatabase db(QStringLiteral("mysql"));
    TRIAGE_REQUIRE_BACKEND(db);
    // MariaDB's session timestamp fixes NOW() and UTC_TIMESTAMP() for that session: set on the
    // workspace's own idempotency connection, its clock reads exactly that instant. (A new
    // process such as triagectl cannot get it: no per-connection setting reaches its
    // connections, see sameInstantsInAnyZone.)
    for (const qint64 frozenS : {qint64(1893456000) /* 2030-01-01T00:00:00Z */, qint64(946684800) /* 2000-01-01T00:00:00Z */}) {
        Workspace ws(db.config());
        TRIAGE_OK(freezeIdempotencyClock(ws, frozenS));
        const qint64 frozenMs = frozenS * 1000;
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        const auto clocks = await(measureStoreClocks(ws));
        const qint64 after = QDateTime::currentMSecsSinceEpoch();
        TRIAGE_VERIFY_OUTCOME(clocks);
        QCOMPARE(clocks->size(), 1); // three roles, one database: measured on the idempotency worker
        QCOMPARE(clocks->first().role, DbRole::Idempotency);
        // offset = server time − this machine's clock at the round trip's middle, which lies in
        // [before, after] (1 ms for the integer halving).
        const qint64 offset = clocks->first().offsetMs;
        QVERIFY2(offset >= frozenMs - after - 1 && offset <= frozenMs - before + 1,
                 qPrintable(QStringLiteral("offset %1 ms, expected %2 .. %3").arg(offset).arg(frozenMs - after).arg(frozenMs - before)));
        QVERIFY(qAbs(offset) > kClockSkewWarnMs);
        QCOMPARE(offset > 0, frozenMs > after);
    }
}

int main(int argc, char *argv[])
{
    // This machine in another zone before anything reads the time (Qt caches the system zone).
    qputenv("TZ", "Asia/Shanghai");
    tzset();
    QCoreApplication app(argc, argv);
    TestWindowZones test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_window_zones.moc"
