// The claim store (DESIGN.md §8 "Claims") on every backend, PgBouncer included: take,
// renew, held by another, takeover (a reason of at least 10 characters), release (only by
// its holder), expiry on the server's clock, each change audited with its exact action; and
// 8 racing operators (8 threads, each its own connection) claiming one subject: exactly one
// takes it, seven are told who holds it, in every round.
#include "BackendTestUtil.h"

#include "Claim.h"
#include "ClaimGuard.h"
#include "EscalationService.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

using Kind = ClaimResult::Kind;

Outcome<ClaimResult> acquireNow(Workspace &ws, const QString &subject, const QString &who, int ttlS,
                                const QString &takeover = QString(), ClaimScope scope = ClaimScope::Key)
{
    return await(ws.worker(DbRole::Idempotency).run<ClaimResult>([=](DbSession &s) {
        return claim_sql::acquire(s, scope, subject, who, ttlS, takeover);
    }, DbWorker::Retry::Never));
}

Outcome<ClaimResult> releaseNow(Workspace &ws, const QString &subject, const QString &who, ClaimScope scope = ClaimScope::Key)
{
    return await(ws.worker(DbRole::Idempotency).run<ClaimResult>([=](DbSession &s) {
        return claim_sql::release(s, scope, subject, who);
    }, DbWorker::Retry::Never));
}

std::optional<Claim> currentNow(Workspace &ws, const QString &subject, ClaimScope scope = ClaimScope::Key)
{
    const auto o = await(ws.worker(DbRole::Idempotency).run<std::optional<Claim>>([=](DbSession &s) {
        return claim_sql::current(s, scope, subject);
    }));
    if (!o.ok())
        qWarning("current failed: %s", qPrintable(o.error->message));
    return o.ok() ? *o : std::nullopt;
}

QStringList auditRows(const TestDatabase &db)
{
    const QString row = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator, ' ', idem_key)")
        : QStringLiteral("action || ' ' || outcome || ' ' || operator || ' ' || idem_key");
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(row));
}

} // namespace

class TestClaim : public QObject {
    Q_OBJECT
private slots:
    void texts();
    void asksFirst();
    void bulkAsksFirst();
    void takeRenewReleaseTakeover_data();
    void takeRenewReleaseTakeover();
    void expiry_data();
    void expiry();
    void racingOperators_data();
    void racingOperators();
};

void TestClaim::texts()
{
    QCOMPARE(claimScopeName(ClaimScope::Key), QStringLiteral("key"));
    QCOMPARE(claimScopeName(ClaimScope::Escalation), QStringLiteral("escalation"));
    QCOMPARE(claimScopeName(ClaimScope::Reconcile), QStringLiteral("reconcile"));
    for (ClaimScope s : {ClaimScope::Key, ClaimScope::Escalation, ClaimScope::Reconcile})
        QCOMPARE(claimScopeFromName(claimScopeName(s)), std::optional<ClaimScope>(s));
    QCOMPARE(claimScopeFromName(QStringLiteral("Key")), std::nullopt);
    QStringList kinds;
    for (Kind k : {Kind::Taken, Kind::Renewed, Kind::TakenOver, Kind::Released, Kind::HeldByOther, Kind::NotHeld, Kind::Refused})
        kinds << claimKindName(k);
    QCOMPARE(kinds, (QStringList{QStringLiteral("taken"), QStringLiteral("renewed"), QStringLiteral("taken-over"),
                                 QStringLiteral("released"), QStringLiteral("held-by-other"), QStringLiteral("not-held"),
                                 QStringLiteral("refused")}));
    QCOMPARE(claimAgeText(-1), QStringLiteral("some time ago"));
    QCOMPARE(claimAgeText(0), QStringLiteral("0 s ago"));
    QCOMPARE(claimAgeText(59), QStringLiteral("59 s ago"));
    QCOMPARE(claimAgeText(60), QStringLiteral("1 min ago"));
    QCOMPARE(claimAgeText(299), QStringLiteral("4 min ago"));
    QCOMPARE(claimAgeText(3599), QStringLiteral("59 min ago"));
    QCOMPARE(claimAgeText(3600), QStringLiteral("1 h ago"));
    QCOMPARE(claimAgeText(86399), QStringLiteral("23 h ago"));
    QCOMPARE(claimAgeText(2 * 86400 + 5), QStringLiteral("2 d ago"));
    Claim c;
    c.holder = QStringLiteral("alice");
    c.ageS = 4 * 60 + 10;
    QCOMPARE(claimedByText(c), QStringLiteral("claimed by alice, 4 min ago"));
    QCOMPARE(claimAuditKey(ClaimScope::Key, QStringLiteral("ticket:create:acme:1")), QStringLiteral("ticket:create:acme:1"));
    QCOMPARE(claimAuditKey(ClaimScope::Escalation, QStringLiteral("7")), QStringLiteral("escalation:7"));
}

void TestClaim::asksFirst()
{
    // Acting on a key someone else holds asks first (DESIGN.md §8 "Claims"): whose claim, and
    // whether it is still live, counted down from the read on the caller's clock.
    Claim c;
    c.holder = QStringLiteral("alice");
    c.claimedAt = QStringLiteral("2026-12-01T10:00:00.000000Z");
    c.expiresAt = QStringLiteral("2026-12-01T10:30:00.000000Z"); // 1800 s
    c.ageS = 240;                                                 // read 4 min after it was taken: 1560 s left
    QCOMPARE(claimAsksFirst(std::nullopt, QStringLiteral("bob"), 0), false);
    QCOMPARE(claimAsksFirst(c, QStringLiteral("alice"), 0), false); // the operator's own
    QCOMPARE(claimAsksFirst(c, QStringLiteral("bob"), 0), true);
    QCOMPARE(claimAsksFirst(c, QStringLiteral("bob"), 1559999), true);
    QCOMPARE(claimAsksFirst(c, QStringLiteral("bob"), 1560000), false); // ran out since it was read
    Claim expired = c;
    expired.expired = true;
    QCOMPARE(claimAsksFirst(expired, QStringLiteral("bob"), 0), false);
    Claim unreadable = c;
    unreadable.expiresAt = QStringLiteral("soon");
    QCOMPARE(claimAsksFirst(unreadable, QStringLiteral("bob"), 1560000), true); // unknown: ask
    Claim ageUnknown = c;
    ageUnknown.ageS = -1;
    QCOMPARE(claimAsksFirst(ageUnknown, QStringLiteral("bob"), 1560000), true);
}

void TestClaim::bulkAsksFirst()
{
    // Bulk marks from the queues ask first (DESIGN.md §8): which keys, and the question.
    auto claim = [](const QString &holder) {
        Claim c;
        c.holder = holder;
        c.subject = QStringLiteral("k");
        c.claimedAt = QStringLiteral("2026-12-01T10:00:00.000000Z");
        c.expiresAt = QStringLiteral("2026-12-01T10:30:00.000000Z");
        c.ageS = 240;
        return c;
    };
    QHash<QString, Claim> claims;
    claims.insert(QStringLiteral("k1"), claim(QStringLiteral("bob")));
    claims.insert(QStringLiteral("k2"), claim(QStringLiteral("alice")));
    claims.insert(QStringLiteral("k3"), claim(QStringLiteral("erin"))); // the operator's own
    claims.insert(QStringLiteral("k4"), claim(QStringLiteral("alice")));
    const QStringList keys = {QStringLiteral("k0"), QStringLiteral("k1"), QStringLiteral("k2"), QStringLiteral("k3"),
                              QStringLiteral("k4"), QStringLiteral("k2")};
    const QVector<ClaimBlock> held = claimsAskingFirst(keys, claims, QStringLiteral("erin"), 0);
    QStringList heldKeys;
    for (const ClaimBlock &b : held)
        heldKeys << b.idemKey + QLatin1Char(':') + b.claim.holder;
    QCOMPARE(heldKeys, QStringList({QStringLiteral("k1:bob"), QStringLiteral("k2:alice"), QStringLiteral("k4:alice")}));
    QCOMPARE(bulkClaimQuestionText(held, 12),
             QStringLiteral("3 of 12 keys are claimed by others (alice: 2, bob: 1). Mark them anyway? Their claims stay; your marks are "
                            "audited as usual."));
    QCOMPARE(bulkClaimQuestionText(held.mid(0, 1), 12),
             QStringLiteral("1 of 12 keys is claimed by others (bob: 1). Mark it anyway? Its claim stays; your marks are audited as usual."));
    QCOMPARE(bulkClaimQuestionText(held.mid(0, 1), 1),
             QStringLiteral("1 of 1 key is claimed by others (bob: 1). Mark it anyway? Its claim stays; your marks are audited as usual."));
    // Ran out since the read (1560 s were left): nothing asks.
    QCOMPARE(claimsAskingFirst(keys, claims, QStringLiteral("erin"), 1560000).size(), 0);
    QCOMPARE(held.first().despiteNote(), QStringLiteral(" [despite the claim of bob on key k until 2026-12-01T10:30:00.000000Z]"));
    QCOMPARE(claimedUntilText(held.first().claim), QStringLiteral("claimed by bob, 4 min ago (until 2026-12-01T10:30:00.000000Z)"));
}

void TestClaim::takeRenewReleaseTakeover_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestClaim::takeRenewReleaseTakeover()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:c1");

    // Taken.
    const auto taken = acquireNow(ws, key, QStringLiteral("alice"), 600);
    TRIAGE_VERIFY_OUTCOME(taken);
    QCOMPARE(taken->kind, Kind::Taken);
    QCOMPARE(taken->claim->holder, QStringLiteral("alice"));
    QCOMPARE(taken->claim->version, qint64(1));
    QCOMPARE(*parseUtcMicros(taken->claim->expiresAt) - *parseUtcMicros(taken->claim->claimedAt), qint64(600) * 1000000);
    QCOMPARE(taken->message, QStringLiteral("key %1 claimed by alice until %2").arg(key, taken->claim->expiresAt));

    // Renewed by its holder: expiry moves, claimed_at stays.
    const auto renewed = acquireNow(ws, key, QStringLiteral("alice"), 1200);
    TRIAGE_VERIFY_OUTCOME(renewed);
    QCOMPARE(renewed->kind, Kind::Renewed);
    QCOMPARE(renewed->claim->claimedAt, taken->claim->claimedAt);
    QCOMPARE(renewed->claim->version, qint64(2));
    QVERIFY(*parseUtcMicros(renewed->claim->expiresAt) > *parseUtcMicros(taken->claim->expiresAt));

    // Held by another: the claim unchanged, the message says by whom; the refusal is audited.
    const auto held = acquireNow(ws, key, QStringLiteral("bob"), 600);
    TRIAGE_VERIFY_OUTCOME(held);
    QCOMPARE(held->kind, Kind::HeldByOther);
    QCOMPARE(held->claim->holder, QStringLiteral("alice"));
    QVERIFY2(held->message.startsWith(QStringLiteral("key %1 is held by alice until %2 (claimed by alice, ")
                                          .arg(key, renewed->claim->expiresAt)),
             qPrintable(held->message));
    QVERIFY2(held->message.endsWith(QStringLiteral(" ago): take it over with a reason")), qPrintable(held->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT detail FROM triage_audit WHERE action = 'claim.take' AND outcome = 'refused' "
                                                "AND operator = 'bob'")),
             QStringList{held->message});

    // A takeover needs a reason of at least 10 characters (refused and audited).
    const auto shortReason = acquireNow(ws, key, QStringLiteral("bob"), 600, QStringLiteral(" urgent "));
    TRIAGE_VERIFY_OUTCOME(shortReason);
    QCOMPARE(shortReason->kind, Kind::Refused);
    QCOMPARE(shortReason->message, QStringLiteral("a takeover needs a reason of at least 10 characters (got 6)"));
    QCOMPARE(currentNow(ws, key)->holder, QStringLiteral("alice"));

    // Released only by its holder.
    const auto notHeld = releaseNow(ws, key, QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(notHeld);
    QCOMPARE(notHeld->kind, Kind::NotHeld);
    QCOMPARE(notHeld->message, QStringLiteral("key %1 is held by alice, not by bob: nothing released").arg(key));

    // Taken over with a reason.
    const auto over = acquireNow(ws, key, QStringLiteral("bob"), 600, QStringLiteral("alice is off sick today"));
    TRIAGE_VERIFY_OUTCOME(over);
    QCOMPARE(over->kind, Kind::TakenOver);
    QCOMPARE(over->claim->holder, QStringLiteral("bob"));
    QCOMPARE(over->claim->reason, QStringLiteral("alice is off sick today"));
    QCOMPARE(over->claim->version, qint64(3));
    QCOMPARE(over->message, QStringLiteral("key %1 taken over by bob from alice (held until %2) until %3")
                                .arg(key, renewed->claim->expiresAt, over->claim->expiresAt));

    const auto released = releaseNow(ws, key, QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(released);
    QCOMPARE(released->kind, Kind::Released);
    QCOMPARE(released->message, QStringLiteral("key %1 released by bob").arg(key));
    QCOMPARE(currentNow(ws, key), std::nullopt);
    const auto free = releaseNow(ws, key, QStringLiteral("bob"));
    TRIAGE_VERIFY_OUTCOME(free);
    QCOMPARE(free->kind, Kind::NotHeld);
    QCOMPARE(free->message, QStringLiteral("key %1 is not claimed").arg(key));

    // Bad input: nothing written.
    const auto noTtl = acquireNow(ws, key, QStringLiteral("bob"), 0);
    TRIAGE_VERIFY_OUTCOME(noTtl);
    QCOMPARE(noTtl->kind, Kind::Refused);
    QCOMPARE(noTtl->message, QStringLiteral("a claim lasts 1 to 86400 seconds (got 0)"));

    // An escalation's claim is audited under "escalation:<id>"; the run lease is not audited.
    const auto esc = acquireNow(ws, QStringLiteral("7"), QStringLiteral("carol"), 60, QString(), ClaimScope::Escalation);
    TRIAGE_VERIFY_OUTCOME(esc);
    QCOMPARE(esc->kind, Kind::Taken);
    QCOMPARE(esc->message, QStringLiteral("escalation 7 claimed by carol until %1").arg(esc->claim->expiresAt));
    const auto lease = acquireNow(ws, QStringLiteral("reconcile"), QStringLiteral("reconciler:host:42"), 60, QString(), ClaimScope::Reconcile);
    TRIAGE_VERIFY_OUTCOME(lease);
    QCOMPARE(lease->kind, Kind::Taken);
    const auto lease2 = acquireNow(ws, QStringLiteral("reconcile"), QStringLiteral("reconciler:host:43"), 60, QString(), ClaimScope::Reconcile);
    TRIAGE_VERIFY_OUTCOME(lease2);
    QCOMPARE(lease2->kind, Kind::HeldByOther);
    QCOMPARE(lease2->claim->holder, QStringLiteral("reconciler:host:42"));

    QCOMPARE(auditRows(db), (QStringList{QStringLiteral("claim.take applied alice %1").arg(key),
                                         QStringLiteral("claim.take applied alice %1").arg(key),
                                         QStringLiteral("claim.take refused bob %1").arg(key), // held by alice
                                         QStringLiteral("claim.takeover refused bob %1").arg(key),
                                         QStringLiteral("claim.takeover applied bob %1").arg(key),
                                         QStringLiteral("claim.release applied bob %1").arg(key),
                                         QStringLiteral("claim.take applied carol escalation:7")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT reason FROM triage_audit WHERE action = 'claim.takeover' ORDER BY id")),
             (QStringList{QStringLiteral("urgent"), QStringLiteral("alice is off sick today")}));

    // Listing and the service's read-only refusal.
    const auto listed = await(listClaims(ws, false));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 2);
    const auto active = await(activeClaims(ws, ClaimScope::Escalation, {QStringLiteral("7"), QStringLiteral("8")}));
    TRIAGE_VERIFY_OUTCOME(active);
    QCOMPARE(active->keys(), QList<QString>{QStringLiteral("7")});
    QCOMPARE(active->value(QStringLiteral("7")).holder, QStringLiteral("carol"));
    WorkspaceConfig ro = db.config();
    ro.readOnly = true;
    ro.operatorName = QStringLiteral("dave");
    Workspace readOnly(ro);
    const auto refused = await(takeClaim(readOnly, ClaimScope::Key, key, 60));
    TRIAGE_VERIFY_OUTCOME(refused);
    QCOMPARE(refused->kind, Kind::Refused);
    QCOMPARE(refused->message, QStringLiteral("read-only mode: claims cannot be taken (started with --read-only or read_only=true)"));
    const auto refusedRelease = await(releaseClaim(readOnly, ClaimScope::Escalation, QStringLiteral("7")));
    TRIAGE_VERIFY_OUTCOME(refusedRelease);
    QCOMPARE(refusedRelease->kind, Kind::Refused);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("7")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim")), QStringList{QStringLiteral("2")});
}

void TestClaim::expiry_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestClaim::expiry()
{
    // A 1 s claim expires on the server's clock: once the server's now passes expires_at
    // (waited for by asking the server, bounded), anyone may take it without a reason; its
    // holder may still release its own expired claim before that.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:exp");
    const auto taken = acquireNow(ws, key, QStringLiteral("alice"), 1);
    TRIAGE_VERIFY_OUTCOME(taken);
    QCOMPARE(taken->kind, Kind::Taken);
    QVERIFY2(QTest::qWaitFor([&] { return !currentNow(ws, key).has_value(); }, 20000), "the claim did not expire on the server's clock");
    const auto listedAll = await(listClaims(ws, true));
    TRIAGE_VERIFY_OUTCOME(listedAll);
    QCOMPARE(listedAll->size(), 1);
    const auto listedLive = await(listClaims(ws, false));
    TRIAGE_VERIFY_OUTCOME(listedLive);
    QCOMPARE(listedLive->size(), 0);

    const auto after = acquireNow(ws, key, QStringLiteral("bob"), 600);
    TRIAGE_VERIFY_OUTCOME(after);
    QCOMPARE(after->kind, Kind::Taken);
    QCOMPARE(after->claim->holder, QStringLiteral("bob"));
    QCOMPARE(after->claim->version, qint64(2));
    QCOMPARE(after->message, QStringLiteral("key %1 claimed by bob until %2 (the claim of alice had expired)").arg(key, after->claim->expiresAt));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT reason FROM triage_audit ORDER BY id")),
             (QStringList{QStringLiteral("claimed for 1 s"), QStringLiteral("claimed for 600 s (the claim of alice had expired)")}));
    // alice's expired claim is bob's now: she cannot release it.
    const auto late = releaseNow(ws, key, QStringLiteral("alice"));
    TRIAGE_VERIFY_OUTCOME(late);
    QCOMPARE(late->kind, Kind::NotHeld);

    // A holder releases its own expired claim.
    const QString key2 = QStringLiteral("ticket:create:acme:exp2");
    TRIAGE_VERIFY_OUTCOME(acquireNow(ws, key2, QStringLiteral("carol"), 1));
    QVERIFY2(QTest::qWaitFor([&] { return !currentNow(ws, key2).has_value(); }, 20000), "the claim did not expire on the server's clock");
    const auto own = releaseNow(ws, key2, QStringLiteral("carol"));
    TRIAGE_VERIFY_OUTCOME(own);
    QCOMPARE(own->kind, Kind::Released);
}

void TestClaim::racingOperators_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestClaim::racingOperators()
{
    // 8 operators (8 threads, each its own connection) claim the same subject at once, 20
    // times over: exactly one Taken, seven HeldByOther naming the winner; one applied audit row
    // and seven refused ones per round.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    constexpr int kOperators = 8;
    constexpr int kRounds = 20;
    std::vector<std::unique_ptr<Workspace>> operators;
    for (int i = 0; i < kOperators; ++i) {
        WorkspaceConfig c = db.config();
        c.operatorName = QStringLiteral("op%1").arg(i);
        operators.push_back(std::make_unique<Workspace>(c));
    }
    // Every connection open before the race, so the rounds race on the claim, not on logins.
    for (auto &w : operators)
        TRIAGE_VERIFY_OUTCOME(await(listClaims(*w, false)));
    for (int round = 0; round < kRounds; ++round) {
        const QString key = QStringLiteral("ticket:create:acme:race%1").arg(round);
        QList<QFuture<Outcome<ClaimResult>>> futures;
        for (auto &w : operators)
            futures << takeClaim(*w, ClaimScope::Key, key, 600);
        int taken = 0, held = 0;
        QString winner;
        QStringList holdersSeen;
        for (auto &f : futures) {
            const auto o = await(f);
            TRIAGE_VERIFY_OUTCOME(o);
            if (o->kind == Kind::Taken) {
                ++taken;
                winner = o->claim->holder;
            } else if (o->kind == Kind::HeldByOther) {
                ++held;
                holdersSeen << o->claim->holder;
            } else {
                QFAIL(qPrintable(QStringLiteral("round %1: %2: %3").arg(round).arg(claimKindName(o->kind), o->message)));
            }
        }
        QCOMPARE(taken, 1);
        QCOMPARE(held, kOperators - 1);
        for (const QString &h : std::as_const(holdersSeen))
            QCOMPARE(h, winner);
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT holder FROM triage_claim WHERE subject = '%1'").arg(key)), QStringList{winner});
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'claim.take' AND outcome = 'applied'")),
             QStringList{QString::number(kRounds)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'claim.take' AND outcome = 'refused'")),
             QStringList{QString::number(kRounds * (kOperators - 1))});
}

QTEST_GUILESS_MAIN(TestClaim)
#include "tst_claim.moc"
