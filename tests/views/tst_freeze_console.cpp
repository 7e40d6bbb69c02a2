// The console shows the global freeze (DESIGN.md §8 "Safety policy"): a red bar above
// everything with the freeze message while frozen, hidden once unfrozen, on every backend;
// and proposals waiting for a second operator in its header (DESIGN.md §9 "Four-eyes").
#include "BackendTestUtil.h"

#include "MainWindow.h"
#include "MessageBar.h"
#include "Policy.h"
#include "ProposalsPane.h"
#include "Workspace.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
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

    // A proposal waiting for a second operator shows in the header, whatever tab is in front;
    // a click brings the Proposals tab.
    auto *waiting = w.findChild<QPushButton *>(QStringLiteral("proposalsWaiting"));
    QVERIFY(waiting && waiting->isHidden());
    const QString why = QStringLiteral("incident 42: two people per change");
    TRIAGE_VERIFY_OUTCOME(setPolicy(ws, fourEyesPolicyName(), QStringLiteral("on"), why, std::nullopt).result());
    const Outcome<PolicyChange> proposed = setPolicy(ws, QStringLiteral("biz.ticket_create.reconcile"), QStringLiteral("escalate"), why,
                                                     std::nullopt).result();
    QVERIFY(proposed.ok() && proposed->proposed());
    w.refreshAll();
    QTRY_VERIFY_WITH_TIMEOUT(!waiting->isHidden(), 30000);
    QCOMPARE(waiting->text(), QStringLiteral("1 proposal waiting"));
    auto *tabs = qobject_cast<QStackedWidget *>(w.proposalsPane()->parentWidget());
    QVERIFY(tabs && tabs->currentWidget() != w.proposalsPane());
    waiting->click();
    QCOMPARE(tabs->currentWidget(), w.proposalsPane());
}

QTEST_MAIN(TestFreezeConsole)
#include "tst_freeze_console.moc"
