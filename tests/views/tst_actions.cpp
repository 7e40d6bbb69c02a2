// The mark and query-upstream actions in the GUI, offscreen, on a demo-seeded test database:
// a mark with compare-and-set through MarkDialog (SQLite and PostgreSQL) changes the record,
// drops the Unknown count by one and puts a triage_audit event on the timeline; a row
// changed behind the operator's back shows the conflict panel with its current status; a
// FAILED mark is possible only with the rules' evidence (disabled with their reason
// otherwise; an override sets aside only missing evidence); a read-only workspace disables
// every write action; Query upstream against a real simulator shows the verdict in the
// Upstream tab and "Apply suggestion" prefills the mark; bulk marks report every row and
// bulk queries record every answer. PNGs of the dialog and panels go to the build directory.

#include "BulkMarkDialog.h"
#include "ShotCheck.h"
#include "BulkMarkReportDialog.h"
#include "BulkQueryDialog.h"
#include "EvidenceView.h"
#include "JsonView.h"
#include "KeyDetailView.h"
#include "MainWindow.h"
#include "DetailHeader.h"
#include "MarkQueryController.h"
#include "TextEscape.h"
#include "MarkDialog.h"
#include "MessageBar.h"
#include "ModelTestUtil.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "RecordStatus.h"
#include "UpstreamCheck.h"
#include "UpstreamSimulatorProcess.h"
#include "DemoWorkspace.h"
#include "Queue.h"
#include "Policy.h"

#include <QCheckBox>
#include <QComboBox>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <map>

using namespace triage;
using namespace triage::test;

namespace {

/// A seeded database and a workspace on it, per backend.
struct Env {
    std::unique_ptr<TestDatabase> db;
    std::unique_ptr<Workspace> ws;
    QString error;
};

QString outputPath(const QString &name)
{
    return QStringLiteral(TRIAGE_VIEWS_TEST_OUTPUT "/") + name;
}

/// Saves `widget` as build/tests/views/`name` and checks the image (saveCheckedShot()).
QString saveShot(QWidget *widget, const QString &name)
{
    return saveCheckedShot(widget, outputPath(name));
}

bool waitForQueues(MainWindow &w)
{
    return QTest::qWaitFor(
        [&] {
            for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded,
                                QueueKind::Escalated}) {
                const QueueModel *m = w.queuePane(k)->model();
                if (m->isLoading() || m->isCounting())
                    return false;
            }
            return w.queuePane(QueueKind::Unknown)->model()->rowCount() > 0;
        },
        30000);
}

bool openAndWait(MainWindow &w, const QString &key)
{
    w.openKey(key);
    return QTest::qWaitFor([&] { return w.detailView()->key() == key && w.detailView()->hasDetail(); }, 30000);
}

int timelineAuditEvents(const KeyDetail &d)
{
    int n = 0;
    for (const TimelineEvent &e : d.timeline)
        n += e.source == QLatin1String("triage_audit");
    return n;
}

} // namespace

class TestActions : public QObject {
    Q_OBJECT
private:
    std::map<QString, Env> m_envs;
    QSet<QString> m_used; ///< keys a test already changed (per backend)

    Env &env(const QString &backend)
    {
        Env &e = m_envs[backend];
        if (!e.db) {
            e.db = std::make_unique<TestDatabase>(backend);
            if (e.db->available()) {
                e.ws = std::make_unique<Workspace>(demoConfig(*e.db));
                e.error = seedDemo(*e.ws);
            }
        }
        return e;
    }

    static QString one(const TestDatabase &db, const QString &sql)
    {
        QString error;
        const QStringList rows = db.adminQueryColumn(sql, &error);
        if (!error.isEmpty())
            qWarning("%s: %s", qPrintable(sql), qPrintable(error));
        return rows.value(0);
    }

    /// Stale PROCESSING records (updated over an hour ago) carrying exactly one ticket whose
    /// payload is a JSON object, not used by an earlier test.
    QStringList staleWithOneTicket(const TestDatabase &db)
    {
        QString error;
        const QStringList keys = db.adminQueryColumn(
            QStringLiteral("SELECT r.idem_key FROM idempotency_record r WHERE r.status = 0 AND r.updated_at < %1 AND "
                           "(SELECT COUNT(*) FROM ticket t WHERE t.idem_key = r.idem_key) = 1 AND "
                           "(SELECT MIN(t.payload) FROM ticket t WHERE t.idem_key = r.idem_key) LIKE '{%}' ORDER BY r.id")
                .arg(serverNowMinus(db.backend(), 3600)),
            &error);
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        QStringList out;
        for (const QString &k : keys)
            if (!m_used.contains(db.backend() + k))
                out << k;
        return out;
    }

    QString takeKey(const TestDatabase &db)
    {
        const QString k = staleWithOneTicket(db).value(0);
        m_used.insert(db.backend() + k);
        return k;
    }

    static void addBackends()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite") << QStringLiteral("sqlite");
        QTest::newRow("postgresql") << QStringLiteral("postgresql");
    }

private slots:
    void cleanupTestCase()
    {
        for (auto &[name, e] : m_envs) {
            e.ws.reset();
            e.db.reset();
        }
    }

    void markSuccessFromTicket_data() { addBackends(); }
    void markSuccessFromTicket()
    {
        QFETCH(QString, backend);
        Env &e = env(backend);
        TRIAGE_REQUIRE_BACKEND(*e.db);
        QVERIFY2(e.error.isEmpty(), qPrintable(e.error));
        const QString key = takeKey(*e.db);
        QVERIFY(!key.isEmpty());

        MainWindow w(e.ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QueueModel *unknown = w.queuePane(QueueKind::Unknown)->model();
        const qint64 before = unknown->count();
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        QVERIFY(detail->detail().record && detail->detail().record->stale);
        QCOMPARE(detail->detail().tickets.size(), 1);
        const int auditEventsBefore = timelineAuditEvents(detail->detail());
        QVERIFY(detail->markSuccessButton()->isEnabled());
        // A ticket carries the key: FAILED is refused by the rules, no override sets it aside.
        QVERIFY(!detail->markFailedButton()->isEnabled());
        const QString failedTip = detail->markFailedButton()->toolTip();
        QVERIFY2(failedTip.startsWith(QStringLiteral("Refused by the rules: FAILED means \"confirmed no side effect\" (DESIGN.md "
                                                     "§6), but 1 ticket row(s) carry the key (the side effect happened)")),
                 qPrintable(failedTip));
        QVERIFY2(failedTip.endsWith(QStringLiteral("; --override sets aside only missing evidence or an open escalation, never "
                                                   "evidence that the side effect happened or a record that is not stale")),
                 qPrintable(failedTip));
        QCOMPARE(detail->markSuccessButton()->text(), QStringLiteral("Mark SUCCESS\u2026"));

        MarkDialog *dialog = detail->openMarkDialog(Success);
        QVERIFY(dialog);
        // The ticket's payload is the first choice; nothing can be accepted without a reason.
        const TicketRow ticket = detail->detail().tickets.first();
        QCOMPARE(dialog->snapshotSource()->currentText(), QStringLiteral("ticket #%1 \u00b7 payload").arg(ticket.id.text()));
        QVERIFY(dialog->snapshotError().isEmpty());
        QVERIFY(!dialog->canAccept());
        // Typed JSON is validated live.
        dialog->snapshotSource()->setCurrentIndex(dialog->snapshotSource()->count() - 1);
        dialog->snapshotEdit()->setPlainText(QStringLiteral("{\"id\": 1,"));
        QVERIFY(!dialog->snapshotError().isEmpty());
        dialog->snapshotSource()->setCurrentIndex(0);
        dialog->reasonEdit()->setPlainText(QStringLiteral("ticket #%1 exists: the side effect happened").arg(ticket.id.text()));
        QVERIFY(dialog->canAccept());
        QVERIFY(dialog->decision().allowed);
        QVERIFY(!dialog->overrideBox()->isVisible());
        const MarkRequest req = dialog->request();
        QCOMPARE(req.snapshot, ticket.payload);
        QCOMPARE(req.snapshotSource, QStringLiteral("ticket:%1").arg(ticket.id.text()));
        QVERIFY(req.expect);
        QCOMPARE(req.expect->updatedAt, parseUtcMicros(detail->detail().record->updatedAt));
        QCOMPARE(req.expect->status, std::optional<qint64>(0));
        TRIAGE_VERIFY_SHOT(saveShot(dialog, QStringLiteral("mark-dialog-%1.png").arg(backend)));

        QSignalSpy finished(detail, &KeyDetailView::markFinished);
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 30000);
        QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Applied));
        QVERIFY(detail->actionBar()->text().startsWith(QStringLiteral("\u2714 Applied")));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)),
                 QStringLiteral("1"));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT result_snapshot FROM idempotency_record WHERE idem_key = '%1'").arg(key)),
                 *ticket.payload);
        // The detail reloads: SUCCESS, buttons disabled with the reason, the audit on the timeline.
        QTRY_VERIFY_WITH_TIMEOUT(detail->hasDetail() && detail->detail().record->statusCode == Success, 30000);
        QCOMPARE(timelineAuditEvents(detail->detail()), auditEventsBefore + 1);
        QVERIFY(!detail->markSuccessButton()->isEnabled());
        QVERIFY(detail->markSuccessButton()->toolTip().contains(QStringLiteral("SUCCESS is final")));
        QCOMPARE(detail->tabs()->tabText(4), QStringLiteral("Audit (%1)").arg(detail->detail().audit.size()));
        QCOMPARE(detail->detail().audit.last().outcome, QStringLiteral("applied"));
        // The queues refresh: the record left Unknown — and with it the key's intent step, if
        // its latest attempt is UNKNOWN / RECONCILE_PENDING (a settled record's step is no
        // longer listed where both tables share a database, backends/Queue.cpp).
        const QString latest = one(*e.db, QStringLiteral("SELECT status FROM intent_log WHERE idem_key = '%1' "
                                                         "ORDER BY created_at DESC, id DESC").arg(key));
        const int stepRows = latest == QLatin1String("UNKNOWN") || latest == QLatin1String("RECONCILE_PENDING") ? 1 : 0;
        QTRY_COMPARE_WITH_TIMEOUT(unknown->count(), before - 1 - stepRows, 30000);
        detail->tabs()->setCurrentIndex(4);
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-audit-%1.png").arg(backend)));
    }

    void conflictShowsCurrentState_data() { addBackends(); }
    void conflictShowsCurrentState()
    {
        QFETCH(QString, backend);
        Env &e = env(backend);
        TRIAGE_REQUIRE_BACKEND(*e.db);
        QVERIFY2(e.error.isEmpty(), qPrintable(e.error));
        const QString key = takeKey(*e.db);
        QVERIFY(!key.isEmpty());
        MainWindow w(e.ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        MarkDialog *dialog = detail->openMarkDialog(Success);
        QVERIFY(dialog);
        dialog->reasonEdit()->setPlainText(QStringLiteral("ticket exists, upstream FOUND"));
        QVERIFY(dialog->canAccept());
        // Someone else settles the record after the operator loaded it.
        QCOMPARE(e.db->adminExec(QStringLiteral("UPDATE idempotency_record SET status = 2, updated_at = %1 WHERE idem_key = '%2'")
                                     .arg(serverNowMinus(backend, 0), key)),
                 QString());
        QSignalSpy finished(detail, &KeyDetailView::markFinished);
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 30000);
        QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Conflict));
        QVERIFY(detail->conflictBar()->isVisible());
        const QString text = detail->conflictBar()->text();
        QVERIFY2(text.startsWith(QStringLiteral("Conflict")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("it is now FAILED")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("No operator action is recorded")), qPrintable(text));
        // Unchanged by us; the conflict is audited.
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)),
                 QStringLiteral("2"));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT outcome FROM triage_audit WHERE idem_key = '%1' ORDER BY id DESC").arg(key)),
                 QStringLiteral("conflict"));
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-conflict-%1.png").arg(backend)));
        // Reload shows the record as it is now: FAILED, so "Correct to SUCCESS…".
        emit detail->conflictBar()->actionTriggered();
        QTRY_VERIFY_WITH_TIMEOUT(detail->hasDetail() && detail->detail().record->statusCode == Failed, 30000);
        QVERIFY(!detail->conflictBar()->isVisible());
        QCOMPARE(detail->markSuccessButton()->text(), QStringLiteral("Correct to SUCCESS\u2026"));
        QVERIFY(detail->markSuccessButton()->isEnabled());
        QVERIFY(!detail->markFailedButton()->isEnabled());
    }

    /// Stale PROCESSING records of `biz` (or of every other biz_type when `other`) with no
    /// ticket and no SUCCEEDED or ESCALATED attempt, not used by an earlier test.
    QString staleWithoutTicket(const TestDatabase &db, const QString &biz, bool other)
    {
        QString error;
        const QStringList keys = db.adminQueryColumn(
            QStringLiteral("SELECT r.idem_key FROM idempotency_record r WHERE r.status = 0 AND r.updated_at < %1 AND "
                           "r.biz_type %2 '%3' AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.idem_key = r.idem_key) AND "
                           "NOT EXISTS (SELECT 1 FROM intent_log i WHERE i.idem_key = r.idem_key AND i.status IN "
                           "('SUCCEEDED', 'ESCALATED')) ORDER BY r.id")
                .arg(serverNowMinus(db.backend(), 3600), other ? QStringLiteral("<>") : QStringLiteral("="), biz),
            &error);
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        for (const QString &k : keys)
            if (!m_used.contains(db.backend() + k)) {
                m_used.insert(db.backend() + k);
                return k;
            }
        return {};
    }

    void failedNeedsEvidence()
    {
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        MainWindow w(e.ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        KeyDetailView *detail = w.detailView();

        // A ticket carries the key: the FAILED action is disabled with the rules' reason.
        const QString held = takeKey(*e.db);
        QVERIFY(openAndWait(w, held));
        QVERIFY(!detail->markFailedButton()->isEnabled());
        QVERIFY(detail->markFailedButton()->toolTip().contains(QStringLiteral("1 ticket row(s) carry the key")));
        QVERIFY(!detail->openMarkDialog(Failed));

        // No ticket, but no proof of absence either (payment_capture and friends need a
        // recorded upstream NOT_FOUND): the dialog says why and OK stays disabled; only an
        // override with a reason of 20+ characters sets the missing evidence aside.
        const QString unproven = staleWithoutTicket(*e.db, QStringLiteral("ticket_create"), true);
        QVERIFY(!unproven.isEmpty());
        QVERIFY(openAndWait(w, unproven));
        QVERIFY(detail->markFailedButton()->isEnabled());
        MarkDialog *dialog = detail->openMarkDialog(Failed);
        QVERIFY(dialog);
        dialog->reasonEdit()->setPlainText(QStringLiteral("upstream says no"));
        QVERIFY(!dialog->decision().allowed);
        QVERIFY(!dialog->canAccept());
        QVERIFY2(dialog->rulesLabel()->text().startsWith(QStringLiteral("\u2716 The rules refuse this: FAILED means")),
                 qPrintable(dialog->rulesLabel()->text()));
        QVERIFY2(dialog->rulesLabel()->text().contains(QStringLiteral("no proof of absence: no upstream answer is recorded for the key")),
                 qPrintable(dialog->rulesLabel()->text()));
        QVERIFY(dialog->overrideBox()->isVisible());
        TRIAGE_VERIFY_SHOT(saveShot(dialog, QStringLiteral("mark-dialog-failed-refused.png")));
        dialog->overrideBox()->setChecked(true);
        QVERIFY(!dialog->canAccept()); // 16 characters < 20
        QCOMPARE(dialog->decision().reason, QStringLiteral("--override needs a reason of at least 20 characters (got 16)"));
        dialog->reasonEdit()->setPlainText(QStringLiteral("support checked the processor: nothing captured"));
        QVERIFY(dialog->canAccept());
        QVERIFY2(dialog->rulesLabel()->text().startsWith(QStringLiteral("\u26a0 Rules overridden (audited): no proof of absence")),
                 qPrintable(dialog->rulesLabel()->text()));
        TRIAGE_VERIFY_SHOT(saveShot(dialog, QStringLiteral("mark-dialog-failed-override.png")));
        QSignalSpy finished(detail, &KeyDetailView::markFinished);
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 30000);
        QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Applied));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(unproven)),
                 QStringLiteral("2"));
        QVERIFY(one(*e.db, QStringLiteral("SELECT evidence FROM triage_audit WHERE idem_key = '%1' AND outcome = 'applied'").arg(unproven))
                    .contains(QStringLiteral("\"override\":\"no proof of absence")));

        // ticket_create declares failed_evidence = ticket_absent: stale and no ticket is proof.
        const QString gone = staleWithoutTicket(*e.db, QStringLiteral("ticket_create"), false);
        QVERIFY(!gone.isEmpty());
        QVERIFY(openAndWait(w, gone));
        dialog = detail->openMarkDialog(Failed);
        QVERIFY(dialog);
        dialog->reasonEdit()->setPlainText(QStringLiteral("no ticket"));
        QVERIFY(!dialog->canAccept()); // 9 characters < 10
        dialog->reasonEdit()->setPlainText(QStringLiteral("no ticket was created"));
        QVERIFY(dialog->canAccept());
        QVERIFY(!dialog->overrideBox()->isVisible());
        QCOMPARE(dialog->rulesLabel()->text(),
                 QStringLiteral("\u2714 Rules: PROCESSING \u2192 FAILED allowed: failed_evidence = ticket_absent: stale and no "
                                "ticket carries the key."));
        TRIAGE_VERIFY_SHOT(saveShot(dialog, QStringLiteral("mark-dialog-failed-allowed.png")));
        dialog->reject();
    }

    void readOnlyDisablesWrites()
    {
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        WorkspaceConfig c = demoConfig(*e.db);
        c.readOnly = true;
        Workspace ws(c);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        const QString key = staleWithOneTicket(*e.db).value(0);
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        QVERIFY(!detail->markSuccessButton()->isEnabled());
        QVERIFY(!detail->markFailedButton()->isEnabled());
        QVERIFY(detail->markSuccessButton()->toolTip().startsWith(QStringLiteral("Read-only workspace")));
        QVERIFY(!detail->openMarkDialog(Success));
        auto *note = detail->findChild<QLabel *>(QStringLiteral("readOnlyNote"));
        QVERIFY(note && note->isVisible());
        // No upstream configured here: Query upstream is disabled too, with the reason.
        QVERIFY(!detail->queryButton()->isEnabled());
        QVERIFY(detail->queryButton()->toolTip().contains(QStringLiteral("No upstream")));
        // Bulk marks are disabled even with a selection.
        // Rows 0 and 1 may be one key's record and intent step: select three rows.
        QVERIFY(w.queuePane(QueueKind::Unknown)->selectRows({0, 1, 2}));
        QVERIFY(w.queuePane(QueueKind::Unknown)->selectedKeys().size() >= 2);
        QVERIFY(!w.bulkButton(0)->isEnabled());
        QVERIFY(!w.bulkButton(1)->isEnabled());
    }

    void queryUpstreamShowsVerdict()
    {
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        UpstreamSimulatorProcess sim;
        QString error;
        QVERIFY2(sim.start(e.db->url(), &error), qPrintable(error));
        WorkspaceConfig c = demoConfig(*e.db);
        c.upstreams = demoUpstreams(sim.baseUrl());
        Workspace ws(c);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QVERIFY(w.upstreamClient());
        const QString key = takeKey(*e.db);
        QVERIFY(!key.isEmpty());
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        const int auditEvents = timelineAuditEvents(detail->detail());
        QVERIFY(detail->queryButton()->isEnabled());
        QSignalSpy checked(detail, &KeyDetailView::upstreamChecked);
        QVERIFY(detail->queryUpstream());
        QTRY_VERIFY_WITH_TIMEOUT(!checked.isEmpty(), 30000);
        EvidenceView *ev = detail->evidenceView();
        QVERIFY(ev->check());
        // One ticket and the simulator finds it: §6 row 4, SUCCESS from the ticket row.
        QCOMPARE(ev->check()->evidence.classification, UpstreamClass::Found);
        QVERIFY2(ev->verdictLabel()->text().startsWith(QStringLiteral("Suggested verdict: SUCCESS")),
                 qPrintable(ev->verdictLabel()->text()));
        QVERIFY(ev->verdictLabel()->text().contains(QStringLiteral("row 4")));
        QVERIFY(ev->exchangeText()->toPlainText().contains(QStringLiteral("GET http://127.0.0.1:")));
        QVERIFY(ev->exchangeText()->toPlainText().contains(QStringLiteral("HTTP 200")));
        QVERIFY(ev->applyButton()->isVisible());
        QCOMPARE(detail->tabs()->currentWidget(), ev);
        // Audited as query_upstream: after the reload it is on the timeline.
        QTRY_VERIFY_WITH_TIMEOUT(detail->hasDetail() && timelineAuditEvents(detail->detail()) == auditEvents + 1, 30000);
        QCOMPARE(detail->detail().audit.last().action, QStringLiteral("query_upstream"));
        QVERIFY(ev->check()); // the evidence stays after the reload
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-upstream.png")));
        TRIAGE_VERIFY_SHOT(saveShot(ev, QStringLiteral("evidence-panel.png")));

        // Apply suggestion: the mark dialog prefilled from the verdict, with the evidence.
        MarkDialog *dialog = detail->applySuggestion();
        QVERIFY(dialog);
        const MarkRequest req = dialog->request();
        QCOMPARE(req.toStatus, Success);
        QCOMPARE(req.snapshot, ev->check()->verdict.snapshot);
        QCOMPARE(req.snapshotSource, ev->check()->verdict.snapshotSource);
        QCOMPARE(req.evidenceJson, QString::fromUtf8(ev->check()->toJson()));
        QVERIFY(dialog->canAccept());
        TRIAGE_VERIFY_SHOT(saveShot(dialog, QStringLiteral("mark-dialog-suggestion.png")));
        QSignalSpy finished(detail, &KeyDetailView::markFinished);
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 30000);
        QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Applied));
        QVERIFY(one(*e.db, QStringLiteral("SELECT evidence FROM triage_audit WHERE idem_key = '%1' AND outcome = 'applied'").arg(key))
                    .contains(QStringLiteral("verdict")));

        // Bulk: query three selected rows; every answer is shown and recorded.
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        QTRY_VERIFY_WITH_TIMEOUT(!pane->model()->isLoading() && pane->model()->rowCount() > 3, 30000);
        QVERIFY(pane->selectRows({0, 1, 2}));
        const QStringList keys = pane->selectedKeys();
        QVERIFY(!keys.isEmpty());
        QSignalSpy opened(&w, &MainWindow::bulkDialogOpened);
        QTRY_VERIFY(w.bulkButton(2)->isEnabled());
        w.querySelected();
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 30000);
        auto *bulk = qobject_cast<BulkQueryDialog *>(opened.first().at(0).value<QDialog *>());
        QVERIFY(bulk);
        QTRY_VERIFY_WITH_TIMEOUT(bulk->isDone(), 60000);
        QCOMPARE(bulk->table()->rowCount(), keys.size());
        for (int i = 0; i < keys.size(); ++i)
            QVERIFY2(bulk->table()->item(i, 5)->text().startsWith(QLatin1Char('#')), qPrintable(bulk->table()->item(i, 5)->text()));
        QVERIFY2(bulk->summary()->text().startsWith(QStringLiteral("finished")), qPrintable(bulk->summary()->text()));
        TRIAGE_VERIFY_SHOT(saveShot(bulk, QStringLiteral("bulk-query.png")));
        bulk->close();
    }

    void upstreamTabShowsRecordedQuery()
    {
        // A query recorded by an earlier session (here: the backend directly) is what the
        // Upstream tab shows for the key, marked as recorded, with its evidence.
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        UpstreamSimulatorProcess sim;
        QString error;
        QVERIFY2(sim.start(e.db->url(), &error), qPrintable(error));
        const QString key = takeKey(*e.db);
        QVERIFY(!key.isEmpty());
        UpstreamCheck earlier;
        {
            WorkspaceConfig c = demoConfig(*e.db);
            c.operatorName = QStringLiteral("bob");
            c.upstreams = demoUpstreams(sim.baseUrl());
            Workspace ws(c);
            UpstreamClient client(c.upstreams);
            earlier = checkUpstream(ws, client, key).result();
        }
        QVERIFY(earlier.auditId > 0);
        sim.stop();

        // A new session without any upstream configured.
        Workspace ws(demoConfig(*e.db));
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        const AuditEntry &row = detail->detail().audit.last();
        QCOMPARE(row.id, earlier.auditId);
        QCOMPARE(row.action, QStringLiteral("query_upstream"));
        EvidenceView *ev = detail->evidenceView();
        QVERIFY(ev->check());
        QCOMPARE(ev->check()->auditId, earlier.auditId);
        QCOMPARE(ev->check()->recordedAt, row.at);
        QCOMPARE(ev->check()->evidence.classification, UpstreamClass::Found);
        QCOMPARE(ev->check()->evidence.message, QStringLiteral("FOUND: one object at \"tickets\" (HTTP 200 OK)"));
        QCOMPARE(ev->check()->evidence.rawBody, earlier.evidence.rawBody);
        QCOMPARE(ev->check()->evidence.foundObjects, earlier.evidence.foundObjects);
        QCOMPARE(ev->check()->verdict.reason, earlier.verdict.reason);
        QCOMPARE(ev->verdictLabel()->text(),
                 QStringLiteral("Recorded at %1: suggested verdict SUCCESS   (DESIGN.md \u00a76 row 4)").arg(row.at));
        QCOMPARE(ev->warnings().value(0),
                 QStringLiteral("Latest recorded query (triage_audit #%1), recorded at %2 by bob \u2014 not a fresh answer: query "
                                "upstream again before acting on it.")
                     .arg(earlier.auditId)
                     .arg(row.at));
        QVERIFY(ev->reasonLabel()->text().contains(QStringLiteral("FOUND \u2014 FOUND: one object at &quot;tickets&quot; (HTTP 200 OK)")));
        QCOMPARE(ev->exchangeText()->toPlainText().section(QLatin1Char('\n'), 1, 1),
                 QStringLiteral("  GET %1").arg(earlier.evidence.request.url));
        QVERIFY(ev->exchangeText()->toPlainText().contains(QStringLiteral("HTTP 200 OK")));
        QVERIFY(!ev->applyButton()->isVisible()); // acting on it takes a fresh query
        QVERIFY(!ev->applyButton()->isVisibleTo(ev));
        detail->tabs()->setCurrentWidget(ev);
        TRIAGE_VERIFY_SHOT(saveShot(detail, QStringLiteral("detail-upstream-recorded.png")));
    }

    void bulkQueryStopsAtFailedAuditWrite()
    {
        // The audit table is gone: the first answer cannot be recorded, the run stops at
        // once, and the dialog names every key the audit trail does not hold.
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        UpstreamSimulatorProcess sim;
        QString error;
        QVERIFY2(sim.start(e.db->url(), &error), qPrintable(error));
        WorkspaceConfig c = demoConfig(*e.db);
        c.upstreams = demoUpstreams(sim.baseUrl());
        Workspace ws(c);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        QList<int> rows;
        for (int i = 0; i < 40; ++i)
            rows << i;
        QVERIFY(pane->selectRows(rows));
        const QStringList keys = pane->selectedKeys();
        QVERIFY2(keys.size() > UpstreamClient::kMaxPerHost, qPrintable(QString::number(keys.size())));
        QCOMPARE(e.db->adminExec(QStringLiteral("ALTER TABLE triage_audit RENAME TO triage_audit_moved")), QString());
        QSignalSpy opened(&w, &MainWindow::bulkDialogOpened);
        w.querySelected();
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 30000);
        auto *bulk = qobject_cast<BulkQueryDialog *>(opened.first().at(0).value<QDialog *>());
        QVERIFY(bulk);
        QTRY_VERIFY_WITH_TIMEOUT(bulk->isDone(), 60000);
        const QString bar = bulk->pauseBar()->text();
        // (SQLite says "…while preparing a statement" or "…while running a statement".)
        QVERIFY2(bar.startsWith(QStringLiteral("Stopped: the audit write failed (idempotency database failed while ")), qPrintable(bar));
        QVERIFY2(bar.contains(QStringLiteral(" a statement: no such table: triage_audit); no further upstream calls were made. Not "
                                             "recorded in the audit trail (%1 of %1): %2")
                                  .arg(keys.size())
                                  .arg(keys.join(QStringLiteral(", ")))),
                 qPrintable(bar));
        QVERIFY(bar.endsWith(keys.join(QStringLiteral(", "))));
        QVERIFY2(bulk->summary()->text().startsWith(QStringLiteral("stopped")), qPrintable(bulk->summary()->text()));
        QVERIFY2(bulk->summary()->text().endsWith(QStringLiteral(" %1 of %1 keys are NOT in the audit trail.").arg(keys.size())), qPrintable(bulk->summary()->text()));
        // At most one round of requests (the concurrency) was sent; the rest never were.
        int notSent = 0;
        for (int i = 0; i < keys.size(); ++i) {
            QVERIFY(!bulk->table()->item(i, 5) || !bulk->table()->item(i, 5)->text().startsWith(QLatin1Char('#')));
            notSent += bulk->table()->item(i, 1)->text() == QStringLiteral("not sent (stopped)")
                || bulk->table()->item(i, 2)->text() == QStringLiteral("cancelled");
        }
        QVERIFY2(notSent >= keys.size() - UpstreamClient::kMaxPerHost, qPrintable(QString::number(notSent)));
        TRIAGE_VERIFY_SHOT(saveShot(bulk, QStringLiteral("bulk-query-audit-failed.png")));
        QCOMPARE(e.db->adminExec(QStringLiteral("ALTER TABLE triage_audit_moved RENAME TO triage_audit")), QString());
        bulk->close();
    }

    void bulkQueryPausesOnOutage()
    {
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        WorkspaceConfig c = demoConfig(*e.db);
        c.upstreams = demoUpstreams(QUrl(QStringLiteral("http://127.0.0.1:1"))); // nothing listens: connection refused
        Workspace ws(c);
        MainWindow w(&ws);
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        QList<int> rows;
        for (int i = 0; i < 40; ++i)
            rows << i;
        QVERIFY(pane->selectRows(rows));
        const int keys = int(pane->selectedKeys().size());
        QVERIFY(keys > BulkQueryDialog::kPauseAfterUnusable + 6);
        QSignalSpy opened(&w, &MainWindow::bulkDialogOpened);
        w.querySelected();
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 30000);
        auto *bulk = qobject_cast<BulkQueryDialog *>(opened.first().at(0).value<QDialog *>());
        QVERIFY(bulk);
        // Five unusable answers in a row: the run pauses and asks the operator.
        QTRY_VERIFY_WITH_TIMEOUT(bulk->pauseBar()->isVisible(), 30000);
        QVERIFY2(bulk->pauseBar()->text().startsWith(QStringLiteral("Paused after 5 unusable answers")),
                 qPrintable(bulk->pauseBar()->text()));
        QVERIFY(!bulk->isDone());
        TRIAGE_VERIFY_SHOT(saveShot(bulk, QStringLiteral("bulk-query-paused.png")));
        bulk->stop();
        QTRY_VERIFY_WITH_TIMEOUT(bulk->isDone(), 30000);
        QVERIFY2(bulk->summary()->text().startsWith(QStringLiteral("stopped")), qPrintable(bulk->summary()->text()));
        // Every row says what happened to it: answered and recorded, or not sent.
        int recorded = 0, notSent = 0;
        for (int i = 0; i < keys; ++i) {
            const QString upstream = bulk->table()->item(i, 1)->text();
            if (upstream.startsWith(QStringLiteral("not sent")) || bulk->table()->item(i, 2)->text() == QStringLiteral("cancelled"))
                ++notSent;
            else if (bulk->table()->item(i, 5) && bulk->table()->item(i, 5)->text().startsWith(QLatin1Char('#')))
                ++recorded;
        }
        QVERIFY(recorded >= BulkQueryDialog::kPauseAfterUnusable);
        QVERIFY(notSent > 0);
        QCOMPARE(recorded + notSent, keys);
    }

    void bulkMarkReportsEveryRow()
    {
        Env &e = env(QStringLiteral("sqlite"));
        TRIAGE_REQUIRE_BACKEND(*e.db);
        MainWindow w(e.ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QueuePane *pane = w.queuePane(QueueKind::Unknown);
        QVERIFY(pane->selectRows({0, 1, 2, 3}));
        const QStringList keys = pane->selectedKeys();
        QSignalSpy opened(&w, &MainWindow::bulkDialogOpened);
        QTRY_VERIFY(w.bulkButton(1)->isEnabled());
        w.markSelected(Failed);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 30000);
        auto *confirm = qobject_cast<BulkMarkDialog *>(opened.first().at(0).value<QDialog *>());
        QVERIFY(confirm);
        QCOMPARE(confirm->keyList()->count(), keys.size());
        confirm->reasonEdit()->setPlainText(QStringLiteral("bulk check"));
        confirm->dryRunBox()->setChecked(true);
        TRIAGE_VERIFY_SHOT(saveShot(confirm, QStringLiteral("bulk-mark-confirm.png")));
        const QString statusBefore = one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys.first()));
        confirm->accept();
        QTRY_VERIFY_WITH_TIMEOUT(opened.size() == 2, 30000);
        auto *report = qobject_cast<BulkMarkReportDialog *>(opened.at(1).at(0).value<QDialog *>());
        QVERIFY(report);
        QCOMPARE(report->table()->rowCount(), keys.size());
        for (int i = 0; i < keys.size(); ++i) {
            QCOMPARE(report->table()->item(i, 0)->text(), keys[i]);
            const QString outcome = report->table()->item(i, 1)->text();
            QVERIFY2(QStringList({QStringLiteral("dry-run"), QStringLiteral("refused"), QStringLiteral("error")}).contains(outcome),
                     qPrintable(outcome));
            QVERIFY(!report->table()->item(i, 3)->text().isEmpty());
        }
        QVERIFY(report->summary()->text().startsWith(QStringLiteral("%1: ").arg(countText(keys.size(), QStringLiteral("row")))));
        // A dry run changes nothing.
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys.first())),
                 statusBefore);
        TRIAGE_VERIFY_SHOT(saveShot(report, QStringLiteral("bulk-mark-report.png")));
    }

    /// Four-eyes (DESIGN.md §9): with biz.<biz_type>.four_eyes set, the console's mark through
    /// MarkDialog becomes a proposal — the action bar says so, the record is unchanged — and
    /// another operator's approval applies it; the detail then shows SUCCESS.
    void fourEyesMarkProposes_data() { addBackends(); }
    void fourEyesMarkProposes()
    {
        QFETCH(QString, backend);
        Env &e = env(backend);
        TRIAGE_REQUIRE_BACKEND(*e.db);
        QVERIFY2(e.error.isEmpty(), qPrintable(e.error));
        const QString key = takeKey(*e.db);
        QVERIFY(!key.isEmpty());
        const QString biz = one(*e.db, QStringLiteral("SELECT biz_type FROM idempotency_record WHERE idem_key = '%1'").arg(key));
        const QString setting = QStringLiteral("biz.%1.four_eyes").arg(biz);
        const QString why = QStringLiteral("four-eyes test: a second operator approves");
        QVERIFY(setPolicy(*e.ws, setting, QStringLiteral("mark_success,mark_failed"), why, std::nullopt).result().ok());
        if (backend != QLatin1String("sqlite")) // every operator here shares the test's database user
            QVERIFY(setPolicy(*e.ws, QStringLiteral("four_eyes_db_users"), QStringLiteral("shared"), why, std::nullopt).result().ok());

        MainWindow w(e.ws.get());
        w.resize(1400, 900);
        w.show();
        QVERIFY(waitForQueues(w));
        QVERIFY(openAndWait(w, key));
        KeyDetailView *detail = w.detailView();
        MarkDialog *dialog = detail->openMarkDialog(Success);
        QVERIFY(dialog);
        dialog->reasonEdit()->setPlainText(QStringLiteral("the ticket exists: the side effect happened"));
        QVERIFY(dialog->canAccept());
        QSignalSpy finished(detail, &KeyDetailView::markFinished);
        dialog->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 30000);
        QCOMPARE(finished.first().at(0).toInt(), int(MarkResult::Kind::Proposed));
        const QString id = one(*e.db, QStringLiteral("SELECT id FROM triage_proposal WHERE idem_key = '%1'").arg(key));
        QVERIFY2(detail->actionBar()->text().startsWith(
                     QStringLiteral("Four-eyes: proposed as proposal %1 (%2): nothing applied until another "
                                    "operator approves it (triagectl approve %1 --reason …) before ")
                         .arg(id, setting)),
                 qPrintable(detail->actionBar()->text()));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QStringLiteral("0"));
        QTRY_VERIFY_WITH_TIMEOUT(detail->hasDetail(), 30000);

        // The proposal bar shows it; the proposer's own "Approve…" is refused by the database.
        MessageBar *bar = detail->header()->proposalBar();
        QTRY_VERIFY_WITH_TIMEOUT(bar->text().startsWith(QStringLiteral("Four-eyes proposal %1: PROCESSING → SUCCESS by test-operator at ").arg(id)),
                                 30000);
        QVERIFY2(bar->text().endsWith(QStringLiteral(": \u201cthe ticket exists: the side effect happened\u201d. Nothing is applied "
                                                     "until another operator approves it. Operators here share one database user: four-eyes is a "
                                                     "process control, not a security boundary.")),
                 qPrintable(bar->text()));
        // A second SUCCESS mark of this key could only conflict: its button says why it is off.
        QTRY_VERIFY_WITH_TIMEOUT(!detail->markSuccessButton()->isEnabled(), 30000);
        QCOMPARE(detail->markSuccessButton()->toolTip(),
                 QStringLiteral("Four-eyes proposal %1 (mark_success by test-operator) is open for this key: approve or reject it first").arg(id));
        TRIAGE_VERIFY_SHOT(saveShot(&w, QStringLiteral("four-eyes-proposed-%1.png").arg(backend)));
        auto approveIn = [](KeyDetailView *view, const QString &reason) {
            QSignalSpy done(view, &KeyDetailView::markFinished);
            emit view->header()->proposalBar()->actionTriggered();
            QInputDialog *ask = view->markController()->approveDialog();
            if (!ask)
                return -1;
            ask->setTextValue(reason);
            ask->accept();
            if (!QTest::qWaitFor([&] { return !done.isEmpty(); }, 30000))
                return -2;
            return done.first().at(0).toInt();
        };
        QCOMPARE(approveIn(detail, QStringLiteral("approving my own proposal")), int(MarkResult::Kind::Refused));
        QCOMPARE(detail->actionBar()->text(),
                 QStringLiteral("Refused: proposal %1 was proposed by test-operator: a different operator must approve it (four-eyes)").arg(id));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QStringLiteral("0"));

        // Another operator's window approves it: applied, the bar goes away.
        WorkspaceConfig other = e.ws->config();
        other.operatorName = QStringLiteral("second-operator");
        Workspace approver(other);
        MainWindow w2(&approver);
        w2.resize(1400, 900);
        w2.show();
        QVERIFY(openAndWait(w2, key));
        KeyDetailView *detail2 = w2.detailView();
        QTRY_VERIFY_WITH_TIMEOUT(detail2->markController()->shownProposal().has_value(), 30000);
        emit detail2->header()->proposalBar()->actionTriggered();
        QVERIFY(detail2->markController()->approveDialog());
        QVERIFY2(detail2->markController()->approveDialog()->labelText().contains(
                     QStringLiteral("\nSince the proposal the record is unchanged (PROCESSING, updated_at ")),
                 qPrintable(detail2->markController()->approveDialog()->labelText()));
        detail2->markController()->approveDialog()->setTextValue(QStringLiteral("checked the ticket myself"));
        TRIAGE_VERIFY_SHOT(saveShot(detail2->markController()->approveDialog(), QStringLiteral("four-eyes-approve-%1.png").arg(backend)));
        QSignalSpy done(detail2, &KeyDetailView::markFinished);
        detail2->markController()->approveDialog()->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 30000);
        QCOMPARE(done.first().at(0).toInt(), int(MarkResult::Kind::Applied));
        QVERIFY2(detail2->actionBar()->text().startsWith(QStringLiteral("\u2714 Applied: approved proposal %1 of test-operator (checked the "
                                                                        "ticket myself): ").arg(id)),
                 qPrintable(detail2->actionBar()->text()));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QStringLiteral("1"));
        QTRY_VERIFY_WITH_TIMEOUT(detail2->hasDetail() && detail2->detail().record->statusCode == Success, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(detail2->header()->proposalBar()->text().isEmpty(), 30000);
        TRIAGE_VERIFY_SHOT(saveShot(&w2, QStringLiteral("four-eyes-approved-%1.png").arg(backend)));

        // A second proposal, rejected from the other window's bar: nothing applied, closed.
        const QString key2 = takeKey(*e.db);
        const QString setting2 =
            QStringLiteral("biz.%1.four_eyes").arg(one(*e.db, QStringLiteral("SELECT biz_type FROM idempotency_record WHERE idem_key = '%1'").arg(key2)));
        if (setting2 != setting)
            QVERIFY(setPolicy(*e.ws, setting2, QStringLiteral("mark_success,mark_failed"), why, std::nullopt).result().ok());
        QVERIFY(openAndWait(w, key2));
        MarkDialog *dialog2 = detail->openMarkDialog(Success);
        QVERIFY(dialog2);
        dialog2->reasonEdit()->setPlainText(QStringLiteral("the ticket exists: the side effect happened"));
        QSignalSpy proposed2(detail, &KeyDetailView::markFinished);
        dialog2->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!proposed2.isEmpty(), 30000);
        QCOMPARE(proposed2.first().at(0).toInt(), int(MarkResult::Kind::Proposed));
        const QString id2 = one(*e.db, QStringLiteral("SELECT id FROM triage_proposal WHERE idem_key = '%1'").arg(key2));
        QVERIFY(openAndWait(w2, key2));
        QTRY_VERIFY_WITH_TIMEOUT(detail2->markController()->shownProposal().has_value(), 30000);
        emit detail2->header()->proposalBar()->secondaryActionTriggered();
        QInputDialog *reject = detail2->markController()->rejectDialog();
        QVERIFY(reject);
        QCOMPARE(reject->windowTitle(), QStringLiteral("Reject proposal %1").arg(id2));
        reject->setTextValue(QStringLiteral("the agent is still retrying it"));
        TRIAGE_VERIFY_SHOT(saveShot(reject, QStringLiteral("four-eyes-reject-%1.png").arg(backend)));
        QSignalSpy rejected(detail2->markController(), &MarkQueryController::rejectFinished);
        reject->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!rejected.isEmpty(), 30000);
        QCOMPARE(rejected.first().at(0).toBool(), true);
        QCOMPARE(detail2->actionBar()->text(),
                 QStringLiteral("Proposal %1 rejected by second-operator: the agent is still retrying it").arg(id2));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT state FROM triage_proposal WHERE id = %1").arg(id2)), QStringLiteral("rejected"));
        QCOMPARE(one(*e.db, QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key2)), QStringLiteral("0"));
        QTRY_VERIFY_WITH_TIMEOUT(detail2->header()->proposalBar()->text().isEmpty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(detail2->markSuccessButton()->isEnabled(), 30000); // no open proposal any more
        if (setting2 != setting)
            QVERIFY(setPolicy(*e.ws, setting2, QStringLiteral("none"), why, std::nullopt).result().ok());
        QVERIFY(setPolicy(*e.ws, setting, QStringLiteral("none"), why, std::nullopt).result().ok());
    }
};

QTEST_MAIN(TestActions)
#include "tst_actions.moc"
