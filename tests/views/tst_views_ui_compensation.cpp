// The Duplicate keys and Compensations tabs end to end (offscreen) on a seeded SQLite database
// with the upstream simulator: exact groups, the side-by-side detail, the compensate dialog's
// plan (exact extra tickets and keys), the run (tickets CANCELLED, one side effect per target),
// the compare-and-set mark SUCCESS, and Resume of an UNKNOWN compensation. Saves PNGs.
#include "BusinessIdTestUtil.h"
#include "UiCompFixture.h"
#include "KeyDetail.h"

#include "CompensateDialog.h"
#include "CompensationsModel.h"
#include "CompensationsPane.h"
#include "DuplicateGroupsModel.h"
#include "DuplicatesPane.h"
#include "EscalationService.h"
#include "DetailHeader.h"
#include "KeyDetailView.h"
#include "Mark.h"
#include "MarkDialog.h"
#include "MarkQueryController.h"
#include "Policy.h"
#include "ProposalsModel.h"
#include "ProposalsPane.h"
#include "MessageBar.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QInputDialog>
#include <QSignalSpy>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QProgressBar>
#include <QSemaphore>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT) + QLatin1Char('/') + name;
}

QStringList modelKeys(const DuplicateGroupsModel *m)
{
    QStringList keys;
    for (int r = 0; r < m->rowCount(); ++r)
        keys << m->index(r, 0).data().toString();
    return keys;
}

/// One test's world: database, simulator, workspace, configs pointing at the simulator.
struct World {
    TestDatabase db{QStringLiteral("sqlite")};
    UpstreamSimulatorProcess sim;
    std::unique_ptr<SimControl> ctl;
    std::unique_ptr<Workspace> ws;
    CompensationConfigs configs;

    QString setUp()
    {
        if (!db.available())
            return QStringLiteral("the sqlite test database is not available: ") + db.skipReason();
        QString e = seedUiFixture(db);
        if (!e.isEmpty())
            return e;
        if (!sim.start(db.url(), &e))
            return e;
        ctl = std::make_unique<SimControl>(sim.baseUrl());
        WorkspaceConfig c = db.config();
        c.operatorName = QStringLiteral("alice");
        ws = std::make_unique<Workspace>(c);
        configs = configsFor(cancelConfig(sim.baseUrl(), 3000, true));
        return {};
    }
    QString one(const QString &sql) const
    {
        QString e;
        const QStringList v = db.adminQueryColumn(sql, &e);
        return e.isEmpty() ? v.join(QLatin1Char(',')) : QStringLiteral("ERROR ") + e;
    }
};

/// Sets up `w`, skipping when its database is missing locally but failing in CI
/// (TRIAGE_REQUIRE_BACKEND); any other set-up failure fails the test.
#define SETUP_WORLD(w)                                                                          \
    do {                                                                                        \
        TRIAGE_REQUIRE_BACKEND((w).db);                                                         \
        const QString why = (w).setUp();                                                        \
        QVERIFY2(why.isEmpty(), qPrintable(why));                                               \
    } while (0)

} // namespace

class TestViewsUiCompensation : public QObject {
    Q_OBJECT
private slots:
    void duplicatesCompensateAndMark();
    void compensationsPaneResume();
    void keyReuseNeedsOverride();
    void markDialogOffersOnlyCanonical();
    void compensateAsksFirst();
    void fourEyesApproveInKeyDetail();
    void compensateDialogUnderFourEyes();
};

void TestViewsUiCompensation::duplicatesCompensateAndMark()
{
    World w;
    SETUP_WORLD(w);
    DuplicatesPane pane(w.ws.get(), w.configs);
    QSignalSpy activated(&pane, &DuplicatesPane::keyActivated);
    QVERIFY(activated.isValid());
    pane.resize(1280, 820);
    pane.show();

    // The exact unresolved groups of the fixture, in keyset order, with the count.
    auto *model = pane.groupsModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->atEnd() && !model->isLoading(), 10000);
    QCOMPARE(modelKeys(model), (QStringList{kGroupB, kGroupA}));
    QTRY_COMPARE(pane.findChild<QLabel *>(QStringLiteral("groupCount"))->text(), QStringLiteral("2 groups unresolved"));
    // The scan reached the oldest ticket: no Scan further / Scan all, the range is named.
    QCOMPARE(pane.findChild<QLabel *>(QStringLiteral("scanText"))->text(), QStringLiteral("All tickets scanned (created 2026-01-01 00:01:40 UTC \u2013 2026-01-01 00:08:30 UTC)."));
    QVERIFY(pane.findChild<QPushButton *>(QStringLiteral("scanAllButton"))->isHidden());
    QVERIFY(pane.findChild<QPushButton *>(QStringLiteral("scanFurtherButton"))->isHidden());
    {
        // A page that stops early says how far back the groups are complete and offers more.
        // (A pane that is not shown: a visible table would fetch the next page at once.)
        DuplicatesPane partial(w.ws.get(), w.configs);
        auto *pm = partial.groupsModel();
        QTRY_VERIFY_WITH_TIMEOUT(!pm->isLoading(), 10000);
        pm->setPageSize(1);
        pm->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(!pm->isLoading(), 10000);
        QCOMPARE(modelKeys(pm), QStringList{kGroupB});
        QCOMPARE(partial.findChild<QLabel *>(QStringLiteral("scanText"))->text(),
                 QStringLiteral("Complete for tickets created since 2026-01-01 00:05:10 UTC \u2014 49 % of the creation-time range scanned, newest first."));
        QVERIFY(!partial.findChild<QPushButton *>(QStringLiteral("scanAllButton"))->isHidden());
        QVERIFY(!partial.findChild<QPushButton *>(QStringLiteral("scanFurtherButton"))->isHidden());
        partial.resize(1280, 400);
        QVERIFY(partial.grab().save(outputPath(QStringLiteral("duplicates-pane-partial.png"))));
        // Scan all while the ticket worker is held busy: the one statement waits behind it, so
        // the pane shows its busy state (looked at: duplicates-pane-scanning.png).
        QSemaphore started, release;
        auto busy = w.ws->worker(DbRole::Ticket).run<Done>([&](DbSession &) {
            started.release();
            release.acquire();
            return Done{};
        });
        started.acquire();
        partial.findChild<QPushButton *>(QStringLiteral("scanAllButton"))->click();
        QCOMPARE(partial.findChild<QLabel *>(QStringLiteral("scanText"))->text(),
                 QStringLiteral("Scanning every remaining ticket in one statement (no progress until it ends; Stop cancels it)…"));
        QVERIFY(!partial.findChild<QPushButton *>(QStringLiteral("stopScanButton"))->isHidden());
        QCOMPARE(partial.findChild<QProgressBar *>(QStringLiteral("scanProgress"))->maximum(), 0);
        QVERIFY(partial.grab().save(outputPath(QStringLiteral("duplicates-pane-scanning.png"))));
        release.release();
        busy.waitForFinished();
        QTRY_VERIFY_WITH_TIMEOUT(pm->atEnd() && !pm->isLoading() && !pm->isScanningAll(), 10000);
        QCOMPARE(modelKeys(pm), (QStringList{kGroupB, kGroupA}));
        QVERIFY(partial.findChild<QPushButton *>(QStringLiteral("stopScanButton"))->isHidden());
        QVERIFY(partial.findChild<QPushButton *>(QStringLiteral("scanAllButton"))->isHidden());
    }

    // Filters: tenant, then include resolved.
    auto *tenant = pane.findChild<QLineEdit *>(QStringLiteral("tenantFilter"));
    tenant->setText(QStringLiteral("globex"));
    QTRY_COMPARE_WITH_TIMEOUT(modelKeys(model), QStringList{kGroupB}, 10000);
    tenant->clear();
    pane.findChild<QCheckBox *>(QStringLiteral("includeResolved"))->setChecked(true);
    QTRY_COMPARE_WITH_TIMEOUT(modelKeys(model), (QStringList{kGroupC, kGroupB, kGroupA}), 10000);
    pane.findChild<QCheckBox *>(QStringLiteral("includeResolved"))->setChecked(false);
    QTRY_COMPARE_WITH_TIMEOUT(modelKeys(model), (QStringList{kGroupB, kGroupA}), 10000);
    QTRY_VERIFY(model->atEnd() && !model->isLoading());

    // Select group A: tickets side by side, canonical #1, only the ticket's own id differs.
    QVERIFY(pane.selectKey(kGroupA));
    QTRY_VERIFY_WITH_TIMEOUT(pane.currentGroup() && pane.currentGroup()->idemKey == kGroupA, 10000);
    QCOMPARE(pane.currentGroup()->canonicalTicketId, optBid(1));
    auto *tickets = pane.findChild<QTableWidget *>(QStringLiteral("ticketsSideBySide"));
    QCOMPARE(tickets->columnCount(), 3);
    QCOMPARE(tickets->horizontalHeaderItem(0)->text(), QStringLiteral("#1 ★ canonical"));
    QCOMPARE(tickets->horizontalHeaderItem(1)->text(), QStringLiteral("#2 extra"));
    int idRow = -1, prioRow = -1, titleRow = -1;
    for (int r = 0; r < tickets->rowCount(); ++r) {
        if (tickets->verticalHeaderItem(r)->text() == QLatin1String("payload.ticket_id"))
            idRow = r;
        if (tickets->verticalHeaderItem(r)->text() == QLatin1String("payload.prio"))
            prioRow = r;
        if (tickets->verticalHeaderItem(r)->text() == QLatin1String("payload.title"))
            titleRow = r;
    }
    QVERIFY(idRow >= 0 && prioRow >= 0 && titleRow >= 0);
    QCOMPARE(tickets->item(idRow, 1)->text(), QStringLiteral("2"));
    QVERIFY(tickets->item(idRow, 1)->data(Qt::UserRole).toBool());    // highlighted: differs
    QVERIFY(!tickets->item(prioRow, 1)->data(Qt::UserRole).toBool());  // same everywhere
    QVERIFY(!tickets->item(titleRow, 1)->data(Qt::UserRole).toBool());
    QCOMPARE(pane.currentGroup()->keyReuseFields, QStringList());
    QVERIFY(pane.findChild<QLabel *>(QStringLiteral("canonicalReason"))->text().contains(QStringLiteral("#1")));
    auto *compensate = pane.findChild<QPushButton *>(QStringLiteral("compensateButton"));
    QVERIFY(compensate->isEnabled());
    pane.findChild<QPushButton *>(QStringLiteral("openKeyButton"))->click();
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), kGroupA);
    QApplication::processEvents();
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("duplicates-pane.png"))));

    // The dialog's plan: exactly tickets #2 and #3, cancel_ticket, the backend's keys (dry run).
    compensate->click();
    CompensateDialog *dialog = pane.compensateDialog();
    QVERIFY(dialog);
    QSignalSpy planned(dialog, &CompensateDialog::planReady);
    QVERIFY(planned.isValid());
    QTRY_VERIFY_WITH_TIMEOUT(dialog->items().size() == 2 && !dialog->items().at(1).compKey.isEmpty()
                                 && !dialog->items().at(0).compKey.isEmpty(), 10000);
    QCOMPARE(dialog->extraTicketIds(), (QVector<BusinessId>{bid(2), bid(3)}));
    const QString key2 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("2"), kGroupA);
    const QString key3 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("3"), kGroupA);
    QCOMPARE(dialog->items().at(0).compKey, key2);
    QCOMPARE(dialog->items().at(1).compKey, key3);
    QCOMPARE(dialog->items().at(0).action, QStringLiteral("cancel_ticket"));
    QCOMPARE(dialog->items().at(0).outcome, QStringLiteral("planned"));
    auto *plan = dialog->findChild<QTableWidget *>(QStringLiteral("planTable"));
    QCOMPARE(plan->rowCount(), 2);
    QCOMPARE(plan->item(0, 0)->text(), QStringLiteral("#2"));
    QCOMPARE(plan->item(1, 0)->text(), QStringLiteral("#3"));
    QCOMPARE(plan->item(0, 2)->text(), key2);
    QCOMPARE(plan->item(1, 2)->text(), key3);
    QVERIFY(plan->item(0, 3)->text().endsWith(QStringLiteral("/tickets/2/cancel")));
    // The dry run wrote and sent nothing.
    QCOMPARE(w.one(QStringLiteral("SELECT COUNT(*) FROM triage_compensation")), QStringLiteral("0"));
    QCOMPARE(sideEffects(*w.ctl, 2), 0);

    // A reason is required.
    auto *run = dialog->findChild<QPushButton *>(QStringLiteral("runButton"));
    QVERIFY(!run->isEnabled());
    QVERIFY(!dialog->findChild<QGroupBox *>(QStringLiteral("markBox"))->isVisible());
    dialog->findChild<QLineEdit *>(QStringLiteral("reasonEdit"))->setText(QStringLiteral("duplicate tickets from a regenerated key"));
    QVERIFY(run->isEnabled());
    QApplication::processEvents();
    QVERIFY(dialog->grab().save(outputPath(QStringLiteral("compensate-dialog-plan.png"))));

    QSignalSpy finished(dialog, &CompensateDialog::runFinished);
    QVERIFY(finished.isValid());
    run->click();
    QVERIFY(!run->isEnabled()); // never twice at once
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    QCOMPARE(dialog->items().at(0).outcome, QStringLiteral("succeeded"));
    QCOMPARE(dialog->items().at(1).outcome, QStringLiteral("succeeded"));
    QVERIFY(dialog->allCompensated());
    QCOMPARE(plan->item(0, 4)->text(), QStringLiteral("SUCCEEDED"));

    // The database and the simulator: extras CANCELLED, canonical untouched, one side effect each.
    QCOMPARE(w.one(QStringLiteral("SELECT status FROM ticket WHERE id IN (1, 2, 3) ORDER BY id")),
             QStringLiteral("OPEN,CANCELLED,CANCELLED"));
    QCOMPARE(sideEffects(*w.ctl, 1), 0);
    QCOMPARE(sideEffects(*w.ctl, 2), 1);
    QCOMPARE(sideEffects(*w.ctl, 3), 1);
    QCOMPARE(cancelKeys(*w.ctl, 2), QStringList{key2});
    QCOMPARE(cancelKeys(*w.ctl, 3), QStringList{key3});
    QCOMPARE(w.one(QStringLiteral("SELECT status FROM triage_compensation ORDER BY target")), QStringLiteral("SUCCEEDED,SUCCEEDED"));

    // Mark SUCCESS with the canonical ticket's snapshot (compare-and-set on the loaded state).
    auto *markBox = dialog->findChild<QGroupBox *>(QStringLiteral("markBox"));
    QVERIFY(markBox->isVisible());
    auto *mark = dialog->findChild<QPushButton *>(QStringLiteral("markSuccessButton"));
    QVERIFY(mark->isEnabled());
    QCOMPARE(mark->text(), QStringLiteral("Mark record SUCCESS with ticket #1's snapshot"));
    QSignalSpy marked(dialog, &CompensateDialog::markFinished);
    QVERIFY(marked.isValid());
    mark->click();
    QTRY_VERIFY_WITH_TIMEOUT(marked.count() == 1, 15000);
    QVERIFY2(marked.at(0).at(0).toBool(), qPrintable(marked.at(0).at(1).toString()));
    QCOMPARE(w.one(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(kGroupA)), QStringLiteral("1"));
    QCOMPARE(w.one(QStringLiteral("SELECT result_snapshot FROM idempotency_record WHERE idem_key = '%1'").arg(kGroupA)),
             uiPayload(1, QStringLiteral("P1")));
    auto *outcome = dialog->findChild<MessageBar *>(QStringLiteral("markOutcome"));
    QVERIFY(outcome->text().startsWith(QStringLiteral("Applied")));
    QVERIFY(!mark->isEnabled()); // once
    QApplication::processEvents();
    QVERIFY(dialog->grab().save(outputPath(QStringLiteral("compensate-dialog-done.png"))));

    // The pane reloads: group A is resolved now.
    QTRY_COMPARE_WITH_TIMEOUT(modelKeys(model), QStringList{kGroupB}, 10000);
    QTRY_VERIFY(model->atEnd() && !model->isLoading());
    dialog->close();
    QTRY_VERIFY(!pane.compensateDialog());
}

void TestViewsUiCompensation::compensationsPaneResume()
{
    World w;
    SETUP_WORLD(w);
    // One SUCCEEDED and one UNKNOWN compensation, made through the runner directly.
    {
        CompensationRunner runner(*w.ws, w.configs);
        CompensationRequest r;
        r.sourceKey = kGroupA;
        r.action = QStringLiteral("cancel_ticket");
        r.target = QStringLiteral("2");
        r.reason = QStringLiteral("setup");
        r.operatorName = QStringLiteral("alice");
        const CompensationOutcome first = runner.start(r).result();
        QVERIFY2(first.kind == CompensationOutcome::Kind::Succeeded, qPrintable(first.message));
        QVERIFY(w.ctl->fault(QStringLiteral("/tickets/*/cancel"), QStringLiteral("http_500"), 0, 1) > 0);
        r.sourceKey = kGroupB;
        r.target = QStringLiteral("5");
        QCOMPARE(compensationOutcomeName(runner.start(r).result().kind), QStringLiteral("unknown"));
    }
    const QString k2 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("2"), kGroupA);
    const QString k5 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("5"), kGroupB);

    CompensationsPane pane(w.ws.get(), w.configs);
    pane.resize(1280, 700);
    pane.show();
    auto *model = pane.compensationsModel();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 10000);

    // Filter UNKNOWN: only #5; Resume is offered.
    auto *status = pane.findChild<QComboBox *>(QStringLiteral("statusFilter"));
    status->setCurrentIndex(status->findData(QStringLiteral("UNKNOWN")));
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() == 1 && model->compensation(0).compKey == k5, 10000);
    QSignalSpy history(&pane, &CompensationsPane::historyLoaded);
    QVERIFY(history.isValid());
    QVERIFY(pane.selectCompensation(k5));
    QTRY_VERIFY_WITH_TIMEOUT(!history.isEmpty() && history.last().at(0).toString() == k5, 10000);
    auto *attempts = pane.findChild<QTableWidget *>(QStringLiteral("historyTable"));
    QVERIFY(attempts->rowCount() >= 1);
    QCOMPARE(attempts->item(0, 1)->text(), QStringLiteral("send"));
    auto *resume = pane.findChild<QPushButton *>(QStringLiteral("resumeButton"));
    QVERIFY(resume->isEnabled());
    QApplication::processEvents();
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("compensations-pane.png"))));

    QSignalSpy resumed(&pane, &CompensationsPane::resumeFinished);
    QVERIFY(resumed.isValid());
    resume->click();
    QTRY_VERIFY_WITH_TIMEOUT(resumed.count() == 1, 30000);
    QCOMPARE(resumed.at(0).at(0).toString(), k5);
    QCOMPARE(resumed.at(0).at(1).toString(), QStringLiteral("succeeded"));
    QCOMPARE(w.one(QStringLiteral("SELECT status FROM ticket WHERE id = 5")), QStringLiteral("CANCELLED"));
    QCOMPARE(sideEffects(*w.ctl, 5), 1);
    // The UNKNOWN filter is now empty; SUCCEEDED lists both; Resume is not offered there.
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 0, 10000);
    status->setCurrentIndex(status->findData(QStringLiteral("SUCCEEDED")));
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 10000);
    QVERIFY(pane.selectCompensation(k2));
    QVERIFY(!resume->isEnabled());
}

void TestViewsUiCompensation::keyReuseNeedsOverride()
{
    World w;
    SETUP_WORLD(w);
    // Group B's #5 is a different operation ("Disk almost full") under the same key: key reuse.
    QCOMPARE(w.db.adminExec(QStringLiteral("UPDATE ticket SET payload = '{\"ticket_id\":5,\"title\":\"Disk almost full\",\"prio\":\"P3\"}' "
                                           "WHERE id = 5")),
             QString());
    DuplicatesPane pane(w.ws.get(), w.configs);
    pane.resize(1280, 820);
    pane.show();
    auto *model = pane.groupsModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->atEnd() && !model->isLoading(), 10000);
    QVERIFY(pane.selectKey(kGroupB));
    QTRY_VERIFY_WITH_TIMEOUT(pane.currentGroup() && pane.currentGroup()->idemKey == kGroupB, 10000);
    QCOMPARE(pane.currentGroup()->keyReuseFields, QStringList{QStringLiteral("title")});
    const QString label = pane.findChild<QLabel *>(QStringLiteral("canonicalReason"))->text();
    QVERIFY2(label.contains(QStringLiteral("Key reuse:</b> the business fields title differ")), qPrintable(label));
    QApplication::processEvents();
    QVERIFY(pane.grab().save(outputPath(QStringLiteral("duplicates-pane-key-reuse.png"))));

    pane.findChild<QPushButton *>(QStringLiteral("compensateButton"))->click();
    CompensateDialog *dialog = pane.compensateDialog();
    QVERIFY(dialog);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->items().size() == 1 && !dialog->items().at(0).outcome.isEmpty(), 10000);
    // The plan is refused with the rule's words; an override is offered, not assumed.
    QCOMPARE(dialog->items().at(0).outcome, QStringLiteral("refused"));
    QVERIFY(dialog->items().at(0).overridable);
    QCOMPARE(dialog->items().at(0).message,
             QStringLiteral("key reuse: the tickets' business payloads differ (title), so they are different operations under one "
                            "key, not retries; compensate only with --override and a reason of at least 20 characters if you are sure"));
    auto *override = dialog->findChild<QCheckBox *>(QStringLiteral("overrideBox"));
    auto *run = dialog->findChild<QPushButton *>(QStringLiteral("runButton"));
    QVERIFY(!override->isHidden());
    dialog->findChild<QLineEdit *>(QStringLiteral("reasonEdit"))->setText(QStringLiteral("dup"));
    QVERIFY(!run->isEnabled()); // refused without the override
    override->setChecked(true);
    QVERIFY(!run->isEnabled()); // an override needs 20 characters
    dialog->findChild<QLineEdit *>(QStringLiteral("reasonEdit"))->setText(QStringLiteral("tenant confirmed #5 was a mistake"));
    QVERIFY(run->isEnabled());
    QApplication::processEvents();
    QVERIFY(dialog->grab().save(outputPath(QStringLiteral("compensate-dialog-key-reuse.png"))));
    QSignalSpy finished(dialog, &CompensateDialog::runFinished);
    QVERIFY(finished.isValid());
    run->click();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    QCOMPARE(dialog->items().at(0).outcome, QStringLiteral("succeeded"));
    QCOMPARE(w.one(QStringLiteral("SELECT status FROM ticket WHERE id IN (4, 5) ORDER BY id")), QStringLiteral("OPEN,CANCELLED"));
    QCOMPARE(w.one(QStringLiteral("SELECT action || ':' || outcome FROM triage_audit ORDER BY id")), QStringLiteral("compensate:applied"));
    QVERIFY(w.one(QStringLiteral("SELECT evidence FROM triage_audit")).contains(QStringLiteral("\"override\":\"key reuse")));
    dialog->close();
}

void TestViewsUiCompensation::markDialogOffersOnlyCanonical()
{
    World w;
    SETUP_WORLD(w);
    // Group A has three tickets: the Mark SUCCESS dialog offers only the canonical #1's payload.
    const KeyDetail d = loadKeyDetail(*w.ws, kGroupA).result();
    QCOMPARE(d.tickets.size(), 3);
    MarkDialog dialog(d, Success, QStringLiteral("alice"));
    QStringList choices;
    for (int i = 0; i < dialog.snapshotSource()->count(); ++i)
        choices << dialog.snapshotSource()->itemText(i);
    QCOMPARE(choices, (QStringList{QStringLiteral("ticket #1 \u00b7 payload"), QStringLiteral("typed JSON")}));
}

void TestViewsUiCompensation::compensateAsksFirst()
{
    // Compensating a key someone else holds asks first (DESIGN.md §8 "Claims"): bob holds
    // group A; alice's Compensate extras… asks, Cancel writes nothing, "Compensate anyway…"
    // opens the dialog.
    World w;
    SETUP_WORLD(w);
    const auto taken = takeClaim(*w.ws, ClaimScope::Key, kGroupA, kClaimDefaultTtlS, QString(), QStringLiteral("bob")).result();
    QVERIFY(taken.ok() && taken->kind == ClaimResult::Kind::Taken);
    const QString until = w.one(QStringLiteral("SELECT expires_at FROM triage_claim"));
    DuplicatesPane pane(w.ws.get(), w.configs);
    pane.resize(1280, 820);
    pane.show();
    auto *model = pane.groupsModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->atEnd() && !model->isLoading(), 10000);
    QVERIFY(pane.selectKey(kGroupA));
    QTRY_VERIFY_WITH_TIMEOUT(pane.currentGroup() && pane.currentGroup()->idemKey == kGroupA && pane.claim(), 10000);
    QCOMPARE(pane.claim()->holder, QStringLiteral("bob"));

    pane.findChild<QPushButton *>(QStringLiteral("compensateButton"))->click();
    QVERIFY(!pane.compensateDialog());
    QPointer<QMessageBox> question = pane.claimQuestion();
    QVERIFY(question);
    QCOMPARE(question->windowTitle(), QStringLiteral("Key claimed by bob"));
    const QString text = question->text();
    const QString age = claimedByText(*pane.claim()); // "claimed by bob, N s ago" as read
    QCOMPARE(text, QStringLiteral("%1 is %2 (until %3).\n\nCompensate its extra tickets anyway? Their claim stays; your compensation is "
                                  "audited as usual.")
                       .arg(kGroupA, age, until));
    question->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY_WITH_TIMEOUT(question.isNull(), 10000);
    QVERIFY(!pane.compensateDialog());
    QCOMPARE(w.one(QStringLiteral("SELECT action || ':' || operator FROM triage_audit ORDER BY id")), QStringLiteral("claim.take:bob"));
    QCOMPARE(w.one(QStringLiteral("SELECT COUNT(*) FROM triage_compensation")), QStringLiteral("0"));

    QVERIFY(!pane.openCompensateDialog());
    question = pane.claimQuestion();
    QVERIFY(question);
    for (QAbstractButton *b : question->buttons())
        if (b->text() == QStringLiteral("Compensate anyway\u2026"))
            b->click();
    QTRY_VERIFY_WITH_TIMEOUT(pane.compensateDialog(), 10000);
    pane.compensateDialog()->close();
}

QTEST_MAIN(TestViewsUiCompensation)
void TestViewsUiCompensation::fourEyesApproveInKeyDetail()
{
    World w;
    SETUP_WORLD(w);
    const QString reason = QStringLiteral("four-eyes test: set by the test");
    QVERIFY(setPolicy(*w.ws, QStringLiteral("biz.ticket_create.four_eyes"), QStringLiteral("compensate"), reason, std::nullopt).result().ok());
    // alice's compensation of extra ticket #2 becomes proposal 1: nothing sent.
    {
        CompensationRunner runner(*w.ws, w.configs);
        CompensationRequest r;
        r.sourceKey = kGroupA;
        r.action = QStringLiteral("cancel_ticket");
        r.target = QStringLiteral("2");
        r.reason = QStringLiteral("extra ticket of group A");
        r.operatorName = QStringLiteral("alice");
        QCOMPARE(compensationOutcomeName(runner.start(r).result().kind), QStringLiteral("proposed"));
    }
    QCOMPARE(w.ctl->requests().size(), 0);
    // Policy changes under four-eyes: a policy proposal is listed beside it.
    QVERIFY(setPolicy(*w.ws, QStringLiteral("four_eyes_policy"), QStringLiteral("on"), reason, std::nullopt).result().ok());
    QCOMPARE(setPolicy(*w.ws, QStringLiteral("biz.ticket_create.review_sla_hours"), QStringLiteral("4"), reason, std::nullopt).result()->proposalId,
             qint64(2));

    // bob's Proposals tab lists it (what it would do), and his key detail shows it with Approve…;
    // approving runs the compensation as bob.
    WorkspaceConfig c = w.db.config();
    c.operatorName = QStringLiteral("bob");
    Workspace bob(c);
    ProposalsPane proposals(&bob);
    QAbstractItemModelTester tester(proposals.proposalsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    ProposalsModel *listed = proposals.proposalsModel();
    QTRY_COMPARE_WITH_TIMEOUT(listed->rowCount(), 2, 30000);
    QCOMPARE(listed->index(0, ProposalsModel::StateColumn).data().toString(), QStringLiteral("open"));
    QCOMPARE(listed->index(0, ProposalsModel::ActionColumn).data().toString(), QStringLiteral("compensate"));
    QCOMPARE(listed->index(1, ProposalsModel::ActionColumn).data().toString(), QStringLiteral("policy.set"));
    QCOMPARE(listed->index(1, ProposalsModel::WhatColumn).data().toString(),
             QStringLiteral("policy biz.ticket_create.review_sla_hours = 4 (was unset)"));
    QCOMPARE(listed->index(1, ProposalsModel::KeyRole).data().toString(), QString()); // no record to open
    {
        QSignalSpy opened(&proposals, &ProposalsPane::keyActivated);
        auto *table = proposals.findChild<QTableView *>();
        emit table->doubleClicked(listed->index(1, ProposalsModel::WhatColumn));
        emit table->doubleClicked(listed->index(0, ProposalsModel::WhatColumn));
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened.first().at(0).toString(), kGroupA);
    }
    QCOMPARE(listed->index(0, ProposalsModel::WhatColumn).data().toString(),
             QStringLiteral("compensation cancel_ticket of ticket 2 (ticket OPEN, record PROCESSING when proposed)"));
    QCOMPARE(listed->index(0, ProposalsModel::KeyColumn).data().toString(), kGroupA);
    QCOMPARE(listed->index(0, ProposalsModel::ByColumn).data().toString(), QStringLiteral("alice"));
    QCOMPARE(proposals.findChild<QLabel *>(QStringLiteral("proposalCount"))->text(), QStringLiteral("2 open proposals"));
    proposals.resize(1280, 300);
    proposals.show();
    QApplication::processEvents();
    QVERIFY(proposals.grab().save(outputPath(QStringLiteral("four-eyes-proposals-tab.png"))));
    QVERIFY(rejectProposal(bob, 2, QStringLiteral("not during the incident")).result().ok());
    KeyDetailView view(&bob);
    view.setCompensationRunner(std::make_shared<CompensationRunner>(bob, w.configs));
    view.resize(1280, 800);
    view.show();
    view.loadKey(kGroupA);
    MessageBar *bar = view.header()->proposalBar();
    QTRY_VERIFY_WITH_TIMEOUT(view.markController()->shownProposal().has_value(), 30000);
    QVERIFY2(bar->text().startsWith(QStringLiteral("Four-eyes proposal 1: compensation cancel_ticket of ticket 2 (ticket OPEN, record "
                                                   "PROCESSING when proposed) by alice at ")),
             qPrintable(bar->text()));
    QVERIFY2(bar->text().endsWith(QStringLiteral(": \u201cextra ticket of group A\u201d. Nothing is written or sent until another operator "
                                                 "approves it. Operators here share one database user: four-eyes is a process control, "
                                                 "not a security boundary.")),
             qPrintable(bar->text()));
    QApplication::processEvents();
    QVERIFY(view.grab().save(outputPath(QStringLiteral("four-eyes-compensation-proposed.png"))));
    emit bar->actionTriggered();
    QInputDialog *ask = view.markController()->approveDialog();
    QVERIFY(ask);
    QVERIFY2(ask->labelText().startsWith(QStringLiteral("Approve the compensation cancel_ticket of ticket 2 (ticket OPEN, record PROCESSING "
                                                        "when proposed) of %1, proposed by alice: \u201cextra ticket of group A\u201d").arg(kGroupA)),
             qPrintable(ask->labelText()));
    ask->setTextValue(QStringLiteral("checked group A myself"));
    QSignalSpy done(view.markController(), &MarkQueryController::compensationApprovalFinished);
    ask->accept();
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 30000);
    QCOMPARE(done.first().at(0).toInt(), int(CompensationOutcome::Kind::Succeeded));
    QVERIFY2(view.actionBar()->text().startsWith(QStringLiteral("Compensation proposal 1 approved: compensation ")), qPrintable(view.actionBar()->text()));
    QVERIFY2(view.actionBar()->text().contains(QStringLiteral("approved proposal 1 of alice (checked group A myself)")),
             qPrintable(view.actionBar()->text()));
    QCOMPARE(sideEffects(*w.ctl, 2), 1);
    QCOMPARE(w.one(QStringLiteral("SELECT state FROM triage_proposal WHERE id = 1")), QStringLiteral("approved"));
    QTRY_VERIFY_WITH_TIMEOUT(!view.markController()->shownProposal().has_value() && bar->isHidden(), 30000);
    QVERIFY(view.grab().save(outputPath(QStringLiteral("four-eyes-compensation-approved.png"))));
    // Approved: no longer open; "Show decided" lists it as approved, with bob's reason.
    proposals.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(listed->rowCount(), 0, 30000);
    proposals.findChild<QCheckBox *>(QStringLiteral("showDecided"))->setChecked(true);
    QTRY_COMPARE_WITH_TIMEOUT(listed->rowCount(), 2, 30000);
    QStringList decided;
    for (int row = 0; row < 2; ++row)
        decided << listed->index(row, ProposalsModel::IdColumn).data().toString() + QLatin1Char(' ')
                       + listed->index(row, ProposalsModel::StateColumn).data().toString() + QStringLiteral(" by ")
                       + listed->index(row, ProposalsModel::DecidedColumn).data().toString();
    decided.sort();
    QCOMPARE(decided, (QStringList{QStringLiteral("1 approved by bob: checked group A myself"),
                                   QStringLiteral("2 rejected by bob: not during the incident")}));
    QCOMPARE(proposals.findChild<QLabel *>(QStringLiteral("proposalCount"))->text(), QStringLiteral("2 proposals, 0 open"));
}

void TestViewsUiCompensation::compensateDialogUnderFourEyes()
{
    // Under four-eyes the dialog's run proposes each compensation: the plan table says so,
    // nothing is sent.
    World w;
    SETUP_WORLD(w);
    QVERIFY(setPolicy(*w.ws, QStringLiteral("biz.ticket_create.four_eyes"), QStringLiteral("compensate"),
                      QStringLiteral("four-eyes test: set by the test"), std::nullopt).result().ok());
    DuplicatesPane pane(w.ws.get(), w.configs);
    pane.resize(1280, 820);
    pane.show();
    QTRY_VERIFY_WITH_TIMEOUT(pane.groupsModel()->atEnd() && !pane.groupsModel()->isLoading(), 10000);
    QVERIFY(pane.selectKey(kGroupA));
    QTRY_VERIFY_WITH_TIMEOUT(pane.currentGroup() && pane.currentGroup()->idemKey == kGroupA, 10000);
    pane.findChild<QPushButton *>(QStringLiteral("compensateButton"))->click();
    CompensateDialog *dialog = pane.compensateDialog();
    QVERIFY(dialog);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->items().size() == 2 && !dialog->items().at(1).compKey.isEmpty(), 10000);
    dialog->findChild<QLineEdit *>(QStringLiteral("reasonEdit"))->setText(QStringLiteral("duplicate tickets from a regenerated key"));
    QSignalSpy finished(dialog, &CompensateDialog::runFinished);
    dialog->findChild<QPushButton *>(QStringLiteral("runButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    auto *plan = dialog->findChild<QTableWidget *>(QStringLiteral("planTable"));
    for (int row = 0; row < 2; ++row) {
        QCOMPARE(dialog->items().at(row).outcome, QStringLiteral("proposed"));
        QCOMPARE(plan->item(row, 4)->text(), QStringLiteral("PROPOSED"));
    }
    QCOMPARE(dialog->findChild<MessageBar *>(QStringLiteral("compensateMessage"))->text(),
             QStringLiteral("0 of 2 compensated; 2 proposed (four-eyes): nothing is sent until another operator approves them (Proposals tab)"));
    QVERIFY2(plan->item(0, 5)->text().startsWith(QStringLiteral("proposed as proposal 1 (biz.ticket_create.four_eyes): nothing written "
                                                               "or sent until another operator approves it")),
             qPrintable(plan->item(0, 5)->text()));
    QCOMPARE(sideEffects(*w.ctl, 2) + sideEffects(*w.ctl, 3), 0);
    QCOMPARE(w.one(QStringLiteral("SELECT COUNT(*) FROM triage_proposal WHERE state = 'open'")), QStringLiteral("2"));
    QApplication::processEvents();
    QVERIFY(dialog->grab().save(outputPath(QStringLiteral("compensate-dialog-proposed.png"))));
}

#include "tst_views_ui_compensation.moc"
