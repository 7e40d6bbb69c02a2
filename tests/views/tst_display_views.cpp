// How the console shows what it knows, offscreen on a demo-seeded
// SQLite database: the window keeps its 1400 × 900 while every tab is visited; time
// cells are shortened on the right with the full value in the tooltip; a store whose
// reads fail turns its status-bar indicator red (its connection may be open); a queue
// reload that fails keeps the rows it had; counts and the Compensations tab follow the
// operator's own mark without Refresh. PNGs go to the build directory.

#include "BusinessIdTestUtil.h"
#include "CellDelegate.h"
#include "CompensationsModel.h"
#include "CompensationsPane.h"
#include "ConnectionIndicator.h"
#include "DuplicateGroupsModel.h"
#include "DuplicatesPane.h"
#include "JsonView.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "Mark.h"
#include "ModelRoles.h"
#include "StatusTone.h"
#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "RecordStatus.h"
#include "Queue.h"

#include <QApplication>
#include <QHelpEvent>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QToolTip>

using namespace triage;
using namespace triage::test;

namespace {

/// Exposes the delegate's style option (what paint() draws with).
class ProbeDelegate : public CellDelegate {
public:
    using CellDelegate::CellDelegate;
    QStyleOptionViewItem optionFor(const QModelIndex &index) const
    {
        QStyleOptionViewItem o;
        o.textElideMode = Qt::ElideMiddle; // what the view asked for
        initStyleOption(&o, index);
        return o;
    }
};

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

bool waitForQueues(MainWindow &w)
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

} // namespace

class TestDisplayViews : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Workspace> m_ws;

    QString one(const QString &sql) const
    {
        QString error;
        const QStringList rows = m_db->adminQueryColumn(sql, &error);
        if (!error.isEmpty())
            qWarning("%s: %s", qPrintable(sql), qPrintable(error));
        return rows.value(0);
    }

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

    void windowKeepsItsSizeOnEveryTab()
    {
        MainWindow w(m_ws.get()); // 1400 × 900 by itself (--help says so)
        w.show();
        QVERIFY(waitForQueues(w));
        QCOMPARE(w.size(), QSize(1400, 900));
        auto *queues = w.findChild<QTabWidget *>(QStringLiteral("queueTabs"));
        QVERIFY(queues);
        KeyDetailView *detail = w.detailView();
        for (int q = 0; q < queues->count(); ++q) {
            queues->setCurrentIndex(q);
            if (auto *pane = qobject_cast<QueuePane *>(queues->currentWidget())) {
                // Every loaded row's detail: long keys, warnings and payloads among them.
                for (int r = 0; r < pane->model()->rowCount(); ++r) {
                    pane->selectRow(r);
                    QTRY_VERIFY_WITH_TIMEOUT(!detail->isLoading(), 30000);
                    QCoreApplication::processEvents();
                    if (w.size() != QSize(1400, 900)) {
                        for (QWidget *c : detail->findChildren<QWidget *>())
                            if (c->isVisible() && c->minimumSizeHint().width() > 500)
                                qWarning("%s %s minimumSizeHint %d sizeHint %d text %s", c->metaObject()->className(),
                                         qPrintable(c->objectName()), c->minimumSizeHint().width(), c->sizeHint().width(),
                                         qobject_cast<QLabel *>(c) ? qPrintable(qobject_cast<QLabel *>(c)->text().left(200)) : "");
                    }
                    QVERIFY2(w.size() == QSize(1400, 900),
                             qPrintable(QStringLiteral("%1 row %2 (%3): %4 x %5")
                                            .arg(queues->tabText(q))
                                            .arg(r)
                                            .arg(detail->key())
                                            .arg(w.width())
                                            .arg(w.height())));
                }
            }
            if (auto *dups = qobject_cast<DuplicatesPane *>(queues->currentWidget())) {
                QTRY_VERIFY_WITH_TIMEOUT(dups->groupsModel()->rowCount() > 0, 30000);
                for (int r = 0; r < dups->groupsModel()->rowCount(); ++r) {
                    QSignalSpy group(dups, &DuplicatesPane::groupLoaded);
                    dups->selectKey(dups->groupsModel()->index(r, 0).data(roles::FullText).toString());
                    QTest::qWait(50);
                    QVERIFY2(w.size() == QSize(1400, 900), qPrintable(QStringLiteral("duplicate group %1: %2 x %3")
                                                                          .arg(r)
                                                                          .arg(w.width())
                                                                          .arg(w.height())));
                }
            }
            QTest::qWait(50); // queued layouts and shows
            QCOMPARE(w.size(), QSize(1400, 900));
            for (int t = 0; t < detail->tabs()->count(); ++t) {
                detail->tabs()->setCurrentIndex(t);
                QTest::qWait(20);
                QVERIFY2(w.size() == QSize(1400, 900),
                         qPrintable(QStringLiteral("queue tab %1, detail tab %2: %3 x %4")
                                        .arg(queues->tabText(q), detail->tabs()->tabText(t))
                                        .arg(w.width())
                                        .arg(w.height())));
            }
        }
        QCOMPARE(w.grab().size(), QSize(1400, 900));
        QVERIFY(w.grab().save(outputPath(QStringLiteral("display-every-tab-visited.png"))));
    }

    void timeCellsElideOnTheRight()
    {
        QStandardItemModel model(1, 2);
        model.setData(model.index(0, 0), QStringLiteral("2026-11-28T16:16:17.548056Z"));
        model.setData(model.index(0, 0), QStringLiteral("2026-11-28T16:16:17.548056Z"), roles::FullText);
        model.setData(model.index(0, 1), QStringLiteral("ticket:create:acme:0f6e4a4c-1b85-4016-b8ee-da827245"));
        model.setData(model.index(0, 1), true, roles::ElideMiddle);
        QTableView view;
        view.setModel(&model);
        view.setTextElideMode(Qt::ElideMiddle);
        auto *delegate = new ProbeDelegate(&view);
        view.setItemDelegate(delegate);
        view.setColumnWidth(0, 90); // too narrow for the time
        view.resize(400, 100);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(delegate->optionFor(model.index(0, 0)).textElideMode, Qt::ElideRight);
        QCOMPARE(delegate->optionFor(model.index(0, 1)).textElideMode, Qt::ElideMiddle); // keys keep both ends
        // The shortened time has its full value as tooltip.
        const QRect cell = view.visualRect(model.index(0, 0));
        QHelpEvent help(QEvent::ToolTip, cell.center(), view.viewport()->mapToGlobal(cell.center()));
        QStyleOptionViewItem option;
        option.rect = cell;
        option.font = view.font();
        QVERIFY(delegate->helpEvent(&help, &view, option, model.index(0, 0)));
        QTRY_COMPARE(QToolTip::text(), QStringLiteral("2026-11-28T16:16:17.548056Z"));
        QToolTip::hideText();
        // The queue model marks only its key column for middle elision.
        QueueModel queue(m_ws.get());
        QueueRequest req;
        req.kind = QueueKind::Unknown;
        queue.setRequest(req);
        QTRY_VERIFY_WITH_TIMEOUT(queue.rowCount() > 0, 30000);
        QCOMPARE(queue.index(0, QueueModel::KeyColumn).data(roles::ElideMiddle).toBool(), true);
        QCOMPARE(queue.index(0, QueueModel::UpdatedColumn).data(roles::ElideMiddle).toBool(), false);
        QCOMPARE(queue.index(0, QueueModel::AgeColumn).data(roles::ElideMiddle).toBool(), false);
    }

    void jsonTreeShowsDuplicateKeys()
    {
        JsonView view;
        view.resize(560, 260);
        view.show();
        view.setJsonText(QStringLiteral("result_snapshot"),
                         QStringLiteral(R"({"status":"FAILED","ticket_id":151,"status":"SUCCESS"})"));
        QTRY_VERIFY(view.errorText().startsWith(QStringLiteral("Duplicate keys")));
        QCOMPARE(view.errorText(), QStringLiteral("Duplicate keys ($: \"status\" 2 times): every occurrence is shown and "
                                                  "flagged; a JSON parser keeps only the last."));
        QTest::qWait(100);
        QVERIFY(view.grab().save(outputPath(QStringLiteral("display-json-duplicate-keys.png"))));
    }

    void failingReadsTurnTheIndicatorRed()
    {
        // The ticket store opens (an empty SQLite file) but has no ticket table: the
        // connection is "up", every read of it fails.
        TestDatabase empty(QStringLiteral("sqlite"));
        WorkspaceConfig config = demoConfig(*m_db);
        config.setProfile(*ConnectionProfile::fromUrl(empty.url(), DbRole::Ticket, nullptr));
        Workspace ws(config);
        MainWindow w(&ws);
        w.show();
        QVERIFY(waitForQueues(w));
        ConnectionIndicator *ticket = w.connectionIndicator(DbRole::Ticket);
        QTRY_COMPARE(ticket->state(), ConnectionIndicator::State::Up); // the probe connected
        const QString key = w.queuePane(QueueKind::Unknown)->model()->queueRow(0).idemKey;
        QSignalSpy loaded(w.detailView(), &KeyDetailView::detailLoaded);
        w.openKey(key);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        const KeyDetail &d = w.detailView()->detail();
        QVERIFY(d.errors.contains(DbRole::Ticket));
        QCOMPARE(ticket->state(), ConnectionIndicator::State::Down);
        QVERIFY(ticket->toolTip().contains(d.errors.value(DbRole::Ticket).message));
        QVERIFY(ticket->text().contains(QStringLiteral("down")));
        QCOMPARE(w.connectionIndicator(DbRole::Idempotency)->state(), ConnectionIndicator::State::Up);
        QCOMPARE(w.detailView()->tabs()->tabText(1), QStringLiteral("Tickets (unknown)"));
        QVERIFY2(w.detailView()->metaLabel()->text().contains(QStringLiteral("tickets: unknown (ticket database failed)")),
                 qPrintable(w.detailView()->metaLabel()->text()));
        QTest::qWait(100);
        QVERIFY(w.grab().save(outputPath(QStringLiteral("display-ticket-store-failing.png"))));
        QVERIFY(w.detailView()->grab().save(outputPath(QStringLiteral("display-detail-ticket-store-failing.png"))));
        // The table appears: the next good read turns the indicator green again.
        QVERIFY(empty.adminExec(QStringLiteral("CREATE TABLE ticket (id INTEGER PRIMARY KEY, idem_key TEXT, tenant_id TEXT, "
                                               "title TEXT, status TEXT, payload TEXT, created_at TEXT, updated_at TEXT)"))
                    .isEmpty());
        loaded.clear();
        w.detailView()->reload();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        QVERIFY(!w.detailView()->detail().errors.contains(DbRole::Ticket));
        QCOMPARE(ticket->state(), ConnectionIndicator::State::Up);
    }

    void failedReloadKeepsTheRows()
    {
        TestDatabase db(QStringLiteral("sqlite"));
        Workspace ws(demoConfig(db));
        QVERIFY(seedDemo(ws).isEmpty());
        QueueModel model(&ws);
        QueueRequest req;
        req.kind = QueueKind::Failed;
        model.setRequest(req);
        QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading() && !model.isCounting() && model.rowCount() > 0, 30000);
        const int rows = model.rowCount();
        const qint64 count = model.count();
        const QString first = model.queueRow(0).idemKey;
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record RENAME TO idempotency_record_away")).isEmpty());
        QSignalSpy errors(&model, &QueueModel::errorOccurred);
        model.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading() && !model.isCounting(), 30000);
        QVERIFY(!errors.isEmpty());
        QVERIFY2(model.lastError().contains(QStringLiteral("idempotency_record")), qPrintable(model.lastError()));
        QCOMPARE(model.rowCount(), rows); // kept
        QCOMPARE(model.queueRow(0).idemKey, first);
        QCOMPARE(model.count(), count);
        // The table is back: resume() reloads from the start and replaces them.
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record_away RENAME TO idempotency_record")).isEmpty());
        QSignalSpy pages(&model, &QueueModel::pageLoaded);
        model.resume();
        QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty() && !model.isLoading(), 30000);
        QVERIFY(model.lastError().isEmpty());
        QCOMPARE(model.rowCount(), rows);
        QCOMPARE(pages.first().at(0).toInt(), 0); // the first page again, not a continuation
    }

    void failedDetailReloadKeepsWhatItShowed()
    {
        TestDatabase db(QStringLiteral("sqlite"));
        Workspace ws(demoConfig(db));
        QVERIFY(seedDemo(ws).isEmpty());
        QString error;
        const QString key = db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM ticket WHERE idem_key IS NOT NULL "
                                                               "GROUP BY idem_key HAVING COUNT(*) = 1 ORDER BY idem_key LIMIT 1"),
                                                &error)
                                .value(0);
        QVERIFY2(!key.isEmpty(), qPrintable(error));
        KeyDetailView view(&ws);
        view.resize(750, 860);
        view.show();
        QSignalSpy loaded(&view, &KeyDetailView::detailLoaded);
        view.loadKey(key);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        QCOMPARE(view.detail().tickets.size(), 1);
        const BusinessId ticketId = view.detail().tickets.first().id;
        const qsizetype events = view.detail().timeline.size();
        QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Tickets (1)"));
        // The ticket table goes away; the reload of the same key keeps the ticket it showed.
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE ticket RENAME TO ticket_away")).isEmpty());
        loaded.clear();
        view.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        const KeyDetail &d = view.detail();
        QVERIFY(d.errors.contains(DbRole::Ticket));
        QCOMPARE(d.keptFromEarlier, QList<DbRole>{DbRole::Ticket});
        QCOMPARE(d.tickets.size(), 1);
        QCOMPARE(d.tickets.first().id, ticketId);
        QCOMPARE(d.timeline.size(), events); // the ticket's events are still on it
        QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Tickets (1, earlier)"));
        QVERIFY2(view.metaLabel()->text().contains(QStringLiteral("1 ticket as read earlier (ticket database failed now)")),
                 qPrintable(view.metaLabel()->text()));
        QVERIFY(view.messages().first().endsWith(QStringLiteral("the tickets: shown as read earlier (this refresh failed; they "
                                                                "may have changed since); everything else below is current.")));
        QTest::qWait(100);
        QVERIFY(view.grab().save(outputPath(QStringLiteral("display-detail-reload-failed-kept.png"))));
        // Another key is a new read: nothing is carried over to it.
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE ticket_away RENAME TO ticket")).isEmpty());
        loaded.clear();
        view.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        QVERIFY(view.detail().keptFromEarlier.isEmpty());
        QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Tickets (1)"));
    }

    void liveQueueShowsChangesAndStaleness()
    {
        // DESIGN.md §9 "Live queues": another process adds a stale record and settles one
        // listed; the Unknown tab shows both without Refresh, and the indicator says so.
        TestDatabase db(QStringLiteral("sqlite"));
        Workspace ws(demoConfig(db));
        QVERIFY(seedDemo(ws).isEmpty());
        MainWindow w(&ws);
        w.show();
        QVERIFY(waitForQueues(w));
        QVERIFY(w.liveIndicator()->isHidden()); // off until setLivePolling()
        QueueModel *unknown = w.queuePane(QueueKind::Unknown)->model();
        int settledRow = -1;
        for (int i = 0; i < unknown->rowCount() && settledRow < 0; ++i)
            if (unknown->queueRow(i).source == QueueSource::Record)
                settledRow = i;
        QVERIFY(settledRow >= 0);
        const QString settledKey = unknown->queueRow(settledRow).idemKey;
        int rowsOfKey = 0; // its record, and its intent step where the key has one (settling the record settles both)
        for (int i = 0; i < unknown->rowCount(); ++i)
            rowsOfKey += unknown->queueRow(i).idemKey == settledKey;
        const qint64 countBefore = unknown->count();
        QVERIFY(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                            "expire_at) VALUES ('ticket:create:acme:live-new', 'ticket_create', 0, "
                                            "'2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', '2099-01-01T00:00:00.000000Z')"))
                    .isEmpty());
        QVERIFY(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1 WHERE idem_key = '%1'").arg(settledKey)).isEmpty());
        QSignalSpy polled(unknown, &QueueModel::polled);
        w.setLivePolling(1);
        QCOMPARE(w.liveIndicator()->text(), QStringLiteral("\u25cf live: polling every 1 s"));
        QVERIFY(polled.wait(30000));
        QCOMPARE(polled.first().at(0).toBool(), true);
        QCOMPARE(unknown->enteredRows(), 1);
        QCOMPARE(unknown->leftRows(), rowsOfKey);
        QCOMPARE(unknown->count(), countBefore + 1 - rowsOfKey);
        const int entered = unknown->findKey(QStringLiteral("ticket:create:acme:live-new"));
        QCOMPARE(entered, 0); // the oldest updated_at: first
        QCOMPARE(unknown->index(entered, 0).data(roles::LiveChange).toInt(), 1);
        QCOMPARE(unknown->index(unknown->findKey(settledKey), 0).data(roles::LiveChange).toInt(), 2);
        QTest::qWait(100);
        QVERIFY(w.grab().save(outputPath(QStringLiteral("display-live-queue.png"))));
        // The store fails: the indicator turns red and names the queue and why.
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record RENAME TO idempotency_record_away")).isEmpty());
        QVERIFY(QTest::qWaitFor([&] { return w.liveIndicator()->text().startsWith(QStringLiteral("\u26a0 ")); }, 30000));
        QVERIFY2(w.liveIndicator()->text().startsWith(QStringLiteral("\u26a0 Unknown: stale since ")), qPrintable(w.liveIndicator()->text()));
        // (whether SQLite fails at prepare or at run depends on its statement cache)
        static const QRegularExpression why(QStringLiteral(
            R"(^\x{26a0} Unknown: stale since \d\d:\d\d:\d\d UTC \(idempotency database failed while (preparing|running) a statement: )"
            R"(no such table: idempotency_record\)$)"));
        QVERIFY2(why.match(w.liveIndicator()->text()).hasMatch(), qPrintable(w.liveIndicator()->text()));
        QCOMPARE(unknown->index(unknown->findKey(settledKey), QueueModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Muted));
        QTest::qWait(100); // the status bar lays the longer text out
        QVERIFY(w.grab().save(outputPath(QStringLiteral("display-live-queue-stale.png"))));
        QVERIFY(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record_away RENAME TO idempotency_record")).isEmpty());
        QVERIFY(QTest::qWaitFor([&] { return w.liveIndicator()->text() == QStringLiteral("\u25cf live: polling every 1 s"); }, 30000));
        w.setLivePolling(0);
        QCOMPARE(w.liveIndicator()->text(), QStringLiteral("\u25cb live updates off: Refresh to update"));
    }

    void ownActionUpdatesCountsAndCompensations()
    {
        TestDatabase db(QStringLiteral("sqlite"));
        Workspace ws(demoConfig(db));
        QVERIFY(seedDemo(ws).isEmpty());
        MainWindow w(&ws);
        w.show();
        QVERIFY(waitForQueues(w));
        QueueModel *unknown = w.queuePane(QueueKind::Unknown)->model();
        QueueModel *succeeded = w.queuePane(QueueKind::Succeeded)->model();
        const qint64 unknownBefore = unknown->count();
        const qint64 succeededBefore = succeeded->count();
        CompensationsModel *comps = w.compensationsPane()->compensationsModel();
        QTRY_VERIFY_WITH_TIMEOUT(!comps->isLoading(), 30000);
        const int compsBefore = comps->rowCount();

        // A stale PROCESSING record without tickets or intent rows.
        const QString key = QStringLiteral("ticket:create:acme:display-own-action");
        QVERIFY(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                            "expire_at) VALUES ('%1', 'ticket_create', 0, '2026-01-01T00:00:00.000000Z', "
                                            "'2026-01-01T00:00:00.000000Z', '2099-01-01T00:00:00.000000Z')")
                                .arg(key))
                    .isEmpty());
        // Meanwhile a compensation was recorded (by another console): it shows with the
        // operator's next action, without Refresh.
        QVERIFY(db.adminExec(QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, "
                                            "status, attempts, operator, reason) VALUES ('comp:cancel_ticket:1:display', '%1', "
                                            "'ticket_create', 'cancel_ticket', '1', '{}', 'UNKNOWN', 1, 'other', "
                                            "'a duplicate ticket of this key')")
                                .arg(key))
                    .isEmpty());
        w.refreshAll(); // the new record is listed (this Refresh is not the one under test)
        QTRY_VERIFY_WITH_TIMEOUT(!unknown->isLoading() && !unknown->isCounting() && unknown->count() == unknownBefore + 1, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!comps->isLoading(), 30000);
        // refreshAll() does not reload the compensations: the pane still shows the old list.
        QCOMPARE(comps->rowCount(), compsBefore);

        QSignalSpy loaded(w.detailView(), &KeyDetailView::detailLoaded);
        w.openKey(key);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 30000);
        MarkRequest r;
        r.idemKey = key;
        r.toStatus = Success;
        r.reason = QStringLiteral("the upstream shows ticket 1 for this key");
        r.snapshot = QStringLiteral("{\"ticket_id\":1}");
        r.snapshotSource = QStringLiteral("typed");
        r.operatorName = QStringLiteral("tester");
        QSignalSpy changed(w.detailView(), &KeyDetailView::recordChanged);
        w.detailView()->submitMark(r);
        QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(unknown->count() == unknownBefore && succeeded->count() == succeededBefore + 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(comps->rowCount(), compsBefore + 1, 30000);
        auto *queues = w.findChild<QTabWidget *>(QStringLiteral("queueTabs"));
        QTRY_COMPARE(queues->tabText(queues->indexOf(w.queuePane(QueueKind::Unknown))),
                     QStringLiteral("Unknown (%1)").arg(unknownBefore));
    }
};

QTEST_MAIN(TestDisplayViews)
#include "tst_display_views.moc"
