// The Incident tab (DESIGN.md §7) in the main window, offscreen, on the window fixture
// (tests/support/WindowFixture.h) on SQLite: the event list's exact rows with its gap row
// spanning the table, the histogram's bar sets and values per store, a click on a bar
// scrolling the list to that minute's first event, double-click opening the key, the key
// filter, a preset turning into absolute times; saves incident-view.png.
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "IncidentView.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "MessageBar.h"
#include "WindowEventsModel.h"

#include <QBarSet>
#include <QChart>
#include <QDateTimeEdit>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

/// Every row's cells joined by " | ".
QStringList rowsOf(const QAbstractItemModel &model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data().toString();
        out << cells.join(QStringLiteral(" | "));
    }
    return out;
}

QVector<qreal> valuesOf(const QBarSet *set)
{
    QVector<qreal> v;
    for (int i = 0; i < set->count(); ++i)
        v << set->at(i);
    return v;
}

/// `n` zeros with `ones` (index → value) set.
QVector<qreal> bars(int n, std::initializer_list<std::pair<int, qreal>> values)
{
    QVector<qreal> v(n, 0);
    for (const auto &[i, x] : values)
        v[i] = x;
    return v;
}

} // namespace

class TestIncidentView : public QObject {
    Q_OBJECT
private slots:
    void incidentTab();
    void clockWarningFromServer();
};

void TestIncidentView::incidentTab()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    TRIAGE_OK(intent(db, QStringLiteral("k:late"), 1000000));
    Workspace ws(db.config());
    MainWindow w(&ws);
    w.show();
    IncidentView *view = w.incidentView();
    QVERIFY(view);
    auto *tabs = w.findChild<QTabWidget *>(QStringLiteral("queueTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(tabs->indexOf(view)), QStringLiteral("Incident"));

    // [100 s, 1100 s) after 2026-01-01: the fixture, k:c at 200 s and k:late at 1000 s.
    QSignalSpy loaded(view, &IncidentView::windowLoaded);
    w.showIncident(at(100000), at(1100000));
    QCOMPARE(tabs->currentWidget(), view);
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentFrom"))->text(), QStringLiteral("2026-01-01 00:01:40 UTC"));
    QCOMPARE(view->findChild<QDateTimeEdit *>(QStringLiteral("incidentTo"))->text(), QStringLiteral("2026-01-01 00:18:20 UTC"));

    QTableView *table = view->eventTable();
    const QStringList expectedRows = wideWindowRows();
    QCOMPARE(rowsOf(*table->model()), expectedRows);
    QCOMPARE(table->columnSpan(10, 0), int(WindowEventsModel::ColumnCount)); // the gap row spans the table
    QCOMPARE(table->columnSpan(9, 0), 1);
    // The store cell carries the store's colour.
    QVERIFY(table->model()->index(1, WindowEventsModel::StoreColumn).data(Qt::DecorationRole).canConvert<QColor>());

    // The histogram: one bar set per store, one bar per minute from 00:01 to 00:18.
    QStackedBarSeries *series = view->histogramSeries();
    QCOMPARE(series->count(), 4);
    QStringList labels;
    for (const QBarSet *set : series->barSets())
        labels << set->label();
    QCOMPARE(labels, (QStringList{QStringLiteral("idempotency"), QStringLiteral("intent"), QStringLiteral("ticket"), QStringLiteral("console")}));
    QCOMPARE(valuesOf(series->barSets()[0]), bars(18, {{0, 1}, {1, 2}, {2, 1}}));
    QCOMPARE(valuesOf(series->barSets()[1]), bars(18, {{0, 1}, {1, 1}, {2, 1}, {15, 1}}));
    QCOMPARE(valuesOf(series->barSets()[2]), bars(18, {{0, 1}, {2, 1}}));
    QCOMPARE(valuesOf(series->barSets()[3]), bars(18, {{1, 1}}));
    QCOMPARE(view->chart()->title(), QStringLiteral("Events per minute (UTC), by store"));
    QCOMPARE(view->summaryText(), QStringLiteral("11 events · 3 keys with an UNKNOWN attempt · 2 records still PROCESSING · "
                                                 "0 duplicate groups · 1 applied mark"));
    QVERIFY2(view->clockText().startsWith(QStringLiteral("clock vs this machine: ")), qPrintable(view->clockText()));
    QVERIFY(w.grab().save(outputPath(QStringLiteral("incident-view.png"))));

    // A click on a bar: the list's current row is that minute's first event.
    emit series->clicked(15, series->barSets()[1]);
    QTRY_COMPARE(table->currentIndex().row(), 11);
    emit series->clicked(1, series->barSets()[0]);
    QTRY_COMPARE(table->currentIndex().row(), 3);
    emit series->clicked(4, series->barSets()[0]); // an empty minute: the next event after it
    QTRY_COMPARE(table->currentIndex().row(), 11);

    // Double-click: an event opens its key; a gap row opens nothing.
    QSignalSpy keys(view, &IncidentView::keyActivated);
    emit table->doubleClicked(table->model()->index(10, 0));
    QCOMPARE(keys.size(), 0);
    emit table->doubleClicked(table->model()->index(5, WindowEventsModel::KindColumn));
    QCOMPARE(keys.size(), 1);
    QCOMPARE(keys.at(0).at(0).toString(), QStringLiteral("k:b"));
    QTRY_COMPARE(w.detailView()->key(), QStringLiteral("k:b"));

    // The key filter (case-sensitive substring), then Load.
    view->findChild<QLineEdit *>(QStringLiteral("incidentKey"))->setText(QStringLiteral(":b"));
    loaded.clear();
    view->findChild<QPushButton *>(QStringLiteral("incidentLoad"))->click();
    QVERIFY(loaded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(view->eventsModel()->atEnd(), 30000);
    QCOMPARE(rowsOf(*table->model()), (QStringList{expectedRows[3], expectedRows[5], expectedRows[7]}));
    QCOMPARE(valuesOf(series->barSets()[1]), bars(18, {{1, 1}}));

    // Clock offsets: every store named; one beyond kClockSkewWarnMs is warned about.
    view->showClocks({StoreClock{DbRole::Idempotency, 12, 1}, StoreClock{DbRole::Intent, -3, 1}, StoreClock{DbRole::Ticket, 2300, 2}});
    QCOMPARE(view->clockText(), QStringLiteral("clocks vs this machine: idempotency +12 ms, intent \u22123 ms, ticket +2.3 s"));
    QCOMPARE(view->messageBar()->level(), MessageBar::Level::Warning);
    QVERIFY2(view->messageBar()->text().contains(QStringLiteral("2.3 s ahead of this machine's: the order of events across stores is approximate")),
             qPrintable(view->messageBar()->text()));
    view->messageBar()->clearMessage();
    view->showClocks({StoreClock{DbRole::Idempotency, 1000, 1}, StoreClock{DbRole::Ticket, -999, 1}}); // at the limit: no warning
    QCOMPARE(view->messageBar()->text(), QString());

    // An end before the start: said, nothing read, the load is over.
    loaded.clear();
    view->setRange(at(200000), at(100000));
    view->load();
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view->messageBar()->text(), QStringLiteral("The window's end must be after its start."));

    // A preset: absolute times at once, 15 min apart, loaded.
    loaded.clear();
    view->findChild<QPushButton *>(QStringLiteral("preset15"))->click();
    const WindowQuery q = view->currentQuery();
    QCOMPARE(q.to - q.from, 15LL * 60 * 1000000);
    QVERIFY(qAbs(q.to / 1000 - QDateTime::currentMSecsSinceEpoch()) < 5000);
    QCOMPARE(view->eventsModel()->query().from, q.from);
    QVERIFY(loaded.wait(30000));
}

void TestIncidentView::clockWarningFromServer()
{
    // A server clock forced off (MariaDB's session timestamp, set on the workspace's own
    // idempotency connection; DESIGN.md §7 "Zones and clocks"): the message
    // bar says which database, how far and which way; the number lies within the bounds this
    // machine's clock gives around the load.
    TestDatabase db(QStringLiteral("mysql"));
    TRIAGE_REQUIRE_BACKEND(db);
    constexpr qint64 kFrozenMs = 1893456000LL * 1000; // 2030-01-01T00:00:00Z
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(freezeIdempotencyClock(ws, kFrozenMs / 1000));
    IncidentView view(&ws);
    QSignalSpy loaded(&view, &IncidentView::windowLoaded);
    view.setRange(at(0), at(3600000));
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    view.load();
    QVERIFY(loaded.wait(30000));
    const qint64 after = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(view.messageBar()->level(), MessageBar::Level::Warning);
    const QRegularExpression warning(QStringLiteral("^Idempotency database's clock is ([0-9]+\\.[0-9]) s ahead of this machine's: "
                                                    "the order of events across stores is approximate\\.$"));
    const QRegularExpressionMatch m = warning.match(view.messageBar()->text());
    QVERIFY2(m.hasMatch(), qPrintable(view.messageBar()->text()));
    const double shownS = m.captured(1).toDouble();
    QVERIFY2(shownS >= (kFrozenMs - after) / 1000.0 - 0.05 && shownS <= (kFrozenMs - before) / 1000.0 + 0.05,
             qPrintable(m.captured(1)));
    QCOMPARE(view.clockText(), QStringLiteral("clock vs this machine: +%1 s (one database)").arg(m.captured(1)));
}

QTEST_MAIN(TestIncidentView)
#include "tst_incident_view.moc"
