// Environments (DESIGN.md §5 "Environments"): [console] environment and name read from a
// real file with exact values and the exact error for a bad value; the rules (production
// starts read-only in the console, the exact name unlocks it, triagectl's refusal text) on
// a real SQLite workspace.
#include "Environment.h"
#include "Workspace.h"
#include "WorkspaceConfig.h"

#include <QFile>
#include <QTemporaryDir>
#include "IniFile.h"

#include <QTest>

using namespace triage;

namespace {

using triage::test::writeIni;

} // namespace

class TstEnvironment : public QObject {
    Q_OBJECT
private slots:
    void names();
    void readFromFile_data();
    void readFromFile();
    void badValueNamesFileLineAndChoices();
    void startRule();
    void unlockNeedsTheExactName();
    void ctlRefusal();
};

void TstEnvironment::names()
{
    QCOMPARE(environmentFromName(QStringLiteral("production")), std::optional(Environment::Production));
    QCOMPARE(environmentFromName(QStringLiteral(" Staging ")), std::optional(Environment::Staging));
    QCOMPARE(environmentFromName(QStringLiteral("DEVELOPMENT")), std::optional(Environment::Development));
    QCOMPARE(environmentFromName(QStringLiteral("prod")), std::nullopt);
    QCOMPARE(environmentFromName(QString()), std::nullopt);
    QCOMPARE(environmentName(Environment::Production), QStringLiteral("production"));
    QCOMPARE(environmentName(Environment::None), QString());
    QCOMPARE(environmentLabel(Environment::Production, QStringLiteral("shop-prod")), QStringLiteral("PRODUCTION \u2014 shop-prod"));
    QCOMPARE(environmentLabel(Environment::Staging, QStringLiteral("shop-stage")), QStringLiteral("STAGING \u2014 shop-stage"));
    QCOMPARE(environmentLabel(Environment::None, QStringLiteral("x")), QString());
}

void TstEnvironment::readFromFile_data()
{
    QTest::addColumn<QByteArray>("console");
    QTest::addColumn<int>("environment");
    QTest::addColumn<QString>("name");
    QTest::newRow("absent") << QByteArray("operator=alice\n") << int(Environment::None) << QStringLiteral("shop-prod");
    QTest::newRow("production") << QByteArray("environment=production\n") << int(Environment::Production) << QStringLiteral("shop-prod");
    QTest::newRow("staging, any case") << QByteArray("environment = Staging\n") << int(Environment::Staging) << QStringLiteral("shop-prod");
    QTest::newRow("development named") << QByteArray("environment=development\nname=Shop EU (dev)\n") << int(Environment::Development)
                                       << QStringLiteral("Shop EU (dev)");
    QTest::newRow("empty name: the file's") << QByteArray("environment=production\nname=\n") << int(Environment::Production)
                                            << QStringLiteral("shop-prod");
}

void TstEnvironment::readFromFile()
{
    QFETCH(QByteArray, console);
    QFETCH(int, environment);
    QFETCH(QString, name);
    QTemporaryDir dir;
    const QString path = writeIni(dir, QStringLiteral("shop-prod.ini"), "[console]\n" + console);
    QString error;
    const auto c = WorkspaceConfig::fromIniFile(path, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(int(c->environment), environment);
    QCOMPARE(c->profileName, name);
    QCOMPARE(c->readOnly, false);     // the console's start rule is applied by the console
    QCOMPARE(c->writesLocked, false);
}

void TstEnvironment::badValueNamesFileLineAndChoices()
{
    QTemporaryDir dir;
    const QString path = writeIni(dir, QStringLiteral("shop-prod.ini"), "[console]\noperator=alice\nenvironment=prod\n");
    QString error;
    QVERIFY(!WorkspaceConfig::fromIniFile(path, &error));
    QCOMPARE(error, QStringLiteral("config %1:3: [console] environment: must be production, staging or development, not \"prod\"").arg(path));
    const QString longName = writeIni(dir, QStringLiteral("long.ini"), "[console]\nname=" + QByteArray(65, 'n') + "\n");
    QVERIFY(!WorkspaceConfig::fromIniFile(longName, &error));
    QCOMPARE(error, QStringLiteral("config %1:2: [console] name: must have at most 64 characters").arg(longName));
}

void TstEnvironment::startRule()
{
    QCOMPARE(environmentStartsReadOnly(Environment::Production), true);
    QCOMPARE(environmentStartsReadOnly(Environment::Staging), false);
    QCOMPARE(environmentStartsReadOnly(Environment::Development), false);
    QCOMPARE(environmentStartsReadOnly(Environment::None), false);
    WorkspaceConfig c;
    c.environment = Environment::Production;
    applyEnvironmentStart(c);
    QCOMPARE(c.readOnly, true);
    QCOMPARE(c.writesLocked, true);
    WorkspaceConfig asked; // --read-only on production: read-only by choice, nothing to unlock
    asked.environment = Environment::Production;
    asked.readOnly = true;
    applyEnvironmentStart(asked);
    QCOMPARE(asked.readOnly, true);
    QCOMPARE(asked.writesLocked, false);
    WorkspaceConfig staging;
    staging.environment = Environment::Staging;
    applyEnvironmentStart(staging);
    QCOMPARE(staging.readOnly, false);
    QCOMPARE(staging.writesLocked, false);
}

void TstEnvironment::unlockNeedsTheExactName()
{
    QTemporaryDir dir;
    WorkspaceConfig c = WorkspaceConfig::sqliteWorkspace(dir.filePath(QStringLiteral("w.sqlite")));
    c.environment = Environment::Production;
    c.profileName = QStringLiteral("shop-prod");
    c.operatorName = QStringLiteral("alice");
    applyEnvironmentStart(c);
    Workspace ws(c);
    for (const QString &wrong : {QStringLiteral("Shop-prod"), QStringLiteral("shop-prod "), QStringLiteral(""), QStringLiteral("production")}) {
        QCOMPARE(ws.unlockWrites(wrong), Workspace::Unlock::WrongName);
        QCOMPARE(ws.config().readOnly, true);
        QCOMPARE(ws.config().writesLocked, true);
    }
    QCOMPARE(ws.unlockWrites(QStringLiteral("shop-prod")), Workspace::Unlock::Unlocked);
    QCOMPARE(ws.config().readOnly, false);
    QCOMPARE(ws.config().writesLocked, false);
    QCOMPARE(ws.unlockWrites(QStringLiteral("shop-prod")), Workspace::Unlock::NotLocked);

    WorkspaceConfig asked = c; // read-only asked for: the name does not switch writes on
    asked.writesLocked = false;
    Workspace readOnly(asked);
    QCOMPARE(readOnly.unlockWrites(QStringLiteral("shop-prod")), Workspace::Unlock::NotLocked);
    QCOMPARE(readOnly.config().readOnly, true);
}

void TstEnvironment::ctlRefusal()
{
    QCOMPARE(productionWriteRefusal(Environment::Production, QStringLiteral("shop-prod"), QStringLiteral("mark"), false),
             QStringLiteral("mark writes to the databases of the production workspace \"shop-prod\": refused without "
                            "--production (give --production to write to production)"));
    QCOMPARE(productionWriteRefusal(Environment::Production, QStringLiteral("shop-prod"), QStringLiteral("mark"), true), QString());
    QCOMPARE(productionWriteRefusal(Environment::Staging, QStringLiteral("shop-stage"), QStringLiteral("mark"), false), QString());
    QCOMPARE(productionWriteRefusal(Environment::None, QString(), QStringLiteral("mark"), false), QString());
    QCOMPARE(writesUnlockAccepted(QString(), QString()), false);
}

QTEST_GUILESS_MAIN(TstEnvironment)
#include "tst_environment.moc"
