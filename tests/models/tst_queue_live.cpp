// Live queues (DESIGN.md §9 "Live queues"), polling on every backend: diffQueueRows() with
// exact indexes, then QueueModel::poll() against a real database changed by another
// connection (the admin one): a row that entered is inserted at its place and flagged, a row
// that left stays flagged with why, a changed row is updated in place, a failing poll makes
// the state "stale since … (why)" and the next good poll clears it; Refresh drops the marks.

#include "BackendTestUtil.h"
#include "ModelTestUtil.h"
#include "LeftRows.h"
#include "Queue.h"
#include "QueueModel.h"

#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QueueRow row(qint64 id, const char *updatedAt, QueueSource source = QueueSource::Record)
{
    QueueRow r;
    r.source = source;
    r.id = id;
    r.idemKey = QStringLiteral("k%1").arg(id);
    r.status = QStringLiteral("FAILED");
    r.updatedAt = QString::fromLatin1(updatedAt);
    return r;
}

QStringList keysOf(const QueueModel &m)
{
    QStringList out;
    for (int i = 0; i < m.rowCount(); ++i)
        out << m.queueRow(i).idemKey;
    return out;
}

QList<int> marksOf(const QueueModel &m)
{
    QList<int> out;
    for (int i = 0; i < m.rowCount(); ++i)
        out << m.index(i, 0).data(roles::LiveChange).toInt();
    return out;
}

} // namespace

class TestQueueLive : public QObject {
    Q_OBJECT
private slots:
    void diffRules();
    void leftReasons();
    void pollsMergeChanges_data();
    void pollsMergeChanges();
    void storeDownFromTheStart();
    void tailDelta();
    void deltaReadBeyondHead_data();
    void deltaReadBeyondHead();
};

void TestQueueLive::diffRules()
{
    QueueRequest req; // oldest first
    const QVector<QueueRow> held{row(1, "2026-01-01T00:00:01.000000Z"), row(2, "2026-01-01T00:00:02.000000Z"),
                                 row(3, "2026-01-01T00:00:03.000000Z")};
    // 2 left; 9 entered between 1 and 3; 3 changed; 8 is past the rows held (paging brings it).
    QueueRow three = held[2];
    three.status = QStringLiteral("UNKNOWN_CODE_7");
    const QVector<QueueRow> fresh{held[0], row(9, "2026-01-01T00:00:02.500000Z"), three, row(8, "2026-01-01T00:00:04.000000Z")};
    QueueDelta d = diffQueueRows(req, held, {}, false, fresh, false);
    QCOMPARE(d.left, QVector<int>{1});
    QCOMPARE(d.updated, QVector<int>{2});
    QCOMPARE(d.updatedRows.first().status, QStringLiteral("UNKNOWN_CODE_7"));
    QCOMPARE(d.entered.size(), 1);
    QCOMPARE(d.entered.first().first, 2);
    QCOMPARE(d.entered.first().second.id, 9);
    // The view holds the whole queue: 8 enters at the end.
    d = diffQueueRows(req, held, {}, true, fresh, true);
    QCOMPARE(d.entered.size(), 2);
    QCOMPARE(d.entered.at(1).first, 3);
    QCOMPARE(d.entered.at(1).second.id, 8);
    // A held row beyond the rows re-read (fresh not complete, the row after its last) did not
    // leave: it may just have been pushed past them.
    d = diffQueueRows(req, held, {}, false, {held[0], held[1]}, false);
    QVERIFY(d.left.isEmpty());
    // ... but it did when fresh is the whole queue; a row already flagged is not reported again.
    d = diffQueueRows(req, held, QSet<int>{1}, false, {held[0]}, true);
    QCOMPARE(d.left, QVector<int>{2});
    // Newest first: an entering row goes before the rows it is newer than.
    QueueRequest newest;
    newest.newestFirst = true;
    const QVector<QueueRow> heldNewest{held[2], held[1], held[0]};
    d = diffQueueRows(newest, heldNewest, {}, false, {row(7, "2026-01-01T00:00:05.000000Z"), held[2], held[1], held[0]}, true);
    QCOMPARE(d.entered.size(), 1);
    QCOMPARE(d.entered.first().first, 0);
    // Equal times: records before intent steps, then id.
    QVERIFY(queueRowBefore(req, row(5, "2026-01-01T00:00:01.000000Z"), row(4, "2026-01-01T00:00:01.000000Z", QueueSource::Intent)));
    QVERIFY(queueRowBefore(req, row(4, "2026-01-01T00:00:01.000000Z"), row(5, "2026-01-01T00:00:01.000000Z")));
    QVERIFY(queueRowBefore(newest, row(5, "2026-01-01T00:00:01.000000Z"), row(4, "2026-01-01T00:00:01.000000Z")));
}

void TestQueueLive::leftReasons()
{
    RecordDetail now;
    now.statusText = QStringLiteral("SUCCESS");
    now.updatedAt = QStringLiteral("2026-12-03T12:01:05.000000Z");
    AuditEntry mark;
    mark.action = QStringLiteral("mark_success");
    mark.outcome = QStringLiteral("applied");
    mark.operatorName = QStringLiteral("alice");
    mark.at = QStringLiteral("2026-12-03T12:01:04.123456Z");
    QCOMPARE(leftRowReason(now, mark), QStringLiteral("settled SUCCESS by alice at 12:01:04 UTC"));
    QCOMPARE(leftRowReason(now, std::nullopt),
             QStringLiteral("now SUCCESS (no operator mark recorded: an agent or another tool changed it)"));
    mark.action = QStringLiteral("mark_failed"); // marked FAILED earlier, SUCCESS now: not this mark
    QCOMPARE(leftRowReason(now, mark),
             QStringLiteral("now SUCCESS (no operator mark recorded: an agent or another tool changed it)"));
    now.statusText = QStringLiteral("PROCESSING");
    QCOMPARE(leftRowReason(now, std::nullopt), QStringLiteral("still PROCESSING, changed at 12:01:05 UTC"));
    QCOMPARE(leftRowReason(std::nullopt, mark), QStringLiteral("record gone"));
}

void TestQueueLive::pollsMergeChanges_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TestQueueLive::pollsMergeChanges()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QString error = initSchema(ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString b = db.backend();
    auto insert = [&](const QString &key, qint64 age) {
        return db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                           "expire_at) VALUES ('%1', 'ticket_create', 2, %2, %3, %4)")
                                .arg(key, serverNowMinus(b, age + 10), serverNowMinus(b, age), serverNowMinus(b, -7 * 86400)));
    };
    for (const auto &[key, age] : {std::pair{"live:a1", 3000}, {"live:a2", 2000}, {"live:a3", 1000}})
        QVERIFY(insert(QString::fromLatin1(key), age).isEmpty());

    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy polled(&model, &QueueModel::polled);
    QSignalSpy reasons(&model, &QueueModel::leftReasonsRead);
    QueueRequest req;
    req.kind = QueueKind::Failed;
    QVERIFY(!model.poll()); // nothing loaded yet
    model.setRequest(req);
    QVERIFY(!model.poll()); // the first page is in flight
    QVERIFY(QTest::qWaitFor([&] { return !model.isLoading() && !model.isCounting(); }, 60000));
    QCOMPARE(keysOf(model), (QStringList{QStringLiteral("live:a1"), QStringLiteral("live:a2"), QStringLiteral("live:a3")}));
    model.setLiveInterval(3'600'000); // on, but the timer never fires here: the test polls
    QCOMPARE(model.liveStatusText(), QStringLiteral("live: polling every 3600 s"));
    model.setLiveSlowed(true);
    QCOMPARE(model.liveStatusText(), QStringLiteral("live: polling every 21600 s (window hidden)"));
    model.setLiveSlowed(false);

    // Another process: a FAILED record between a2 and a3, and a2 settled SUCCESS.
    QVERIFY(insert(QStringLiteral("live:b1"), 1500).isEmpty());
    QVERIFY(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = 'live:a2'")).isEmpty());
    QVERIFY(model.poll());
    QVERIFY(!model.poll()); // one poll at a time
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 1, 0, 1}));
    QCOMPARE(keysOf(model), (QStringList{QStringLiteral("live:a1"), QStringLiteral("live:a2"), QStringLiteral("live:b1"),
                                         QStringLiteral("live:a3")}));
    QCOMPARE(marksOf(model), (QList<int>{0, 2, 1, 0}));
    QCOMPARE(model.count(), qint64(3));
    // Why it left, read after the poll: the record now and its last mark (none: an agent).
    QVERIFY(!reasons.isEmpty() || reasons.wait(60000));
    const QRegularExpression byAgent(QStringLiteral("^left this queue at \\d\\d:\\d\\d:\\d\\d UTC: now SUCCESS \\(no operator mark "
                                                    "recorded: an agent or another tool changed it\\); Refresh drops it$"));
    QVERIFY2(byAgent.match(model.index(1, QueueModel::KeyColumn).data(Qt::ToolTipRole).toString()).hasMatch(),
             qPrintable(model.index(1, 0).data(Qt::ToolTipRole).toString()));
    QVERIFY(model.index(2, QueueModel::KeyColumn).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("entered this queue at ")));
    QCOMPARE(model.enteredRows(), 1);
    QCOMPARE(model.leftRows(), 1);
    QVERIFY(!model.liveState().lastOkUtc.isEmpty());

    // A changed row is updated in place; a second poll reports nothing twice.
    QVERIFY(db.adminExec(QStringLiteral("UPDATE idempotency_record SET expire_at = %1 WHERE idem_key = 'live:a1'")
                             .arg(serverNowMinus(b, -9 * 86400)))
                .isEmpty());
    const QString expireBefore = model.queueRow(0).expireAt;
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 0, 1, 0}));
    QVERIFY(model.queueRow(0).expireAt != expireBefore);
    QCOMPARE(marksOf(model), (QList<int>{0, 2, 1, 0}));

    // The table goes away: the poll fails, the rows stay, the state says since when and why.
    QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record RENAME TO idempotency_record_away")).isEmpty());
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst().first().toBool(), false);
    QVERIFY(model.liveState().stale);
    QCOMPARE(model.rowCount(), 4);
    QVERIFY2(model.liveStatusText().startsWith(QStringLiteral("stale since ")), qPrintable(model.liveStatusText()));
    QVERIFY2(model.liveStatusText().contains(QStringLiteral("(idempotency database failed")), qPrintable(model.liveStatusText()));
    const QString since = model.liveState().staleSinceUtc;
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    polled.clear();
    QCOMPARE(model.liveState().staleSinceUtc, since); // the first failure in a row
    QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record_away RENAME TO idempotency_record")).isEmpty());
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 0, 0, 0}));
    QVERIFY(!model.liveState().stale);
    QCOMPARE(model.liveStatusText(), QStringLiteral("live: polling every 3600 s"));

    // Refresh: the queue as it is now, no marks.
    model.refresh();
    QVERIFY(QTest::qWaitFor([&] { return !model.isLoading() && !model.isCounting(); }, 60000));
    QCOMPARE(keysOf(model), (QStringList{QStringLiteral("live:a1"), QStringLiteral("live:b1"), QStringLiteral("live:a3")}));
    QCOMPARE(marksOf(model), (QList<int>{0, 0, 0}));
    QCOMPARE(model.enteredRows() + model.leftRows(), 0);

    // An operator's mark settles a3: the left row says who and when.
    QVERIFY(db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, operator, action, idem_key, reason, outcome) VALUES "
                                        "('live-r1', 'alice', 'mark_success', 'live:a3', 'the ticket exists upstream', 'applied')"))
                .isEmpty());
    QVERIFY(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = 'live:a3'")).isEmpty());
    reasons.clear();
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 0, 0, 1}));
    QVERIFY(!reasons.isEmpty() || reasons.wait(60000));
    const QRegularExpression byAlice(QStringLiteral("^left this queue at \\d\\d:\\d\\d:\\d\\d UTC: settled SUCCESS by alice at "
                                                    "\\d\\d:\\d\\d:\\d\\d UTC; Refresh drops it$"));
    QVERIFY2(byAlice.match(model.index(2, QueueModel::KeyColumn).data(Qt::ToolTipRole).toString()).hasMatch(),
             qPrintable(model.index(2, 0).data(Qt::ToolTipRole).toString()));
}

void TestQueueLive::storeDownFromTheStart()
{
    // Every store down from the start (nothing listens on port 1 of the loopback address): the
    // first page fails and the live indicator says stale at once, never "live: polling".
    WorkspaceConfig config;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString error;
        const auto p = ConnectionProfile::fromUrl(QStringLiteral("postgresql://triage@127.0.0.1:1/nowhere"), role, &error);
        QVERIFY2(p, qPrintable(error));
        config.setProfile(*p);
    }
    Workspace ws(config);
    QueueModel model(&ws);
    model.setLiveInterval(3'600'000);
    QCOMPARE(model.liveStatusText(), QStringLiteral("live: polling every 3600 s"));
    QSignalSpy changed(&model, &QueueModel::liveStateChanged);
    QueueRequest req;
    req.kind = QueueKind::Failed; // the idempotency store only
    model.setRequest(req);
    QVERIFY(QTest::qWaitFor([&] { return !model.isLoading(); }, 60000));
    static const QRegularExpression stale(QStringLiteral("^stale since \\d\\d:\\d\\d:\\d\\d UTC \\(cannot connect to the "
                                                         "idempotency database \\(postgresql://triage@127\\.0\\.0\\.1:1/nowhere\\)"));
    QVERIFY2(stale.match(model.liveStatusText()).hasMatch(), qPrintable(model.liveStatusText()));
    QCOMPARE(changed.size(), 1);
}

void TestQueueLive::tailDelta()
{
    QueueRequest req; // oldest first
    // Seven rows 5 s apart (5 … 35 s); the head covers the first three.
    QVector<QueueRow> held;
    for (int i = 1; i <= 7; ++i)
        held << row(i, qPrintable(QStringLiteral("2026-01-01T00:00:%1.000000Z").arg(i * 5, 2, 10, QLatin1Char('0'))));
    QCOMPARE(queueTailAfter(req, held, {}, 3, 12), 3);  // newest 35 s, bound 23 s: row 4 (20 s) is the last at or before it
    QCOMPARE(queueTailAfter(req, held, {}, 3, 100), 2); // the bound before the head's end: right after the head
    QCOMPARE(queueTailAfter(req, held, {}, 7, 12), -1); // the head covers all
    QCOMPARE(queueTailAfter(req, held, QSet<int>{6}, 3, 12), 2); // row 7 left: newest 30 s, bound 18 s
    QueueRequest newest;
    newest.newestFirst = true;
    QCOMPARE(queueTailAfter(newest, held, {}, 3, 12), -1);
    // Head: rows 1..3 as they were. Tail after row 5: 6 left, a late row 9 (at 32 s) entered
    // between 6 and 7, row 2 moved (changed, now at 40 s) into the tail, new row 8 at the end.
    QueueRow moved = held[1];
    moved.updatedAt = QStringLiteral("2026-01-01T00:00:40.000000Z");
    const QVector<QueueRow> head{held[0], held[1], held[2]};
    const QVector<QueueRow> tail{row(9, "2026-01-01T00:00:32.000000Z"), held[6], moved, row(8, "2026-01-01T00:00:45.000000Z")};
    const QueueDelta d = diffQueueRowsWithTail(req, held, {}, true, head, false, 4, tail, true);
    QCOMPARE(d.left, QVector<int>{5});
    QCOMPARE(d.updated, QVector<int>{1});
    QCOMPARE(d.updatedRows.first().updatedAt, moved.updatedAt);
    QCOMPARE(d.entered.size(), 2);
    QCOMPARE(d.entered[0].first, 6); // before row 7
    QCOMPARE(d.entered[0].second.id, 9);
    QCOMPARE(d.entered[1].first, 7); // at the end
    QCOMPARE(d.entered[1].second.id, 8);
    // A row the head re-read already returned is not entered again from the tail.
    const QVector<QueueRow> headWithNine{held[0], held[1], held[2], row(9, "2026-01-01T00:00:32.000000Z")};
    const QueueDelta twice = diffQueueRowsWithTail(req, held, {}, true, headWithNine, false, 4, tail, true);
    int nines = 0;
    for (const auto &e : twice.entered)
        nines += e.second.id == 9;
    QCOMPARE(nines, 1);
}

void TestQueueLive::deltaReadBeyondHead_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TestQueueLive::deltaReadBeyondHead()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QString error = initSchema(ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString b = db.backend();
    // 1,100 FAILED records one second apart: more than a poll re-reads from the start (1,000).
    // Absolute times (one base), so rows written later still sort exactly where meant.
    const QDateTime base = QDateTime::currentDateTimeUtc();
    auto at = [&](double secondsAgo) {
        return timeLiteral(db, formatUtcMicros((base.toMSecsSinceEpoch() - qint64(secondsAgo * 1000)) * 1000));
    };
    QVector<RecordSpec> rows;
    for (int i = 0; i < 1100; ++i) {
        RecordSpec r;
        r.key = QStringLiteral("big:%1").arg(i, 4, 10, QLatin1Char('0'));
        r.status = QStringLiteral("2");
        r.updated = at(5000 - i);
        r.created = r.updated;
        r.expire = at(-7 * 86400);
        rows << r;
    }
    error = insertRecords(db, rows);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy polled(&model, &QueueModel::polled);
    model.setPageSize(500);
    QueueRequest req;
    req.kind = QueueKind::Failed;
    model.setRequest(req);
    QVERIFY(QTest::qWaitFor([&] { return !model.isLoading() && !model.isCounting(); }, 60000));
    while (model.canFetchMore({})) {
        model.fetchMore({});
        QVERIFY(QTest::qWaitFor([&] { return !model.isLoading(); }, 60000));
    }
    QCOMPARE(model.rowCount(), 1100);
    model.setLiveInterval(3'600'000); // on; the test polls
    // Another session: a new record (the newest), one committed late with an older updated_at
    // (10 s before the newest held row: inside the 60 s lookback), one settled near the end.
    auto insert = [&](const QString &key, double secondsAgo) {
        return db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                           "expire_at) VALUES ('%1', 'ticket_create', 2, %2, %2, %3)")
                                .arg(key, at(secondsAgo), at(-7 * 86400)));
    };
    QVERIFY(insert(QStringLiteral("big:new"), 10).isEmpty());
    QVERIFY(insert(QStringLiteral("big:late"), 3909.5).isEmpty());
    QVERIFY(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = 'big:1090'")).isEmpty());
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 2, 0, 1}));
    QCOMPARE(model.rowCount(), 1102);
    // big:late (3909.5 s before the base) sorts between big:1090 (3910 s) and big:1091 (3909 s).
    QCOMPARE(model.queueRow(1090).idemKey, QStringLiteral("big:1090"));
    QCOMPARE(model.queueRow(1091).idemKey, QStringLiteral("big:late"));
    QCOMPARE(model.queueRow(1092).idemKey, QStringLiteral("big:1091"));
    QCOMPARE(model.queueRow(1101).idemKey, QStringLiteral("big:new"));
    QCOMPARE(model.index(1090, 0).data(roles::LiveChange).toInt(), 2); // big:1090 left
    QCOMPARE(model.count(), qint64(1101));
    // Nothing reported twice.
    QVERIFY(model.poll());
    QVERIFY(polled.wait(60000));
    QCOMPARE(polled.takeFirst(), (QVariantList{true, 0, 0, 0}));
    QCOMPARE(model.rowCount(), 1102);
}

QTEST_MAIN(TestQueueLive)
#include "tst_queue_live.moc"
