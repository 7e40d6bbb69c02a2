// Connection profiles on disk (DESIGN.md §5 "Connection profiles"): save/load round trip,
// never a password (a refused save writes nothing; the directory is grepped), other keys
// kept, list, delete and the recent list; a saved profile reads as a config file.
#include "ProfileStore.h"
#include "ProfileTestUtil.h"
#include "WorkspaceConfig.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using triage::test::filesContaining;

namespace {

SavedProfile shopProd()
{
    SavedProfile p;
    p.name = QStringLiteral("shop-prod");
    p.environment = Environment::Production;
    p.operatorName = QStringLiteral("alice");
    p.urls = {{DbRole::Idempotency, QStringLiteral("postgresql://triage@127.0.0.1:55432/orders?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem&statement_timeout=30s")},
              {DbRole::Intent, QStringLiteral("postgresql://triage@127.0.0.1:55432/agents")},
              {DbRole::Ticket, QStringLiteral("mysql://triage_ro@127.0.0.1:53306/tickets?ssl_ca=/etc/ssl/ca.pem&statement_timeout=5000")}};
    p.replicaUrls = {{DbRole::Idempotency, QStringLiteral("postgresql://triage@127.0.0.1:55532/orders?sslmode=verify-full")}};
    p.replicaMaxLag = QStringLiteral("12");
    return p;
}

} // namespace

class TstProfileStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void defaultDirFollowsXdgConfigHome();
    void roundTrip();
    void savedProfileReadsAsConfig();
    void passwordIsRefusedAndNothingWritten();
    void otherKeysAreKept();
    void badNames();
    void listDeleteAndRecent();
    void unknownProfileMessage();
    void urlFields();

private:
    QTemporaryDir m_config;
};

void TstProfileStore::initTestCase()
{
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
}

void TstProfileStore::defaultDirFollowsXdgConfigHome()
{
    QCOMPARE(ProfileStore::defaultDir(), m_config.path() + QStringLiteral("/triage-console/profiles"));
    QCOMPARE(ProfileStore().path(QStringLiteral("x")), m_config.path() + QStringLiteral("/triage-console/profiles/x.ini"));
}

void TstProfileStore::roundTrip()
{
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(shopProd(), &error), qPrintable(error));
    const auto back = store.load(QStringLiteral("shop-prod"), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(*back == shopProd());
    QCOMPARE(back->urls.value(DbRole::Ticket), shopProd().urls.value(DbRole::Ticket));
    // Emptying a field removes its key; saving twice changes nothing.
    SavedProfile dev = shopProd();
    dev.name = QStringLiteral("dev");
    dev.environment = Environment::None;
    dev.operatorName.clear();
    dev.replicaMaxLag.clear();
    QVERIFY2(store.save(dev, &error), qPrintable(error));
    QVERIFY2(store.save(dev, &error), qPrintable(error));
    const auto devBack = store.load(QStringLiteral("dev"), &error);
    QVERIFY2(devBack, qPrintable(error));
    QVERIFY(*devBack == dev);
}

void TstProfileStore::savedProfileReadsAsConfig()
{
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(shopProd(), &error), qPrintable(error));
    const auto config = WorkspaceConfig::fromIniFile(store.path(QStringLiteral("shop-prod")), &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->profileName, QStringLiteral("shop-prod"));
    QCOMPARE(config->environment, Environment::Production);
    QCOMPARE(config->operatorName, QStringLiteral("alice"));
    QCOMPARE(config->idempotency.params.value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
    QCOMPARE(config->idempotency.params.value(QStringLiteral("sslrootcert")), QStringLiteral("/etc/ssl/ca.pem"));
    QCOMPARE(config->idempotency.statementTimeoutMs, 30000);
    QCOMPARE(config->ticket.statementTimeoutMs, 5000);
    QCOMPARE(config->ticket.params.value(QStringLiteral("ssl_ca")), QStringLiteral("/etc/ssl/ca.pem"));
    QCOMPARE(config->ticket.user, QStringLiteral("triage_ro"));
    // The read replica (DESIGN.md §9 "Read replicas"): only the idempotency store has one.
    QCOMPARE(config->replicas.keys(), QList<int>{int(DbRole::Idempotency)});
    QCOMPARE(config->replicas.value(int(DbRole::Idempotency)).port, 55532);
    QCOMPARE(config->replicas.value(int(DbRole::Idempotency)).params.value(QStringLiteral("sslmode")), QStringLiteral("verify-full"));
    QCOMPARE(config->replicaMaxLagS, 12);
    // Not set: the default; not a positive whole number: refused before anything is written.
    SavedProfile dev = shopProd();
    dev.name = QStringLiteral("dev");
    dev.replicaMaxLag.clear();
    QVERIFY2(store.save(dev, &error), qPrintable(error));
    const auto devConfig = WorkspaceConfig::fromIniFile(store.path(QStringLiteral("dev")), &error);
    QVERIFY2(devConfig, qPrintable(error));
    QCOMPARE(devConfig->replicaMaxLagS, 5);
    for (const char *bad : {"0", "-3", "2.5", "five"}) {
        dev.name = QStringLiteral("badlag");
        dev.replicaMaxLag = QString::fromLatin1(bad);
        QVERIFY(!store.save(dev, &error));
        QCOMPARE(error, QStringLiteral("replica_max_lag \"%1\": give a positive whole number of seconds (or leave it empty: 5 s)")
                            .arg(QLatin1String(bad)));
        QVERIFY(!store.exists(QStringLiteral("badlag")));
    }
}

void TstProfileStore::passwordIsRefusedAndNothingWritten()
{
    ProfileStore store;
    SavedProfile p = shopProd();
    p.name = QStringLiteral("leaky");
    p.urls[DbRole::Intent] = QStringLiteral("postgresql://triage:S3cr3t-Pw-4711@127.0.0.1:55432/agents");
    QString error;
    QVERIFY(!store.save(p, &error));
    QCOMPARE(error, QStringLiteral("intent-log database URL: a password in the URL is not accepted; set "
                                   "TRIAGE_INTENT_DB_PASSWORD or TRIAGE_DB_PASSWORD"));
    QVERIFY(!store.exists(QStringLiteral("leaky")));
    QCOMPARE(filesContaining(m_config.path(), "S3cr3t-Pw-4711"), QStringList());
    QCOMPARE(filesContaining(m_config.path(), "S3cr3t"), QStringList());
    // The same for a replica's URL, and a SQLite "replica".
    p = shopProd();
    p.name = QStringLiteral("leaky");
    p.replicaUrls[DbRole::Ticket] = QStringLiteral("mysql://triage:S3cr3t-Pw-4711@127.0.0.1:53307/tickets");
    QVERIFY(!store.save(p, &error));
    QCOMPARE(error, QStringLiteral("ticket replica: ticket database URL: a password in the URL is not accepted; set "
                                   "TRIAGE_TICKET_DB_PASSWORD or TRIAGE_DB_PASSWORD"));
    p.replicaUrls[DbRole::Ticket] = QStringLiteral("sqlite:///tmp/replica.db");
    QVERIFY(!store.save(p, &error));
    QCOMPARE(error, QStringLiteral("ticket replica: SQLite has no replicas; give a PostgreSQL or MariaDB URL"));
    QVERIFY(!store.exists(QStringLiteral("leaky")));
    QCOMPARE(filesContaining(m_config.path(), "S3cr3t"), QStringList());
}

void TstProfileStore::otherKeysAreKept()
{
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(shopProd(), &error), qPrintable(error));
    {
        QFile f(store.path(QStringLiteral("shop-prod")));
        QVERIFY(f.open(QIODevice::Append));
        f.write("\n[biz.refund_issue]\nprocessing_timeout=600\n");
    }
    SavedProfile p = shopProd();
    p.operatorName = QStringLiteral("bob");
    QVERIFY2(store.save(p, &error), qPrintable(error));
    const auto config = WorkspaceConfig::fromIniFile(store.path(QStringLiteral("shop-prod")), &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->operatorName, QStringLiteral("bob"));
    QCOMPARE(config->bizType(QStringLiteral("refund_issue")).processingTimeoutS, 600);
}

void TstProfileStore::badNames()
{
    ProfileStore store;
    QString error;
    SavedProfile p = shopProd();
    for (const QString &bad : {QString(), QStringLiteral(".hidden"), QStringLiteral("a/b"), QStringLiteral("../x"), QStringLiteral("sp ace")}) {
        p.name = bad;
        QVERIFY2(!store.save(p, &error), qPrintable(bad));
    }
    QCOMPARE(error, QStringLiteral("profile name \"sp ace\": use 1-64 letters, digits, '.', '_' or '-' (not starting with '.')"));
    p.name.clear();
    QVERIFY(!store.save(p, &error));
    QCOMPARE(error, QStringLiteral("a profile needs a name"));
}

void TstProfileStore::listDeleteAndRecent()
{
    QTemporaryDir dir;
    ProfileStore store(dir.filePath(QStringLiteral("profiles")));
    QString error;
    for (const char *name : {"staging", "Alpha", "beta", "prod"}) {
        SavedProfile p = shopProd();
        p.name = QString::fromLatin1(name);
        QVERIFY2(store.save(p, &error), qPrintable(error));
    }
    QCOMPARE(store.names(), (QStringList{"Alpha", "beta", "prod", "staging"}));
    QCOMPARE(store.recent(), QStringList());
    store.noteUsed(QStringLiteral("beta"));
    store.noteUsed(QStringLiteral("prod"));
    store.noteUsed(QStringLiteral("staging"));
    store.noteUsed(QStringLiteral("beta"));
    QCOMPARE(store.recent(), (QStringList{"beta", "staging", "prod"}));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("recent.ini"))));
    QVERIFY2(store.remove(QStringLiteral("staging"), &error), qPrintable(error));
    QCOMPARE(store.names(), (QStringList{"Alpha", "beta", "prod"}));
    QCOMPARE(store.recent(), (QStringList{"beta", "prod"}));
    QVERIFY(!store.remove(QStringLiteral("staging"), &error));
    QCOMPARE(error, QStringLiteral("no profile \"staging\" in %1").arg(store.dir()));
    // A file deleted behind the store's back drops out of the recent list too.
    QVERIFY(QFile::remove(store.path(QStringLiteral("prod"))));
    QCOMPARE(store.recent(), (QStringList{"beta"}));
}

void TstProfileStore::unknownProfileMessage()
{
    QTemporaryDir dir;
    ProfileStore store(dir.filePath(QStringLiteral("profiles")));
    QCOMPARE(unknownProfileError(store, QStringLiteral("nope")),
             QStringLiteral("--profile \"nope\": no such profile in %1; no profile is saved yet (File → Connect… saves them)").arg(store.dir()));
    QString error;
    SavedProfile p = shopProd();
    QVERIFY2(store.save(p, &error), qPrintable(error));
    p.name = QStringLiteral("dev");
    QVERIFY2(store.save(p, &error), qPrintable(error));
    QCOMPARE(unknownProfileError(store, QStringLiteral("shop-prd")),
             QStringLiteral("--profile \"shop-prd\": no such profile in %1; known profiles: dev, shop-prod").arg(store.dir()));
}

void TstProfileStore::urlFields()
{
    const QString pg = QStringLiteral("postgresql://triage@127.0.0.1:55432/orders?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem"
                                      "&statement_timeout=30s&connect_timeout=5");
    const StoreUrlFields f = splitStoreUrl(pg);
    QCOMPARE(f.url, QStringLiteral("postgresql://triage@127.0.0.1:55432/orders?connect_timeout=5"));
    QCOMPARE(f.tlsMode, QStringLiteral("verify-full"));
    QCOMPARE(f.caFile, QStringLiteral("/etc/ssl/ca.pem"));
    QCOMPARE(f.statementTimeout, QStringLiteral("30s"));
    QCOMPARE(joinStoreUrl(f), QStringLiteral("postgresql://triage@127.0.0.1:55432/orders?connect_timeout=5&sslmode=verify-full"
                                             "&sslrootcert=/etc/ssl/ca.pem&statement_timeout=30s"));
    QVERIFY(splitStoreUrl(joinStoreUrl(f)) == f);
    const StoreUrlFields my = splitStoreUrl(QStringLiteral("mysql://ro@127.0.0.1:53306/tickets?ssl_ca=/etc/ca.pem&sslmode=x"));
    QCOMPARE(my.url, QStringLiteral("mysql://ro@127.0.0.1:53306/tickets?sslmode=x")); // sslmode is PostgreSQL's only
    QCOMPARE(my.caFile, QStringLiteral("/etc/ca.pem"));
    QCOMPARE(joinStoreUrl({QStringLiteral("mysql://ro@127.0.0.1:53306/t"), QStringLiteral("require"), QString(), QStringLiteral("5000")}),
             QStringLiteral("mysql://ro@127.0.0.1:53306/t?statement_timeout=5000"));
    QCOMPARE(joinStoreUrl({QStringLiteral("sqlite:///tmp/a.db"), {}, {}, {}}), QStringLiteral("sqlite:///tmp/a.db"));
    QCOMPARE(splitStoreUrl(QStringLiteral("not a url")).url, QStringLiteral("not a url"));
    // A password in a URL (a hand-written profile) is never shown.
    QCOMPARE(splitStoreUrl(QStringLiteral("postgresql://triage:secretpw99@127.0.0.1:55432/t")).url,
             QStringLiteral("postgresql://triage:*****@127.0.0.1:55432/t"));
    QCOMPARE(splitStoreUrl(QStringLiteral("mysql://triage:secretpw99@127.0.0.1:53306/t?statement_timeout=5s")).url,
             QStringLiteral("mysql://triage:*****@127.0.0.1:53306/t"));
    QCOMPARE(joinStoreUrl({}), QString());
    QVERIFY(storeUrlTakesTlsMode(QStringLiteral("postgresql://u@127.0.0.1/d")));
    QVERIFY(storeUrlTakesTlsMode(QStringLiteral("postgres://u@127.0.0.1/d")));
    QVERIFY(!storeUrlTakesTlsMode(QStringLiteral("mysql://u@127.0.0.1/d")));
    QVERIFY(!storeUrlTakesTlsMode(QStringLiteral("sqlite:///tmp/a.db")));
}

QTEST_GUILESS_MAIN(TstProfileStore)
#include "tst_profile_store.moc"
