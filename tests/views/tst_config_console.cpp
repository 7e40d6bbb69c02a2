// The console shows the [biz.*]-against-records warnings in the main window's message bar
// (the check runs on the idempotency worker; the SQL is covered on every backend by
// tst_config_cli), and the demo, whose settings cover its biz types, shows none.
#include "MainWindow.h"
#include "MessageBar.h"
#include "TestDatabases.h"
#include "Workspace.h"
#include "DemoWorkspace.h"
#include "Schema.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using triage::test::TestDatabase;

class TstConfigConsole : public QObject {
    Q_OBJECT
private slots:
    void warningsInTheMessageBar();
    void demoHasNoWarnings();
};

void TstConfigConsole::warningsInTheMessageBar()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        SchemaOptions schema;
        schema.ticketBackstop = false;
        const Outcome<int> created = initSchema(setup, schema).result();
        QVERIFY2(created.ok(), created.ok() ? "" : qPrintable(created.error->message));
        const Outcome<SeedReport> seeded = seedWorkspace(setup, SeedOptions{}).result();
        QVERIFY2(seeded.ok(), seeded.ok() ? "" : qPrintable(seeded.error->message));
    }
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("[idempotency]\nurl=%1\n[intent]\nurl=%1\n[ticket]\nurl=%1\n"
                               "[biz.ticket_craete]\nprocessing_timeout=3600\n[biz.payment_capture]\n[biz.refund_issue]\n"
                               "[biz.notify_send]\n")
                    .arg(db.url())
                    .toUtf8());
    }
    QString error;
    const auto config = WorkspaceConfig::fromIniFile(ini, &error);
    QVERIFY2(config, qPrintable(error));
    Workspace workspace(*config);
    MainWindow window(&workspace);
    QSignalSpy finished(&window, &MainWindow::bizTypeCheckFinished);
    window.show();
    QVERIFY(finished.wait(30000));
    const QStringList expected = {
        QStringLiteral("config %1:7: [biz.ticket_craete]: no idempotency record has biz_type \"ticket_craete\", so its "
                       "settings apply to nothing (did you mean ticket_create?)")
            .arg(ini),
        QStringLiteral("config %1: biz_type \"ticket_create\" has idempotency records but no [biz.ticket_create] section: "
                       "its records use processing_timeout 300 s and no upstream")
            .arg(ini),
    };
    QCOMPARE(finished.first().first().toStringList(), expected);
    MessageBar *bar = window.configWarningBar();
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->level(), MessageBar::Level::Warning);
    QCOMPARE(bar->text(), QStringLiteral("Config %1:7: [biz.ticket_craete]: no idempotency record has biz_type \"ticket_craete\", "
                                         "so its settings apply to nothing (did you mean ticket_create?)\n"
                                         "Config %1: biz_type \"ticket_create\" has idempotency records but no [biz.ticket_create] "
                                         "section: its records use processing_timeout 300 s and no upstream")
                              .arg(ini));
    const QString shot = qEnvironmentVariable("TRIAGE_TEST_SCREENSHOT_DIR");
    if (!shot.isEmpty())
        window.grab().save(shot + QStringLiteral("/config-warnings.png"));
}

void TstConfigConsole::demoHasNoWarnings()
{
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    Workspace workspace(DemoWorkspace::config());
    MainWindow window(&workspace);
    QSignalSpy finished(&window, &MainWindow::bizTypeCheckFinished);
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().first().toStringList(), QStringList());
    QVERIFY(window.configWarningBar()->isHidden());
}

QTEST_MAIN(TstConfigConsole)
#include "tst_config_console.moc"
