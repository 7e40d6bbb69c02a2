// Reconciliation in the console (DESIGN.md §8), offscreen on real SQLite databases:
// - the freshness banner: none while no run was ever logged, doctor's exact words when no run
//   has finished within reconcile_expected_every (the same text triagectl doctor prints), none
//   again with a longer period in the config file;
// - acting on a key someone else holds asks first: the question's exact text, Cancel writes
//   nothing, "Mark anyway…" opens the mark and it applies (their claim stays); the operator's
//   own claim asks nothing;
// - bulk marks from the queues ask the same way: the confirmation shows each claim, the
//   question's exact text; Cancel writes nothing, "Skip claimed keys" marks only the others
//   (the report lists the skipped keys and their claims), "Mark all anyway" marks every key
//   with the despite-note in the audited reason.
// Saves reconcile-warning.png, claim-question.png, bulk-claim-confirm.png and
// bulk-claim-question.png into the build directory.

#include "BulkMarkDialog.h"
#include "BulkMarkReportDialog.h"
#include "CtlRun.h"
#include "DetailHeader.h"
#include "EscalationService.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "MarkDialog.h"
#include "MessageBar.h"
#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "ShotCheck.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QTableWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

QString one(const TestDatabase &db, const QString &sql)
{
    QString error;
    const QStringList rows = db.adminQueryColumn(sql, &error);
    if (!error.isEmpty())
        qWarning("%s: %s", qPrintable(sql), qPrintable(error));
    return rows.value(0);
}

/// The warning a new window on `ws` shows once its freshness check is in ("" for none).
QString windowWarning(Workspace &ws, QString *barText = nullptr, bool *barVisible = nullptr)
{
    MainWindow w(&ws);
    QSignalSpy done(&w, &MainWindow::reconcileCheckFinished);
    if (!done.isValid() || !done.wait(30000))
        return QStringLiteral("(no answer)");
    if (barText)
        *barText = w.reconcileWarningBar()->text();
    if (barVisible)
        *barVisible = !w.reconcileWarningBar()->isHidden();
    return done.first().first().toString();
}

} // namespace

class TestReconcileConsole : public QObject {
    Q_OBJECT
private slots:
    void freshnessBanner();
    void markAsksFirst();
    void bulkMarkAsksFirst();
};

void TestReconcileConsole::freshnessBanner()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QCOMPARE(initSchema(ws, false), QString());

    // No run was ever logged: reconciliation is not in use here, no warning.
    QString text;
    bool visible = true;
    QCOMPARE(windowWarning(ws, &text, &visible), QString());
    QCOMPARE(text, QString());
    QVERIFY(!visible);

    // Runs are logged, none has finished: "has ever finished".
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_reconcile_run (holder, started_at, heartbeat_at, state, dry_run, filters) "
                                         "VALUES ('reconciler:cron-host:41', %1, %1, 'failed', 0, '{}')")
                              .arg(serverNowMinus(QStringLiteral("sqlite"), 9000))),
             QString());
    QCOMPARE(windowWarning(ws), QStringLiteral("no reconcile run has ever finished (reconcile_expected_every = 3600 s): check the "
                                               "cron job running `triagectl reconcile`"));

    // The last run finished 2 h 5 min ago: doctor's words, in the bar above the queues.
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_reconcile_run (holder, started_at, heartbeat_at, finished_at, state, dry_run, "
                                         "filters, counts) VALUES ('reconciler:cron-host:42', %1, %2, %2, 'finished', 0, '{}', '{}')")
                              .arg(serverNowMinus(QStringLiteral("sqlite"), 7560), serverNowMinus(QStringLiteral("sqlite"), 7500))),
             QString());
    const QString finishedAt = one(db, QStringLiteral("SELECT finished_at FROM triage_reconcile_run WHERE state = 'finished'"));
    const QString expected = QStringLiteral("no reconcile run has finished for 2h 5m (reconcile_expected_every = 3600 s; last finished "
                                            "%1): check the cron job running `triagectl reconcile`")
                                 .arg(finishedAt);
    {
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QSignalSpy done(&w, &MainWindow::reconcileCheckFinished);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.first().first().toString(), expected);
        QVERIFY(!w.reconcileWarningBar()->isHidden());
        QCOMPARE(w.reconcileWarningBar()->level(), MessageBar::Level::Warning);
        QCOMPARE(w.reconcileWarningBar()->text(), QStringLiteral("No reconcile run has finished for 2h 5m (reconcile_expected_every = "
                                                                 "3600 s; last finished %1): check the cron job running `triagectl "
                                                                 "reconcile`")
                                                      .arg(finishedAt));
        QCOMPARE(w.reconcileWarningBar()->objectName(), QStringLiteral("reconcileWarning"));
        // Refresh reads it again (a run that finishes meanwhile clears it; see below).
        w.refreshAll();
        QVERIFY(done.wait(30000));
        QCOMPARE(done.last().first().toString(), expected);
        QCoreApplication::processEvents();
        TRIAGE_VERIFY_SHOT(saveCheckedShot(&w, outputPath(QStringLiteral("reconcile-warning.png"))));
    }

    // The same words as triagectl doctor (one function: reconcileFreshness()).
    const CtlRun doctor = runCtl({QStringLiteral("--idempotency-db"), db.url(), QStringLiteral("--intent-db"), db.url(),
                                  QStringLiteral("--ticket-db"), db.url(), QStringLiteral("doctor"), QStringLiteral("--format"),
                                  QStringLiteral("json")});
    QVERIFY2(doctor.finished, doctor.describe().constData());
    const QJsonArray warnings = QJsonDocument::fromJson(doctor.out).object().value(QLatin1String("mapping_warnings")).toArray();
    QVERIFY2(warnings.contains(QJsonValue(expected)), doctor.describe().constData());

    // A longer period in the config file: no warning.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile ini(dir.filePath(QStringLiteral("triage.ini")));
    QVERIFY(ini.open(QIODevice::WriteOnly));
    ini.write("[console]\nreconcile_expected_every=9000\n");
    ini.close();
    WorkspaceConfig longer = db.config();
    longer.sourceFile = ini.fileName();
    Workspace patient(longer);
    QCOMPARE(windowWarning(patient, &text, &visible), QString());
    QVERIFY(!visible);

    // A run finishes: the next check clears the bar.
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE triage_reconcile_run SET finished_at = %1 WHERE state = 'finished'")
                              .arg(serverNowMinus(QStringLiteral("sqlite"), 60))),
             QString());
    QCOMPARE(windowWarning(ws, &text, &visible), QString());
    QVERIFY(!visible);
}

void TestReconcileConsole::markAsksFirst()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = demoConfig(db);
    config.operatorName = QStringLiteral("erin");
    Workspace ws(config);
    QCOMPARE(seedDemo(ws), QString());
    // Two stale PROCESSING keys carrying one ticket: SUCCESS may be marked from the ticket.
    const QStringList keys = db.adminQueryColumn(
        QStringLiteral("SELECT r.idem_key FROM idempotency_record r WHERE r.status = 0 AND r.updated_at < %1 AND (SELECT COUNT(*) FROM "
                       "ticket t WHERE t.idem_key = r.idem_key) = 1 ORDER BY r.id LIMIT 2")
            .arg(serverNowMinus(QStringLiteral("sqlite"), 3600)));
    QCOMPARE(keys.size(), 2);
    const QString key = keys[0], own = keys[1];

    // alice holds the key (taken 4 minutes ago); erin holds the other one.
    const auto taken = awaitResult(takeClaim(ws, ClaimScope::Key, key, kClaimDefaultTtlS, QString(), QStringLiteral("alice")));
    QVERIFY(taken.ok() && taken->kind == ClaimResult::Kind::Taken);
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE triage_claim SET claimed_at = %1 WHERE subject = '%2'")
                              .arg(serverNowMinus(QStringLiteral("sqlite"), 240), key)),
             QString());
    const QString until = one(db, QStringLiteral("SELECT expires_at FROM triage_claim WHERE subject = '%1'").arg(key));
    const auto mine = awaitResult(takeClaim(ws, ClaimScope::Key, own, kClaimDefaultTtlS));
    QVERIFY(mine.ok() && mine->kind == ClaimResult::Kind::Taken);
    QCOMPARE(mine->claim->holder, QStringLiteral("erin"));

    MainWindow w(&ws);
    w.resize(1400, 900);
    w.show();
    KeyDetailView *detail = w.detailView();
    w.openKey(key);
    QVERIFY(QTest::qWaitFor([&] { return detail->key() == key && detail->hasDetail() && detail->claim().has_value(); }, 30000));
    auto *claimLabel = detail->findChild<QLabel *>(QStringLiteral("detailClaim"));
    QVERIFY(claimLabel);
    QCOMPARE(claimLabel->text(), QStringLiteral("claimed by alice, 4 min ago"));
    const QString auditRows = QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE idem_key = '%1'").arg(key);
    const QString auditBefore = one(db, auditRows);
    QVERIFY(detail->markSuccessButton()->isEnabled());

    // Mark SUCCESS… asks first, with exactly who holds it and until when.
    QVERIFY(!detail->openMarkDialog(Success));
    QPointer<QMessageBox> question = detail->claimQuestion();
    QVERIFY(question);
    QCOMPARE(question->windowTitle(), QStringLiteral("Key claimed by alice"));
    QCOMPARE(question->text(), QStringLiteral("%1 is claimed by alice, 4 min ago (until %2).\n\nMark it SUCCESS anyway? Their claim "
                                              "stays; your mark is audited as usual.")
                                   .arg(key, until));
    QCOMPARE(static_cast<QAbstractButton *>(question->defaultButton()), question->button(QMessageBox::Cancel));
    QPushButton *anyway = nullptr;
    for (QAbstractButton *b : question->buttons())
        if (b->text() == QStringLiteral("Mark anyway\u2026"))
            anyway = qobject_cast<QPushButton *>(b);
    QVERIFY(anyway);
    QVERIFY(!detail->openMarkDialog(Success)); // asked once at a time
    QCOMPARE(detail->claimQuestion(), question.data());
    TRIAGE_VERIFY_SHOT(saveCheckedShot(question, outputPath(QStringLiteral("claim-question.png"))));

    // Cancel: nothing opens, nothing is written.
    question->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY_WITH_TIMEOUT(question.isNull(), 10000);
    QVERIFY(!detail->findChild<MarkDialog *>());
    QCOMPARE(one(db, auditRows), auditBefore);
    QCOMPARE(one(db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QStringLiteral("0"));

    // Asked again; "Mark anyway…" opens the mark, which applies as erin. alice's claim stays.
    QVERIFY(!detail->openMarkDialog(Success));
    question = detail->claimQuestion();
    QVERIFY(question);
    for (QAbstractButton *b : question->buttons())
        if (b->text() == QStringLiteral("Mark anyway\u2026"))
            b->click();
    MarkDialog *dialog = nullptr;
    QVERIFY(QTest::qWaitFor([&] { return (dialog = detail->findChild<MarkDialog *>()) != nullptr; }, 10000));
    dialog->reasonEdit()->setPlainText(QStringLiteral("ticket exists; alice agreed on the phone"));
    QVERIFY(dialog->canAccept());
    QSignalSpy finished(detail, &KeyDetailView::markFinished);
    dialog->accept();
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Applied));
    QCOMPARE(one(db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QStringLiteral("1"));
    QCOMPARE(one(db, QStringLiteral("SELECT operator || ' ' || action || ' ' || outcome FROM triage_audit WHERE idem_key = '%1' "
                                    "ORDER BY id DESC LIMIT 1")
                         .arg(key)),
             QStringLiteral("erin mark_success applied"));
    QCOMPARE(one(db, QStringLiteral("SELECT holder FROM triage_claim WHERE subject = '%1'").arg(key)), QStringLiteral("alice"));

    // The operator's own claim asks nothing: the mark opens at once.
    w.openKey(own);
    QVERIFY(QTest::qWaitFor([&] { return detail->key() == own && detail->hasDetail() && detail->claim().has_value(); }, 30000));
    QVERIFY2(claimLabel->text().startsWith(QStringLiteral("claimed by erin, ")), qPrintable(claimLabel->text()));
    MarkDialog *direct = detail->openMarkDialog(Success);
    QVERIFY(direct);
    QVERIFY(!detail->claimQuestion());
    direct->reject();

    // A claim on one of a key's open escalations holds the key too (as triagectl refuses on it):
    // the header names it and a mark asks first.
    const QString escalated = one(db, QStringLiteral("SELECT r.idem_key FROM idempotency_record r WHERE r.status = 0 AND r.idem_key "
                                                     "NOT IN ('%1', '%2') ORDER BY r.id LIMIT 1")
                                          .arg(key, own));
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_escalation (idem_key, biz_type, reason, facts, open_slot) VALUES "
                                         "('%1', 'ticket_create', 'POLICY', '{}', 1)")
                              .arg(escalated)),
             QString());
    const QString escalationId = one(db, QStringLiteral("SELECT MAX(id) FROM triage_escalation WHERE idem_key = '%1'").arg(escalated));
    const auto frank = awaitResult(takeClaim(ws, ClaimScope::Escalation, escalationId, kClaimDefaultTtlS, QString(), QStringLiteral("frank")));
    QVERIFY(frank.ok() && frank->kind == ClaimResult::Kind::Taken);
    w.openKey(escalated);
    QVERIFY(QTest::qWaitFor([&] { return detail->key() == escalated && detail->hasDetail() && detail->claim().has_value(); }, 30000));
    QVERIFY2(claimLabel->text().startsWith(QStringLiteral("escalation %1 claimed by frank, ").arg(escalationId)), qPrintable(claimLabel->text()));
    QVERIFY(!detail->openMarkDialog(Success));
    QVERIFY(detail->claimQuestion());
    detail->claimQuestion()->button(QMessageBox::Cancel)->click();
}

namespace {

/// Selects `keys` in the window's Unknown queue once it has loaded; false when one is not there.
bool selectKeys(MainWindow &w, const QStringList &keys)
{
    QueuePane *pane = w.queuePane(QueueKind::Unknown);
    if (!QTest::qWaitFor([&] { return !pane->model()->isLoading() && !pane->model()->isCounting() && pane->model()->rowCount() > 0; },
                         30000))
        return false;
    QList<int> rows;
    for (const QString &k : keys) {
        int row = pane->model()->findKey(k);
        // Further pages until the key is loaded (the queue pages lazily).
        while (row < 0 && pane->model()->canFetchMore(QModelIndex())) {
            pane->model()->fetchMore(QModelIndex());
            if (!QTest::qWaitFor([&] { return !pane->model()->isLoading(); }, 30000))
                return false;
            row = pane->model()->findKey(k);
        }
        if (row < 0) {
            qWarning("%s is not in the Unknown queue (%d rows)", qPrintable(k), pane->model()->rowCount());
            return false;
        }
        rows << row;
    }
    return pane->selectRows(rows);
}

/// The button of `box` labelled `text`, or nullptr.
QAbstractButton *buttonOf(QMessageBox *box, const QString &text)
{
    for (QAbstractButton *b : box->buttons())
        if (b->text() == text)
            return b;
    return nullptr;
}

} // namespace

void TestReconcileConsole::bulkMarkAsksFirst()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = demoConfig(db);
    config.operatorName = QStringLiteral("erin");
    Workspace ws(config);
    QCOMPARE(seedDemo(ws), QString());
    // Five stale PROCESSING keys carrying one ticket and no claim yet.
    const QStringList keys = db.adminQueryColumn(
        QStringLiteral("SELECT r.idem_key FROM idempotency_record r WHERE r.status = 0 AND r.updated_at < %1 AND (SELECT COUNT(*) FROM "
                       "ticket t WHERE t.idem_key = r.idem_key) = 1 AND NOT EXISTS (SELECT 1 FROM triage_claim c WHERE c.subject = "
                       "r.idem_key) ORDER BY r.id LIMIT 5")
            .arg(serverNowMinus(QStringLiteral("sqlite"), 3600)));
    QCOMPARE(keys.size(), 5);
    // alice holds keys 0 and 2 (taken 4 minutes ago), bob key 1; erin key 3; nobody key 4.
    const QStringList holders = {QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("alice"), QStringLiteral("erin")};
    QHash<QString, QString> until;
    for (int i = 0; i < holders.size(); ++i) {
        const auto taken = awaitResult(takeClaim(ws, ClaimScope::Key, keys[i], kClaimDefaultTtlS, QString(), holders[i]));
        QVERIFY(taken.ok() && taken->kind == ClaimResult::Kind::Taken);
        QCOMPARE(db.adminExec(QStringLiteral("UPDATE triage_claim SET claimed_at = %1 WHERE subject = '%2'")
                                  .arg(serverNowMinus(QStringLiteral("sqlite"), 240), keys[i])),
                 QString());
        until.insert(keys[i], one(db, QStringLiteral("SELECT expires_at FROM triage_claim WHERE subject = '%1'").arg(keys[i])));
    }
    const QString keyList = QStringLiteral("'%1'").arg(keys.join(QStringLiteral("','")));
    const QString auditRows = QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE idem_key IN (%1) AND action LIKE 'mark%'").arg(keyList);
    QCOMPARE(one(db, auditRows), QStringLiteral("0"));

    MainWindow w(&ws);
    w.resize(1400, 900);
    w.show();
    QSignalSpy opened(&w, &MainWindow::bulkDialogOpened);
    const QString reason = QStringLiteral("tickets exist for every one of them");

    // Opens the confirmation for `selected`, fills the reason and accepts it: the question.
    auto confirm = [&](const QStringList &selected, const QString &shot) -> QPointer<QMessageBox> {
        opened.clear();
        if (!selectKeys(w, selected))
            return nullptr;
        if (!QTest::qWaitFor([&] { return w.bulkButton(0)->isEnabled(); }, 30000)) {
            qWarning("the bulk button stays disabled");
            return nullptr;
        }
        w.markSelected(Success);
        if (!QTest::qWaitFor([&] { return !opened.isEmpty(); }, 30000)) {
            qWarning("no confirmation opened");
            return nullptr;
        }
        auto *dialog = qobject_cast<BulkMarkDialog *>(opened.first().at(0).value<QDialog *>());
        if (!dialog)
            return nullptr;
        // Each key another operator holds shows its claim on its line; the others do not.
        for (int i = 0; i < dialog->keyList()->count(); ++i) {
            const QString line = dialog->keyList()->item(i)->text();
            const QString k = line.section(QLatin1Char(' '), 0, 0);
            const int at = int(keys.indexOf(k));
            const QString claimText = at >= 0 && at < 3 ? QStringLiteral("   \u2014 claimed by %1, 4 min ago (until %2)").arg(holders[at], until[k])
                                                          : QString();
            if (claimText.isEmpty() ? line.contains(QStringLiteral("claimed by")) : !line.endsWith(claimText)) {
                qWarning("unexpected line: %s", qPrintable(line));
                return nullptr;
            }
        }
        dialog->reasonEdit()->setPlainText(reason);
        if (!shot.isEmpty()) {
            if (const QString error = saveCheckedShot(dialog, outputPath(shot)); !error.isEmpty()) {
                qWarning("%s", qPrintable(error));
                return nullptr;
            }
        }
        dialog->accept();
        if (!QTest::qWaitFor([&] { return opened.size() == 2; }, 30000)) {
            qWarning("no question opened");
            return nullptr;
        }
        return qobject_cast<QMessageBox *>(opened.at(1).at(0).value<QDialog *>());
    };
    const QString question =
        QStringLiteral("3 of 5 keys are claimed by others (alice: 2, bob: 1). Mark them anyway? Their claims stay; your marks are audited as usual.");

    // Cancel (the default): nothing is written.
    QPointer<QMessageBox> box = confirm(keys, QStringLiteral("bulk-claim-confirm.png"));
    QVERIFY(box);
    QCOMPARE(box->windowTitle(), QStringLiteral("Keys claimed by others"));
    QCOMPARE(box->text(), question);
    QCOMPARE(static_cast<QAbstractButton *>(box->defaultButton()), box->button(QMessageBox::Cancel));
    QVERIFY(buttonOf(box, QStringLiteral("Skip claimed keys")));
    QVERIFY(buttonOf(box, QStringLiteral("Mark all anyway")));
    TRIAGE_VERIFY_SHOT(saveCheckedShot(box, outputPath(QStringLiteral("bulk-claim-question.png"))));
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY_WITH_TIMEOUT(box.isNull(), 10000);
    QCOMPARE(opened.size(), 2); // nothing opened after the Cancel
    QCOMPARE(one(db, auditRows), QStringLiteral("0"));
    QCOMPARE(one(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key IN (%1) AND status = 0").arg(keyList)),
             QStringLiteral("5"));

    // Skip claimed keys: erin's own and the unclaimed key are marked; the report says which were skipped and why.
    box = confirm(keys, QString());
    QVERIFY(box);
    QCOMPARE(box->text(), question);
    buttonOf(box, QStringLiteral("Skip claimed keys"))->click();
    QVERIFY(QTest::qWaitFor([&] { return opened.size() == 3; }, 30000));
    auto *report = qobject_cast<BulkMarkReportDialog *>(opened.at(2).at(0).value<QDialog *>());
    QVERIFY(report);
    QCOMPARE(report->table()->rowCount(), 5);
    QHash<QString, QPair<QString, QString>> rows; // key → (outcome, message)
    for (int i = 0; i < 5; ++i)
        rows.insert(report->table()->item(i, 0)->text(), {report->table()->item(i, 1)->text(), report->table()->item(i, 3)->text()});
    for (int i = 0; i < 3; ++i)
        QCOMPARE(rows.value(keys[i]),
                 qMakePair(QStringLiteral("skipped"), QStringLiteral("not marked: key %1 is held by %2 until %3 (claimed by %2, 4 min ago)")
                                                          .arg(keys[i], holders[i], until[keys[i]])));
    QCOMPARE(rows.value(keys[3]).first, QStringLiteral("applied"));
    QCOMPARE(rows.value(keys[4]).first, QStringLiteral("applied"));
    QCOMPARE(report->summary()->text(), QStringLiteral("5 rows: 2 applied, 3 skipped"));
    TRIAGE_VERIFY_SHOT(saveCheckedShot(report, outputPath(QStringLiteral("bulk-claim-report.png"))));
    report->reject();
    QCOMPARE(one(db, auditRows), QStringLiteral("2"));
    for (int i = 3; i < 5; ++i)
        QCOMPARE(one(db, QStringLiteral("SELECT operator || ' ' || action || ' ' || outcome || ' ' || reason FROM triage_audit WHERE "
                                        "idem_key = '%1' AND action LIKE 'mark%'")
                             .arg(keys[i])),
                 QStringLiteral("erin mark_success applied %1").arg(reason));
    QCOMPARE(one(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key IN (%1) AND status = 0").arg(keyList)),
             QStringLiteral("3"));

    // Mark all anyway: every key is marked, each with the despite-note in its audited reason; the claims stay.
    const QStringList held = keys.mid(0, 3);
    QVERIFY(QTest::qWaitFor([&] { return w.queuePane(QueueKind::Unknown)->model()->findKey(keys[3]) < 0; }, 30000));
    box = confirm(held, QString());
    QVERIFY(box);
    QCOMPARE(box->text(), QStringLiteral("3 of 3 keys are claimed by others (alice: 2, bob: 1). Mark them anyway? Their claims stay; your "
                                         "marks are audited as usual."));
    buttonOf(box, QStringLiteral("Mark all anyway"))->click();
    QVERIFY(QTest::qWaitFor([&] { return opened.size() == 3; }, 30000));
    report = qobject_cast<BulkMarkReportDialog *>(opened.at(2).at(0).value<QDialog *>());
    QVERIFY(report);
    QCOMPARE(report->summary()->text(), QStringLiteral("3 rows: 3 applied"));
    report->reject();
    QCOMPARE(one(db, auditRows), QStringLiteral("5"));
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(one(db, QStringLiteral("SELECT operator || ' ' || action || ' ' || outcome || ' ' || reason FROM triage_audit WHERE "
                                        "idem_key = '%1' AND action LIKE 'mark%'")
                             .arg(keys[i])),
                 QStringLiteral("erin mark_success applied %1 [despite the claim of %2 on key %3 until %4]")
                     .arg(reason, holders[i], keys[i], until[keys[i]]));
        QCOMPARE(one(db, QStringLiteral("SELECT holder FROM triage_claim WHERE subject = '%1'").arg(keys[i])), holders[i]);
    }
    QCOMPARE(one(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key IN (%1) AND status = 1").arg(keyList)),
             QStringLiteral("5"));
}

QTEST_MAIN(TestReconcileConsole)
#include "tst_reconcile_console.moc"
