// The replay models (DESIGN.md §7 "Replay"), under QAbstractItemModelTester on real databases:
// AsOfModel's tree for a key read through loadKeyDetail(), and stepping through the window
// fixture's events (WindowEventsModel::nextEventRow(), EventStepper fetching pages one at a
// time past the loaded end, skipping the gap row, globally and per key).
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "AsOfModel.h"
#include "EventStepper.h"
#include "KeyDetail.h"
#include "WindowEventsModel.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestAsOfModel : public QObject {
    Q_OBJECT
    static void rows()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, false);
    }
private slots:
    void tree_data() { rows(); }
    void tree();
    void stepping_data() { rows(); }
    void stepping();
};

void TestAsOfModel::tree()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    AsOfModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("As of T"));
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("k:a")).result();
    QVERIFY(d.errors.isEmpty());
    model.setState(keyStateAsOf(d, at(120000)));
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("As of 2026-01-01T00:02:00.000000Z (UTC)"));
    QCOMPARE(model.lines(), (QStringList{
        QStringLiteral("Record: status at T not recorded"),
        QStringLiteral("  status not recorded before 2026-01-01T00:02:30.000000Z (the record's last write, after T; the table keeps "
                       "only the current state); now SUCCESS (created at 2026-01-01T00:01:40.000000Z)"),
        QStringLiteral("Intent log: 1 attempt at T"),
        QStringLiteral("  attempt 1 create_ticket (task task_1 step step_1) at 2026-01-01T00:01:40.000000Z: UNKNOWN (last written at "
                       "2026-01-01T00:01:40.000000Z, not after T)"),
        QStringLiteral("Tickets: 1 ticket at T"),
        QStringLiteral("  ticket 1 created at 2026-01-01T00:01:40.000000Z: OPEN (last written at 2026-01-01T00:01:40.000000Z, not after T)"),
        QStringLiteral("Operator actions: none at T (1 created after T)"),
        QStringLiteral("Compensations: none at T")}));
    const QModelIndex record = model.index(0, 0);
    QCOMPARE(record.data(AsOfModel::PartRole).toInt(), int(AsOfPart::Record));
    QCOMPARE(record.data(AsOfModel::UnknownRole).toBool(), false);
    const QModelIndex recordItem = model.index(0, 0, record);
    QCOMPARE(recordItem.parent(), record);
    QCOMPARE(recordItem.data(AsOfModel::BasisRole).toInt(), int(AsOfBasis::NotRecorded));
    QCOMPARE(recordItem.data(AsOfModel::EstablishedRole).toBool(), false);
    QCOMPARE(recordItem.data(Qt::FontRole).value<QFont>().italic(), true); // not established: italic
    const QModelIndex attempt = model.index(0, 0, model.index(1, 0));
    QCOMPARE(attempt.data(AsOfModel::BasisRole).toInt(), int(AsOfBasis::Unchanged));
    QCOMPARE(attempt.data(AsOfModel::EstablishedRole).toBool(), true);
    QCOMPARE(attempt.data(Qt::FontRole).isValid(), false);
    QCOMPARE(model.rowCount(attempt), 0);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestAsOfModel::stepping()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    TRIAGE_OK(intent(db, QStringLiteral("k:late"), 1000000));
    Workspace ws(db.config());
    WindowEventsModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPageSize(1); // one event per page: every step past the loaded end fetches
    WindowQuery q = window();
    q.to = at(1100000);
    model.setQuery(q);
    QVERIFY(QTest::qWaitFor([&] { return model.rowCount() > 0 && !model.isLoading(); }, 30000));
    EventStepper stepper(&model);
    QSignalSpy found(&stepper, &EventStepper::found);
    QSignalSpy notFound(&stepper, &EventStepper::notFound);
    QVERIFY(found.isValid() && notFound.isValid());
    // Rows (wideWindowRows()): 0 k:a record, 1 k:a intent, 2 k:a ticket, 3 k:b record,
    // 4 k:a record.updated, 5 k:b intent, 6 k:a audit, 7 k:b ticket, 8 k:c record, 9 k:c intent,
    // 10 the gap, 11 k:late intent.
    auto step = [&](int from, bool sameKey, int direction) {
        found.clear();
        notFound.clear();
        stepper.step(from, sameKey, direction);
        if (!QTest::qWaitFor([&] { return found.size() + notFound.size() > 0; }, 30000))
            return -2;
        return found.isEmpty() ? -1 : found.first().first().toInt();
    };
    // k:a's events, one page at a time.
    QCOMPARE(step(0, true, 1), 1);
    QCOMPARE(step(1, true, 1), 2);
    QCOMPARE(step(2, true, 1), 4);
    QCOMPARE(step(4, true, 1), 6);
    QCOMPARE(model.atEnd(), false);
    QCOMPARE(step(6, true, 1), -1); // k:a has no later event: every page read to make sure
    QCOMPARE(model.atEnd(), true);
    QCOMPARE(model.rowCount(), 12);
    // Globally, over the gap row both ways; the window's ends.
    QCOMPARE(step(9, false, 1), 11);
    QCOMPARE(step(11, false, -1), 9);
    QCOMPARE(step(11, false, 1), -1);
    QCOMPARE(step(0, false, -1), -1);
    QCOMPARE(step(6, true, -1), 4);
    QCOMPARE(step(3, true, 1), 5);
    QCOMPARE(step(10, false, 1), -1); // a gap row is no playhead
    QCOMPARE(model.nextEventRow(9, false, 1), 11);
    QCOMPARE(model.nextEventRow(11, true, -1), -1);
    QCOMPARE(model.nextEventRow(12, false, -1), -1);
}

QTEST_MAIN(TestAsOfModel)
#include "tst_asofmodel.moc"
