// The console's start page (DESIGN.md §5 "Start page"), offscreen: the saved profiles listed
// recent first then by name, each with its environment and servers and never a password; Open,
// a double-click, the demo and Connect… as choices; nothing listed when there is no profile (the
// console then opens the demo, as the quick start says). Saves start-page.png.
#include "WidgetTestUtil.h"
#include "ProfileTestUtil.h"
#include "StartPage.h"

#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TstStartPage : public QObject {
    Q_OBJECT
private slots:
    void listsRecentFirst();
    void choices();
    void noProfiles();
};

namespace {

/// A store under `dir` with three profiles; "shop-staging" used last, then "shop-prod". The
/// profiles go in `dir`/profiles: the recent list sits beside that directory, so inside `dir`.
ProfileStore threeProfiles(const QString &dir)
{
    ProfileStore store(dir + QStringLiteral("/profiles"));
    QString error;
    for (const auto &[name, env, url] : {std::tuple{QStringLiteral("shop-prod"), Environment::Production,
                                                    QStringLiteral("postgresql://triage@db.example.internal:5432/orders")},
                                         std::tuple{QStringLiteral("shop-staging"), Environment::Staging,
                                                    QStringLiteral("mysql://triage@127.0.0.1:53306/orders")},
                                         std::tuple{QStringLiteral("archive"), Environment::None, QStringLiteral("sqlite:///srv/archive.db")}}) {
        if (!store.save(sameUrlProfile(name, env, url), &error))
            qFatal("%s", qPrintable(error));
    }
    store.noteUsed(QStringLiteral("shop-prod"));
    store.noteUsed(QStringLiteral("shop-staging"));
    return store;
}

} // namespace

void TstStartPage::listsRecentFirst()
{
    QTemporaryDir dir;
    const ProfileStore store = threeProfiles(dir.path());
    QVERIFY(StartPage::hasProfiles(store));
    StartPage page(nullptr, store);
    QCOMPARE(page.listed(), (QStringList{QStringLiteral("shop-staging"), QStringLiteral("shop-prod"), QStringLiteral("archive")}));
    QCOMPARE(page.lineOf(QStringLiteral("shop-prod")), QStringLiteral("shop-prod — production · db.example.internal:5432/orders  (recent)"));
    QCOMPARE(page.lineOf(QStringLiteral("shop-staging")), QStringLiteral("shop-staging — staging · 127.0.0.1:53306/orders  (recent)"));
    QCOMPARE(page.lineOf(QStringLiteral("archive")), QStringLiteral("archive · /srv/archive.db"));
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(page.grab().save(QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/start-page.png")));
}

void TstStartPage::choices()
{
    QTemporaryDir dir;
    const ProfileStore store = threeProfiles(dir.path());
    {
        StartPage page(nullptr, store); // Open: the first (most recent) is selected
        buttonWithText(page, QStringLiteral("Open"))->click();
        QCOMPARE(page.choice(), StartPage::Choice::Profile);
        QCOMPARE(page.profile(), QStringLiteral("shop-staging"));
        QCOMPARE(page.result(), int(QDialog::Accepted));
    }
    {
        StartPage page(nullptr, store); // a double-click (activation) on another row
        auto *list = page.findChild<QListWidget *>(QStringLiteral("startProfiles"));
        QVERIFY(list);
        emit list->itemActivated(list->item(2));
        QCOMPARE(page.choice(), StartPage::Choice::Profile);
        QCOMPARE(page.profile(), QStringLiteral("archive"));
        QVERIFY(!page.open(QStringLiteral("no-such-profile")));
    }
    for (const auto &[label, choice, result] : {std::tuple{QStringLiteral("Open the demo"), StartPage::Choice::Demo, int(QDialog::Accepted)},
                                                std::tuple{QStringLiteral("Connect\u2026"), StartPage::Choice::Connect, int(QDialog::Accepted)},
                                                std::tuple{QStringLiteral("Quit"), StartPage::Choice::None, int(QDialog::Rejected)}}) {
        StartPage page(nullptr, store);
        buttonWithText(page, label)->click();
        QCOMPARE(page.choice(), choice);
        QCOMPARE(page.result(), result);
        QCOMPARE(page.profile(), QString());
    }
}

void TstStartPage::noProfiles()
{
    QTemporaryDir dir;
    const ProfileStore empty(dir.path() + QStringLiteral("/profiles"));
    QVERIFY(!StartPage::hasProfiles(empty));
    StartPage page(nullptr, empty);
    QCOMPARE(page.listed(), QStringList());
    QVERIFY(!buttonWithText(page, QStringLiteral("Open"))->isEnabled());
}

QTEST_MAIN(TstStartPage)
#include "tst_start_page.moc"
