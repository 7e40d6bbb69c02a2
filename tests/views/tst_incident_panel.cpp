// The incidents panel of the Incident tab (DESIGN.md §7 "Incidents") in the main window,
// offscreen, on the window fixture on SQLite: opening an incident loads its window and
// filters, its pins are marked in the event list, pinning the selected event, adding a note,
// saving the window as a new incident, closing; saves incident-panel.png.
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "Incident.h"
#include "IncidentPanel.h"
#include "IncidentView.h"
#include "MainWindow.h"
#include "MessageBar.h"
#include "WindowEventsModel.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QFont>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

QStringList textsOf(const QListWidget *list)
{
    QStringList out;
    for (int i = 0; i < list->count(); ++i)
        out << list->item(i)->text();
    return out;
}

QStringList itemsOf(const QComboBox *combo)
{
    QStringList out;
    for (int i = 0; i < combo->count(); ++i)
        out << combo->itemText(i);
    return out;
}

} // namespace

class TestIncidentPanel : public QObject {
    Q_OBJECT
private slots:
    void openPinNoteClose();
};

void TestIncidentPanel::openPinNoteClose()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    WindowQuery q = window();
    q.kinds = {EventKind::RecordCreated, EventKind::IntentAttempt, EventKind::TicketCreated};
    {
        const auto done_ = await(createIncident(ws, QStringLiteral("Ticket service timeouts"), q, QStringLiteral("alice")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    {
        const auto done_ = await(pinEvent(ws, 1, EventKind::IntentAttempt, QStringLiteral("1"), QStringLiteral("first UNKNOWN"),
                                         QStringLiteral("alice")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    {
        const auto done_ = await(addIncidentNote(ws, 1, QStringLiteral("ticket API timed out"), std::nullopt, QString(),
                                                QStringLiteral("alice")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }

    MainWindow w(&ws);
    w.resize(1400, 900);
    w.show();
    IncidentView *view = w.incidentView();
    IncidentPanel *panel = view->incidentPanel();
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.openIncident(1);
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);

    // The incident's window and kinds are the view's.
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentFrom"))->text(), QStringLiteral("2026-01-01 00:01:40 UTC"));
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentTo"))->text(), QStringLiteral("2026-01-01 00:03:20 UTC"));
    QCOMPARE(view->currentQuery().kinds, q.kinds);
    QCOMPARE(view->eventsModel()->eventCount(), 6);
    QCOMPARE(panel->summaryLabel()->text(), QStringLiteral("#1 open · Ticket service timeouts\n2026-01-01 00:01:40 – 2026-01-01 00:03:20 UTC\n"
                                                           "filters: kinds record.created, intent.attempt, ticket.created"));
    QTRY_COMPARE(itemsOf(panel->incidentCombo()), (QStringList{QStringLiteral("— no incident —"), QStringLiteral("#1 Ticket service timeouts")}));
    QCOMPARE(panel->incidentCombo()->currentIndex(), 1);
    QCOMPARE(textsOf(panel->pinList()), QStringList{QStringLiteral("00:01:40  intent.attempt — first UNKNOWN\nUNKNOWN k:a create_ticket by agent-1")});
    QCOMPARE(textsOf(panel->noteList()), QStringList{panel->noteList()->item(0)->text()});
    QVERIFY2(panel->noteList()->item(0)->text().endsWith(QStringLiteral(" alice: ticket API timed out")),
             qPrintable(panel->noteList()->item(0)->text()));

    // The pinned event is marked in the list (row 1: k:a's attempt), the others not.
    QTableView *table = view->eventTable();
    auto pinned = [&](int row) { return table->model()->index(row, 0).data(WindowEventsModel::PinnedRole).toBool(); };
    QVERIFY(pinned(1));
    QVERIFY(table->model()->index(1, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!pinned(0));
    QVERIFY(!pinned(3));

    // Select k:b's record.created (row 3) and pin it.
    QPushButton *pin = panel->pinButton();
    QVERIFY(!pin->isEnabled());
    table->setCurrentIndex(table->model()->index(3, 0));
    QVERIFY(pin->isEnabled());
    QCOMPARE(pin->text(), QStringLiteral("Pin selected event"));
    QSignalSpy shown(panel, &IncidentPanel::incidentShown);
    pin->click();
    QVERIFY(shown.wait(30000));
    QCOMPARE(panel->pinList()->count(), 2);
    QVERIFY(pinned(3));
    QCOMPARE(pin->text(), QStringLiteral("Unpin selected event"));
    QCOMPARE(view->messageBar()->text(), QStringLiteral("Incident 1: pinned record.created 2"));

    // A note.
    panel->findChild<QLineEdit *>(QStringLiteral("incidentNoteEdit"))->setText(QStringLiteral("k:b never got a ticket"));
    shown.clear();
    panel->findChild<QPushButton *>(QStringLiteral("incidentAddNote"))->click();
    QVERIFY(shown.wait(30000));
    QCOMPARE(panel->noteList()->count(), 2);
    QCOMPARE(panel->findChild<QLineEdit *>(QStringLiteral("incidentNoteEdit"))->text(), QString());
    // Long notes wrap in the pane's width, as the pins do (no sideways scrolling).
    QCOMPARE(panel->noteList()->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
    QVERIFY(panel->noteList()->wordWrap());
    // A note over the limit: said, nothing written.
    panel->addNote(QString(4001, QLatin1Char('n')));
    QTRY_COMPARE(view->messageBar()->text(), QStringLiteral("The note is longer than 4000 characters (4001)"));
    QTRY_COMPARE(panel->noteList()->count(), 2);
    QVERIFY(w.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/incident-panel.png")));

    // Close it: no more pins or notes.
    panel->findChild<QPushButton *>(QStringLiteral("incidentClose"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->current()->incident.open, 30000);
    QVERIFY(!pin->isEnabled());
    QCOMPARE(panel->findChild<QPushButton *>(QStringLiteral("incidentClose"))->text(), QStringLiteral("Reopen"));
    QTRY_COMPARE(itemsOf(panel->incidentCombo()), (QStringList{QStringLiteral("— no incident —"),
                                                              QStringLiteral("#1 (closed) Ticket service timeouts")}));

    // Save the window shown as a new incident: it becomes the one shown.
    shown.clear();
    panel->saveWindowAs(QStringLiteral("Second look"));
    QVERIFY(shown.wait(30000));
    QTRY_COMPARE(panel->current()->incident.id, 2);
    QCOMPARE(panel->current()->incident.query.kinds, q.kinds);
    QTRY_COMPARE(itemsOf(panel->incidentCombo()), (QStringList{QStringLiteral("— no incident —"), QStringLiteral("#2 Second look")}));
    QCOMPARE(panel->pinList()->count(), 0);
    QVERIFY(!pinned(1));

    // No such incident: said in the message bar; the range shown loads, the tab stays usable.
    loaded.clear();
    w.openIncident(99);
    QVERIFY(loaded.wait(30000));
    QTRY_COMPARE(view->messageBar()->text(), QStringLiteral("Incident not opened: no incident 99"));
    QCOMPARE(view->messageBar()->level(), MessageBar::Level::Error);
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->eventsModel()->eventCount(), 6);
}

QTEST_MAIN(TestIncidentPanel)
#include "tst_incident_panel.moc"
