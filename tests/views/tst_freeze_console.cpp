// The console shows the global freeze (DESIGN.md §8 "Safety policy"): a red bar above
// everything with the freeze message while frozen, hidden once unfrozen, on every backend.
#include "BackendTestUtil.h"

#include "MainWindow.h"
#include "MessageBar.h"
#include "Policy.h"
#include "Workspace.h"

#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestFreezeConsole : public QObject {
    Q_OBJECT
private slots:
    void freezeBar_data();
    void freezeBar();
};

void TestFreezeConsole::freezeBar_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestFreezeConsole::freezeBar()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws));

    MainWindow w(&ws);
    QSignalSpy first(&w, &MainWindow::freezeCheckFinished);
    QVERIFY(first.isValid() && first.wait(30000));
    QCOMPARE(first.first().first().toString(), QString());
    QVERIFY(w.freezeBar()->isHidden());

    const Outcome<PolicyRow> frozen = setFreeze(ws, true, QStringLiteral("incident 42: hands off")).result();
    TRIAGE_VERIFY_OUTCOME(frozen);
    QSignalSpy shown(&w, &MainWindow::freezeCheckFinished);
    w.checkFreeze();
    QVERIFY(shown.wait(30000));
    const QString expected = QStringLiteral("Frozen by alice at %1 UTC: incident 42: hands off — every write is refused")
                                 .arg(utcToSecond(frozen->setAt));
    QCOMPARE(shown.first().first().toString(), expected);
    QCOMPARE(w.freezeBar()->text(), expected);
    QCOMPARE(w.freezeBar()->level(), MessageBar::Level::Error);
    QVERIFY(!w.freezeBar()->isHidden());

    TRIAGE_VERIFY_OUTCOME(setFreeze(ws, false, QStringLiteral("incident 42 is over")).result());
    QSignalSpy hidden(&w, &MainWindow::freezeCheckFinished);
    w.refreshAll();
    QVERIFY(hidden.wait(30000));
    QCOMPARE(hidden.first().first().toString(), QString());
    QVERIFY(w.freezeBar()->isHidden());
}

QTEST_MAIN(TestFreezeConsole)
#include "tst_freeze_console.moc"
