// The escalation store (DESIGN.md §8 "Escalations") on every backend, PgBouncer included:
// reason names, the automatic resolution rules (every reason × state, exact text), raise and
// rerun (facts and last_seen_at move, the age and the SLA never do, one open row per key and
// reason), concurrent raises from several connections, EXTERNAL never reopened by the same
// intent row, resolve (Resolved / Conflict / Refused / NotFound, each audited as it happened)
// and the console schema version.
#include "BackendTestUtil.h"
#include "EscalationTestUtil.h"

#include "ConsoleSchema.h"
#include "Escalation.h"
#include "EscalationService.h"
#include "Workspace.h"

#include <QDateTime>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

using RaiseKind = EscalationRaiseResult::Kind;
using ResolveKind = escalation_sql::EscalationResolveResult::Kind;

Outcome<escalation_sql::EscalationResolveResult> resolveNow(Workspace &ws, qint64 id, const QString &text, const QString &who,
                                                            std::optional<qint64> version = std::nullopt)
{
    return await(ws.worker(DbRole::Idempotency).run<escalation_sql::EscalationResolveResult>([=](DbSession &s) {
        return escalation_sql::resolve(s, id, text, who, version);
    }, DbWorker::Retry::Never));
}

QVector<Escalation> listNow(Workspace &ws, const EscalationQuery &q)
{
    const auto o = await(ws.worker(DbRole::Idempotency).run<QVector<Escalation>>([q](DbSession &s) { return escalation_sql::list(s, q); }));
    if (!o.ok())
        qWarning("list failed: %s", qPrintable(o.error->message));
    return o.ok() ? *o : QVector<Escalation>();
}

/// "action outcome operator idem_key" of every audit row, oldest first.
QStringList auditRows(const TestDatabase &db)
{
    const QString row = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator, ' ', idem_key)")
        : QStringLiteral("action || ' ' || outcome || ' ' || operator || ' ' || idem_key");
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(row));
}

} // namespace

class TestEscalation : public QObject {
    Q_OBJECT
private slots:
    void reasonNames();
    void automaticResolution_data();
    void automaticResolution();
    void raiseAndRerun_data();
    void raiseAndRerun();
    void concurrentRaises_data();
    void concurrentRaises();
    void externalNotReopened_data();
    void externalNotReopened();
    void resolveOutcomes_data();
    void resolveOutcomes();
    void schemaVersion_data();
    void schemaVersion();
    void expiringSla_data() { raiseAndRerun_data(); }
    void expiringSla();
};

void TestEscalation::reasonNames()
{
    const QStringList expected{QStringLiteral("CONTRADICTION"),     QStringLiteral("AGENT_SAW_SUCCESS"), QStringLiteral("DUPLICATE"),
                               QStringLiteral("KEY_REUSE"),         QStringLiteral("UPSTREAM_UNUSABLE"), QStringLiteral("NO_QUERY_API"),
                               QStringLiteral("AMOUNT_MISMATCH"),   QStringLiteral("EXPIRING"),          QStringLiteral("STUCK_COMPENSATION"),
                               QStringLiteral("POLICY"),            QStringLiteral("EXTERNAL")};
    QStringList names;
    for (EscalationReason r : allEscalationReasons()) {
        names << escalationReasonName(r);
        QCOMPARE(escalationReasonFromName(escalationReasonName(r)), std::optional<EscalationReason>(r));
    }
    QCOMPARE(names, expected);
    for (const char *bad : {"", "contradiction", " POLICY", "POLICY ", "UNKNOWN", "EXTERNAL_"})
        QCOMPARE(escalationReasonFromName(QString::fromLatin1(bad)), std::nullopt);
    QCOMPARE(escalationNeedsOperator(EscalationReason::AmountMismatch), true);
    QCOMPARE(escalationNeedsOperator(EscalationReason::Contradiction), true);
    QCOMPARE(escalationNeedsOperator(EscalationReason::External), true);
    QCOMPARE(escalationNeedsOperator(EscalationReason::Duplicate), false);
}

void TestEscalation::automaticResolution_data()
{
    // Every reason × the states that decide it: settled record, live tickets (-1 unknown,
    // 0, 1, 2), a settled compensation; the exact text, or "" for "an operator only".
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("settled");
    QTest::addColumn<int>("live");
    QTest::addColumn<bool>("compensated");
    QTest::addColumn<QString>("expected");
    const QString noLive = QStringLiteral("automatic: no live ticket of the key remains");
    const QString oneLive = QStringLiteral("automatic: one live ticket of the key remains");
    const QString settled = QStringLiteral("automatic: the record is settled (SUCCESS or FAILED)");
    const QString expiring = QStringLiteral("automatic: the key is settled, a retry after the purge cannot run it again");
    const QString compensated = QStringLiteral("automatic: the compensation reached a final state");
    struct State {
        bool settled;
        int live;
        bool compensated;
    };
    const State states[] = {{false, -1, false}, {true, -1, false}, {false, 0, false}, {false, 1, false},
                            {false, 2, false},  {true, 2, true},   {false, -1, true}, {true, 1, true}};
    for (EscalationReason r : allEscalationReasons()) {
        for (const State &s : states) {
            QString want;
            switch (r) {
            case EscalationReason::Duplicate:
            case EscalationReason::KeyReuse: want = s.live == 0 ? noLive : s.live == 1 ? oneLive : QString(); break;
            case EscalationReason::StuckCompensation: want = s.compensated ? compensated : QString(); break;
            case EscalationReason::Expiring: want = s.settled ? expiring : QString(); break;
            case EscalationReason::AgentSawSuccess:
            case EscalationReason::UpstreamUnusable:
            case EscalationReason::NoQueryApi:
            case EscalationReason::Policy: want = s.settled ? settled : QString(); break;
            case EscalationReason::AmountMismatch:
            case EscalationReason::Contradiction:
            case EscalationReason::External: break;
            }
            QTest::addRow("%s settled=%d live=%d comp=%d", qPrintable(escalationReasonName(r)), s.settled, s.live, s.compensated)
                << escalationReasonName(r) << s.settled << s.live << s.compensated << want;
        }
    }
}

void TestEscalation::automaticResolution()
{
    QFETCH(QString, reason);
    QFETCH(bool, settled);
    QFETCH(int, live);
    QFETCH(bool, compensated);
    QFETCH(QString, expected);
    Escalation e;
    e.reason = *escalationReasonFromName(reason);
    EscalationState now;
    now.recordSettled = settled;
    now.liveTickets = live;
    now.compensationSettled = compensated;
    const std::optional<QString> got = triage::automaticResolution(e, now);
    QCOMPARE(got.value_or(QString()), expected);
    QCOMPARE(got.has_value(), !expected.isEmpty());
    // A resolved escalation is never resolved again.
    e.resolvedAt = QStringLiteral("2026-12-01T10:00:00.000000Z");
    QCOMPARE(triage::automaticResolution(e, now), std::nullopt);
}

void TestEscalation::raiseAndRerun_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestEscalation::raiseAndRerun()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:r1");

    EscalationRaise r = escalationOf(key, EscalationReason::UpstreamUnusable);
    r.amount = QStringLiteral("12.50");
    r.currency = QStringLiteral("EUR");
    r.slaHours = 24;
    const auto created = raiseNow(ws, r);
    TRIAGE_VERIFY_OUTCOME(created);
    QCOMPARE(created->kind, RaiseKind::Created);
    const Escalation first = created->escalation;
    QVERIFY(first.id > 0);
    QCOMPARE(first.idemKey, key);
    QCOMPARE(first.bizType, QStringLiteral("ticket_create"));
    QCOMPARE(first.tenant, QStringLiteral("acme"));
    QCOMPARE(first.reason, EscalationReason::UpstreamUnusable);
    QCOMPARE(first.facts, QStringLiteral("{\"n\":1}"));
    QCOMPARE(first.amount, std::optional<QString>(QStringLiteral("12.50")));
    QCOMPARE(first.currency, QStringLiteral("EUR"));
    QCOMPARE(first.runId, qint64(1));
    QCOMPARE(first.version, qint64(1));
    QVERIFY(first.isOpen());
    QVERIFY2(isCanonicalTime(first.firstEscalatedAt), qPrintable(first.firstEscalatedAt));
    QCOMPARE(first.lastSeenAt, first.firstEscalatedAt);
    // The SLA is first_escalated_at + review_sla_hours on the server's clock, exactly.
    QCOMPARE(*parseUtcMicros(first.slaDueAt) - *parseUtcMicros(first.firstEscalatedAt), qint64(24) * 3600 * 1000000);
    QVERIFY(!first.overdue);

    // A rerun updates facts, amount, run and last_seen_at; never the age or the SLA. An
    // unknown amount or an empty currency keeps what was known.
    EscalationRaise again = escalationOf(key, EscalationReason::UpstreamUnusable, QStringLiteral("{\"n\":2}"));
    again.runId = 2;
    again.slaHours = 1;
    const auto updated = raiseNow(ws, again);
    TRIAGE_VERIFY_OUTCOME(updated);
    QCOMPARE(updated->kind, RaiseKind::Updated);
    const Escalation second = updated->escalation;
    QCOMPARE(second.id, first.id);
    QCOMPARE(second.facts, QStringLiteral("{\"n\":2}"));
    QCOMPARE(second.runId, qint64(2));
    QCOMPARE(second.version, qint64(2));
    QCOMPARE(second.amount, std::optional<QString>(QStringLiteral("12.50")));
    QCOMPARE(second.currency, QStringLiteral("EUR"));
    QCOMPARE(second.firstEscalatedAt, first.firstEscalatedAt);
    QCOMPARE(second.slaDueAt, first.slaDueAt);
    QVERIFY2(*parseUtcMicros(second.lastSeenAt) >= *parseUtcMicros(first.lastSeenAt), qPrintable(second.lastSeenAt));

    // Another reason of the same key is its own escalation.
    const auto other = raiseNow(ws, escalationOf(key, EscalationReason::Expiring));
    TRIAGE_VERIFY_OUTCOME(other);
    QCOMPARE(other->kind, RaiseKind::Created);
    QVERIFY(other->escalation.id != first.id);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE open_slot = 1")), QStringList{QStringLiteral("2")});

    // Resolved, then seen again: a new open escalation with its own age.
    const auto resolved = resolveNow(ws, first.id, QStringLiteral("upstream answered after the outage"), QStringLiteral("alice"));
    TRIAGE_VERIFY_OUTCOME(resolved);
    QCOMPARE(resolved->kind, ResolveKind::Resolved);
    const auto reopened = raiseNow(ws, escalationOf(key, EscalationReason::UpstreamUnusable, QStringLiteral("{\"n\":3}")));
    TRIAGE_VERIFY_OUTCOME(reopened);
    QCOMPARE(reopened->kind, RaiseKind::Created);
    QVERIFY(reopened->escalation.id != first.id);
    QCOMPARE(reopened->escalation.version, qint64(1));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE idem_key = '%1' AND reason = "
                                                "'UPSTREAM_UNUSABLE'").arg(key)),
             QStringList{QStringLiteral("2")});

    // Only creations are audited (a rerun keeps its facts in the row), plus the resolution.
    QCOMPARE(auditRows(db), (QStringList{QStringLiteral("escalation.raise applied reconciler %1").arg(key),
                                         QStringLiteral("escalation.raise applied reconciler %1").arg(key),
                                         QStringLiteral("escalation.resolve applied alice %1").arg(key),
                                         QStringLiteral("escalation.raise applied reconciler %1").arg(key)}));

    // Listing: open ones oldest first; filters by reason, key, biz_type.
    EscalationQuery q;
    QCOMPARE(listNow(ws, q).size(), 2);
    q.reason = EscalationReason::Expiring;
    QCOMPARE(listNow(ws, q).size(), 1);
    q = EscalationQuery();
    q.openOnly = false;
    q.idemKey = key;
    QCOMPARE(listNow(ws, q).size(), 3);
    q.bizType = QStringLiteral("other");
    QCOMPARE(listNow(ws, q).size(), 0);
    const auto forKeys = await(ws.worker(DbRole::Idempotency).run<QVector<Escalation>>([key](DbSession &s) {
        return escalation_sql::openForKeys(s, {key, QStringLiteral("ticket:create:acme:none")});
    }));
    TRIAGE_VERIFY_OUTCOME(forKeys);
    QCOMPARE(forKeys->size(), 2);
}

void TestEscalation::concurrentRaises_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestEscalation::concurrentRaises()
{
    // 8 connections raise the same key+reason at once: exactly one open row, created once,
    // updated by the seven others (version 8), on every backend.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    constexpr int kWriters = 8;
    constexpr int kRounds = 10;
    std::vector<std::unique_ptr<Workspace>> writers;
    for (int w = 0; w < kWriters; ++w)
        writers.push_back(std::make_unique<Workspace>(db.config()));
    for (int round = 0; round < kRounds; ++round) {
        const QString key = QStringLiteral("ticket:create:acme:race%1").arg(round);
        QList<QFuture<Outcome<EscalationRaiseResult>>> futures;
        for (int w = 0; w < kWriters; ++w) {
            const EscalationRaise r = escalationOf(key, EscalationReason::NoQueryApi, QStringLiteral("{\"writer\":%1}").arg(w));
            futures << raiseLater(*writers[w], r);
        }
        int createdCount = 0, updatedCount = 0;
        QSet<qint64> ids;
        for (auto &f : futures) {
            const auto o = await(f);
            TRIAGE_VERIFY_OUTCOME(o);
            createdCount += o->kind == RaiseKind::Created;
            updatedCount += o->kind == RaiseKind::Updated;
            ids.insert(o->escalation.id);
        }
        QCOMPARE(createdCount, 1);
        QCOMPARE(updatedCount, kWriters - 1);
        QCOMPARE(ids.size(), 1);
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE idem_key = '%1'").arg(key)),
                 QStringList{QStringLiteral("1")});
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT version FROM triage_escalation WHERE idem_key = '%1'").arg(key)),
                 QStringList{QString::number(kWriters)});
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'escalation.raise'")),
             QStringList{QString::number(kRounds)});
}

void TestEscalation::externalNotReopened_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestEscalation::externalNotReopened()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:ext");
    EscalationRaise r = escalationOf(key, EscalationReason::External);
    r.sourceRef = QStringLiteral("intent:5");
    const auto created = raiseNow(ws, r);
    TRIAGE_VERIFY_OUTCOME(created);
    QCOMPARE(created->kind, RaiseKind::Created);
    QCOMPARE(created->escalation.sourceRef, QStringLiteral("intent:5"));
    // The reconciler may not close it: an operator only, with a reason.
    const auto byRun = resolveNow(ws, created->escalation.id, QStringLiteral("automatic: the record is settled"), reconcilerOperator());
    TRIAGE_VERIFY_OUTCOME(byRun);
    QCOMPARE(byRun->kind, ResolveKind::Refused);
    QCOMPARE(byRun->message, QStringLiteral("escalation %1 (EXTERNAL) is resolved by an operator only, with a reason").arg(created->escalation.id));
    const auto done = resolveNow(ws, created->escalation.id, QStringLiteral("agent's step checked by hand"), QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(done);
    QCOMPARE(done->kind, ResolveKind::Resolved);

    // The same intent row seen again: never reopened, nothing written.
    const auto again = raiseNow(ws, r);
    TRIAGE_VERIFY_OUTCOME(again);
    QCOMPARE(again->kind, RaiseKind::NotReopened);
    QCOMPARE(again->escalation.id, created->escalation.id);
    QCOMPARE(again->escalation.resolvedBy, QStringLiteral("bob"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_escalation")), QStringList{QStringLiteral("1")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("3")});

    // Another ESCALATED step of the key is a new escalation.
    r.sourceRef = QStringLiteral("intent:7");
    const auto next = raiseNow(ws, r);
    TRIAGE_VERIFY_OUTCOME(next);
    QCOMPARE(next->kind, RaiseKind::Created);
    QCOMPARE(next->escalation.sourceRef, QStringLiteral("intent:7"));
}

void TestEscalation::resolveOutcomes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestEscalation::resolveOutcomes()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:res");
    const auto a = raiseNow(ws, escalationOf(key, EscalationReason::Contradiction));
    TRIAGE_VERIFY_OUTCOME(a);
    const qint64 id = a->escalation.id;

    // Refused: a short reason (audited, nothing changed).
    const auto shortReason = resolveNow(ws, id, QStringLiteral("  ok done "), QStringLiteral("alice"));
    TRIAGE_VERIFY_OUTCOME(shortReason);
    QCOMPARE(shortReason->kind, ResolveKind::Refused);
    QCOMPARE(shortReason->message, QStringLiteral("resolving an escalation needs a reason of at least 10 characters (got 7)"));
    // Refused: the reconciler on an operator-only reason.
    const auto byRun = resolveNow(ws, id, QStringLiteral("automatic: one live ticket of the key remains"), reconcilerOperator());
    TRIAGE_VERIFY_OUTCOME(byRun);
    QCOMPARE(byRun->kind, ResolveKind::Refused);
    QCOMPARE(byRun->message, QStringLiteral("escalation %1 (CONTRADICTION) is resolved by an operator only, with a reason").arg(id));

    // Conflict: the version moved (a rerun updated its facts since the operator read it).
    const auto rerun = raiseNow(ws, escalationOf(key, EscalationReason::Contradiction, QStringLiteral("{\"n\":2}")));
    TRIAGE_VERIFY_OUTCOME(rerun);
    QCOMPARE(rerun->escalation.version, qint64(2));
    const auto stale = resolveNow(ws, id, QStringLiteral("ticket confirmed with the vendor"), QStringLiteral("alice"), 1);
    TRIAGE_VERIFY_OUTCOME(stale);
    QCOMPARE(stale->kind, ResolveKind::Conflict);
    QCOMPARE(stale->message, QStringLiteral("escalation %1 (CONTRADICTION) changed since it was read (version 2 now, 1 expected)").arg(id));
    QVERIFY(stale->current->isOpen());

    // Resolved with the version seen.
    const auto ok = resolveNow(ws, id, QStringLiteral("ticket confirmed with the vendor"), QStringLiteral("alice"), 2);
    TRIAGE_VERIFY_OUTCOME(ok);
    QCOMPARE(ok->kind, ResolveKind::Resolved);
    QCOMPARE(ok->message, QStringLiteral("escalation %1 (CONTRADICTION) of %2 resolved").arg(id).arg(key));
    QCOMPARE(ok->current->resolution, QStringLiteral("ticket confirmed with the vendor"));
    QCOMPARE(ok->current->resolvedBy, QStringLiteral("alice"));
    QCOMPARE(ok->current->version, qint64(3));
    QVERIFY(isCanonicalTime(ok->current->resolvedAt));
    QVERIFY(!ok->current->isOpen());

    // Conflict: already resolved.
    const auto twice = resolveNow(ws, id, QStringLiteral("second opinion from bob"), QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(twice);
    QCOMPARE(twice->kind, ResolveKind::Conflict);
    QCOMPARE(twice->message, QStringLiteral("escalation %1 (CONTRADICTION) is already resolved by alice at %2: ticket confirmed with the vendor")
                                 .arg(id)
                                 .arg(ok->current->resolvedAt));
    // NotFound: nothing audited.
    const auto missing = resolveNow(ws, 999, QStringLiteral("no such escalation here"), QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(missing);
    QCOMPARE(missing->kind, ResolveKind::NotFound);
    QCOMPARE(missing->message, QStringLiteral("no escalation 999"));

    QCOMPARE(auditRows(db), (QStringList{QStringLiteral("escalation.raise applied reconciler %1").arg(key),
                                         QStringLiteral("escalation.resolve refused alice %1").arg(key),
                                         QStringLiteral("escalation.resolve refused reconciler %1").arg(key),
                                         QStringLiteral("escalation.resolve conflict alice %1").arg(key),
                                         QStringLiteral("escalation.resolve applied alice %1").arg(key),
                                         QStringLiteral("escalation.resolve conflict bob %1").arg(key)}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT reason FROM triage_audit WHERE outcome = 'applied' AND action = 'escalation.resolve'")),
             QStringList{QStringLiteral("ticket confirmed with the vendor")});

    // The service: read-only mode refuses without writing.
    WorkspaceConfig ro = db.config();
    ro.readOnly = true;
    Workspace readOnly(ro);
    const auto b = raiseNow(ws, escalationOf(key, EscalationReason::Duplicate));
    TRIAGE_VERIFY_OUTCOME(b);
    const auto refused = await(resolveEscalation(readOnly, b->escalation.id, QStringLiteral("one ticket cancelled by hand")));
    TRIAGE_VERIFY_OUTCOME(refused);
    QCOMPARE(refused->kind, ResolveKind::Refused);
    QCOMPARE(refused->message, QStringLiteral("read-only mode: escalations cannot be resolved (started with --read-only or read_only=true)"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("7")});
    // The reconciler resolves DUPLICATE by its rule.
    const auto rule = resolveNow(ws, b->escalation.id, QStringLiteral("automatic: one live ticket of the key remains"), reconcilerOperator());
    TRIAGE_VERIFY_OUTCOME(rule);
    QCOMPARE(rule->kind, ResolveKind::Resolved);
    QCOMPARE(rule->current->resolvedBy, QStringLiteral("reconciler"));
}

void TestEscalation::schemaVersion_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestEscalation::schemaVersion()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    // A database an older init-schema brought to version 3: no escalation tables.
    for (const char *t : {"triage_escalation", "triage_claim", "triage_reconcile_run"})
        TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE %1").arg(QLatin1String(t)));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '3' WHERE meta_key = 'schema_version'"));
    {
        Workspace ws(db.config());
        const auto listed = await(listEscalations(ws, EscalationQuery()));
        QVERIFY(!listed.ok());
        QCOMPARE(listed.error->kind, DbError::Kind::Config);
        QCOMPARE(listed.error->message, QStringLiteral("the idempotency database has no escalation tables (console schema version 3; "
                                                       "escalations and claims need version 4): run `triagectl init-schema`"));
        // Claims decorate queues: a version-3 database has none, and that is no error.
        const auto claims = await(activeClaims(ws, ClaimScope::Key, {QStringLiteral("k")}));
        TRIAGE_VERIFY_OUTCOME(claims);
        QVERIFY(claims->isEmpty());
        TRIAGE_OK(setUpSchema(ws));
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT meta_value FROM triage_meta WHERE meta_key = 'schema_version'")),
             QStringList{QString::number(kConsoleSchemaVersion)});
    QCOMPARE(kConsoleSchemaVersion, 7);
    // A newer console brought the database to version 8: raising is refused, listing works.
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '8' WHERE meta_key = 'schema_version'"));
    Workspace ws(db.config());
    const auto raised = raiseNow(ws, escalationOf(QStringLiteral("k"), EscalationReason::Policy));
    QVERIFY(!raised.ok());
    QCOMPARE(raised.error->kind, DbError::Kind::Refused);
    QCOMPARE(raised.error->message, QStringLiteral("the idempotency database has console schema version 8; this build knows "
                                                   "version 7: upgrade the console before writing"));
    const auto listed = await(listEscalations(ws, EscalationQuery()));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 0);
}

/// EXPIRING is due by the record's expire_at when that comes before first_escalated_at +
/// review_sla_hours (DESIGN.md §8 "Tables": sla_due_at = min(first + hours, expire_at)).
void TestEscalation::expiringSla()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    // Expiring in 2 h (this machine's clock; the server is the same machine): due then.
    EscalationRaise soon = escalationOf(QStringLiteral("ticket:create:acme:x1"), EscalationReason::Expiring);
    const UtcMicros inTwoHours = QDateTime::currentMSecsSinceEpoch() * 1000 + qint64(2) * 3600 * 1000000 + 250000;
    soon.dueBy = inTwoHours;
    const auto a = raiseNow(ws, soon);
    TRIAGE_VERIFY_OUTCOME(a);
    QCOMPARE(a->escalation.slaDueAt, formatUtcMicros(inTwoHours));
    // Expired before anyone looked: due at once, never before the escalation existed.
    EscalationRaise gone = escalationOf(QStringLiteral("ticket:create:acme:x3"), EscalationReason::Expiring);
    gone.dueBy = parseUtcMicros(u"2026-01-01T06:30:00.250000Z");
    const auto c = raiseNow(ws, gone);
    TRIAGE_VERIFY_OUTCOME(c);
    QCOMPARE(c->escalation.slaDueAt, c->escalation.firstEscalatedAt);
    EscalationRaise late = escalationOf(QStringLiteral("ticket:create:acme:x2"), EscalationReason::Expiring);
    late.dueBy = parseUtcMicros(u"2099-01-01T00:00:00.000000Z");
    late.slaHours = 24;
    const auto b = raiseNow(ws, late);
    TRIAGE_VERIFY_OUTCOME(b);
    QCOMPARE(*parseUtcMicros(b->escalation.slaDueAt) - *parseUtcMicros(b->escalation.firstEscalatedAt), qint64(24) * 3600 * 1000000);
}

QTEST_GUILESS_MAIN(TestEscalation)
#include "tst_escalation.moc"
