// QueueModel against real databases: exact page ranges, the merged order of records and
// intent steps, filters, order, stale results dropped after a reset, and a store that is down.

#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "StatusTone.h"
#include "TimeText.h"
#include "Schema.h"
#include "Queue.h"

#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <algorithm>

using namespace triage;
using namespace triage::test;

namespace {

/// What the fixture inserts (ages in seconds before the database's now()).
constexpr int kStaleRecords = 250;
constexpr int kIntentSteps = 5;

QString recordKey(int i)
{
    return QStringLiteral("ticket:create:%1:r%2").arg(i % 5 == 0 ? QStringLiteral("globex") : QStringLiteral("acme")).arg(i, 3, 10, QLatin1Char('0'));
}
qint64 recordAge(int i) { return 100000 - 100 * i; }
QString intentKey(int j) { return QStringLiteral("task_%1_step_1_send_notification").arg(100 + j); }
qint64 intentAge(int j) { return 100000 - 100 * (50 * j) - 50; } // just after record 50*j

/// Keeps the idempotency worker busy for `ms`, so that the next request is certainly still
/// in flight when the test looks (SQLite may otherwise answer before the call returns,
/// and a finished future's continuation then runs inside then()).
void park(Workspace &ws, int ms = 300)
{
    ws.worker(DbRole::Idempotency).run<int>([ms](DbSession &) {
        QThread::msleep(ms);
        return 0;
    });
}

struct Expected {
    QString key;
    qint64 age;
    bool intent;
};

/// The Unknown queue as the fixture defines it, oldest updated_at first.
QVector<Expected> expectedUnknown()
{
    QVector<Expected> all;
    for (int i = 0; i < kStaleRecords; ++i)
        all.append({recordKey(i), recordAge(i), false});
    for (int j = 0; j < kIntentSteps; ++j)
        all.append({intentKey(j), intentAge(j), true});
    std::sort(all.begin(), all.end(), [](const Expected &a, const Expected &b) { return a.age > b.age; });
    return all;
}

} // namespace

class TestQueueModel : public QObject {
    Q_OBJECT
private:
    /// Fills `db`: 250 stale PROCESSING records, 5 keys whose latest attempt is UNKNOWN,
    /// one key whose UNKNOWN attempt was followed by SUCCEEDED (not in the queue), 3 fresh
    /// PROCESSING records, 4 FAILED, 2 SUCCESS and one ESCALATED step.
    QString fill(const TestDatabase &db, Workspace &ws)
    {
        if (QString e = initSchema(ws); !e.isEmpty())
            return e;
        const QString b = db.backend();
        QStringList values;
        auto record = [&](const QString &key, int status, qint64 age) {
            values << QStringLiteral("('%1', 'ticket_create', %2, NULL, %3, %4, %5)")
                          .arg(key)
                          .arg(status)
                          .arg(serverNowMinus(b, age + 10), serverNowMinus(b, age), serverNowMinus(b, -7 * 86400));
        };
        for (int i = 0; i < kStaleRecords; ++i)
            record(recordKey(i), 0, recordAge(i));
        for (int i = 0; i < 3; ++i)
            record(QStringLiteral("ticket:create:acme:fresh%1").arg(i), 0, 10 + i);
        for (int i = 0; i < 4; ++i)
            record(QStringLiteral("ticket:create:initech:failed%1").arg(i), 2, 5000 - 100 * i);
        for (int i = 0; i < 2; ++i)
            record(QStringLiteral("ticket:create:initech:ok%1").arg(i), 1, 3000 - 100 * i);
        QString e = db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, "
                                                "created_at, updated_at, expire_at) VALUES ")
                                 + values.join(QStringLiteral(", ")));
        if (!e.isEmpty())
            return e;
        values.clear();
        auto intent = [&](const QString &key, int task, const QString &status, qint64 age) {
            values << QStringLiteral("('task_%1', 'step_1', 'send_notification', '%2', '%3', %4, %5)")
                          .arg(task)
                          .arg(key, status, serverNowMinus(b, age + 30), serverNowMinus(b, age));
        };
        for (int j = 0; j < kIntentSteps; ++j)
            intent(intentKey(j), 100 + j, QStringLiteral("UNKNOWN"), intentAge(j));
        intent(QStringLiteral("task_900_step_1_send_notification"), 900, QStringLiteral("UNKNOWN"), 5000);
        intent(QStringLiteral("task_900_step_1_send_notification"), 900, QStringLiteral("SUCCEEDED"), 4000);
        intent(QStringLiteral("task_901_step_1_send_notification"), 901, QStringLiteral("ESCALATED"), 4500);
        return db.adminExec(QStringLiteral("INSERT INTO intent_log (task_id, step_id, action, idem_key, status, created_at, "
                                           "updated_at) VALUES ")
                            + values.join(QStringLiteral(", ")));
    }

    /// Waits until `model` has neither a page nor the count in flight.
    static bool settle(const QueueModel &model)
    {
        return QTest::qWaitFor([&] { return !model.isLoading() && !model.isCounting(); }, 60000);
    }

    static QStringList keys(const QueueModel &model)
    {
        QStringList out;
        for (int r = 0; r < model.rowCount(); ++r)
            out << model.index(r, QueueModel::KeyColumn).data().toString();
        return out;
    }

private slots:
    void pagesInOrder_data();
    void pagesInOrder();
    void filtersAndOrder_data() { pagesInOrder_data(); }
    void filtersAndOrder();
    void otherQueues_data() { pagesInOrder_data(); }
    void otherQueues();
    void resetDropsResultsInFlight_data() { pagesInOrder_data(); }
    void resetDropsResultsInFlight();
    void storeDownStopsPaging();
    void timeToTheSecond();
};

void TestQueueModel::pagesInOrder_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows();
}

void TestQueueModel::pagesInOrder()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    const QString error = fill(db, ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy pages(&model, &QueueModel::pageLoaded);
    QSignalSpy counts(&model, &QueueModel::countChanged);
    QVERIFY(inserted.isValid() && pages.isValid() && counts.isValid());
    QVERIFY(!model.canFetchMore({})); // nothing before a request
    model.setPageSize(100);
    park(ws);
    model.setRequest(QueueRequest{QueueKind::Unknown, {}, false});
    QVERIFY(model.isLoading());
    QVERIFY(!model.canFetchMore({})); // one page at a time
    QVERIFY(settle(model));

    QCOMPARE(model.count(), qint64(kStaleRecords + kIntentSteps));
    QCOMPARE(counts.last().at(0).toLongLong(), qint64(255));
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 0);
    QCOMPARE(inserted.at(0).at(2).toInt(), 99);
    QVERIFY(model.canFetchMore({}));
    QVERIFY(!model.atEnd());

    park(ws);
    model.fetchMore({});
    QVERIFY(model.isLoading());
    QVERIFY(!model.canFetchMore({})); // one page at a time
    QVERIFY(settle(model));
    QCOMPARE(inserted.size(), 2);
    QCOMPARE(inserted.at(1).at(1).toInt(), 100);
    QCOMPARE(inserted.at(1).at(2).toInt(), 199);

    model.fetchMore({});
    QVERIFY(settle(model));
    QCOMPARE(inserted.size(), 3);
    QCOMPARE(inserted.at(2).at(1).toInt(), 200);
    QCOMPARE(inserted.at(2).at(2).toInt(), 254);
    QCOMPARE(model.rowCount(), 255);
    QVERIFY(model.atEnd());
    QVERIFY(!model.canFetchMore({}));
    QCOMPARE(pages.size(), 3);
    QCOMPARE(pages.last().at(0).toInt(), 200);
    QCOMPARE(pages.last().at(1).toInt(), 55);
    QCOMPARE(pages.last().at(2).toBool(), true);

    // The exact merged order: records and intent steps by updated_at, oldest first.
    const QVector<Expected> expected = expectedUnknown();
    QStringList want;
    for (const Expected &e : expected)
        want << e.key;
    QCOMPARE(keys(model), want);

    // Row 0: the oldest stale record.
    auto cell = [&](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
    QCOMPARE(cell(0, QueueModel::KeyColumn).toString(), QStringLiteral("ticket:create:globex:r000"));
    QCOMPARE(cell(0, QueueModel::StatusColumn).toString(), QStringLiteral("PROCESSING"));
    QCOMPARE(cell(0, QueueModel::StatusColumn, roles::Tone).toInt(), int(Tone::Warning));
    QCOMPARE(cell(0, QueueModel::AgeColumn).toString(), QStringLiteral("1d 3h")); // 100000 s = 1d 3h 46m
    QCOMPARE(cell(0, QueueModel::SourceColumn).toString(), QStringLiteral("record"));
    QCOMPARE(cell(0, QueueModel::BizTypeColumn).toString(), QStringLiteral("ticket_create"));
    QCOMPARE(cell(0, QueueModel::TaskStepColumn).toString(), QString());
    QVERIFY(cell(0, QueueModel::KeyColumn, roles::Monospace).toBool());
    const QString updated = cell(0, QueueModel::UpdatedColumn, roles::FullText).toString();
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$")).match(updated).hasMatch(),
             qPrintable(updated));
    QCOMPARE(cell(0, QueueModel::UpdatedColumn).toString(), updated.left(10) + QLatin1Char(' ') + updated.mid(11, 8));
    const double age0 = cell(0, QueueModel::KeyColumn, QueueModel::AgeSecondsRole).toDouble();
    QVERIFY2(age0 >= 100000 && age0 < 100000 + 120, qPrintable(QString::number(age0)));
    const auto row0 = cell(0, QueueModel::KeyColumn, QueueModel::RowRole).value<QueueRow>();
    QCOMPARE(row0.idemKey, QStringLiteral("ticket:create:globex:r000"));
    QCOMPARE(row0.source, QueueSource::Record);
    QCOMPARE(cell(0, QueueModel::StatusColumn, QueueModel::IdemKeyRole).toString(), row0.idemKey);

    // Row 1: the first intent step, just younger than record 0.
    QCOMPARE(cell(1, QueueModel::KeyColumn).toString(), intentKey(0));
    QCOMPARE(cell(1, QueueModel::SourceColumn).toString(), QStringLiteral("intent"));
    QCOMPARE(cell(1, QueueModel::StatusColumn).toString(), QStringLiteral("UNKNOWN"));
    QCOMPARE(cell(1, QueueModel::StatusColumn, roles::Tone).toInt(), int(Tone::Warning));
    QCOMPARE(cell(1, QueueModel::BizTypeColumn).toString(), QStringLiteral("send_notification"));
    QCOMPARE(cell(1, QueueModel::TaskStepColumn).toString(), QStringLiteral("task_100 / step_1"));
    QCOMPARE(cell(1, QueueModel::ExpireColumn).toString(), QString());
    QCOMPARE(cell(1, QueueModel::SourceColumn, QueueModel::SourceRole).toInt(), int(QueueSource::Intent));
    QCOMPARE(model.findKey(intentKey(4)), 4 * 51 + 1);
    QCOMPARE(model.headerData(QueueModel::AgeColumn, Qt::Horizontal).toString(), QStringLiteral("Age"));
}

void TestQueueModel::filtersAndOrder()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    const QString error = fill(db, ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPageSize(30);

    // Key substring, newest first: the 50 globex records (i % 5 == 0), youngest first.
    QueueRequest req{QueueKind::Unknown, {}, true};
    req.filter.keySubstring = QStringLiteral(":globex:");
    model.setRequest(req);
    QVERIFY(settle(model));
    QCOMPARE(model.count(), qint64(50));
    QCOMPARE(model.rowCount(), 30);
    model.fetchMore({});
    QVERIFY(settle(model));
    QCOMPARE(model.rowCount(), 50);
    QVERIFY(model.atEnd());
    QStringList want;
    for (int i = kStaleRecords - 5; i >= 0; i -= 5)
        want << recordKey(i);
    QCOMPARE(keys(model), want);

    // Tenant (from the key by the default pattern "*:*:{tenant}"), oldest first.
    req = QueueRequest{QueueKind::Unknown, {}, false};
    req.filter.tenant = QStringLiteral("globex");
    model.setPageSize(100);
    model.setRequest(req);
    QVERIFY(settle(model));
    QCOMPARE(model.count(), qint64(50));
    QCOMPARE(model.index(0, 0).data().toString(), recordKey(0));
    QCOMPARE(model.index(49, 0).data().toString(), recordKey(245));

    // biz_type: intent steps (which have none) drop out.
    req = QueueRequest{QueueKind::Unknown, {}, false};
    req.filter.bizType = QStringLiteral("ticket_create");
    model.setRequest(req);
    QVERIFY(settle(model));
    QCOMPARE(model.count(), qint64(kStaleRecords));
    QCOMPARE(model.index(1, 0).data().toString(), recordKey(1));

    // sort() on Age ascending = youngest first (newestFirst).
    model.sort(QueueModel::AgeColumn, Qt::AscendingOrder);
    QVERIFY(model.request().newestFirst);
    QVERIFY(settle(model));
    QCOMPARE(model.index(0, 0).data().toString(), recordKey(kStaleRecords - 1));
    model.sort(QueueModel::StatusColumn, Qt::AscendingOrder); // ignored: the server's order only
    QVERIFY(!model.isLoading());
}

void TestQueueModel::otherQueues()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    const QString error = fill(db, ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    model.setRequest(QueueRequest{QueueKind::InFlight, {}, false});
    QVERIFY(settle(model));
    QCOMPARE(model.count(), qint64(3));
    QCOMPARE(keys(model), (QStringList{QStringLiteral("ticket:create:acme:fresh2"), QStringLiteral("ticket:create:acme:fresh1"),
                                      QStringLiteral("ticket:create:acme:fresh0")}));
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Info));
    QVERIFY(model.atEnd());

    model.setRequest(QueueRequest{QueueKind::Failed, {}, false});
    QVERIFY(settle(model));
    QStringList want;
    for (const QString &k : db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 2 "
                                                               "ORDER BY updated_at, id")))
        want << k;
    QCOMPARE(want.size(), 4);
    QCOMPARE(keys(model), want);
    QCOMPARE(model.index(0, QueueModel::KeyColumn).data().toString(), QStringLiteral("ticket:create:initech:failed0"));
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data().toString(), QStringLiteral("FAILED"));
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Danger));

    model.setRequest(QueueRequest{QueueKind::Succeeded, {}, true});
    QVERIFY(settle(model));
    QCOMPARE(keys(model), (QStringList{QStringLiteral("ticket:create:initech:ok1"), QStringLiteral("ticket:create:initech:ok0")}));
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Ok));

    model.setRequest(QueueRequest{QueueKind::Escalated, {}, false});
    QVERIFY(settle(model));
    QCOMPARE(model.count(), qint64(1));
    QCOMPARE(keys(model), QStringList{QStringLiteral("task_901_step_1_send_notification")});
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data().toString(), QStringLiteral("ESCALATED"));
    QCOMPARE(model.index(0, QueueModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Escalated));
}

void TestQueueModel::resetDropsResultsInFlight()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    const QString error = fill(db, ws);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy pages(&model, &QueueModel::pageLoaded);
    QSignalSpy counts(&model, &QueueModel::countChanged);

    // Park the idempotency worker for a moment so that the first request's page and count
    // are certainly still queued when the second request resets the model: they arrive
    // afterwards and must be dropped. (Without this, SQLite can answer so fast that the
    // first page is applied before the second setRequest(), and nothing is in flight.)
    park(ws);
    model.setRequest(QueueRequest{QueueKind::Unknown, {}, false});
    QVERIFY(model.isLoading());
    QueueRequest failed{QueueKind::Failed, {}, false};
    model.setRequest(failed);
    QVERIFY(settle(model));
    QTest::qWait(200); // give any late result of the first request a chance to (wrongly) land
    QCOMPARE(pages.size(), 1);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.count(), qint64(4));
    for (const QList<QVariant> &c : counts)
        QVERIFY(c.at(0).toLongLong() == -1 || c.at(0).toLongLong() == 4);
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.index(r, QueueModel::StatusColumn).data().toString(), QStringLiteral("FAILED"));

    // refresh() keeps the request and reloads from the start.
    pages.clear();
    park(ws);
    model.refresh();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.isLoading());
    QVERIFY(settle(model));
    QCOMPARE(pages.size(), 1);
    QCOMPARE(model.rowCount(), 4);
}

// The one "to the second" printer of the time columns (queues, duplicate groups,
// compensations) and the duplicates scan text: UTC, no zone suffix, nothing hidden.
void TestQueueModel::timeToTheSecond()
{
    QCOMPARE(utcToSecond(QStringLiteral("2026-11-29T21:55:07.123456Z")), QStringLiteral("2026-11-29 21:55:07"));
    QCOMPARE(utcToSecond(QStringLiteral("2026-12-01 10:00:00")), QStringLiteral("2026-12-01 10:00:00"));
    QCOMPARE(utcToSecond(QStringLiteral("2026-12-01T01:30:59.999999+02:00")), QStringLiteral("2026-11-30 23:30:59"));
    QCOMPARE(utcToSecond(QStringLiteral("yesterday")), QStringLiteral("yesterday"));
    QVERIFY(utcToSecond(QString()).isNull());
}

void TestQueueModel::storeDownStopsPaging()
{
    // A SQLite file in a directory that does not exist: the idempotency store is down.
    const QString url = QStringLiteral("sqlite:///nonexistent-triage-dir/none.db");
    WorkspaceConfig config;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString error;
        auto p = ConnectionProfile::fromUrl(url, role, &error);
        QVERIFY2(p, qPrintable(error));
        config.setProfile(*p);
    }
    Workspace ws(config);
    QueueModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy errors(&model, &QueueModel::errorOccurred);
    QSignalSpy loading(&model, &QueueModel::loadingChanged);
    model.setRequest(QueueRequest{QueueKind::Failed, {}, false});
    QVERIFY(settle(model));
    QCOMPARE(errors.size(), 2); // the page and the count
    QVERIFY2(model.lastError().contains(QStringLiteral("idempotency database")), qPrintable(model.lastError()));
    QVERIFY(!model.countError().isEmpty());
    QCOMPARE(model.count(), qint64(-1));
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.canFetchMore({})); // no retry loop: paging stops until refresh()
    QCOMPARE(loading.size(), 2);
    QCOMPARE(loading.at(0).at(0).toBool(), true);
    QCOMPARE(loading.at(1).at(0).toBool(), false);
    model.refresh(); // retries (the failure may come back before refresh() returns)
    QVERIFY(settle(model));
    QCOMPARE(errors.size(), 4);
    QCOMPARE(loading.size(), 4);
}

QTEST_GUILESS_MAIN(TestQueueModel)
#include "tst_queuemodel.moc"
