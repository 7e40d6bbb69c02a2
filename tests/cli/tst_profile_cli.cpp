// --profile NAME for triagectl and triage-console (DESIGN.md §5 "Connection profiles"): a
// saved profile reads exactly as --config of its file, command-line options still win, and an
// unknown name is a configuration error (exit 1) listing the known ones.
#include "CtlRun.h"
#include "ConnectionProfile.h"
#include "ProfileStore.h"
#include "ProfileTestUtil.h"
#include "TestDatabases.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using triage::test::CtlRun;
using triage::test::TestDatabase;
using triage::test::runCtl;

namespace {

QStringList dbArgs(const QString &url)
{
    return {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url, QStringLiteral("--ticket-db"), url};
}

/// The stderr lines of `r` that are triagectl's own (not the log's).
QStringList stderrLines(const QByteArray &err, const QString &prefix = QStringLiteral("triagectl: "))
{
    QStringList out;
    for (const QString &l : QString::fromUtf8(err).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (l.startsWith(prefix))
            out << l;
    return out;
}

SavedProfile profile(const QString &name, Environment env, const QString &url)
{
    return triage::test::sameUrlProfile(name, env, url, QStringLiteral("alice"));
}

} // namespace

class TstProfileCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void unknownProfile();
    void profileIsTheConfig_data();
    void profileIsTheConfig();
    void consoleUnknownProfile();
    void consoleOpensAProfile();

private:
    QTemporaryDir m_config;
};

void TstProfileCli::initTestCase()
{
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8()); // children inherit it
}

void TstProfileCli::unknownProfile()
{
    const QString dir = m_config.path() + QStringLiteral("/triage-console/profiles");
    RUN_EXIT(none, 1, QStringList{QStringLiteral("--profile"), QStringLiteral("nope"), QStringLiteral("claims")});
    QCOMPARE(stderrLines(none.err),
             (QStringList{QStringLiteral("triagectl: --profile \"nope\": no such profile in %1; no profile is saved yet (File → "
                                         "Connect… saves them)").arg(dir),
                          QStringLiteral("triagectl: run \"triagectl --help\" for usage")}));
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(profile(QStringLiteral("zeta"), Environment::Staging, QStringLiteral("sqlite:///nonexistent/z.db")), &error),
             qPrintable(error));
    QVERIFY2(store.save(profile(QStringLiteral("alpha"), Environment::Staging, QStringLiteral("sqlite:///nonexistent/a.db")), &error),
             qPrintable(error));
    RUN_EXIT(known, 1, QStringList{QStringLiteral("--profile"), QStringLiteral("alpah"), QStringLiteral("claims")});
    QCOMPARE(stderrLines(known.err).value(0),
             QStringLiteral("triagectl: --profile \"alpah\": no such profile in %1; known profiles: alpha, zeta").arg(dir));
    RUN_EXIT(both, 1, QStringList{QStringLiteral("--profile"), QStringLiteral("alpha"), QStringLiteral("--config"),
                                  QStringLiteral("/nonexistent/x.ini"), QStringLiteral("claims")});
    QCOMPARE(stderrLines(both.err).value(0),
             QStringLiteral("triagectl: --profile cannot be combined with --config (a profile is a config file)"));
    RUN_EXIT(demo, 1, QStringList{QStringLiteral("--profile"), QStringLiteral("alpha"), QStringLiteral("--demo"), QStringLiteral("claims")});
    QCOMPARE(stderrLines(demo.err).value(0), QStringLiteral("triagectl: --demo cannot be combined with --config, --profile or --*-db"));
    QVERIFY(store.remove(QStringLiteral("zeta"), &error));
    QVERIFY(store.remove(QStringLiteral("alpha"), &error));
}

void TstProfileCli::profileIsTheConfig_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows();
}

void TstProfileCli::profileIsTheConfig()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    RUN_EXIT(init, 0, dbArgs(db.url()) + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")});
    RUN_EXIT(seeded, 0, dbArgs(db.url()) + QStringList{QStringLiteral("seed-demo")});
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(profile(QStringLiteral("shop-prod"), Environment::Production, db.url()), &error), qPrintable(error));
    const QStringList prod = {QStringLiteral("--profile"), QStringLiteral("shop-prod")};

    RUN_EXIT(listed, 0, prod + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"),
                                           QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray rows = QJsonDocument::fromJson(listed.out).array();
    QCOMPARE(rows.size(), 1);
    const QString key = rows.first().toObject().value(QStringLiteral("idem_key")).toString();
    QVERIFY(!key.isEmpty());

    // The profile's environment and name are the file's: a write needs --production.
    RUN_EXIT(refused, 4, prod + QStringList{QStringLiteral("claim"), key});
    QCOMPARE(stderrLines(refused.err),
             QStringList{QStringLiteral("triagectl: claim writes to the databases of the production workspace \"shop-prod\": "
                                        "refused without --production (give --production to write to production)")});
    // The command line wins over the profile: --environment, --operator.
    RUN_EXIT(claimed, 0, prod + QStringList{QStringLiteral("--environment"), QStringLiteral("staging"), QStringLiteral("--operator"),
                                            QStringLiteral("bob"), QStringLiteral("claim"), key});
    // …never silently: lowering a production profile is said on every run.
    QCOMPARE(stderrLines(claimed.err).value(0),
             QStringLiteral("triagectl: warning: --environment staging overrides the production environment of profile "
                            "\"shop-prod\": its writes are not guarded as production"));
    RUN_EXIT(held, 0, prod + QStringList{QStringLiteral("claims"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray claims = QJsonDocument::fromJson(held.out).array();
    QCOMPARE(claims.size(), 1);
    QCOMPARE(claims.first().toObject().value(QStringLiteral("subject")).toString(), key);
    QVERIFY2(held.out.contains("\"bob\""), held.describe().constData());
    QVERIFY2(!held.out.contains("\"alice\""), held.describe().constData());

    // --*-db URLs win over the profile's: a profile pointing at nothing (port 1 on the loopback
    // address) works with all three given on the command line.
    // The profile's read replica (port 2) belongs to the profile's database: a store moved on
    // the command line drops it, and says so (DESIGN.md §9 "Read replicas").
    SavedProfile nowhere = profile(QStringLiteral("nowhere"), Environment::Development, QStringLiteral("postgresql://triage@127.0.0.1:1/nowhere"));
    nowhere.replicaUrls = {{DbRole::Ticket, QStringLiteral("postgresql://triage@127.0.0.1:2/nowhere")}};
    QVERIFY2(store.save(nowhere, &error), qPrintable(error));
    RUN_EXIT(overridden, 0, QStringList{QStringLiteral("--profile"), QStringLiteral("nowhere")} + dbArgs(db.url())
                                + QStringList{QStringLiteral("claims"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(overridden.out).array().size(), 1);
    QCOMPARE(stderrLines(overridden.err).value(0),
             QStringLiteral("triagectl: warning: --ticket-db names another database than the config file: its [ticket] replica_url "
                            "is not used; every read of that store goes to %1")
                 .arg(ConnectionProfile::fromUrl(db.url(), DbRole::Ticket, &error)->displayUrl()));
    QVERIFY(store.remove(QStringLiteral("nowhere"), &error));
    QVERIFY(store.remove(QStringLiteral("shop-prod"), &error));
}

void TstProfileCli::consoleUnknownProfile()
{
    QProcess p;
    p.start(QStringLiteral(TRIAGE_CONSOLE_PATH), {QStringLiteral("--profile"), QStringLiteral("nope")});
    QVERIFY(p.waitForStarted(30000));
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QCOMPARE(stderrLines(p.readAllStandardError(), QStringLiteral("triage-console: ")),
             QStringList{QStringLiteral("triage-console: --profile \"nope\": no such profile in %1/triage-console/profiles; no "
                                        "profile is saved yet (File → Connect… saves them)").arg(m_config.path())});
}

void TstProfileCli::consoleOpensAProfile()
{
    // The console opens a profile as --config (its title names profile and environment) and
    // puts it first in the recent list the Connect dialog shows.
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    RUN_EXIT(init, 0, dbArgs(db.url()) + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")});
    RUN_EXIT(seeded, 0, dbArgs(db.url()) + QStringList{QStringLiteral("seed-demo")});
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(profile(QStringLiteral("dev-sqlite"), Environment::Development, db.url()), &error), qPrintable(error));
    QVERIFY2(store.save(profile(QStringLiteral("other"), Environment::Staging, db.url()), &error), qPrintable(error));
    store.noteUsed(QStringLiteral("other"));
    QTemporaryDir out;
    const QString png = out.filePath(QStringLiteral("profile-window.png"));
    QProcess p;
    p.start(QStringLiteral(TRIAGE_CONSOLE_PATH), {QStringLiteral("--profile"), QStringLiteral("dev-sqlite"), QStringLiteral("--screenshot"), png});
    QVERIFY(p.waitForStarted(30000));
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QVERIFY(QFile::exists(png));
    QCOMPARE(store.recent(), (QStringList{QStringLiteral("dev-sqlite"), QStringLiteral("other")}));
    QVERIFY(QFile::copy(png, QStringLiteral(TRIAGE_TEST_OUTPUT "/profile-window.png")) || QFile::exists(QStringLiteral(TRIAGE_TEST_OUTPUT "/profile-window.png")));
    QVERIFY(store.remove(QStringLiteral("dev-sqlite"), &error));
    QVERIFY(store.remove(QStringLiteral("other"), &error));
}

QTEST_GUILESS_MAIN(TstProfileCli)
#include "tst_profile_cli.moc"
