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

Outcome<PolicyRow> setPolicyAs(Workspace &ws, const QString &name, const QString &value)
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

QTEST_GUILESS_MAIN(TestFourEyes)
#include "tst_four_eyes.moc"
