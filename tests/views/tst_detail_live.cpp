// The live key detail (DESIGN.md §9 "Live key detail") on every backend: with a live interval
// the shown key is re-read in the background; a change committed by another connection (the
// record settled, a ticket that appears, an operator's audit row, a claim) is shown and named in
// the live bar; a store that fails the re-read keeps what is shown and says "stale since", and
// the next good re-read clears it.
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"
#include "SimTestUtil.h"

#include "Claim.h"
#include "DetailHeader.h"
#include "KeyDetailView.h"
#include "MessageBar.h"
#include "ShotCheck.h"
#include "Workspace.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestDetailLive : public QObject {
    Q_OBJECT
private slots:
    void liveChanges_data();
    void liveChanges();
};

void TestDetailLive::liveChanges_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestDetailLive::liveChanges()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    const QString key = QStringLiteral("ticket:create:acme:live-1");
    TRIAGE_OK(insertRecord(db, key, 0, 3600));
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    Workspace ws(config);

    KeyDetailView view(&ws);
    view.resize(1000, 700);
    view.show();
    view.loadKey(key);
    QTRY_VERIFY_WITH_TIMEOUT(view.hasDetail(), 30000);
    QCOMPARE(view.detail().record->statusText, QStringLiteral("PROCESSING"));
    MessageBar *bar = view.header()->liveBar();
    QSignalSpy live(&view, &KeyDetailView::liveChecked);
    view.setLiveInterval(100);
    // The first re-read that reports something after live.clear() (called before the change):
    // its changes, or "stale".
    auto reported = [&]() -> QStringList {
        auto first = [&]() -> std::optional<QStringList> {
            for (const QList<QVariant> &e : std::as_const(live)) {
                if (e.at(1).toBool())
                    return QStringList{QStringLiteral("stale")};
                if (!e.at(0).toStringList().isEmpty())
                    return e.at(0).toStringList();
            }
            return std::nullopt;
        };
        if (!QTest::qWaitFor([&] { return first().has_value(); }, 30000))
            return {QStringLiteral("timed out")};
        return *first();
    };
    QVERIFY(live.wait(30000));
    QCOMPARE(live.first().at(0).toStringList(), QStringList());
    QVERIFY(bar->isHidden());

    // Another connection settles the record.
    live.clear();
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE idempotency_record SET status = 1, result_snapshot = '{\"ticket_id\":7}', updated_at = %1 "
                                    "WHERE idem_key = '%2'")
                         .arg(serverNowMinus(db.backend(), 0), key));
    QCOMPARE(reported(), (QStringList{QStringLiteral("status PROCESSING \u2192 SUCCESS"), QStringLiteral("result_snapshot changed")}));
    QCOMPARE(view.detail().record->statusText, QStringLiteral("SUCCESS"));
    static const QRegularExpression updated(QStringLiteral("^Updated live at \\d\\d:\\d\\d:\\d\\d UTC: (.*)$"));
    QRegularExpressionMatch m = updated.match(bar->text());
    QVERIFY2(m.hasMatch(), qPrintable(bar->text()));
    QCOMPARE(m.captured(1), QStringLiteral("status PROCESSING \u2192 SUCCESS; result_snapshot changed."));
    QCOMPARE(bar->level(), MessageBar::Level::Info);
    TRIAGE_VERIFY_SHOT(saveCheckedShot(&view, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/detail-live-%1.png").arg(backend)));

    // A ticket appears; an operator claims the key.
    live.clear();
    TRIAGE_OK(insertTicket(db, 7, key, QStringLiteral("{\"ticket_id\":7}")));
    QCOMPARE(reported(), QStringList{QStringLiteral("ticket 7 appeared (OPEN)")});
    live.clear();
    QVERIFY(ws.worker(DbRole::Idempotency)
                .run<Done>([key](DbSession &s) {
                    claim_sql::acquire(s, ClaimScope::Key, key, QStringLiteral("bob"), 600, QStringLiteral(""));
                    return Done{};
                })
                .result()
                .ok());
    QCOMPARE(reported(), (QStringList{QStringLiteral("claim.take applied by bob"), QStringLiteral("claimed by bob")}));
    QCOMPARE(view.claim()->holder, QStringLiteral("bob"));

    // The ticket store fails the re-read: what was shown stays, the bar says since when.
    live.clear();
    TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE ticket RENAME TO ticket_gone"));
    QCOMPARE(reported(), QStringList{QStringLiteral("stale")});
    QVERIFY2(bar->text().startsWith(QStringLiteral("Live updates stale since ")), qPrintable(bar->text()));
    QVERIFY2(bar->text().endsWith(QStringLiteral("what is shown may be out of date; this clears at the next good re-read.")),
             qPrintable(bar->text()));
    QCOMPARE(bar->level(), MessageBar::Level::Warning);
    TRIAGE_VERIFY_SHOT(saveCheckedShot(&view, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/detail-live-stale-%1.png").arg(backend)));
    QCOMPARE(view.detail().tickets.size(), 1);
    TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE ticket_gone RENAME TO ticket"));
    QTRY_VERIFY_WITH_TIMEOUT(bar->isHidden(), 30000);
    QCOMPARE(view.detail().tickets.size(), 1);

    // Off: no more re-reads.
    view.setLiveInterval(0);
    live.clear();
    QTest::qWait(400);
    QVERIFY(live.size() <= 1); // one already under way may still finish
}

QTEST_MAIN(TestDetailLive)
#include "tst_detail_live.moc"
