// The queue pane's "Cancel query" on PostgreSQL, offscreen: another connection
// holds `LOCK TABLE idempotency_record IN ACCESS EXCLUSIVE MODE`, so the queue's statements
// wait on the server. After a second of loading the pane shows the cancel button; clicking
// it cancels the statement on the server, the rows already loaded stay, the message bar
// says "Query cancelled"; once the lock is released the pane loads again. Saves
// query-cancel-button.png (the button visible) into this build directory.

#include "BackendTestUtil.h"
#include "MessageBar.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "RecordStatus.h"
#include "Queue.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

constexpr int kRecords = 50;
constexpr int kPage = 20; // more than the table shows, so the view does not page by itself

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

bool idle(const QueuePane &pane)
{
    return !pane.model()->isLoading() && !pane.model()->isCounting();
}

} // namespace

class TstQueryCancelUi : public QObject {
    Q_OBJECT

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Workspace> m_ws;

    /// Takes the lock in a transaction of the admin connection (released by unlock()).
    QString lock() const
    {
        if (const QString e = m_db->adminExec(QStringLiteral("BEGIN")); !e.isEmpty())
            return e;
        return m_db->adminExec(QStringLiteral("LOCK TABLE idempotency_record IN ACCESS EXCLUSIVE MODE"));
    }
    QString unlock() const { return m_db->adminExec(QStringLiteral("COMMIT")); }

private slots:
    void initTestCase()
    {
        m_db = std::make_unique<TestDatabase>(QStringLiteral("postgresql"));
        TRIAGE_REQUIRE_BACKEND(*m_db);
        m_ws = std::make_unique<Workspace>(m_db->config());
        TRIAGE_OK(setUpSchema(*m_ws));
        QVector<RecordSpec> rows;
        for (int i = 0; i < kRecords; ++i) {
            RecordSpec r;
            r.key = QStringLiteral("ticket:create:acme:failed-%1").arg(i, 2, 10, QLatin1Char('0'));
            r.status = QString::number(int(Failed));
            r.updated = serverAgoSeconds(*m_db, 1000 - i);
            rows << r;
        }
        TRIAGE_OK(insertRecords(*m_db, rows));
    }
    void cleanupTestCase()
    {
        m_ws.reset();
        m_db.reset();
    }

    /// The next page blocks: cancel it; the first page's rows stay; "Load again" continues.
    void cancelNextPageKeepsRows()
    {
        QueuePane pane(m_ws.get(), QueueKind::Failed);
        QAbstractItemModelTester tester(pane.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        pane.model()->setPageSize(kPage);
        pane.resize(1100, 360);
        pane.show();
        pane.start();
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane) && pane.model()->count() == kRecords, 30000);
        QCOMPARE(pane.model()->rowCount(), kPage);
        QVERIFY(!pane.cancelButton()->isVisible());

        TRIAGE_OK(lock());
        auto release = qScopeGuard([this] { unlock(); });
        pane.model()->fetchMore({});
        QVERIFY(pane.model()->isLoading());
        QVERIFY(!pane.cancelButton()->isVisible()); // not before a second of loading
        QTRY_VERIFY_WITH_TIMEOUT(pane.cancelButton()->isVisible(), 20000);
        QVERIFY(pane.model()->isLoading()); // still waiting on the lock
        QTest::qWait(100);
        QVERIFY(pane.grab().save(outputPath(QStringLiteral("query-cancel-button.png"))));

        QTest::mouseClick(pane.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane), 30000);
        QVERIFY(pane.model()->pageCancelled());
        QCOMPARE(pane.model()->lastError(), QStringLiteral("idempotency database: query cancelled by the operator"));
        QCOMPARE(pane.model()->rowCount(), kPage); // the rows loaded stay
        QCOMPARE(pane.model()->count(), qint64(kRecords));
        MessageBar *bar = pane.messageBar();
        QVERIFY(bar->isVisible());
        QCOMPARE(bar->text(), QStringLiteral("Query cancelled"));
        QCOMPARE(bar->level(), MessageBar::Level::Info);
        QVERIFY(!pane.cancelButton()->isVisible());
        QVERIFY(!pane.model()->canFetchMore({}));
        QTest::qWait(100);
        QVERIFY(pane.grab().save(outputPath(QStringLiteral("query-cancelled.png"))));

        // Released: "Load again" continues after the rows held.
        release.dismiss();
        TRIAGE_OK(unlock());
        emit bar->actionTriggered();
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane) && pane.model()->rowCount() == 2 * kPage, 30000);
        QVERIFY(!bar->isVisible());
        QCOMPARE(pane.model()->index(kPage, QueueModel::KeyColumn).data().toString(),
                 QStringLiteral("ticket:create:acme:failed-%1").arg(kPage, 2, 10, QLatin1Char('0')));
    }

    /// The first page and the count both wait: one click stops both (the count, queued
    /// behind the page on the same worker, never runs); refresh loads once released.
    void cancelFirstPageAndCount()
    {
        TRIAGE_OK(lock());
        auto release = qScopeGuard([this] { unlock(); });
        QueuePane pane(m_ws.get(), QueueKind::Failed);
        QAbstractItemModelTester tester(pane.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        pane.model()->setPageSize(kPage);
        pane.resize(1100, 360);
        pane.show();
        pane.start();
        QTRY_VERIFY_WITH_TIMEOUT(pane.cancelButton()->isVisible(), 20000);
        QVERIFY(pane.model()->isLoading());
        QVERIFY(pane.model()->isCounting());

        QTest::mouseClick(pane.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane), 30000);
        QVERIFY(pane.model()->pageCancelled());
        QVERIFY(pane.model()->countCancelled());
        QCOMPARE(pane.model()->rowCount(), 0);
        QCOMPARE(pane.messageBar()->text(), QStringLiteral("Query cancelled"));
        QCOMPARE(pane.countLabel()->text(), QStringLiteral("count cancelled"));

        release.dismiss();
        TRIAGE_OK(unlock());
        pane.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane) && pane.model()->count() == kRecords, 30000);
        QCOMPARE(pane.model()->rowCount(), kPage);
        QVERIFY(!pane.messageBar()->isVisible());
        QCOMPARE(pane.countLabel()->text(), QStringLiteral("%1 records").arg(kRecords));
    }

    /// A quick load never shows the button.
    void quickLoadShowsNoButton()
    {
        QueuePane pane(m_ws.get(), QueueKind::Failed);
        pane.show();
        pane.start();
        QTRY_VERIFY_WITH_TIMEOUT(idle(pane), 30000);
        QTest::qWait(QueuePane::cancelDelayMs() + 200);
        QVERIFY(!pane.cancelButton()->isVisible());
        QVERIFY(!pane.messageBar()->isVisible());
    }
};

QTEST_MAIN(TstQueryCancelUi)
#include "tst_query_cancel_ui.moc"
