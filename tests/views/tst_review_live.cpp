// The live Review tab (DESIGN.md §9 "Live review") on every backend: with a live interval the
// tab polls a change mark and folds a re-read in without a reset. Another operator's work shows
// without Load: a resolved escalation stays greyed with who resolved it, a claim appears in
// place, a new escalation is inserted highlighted; the selection stays; a failing read says
// "stale since", the next good one clears it; another operator's sign-off re-reads the view.
#include "WidgetTestUtil.h"
#include "BackendTestUtil.h"
#include "EscalationTestUtil.h"
#include "ModelRoles.h"
#include "ShotCheck.h"

#include "Claim.h"
#include "Escalation.h"
#include "EscalationService.h"
#include "Review.h"
#include "ReviewExport.h"
#include "ReviewModel.h"
#include "ReviewPane.h"
#include "Workspace.h"

#include <QCheckBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// A POLICY escalation of 12.50 EUR on `key`, raised as a reconcile run does.
Outcome<EscalationRaiseResult> raisePolicy(Workspace &ws, const QString &key)
{
    EscalationRaise r = escalationOf(key, EscalationReason::Policy);
    r.amount = QStringLiteral("12.50");
    r.currency = QStringLiteral("EUR");
    return raiseNow(ws, r);
}

} // namespace

class TestReviewLive : public QObject {
    Q_OBJECT
private slots:
    void diff();
    void liveReview_data();
    void liveReview();
};

void TestReviewLive::diff()
{
    // diffReviewItems() on items in order: updated in place, left only where the fresh list
    // reaches, entered where they sort (later ones left to paging unless the fresh list is whole).
    const auto item = [](qint64 id, const QString &first, int notes = 0) {
        ReviewItem i;
        i.row.escalation.id = id;
        i.row.escalation.firstEscalatedAt = first;
        i.notes = notes;
        return i;
    };
    const QVector<ReviewItem> held{item(1, QStringLiteral("2026-12-01T10:00:00.000000Z")), item(2, QStringLiteral("2026-12-01T11:00:00.000000Z")),
                                   item(3, QStringLiteral("2026-12-01T12:00:00.000000Z")), item(4, QStringLiteral("2026-12-01T13:00:00.000000Z"))};
    // 1 resolved, 2 has a note, 5 escalated between 2 and 3 (committed late), 6 after 4; the
    // fresh list stops at 3 (not whole): 4 is kept, 6 waits for paging.
    const QVector<ReviewItem> fresh{item(2, QStringLiteral("2026-12-01T11:00:00.000000Z"), 1), item(5, QStringLiteral("2026-12-01T11:30:00.000000Z")),
                                    item(3, QStringLiteral("2026-12-01T12:00:00.000000Z")), item(6, QStringLiteral("2026-12-01T14:00:00.000000Z"))};
    ReviewItemsDelta d = diffReviewItems(held, {}, fresh.mid(0, 3), false);
    QCOMPARE(d.updated, QVector<int>{1});
    QCOMPARE(d.updatedItems.value(0).notes, 1);
    QCOMPARE(d.left, QVector<int>{0});
    QCOMPARE(d.entered.size(), 1);
    QCOMPARE(d.entered[0].first, 2);
    QCOMPARE(d.entered[0].second.row.escalation.id, qint64(5));
    // The whole list: 4 left too, 6 entered at the end; 1 reported before is not reported again.
    d = diffReviewItems(held, {1}, fresh, true);
    QCOMPARE(d.left, QVector<int>{3});
    QCOMPARE(d.entered.size(), 2);
    QCOMPARE(d.entered[1].first, 4);
    QCOMPARE(d.entered[1].second.row.escalation.id, qint64(6));
    QVERIFY(diffReviewItems(held, {}, held, true).isEmpty());
}

void TestReviewLive::liveReview_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestReviewLive::liveReview()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    Workspace ws(config);
    QCOMPARE(setUpSchema(ws), QString());
    WorkspaceConfig otherConfig = db.config();
    otherConfig.operatorName = QStringLiteral("bob");
    Workspace other(otherConfig); // another console (or triagectl) on the same database
    QVector<qint64> ids;
    for (const QString &key : {QStringLiteral("live:a"), QStringLiteral("live:b"), QStringLiteral("live:c")}) {
        const auto raised = raisePolicy(ws, key);
        QVERIFY2(raised.ok(), raised.ok() ? "" : qPrintable(raised.error->message));
        ids << raised->escalation.id;
        QTest::qWait(5); // distinct first_escalated_at (SQLite keeps milliseconds)
    }

    ReviewPane pane(&ws);
    pane.resize(1200, 700);
    QSignalSpy loaded(&pane, &ReviewPane::loaded);
    QSignalSpy polled(&pane, &ReviewPane::livePolled);
    pane.show(); // the first show loads
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 30000);
    ReviewItemsModel *items = pane.itemsModel();
    QCOMPARE(items->rowCount(), 3); // no sign-off yet: every open item is shown
    QVERIFY(pane.selectEscalation(ids[1]));
    auto *view = pane.findChild<QTableView *>(QStringLiteral("reviewItems"));
    QVERIFY(view);
    auto *live = pane.findChild<QLabel *>(QStringLiteral("reviewLive"));
    QVERIFY(live);
    pane.setLiveInterval(100);
    QCOMPARE(live->text(), QStringLiteral("live: polling every 100 ms"));
    QVERIFY(polled.wait(30000)); // the first poll re-reads once (no mark yet): nothing changed
    QCOMPARE(polled.first(), (QList<QVariant>{true, 0, 0, 0}));
    QTRY_VERIFY_WITH_TIMEOUT(polled.size() >= 2, 30000);
    QCOMPARE(polled.last(), (QList<QVariant>{true, 0, 0, 0})); // the mark unchanged: no re-read
    QCOMPARE(loaded.size(), 1);

    // Bob resolves A, claims C and a reconcile run escalates D: all three show without Load.
    const auto resolved = await(resolveEscalation(other, ids[0], QStringLiteral("upstream confirmed the ticket exists")));
    QVERIFY2(resolved.ok() && resolved->kind == escalation_sql::EscalationResolveResult::Kind::Resolved,
             resolved.ok() ? qPrintable(resolved->message) : qPrintable(resolved.error->message));
    const auto claimed = await(takeClaim(other, ClaimScope::Escalation, QString::number(ids[2]), 600));
    QVERIFY2(claimed.ok(), claimed.ok() ? "" : qPrintable(claimed.error->message));
    const auto raisedD = raisePolicy(other, QStringLiteral("live:d"));
    QVERIFY(raisedD.ok());
    const qint64 idD = raisedD->escalation.id;
    const auto rowData = [&](qint64 id, int column, int role) {
        const int row = items->rowOf(id);
        return row < 0 ? QVariant() : items->index(row, column).data(role);
    };
    QTRY_VERIFY_WITH_TIMEOUT(rowData(idD, 0, roles::LiveChange).toInt() == 1 && rowData(ids[0], 0, roles::LiveChange).toInt() == 2
                                 && rowData(ids[2], ReviewItemsModel::ClaimColumn, Qt::DisplayRole).toString() == QLatin1String("bob"),
                             30000);
    QCOMPARE(loaded.size(), 1); // folded in: no reload
    QCOMPARE(items->rowCount(), 4);
    QCOMPARE(rowData(idD, ReviewItemsModel::KeyColumn, Qt::DisplayRole).toString(), QStringLiteral("live:d"));
    QCOMPARE(items->rowOf(idD), 3); // the youngest: last
    QVERIFY2(QRegularExpression(QStringLiteral("^resolved by bob at \\d\\d:\\d\\d:\\d\\d UTC$"))
                 .match(rowData(ids[0], ReviewItemsModel::SinceColumn, Qt::DisplayRole).toString())
                 .hasMatch(),
             qPrintable(rowData(ids[0], ReviewItemsModel::SinceColumn, Qt::DisplayRole).toString()));
    QVERIFY(rowData(ids[0], ReviewItemsModel::ReasonColumn, Qt::ToolTipRole).toString().endsWith(QStringLiteral("; Refresh drops it")));
    QCOMPARE(rowData(ids[1], 0, roles::LiveChange).toInt(), 0);
    // The selection stayed on B; the figures follow the open ones (B, C, D).
    QCOMPARE(view->selectionModel()->currentIndex().row(), items->rowOf(ids[1]));
    QCOMPARE(pane.snapshot()->totals.open, 3);
    QCOMPARE(pane.snapshot()->open.size(), 3);
    QCOMPARE(pane.snapshot()->totals.openMoney.value(0).sum, QStringLiteral("37.50"));
    QVERIFY2(pane.headerText().contains(QStringLiteral(" · 3 open (3 keys): ")), qPrintable(pane.headerText()));
    QCOMPARE(pane.groupsModel()->totalEscalations(), 3);
    TRIAGE_VERIFY_SHOT(saveCheckedShot(&pane, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/review-live-%1.png").arg(backend)));
    // A resolved item has nothing left to act on.
    QVERIFY(pane.selectEscalation(ids[0]));
    QVERIFY(!buttonWithText(pane, QStringLiteral("Resolve\u2026"))->isEnabled());
    QVERIFY(pane.selectEscalation(ids[1]));
    QVERIFY(buttonWithText(pane, QStringLiteral("Resolve\u2026"))->isEnabled());

    // The review tables cannot be read: the tab says since when, keeps what it shows, and the
    // next good read clears it.
    polled.clear();
    TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE triage_review_note RENAME TO triage_review_note_gone"));
    QTRY_VERIFY_WITH_TIMEOUT(!polled.isEmpty() && !polled.last().at(0).toBool(), 30000);
    QVERIFY2(QRegularExpression(QStringLiteral("^stale since \\d\\d:\\d\\d:\\d\\d UTC \\(.+\\)$")).match(pane.liveStatusText()).hasMatch(),
             qPrintable(pane.liveStatusText()));
    QVERIFY2(pane.liveStatusText().contains(QStringLiteral("triage_review_note")), qPrintable(pane.liveStatusText()));
    QCOMPARE(live->text(), pane.liveStatusText());
    QCOMPARE(items->rowCount(), 4);
    TRIAGE_VERIFY_SHOT(saveCheckedShot(&pane, QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/review-live-stale-%1.png").arg(backend)));
    TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE triage_review_note_gone RENAME TO triage_review_note"));
    QTRY_COMPARE_WITH_TIMEOUT(live->text(), QStringLiteral("live: polling every 100 ms"), 30000);

    // Bob signs the day off: "new since the sign-off" changes meaning, so the tab re-reads
    // whole (marks cleared) and says who signed.
    const ReviewSnapshot shown = *pane.snapshot();
    const auto signedOff = await(signOffReview(other, shown, reviewReportSha256(shown), QStringLiteral("seen")));
    QVERIFY2(signedOff.ok(), signedOff.ok() ? "" : qPrintable(signedOff.error->message));
    QVERIFY(loaded.wait(30000));
    QVERIFY(pane.snapshot()->thisDaySignOff);
    QCOMPARE(pane.snapshot()->thisDaySignOff->signedBy, QStringLiteral("bob"));
    QCOMPARE(items->liveChangeOf(idD), 0);
    QCOMPARE(pane.snapshot()->open.size(), 3);
    QVERIFY(!buttonWithText(pane, QStringLiteral("Sign off\u2026"))->isEnabled());
}

QTEST_MAIN(TestReviewLive)
#include "tst_review_live.moc"
