// QAbstractItemModelTester on real databases: IncidentsModel (open incidents, or all, newest
// first, with their counts) and WindowEventsModel's pinned events (DESIGN.md §7 "Incidents").
#include "BackendTestUtil.h"
#include "ModelTestUtil.h"
#include "WindowFixture.h"

#include "Incident.h"
#include "IncidentsModel.h"
#include "WindowEventsModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;


class TestIncidentsModel : public QObject {
    Q_OBJECT
private slots:
    void listAndPins_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, false);
    }
    void listAndPins();
};

void TestIncidentsModel::listAndPins()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    {
        const auto done_ = await(createIncident(ws, QStringLiteral("First"), window(), QStringLiteral("alice")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    {
        const auto done_ = await(createIncident(ws, QStringLiteral("Second"), window(), QStringLiteral("alice")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    {
        const auto done_ = await(pinEvent(ws, 1, EventKind::TicketCreated, QStringLiteral("2"), QString(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    {
        const auto done_ = await(closeIncident(ws, 2, QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }

    IncidentsModel model(&ws);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&model, &IncidentsModel::loaded);
    model.refresh();
    QVERIFY(loaded.wait(30000));
    QCOMPARE(tableRows(model), QStringList{QStringLiteral("1 | open | First | 2026-01-01T00:01:40.000000Z | 2026-01-01T00:03:20.000000Z | 1 | 0")});
    QCOMPARE(model.index(0, 0).data(IncidentsModel::IncidentIdRole).toLongLong(), 1);
    QCOMPARE(model.index(0, 0).data(IncidentsModel::OpenRole).toBool(), true);
    model.setShowClosed(true);
    model.refresh();
    QVERIFY(loaded.wait(30000));
    QCOMPARE(tableRows(model), (QStringList{QStringLiteral("2 | closed | Second | 2026-01-01T00:01:40.000000Z | 2026-01-01T00:03:20.000000Z | 0 | 0"),
                                         QStringLiteral("1 | open | First | 2026-01-01T00:01:40.000000Z | 2026-01-01T00:03:20.000000Z | 1 | 0")}));
    QCOMPARE(model.rowOf(1), 1);
    QCOMPARE(model.rowOf(7), -1);

    // The event list marks the pinned events (kind and row id), and only those.
    WindowEventsModel events(&ws);
    QAbstractItemModelTester eventsTester(&events, QAbstractItemModelTester::FailureReportingMode::QtTest);
    events.setPinnedEvents({WindowEventsModel::pinKey(EventKind::TicketCreated, QStringLiteral("2"))});
    events.setQuery(window());
    QTRY_VERIFY_WITH_TIMEOUT(events.atEnd(), 30000);
    QStringList marked;
    for (int r = 0; r < events.rowCount(); ++r)
        if (events.index(r, 0).data(WindowEventsModel::PinnedRole).toBool())
            marked << events.index(r, 0).data(WindowEventsModel::EventIdRole).toString() + QLatin1Char(' ')
                    + events.index(r, WindowEventsModel::KindColumn).data().toString();
    QCOMPARE(marked, QStringList{QStringLiteral("2 ticket.created")});
    QSignalSpy changed(&events, &QAbstractItemModel::dataChanged);
    events.setPinnedEvents({});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(events.index(7, 0).data(WindowEventsModel::PinnedRole).toBool(), false);
}

QTEST_MAIN(TestIncidentsModel)
#include "tst_incidentsmodel.moc"
