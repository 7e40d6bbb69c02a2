// The main window on a demo-seeded SQLite database, offscreen: queues load without
// blocking, counts and tab titles are exact, selecting a row loads its detail (header,
// NULL fields, timeline), an invalid snapshot shows its parse error, an unknown status
// code is flagged, a store that is down shows its error while the rest works, and the
// status bar announces a re-opened connection. PNGs go to the build directory.

#include "ConnectionIndicator.h"
#include "IncidentView.h"
#include "JsonTreeModel.h"
#include "JsonView.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "MessageBar.h"
#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "ReviewPane.h"
#include "ShotCheck.h"
#include "TimelineModel.h"
#include "Queue.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestMainWindow : public QObject {
    Q_OBJECT
private:
    static QString outputPath(const QString &name) { return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name; }

    /// Saves `widget` as build/tests/views/`name` and checks the image (saveCheckedShot():
    /// the widget's size, drawn, readable); "" when it holds, else what failed.
    static QString saveShot(QWidget *widget, const QString &name, QImage *grabbed = nullptr)
    {
        return saveCheckedShot(widget, outputPath(name), grabbed);
    }

    QString one(const QString &sql) const
    {
        QString error;
        const QStringList rows = m_db->adminQueryColumn(sql, &error);
        if (!error.isEmpty())
            qWarning("%s: %s", qPrintable(sql), qPrintable(error));
        return rows.value(0);
    }

    /// Waits for the Unknown queue's first page and every pane's count.
    static bool waitForQueues(MainWindow &w)
    {
        return QTest::qWaitFor(
            [&] {
                for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded,
                                    QueueKind::Escalated}) {
                    const QueueModel *m = w.queuePane(k)->model();
                    if (m->isLoading() || m->isCounting())
                        return false;
                }
                return w.queuePane(QueueKind::Unknown)->model()->rowCount() > 0;
            },
            30000);
    }

    static QString tabText(MainWindow &w, QueueKind kind)
    {
        auto *tabs = w.findChild<QTabWidget *>(QStringLiteral("queueTabs"));
        return tabs->tabText(tabs->indexOf(w.queuePane(kind)));
    }

    /// The value shown for record field `name` in the detail's fields table.
    static QModelIndex fieldValue(KeyDetailView *detail, const QString &name)
    {
        const QAbstractItemModel *m = detail->fieldsTable()->model();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, 0).data().toString() == name)
                return m->index(r, 1);
        return {};
    }

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Workspace> m_ws;

private slots:
    void initTestCase()
    {
        m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
        QVERIFY(m_db->available());
        m_ws = std::make_unique<Workspace>(demoConfig(*m_db));
        const QString e = seedDemo(*m_ws);
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }
    void cleanupTestCase()
    {
        m_ws.reset();
        m_db.reset();
    }

    void queuesAndDetailOfFirstRow()
    {
        MainWindow w(m_ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QCOMPARE(w.grab().size(), QSize(1400, 900)); // nothing forces the window wider
        QueuePane *unknown = w.queuePane(QueueKind::Unknown);
        QueueModel *model = unknown->model();
        QCOMPARE(model->rowCount(), 100); // one page
        QVERIFY(model->count() > 100);

        // Counts: the demo set has exactly 36 FAILED, 104 SUCCESS and 15 escalated keys (its outage included).
        QCOMPARE(unknown->countLabel()->text(), QStringLiteral("%1 records and steps").arg(model->count()));
        QCOMPARE(tabText(w, QueueKind::Unknown), QStringLiteral("Unknown (%1)").arg(model->count()));
        QCOMPARE(w.queuePane(QueueKind::Failed)->countLabel()->text(), QStringLiteral("36 records"));
        QCOMPARE(tabText(w, QueueKind::Failed), QStringLiteral("Failed (36)"));
        QCOMPARE(w.queuePane(QueueKind::Succeeded)->countLabel()->text(), QStringLiteral("104 records"));
        QCOMPARE(w.queuePane(QueueKind::Escalated)->countLabel()->text(), QStringLiteral("15 steps"));
        QCOMPARE(w.queuePane(QueueKind::Failed)->model()->rowCount(), 36);

        QCOMPARE(unknown->findChild<QLabel *>(QStringLiteral("loadedLabel"))->text(),
                 QStringLiteral("\u00b7 100 loaded; scroll for more"));

        // The bulk bar acts on a queue's selection: shown under the queues only.
        QWidget *bulkBar = w.findChild<QWidget *>(QStringLiteral("bulkBar"));
        QVERIFY(bulkBar && bulkBar->isVisible());
        w.showTab(w.reviewPane());
        QVERIFY(!bulkBar->isVisible());
        w.showTab(w.incidentView());
        QVERIFY(!bulkBar->isVisible());
        w.showTab(unknown);
        QVERIFY(bulkBar->isVisible());

        // The oldest stale record is on top, as the database orders it.
        const QString oldest = one(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 0 ORDER BY updated_at, id"));
        QCOMPARE(model->index(0, QueueModel::KeyColumn).data().toString(), oldest);

        // Select the first row: its detail loads.
        KeyDetailView *detail = w.detailView();
        QSignalSpy loaded(detail, &KeyDetailView::detailLoaded);
        QVERIFY(loaded.isValid());
        QVERIFY(unknown->selectRow(0));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000); // may already have fired inside the call
        QCOMPARE(loaded.first().at(0).toString(), oldest);
        QCOMPARE(detail->keyLabel()->text(), oldest);
        QCOMPARE(detail->statusBadge()->text(), QStringLiteral("PROCESSING \u00b7 stale"));
        QVERIFY(detail->detail().errors.isEmpty());
        QVERIFY(detail->messages().first().startsWith(QStringLiteral("Stale: PROCESSING for ")));

        // Timeline: one table row per event of the merged timeline.
        const int events = int(detail->detail().timeline.size());
        QVERIFY(events >= 2);
        QCOMPARE(detail->timelineTable()->model()->rowCount(), events);
        QCOMPARE(detail->tabs()->tabText(0), QStringLiteral("Timeline (%1)").arg(events));
        QCOMPARE(detail->timelineTable()->model()->index(0, TimelineModel::TimeColumn).data().toString(),
                 detail->detail().timeline.first().time);

        // A stale PROCESSING record has no snapshot: NULL, shown as "NULL".
        const QModelIndex snapshot = fieldValue(detail, QStringLiteral("result_snapshot"));
        QVERIFY(snapshot.isValid());
        QCOMPARE(snapshot.data().toString(), QStringLiteral("NULL"));
        QVERIFY(snapshot.data(roles::IsNull).toBool());
        QCOMPARE(fieldValue(detail, QStringLiteral("idem_key")).data().toString(), oldest);
        QCOMPARE(fieldValue(detail, QStringLiteral("stale")).data().toString(), QStringLiteral("yes"));
        // Without a result_snapshot the snapshot panel shows the last attempt's state.
        QVERIFY(detail->snapshotChoice()->currentText().contains(QStringLiteral("state_")));
        QVERIFY(detail->snapshotView()->errorText().isEmpty());

        // Every store answered.
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            QTRY_COMPARE(w.connectionIndicator(role)->state(), ConnectionIndicator::State::Up);

        QImage shot;
        TRIAGE_VERIFY_SHOT(saveShot(&w, QStringLiteral("mainwindow-unknown.png"), &shot));
        QCOMPARE(shot.size(), QSize(1400, 900) * w.devicePixelRatio());
        // What the shot shows: the queue table's first row, selected, drawn in the selection
        // colour, with the row below it not; the detail header shows that row's key.
        QTableView *table = unknown->table();
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(table->selectionModel()->selectedRows().first().row(), 0);
        auto pixelOfRow = [&](int row) {
            const QRect cell = table->visualRect(model->index(row, QueueModel::KeyColumn));
            const QPoint at = table->viewport()->mapTo(&w, QPoint(cell.left() + 1, cell.center().y()));
            return shot.pixelColor(at * w.devicePixelRatio());
        };
        const QColor selected = table->palette().color(QPalette::Active, QPalette::Highlight);
        const QColor selectedInactive = table->palette().color(QPalette::Inactive, QPalette::Highlight);
        QVERIFY2(pixelOfRow(0) == selected || pixelOfRow(0) == selectedInactive, qPrintable(pixelOfRow(0).name()));
        QVERIFY(pixelOfRow(1) != selected && pixelOfRow(1) != selectedInactive);
        QVERIFY(detail->keyLabel()->isVisible());
        QCOMPARE(detail->keyLabel()->text(), oldest);

        // Scrolling to the end makes the view ask for the next page (fetchMore()).
        unknown->table()->scrollToBottom();
        QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() > 100, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!model->isLoading(), 30000);
        QCOMPARE(detail->key(), oldest); // paging does not change the selection
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-unknown.png")));
        detail->tabs()->setCurrentIndex(2); // intent attempts, with the last one's JSON
        QCOMPARE(detail->attemptsTable()->currentIndex().row(), int(detail->detail().attempts.size()) - 1);
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-unknown-attempts.png")));
    }

    void invalidSnapshotShowsParseError()
    {
        const QString key = one(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 1 AND result_snapshot NOT LIKE '%}'"));
        QVERIFY(!key.isEmpty());
        const QString text = one(QStringLiteral("SELECT result_snapshot FROM idempotency_record WHERE idem_key = '%1'").arg(key));
        const ParsedJson expected = parseJsonText(text);
        QVERIFY(!expected.ok);

        MainWindow w(m_ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        KeyDetailView *detail = w.detailView();
        QSignalSpy loaded(detail, &KeyDetailView::detailLoaded);
        // Through the "Go to key" field, as an operator would.
        auto *goTo = w.findChild<QLineEdit *>(QStringLiteral("goToKey"));
        QVERIFY(goTo);
        goTo->setText(key);
        QTest::keyClick(goTo, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000); // may already have fired inside the call
        QCOMPARE(detail->keyLabel()->text(), key);
        QCOMPARE(detail->statusBadge()->text(), QStringLiteral("SUCCESS"));
        QCOMPARE(detail->snapshotChoice()->currentText(), QStringLiteral("result_snapshot"));
        JsonView *json = detail->snapshotView();
        QCOMPARE(json->errorText(), QStringLiteral("Not valid JSON: %1. The raw text is shown as stored.").arg(expected.error));
        QVERIFY2(expected.error.contains(QStringLiteral("at line 1, column ")), qPrintable(expected.error));
        QVERIFY(expected.error.contains(QStringLiteral("(offset %1)").arg(expected.errorOffset)));
        QCOMPARE(json->rawView()->toPlainText(), text); // exactly as stored
        QCOMPARE(json->tabs()->currentWidget(), json->rawView());
        QCOMPARE(json->rawView()->textCursor().position(), expected.errorOffset);
        QVERIFY(detail->messages().contains(QStringLiteral("result_snapshot of this SUCCESS record is not valid JSON (%1): callers "
                                                           "were given a broken snapshot.").arg(expected.error)));
        QCOMPARE(fieldValue(detail, QStringLiteral("result_snapshot")).data().toString(),
                 QStringLiteral("(%1 characters)").arg(text.size()));
        TRIAGE_VERIFY_SHOT(saveShot(&w, QStringLiteral("mainwindow-invalid-snapshot.png")));
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-invalid-snapshot.png")));
    }

    void unknownStatusCode()
    {
        const QString key = one(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 7"));
        MainWindow w(m_ws.get());
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(w.detailView(), &KeyDetailView::detailLoaded);
        w.openKey(key);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000); // may already have fired inside the call
        QCOMPARE(w.detailView()->statusBadge()->text(), QStringLiteral("UNKNOWN_CODE_7"));
        QCOMPARE(fieldValue(w.detailView(), QStringLiteral("status text")).data().toString(), QStringLiteral("UNKNOWN_CODE_7"));
        QCOMPARE(w.detailView()->messages().first(),
                 QStringLiteral("Status UNKNOWN_CODE_7 is not one the console knows (the seeds' codes 0, 1, 2 or the [idempotency.map] spellings): "
                                "treat the outcome as unknown."));
        QVERIFY(waitForQueues(w)); // nothing left in flight when the window goes
    }

    void filtersReloadTheQueue()
    {
        MainWindow w(m_ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        auto *tenant = pane->findChild<QLineEdit *>(QStringLiteral("tenantFilter"));
        QVERIFY(tenant);
        QSignalSpy pages(pane->model(), &QueueModel::pageLoaded);
        QTest::keyClicks(tenant, QStringLiteral("globex"));
        QTest::keyClick(tenant, Qt::Key_Return);
        QCOMPARE(pane->model()->request().filter.tenant, QStringLiteral("globex"));
        QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty(), 30000); // may already have fired inside the call
        QTRY_VERIFY(!pane->model()->isCounting());
        const qint64 n = pane->model()->count();
        QVERIFY(n > 0 && n < 100);
        QCOMPARE(pane->model()->rowCount(), int(n));
        for (int r = 0; r < pane->model()->rowCount(); ++r)
            QVERIFY(pane->model()->index(r, 0).data().toString().contains(QStringLiteral(":globex:")));
        QCOMPARE(pane->countLabel()->text(), QueuePane::countText(pane->model()->request(), n));

        // Newest first reverses the server order.
        const QString oldestKey = pane->model()->index(0, 0).data().toString();
        auto *order = pane->findChild<QComboBox *>(QStringLiteral("orderChoice"));
        order->setCurrentIndex(1);
        QVERIFY(pane->model()->request().newestFirst);
        QTRY_VERIFY(!pane->model()->isLoading() && pane->model()->rowCount() == int(n));
        QCOMPARE(pane->model()->index(int(n) - 1, 0).data().toString(), oldestKey);
        QVERIFY(waitForQueues(w));
    }

    void storeDownShowsErrorRestWorks()
    {
        // The ticket store points at a file that cannot be opened; the other two work.
        WorkspaceConfig config = demoConfig(*m_db);
        QString error;
        auto broken = ConnectionProfile::fromUrl(QStringLiteral("sqlite:///nonexistent-triage-dir/tickets.db"), DbRole::Ticket, &error);
        QVERIFY2(broken, qPrintable(error));
        config.setProfile(*broken);
        Workspace ws(config);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QCOMPARE(w.grab().size(), QSize(1400, 900)); // three long URLs in the tool bar are elided
        QueuePane *unknown = w.queuePane(QueueKind::Unknown);
        QVERIFY(unknown->model()->lastError().isEmpty());
        QSignalSpy loaded(w.detailView(), &KeyDetailView::detailLoaded);
        QVERIFY(unknown->selectRow(0));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000); // may already have fired inside the call
        KeyDetailView *detail = w.detailView();
        QVERIFY(detail->detail().record);
        QVERIFY(detail->detail().errors.contains(DbRole::Ticket));
        QCOMPARE(detail->tabs()->tabText(1), QStringLiteral("Tickets (unknown)"));
        QVERIFY(detail->messages().first().startsWith(QStringLiteral("Cannot connect to the ticket database")));
        QVERIFY(detail->messages().first().endsWith(
            QStringLiteral("the tickets: unknown (the ticket database failed); everything else below is current.")));
        QVERIFY(detail->metaLabel()->text().contains(QStringLiteral("tickets: unknown (ticket database failed)")));
        QVERIFY(fieldValue(detail, QStringLiteral("idem_key")).isValid()); // the record still shows
        QTRY_COMPARE(w.connectionIndicator(DbRole::Ticket)->state(), ConnectionIndicator::State::Down);
        QCOMPARE(w.connectionIndicator(DbRole::Idempotency)->state(), ConnectionIndicator::State::Up);
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("ticket database")));

        // A dropped connection that was re-opened is announced.
        emit ws.connectionEvent(DbRole::Intent, false,
                                QStringLiteral("the connection to the intent-log database dropped; it is re-opened on next use"));
        QCOMPARE(w.connectionIndicator(DbRole::Intent)->state(), ConnectionIndicator::State::Down);
        emit ws.connectionEvent(DbRole::Intent, true, QStringLiteral("re-opened the connection to the intent-log database"));
        QCOMPARE(w.connectionIndicator(DbRole::Intent)->state(), ConnectionIndicator::State::Up);
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("\u2714 re-opened the connection to the intent-log database"));
        TRIAGE_VERIFY_SHOT(saveShot(&w, QStringLiteral("mainwindow-ticket-store-down.png")));
    }

    void switchingTabsFollowsTheirSelection()
    {
        MainWindow w(m_ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        auto *tabs = w.findChild<QTabWidget *>(QStringLiteral("queueTabs"));
        KeyDetailView *detail = w.detailView();
        QVERIFY(w.queuePane(QueueKind::Unknown)->selectRow(0));
        const QString unknownKey = w.queuePane(QueueKind::Unknown)->currentKey();
        QTRY_VERIFY(detail->hasDetail() && detail->key() == unknownKey);

        tabs->setCurrentWidget(w.queuePane(QueueKind::Failed));
        QCOMPARE(detail->key(), unknownKey); // nothing selected there yet: the detail stays
        QVERIFY(w.queuePane(QueueKind::Failed)->selectRow(2));
        const QString failedKey = w.queuePane(QueueKind::Failed)->currentKey();
        QTRY_VERIFY(detail->hasDetail() && detail->key() == failedKey);
        QCOMPARE(detail->statusBadge()->text(), QStringLiteral("FAILED"));

        tabs->setCurrentWidget(w.queuePane(QueueKind::Unknown));
        QTRY_VERIFY(detail->hasDetail() && detail->key() == unknownKey);
        QVERIFY(waitForQueues(w));
    }

    void bigRawTextIsCappedTreeIsComplete()
    {
        QString big = QStringLiteral("[");
        for (int i = 0; i < 60000; ++i)
            big += QStringLiteral("%1{\"n\":%2}").arg(i ? QStringLiteral(",") : QString()).arg(i);
        big += QLatin1Char(']');
        QVERIFY(big.size() > JsonView::rawDisplayLimit());
        JsonView view;
        view.resize(600, 400);
        view.show();
        QSignalSpy loaded(&view, &JsonView::loaded);
        view.setJsonText(QStringLiteral("big"), big);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        QCOMPARE(view.rawView()->toPlainText().size(), JsonView::rawDisplayLimit());
        QVERIFY(view.findChild<QLabel *>(QStringLiteral("jsonInfo"))->text().contains(QStringLiteral("raw tab: the first")));
        QCOMPARE(view.model()->rowCount(), 60000); // the tree has every element
        QVERIFY(view.errorText().isEmpty());
    }

    void queueErrorIsInlineWithRetry()
    {
        // Every store points at a file that cannot be opened.
        WorkspaceConfig config;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            QString error;
            auto p = ConnectionProfile::fromUrl(QStringLiteral("sqlite:///nonexistent-triage-dir/all.db"), role, &error);
            QVERIFY2(p, qPrintable(error));
            config.setProfile(*p);
        }
        Workspace ws(config);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        QTRY_VERIFY_WITH_TIMEOUT(!pane->model()->lastError().isEmpty() && !pane->model()->isCounting(), 30000);
        auto *bar = pane->findChild<MessageBar *>(QStringLiteral("queueError"));
        QVERIFY(bar);
        QVERIFY(bar->isVisible());
        QVERIFY2(bar->text().startsWith(QStringLiteral("Cannot connect to the idempotency database")), qPrintable(bar->text()));
        QCOMPARE(pane->countLabel()->text(), QStringLiteral("count failed"));
        QCOMPARE(tabText(w, QueueKind::Unknown), QStringLiteral("Unknown"));
        // Retry reloads (and fails again, still inline).
        QSignalSpy errors(pane->model(), &QueueModel::errorOccurred);
        emit bar->actionTriggered();
        QTRY_VERIFY_WITH_TIMEOUT(errors.size() >= 2 && !pane->model()->isLoading() && !pane->model()->isCounting(), 30000);
        QVERIFY(bar->isVisible());
        TRIAGE_VERIFY_SHOT(saveShot(&w, QStringLiteral("mainwindow-all-stores-down.png")));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
