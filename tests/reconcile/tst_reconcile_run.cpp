// The reconcile run end to end, on every backend, against the upstream simulator (its own
// ticket store, so the upstream and the console's ticket store can disagree): every decision
// row's action and reason code, reruns that change nothing (no new escalation, ages kept), the
// two-answer rule across two runs, the lease (a live run wins: exit 3; a dead run's lease is
// taken over), an operator's concurrent change winning the compare-and-set (the conflict
// counted and audited), the circuit breaker, Retry-After, EXTERNAL not reopened, automatic
// resolution, and a run killed at each fault hook then rerun to the same final state.
#include "CtlRun.h"
#include "MarkTestUtil.h"
#include "SimTestUtil.h"

#include "Claim.h"
#include "Escalation.h"
#include "Mark.h"
#include "Policy.h"
#include "Reconcile.h"
#include "UpstreamClient.h"
#include "Workspace.h"

#include <QHostInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QString k(const char *name)
{
    return QStringLiteral("ticket:create:acme:rc-") + QLatin1String(name);
}

/// Stale PROCESSING (updated an hour ago; processing timeout 300 s).
QString stale(const TestDatabase &db, const QString &key, const QString &bizType = QStringLiteral("ticket_create"))
{
    return insertRecord(db, key, 0, 3600, bizType);
}

/// k(name) stale, with ticket `ticketId` carrying it in the console's ticket store (the
/// simulator knows r4 and r5 too: a run applies SUCCESS). Returns the admin error text.
QString staleWithTicket(const TestDatabase &db, const char *name, qint64 ticketId)
{
    const QString error = stale(db, k(name));
    return error.isEmpty() ? insertTicket(db, ticketId, k(name), QStringLiteral("{\"ticket_id\":%1}").arg(ticketId)) : error;
}

/// Sets the policy rows `settings` (name → value) on `ws`; false when one is refused.
bool setPolicies(Workspace &ws, std::initializer_list<std::pair<const char *, const char *>> settings)
{
    for (const auto &[name, value] : settings)
        if (!setPolicy(ws, QLatin1String(name), QLatin1String(value), QStringLiteral("four-eyes for the reconciler"), std::nullopt).result().ok())
            return false;
    return true;
}

QString adminStatus(const TestDatabase &db, const QString &key)
{
    return db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(key)).value(0);
}

/// Open escalations as "key reason" lines, sorted.
QStringList openEscalations(Workspace &ws)
{
    const auto out = ws.worker(DbRole::Idempotency)
                         .run<QVector<Escalation>>([](DbSession &s) {
                             EscalationQuery q;
                             q.openOnly = true;
                             return escalation_sql::list(s, q);
                         })
                         .result();
    QStringList lines;
    if (!out.ok())
        return {QStringLiteral("error: ") + out.error->message};
    for (const Escalation &e : *out)
        lines << e.idemKey.mid(22) + QLatin1Char(' ') + escalationReasonName(e.reason)
                + (e.sourceRef.isEmpty() ? QString() : QLatin1Char(' ') + e.sourceRef.section(QLatin1Char(':'), 0, 0));
    lines.sort();
    return lines;
}

QStringList firstEscalatedAt(Workspace &ws)
{
    const auto out = ws.worker(DbRole::Idempotency)
                         .run<QVector<Escalation>>([](DbSession &s) { return escalation_sql::list(s, EscalationQuery{}); })
                         .result();
    QStringList lines;
    for (const Escalation &e : *out)
        lines << e.idemKey + QLatin1Char(' ') + escalationReasonName(e.reason) + QLatin1Char(' ') + e.firstEscalatedAt;
    lines.sort();
    return lines;
}

} // namespace

class TestReconcileRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void init() { m_ctl->clearFaults(); }

    void decisions_data() { backends(); }
    void decisions();
    void twoAnswerRule_data() { backends(); }
    void twoAnswerRule();
    void lease_data() { backends(); }
    void lease();
    void operatorWins_data() { backends(); }
    void operatorWins();
    void fourEyesProposes_data() { backends(); }
    void fourEyesProposes();
    void fourEyesRejectionStands_data() { backends(); }
    void fourEyesRejectionStands();
    void breakerAndRetryAfter_data() { backends(); }
    void breakerAndRetryAfter();
    void faultHooks_data();
    void faultHooks();

private:
    static void backends()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows();
    }
    /// A workspace on `db` whose ticket_create and pay biz_types ask the simulator; pay is
    /// money-moving (reconcile = escalate), noapi has no upstream.
    WorkspaceConfig config(const TestDatabase &db) const
    {
        WorkspaceConfig c = db.config();
        c.operatorName = QStringLiteral("alice");
        UpstreamConfig tc = listConfig(m_base, 5000);
        UpstreamConfig pay = tc;
        pay.bizType = QStringLiteral("pay");
        c.upstreams = {{QStringLiteral("ticket_create"), tc}, {QStringLiteral("pay"), pay}};
        return c;
    }
    ReconcileOptions options() const
    {
        ReconcileOptions o;
        ReconcileBizConfig pay;
        pay.moneyMoving = true;
        o.bizConfig.insert(QStringLiteral("pay"), pay);
        return o;
    }
    /// An INI file for triagectl on `db` with the simulator as ticket_create's upstream.
    QString writeIni(const TestDatabase &db, const QString &dir) const
    {
        const QString ini = dir + QStringLiteral("/triage.ini");
        QSettings s(ini, QSettings::IniFormat);
        for (const char *role : {"idempotency", "intent", "ticket"})
            s.setValue(QStringLiteral("%1/url").arg(QLatin1String(role)), db.url());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), m_base.toString());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_query_url"), QStringLiteral("/tickets?idem_key={idem_key}"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_not_found"), QStringLiteral("empty"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_result_path"), QStringLiteral("tickets"));
        s.setValue(QStringLiteral("biz.ticket_create/reconcile"), QStringLiteral("auto"));
        s.sync();
        return ini;
    }

    std::unique_ptr<TestDatabase> m_simDb;
    UpstreamSimulatorProcess m_sim;
    std::unique_ptr<SimControl> m_ctl;
    QUrl m_base;
};

void TestReconcileRun::initTestCase()
{
    // The upstream's own ticket store: it knows r4, r5, amt and rt (Retry-After) only.
    m_simDb = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
    QVERIFY(m_simDb->available());
    QCOMPARE(createSchemaWithoutBackstop(*m_simDb), QString());
    QCOMPARE(insertTicketRow(*m_simDb, 501, k("r4"), QStringLiteral("{\"ticket_id\":501}")), QString());
    QCOMPARE(insertTicketRow(*m_simDb, 502, k("r5"), QStringLiteral("{\"ticket_id\":502}")), QString());
    QCOMPARE(insertTicketRow(*m_simDb, 503, k("rt"), QStringLiteral("{\"ticket_id\":503}")), QString());
    QCOMPARE(insertTicketRow(*m_simDb, 504, k("amt"), QStringLiteral("{\"ticket_id\":141}")), QString());
    QString error;
    QVERIFY2(m_sim.start(m_simDb->url(), &error), qPrintable(error));
    m_base = m_sim.baseUrl();
    m_ctl = std::make_unique<SimControl>(m_base);
}

void TestReconcileRun::cleanupTestCase()
{
    m_sim.stop();
}

void TestReconcileRun::decisions()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    for (const char *n : {"r4", "r5", "r3", "r2", "reuse", "r6s", "r6e", "r7two", "r7one", "exp", "amt", "claimed"})
        QCOMPARE(stale(db, k(n)), QString());
    QCOMPARE(stale(db, k("pay7"), QStringLiteral("pay")), QString());
    QCOMPARE(stale(db, k("noapi"), QStringLiteral("noapi")), QString());
    QCOMPARE(insertRecord(db, k("young"), 0, 10), QString());
    QCOMPARE(insertTicket(db, 101, k("r4"), QStringLiteral("{\"ticket_id\":101,\"title\":\"A\"}")), QString());
    QCOMPARE(insertTicket(db, 103, k("r3"), QStringLiteral("{\"ticket_id\":103}")), QString());
    QCOMPARE(insertTicket(db, 121, k("r2"), QStringLiteral("{\"title\":\"dup\"}")), QString());
    QCOMPARE(insertTicket(db, 122, k("r2"), QStringLiteral("{\"title\":\"dup\"}")), QString());
    QCOMPARE(insertTicket(db, 131, k("reuse"), QStringLiteral("{\"title\":\"one\"}")), QString());
    QCOMPARE(insertTicket(db, 132, k("reuse"), QStringLiteral("{\"title\":\"two\"}")), QString());
    QCOMPARE(insertTicket(db, 141, k("amt"), QStringLiteral("{\"ticket_id\":141,\"amount\":10.00,\"currency\":\"EUR\"}")), QString());
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET result_snapshot = '{\"amount\":9.5}' WHERE idem_key = '%1'").arg(k("amt"))),
             QString());
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET expire_at = %1 WHERE idem_key = '%2'")
                              .arg(serverNowMinus(db.backend(), -3600), k("exp"))),
             QString());
    QCOMPARE(insertAttempt(db, k("r6s"), QStringLiteral("SUCCEEDED")), QString());
    QCOMPARE(insertAttempt(db, k("r6e"), QStringLiteral("ESCALATED")), QString());
    QCOMPARE(insertUpstreamAnswer(db, k("r7two"), QStringLiteral("NOT_FOUND"), 400), QString());
    QCOMPARE(insertUpstreamAnswer(db, k("pay7"), QStringLiteral("NOT_FOUND"), 400), QString());

    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    QVERIFY(ws.worker(DbRole::Idempotency)
                .run<Done>([](DbSession &s) {
                    claim_sql::acquire(s, ClaimScope::Key, k("claimed"), QStringLiteral("alice"), 600, QStringLiteral(""));
                    return Done{};
                })
                .result()
                .ok());
    UpstreamClient client(c.upstreams);

    // A dry run decides the same and writes nothing.
    ReconcileOptions dry = options();
    dry.dryRun = true;
    const ReconcileResult d = runReconcile(ws, client, dry);
    QCOMPARE(reconcileResultName(d.kind), QStringLiteral("finished"));
    QCOMPARE(d.summary.runId, qint64(0));
    QCOMPARE(d.summary.appliedSuccess, 2);
    QCOMPARE(d.summary.appliedFailed, 1); // r7two: its recorded NOT_FOUND and this dry run's answer, counted as now
    QCOMPARE(d.summary.escalated, 9);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_reconcile_run")), QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation")), QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action <> 'claim.take'")), QStringList{QStringLiteral("2")});

    const ReconcileResult r = runReconcile(ws, client, options());
    QVERIFY2(r.kind == ReconcileResult::Kind::Finished, qPrintable(r.message));
    const ReconcileSummary &s = r.summary;
    QVERIFY(s.runId > 0);
    QCOMPARE(s.examined, 13);
    QCOMPARE(s.skippedClaimed, 1);
    QCOMPARE(s.appliedSuccess, 2);
    QCOMPARE(s.appliedFailed, 1);
    QCOMPARE(s.escalated, 9);
    QCOMPARE(s.escalationsCreated, 9);
    QCOMPARE(s.escalationsUpdated, 0);
    QCOMPARE(s.waiting, 2);
    QCOMPARE(s.conflicts, 0);
    QCOMPARE(s.queried, 12);
    QCOMPARE(s.breakerOpen, false);
    QCOMPARE(adminStatus(db, k("r4")), QStringLiteral("1"));
    QCOMPARE(adminStatus(db, k("r5")), QStringLiteral("1"));
    QCOMPARE(adminStatus(db, k("r7two")), QStringLiteral("2"));
    QCOMPARE(adminStatus(db, k("r7one")), QStringLiteral("0"));
    QCOMPARE(adminStatus(db, k("pay7")), QStringLiteral("0"));
    QCOMPARE(adminStatus(db, k("claimed")), QStringLiteral("0"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT result_snapshot FROM idempotency_record WHERE idem_key = '%1'").arg(k("r4"))),
             QStringList{QStringLiteral("{\"ticket_id\":101,\"title\":\"A\"}")});
    const QStringList expected = {QStringLiteral("amt AMOUNT_MISMATCH"), QStringLiteral("exp EXPIRING"),
                                  QStringLiteral("noapi NO_QUERY_API"), QStringLiteral("pay7 POLICY"),
                                  QStringLiteral("r2 DUPLICATE"),        QStringLiteral("r3 CONTRADICTION"),
                                  QStringLiteral("r6e EXTERNAL intent"), QStringLiteral("r6s AGENT_SAW_SUCCESS"),
                                  QStringLiteral("reuse KEY_REUSE")};
    QCOMPARE(openEscalations(ws), expected);
    // Marks and answers are audited as the reconciler's.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE operator = 'reconciler' AND action = 'query_upstream'")),
             QStringList{QStringLiteral("12")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM triage_audit WHERE operator = 'reconciler' AND outcome = 'applied' AND action LIKE 'mark%' "
                                                "ORDER BY idem_key")),
             (QStringList{k("r4"), k("r5"), k("r7two")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state FROM triage_reconcile_run WHERE id = %1").arg(s.runId)),
             QStringList{QStringLiteral("finished")});
    const QJsonObject counts = QJsonDocument::fromJson(db.adminQueryColumn(QStringLiteral("SELECT counts FROM triage_reconcile_run")).value(0).toUtf8()).object();
    QCOMPARE(counts.value(QStringLiteral("applied_failed")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("by_reason")).toObject().value(QStringLiteral("CONTRADICTION")).toInt(), 1);

    // A rerun: no new escalation, ages unchanged, the same records.
    const QStringList ages = firstEscalatedAt(ws);
    const ReconcileResult r2 = runReconcile(ws, client, options());
    QVERIFY2(r2.kind == ReconcileResult::Kind::Finished, qPrintable(r2.message));
    QCOMPARE(r2.summary.examined, 10);
    QCOMPARE(r2.summary.escalationsCreated, 0);
    QCOMPARE(r2.summary.escalationsUpdated, 9);
    QCOMPARE(r2.summary.appliedSuccess + r2.summary.appliedFailed, 0);
    QCOMPARE(firstEscalatedAt(ws), ages);
    QCOMPARE(openEscalations(ws), expected);

    // EXTERNAL resolved by an operator is not reopened by the same intent row; EXPIRING
    // resolves itself once an operator settled the key.
    const auto ext = ws.worker(DbRole::Idempotency)
                         .run<QVector<Escalation>>([](DbSession &s) {
                             EscalationQuery q;
                             q.idemKey = k("r6e");
                             return escalation_sql::list(s, q);
                         })
                         .result();
    QCOMPARE(ext->size(), 1);
    const qint64 extId = ext->first().id;
    const auto resolved = ws.worker(DbRole::Idempotency)
                              .run<escalation_sql::EscalationResolveResult>([extId](DbSession &s) {
                                  return escalation_sql::resolve(s, extId, QStringLiteral("checked with the agents' team"), QStringLiteral("alice"));
                              })
                              .result();
    QCOMPARE(int(resolved->kind), int(escalation_sql::EscalationResolveResult::Kind::Resolved));
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 2 WHERE idem_key = '%1'").arg(k("exp"))), QString());
    // The dry run says what the real run does: the resolved EXTERNAL with the same source_ref
    // is not reopened (not "would create"), the seven other open ones are updated.
    const QString escalationsBefore = db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation")).value(0);
    const ReconcileResult d3 = runReconcile(ws, client, dry);
    QVERIFY2(d3.kind == ReconcileResult::Kind::Finished, qPrintable(d3.message));
    QCOMPARE(d3.summary.escalationsCreated, 0);
    QCOMPARE(d3.summary.escalationsUpdated, 7);
    QCOMPARE(d3.summary.escalated, 7);
    QCOMPARE(d3.summary.byReason.value(QStringLiteral("EXTERNAL")), 0);
    QCOMPARE(d3.summary.byReason.contains(QStringLiteral("EXTERNAL")), false);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation")).value(0), escalationsBefore);
    const auto outcomeOf = [](const ReconcileSummary &sum, const QString &key) {
        for (const ReconcileKeyResult &x : sum.keys)
            if (x.idemKey == key)
                return x.outcome;
        return QStringLiteral("(not examined)");
    };
    QCOMPARE(outcomeOf(d3.summary, k("r6e")), QStringLiteral("dry_run:none")); // the real run: "nothing"
    const ReconcileResult r3 = runReconcile(ws, client, options());
    QVERIFY2(r3.kind == ReconcileResult::Kind::Finished, qPrintable(r3.message));
    QCOMPARE(r3.summary.resolved, 1);
    QCOMPARE(r3.summary.escalationsCreated, 0);
    QCOMPARE(r3.summary.escalationsUpdated, 7);
    QCOMPARE(r3.summary.escalated, 7);
    QCOMPARE(r3.summary.byReason.contains(QStringLiteral("EXTERNAL")), false);
    QCOMPARE(d3.summary.byReason, r3.summary.byReason);
    QCOMPARE(outcomeOf(r3.summary, k("r6e")), QStringLiteral("nothing"));
    QStringList left = expected;
    left.removeAll(QStringLiteral("r6e EXTERNAL intent"));
    left.removeAll(QStringLiteral("exp EXPIRING"));
    QCOMPARE(openEscalations(ws), left);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT resolved_by FROM triage_escalation WHERE reason = 'EXPIRING'")),
             QStringList{QStringLiteral("reconciler")});
}

void TestReconcileRun::twoAnswerRule()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(stale(db, k("two")), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    ReconcileOptions o = options();
    ReconcileBizConfig tc;
    tc.confirmDelayS = 1;
    o.bizConfig.insert(QStringLiteral("ticket_create"), tc);
    // One NOT_FOUND: wait for a second one.
    ReconcileResult r = runReconcile(ws, client, o);
    QCOMPARE(r.summary.waiting, 1);
    QCOMPARE(r.summary.appliedFailed, 0);
    QCOMPARE(r.summary.keys.value(0).outcome, QStringLiteral("waiting"));
    QCOMPARE(adminStatus(db, k("two")), QStringLiteral("0"));
    // The confirmation delay (1 s here) must pass between the two answers.
    QTest::qWait(1100);
    r = runReconcile(ws, client, o);
    QCOMPARE(r.summary.appliedFailed, 1);
    QCOMPARE(adminStatus(db, k("two")), QStringLiteral("2"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'query_upstream'")),
             QStringList{QStringLiteral("2")});
    QCOMPARE(openEscalations(ws), QStringList());
}

void TestReconcileRun::lease()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(stale(db, k("r4")), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    // A live run elsewhere holds the lease: nothing is written, exit 3.
    QVERIFY(ws.worker(DbRole::Idempotency)
                .run<Done>([](DbSession &s) {
                    claim_sql::acquire(s, ClaimScope::Reconcile, QStringLiteral("reconcile"), QStringLiteral("reconciler:elsewhere:1"), 600, QStringLiteral(""));
                    return Done{};
                })
                .result()
                .ok());
    ReconcileResult r = runReconcile(ws, client, options());
    QCOMPARE(reconcileResultName(r.kind), QStringLiteral("lease_held"));
    QCOMPARE(reconcileExitCode(r), 3);
    QVERIFY2(r.message.startsWith(QStringLiteral("another reconcile run holds the lease: reconciler:elsewhere:1 until ")), qPrintable(r.message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_reconcile_run")), QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("0")});
    QTemporaryDir dir;
    const CtlRun cli = runCtl({QStringLiteral("--config"), writeIni(db, dir.path()), QStringLiteral("reconcile")});
    QCOMPARE(cli.exitCode, 3);
    QVERIFY2(cli.err.contains("another reconcile run holds the lease: reconciler:elsewhere:1"), cli.describe().constData());

    // A run of this host whose process has ended left its lease: the next run takes it over.
    // (4194305 is above the largest pid Linux hands out, so no process has it.)
    const QString dead = QStringLiteral("reconciler:%1:4194305").arg(QHostInfo::localHostName());
    QCOMPARE(db.adminExec(QStringLiteral("DELETE FROM triage_claim")), QString());
    QVERIFY(ws.worker(DbRole::Idempotency)
                .run<Done>([dead](DbSession &s) {
                    claim_sql::acquire(s, ClaimScope::Reconcile, QStringLiteral("reconcile"), dead, 600, QStringLiteral(""));
                    reconcile_run_sql::start(s, dead, false, QStringLiteral("{}"));
                    return Done{};
                })
                .result()
                .ok());
    r = runReconcile(ws, client, options());
    QVERIFY2(r.kind == ReconcileResult::Kind::Finished, qPrintable(r.message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state FROM triage_reconcile_run ORDER BY id")),
             (QStringList{QStringLiteral("failed"), QStringLiteral("finished")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim")), QStringList{QStringLiteral("0")});
}

void TestReconcileRun::operatorWins()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(staleWithTicket(db, "r4", 101), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    ReconcileOptions o = options();
    // Between the decision and the compare-and-set an operator settles the key.
    o.beforeCompareAndSet = [&db]() {
        QCOMPARE(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1, result_snapshot = '{\"by\":\"alice\"}', "
                                             "updated_at = %1 WHERE idem_key = '%2'")
                                  .arg(serverNowMinus(db.backend(), 0), k("r4"))),
                 QString());
    };
    const ReconcileResult r = runReconcile(ws, client, o);
    QVERIFY2(r.kind == ReconcileResult::Kind::Finished, qPrintable(r.message));
    QCOMPARE(r.summary.conflicts, 1);
    QCOMPARE(r.summary.appliedSuccess, 0);
    QCOMPARE(r.summary.keys.value(0).outcome, QStringLiteral("conflict"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT result_snapshot FROM idempotency_record")), QStringList{QStringLiteral("{\"by\":\"alice\"}")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT operator FROM triage_audit WHERE outcome = 'conflict'")),
             QStringList{QStringLiteral("reconciler")});
}

void TestReconcileRun::fourEyesProposes()
{
    // Four-eyes (DESIGN.md §9): the run's automatic mark is a proposal plus a POLICY
    // escalation; the dry run predicts exactly that, and the conflict of an open proposal.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(staleWithTicket(db, "r4", 101), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    QVERIFY(setPolicies(ws, {{"biz.ticket_create.four_eyes", "mark_success"}, {"four_eyes_db_users", "shared"}}));
    UpstreamClient client(c.upstreams);
    ReconcileOptions dry = options();
    dry.dryRun = true;
    const auto only = [](const ReconcileSummary &sum) { return sum.keys.value(0); };

    const ReconcileResult d1 = runReconcile(ws, client, dry);
    QVERIFY2(d1.kind == ReconcileResult::Kind::Finished, qPrintable(d1.message));
    const ReconcileResult r1 = runReconcile(ws, client, options());
    QVERIFY2(r1.kind == ReconcileResult::Kind::Finished, qPrintable(r1.message));
    QCOMPARE(only(d1.summary).outcome, QStringLiteral("dry_run:escalate"));
    QCOMPARE(only(r1.summary).outcome, QStringLiteral("escalated"));
    for (const ReconcileSummary *sum : {&d1.summary, &r1.summary}) {
        QCOMPARE(sum->appliedSuccess, 0);
        QCOMPARE(sum->conflicts, 0);
        QCOMPARE(sum->escalated, 1);
        QCOMPARE(sum->escalationsCreated, 1);
        QCOMPARE(sum->byReason, (QMap<QString, int>{{QStringLiteral("POLICY"), 1}}));
    }
    QCOMPARE(adminStatus(db, k("r4")), QStringLiteral("0"));
    QStringList proposal;
    for (const char *column : {"id", "state", "proposed_by", "action"})
        proposal << db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_proposal").arg(QLatin1String(column)));
    QCOMPARE(proposal, (QStringList{QStringLiteral("1"), QStringLiteral("open"), QStringLiteral("reconciler"), QStringLiteral("mark_success")}));
    QCOMPARE(openEscalations(ws), QStringList{QStringLiteral("r4 POLICY")});
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT facts FROM triage_escalation")).value(0).contains(
        QStringLiteral("four-eyes: the automatic mark is proposal 1, waiting for an operator's approval (triagectl approve 1 --reason")));

    // While proposal 1 is open, both runs report the conflict and change nothing.
    const ReconcileResult d2 = runReconcile(ws, client, dry);
    const ReconcileResult r2 = runReconcile(ws, client, options());
    QCOMPARE(only(d2.summary).outcome, QStringLiteral("dry_run:conflict"));
    QCOMPARE(only(r2.summary).outcome, QStringLiteral("conflict"));
    for (const ReconcileSummary *sum : {&d2.summary, &r2.summary}) {
        QCOMPARE(sum->conflicts, 1);
        QCOMPARE(sum->appliedSuccess, 0);
        QCOMPARE(sum->escalated, 0);
        QVERIFY2(only(*sum).message.startsWith(k("r4") + QStringLiteral(" already has open proposal 1 (mark_success by reconciler, expires ")),
                 qPrintable(only(*sum).message));
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_proposal")), QStringList{QStringLiteral("1")});

    // Another operator approves it: applied; the next run resolves the POLICY escalation.
    WorkspaceConfig bobConfig = c;
    bobConfig.operatorName = QStringLiteral("bob");
    Workspace bob(bobConfig);
    const Outcome<MarkResult> approved = approveProposal(bob, 1, QStringLiteral("upstream shows ticket 501")).result();
    QVERIFY2(approved.ok() && approved->kind == MarkResult::Kind::Applied, approved.ok() ? qPrintable(approved->message) : "error");
    QCOMPARE(adminStatus(db, k("r4")), QStringLiteral("1"));
    // A run limited to another biz_type leaves this biz_type's escalation alone.
    ReconcileOptions otherBizType = options();
    otherBizType.bizType = QStringLiteral("pay");
    const ReconcileResult scoped = runReconcile(ws, client, otherBizType);
    QVERIFY2(scoped.kind == ReconcileResult::Kind::Finished, qPrintable(scoped.message));
    QCOMPARE(scoped.summary.resolved, 0);
    QCOMPARE(openEscalations(ws), QStringList{QStringLiteral("r4 POLICY")});
    const ReconcileResult r3 = runReconcile(ws, client, options());
    QVERIFY2(r3.kind == ReconcileResult::Kind::Finished, qPrintable(r3.message));
    QCOMPARE(r3.summary.resolved, 1);
    QCOMPARE(openEscalations(ws), QStringList());
}

void TestReconcileRun::fourEyesRejectionStands()
{
    // An operator rejected the run's proposal: later runs (and their dry runs) do not propose the
    // same mark on the same record state again; they escalate with the rejection's words.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(staleWithTicket(db, "r5", 102), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    QVERIFY(setPolicies(ws, {{"biz.ticket_create.four_eyes", "mark_success"}}));
    UpstreamClient client(c.upstreams);
    QCOMPARE(runReconcile(ws, client, options()).summary.keys.value(0).outcome, QStringLiteral("escalated")); // proposal 1
    WorkspaceConfig bobConfig = c;
    bobConfig.operatorName = QStringLiteral("bob");
    Workspace bob(bobConfig);
    QVERIFY(rejectProposal(bob, 1, QStringLiteral("the agent is still retrying it")).result().ok());
    ReconcileOptions dry = options();
    dry.dryRun = true;
    const ReconcileResult d = runReconcile(ws, client, dry);
    const ReconcileResult r = runReconcile(ws, client, options());
    QCOMPARE(d.summary.keys.value(0).outcome, QStringLiteral("dry_run:escalate"));
    QCOMPARE(r.summary.keys.value(0).outcome, QStringLiteral("escalated"));
    QCOMPARE(d.summary.escalationsUpdated, 1);
    QCOMPARE(r.summary.escalationsUpdated, 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_proposal")), QStringList{QStringLiteral("1")});
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT facts FROM triage_escalation")).value(0).contains(
        QStringLiteral("the mark rules refused the automatic mark: proposal 1 (mark_success on this record state) was rejected by bob at ")));
    // The record changes: the next run proposes again.
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE idempotency_record SET updated_at = %1 WHERE idem_key = '%2'").arg(serverNowMinus(db.backend(), 1800), k("r5")));
    QCOMPARE(runReconcile(ws, client, options()).summary.keys.value(0).outcome, QStringLiteral("escalated"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state FROM triage_proposal ORDER BY id")),
             (QStringList{QStringLiteral("rejected"), QStringLiteral("open")}));
}

void TestReconcileRun::breakerAndRetryAfter()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    for (const char *n : {"b1", "b2", "b3", "b4", "b5"})
        QCOMPARE(stale(db, k(n)), QString());
    const WorkspaceConfig c = config(db);
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    ReconcileOptions o = options();
    o.concurrency = 1;
    o.breakerAfter = 2;
    m_ctl->reset();
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_500")) > 0);
    ReconcileResult r = runReconcile(ws, client, o);
    QVERIFY2(r.kind == ReconcileResult::Kind::Finished, qPrintable(r.message));
    QCOMPARE(r.summary.breakerOpen, true);
    QCOMPARE(r.summary.queried, 2);
    QCOMPARE(r.summary.byReason.value(QStringLiteral("UPSTREAM_UNUSABLE")), 5);
    QCOMPARE(m_ctl->requests().size(), 2);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'query_upstream'")),
             QStringList{QStringLiteral("2")});

    // 429 with Retry-After: 2: the key is asked again after it, and settled.
    m_ctl->clearFaults();
    m_ctl->reset();
    QCOMPARE(stale(db, k("rt")), QString());
    QVERIFY(m_ctl->fault(QStringLiteral("/tickets"), QStringLiteral("http_429"), 0, 1) > 0);
    o.limit = 0;
    o.bizType = QStringLiteral("ticket_create");
    r = runReconcile(ws, client, o);
    QVERIFY2(r.kind == ReconcileResult::Kind::Finished, qPrintable(r.message));
    QCOMPARE(r.summary.retriedAfter, 1);
    QCOMPARE(r.summary.breakerOpen, false);
    QCOMPARE(adminStatus(db, k("rt")), QStringLiteral("1"));
}

void TestReconcileRun::faultHooks_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("fault");
    for (const QString &b : backendNames())
        for (const char *f : {"after_lease", "after_answers", "after_cas:1", "before_finish"})
            QTest::newRow(qPrintable(b + QLatin1Char(' ') + QLatin1String(f))) << b << QString::fromLatin1(f);
}

void TestReconcileRun::faultHooks()
{
    QFETCH(QString, backend);
    QFETCH(QString, fault);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(staleWithTicket(db, "r4", 101), QString());
    QCOMPARE(stale(db, k("r7two")), QString());
    QCOMPARE(insertUpstreamAnswer(db, k("r7two"), QStringLiteral("NOT_FOUND"), 400), QString());
    QCOMPARE(stale(db, k("r3")), QString());
    QCOMPARE(insertTicket(db, 103, k("r3"), QStringLiteral("{\"ticket_id\":103}")), QString());
    QTemporaryDir dir;
    const QString ini = writeIni(db, dir.path());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TRIAGE_RECONCILE_FAULT"), fault);
    const CtlRun killed = runCtl({QStringLiteral("--config"), ini, QStringLiteral("reconcile")}, env);
    QVERIFY2(killed.finished && killed.exitCode == 99, killed.describe().constData());
    const CtlRun rerun = runCtl({QStringLiteral("--config"), ini, QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("reconcile")});
    QVERIFY2(rerun.ok(), rerun.describe().constData());
    // The same final state as one uninterrupted run, nothing twice.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record ORDER BY idem_key")),
             (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2")})); // r3, r4, r7two
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM triage_escalation")), QStringList{k("r3")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied' AND action LIKE 'mark%'")), QStringList{QStringLiteral("2")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state FROM triage_reconcile_run ORDER BY id")),
             (QStringList{QStringLiteral("failed"), QStringLiteral("finished")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim")), QStringList{QStringLiteral("0")});
}

QTEST_GUILESS_MAIN(TestReconcileRun)
#include "tst_reconcile_run.moc"
