// The Incident tab's replay panel (DESIGN.md §7 "Replay"), offscreen in the main window, on the
// window fixture (tests/support/WindowFixture.h) on SQLite: the playhead and the "As of T" panel's
// exact content for a selected event, stepping globally and per key (buttons and shortcuts,
// over the gap row), the event context menu's "Same key" and "±N s" reloading the window;
// saves replay-panel.png.
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "AsOfModel.h"
#include "IncidentView.h"
#include "KeyDetail.h"
#include "MainWindow.h"
#include "ReplayPanel.h"
#include "WindowEventsModel.h"

#include <QAction>
#include <QApplication>
#include <QDateTimeEdit>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QSemaphore>
#include <QThreadPool>
#include <QTreeView>
#include <QtConcurrent>

#include <memory>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestReplayPanel : public QObject {
    Q_OBJECT
private slots:
    void replay();
};

void TestReplayPanel::replay()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    IntentSpec late; // another agent task
    late.key = QStringLiteral("k:late");
    late.taskId = QStringLiteral("task_late");
    late.created = ts(db, 1000000);
    TRIAGE_OK(insertIntents(db, {late}));
    Workspace ws(db.config());
    MainWindow w(&ws);
    w.resize(1400, 1000);
    w.show();
    IncidentView *view = w.incidentView();
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.showIncident(at(100000), at(1100000));
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QTableView *table = view->eventTable();
    ReplayPanel *panel = view->replayPanel();
    QVERIFY(panel);
    QCOMPARE(panel->playheadText(), QStringLiteral("Playhead: none"));
    QCOMPARE(panel->asOfModel()->rowCount(), 0);
    QCOMPARE(panel->findChild<QTreeView *>(QStringLiteral("replayAsOf"))->model(), panel->asOfModel());
    QSignalSpy asOf(panel, &ReplayPanel::asOfLoaded);

    // The playhead on alice's mark of k:a at 00:02:30: k:a as of then (T inclusive: the record's
    // last write and the mark itself count).
    table->setCurrentIndex(table->model()->index(6, 0));
    QVERIFY(asOf.wait(30000));
    QCOMPARE(panel->playheadText(), QStringLiteral("Playhead: 2026-01-01T00:02:30.000000Z UTC \u00B7 console audit \u00B7 k:a"));
    QCOMPARE(panel->asOfModel()->lines(), (QStringList{
        QStringLiteral("Record: status at T: SUCCESS"),
        QStringLiteral("  SUCCESS: last written at 2026-01-01T00:02:30.000000Z, not after T (created at 2026-01-01T00:01:40.000000Z)"),
        QStringLiteral("Intent log: 1 attempt at T"),
        QStringLiteral("  attempt 1 create_ticket (task task_1 step step_1) at 2026-01-01T00:01:40.000000Z: UNKNOWN (last written at "
                       "2026-01-01T00:01:40.000000Z, not after T)"),
        QStringLiteral("Tickets: 1 ticket at T"),
        QStringLiteral("  ticket 1 created at 2026-01-01T00:01:40.000000Z: OPEN (last written at 2026-01-01T00:01:40.000000Z, not after T)"),
        QStringLiteral("Operator actions: 1 action at T"),
        QStringLiteral("  audit 1 at 2026-01-01T00:02:30.000000Z: alice mark_success applied"),
        QStringLiteral("Compensations: none at T")}));
    QCOMPARE(panel->statusText(), QStringLiteral("k:a as of the playhead (UTC; what was written exactly then counts). A state is given "
                                                 "only where the stores' history establishes it."));
    QVERIFY(w.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/replay-panel.png")));

    // Previous (globally): k:b's attempt at the same instant; k:b as of then, its ticket later.
    asOf.clear();
    panel->findChild<QAction *>(QStringLiteral("replayPrevious"))->trigger();
    QTRY_COMPARE(table->currentIndex().row(), 5);
    QVERIFY(asOf.wait(30000));
    QCOMPARE(panel->asOfModel()->lines(), (QStringList{
        QStringLiteral("Record: status at T: PROCESSING"),
        QStringLiteral("  PROCESSING: last written at 2026-01-01T00:02:00.000000Z, not after T (created at 2026-01-01T00:02:00.000000Z)"),
        QStringLiteral("Intent log: 1 attempt at T"),
        QStringLiteral("  attempt 2 create_ticket (task task_1 step step_1) at 2026-01-01T00:02:30.000000Z: SUCCEEDED (last written at "
                       "2026-01-01T00:02:30.000000Z, not after T)"),
        QStringLiteral("Tickets: none at T (1 created after T)"),
        QStringLiteral("Operator actions: none at T"),
        QStringLiteral("Compensations: none at T")}));
    // The next event of k:b; then globally over the gap row; past the end: said.
    panel->findChild<QAction *>(QStringLiteral("replayNextKey"))->trigger();
    QTRY_COMPARE(table->currentIndex().row(), 7);
    table->setCurrentIndex(table->model()->index(9, 0));
    panel->step(1, false);
    QTRY_COMPARE(table->currentIndex().row(), 11);
    panel->step(1, false);
    QTRY_COMPARE(panel->statusText(), QStringLiteral("No further event that way in this window."));
    QCOMPARE(table->currentIndex().row(), 11);
    // The shortcuts, with the focus in the event list.
    QApplication::setActiveWindow(&w);
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    QTest::keyClick(table, Qt::Key_Left, Qt::AltModifier);
    QTRY_COMPARE(table->currentIndex().row(), 9);
    QTest::keyClick(table, Qt::Key_Left, Qt::AltModifier | Qt::ShiftModifier); // k:c's record, same instant
    QTRY_COMPARE(table->currentIndex().row(), 8);

    // The context menu: none on the gap row; "Same key" filters the window to k:a's events and
    // keeps the playhead at 00:02:30.
    QCOMPARE(panel->contextMenuFor(10), nullptr);
    std::unique_ptr<QMenu> menu(panel->contextMenuFor(6));
    QVERIFY(menu);
    auto texts = [&] {
        QStringList out;
        for (const QAction *a : menu->actions())
            out << a->text();
        return out;
    };
    // k:a is not the playhead's key: its task is read for the menu, a placeholder meanwhile.
    QVERIFY(texts().contains(QStringLiteral("Same task (reading the key\u2026)")) || texts().contains(QStringLiteral("Same task (task_1)")));
    QTRY_COMPARE(texts(), (QStringList{QStringLiteral("Same key (k:a)"), QStringLiteral("Same task (task_1)"),
                                       QStringLiteral("\u00B130 s around 2026-01-01T00:02:30.000000Z UTC (all keys)")}));
    loaded.clear();
    menu->findChild<QAction *>(QStringLiteral("replaySameKey"))->trigger();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->findChild<QLineEdit *>(QStringLiteral("incidentKey"))->text(), QStringLiteral("k:a"));
    QCOMPARE(table->model()->rowCount(), 5);
    QTRY_COMPARE(table->currentIndex().row(), 3); // k:a's record.updated at 00:02:30

    // "±10 s" around that event: [00:02:20, 00:02:40) across all keys, the playhead on its first event.
    panel->setContextSeconds(10);
    menu.reset(panel->contextMenuFor(3));
    QCOMPARE(menu->actions().constLast()->text(), QStringLiteral("\u00B110 s around 2026-01-01T00:02:30.000000Z UTC (all keys)"));
    loaded.clear();
    menu->findChild<QAction *>(QStringLiteral("replayAround"))->trigger();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->findChild<QLineEdit *>(QStringLiteral("incidentKey"))->text(), QString());
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentFrom"))->text(), QStringLiteral("2026-01-01 00:02:20 UTC"));
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentTo"))->text(), QStringLiteral("2026-01-01 00:02:40 UTC"));
    const QStringList rows = wideWindowRows();
    QStringList shown;
    for (int r = 0; r < table->model()->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            cells << table->model()->index(r, c).data().toString();
        shown << cells.join(QStringLiteral(" | "));
    }
    QCOMPARE(shown, (QStringList{rows[4], rows[5], rows[6]}));
    QTRY_COMPARE(table->currentIndex().row(), 0);

    // "Same task": on k:late's attempt (the playhead), its own task: that task's events only.
    loaded.clear();
    w.showIncident(at(100000), at(1100000));
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    asOf.clear();
    table->setCurrentIndex(table->model()->index(11, 0));
    QVERIFY(asOf.wait(30000));
    menu.reset(panel->contextMenuFor(11));
    QCOMPARE(texts(), (QStringList{QStringLiteral("Same key (k:late)"), QStringLiteral("Same task (task_late)"),
                                   QStringLiteral("\u00B110 s around 2026-01-01T00:16:40.000000Z UTC (all keys)")}));
    loaded.clear();
    menu->findChild<QAction *>(QStringLiteral("replaySameTask"))->trigger();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->findChild<QLineEdit *>(QStringLiteral("incidentTask"))->text(), QStringLiteral("task_late"));
    QCOMPARE(view->currentQuery().taskId, QStringLiteral("task_late"));
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, WindowEventsModel::KeyColumn).data().toString(), QStringLiteral("k:late"));
    // On k:a's audit row, task_1 (k:a's attempt): k:a's, k:b's and k:c's events, not k:late's.
    view->findChild<QLineEdit *>(QStringLiteral("incidentTask"))->clear();
    loaded.clear();
    view->load();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    menu.reset(panel->contextMenuFor(6));
    QTRY_VERIFY(menu->findChild<QAction *>(QStringLiteral("replaySameTask")));
    loaded.clear();
    menu->findChild<QAction *>(QStringLiteral("replaySameTask"))->trigger();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    shown.clear();
    for (int r = 0; r < table->model()->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            cells << table->model()->index(r, c).data().toString();
        shown << cells.join(QStringLiteral(" | "));
    }
    QCOMPARE(shown, rows.mid(0, 10));
    QTRY_COMPARE(table->currentIndex().row(), 4); // the first event at 00:02:30, where the audit row was

    // A step that finds nothing while the playhead's as-of read is still on its way: the read
    // arriving later does not replace the step's answer (it did under load before). The read
    // waits for `go` (at most 30 s), released once the step has answered.
    QThreadPool slowPool;
    QSemaphore go;
    panel->setKeyDetailReader(
        [&ws, &go](const QString &key) {
            return QtConcurrent::run([&ws, &go, key] {
                go.tryAcquire(1, 30000);
                return loadKeyDetail(ws, key).result();
            });
        },
        &slowPool);
    asOf.clear();
    table->setCurrentIndex(table->model()->index(9, 0)); // the last event
    panel->step(1, false);
    QTRY_COMPARE(panel->statusText(), QStringLiteral("No further event that way in this window."));
    go.release();
    QVERIFY(asOf.wait(30000));
    QCOMPARE(panel->statusText(), QStringLiteral("No further event that way in this window."));
    QVERIFY(panel->asOfModel()->rowCount() > 0); // the state itself is shown
}

QTEST_MAIN(TestReplayPanel)
#include "tst_replay_panel.moc"
