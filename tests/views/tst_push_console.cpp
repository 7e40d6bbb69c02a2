// The console's push wiring (DESIGN.md §9 "Push"): MainWindow with a PushFeed and polling off —
// a FAILED record committed by another session appears in the open Failed tab by the hint
// alone, the key detail re-reads, and the status bar's live indicator says "live: push"; while
// the feed is unavailable (no triggers) it says so and keeps polling's wording.
#include "BackendTestUtil.h"

#include "MainWindow.h"
#include "PushFeed.h"
#include "PushTriggers.h"
#include "Queue.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "Workspace.h"

#include <QLabel>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestPushConsole : public QObject {
    Q_OBJECT
private slots:
    void hintReachesTheTab();
};

void TestPushConsole::hintReachesTheTab()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    MainWindow w(&ws);
    w.setLivePolling(0); // no polling: whatever moves, moves by push
    PushFeed feed(ws.config(), nullptr, 200);
    w.setPushFeed(&feed);
    feed.start();
    // No trigger yet: unavailable, said, and the queues say Refresh is needed.
    QVERIFY(QTest::qWaitFor([&] { return feed.state() == PushState::Unavailable; }, 20000));
    QCOMPARE(w.liveIndicator()->text(), QStringLiteral("\u25cb live updates off: Refresh to update"));
    QVERIFY2(w.liveIndicator()->toolTip().contains(QStringLiteral("push unavailable (no NOTIFY triggers on idempotency_record, "
                                                                   "intent_log, ticket (`triagectl notify install` adds them)): "
                                                                   "polling only")),
             qPrintable(w.liveIndicator()->toolTip()));
    feed.stop();

    const auto installed = changePushTriggers(ws, true, QStringLiteral("console push test")).result();
    QVERIFY2(installed.ok(), qPrintable(errorText(installed)));
    PushFeed live(ws.config(), nullptr, 200);
    w.setPushFeed(&live);
    live.start();
    QVERIFY(QTest::qWaitFor([&] { return live.state() == PushState::Live; }, 20000));
    QCOMPARE(w.liveIndicator()->text(), QStringLiteral("\u25cf live: push"));
    QueueModel *failed = w.queuePane(QueueKind::Failed)->model();
    QVERIFY(QTest::qWaitFor([&] { return !failed->isLoading() && !failed->isCounting(); }, 30000));
    QCOMPARE(failed->rowCount(), 0);
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                                         "VALUES ('push:tab', 'ticket_create', 2, now(), now(), now() + interval '7 days')")),
             QString());
    QVERIFY(QTest::qWaitFor([&] { return failed->rowCount() == 1; }, 20000));
    QCOMPARE(failed->queueRow(0).idemKey, QStringLiteral("push:tab"));
    QCOMPARE(failed->count(), qint64(1));
    w.setPushFeed(nullptr);
}

QTEST_MAIN(TestPushConsole)
#include "tst_push_console.moc"
