// Passwords in the system keychain (DESIGN.md §5 "Connection profiles"), against a real secret
// service: gnome-keyring in a private D-Bus session (ctest runs this under
// tests/support/with-keyring.sh). storeKeychainPassword() writes what lookupPassword() reads;
// the Connect dialog's "remember" box stores each typed password before it launches the new
// console; no typed password is found in plain text under the test's home (config, data,
// keyring and log directories); without a session bus the box is off and says why.
#include "AppSetup.h"
#include "BackendTestUtil.h"
#include "ConnectDialog.h"
#include "ConnectionProfile.h"
#include "Keychain.h"
#include "ProfileTestUtil.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include <spdlog/spdlog.h>

using namespace triage;
using namespace triage::test;

namespace {

ConnectionProfile profileOf(const QString &url, DbRole role)
{
    QString why;
    const auto p = ConnectionProfile::fromUrl(url, role, &why);
    return p.value_or(ConnectionProfile{});
}

} // namespace

class TstKeychain : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void storeThenLookup();
    void dialogRemembersTypedPasswords();
    void noSessionBusSaysSo();
};

void TstKeychain::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"), "run under tests/support/with-keyring.sh (ctest does)");
    app::setupLogging(QStringLiteral("tst_keychain"), true); // the log is grepped for secrets too
    qunsetenv("TRIAGE_DB_PASSWORD");
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    qunsetenv("TRIAGE_INTENT_DB_PASSWORD");
}

void TstKeychain::storeThenLookup()
{
    const ConnectionProfile p = profileOf(QStringLiteral("postgresql://triage@127.0.0.1:55432/orders"), DbRole::Idempotency);
    QCOMPARE(keychainKey(p), QStringLiteral("idempotency:triage@127.0.0.1:55432/orders"));
    QCOMPARE(keychainUnavailableReason(), QString());
    QCOMPARE(lookupPasswordWithSource(p).source, QStringLiteral("no password variable (libpq's ~/.pgpass or the server's defaults)"));
    QFuture<QString> stored = storeKeychainPassword(p, QStringLiteral("Kc-Secret-\u00e9\u00e8-1"));
    QTRY_VERIFY_WITH_TIMEOUT(stored.isFinished(), 30000);
    QCOMPARE(stored.result(), QString());
    PasswordLookup found = lookupPasswordWithSource(p);
    QCOMPARE(found.secret, QStringLiteral("Kc-Secret-\u00e9\u00e8-1"));
    QCOMPARE(found.source, QStringLiteral("the system keychain"));
    // Stored again: replaced. Another port or role: another entry (none).
    stored = storeKeychainPassword(p, QStringLiteral("Kc-Secret-2"));
    QTRY_VERIFY_WITH_TIMEOUT(stored.isFinished(), 30000);
    QCOMPARE(stored.result(), QString());
    QCOMPARE(lookupPassword(p), QStringLiteral("Kc-Secret-2"));
    QCOMPARE(lookupPassword(profileOf(QStringLiteral("postgresql://triage@127.0.0.1:55433/orders"), DbRole::Idempotency)), QString());
    QCOMPARE(lookupPassword(profileOf(QStringLiteral("postgresql://triage@127.0.0.1:55432/orders"), DbRole::Intent)), QString());
    // The environment still comes first.
    qputenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD", "from-env");
    QCOMPARE(lookupPasswordWithSource(p).source, QStringLiteral("$TRIAGE_IDEMPOTENCY_DB_PASSWORD"));
    qunsetenv("TRIAGE_IDEMPOTENCY_DB_PASSWORD");
    // What cannot be stored says so at once.
    stored = storeKeychainPassword(profileOf(QStringLiteral("sqlite:///tmp/x.db"), DbRole::Ticket), QStringLiteral("x"));
    QCOMPARE(stored.result(), QStringLiteral("a SQLite store has no password"));
}

void TstKeychain::dialogRemembersTypedPasswords()
{
    ConnectDialog dialog;
    dialog.newProfile();
    dialog.nameEdit()->setText(QStringLiteral("keychain-staging"));
    dialog.urlEdit(DbRole::Idempotency)->setText(QStringLiteral("postgresql://triage@127.0.0.1:55432/shop"));
    dialog.urlEdit(DbRole::Intent)->setText(QStringLiteral("mysql://agent@127.0.0.1:53306/intents"));
    dialog.urlEdit(DbRole::Ticket)->setText(QStringLiteral("sqlite:///tmp/tickets.db"));
    dialog.passwordEdit(DbRole::Idempotency)->setText(QStringLiteral("Typed-Keychain-7001"));
    dialog.passwordEdit(DbRole::Intent)->setText(QStringLiteral("Typed-Keychain-7002"));
    QVERIFY(dialog.rememberBox()->isEnabled());
    QVERIFY(!dialog.rememberBox()->isChecked()); // off unless asked
    dialog.rememberBox()->setChecked(true);
    dialog.resize(1000, 860);
    QVERIFY(dialog.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/connect-dialog-keychain.png")));
    QProcessEnvironment env;
    dialog.setLauncher([&](const QString &, const QStringList &, const QProcessEnvironment &e) {
        env = e;
        return true;
    });
    QSignalSpy stored(&dialog, &ConnectDialog::keychainStored);
    QSignalSpy launched(&dialog, &ConnectDialog::launched);
    dialog.connectProfile();
    QVERIFY(launched.wait(30000));
    QCOMPARE(stored.size(), 1);
    QStringList stores = stored.first().at(0).toStringList();
    stores.sort();
    QCOMPARE(stores, (QStringList{roleTitle(DbRole::Idempotency), roleTitle(DbRole::Intent)}));
    QCOMPARE(env.value(QStringLiteral("TRIAGE_IDEMPOTENCY_DB_PASSWORD")), QStringLiteral("Typed-Keychain-7001")); // this session too
    // A later session finds them in the keychain, with nothing typed.
    QCOMPARE(lookupPasswordWithSource(profileOf(QStringLiteral("postgresql://triage@127.0.0.1:55432/shop"), DbRole::Idempotency)).secret,
             QStringLiteral("Typed-Keychain-7001"));
    QCOMPARE(lookupPasswordWithSource(profileOf(QStringLiteral("mysql://agent@127.0.0.1:53306/intents"), DbRole::Intent)).secret,
             QStringLiteral("Typed-Keychain-7002"));
    // Nowhere in plain text: the profile INI, the log, the keyring file (encrypted by the keychain).
    spdlog::default_logger()->flush();
    const QString home = qEnvironmentVariable("HOME");
    QVERIFY(!home.isEmpty());
    QCOMPARE(filesContaining(home, "Typed-Keychain-700"), QStringList());
    QCOMPARE(filesContaining(qEnvironmentVariable("XDG_DATA_HOME"), "Typed-Keychain-700"), QStringList());
    QCOMPARE(filesContaining(qEnvironmentVariable("XDG_CONFIG_HOME"), "Typed-Keychain-700"), QStringList());
    QVERIFY(!filesContaining(qEnvironmentVariable("XDG_DATA_HOME") + QStringLiteral("/keyrings"), "keychain").isEmpty()
            || QDir(qEnvironmentVariable("XDG_DATA_HOME") + QStringLiteral("/keyrings")).exists());
}

void TstKeychain::noSessionBusSaysSo()
{
    const QByteArray bus = qgetenv("DBUS_SESSION_BUS_ADDRESS");
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    QCOMPARE(keychainUnavailableReason(), QStringLiteral("no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set)"));
    const QFuture<QString> stored =
        storeKeychainPassword(profileOf(QStringLiteral("postgresql://triage@127.0.0.1:55432/shop"), DbRole::Idempotency), QStringLiteral("x"));
    QCOMPARE(stored.result(), QStringLiteral("no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set)"));
    {
        ConnectDialog dialog;
        QVERIFY(!dialog.rememberBox()->isEnabled());
        QCOMPARE(dialog.rememberBox()->text(), QStringLiteral("No system keychain here (no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is "
                                                              "not set)): typed passwords are kept in memory only"));
    }
    qputenv("DBUS_SESSION_BUS_ADDRESS", bus);
}

QTEST_MAIN(TstKeychain)
#include "tst_keychain.moc"
