// File → Connect… (DESIGN.md §5 "Connection profiles"), offscreen: the list (recent first),
// editing and saving a profile, Test on a real SQLite store and on PostgreSQL with a wrong
// typed password, Connect starting `--profile NAME` with the typed password only in the
// child's environment, and no trace of it under the config and data directories; the File
// menu of the main window. Saves connect-dialog.png. The config, data and log directories are
// grepped for every typed password.
#include "AppSetup.h"
#include "BackendTestUtil.h"
#include "ConnectDialog.h"
#include "ConnectMenu.h"
#include "ProfileTestUtil.h"
#include "TestDatabases.h"
#include "Workspace.h"

#include <QComboBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <spdlog/spdlog.h>

using namespace triage;
using namespace triage::test;

namespace {

SavedProfile profile(const QString &name, const QString &url)
{
    return sameUrlProfile(name, Environment::Staging, url);
}

} // namespace

class TstConnectDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void listEditSave();
    void testAStore();
    void tlsModeRoundTrip();
    void connectPassesThePasswordOnlyInTheEnvironment();
    void passwordHintsFollowTheShownProfile();
    void fileMenuListsRecentProfiles();

private:
    QTemporaryDir m_home;
};

void TstConnectDialog::initTestCase()
{
    QVERIFY(m_home.isValid());
    qputenv("XDG_CONFIG_HOME", (m_home.path() + QStringLiteral("/config")).toUtf8());
    qputenv("XDG_DATA_HOME", (m_home.path() + QStringLiteral("/share")).toUtf8());
    // The console's log (debug and up) under the data directory: grepped for typed passwords too.
    app::setupLogging(QStringLiteral("tst_connect_dialog"), true);
}

void TstConnectDialog::listEditSave()
{
    ProfileStore store;
    QString error;
    for (const char *n : {"alpha", "beta", "gamma"})
        QVERIFY2(store.save(profile(QString::fromLatin1(n), QStringLiteral("sqlite:///tmp/%1.db").arg(QLatin1String(n))), &error), qPrintable(error));
    store.noteUsed(QStringLiteral("gamma"));
    ConnectDialog dialog;
    QStringList shown;
    for (int i = 0; i < dialog.profileList()->count(); ++i)
        shown << dialog.profileList()->item(i)->text();
    QCOMPARE(shown, (QStringList{"gamma", "alpha", "beta"}));
    QCOMPARE(dialog.nameEdit()->text(), QStringLiteral("gamma")); // the most recent is shown first

    QVERIFY(dialog.selectProfile(QStringLiteral("alpha")));
    dialog.urlEdit(DbRole::Ticket)->setText(QStringLiteral("postgresql://ro@127.0.0.1:55432/tickets?connect_timeout=3"));
    dialog.findChildren<QComboBox *>().at(1)->setCurrentText(QStringLiteral("verify-full")); // the first store box's is index 1
    QVERIFY(dialog.save());
    const auto back = store.load(QStringLiteral("alpha"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->urls.value(DbRole::Ticket), QStringLiteral("postgresql://ro@127.0.0.1:55432/tickets?connect_timeout=3"));
    QCOMPARE(back->urls.value(DbRole::Idempotency), QStringLiteral("sqlite:///tmp/alpha.db"));
    QCOMPARE(dialog.statusText(), QStringLiteral("Saved %1").arg(store.path(QStringLiteral("alpha"))));

    // A password in a URL is refused; nothing is written.
    dialog.urlEdit(DbRole::Intent)->setText(QStringLiteral("postgresql://u:Hush-Hush-99@127.0.0.1:55432/x"));
    QVERIFY(!dialog.save());
    QCOMPARE(dialog.statusText(), QStringLiteral("Not saved: intent-log database URL: a password in the URL is not accepted; set "
                                                 "TRIAGE_INTENT_DB_PASSWORD or TRIAGE_DB_PASSWORD"));
    QCOMPARE(filesContaining(m_home.path(), "Hush-Hush-99"), QStringList());

    dialog.deleteProfile(false);
    QVERIFY(!store.exists(QStringLiteral("alpha")));
    QCOMPARE(dialog.profileList()->count(), 2);
    QVERIFY(store.remove(QStringLiteral("beta"), &error));
    QVERIFY(store.remove(QStringLiteral("gamma"), &error));
}

void TstConnectDialog::testAStore()
{
    TestDatabase sqlite(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(sqlite);
    {
        Workspace ws(sqlite.config());
        QCOMPARE(setUpSchema(ws), QString());
    }
    TestDatabase pg(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(pg);
    ConnectDialog dialog;
    dialog.newProfile();
    dialog.nameEdit()->setText(QStringLiteral("mixed"));
    dialog.urlEdit(DbRole::Idempotency)->setText(sqlite.url());
    dialog.urlEdit(DbRole::Intent)->setText(pg.url());
    dialog.passwordEdit(DbRole::Intent)->setText(QStringLiteral("Wrong-Typed-Pw-1"));
    QSignalSpy finished(&dialog, &ConnectDialog::testFinished);
    dialog.testButton(DbRole::Idempotency)->click();
    QVERIFY(finished.wait(60000));
    QCOMPARE(dialog.testResult(DbRole::Idempotency),
             QStringLiteral("✔ opened %1; table idempotency_record readable").arg(profileOf(sqlite).database));
    dialog.testButton(DbRole::Intent)->click();
    QVERIFY(finished.wait(60000));
    const QString r = dialog.testResult(DbRole::Intent);
    QVERIFY2(r.startsWith(QStringLiteral("✘ cannot connect to the intent-log database (%1): ").arg(pg.url())), qPrintable(r));
    QVERIFY2(r.contains(QLatin1String("password authentication failed for user \"triage\"")), qPrintable(r));
    dialog.testButton(DbRole::Ticket)->click(); // no URL: said at once
    QCOMPARE(dialog.testResult(DbRole::Ticket), QStringLiteral("no URL given"));
    dialog.resize(1000, 860);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/connect-dialog.png")));
    spdlog::default_logger()->flush();
    QVERIFY(QFile::exists(m_home.path() + QStringLiteral("/share/triage-console/logs/tst_connect_dialog.log")));
    QCOMPARE(filesContaining(m_home.path(), "Wrong-Typed-Pw-1"), QStringList()); // config, data and log directories
}

void TstConnectDialog::tlsModeRoundTrip()
{
    // The TLS box says what an unset sslmode means, writes nothing for it, and keeps a mode it
    // does not list.
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(profile(QStringLiteral("tls"), QStringLiteral("postgresql://ro@127.0.0.1:55432/t?sslmode=require")), &error),
             qPrintable(error));
    ConnectDialog dialog;
    QVERIFY(dialog.selectProfile(QStringLiteral("tls")));
    QComboBox *tls = dialog.tlsModeBox(DbRole::Ticket);
    QCOMPARE(tls->currentText(), QStringLiteral("require"));
    QCOMPARE(dialog.urlEdit(DbRole::Ticket)->text(), QStringLiteral("postgresql://ro@127.0.0.1:55432/t"));
    tls->setCurrentIndex(0);
    QCOMPARE(tls->currentText(), QStringLiteral("sslmode not set (libpq default: prefer)"));
    QVERIFY(dialog.save());
    auto back = store.load(QStringLiteral("tls"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->urls.value(DbRole::Ticket), QStringLiteral("postgresql://ro@127.0.0.1:55432/t"));
    QCOMPARE(back->urls.value(DbRole::Intent), QStringLiteral("postgresql://ro@127.0.0.1:55432/t?sslmode=require"));

    QVERIFY2(store.save(profile(QStringLiteral("tls"), QStringLiteral("postgresql://ro@127.0.0.1:55432/t?sslmode=allow")), &error),
             qPrintable(error));
    QVERIFY(dialog.selectProfile(QStringLiteral("tls")));
    QCOMPARE(tls->currentText(), QStringLiteral("allow"));
    QVERIFY(dialog.save());
    back = store.load(QStringLiteral("tls"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->urls.value(DbRole::Ticket), QStringLiteral("postgresql://ro@127.0.0.1:55432/t?sslmode=allow"));

    // The profile's replica lag limit ([console] replica_max_lag): saved, refused when not a
    // positive number of seconds, shown again.
    dialog.replicaMaxLagEdit()->setText(QStringLiteral("soon"));
    QVERIFY(!dialog.save());
    QCOMPARE(dialog.statusText(),
             QStringLiteral("Not saved: replica_max_lag \"soon\": give a positive whole number of seconds (or leave it empty: 5 s)"));
    dialog.replicaMaxLagEdit()->setText(QStringLiteral("20"));
    QVERIFY(dialog.save());
    back = store.load(QStringLiteral("tls"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->replicaMaxLag, QStringLiteral("20"));
    dialog.newProfile();
    QCOMPARE(dialog.replicaMaxLagEdit()->text(), QString());
    QVERIFY(dialog.selectProfile(QStringLiteral("tls")));
    QCOMPARE(dialog.replicaMaxLagEdit()->text(), QStringLiteral("20"));
    QVERIFY(store.remove(QStringLiteral("tls"), &error));
}

void TstConnectDialog::connectPassesThePasswordOnlyInTheEnvironment()
{
    ConnectDialog dialog;
    dialog.newProfile();
    dialog.nameEdit()->setText(QStringLiteral("shop-prod"));
    dialog.urlEdit(DbRole::Idempotency)->setText(QStringLiteral("postgresql://triage@127.0.0.1:55432/orders"));
    dialog.urlEdit(DbRole::Intent)->setText(QStringLiteral("sqlite:///tmp/intents.db"));
    dialog.urlEdit(DbRole::Ticket)->setText(QStringLiteral("sqlite:///tmp/tickets.db"));
    qunsetenv("TRIAGE_DB_PASSWORD");
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    qputenv("PGPASSFILE", "/nonexistent/pgpass");
    QStringList args;
    QProcessEnvironment env;
    int launches = 0;
    dialog.setLauncher([&](const QString &, const QStringList &a, const QProcessEnvironment &e) {
        args = a, env = e, ++launches;
        return true;
    });
    // No password source for the idempotency store: the first Connect asks.
    dialog.connectProfile();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.statusText().startsWith(QLatin1String("Saved")), 30000);
    QCOMPARE(dialog.statusText(), QStringLiteral("No password source for the idempotency database: type the password (kept in "
                                                 "memory only) and press Connect again, or press Connect again to go on without one."));
    QCOMPARE(launches, 0);
    dialog.passwordEdit(DbRole::Idempotency)->setText(QStringLiteral("Typed-Secret-4242"));
    QSignalSpy launched(&dialog, &ConnectDialog::launched);
    dialog.connectProfile();
    QVERIFY(launched.wait(30000));
    QCOMPARE(launches, 1);
    QCOMPARE(args, (QStringList{QStringLiteral("--profile"), QStringLiteral("shop-prod")}));
    QCOMPARE(env.value(QStringLiteral("TRIAGE_IDEMPOTENCY_DB_PASSWORD")), QStringLiteral("Typed-Secret-4242"));
    QVERIFY(!env.contains(QStringLiteral("TRIAGE_INTENT_DB_PASSWORD")));
    QCOMPARE(dialog.passwordEdit(DbRole::Idempotency)->text(), QString()); // forgotten once handed over
    spdlog::default_logger()->flush();
    QCOMPARE(filesContaining(m_home.path(), "Typed-Secret-4242"), QStringList());
    const QLabel *note = dialog.findChild<QLabel *>(QStringLiteral("memoryOnlyNote"));
    QVERIFY(note && note->text().contains(QLatin1String("kept in memory only")));
}

void TstConnectDialog::passwordHintsFollowTheShownProfile()
{
    // The dialog opens on the first profile (SQLite: nothing needed), then shows a PostgreSQL
    // one at once: the first answer must not overwrite the second's hints.
    qunsetenv("TRIAGE_DB_PASSWORD");
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    qunsetenv("TRIAGE_INTENT_DB_PASSWORD");
    qputenv("TRIAGE_TICKET_DB_PASSWORD", "from-the-environment");
    qputenv("PGPASSFILE", "/nonexistent/pgpass");
    ProfileStore store;
    QString error;
    QVERIFY2(store.save(profile(QStringLiteral("a-sqlite"), QStringLiteral("sqlite:///tmp/a.db")), &error), qPrintable(error));
    QVERIFY2(store.save(profile(QStringLiteral("pg"), QStringLiteral("postgresql://triage@127.0.0.1:55432/x")), &error), qPrintable(error));
    ConnectDialog dialog;
    QCOMPARE(dialog.nameEdit()->text(), QStringLiteral("a-sqlite"));
    QVERIFY(dialog.selectProfile(QStringLiteral("pg")));
    QTRY_COMPARE_WITH_TIMEOUT(dialog.passwordEdit(DbRole::Idempotency)->placeholderText(), QStringLiteral("needed: nothing else supplies it"), 30000);
    QTest::qWait(300);
    QCOMPARE(dialog.passwordEdit(DbRole::Idempotency)->placeholderText(), QStringLiteral("needed: nothing else supplies it"));
    QCOMPARE(dialog.passwordEdit(DbRole::Intent)->placeholderText(), QStringLiteral("needed: nothing else supplies it"));
    QCOMPARE(dialog.passwordEdit(DbRole::Ticket)->placeholderText(), QStringLiteral("not needed: another source supplies it"));
    QVERIFY(dialog.selectProfile(QStringLiteral("a-sqlite")));
    QTRY_COMPARE_WITH_TIMEOUT(dialog.passwordEdit(DbRole::Ticket)->placeholderText(), QStringLiteral("none: an SQLite file has no login"), 30000);
    QVERIFY(!dialog.passwordEdit(DbRole::Ticket)->isEnabled());
    qunsetenv("TRIAGE_TICKET_DB_PASSWORD");
    QVERIFY(store.remove(QStringLiteral("a-sqlite"), &error));
    QVERIFY(store.remove(QStringLiteral("pg"), &error));
}

void TstConnectDialog::fileMenuListsRecentProfiles()
{
    ProfileStore store;
    QString error;
    for (const char *n : {"one", "two", "three"})
        QVERIFY2(store.save(profile(QString::fromLatin1(n), QStringLiteral("sqlite:///tmp/%1.db").arg(QLatin1String(n))), &error), qPrintable(error));
    store.noteUsed(QStringLiteral("one"));
    store.noteUsed(QStringLiteral("three"));
    QMainWindow window;
    auto *band = new QLabel(QStringLiteral("band"));
    window.setMenuWidget(withFileMenu(&window, band));
    QCOMPARE(band->parentWidget(), window.menuWidget());
    QMenu *recent = window.findChild<QMenu *>(QStringLiteral("recentProfilesMenu"));
    QVERIFY(recent);
    QVERIFY(window.findChild<QAction *>(QStringLiteral("connectAction")));
    emit recent->aboutToShow();
    QStringList titles;
    for (QAction *a : recent->actions())
        titles << a->text();
    QCOMPARE(titles, (QStringList{"three", "one"}));
    recent->actions().constFirst()->trigger();
    auto *dialog = window.findChild<ConnectDialog *>();
    QVERIFY(dialog);
    QCOMPARE(dialog->nameEdit()->text(), QStringLiteral("three"));
    dialog->close();
    for (const char *n : {"one", "two", "three"})
        QVERIFY(store.remove(QString::fromLatin1(n), &error));
    emit recent->aboutToShow();
    QCOMPARE(recent->actions().size(), 1);
    QCOMPARE(recent->actions().constFirst()->text(), QStringLiteral("(none yet)"));
    QVERIFY(!recent->actions().constFirst()->isEnabled());
}

QTEST_MAIN(TstConnectDialog)
#include "tst_connect_dialog.moc"
