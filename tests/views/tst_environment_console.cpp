// The console's environment (DESIGN.md §5 "Environments") on a real SQLite workspace: the
// window title and the band for each environment; production starts read-only, a wrong
// typed name leaves it read-only and says so, the exact name switches writes on (the
// unlock dialog driven through its widgets); the confirmation stamp every write's
// dialog gets. The unlock dialog is grabbed to PNG for a look.
#include "BackendTestUtil.h"
#include "ShotCheck.h"

#include "EnvironmentBand.h"
#include "MainWindow.h"
#include "Workspace.h"

#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTest>
#include <QVBoxLayout>

using namespace triage;
using namespace triage::test;

namespace {

/// `db`'s workspace as `environment` named "shop-prod", with the console's start rule.
WorkspaceConfig environmentConfig(const TestDatabase &db, Environment environment, bool readOnly = false)
{
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    config.environment = environment;
    config.profileName = QStringLiteral("shop-prod");
    config.readOnly = readOnly;
    applyEnvironmentStart(config);
    return config;
}

const QString kMarksOff = QStringLiteral("Read-only workspace: marks are disabled");
const QString kMarksOn = QStringLiteral("One confirmation for all selected records; a per-row report");

} // namespace

class TstEnvironmentConsole : public QObject {
    Q_OBJECT
private slots:
    void titleAndBand_data();
    void titleAndBand();
    void productionUnlock();
    void confirmationStamp();
};

void TstEnvironmentConsole::titleAndBand_data()
{
    QTest::addColumn<int>("environment");
    QTest::addColumn<bool>("readOnly");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("band");
    QTest::addColumn<QString>("state");
    QTest::addColumn<bool>("unlockShown");
    QTest::newRow("production") << int(Environment::Production) << false << QStringLiteral("Triage Console \u2014 PRODUCTION \u2014 shop-prod")
                                << QStringLiteral("PRODUCTION \u2014 shop-prod")
                                << QStringLiteral("read-only: switch writes on to change anything") << true;
    QTest::newRow("production --read-only") << int(Environment::Production) << true
                                            << QStringLiteral("Triage Console \u2014 PRODUCTION \u2014 shop-prod")
                                            << QStringLiteral("PRODUCTION \u2014 shop-prod")
                                            << QStringLiteral("read-only (--read-only or read_only = true)") << false;
    QTest::newRow("staging") << int(Environment::Staging) << false << QStringLiteral("Triage Console \u2014 STAGING \u2014 shop-prod")
                             << QStringLiteral("STAGING \u2014 shop-prod") << QStringLiteral("writes on") << false;
    QTest::newRow("development") << int(Environment::Development) << false
                                 << QStringLiteral("Triage Console \u2014 DEVELOPMENT \u2014 shop-prod")
                                 << QStringLiteral("DEVELOPMENT \u2014 shop-prod") << QStringLiteral("writes on") << false;
    QTest::newRow("none") << int(Environment::None) << false << QString() << QString() << QStringLiteral("writes on") << false;
}

void TstEnvironmentConsole::titleAndBand()
{
    QFETCH(int, environment);
    QFETCH(bool, readOnly);
    QFETCH(QString, title);
    QFETCH(QString, band);
    QFETCH(QString, state);
    QFETCH(bool, unlockShown);
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(environmentConfig(db, Environment(environment), readOnly));
    TRIAGE_OK(setUpSchema(ws));
    MainWindow w(&ws);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    EnvironmentBand *b = w.environmentBand();
    QVERIFY(b);
    if (environment == int(Environment::None)) {
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("Triage Console \u2014 sqlite:///")));
        QVERIFY(!b->isVisible());
        return;
    }
    QCOMPARE(w.windowTitle(), title);
    QVERIFY(b->isVisible());
    QCOMPARE(b->mapTo(&w, QPoint(0, 0)).y(), 0); // the top of the window, above the tool bar
    QCOMPARE(b->environmentLabel()->text(), band);
    QCOMPARE(b->writeStateLabel()->text(), state);
    QCOMPARE(b->unlockButton()->isVisible(), unlockShown);
    QCOMPARE(ws.config().readOnly, environment == int(Environment::Production));
    QCOMPARE(w.bulkButton(0)->toolTip(), ws.config().readOnly ? kMarksOff : kMarksOn);
}

void TstEnvironmentConsole::productionUnlock()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(environmentConfig(db, Environment::Production));
    TRIAGE_OK(setUpSchema(ws));
    MainWindow w(&ws);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    EnvironmentBand *band = w.environmentBand();
    QCOMPARE(ws.config().readOnly, true);
    QCOMPARE(w.bulkButton(0)->toolTip(), kMarksOff);

    QTest::mouseClick(band->unlockButton(), Qt::LeftButton);
    QPointer<UnlockWritesDialog> dialog = band->openUnlockDialog(); // the one the click opened (deleted on close)
    QVERIFY(dialog && dialog->isVisible());
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Switch writes on \u2014 PRODUCTION \u2014 shop-prod"));
    QCOMPARE(dialog->unlockButton()->isEnabled(), false); // nothing typed yet

    // A wrong name (case counts): still read-only, and the dialog says so.
    QTest::keyClicks(dialog->nameEdit(), QStringLiteral("Shop-prod"));
    QTest::mouseClick(dialog->unlockButton(), Qt::LeftButton);
    QVERIFY(dialog->isVisible());
    QVERIFY(dialog->errorLabel()->isVisible());
    QCOMPARE(dialog->errorLabel()->text(), QStringLiteral("That is not the profile's name: writes stay off."));
    QCOMPARE(ws.config().readOnly, true);
    QCOMPARE(ws.config().writesLocked, true);
    QCOMPARE(band->writeStateLabel()->text(), QStringLiteral("read-only: switch writes on to change anything"));
    TRIAGE_VERIFY_SHOT(saveCheckedShot(dialog, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/unlock-dialog-wrong-name.png")));

    // The exact name: writes on, the band says so, the window's write actions come back.
    dialog->nameEdit()->clear();
    QTest::keyClicks(dialog->nameEdit(), QStringLiteral("shop-prod"));
    QVERIFY(!dialog->errorLabel()->isVisible());
    QTest::mouseClick(dialog->unlockButton(), Qt::LeftButton);
    QTRY_VERIFY(!dialog || !dialog->isVisible());
    QCOMPARE(ws.config().readOnly, false);
    QCOMPARE(ws.config().writesLocked, false);
    QCOMPARE(band->writeStateLabel()->text(), QStringLiteral("writes on"));
    QVERIFY(!band->unlockButton()->isVisible());
    QCOMPARE(w.bulkButton(0)->toolTip(), kMarksOn);
    TRIAGE_VERIFY_SHOT(saveCheckedShot(&w, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/production-writes-on.png")));
}

void TstEnvironmentConsole::confirmationStamp()
{
    WorkspaceConfig config;
    config.environment = Environment::Production;
    config.profileName = QStringLiteral("shop-prod");
    QMessageBox box(QMessageBox::Question, QStringLiteral("Key claimed by bob"), QStringLiteral("Mark it FAILED anyway?"));
    QCOMPARE(stampEnvironment(&box, config), &box);
    QCOMPARE(box.windowTitle(), QStringLiteral("PRODUCTION \u2014 shop-prod \u2014 Key claimed by bob"));
    QCOMPARE(box.text(), QStringLiteral("PRODUCTION \u2014 shop-prod\n\nMark it FAILED anyway?"));

    QInputDialog input;
    input.setWindowTitle(QStringLiteral("Approve proposal 7"));
    input.setLabelText(QStringLiteral("Why approve?"));
    stampEnvironmentOn(&input, config);
    QCOMPARE(input.windowTitle(), QStringLiteral("PRODUCTION \u2014 shop-prod \u2014 Approve proposal 7"));
    QCOMPARE(input.labelText(), QStringLiteral("PRODUCTION \u2014 shop-prod\n\nWhy approve?"));

    QDialog dialog;
    dialog.setWindowTitle(QStringLiteral("Mark FAILED"));
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(QStringLiteral("body"), &dialog));
    stampEnvironmentOn(&dialog, config);
    QCOMPARE(dialog.windowTitle(), QStringLiteral("PRODUCTION \u2014 shop-prod \u2014 Mark FAILED"));
    auto *stamp = qobject_cast<QLabel *>(layout->itemAt(0)->widget());
    QVERIFY(stamp);
    QCOMPARE(stamp->objectName(), QStringLiteral("environmentStamp"));
    QCOMPARE(stamp->text(), QStringLiteral("PRODUCTION \u2014 shop-prod"));

    WorkspaceConfig none; // no environment: nothing changes
    QDialog plain;
    plain.setWindowTitle(QStringLiteral("Mark FAILED"));
    stampEnvironmentOn(&plain, none);
    QCOMPARE(plain.windowTitle(), QStringLiteral("Mark FAILED"));
}

QTEST_MAIN(TstEnvironmentConsole)
#include "tst_environment_console.moc"
