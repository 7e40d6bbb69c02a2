// Four-eyes proposals (DESIGN.md §9 "Four-eyes") on every backend: a mark the policy gives to a
// second operator becomes a proposal; the proposer (any spelling of the name, and raw SQL
// against the table) cannot approve it; the proposer's database user cannot either unless the
// policy says operators share one; another operator applies it; an edited, expired, rejected
// proposal or a record that changed meanwhile applies nothing.
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"

#include "Mark.h"
#include "Policy.h"
#include "Proposal.h"
#include "SafetyPolicy.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

class TestFourEyes : public QObject {
    Q_OBJECT
private slots:
    void policyValues();
    void proposeAndApprove_data();
    void proposeAndApprove();
    void amountRule();
    void amountOver_data();
    void amountOver();
    void policyUnderFourEyes_data();
    void policyUnderFourEyes();
};

void TestFourEyes::policyValues()
{
    QString why;
    QCOMPARE(*checkPolicyValue(QStringLiteral("four_eyes"), QStringLiteral(" Mark_Failed, mark_success,mark_failed"), &why),
             QStringLiteral("mark_success,mark_failed"));
    QCOMPARE(*checkPolicyValue(QStringLiteral("four_eyes"), QStringLiteral("NONE"), &why), QStringLiteral("none"));
    QCOMPARE(*checkPolicyValue(QStringLiteral("four_eyes"), QStringLiteral("Compensate, mark_success"), &why),
             QStringLiteral("mark_success,compensate"));
    QVERIFY(!checkPolicyValue(QStringLiteral("four_eyes"), QStringLiteral("mark_success,refund"), &why));
    QCOMPARE(why, QStringLiteral("bad value \"mark_success,refund\" for four_eyes: must be none or a comma-separated list of "
                                 "mark_success, mark_failed, compensate"));
    QVERIFY(requiresFourEyesCompensation(bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("compensate")}}, QStringLiteral("pay"))));
    QVERIFY(!requiresFourEyesCompensation(bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("mark_success,mark_failed")}}, QStringLiteral("pay"))));
    QVERIFY(!checkPolicyValue(QStringLiteral("four_eyes_db_users"), QStringLiteral("nobody"), &why));
    QCOMPARE(why, QStringLiteral("bad value \"nobody\" for four_eyes_db_users: must be own or shared"));
    const std::optional<PolicyName> global = parsePolicyName(QStringLiteral("four_eyes_db_users"), &why);
    QVERIFY(global && global->bizType.isEmpty() && global->setting == QLatin1String("four_eyes_db_users"));
    QVERIFY(!parsePolicyName(QStringLiteral("biz.pay.four_eyes_db_users"), &why));

    // The union is stricter: an INI can add actions, never remove the database's.
    const BizPolicy db = bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("mark_failed")}}, QStringLiteral("pay"));
    const BizPolicy ini = bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("none")}}, QStringLiteral("pay"));
    const BizPolicy merged = stricterPolicy(db, ini);
    QCOMPARE(*merged.fourEyes, int(FourEyesMarkFailed));
    QVERIFY(requiresFourEyes(merged, Failed) && !requiresFourEyes(merged, Success));
    const BizPolicy more = stricterPolicy(db, bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("mark_success")}},
                                                                QStringLiteral("pay")));
    QCOMPARE(fourEyesText(*more.fourEyes), QStringLiteral("mark_success,mark_failed"));
    QVERIFY(!requiresFourEyes(BizPolicy(), Failed));

    // The expected state survives the proposal's JSON exactly.
    ExpectedState e;
    e.status = 0;
    e.statusStored = QStringLiteral("0");
    e.updatedAt = parseUtcMicros(QStringLiteral("2026-12-03T10:00:00.123456Z"));
    e.version = 7;
    const QString json = proposalExpectedStateJson(e);
    QCOMPARE(json, QStringLiteral("{\"status\":0,\"status_stored\":\"0\",\"updated_at\":\"2026-12-03T10:00:00.123456Z\",\"version\":\"7\"}"));
    const std::optional<ExpectedState> back = proposalExpectedState(json);
    QVERIFY(back && back->status == e.status && back->statusStored == e.statusStored && back->updatedAt == e.updatedAt
            && back->version == e.version);
    QVERIFY(!proposalExpectedState(QStringLiteral("{\"updated_at\":\"yesterday\"}")));

    // What the approver is shown as changed since the proposal.
    ProposalRow p;
    p.expectedState = json;
    RecordDetail now;
    now.statusText = QStringLiteral("PROCESSING");
    now.statusCode = 0;
    now.statusStored = QStringLiteral("0");
    now.updatedAt = QStringLiteral("2026-12-03T10:00:00.123456Z");
    now.hasVersionColumn = true;
    now.version = 7;
    QCOMPARE(proposalChangesSince(p, now), QStringList());
    now.statusText = QStringLiteral("SUCCESS");
    now.statusCode = 1;
    now.statusStored = QStringLiteral("1");
    now.updatedAt = QStringLiteral("2026-12-03T10:05:00Z");
    now.version = 8;
    QCOMPARE(proposalChangesSince(p, now),
             (QStringList{QStringLiteral("status PROCESSING then, SUCCESS now"),
                          QStringLiteral("updated_at 2026-12-03T10:00:00.123456Z then, 2026-12-03T10:05:00.000000Z now"),
                          QStringLiteral("version 7 then, 8 now")}));
    now.updatedAt = QStringLiteral("not a time");
    now.hasVersionColumn = false;
    QCOMPARE(proposalChangesSince(p, now).value(1), QStringLiteral("updated_at 2026-12-03T10:00:00.123456Z then, NULL now"));
    p.expectedState = QStringLiteral("[]");
    QCOMPARE(proposalChangesSince(p, now), QStringList{QStringLiteral("the proposal's expected state cannot be read: []")});
}

void TestFourEyes::proposeAndApprove_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

namespace {

Outcome<PolicyChange> setPolicyAs(Workspace &ws, const QString &name, const QString &value)
{
    return setPolicy(ws, name, value, QStringLiteral("four-eyes test: set by the test"), std::nullopt).result();
}

QString proposalState(const TestDatabase &db, qint64 id)
{
    return db.adminQueryColumn(QStringLiteral("SELECT state FROM triage_proposal WHERE id = %1").arg(id)).value(0);
}

} // namespace

void TestFourEyes::proposeAndApprove()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    const QStringList keys = {QStringLiteral("ticket:create:acme:fe-1"), QStringLiteral("ticket:create:acme:fe-2"),
                              QStringLiteral("ticket:create:acme:fe-3"), QStringLiteral("ticket:create:acme:fe-4"),
                              QStringLiteral("ticket:create:acme:fe-5"), QStringLiteral("ticket:create:acme:fe-6"),
                              QStringLiteral("ticket:create:acme:fe-7")};
    for (const QString &k : keys)
        TRIAGE_OK(insertRecord(db, k, 0, 3600));
    auto as = [&](const QString &name) {
        WorkspaceConfig c = ticketAbsentConfig(db.config()); // stale and no ticket proves absence (DESIGN.md §6)
        c.operatorName = name;
        return std::make_unique<Workspace>(c);
    };
    auto alice = as(QStringLiteral("alice"));
    auto aliceAgain = as(QStringLiteral(" ALICE "));
    auto bob = as(QStringLiteral("bob"));
    QVERIFY(setPolicyAs(*alice, QStringLiteral("biz.ticket_create.four_eyes"), QStringLiteral("mark_failed")).ok());

    // 1. alice's FAILED mark becomes proposal 1; nothing applied; exit-code kind Proposed.
    MarkRequest r = request(keys[0], Failed, QStringLiteral("no ticket was ever created for it"));
    r.operatorName.clear(); // the workspace's operator
    const Outcome<MarkResult> proposed = markRecord(*alice, r).result();
    QVERIFY2(proposed.ok(), proposed.ok() ? "" : qPrintable(proposed.error->message));
    QCOMPARE(proposed->kind, MarkResult::Kind::Proposed);
    QCOMPARE(proposed->proposalId, qint64(1));
    QVERIFY2(proposed->message.startsWith(QStringLiteral("proposed as proposal 1 (biz.ticket_create.four_eyes): nothing "
                                                         "applied until another operator approves it (triagectl approve 1 --reason …) "
                                                         "before ")),
             qPrintable(proposed->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[0])),
             QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT outcome FROM triage_audit WHERE idem_key = '%1' ORDER BY id").arg(keys[0])),
             QStringList{QStringLiteral("recorded")});
    // The same mark again while it is open: a conflict naming the open proposal.
    const Outcome<MarkResult> twice = markRecord(*bob, request(keys[0], Failed, QStringLiteral("no ticket was ever created for it"))).result();
    QCOMPARE(twice->kind, MarkResult::Kind::Conflict);
    QVERIFY2(twice->message.startsWith(keys[0] + QStringLiteral(" already has open proposal 1 (mark_failed by alice, expires ")),
             qPrintable(twice->message));
    const Outcome<QVector<ProposalRow>> open = readProposals(*bob, false).result();
    QCOMPARE(open->size(), 1);
    QCOMPARE(open->at(0).stateText(), QStringLiteral("open"));
    QCOMPARE(open->at(0).hash, proposalHash(open->at(0)));
    const QString dbUser = open->at(0).proposedDbUser;
    QCOMPARE(dbUser.isEmpty(), backend == QLatin1String("sqlite"));

    // 2. The proposer approves under another spelling of the name: refused, audited, still open.
    const Outcome<MarkResult> self = approveProposal(*aliceAgain, 1, QStringLiteral("looks right to me")).result();
    QCOMPARE(self->kind, MarkResult::Kind::Refused);
    QCOMPARE(self->message, QStringLiteral("proposal 1 was proposed by alice: a different operator must approve it (four-eyes)"));
    QCOMPARE(proposalState(db, 1), QStringLiteral("open"));
    // Tabs, no-break spaces, full-width letters, accents and case are not another person
    // either (operatorKey()).
    for (const QString &spelling : {QStringLiteral("alice\t"), QStringLiteral("\u00A0ALICE"), QStringLiteral("alic\u00E9"),
                                    QStringLiteral("\uFF41\uFF4C\uFF49\uFF43\uFF45")}) {
        const Outcome<MarkResult> again = approveProposal(*as(spelling), 1, QStringLiteral("looks right to me")).result();
        QCOMPARE(again->kind, MarkResult::Kind::Refused);
        QCOMPARE(again->message, QStringLiteral("proposal 1 was proposed by alice: a different operator must approve it (four-eyes)"));
    }
    QCOMPARE(operatorKey(QStringLiteral(" Zo\u00EB\t")), operatorKey(QStringLiteral("ZO\u00CB")));
    QCOMPARE(operatorKey(QStringLiteral("ZOE\u0308")), QStringLiteral("zoe")); // the accent is dropped
    QCOMPARE(operatorKey(QStringLiteral("Zo\u00EB")), operatorKey(QStringLiteral("zoe")));
    QCOMPARE(operatorKey(QStringLiteral("\u0301 \u200B")), QString()); // only marks and spaces: nobody
    QCOMPARE(proposalState(db, 1), QStringLiteral("open"));
    // And as raw SQL against the table: the CHECK refuses it.
    QVERIFY(!db.adminExec(QStringLiteral("UPDATE triage_proposal SET state = 'approved', decided_by = 'Alice ' WHERE id = 1")).isEmpty());
    QCOMPARE(proposalState(db, 1), QStringLiteral("open"));

    // 3. On the servers every operator here shares one database user: refused until the
    //    policy says so (then four-eyes is a process control).
    if (backend != QLatin1String("sqlite")) {
        const Outcome<MarkResult> sameUser = approveProposal(*bob, 1, QStringLiteral("checked the ticket table")).result();
        QCOMPARE(sameUser->kind, MarkResult::Kind::Refused);
        QCOMPARE(sameUser->message,
                 QStringLiteral("proposal 1 was proposed by the same database user (%1) as this approval: four-eyes needs operators "
                                "with their own database users, or `triagectl policy set four_eyes_db_users shared` to make it a "
                                "process control")
                     .arg(dbUser));
        QVERIFY(setPolicyAs(*bob, QStringLiteral("four_eyes_db_users"), QStringLiteral("shared")).ok());
    }
    // 4. bob approves: applied, by the approving statement and the compare-and-set together.
    const Outcome<MarkResult> approved = approveProposal(*bob, 1, QStringLiteral("checked the ticket table")).result();
    QVERIFY2(approved.ok(), approved.ok() ? "" : qPrintable(approved.error->message));
    QCOMPARE(approved->kind, MarkResult::Kind::Applied);
    QVERIFY2(approved->message.startsWith(QStringLiteral("approved proposal 1 of alice (checked the ticket table): ")),
             qPrintable(approved->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[0])),
             QStringList{QStringLiteral("2")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT state, decided_by FROM triage_proposal WHERE id = 1")).value(0),
             QStringLiteral("approved"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT decided_by FROM triage_proposal WHERE id = 1")), QStringList{QStringLiteral("bob")});
    // proposed, the duplicate's conflict, five refused self-approvals (" ALICE ", "alice\t",
    // "\u00A0ALICE", "alicé", full-width "ａｌｉｃｅ"), on the servers the same database user's
    // refusal, then applied.
    QStringList actions = {QStringLiteral("mark_failed"), QStringLiteral("mark_failed")};
    for (int i = 0; i < (backend == QLatin1String("sqlite") ? 5 : 6); ++i)
        actions << QStringLiteral("proposal.approve");
    actions << QStringLiteral("mark_failed");
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action FROM triage_audit WHERE idem_key = '%1' ORDER BY id").arg(keys[0])), actions);
    const QStringList outcomes
        = db.adminQueryColumn(QStringLiteral("SELECT outcome FROM triage_audit WHERE idem_key = '%1' ORDER BY id").arg(keys[0]));
    QStringList expectedOutcomes = {QStringLiteral("recorded"), QStringLiteral("conflict")};
    for (int i = 0; i < (backend == QLatin1String("sqlite") ? 5 : 6); ++i)
        expectedOutcomes << QStringLiteral("refused");
    expectedOutcomes << QStringLiteral("applied");
    QCOMPARE(outcomes, expectedOutcomes);
    // Approving it again: decided.
    const Outcome<MarkResult> again = approveProposal(*bob, 1, QStringLiteral("checked the ticket table")).result();
    QCOMPARE(again->kind, MarkResult::Kind::Refused);
    QVERIFY2(again->message.startsWith(QStringLiteral("proposal 1 is approved (by bob at ")), qPrintable(again->message));

    // 5. Edited after proposing (raw SQL changes the reason): void, nothing applied.
    QCOMPARE(markRecord(*alice, request(keys[1], Failed, QStringLiteral("no ticket was ever created for it"))).result()->kind,
             MarkResult::Kind::Proposed);
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE triage_proposal SET reason = 'edited: something else entirely' WHERE id = 2")));
    const Outcome<MarkResult> edited = approveProposal(*bob, 2, QStringLiteral("checked the ticket table")).result();
    QCOMPARE(edited->kind, MarkResult::Kind::Refused);
    QCOMPARE(edited->message, QStringLiteral("proposal 2 was changed after it was proposed (its hash no longer matches what was "
                                             "proposed): void"));
    QCOMPARE(proposalState(db, 2), QStringLiteral("void"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[1])),
             QStringList{QStringLiteral("0")});

    // 6. The record changed before approval (the agent finished it): conflict, void.
    QCOMPARE(markRecord(*alice, request(keys[2], Failed, QStringLiteral("no ticket was ever created for it"))).result()->kind,
             MarkResult::Kind::Proposed);
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE idempotency_record SET status = 1, updated_at = %1 WHERE idem_key = '%2'")
                               .arg(serverNowMinus(db.backend(), 0), keys[2])));
    const Outcome<MarkResult> changed = approveProposal(*bob, 3, QStringLiteral("checked the ticket table")).result();
    QCOMPARE(changed->kind, MarkResult::Kind::Conflict);
    QVERIFY2(changed->message.endsWith(QStringLiteral(" — proposal 3 is void")), qPrintable(changed->message));
    QCOMPARE(proposalState(db, 3), QStringLiteral("void"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[2])),
             QStringList{QStringLiteral("1")});

    // 7. Expired: refused, nothing applied, the row stays (shown "expired").
    QCOMPARE(markRecord(*alice, request(keys[3], Failed, QStringLiteral("no ticket was ever created for it"))).result()->kind,
             MarkResult::Kind::Proposed);
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE triage_proposal SET expires_at = proposed_at WHERE id = 4")));
    const Outcome<MarkResult> expired = approveProposal(*bob, 4, QStringLiteral("checked the ticket table")).result();
    QCOMPARE(expired->kind, MarkResult::Kind::Refused);
    QVERIFY2(expired->message.startsWith(QStringLiteral("proposal 4 expired at ")) && expired->message.endsWith(QStringLiteral(
                 ": nothing applied; propose it again")),
             qPrintable(expired->message));
    QCOMPARE(readProposals(*bob, false).result()->last().stateText(), QStringLiteral("expired"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[3])),
             QStringList{QStringLiteral("0")});

    // 8. Rejected (the proposer may withdraw it): then no approval applies it.
    QCOMPARE(markRecord(*alice, request(keys[4], Failed, QStringLiteral("no ticket was ever created for it"))).result()->kind,
             MarkResult::Kind::Proposed);
    const Outcome<ProposalRow> rejected = rejectProposal(*alice, 5, QStringLiteral("withdrawn: wrong key")).result();
    QVERIFY(rejected.ok());
    QCOMPARE(rejected->state, QStringLiteral("rejected"));
    const Outcome<ProposalRow> rejectedTwice = rejectProposal(*bob, 5, QStringLiteral("withdrawn: wrong key")).result();
    QVERIFY(!rejectedTwice.ok());
    QCOMPARE(rejectedTwice.error->kind, DbError::Kind::Conflict);
    const Outcome<MarkResult> afterReject = approveProposal(*bob, 5, QStringLiteral("checked the ticket table")).result();
    QCOMPARE(afterReject->kind, MarkResult::Kind::Refused);
    QVERIFY2(afterReject->message.startsWith(QStringLiteral("proposal 5 is rejected (by alice at ")), qPrintable(afterReject->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[4])),
             QStringList{QStringLiteral("0")});
    // 9. zoë proposes, ZOË cannot approve (Unicode case folding, not only A-Z); a dry run
    //    while it is open says what the real run would: the open proposal wins.
    MarkRequest byZoe = request(keys[5], Failed, QStringLiteral("no ticket was ever created for it"));
    byZoe.operatorName.clear(); // the workspace's operator
    QCOMPARE(markRecord(*as(QStringLiteral("zo\u00EB")), byZoe).result()->kind, MarkResult::Kind::Proposed);
    const Outcome<MarkResult> upper = approveProposal(*as(QStringLiteral("ZO\u00CB")), 6, QStringLiteral("looks right to me")).result();
    QCOMPARE(upper->kind, MarkResult::Kind::Refused);
    QCOMPARE(upper->message, QStringLiteral("proposal 6 was proposed by zo\u00EB: a different operator must approve it (four-eyes)"));
    MarkRequest dry = request(keys[5], Failed, QStringLiteral("no ticket was ever created for it"));
    dry.dryRun = true;
    const Outcome<MarkResult> dryRun = markRecord(*bob, dry).result();
    QCOMPARE(dryRun->kind, MarkResult::Kind::Conflict);
    QVERIFY2(dryRun->message.startsWith(keys[5] + QStringLiteral(" already has open proposal 6 (mark_failed by zo\u00EB, expires ")),
             qPrintable(dryRun->message));

    // 10. An override is proposed with the mark and approved with it: without evidence of
    //     absence (failed_evidence = upstream) FAILED needs --override.
    WorkspaceConfig strict = db.config();
    strict.operatorName = QStringLiteral("alice");
    Workspace aliceStrict(strict);
    MarkRequest over = request(keys[6], Failed, QStringLiteral("checked by phone with the bank, nothing sent"));
    over.override = true;
    const Outcome<MarkResult> overProposed = markRecord(aliceStrict, over).result();
    QCOMPARE(overProposed->kind, MarkResult::Kind::Proposed);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT override_rule FROM triage_proposal WHERE id = 7")), QStringList{QStringLiteral("1")});
    strict.operatorName = QStringLiteral("bob");
    Workspace bobStrict(strict);
    const Outcome<MarkResult> overApproved = approveProposal(bobStrict, 7, QStringLiteral("confirmed the bank call notes")).result();
    QVERIFY2(overApproved.ok() && overApproved->kind == MarkResult::Kind::Applied, qPrintable(overApproved->message));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(keys[6])),
             QStringList{QStringLiteral("2")});

    // Unknown id, short reason.
    QCOMPARE(approveProposal(*bob, 99, QStringLiteral("checked the ticket table")).result().error->message, QStringLiteral("no proposal 99"));
    QCOMPARE(approveProposal(*bob, 5, QStringLiteral("ok")).result().error->message,
             QStringLiteral("a decision on a proposal needs a reason of at least 10 characters (got 2)"));
}

void TestFourEyes::amountRule()
{
    // Values: canonical spelling (codes upper case, decimals canonical, "*" last); exact refusals.
    const QString setting = QStringLiteral("four_eyes_amount_over");
    QString why;
    QCOMPARE(*checkPolicyValue(setting, QStringLiteral(" usd: 250.50 , eur:1000.000,*:0100"), &why), QStringLiteral("EUR:1000,USD:250.5,*:100"));
    QCOMPARE(*checkPolicyValue(setting, QStringLiteral("None"), &why), QStringLiteral("none"));
    QCOMPARE(*checkPolicyValue(setting, QStringLiteral("JPY:0"), &why), QStringLiteral("JPY:0"));
    const QString must = QStringLiteral("must be none or a comma-separated list of CURRENCY:AMOUNT (a three-letter code, or * for every "
                                        "other currency and amounts without one; a plain decimal of at least 0), e.g. EUR:1000,USD:1000");
    QVERIFY(!checkPolicyValue(setting, QStringLiteral("EUR:1,eur:2"), &why));
    QCOMPARE(why, QStringLiteral("bad value \"EUR:1,eur:2\" for four_eyes_amount_over: EUR is listed twice"));
    for (const QString &bad : {QStringLiteral("EUR:-5"), QStringLiteral("EURO:1"), QStringLiteral("EUR 1000"),
                               QStringLiteral("EUR:1e3"), QStringLiteral("EUR:"), QStringLiteral(""), QStringLiteral("EUR:\u0663")}) {
        QVERIFY2(!checkPolicyValue(setting, bad, &why), qPrintable(bad));
        QCOMPARE(why, QStringLiteral("bad value \"%1\" for four_eyes_amount_over: %2").arg(bad, must));
    }
    const std::optional<PolicyName> name = parsePolicyName(QStringLiteral("biz.pay.four_eyes_amount_over"), &why);
    QVERIFY(name && name->bizType == QLatin1String("pay") && name->setting == setting);

    // The merge: per currency the smaller threshold; a currency one list leaves uncovered stays
    // uncovered (it needs a second operator), so an INI can only lower thresholds.
    auto rows = [](const QString &value) { return bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes_amount_over"), value}}, QStringLiteral("pay")); };
    auto merged = [&](const QString &db, const QString &ini) { return stricterPolicy(rows(db), rows(ini)); };
    QVERIFY(!rows(QStringLiteral("none")).fourEyesAmountOver);
    QCOMPARE(amountThresholdsText(*merged(QStringLiteral("EUR:1000,*:500"), QStringLiteral("EUR:2000,USD:100")).fourEyesAmountOver),
             QStringLiteral("EUR:1000,USD:100"));
    QCOMPARE(amountThresholdsText(*merged(QStringLiteral("*:500"), QStringLiteral("*:200,GBP:900")).fourEyesAmountOver),
             QStringLiteral("GBP:500,*:200"));
    QCOMPARE(amountThresholdsText(*merged(QStringLiteral("EUR:1000"), QStringLiteral("none")).fourEyesAmountOver), QStringLiteral("EUR:1000"));
    QCOMPARE(amountThresholdsText(*merged(QStringLiteral("none"), QStringLiteral("EUR:1000")).fourEyesAmountOver), QStringLiteral("EUR:1000"));
    const BizPolicy disjoint = merged(QStringLiteral("EUR:1000"), QStringLiteral("USD:1000"));
    QCOMPARE(amountThresholdsText(*disjoint.fourEyesAmountOver), QStringLiteral("none")); // no currency passes either list
    QCOMPARE(fourEyesAmountReason(disjoint, {{QStringLiteral("the snapshot"), QStringLiteral("1"), QStringLiteral("EUR")}}),
             QStringLiteral("1 EUR (the snapshot): no threshold for EUR"));

    // The reasons, exactly; amounts are compared as exact decimals, by magnitude.
    const BizPolicy p = rows(QStringLiteral("EUR:1000,*:100"));
    QCOMPARE(fourEyesAmountReason(BizPolicy(), {}), QString());
    QCOMPARE(fourEyesAmountReason(p, {}), QStringLiteral("no amount could be read (no snapshot, business row or intent request carries one)"));
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("ticket 42"), QStringLiteral("1000.00"), QStringLiteral("EUR")}}), QString());
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("ticket 42"), QStringLiteral("1000.01"), QStringLiteral("EUR")}}),
             QStringLiteral("1000.01 EUR (ticket 42) is over 1000"));
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("attempt 7"), QStringLiteral("-1500"), QStringLiteral("eur")}}),
             QStringLiteral("-1500 eur (attempt 7) is over 1000"));
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("the snapshot"), QStringLiteral("99.999"), QString()}}), QString());
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("the snapshot"), QStringLiteral("12345678901234567890"), QStringLiteral("GBP")}}),
             QStringLiteral("12345678901234567890 GBP (the snapshot) is over 100"));
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("attempt 7"), QStringLiteral("1e3"), QStringLiteral("EUR")}}),
             QStringLiteral("the amount \"1e3\" (attempt 7) is not a plain decimal"));
    QCOMPARE(fourEyesAmountReason(rows(QStringLiteral("EUR:1000")), {{QStringLiteral("the snapshot"), QStringLiteral("12"), QString()}}),
             QStringLiteral("12 (the snapshot): no threshold for an amount without a currency"));
    QCOMPARE(fourEyesAmountReason(rows(QStringLiteral("EUR:1000")), {{QStringLiteral("the snapshot"), QStringLiteral("12"), QStringLiteral("GBP")}}),
             QStringLiteral("12 GBP (the snapshot): no threshold for GBP"));
    QCOMPARE(fourEyesAmountReason(p, {{QStringLiteral("ticket 42"), QStringLiteral("5"), QStringLiteral("EUR")},
                                      {QStringLiteral("attempt 7"), QStringLiteral("5000"), QStringLiteral("EUR")}}),
             QStringLiteral("5000 EUR (attempt 7) is over 1000"));
    QCOMPARE(compareDecimalMagnitude(QStringLiteral("10"), QStringLiteral("9.99")), 1);
    QCOMPARE(compareDecimalMagnitude(QStringLiteral("0.5"), canonicalDecimal(QStringLiteral("0.50"))), 0);
    QCOMPARE(compareDecimalMagnitude(QStringLiteral("123456789012345678900"), QStringLiteral("123456789012345678901")), -1);
    QCOMPARE(canonicalDecimal(QStringLiteral("\u0663")), QString()); // another script's digit is not a decimal here

    // The rule: four_eyes listing the action first, then the amount.
    const FourEyesRule overAmount = fourEyesRuleForMark(p, QStringLiteral("pay"), Failed,
                                                        {{QStringLiteral("ticket 42"), QStringLiteral("5000"), QStringLiteral("EUR")}});
    QCOMPARE(overAmount.text(), QStringLiteral("biz.pay.four_eyes_amount_over: 5000 EUR (ticket 42) is over 1000"));
    QVERIFY(!fourEyesRuleForMark(p, QStringLiteral("pay"), Failed, {{QStringLiteral("ticket 42"), QStringLiteral("5"), QStringLiteral("EUR")}}).required());
    const BizPolicy both = stricterPolicy(p, bizPolicyFromRows({{QStringLiteral("biz.pay.four_eyes"), QStringLiteral("mark_failed")}}, QStringLiteral("pay")));
    QCOMPARE(fourEyesRuleForMark(both, QStringLiteral("pay"), Failed, {}).text(), QStringLiteral("biz.pay.four_eyes"));
    QCOMPARE(fourEyesRuleForMark(both, QStringLiteral("pay"), Success, {}).text(),
             QStringLiteral("biz.pay.four_eyes_amount_over: no amount could be read (no snapshot, business row or intent request carries one)"));
    QCOMPARE(fourEyesRuleForCompensation(p, QStringLiteral("pay"), {{QStringLiteral("ticket 42"), QStringLiteral("100.5"), QStringLiteral("USD")}}).text(),
             QStringLiteral("biz.pay.four_eyes_amount_over: 100.5 USD (ticket 42) is over 100"));
}

void TestFourEyes::amountOver_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestFourEyes::amountOver()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    // Four stale records without tickets; each one's attempt carries its amount in the request.
    const QString small = QStringLiteral("ticket:create:acme:amt-small"), big = QStringLiteral("ticket:create:acme:amt-big"),
                  usd = QStringLiteral("ticket:create:acme:amt-usd"), unreadable = QStringLiteral("ticket:create:acme:amt-none");
    const QVector<QPair<QString, QString>> attempts = {{small, QStringLiteral("{\"amount\":\"50.00\",\"currency\":\"EUR\"}")},
                                                       {big, QStringLiteral("{\"amount\":1500.5,\"currency\":\"eur\"}")},
                                                       {usd, QStringLiteral("{\"amount\":20,\"currency\":\"USD\"}")},
                                                       {unreadable, QStringLiteral("<html>gateway timeout</html>")}};
    for (const auto &[key, requestText] : attempts) {
        TRIAGE_OK(insertRecord(db, key, 0, 3600));
        IntentSpec a;
        a.key = key;
        a.status = QStringLiteral("FAILED");
        a.request = requestText;
        a.created = serverNowMinus(db.backend(), 1800);
        TRIAGE_OK(insertIntents(db, {a})); // attempts 1 to 4
    }
    WorkspaceConfig c = ticketAbsentConfig(db.config()); // stale and no ticket proves absence (DESIGN.md §6)
    c.operatorName = QStringLiteral("alice");
    Workspace alice(c);
    const Outcome<PolicyChange> set = setPolicyAs(alice, QStringLiteral("biz.ticket_create.four_eyes_amount_over"), QStringLiteral("eur:1000.00"));
    QVERIFY2(set.ok(), set.ok() ? "" : qPrintable(set.error->message));
    QCOMPARE(set->row.value, QStringLiteral("EUR:1000"));
    auto mark = [&](const QString &key, bool dryRun = false) {
        MarkRequest r = request(key, Failed, QStringLiteral("no ticket was ever created for it"));
        r.operatorName.clear();
        r.dryRun = dryRun;
        const Outcome<MarkResult> out = markRecord(alice, r).result();
        return out.ok() ? *out : MarkResult{};
    };
    // 50.00 EUR is under the threshold: applied at once.
    QCOMPARE(mark(small).kind, MarkResult::Kind::Applied);
    // A SUCCESS snapshot with a small amount does not hide the ticket's larger one.
    const QString ticketed = QStringLiteral("ticket:create:acme:amt-ticket");
    TRIAGE_OK(insertRecord(db, ticketed, 0, 3600));
    TRIAGE_OK(insertTicket(db, 77, ticketed, QStringLiteral("{\"amount\":\"1500\",\"currency\":\"EUR\"}")));
    {
        MarkRequest r = request(ticketed, Success, QStringLiteral("the PSP confirmed the 50 EUR refund"));
        r.operatorName.clear();
        r.snapshot = QStringLiteral("{\"amount\":\"50\",\"currency\":\"EUR\"}");
        r.snapshotSource = QStringLiteral("typed");
        r.snapshotFromTicket.reset();
        r.dryRun = true;
        const Outcome<MarkResult> out = markRecord(alice, r).result();
        QVERIFY2(out.ok() && out->kind == MarkResult::Kind::DryRun, out.ok() ? qPrintable(out->message) : qPrintable(out.error->message));
        QVERIFY2(out->message.endsWith(QStringLiteral(" — four-eyes (biz.ticket_create.four_eyes_amount_over: 1500 EUR (ticket 77) is over "
                                                      "1000): a real run proposes it for another operator's approval")),
                 qPrintable(out->message));
    }
    // 1500.5 EUR: a proposal naming the rule and the amount; nothing applied.
    const MarkResult over = mark(big);
    QCOMPARE(over.kind, MarkResult::Kind::Proposed);
    QVERIFY2(over.message.startsWith(QStringLiteral("proposed as proposal 1 (biz.ticket_create.four_eyes_amount_over: 1500.5 eur (attempt 2) is "
                                                    "over 1000): nothing applied until another operator approves it")),
             qPrintable(over.message));
    // A currency without a threshold: a dry run says what a real run would do.
    const MarkResult dry = mark(usd, true);
    QCOMPARE(dry.kind, MarkResult::Kind::DryRun);
    QVERIFY2(dry.message.endsWith(QStringLiteral(" — four-eyes (biz.ticket_create.four_eyes_amount_over: 20 USD (attempt 3): no threshold "
                                                 "for USD): a real run proposes it for another operator's approval")),
             qPrintable(dry.message));
    // A request that is not JSON gives no amount: fail safe, a proposal.
    const MarkResult none = mark(unreadable);
    QCOMPARE(none.kind, MarkResult::Kind::Proposed);
    QVERIFY2(none.message.startsWith(QStringLiteral("proposed as proposal 2 (biz.ticket_create.four_eyes_amount_over: no amount could be read "
                                                    "(no snapshot, business row or intent request carries one)): nothing applied")),
             qPrintable(none.message));
    // "*" covers every other currency: 20 USD is under 100 and applies.
    QVERIFY(setPolicyAs(alice, QStringLiteral("biz.ticket_create.four_eyes_amount_over"), QStringLiteral("EUR:1000,*:100")).ok());
    QCOMPARE(mark(usd).kind, MarkResult::Kind::Applied);
    QCOMPARE(storedStatuses(db).join(QLatin1Char(',')), QStringLiteral("0,0,2,0,2")); // by key: amt-big, -none, -small, -ticket, -usd
    // Another operator approves the 1500.5 EUR proposal: the approval itself is not a proposal.
    WorkspaceConfig bc = c;
    bc.operatorName = QStringLiteral("bob");
    Workspace bob(bc);
    QVERIFY(setPolicyAs(bob, QStringLiteral("four_eyes_db_users"), QStringLiteral("shared")).ok());
    const Outcome<MarkResult> approved = approveProposal(bob, 1, QStringLiteral("checked the ledger: never charged")).result();
    QVERIFY2(approved.ok() && approved->kind == MarkResult::Kind::Applied, approved.ok() ? qPrintable(approved->message) : "");
}

void TestFourEyes::policyUnderFourEyes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestFourEyes::policyUnderFourEyes()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    auto as = [&](const QString &name) {
        WorkspaceConfig c = db.config();
        c.operatorName = name;
        return std::make_unique<Workspace>(c);
    };
    auto alice = as(QStringLiteral("alice"));
    auto bob = as(QStringLiteral("bob"));
    const QString reconcile = QStringLiteral("biz.ticket_create.reconcile");
    auto policyValue = [&](const QString &name) {
        return db.adminQueryColumn(QStringLiteral("SELECT value FROM triage_policy WHERE name = '%1'").arg(name)).join(QLatin1Char(','));
    };
    // Off (unset): a change applies at once; turning it on applies at once too.
    QVERIFY(setPolicyAs(*alice, QStringLiteral("four_eyes_db_users"), QStringLiteral("shared")).ok());
    const Outcome<PolicyChange> on = setPolicyAs(*alice, fourEyesPolicyName(), QStringLiteral("ON"));
    QVERIFY2(on.ok() && !on->proposed(), on.ok() ? "" : qPrintable(on.error->message));
    QCOMPARE(on->row.value, QStringLiteral("on"));

    // On: alice's change is proposal 1; nothing changed.
    const Outcome<PolicyChange> proposed = setPolicyAs(*alice, reconcile, QStringLiteral("escalate"));
    QVERIFY2(proposed.ok(), proposed.ok() ? "" : qPrintable(proposed.error->message));
    QCOMPARE(proposed->proposalId, qint64(1));
    QVERIFY2(proposed->message.startsWith(QStringLiteral("proposed as proposal 1 (four_eyes_policy): policy biz.ticket_create.reconcile = "
                                                         "escalate is not set until another operator approves it (triagectl approve 1 "
                                                         "--reason …) before ")),
             qPrintable(proposed->message));
    QCOMPARE(policyValue(reconcile), QString());
    const Outcome<QVector<ProposalRow>> open = readProposals(*bob, false).result();
    QCOMPARE(open->size(), 1);
    QCOMPARE(proposalWhatText(open->at(0)), QStringLiteral("policy biz.ticket_create.reconcile = escalate (was unset)"));
    QCOMPARE(proposalRecordKey(open->at(0)), QString());
    // The same name again while it is open: a conflict naming it.
    const Outcome<PolicyChange> again = setPolicyAs(*bob, reconcile, QStringLiteral("auto"));
    QVERIFY(!again.ok());
    QCOMPARE(again.error->kind, DbError::Kind::Conflict);
    QVERIFY2(again.error->message.startsWith(QStringLiteral("policy biz.ticket_create.reconcile already has open proposal 1 (by alice, expires ")),
             qPrintable(again.error->message));
    // The proposer cannot approve it; another operator can.
    const Outcome<PolicyChange> self = approvePolicyProposal(*as(QStringLiteral(" Alice")), 1, QStringLiteral("looks right to me")).result();
    QVERIFY(!self.ok());
    QCOMPARE(self.error->message, QStringLiteral("proposal 1 was proposed by alice: a different operator must approve it (four-eyes)"));
    QCOMPARE(policyValue(reconcile), QString());
    const Outcome<PolicyChange> approved = approvePolicyProposal(*bob, 1, QStringLiteral("agreed in the incident channel")).result();
    QVERIFY2(approved.ok(), approved.ok() ? "" : qPrintable(approved.error->message));
    QCOMPARE(approved->message, QStringLiteral("policy biz.ticket_create.reconcile = escalate (version 1): approved proposal 1 of alice "
                                               "(four-eyes test: set by the test)"));
    QCOMPARE(policyValue(reconcile), QStringLiteral("escalate"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT set_by FROM triage_policy WHERE name = '%1'").arg(reconcile)), QStringList{QStringLiteral("alice")});
    QCOMPARE(proposalState(db, 1), QStringLiteral("approved"));

    // The row changed after the proposal (here by hand): the approval is a conflict and voids it.
    const Outcome<PolicyChange> second = setPolicyAs(*alice, reconcile, QStringLiteral("auto"));
    QCOMPARE(second->proposalId, qint64(2));
    QVERIFY(db.adminExec(QStringLiteral("UPDATE triage_policy SET version = version + 1 WHERE name = '%1'").arg(reconcile)).isEmpty());
    const Outcome<PolicyChange> stale = approvePolicyProposal(*bob, 2, QStringLiteral("agreed in the incident channel")).result();
    QVERIFY(!stale.ok());
    QCOMPARE(stale.error->kind, DbError::Kind::Conflict);
    QCOMPARE(stale.error->message, QStringLiteral("policy biz.ticket_create.reconcile changed since proposal 2 was made (version 1 then, 2 now): void"));
    QCOMPARE(proposalState(db, 2), QStringLiteral("void"));
    QCOMPARE(policyValue(reconcile), QStringLiteral("escalate"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT outcome FROM triage_audit WHERE idem_key = 'policy:%1' ORDER BY id").arg(reconcile)),
             (QStringList{QStringLiteral("recorded"), QStringLiteral("conflict"), QStringLiteral("refused"), QStringLiteral("applied"),
                          QStringLiteral("recorded"), QStringLiteral("refused")}));

    // The freeze acts at once even now; turning four-eyes for policy off is itself a proposal.
    // The value it already has: nothing to propose.
    const Outcome<PolicyChange> same = setPolicyAs(*alice, reconcile, QStringLiteral("ESCALATE"));
    QVERIFY(same.ok() && !same->proposed());
    QCOMPARE(same->message, QStringLiteral("policy biz.ticket_create.reconcile is already escalate (version 2): nothing to propose"));
    QVERIFY(setFreeze(*alice, true, QStringLiteral("incident 42: hands off")).result().ok());
    QVERIFY(setFreeze(*alice, false, QStringLiteral("incident 42 is over")).result().ok());
    const Outcome<PolicyChange> off = setPolicyAs(*alice, fourEyesPolicyName(), QStringLiteral("off"));
    QCOMPARE(off->proposalId, qint64(3));
    QCOMPARE(policyValue(fourEyesPolicyName()), QStringLiteral("on"));
    QVERIFY(approvePolicyProposal(*bob, 3, QStringLiteral("incident review: back to normal")).result().ok());
    QCOMPARE(policyValue(fourEyesPolicyName()), QStringLiteral("off"));
    const Outcome<PolicyChange> direct = setPolicyAs(*alice, reconcile, QStringLiteral("auto"));
    QVERIFY(direct.ok() && !direct->proposed());
    QCOMPARE(policyValue(reconcile), QStringLiteral("auto"));
}

QTEST_GUILESS_MAIN(TestFourEyes)
#include "tst_four_eyes.moc"
