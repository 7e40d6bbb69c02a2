// The safety policy's rules below the CLI (DESIGN.md §8 "Safety policy"): the per-setting
// "stricter" merge of the database's value with the local INI's, and the freeze racing a
// batch of marks on every backend — every mark either committed before the freeze or was
// refused with the freeze's message; none committed after it (no timing assumed).
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"

#include "Mark.h"
#include "Policy.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {
constexpr int kMarks = 60;
constexpr int kFreezeAfter = 10;
} // namespace

class TestPolicy : public QObject {
    Q_OBJECT
private slots:
    void stricterMerge();
    void freezeRacesMarks_data();
    void freezeRacesMarks();
};

void TestPolicy::stricterMerge()
{
    auto rows = [](std::initializer_list<std::pair<const char *, const char *>> kv) {
        QMap<QString, QString> m;
        for (const auto &[k, v] : kv)
            m.insert(QStringLiteral("biz.pay.") + QString::fromLatin1(k), QString::fromLatin1(v));
        return bizPolicyFromRows(m, QStringLiteral("pay"));
    };
    const BizPolicy db = rows({{"failed_evidence", "ticket_absent"}, {"failed_evidence_max_age", "600"}, {"money_moving", "false"},
                               {"reconcile", "auto"}, {"reconcile_confirm_delay", "300"}, {"review_sla_hours", "24"}});
    // Every INI value stricter: the INI's wins.
    const BizPolicy stricter = stricterPolicy(db, rows({{"failed_evidence", "upstream"}, {"failed_evidence_max_age", "60"},
                                                        {"money_moving", "true"}, {"reconcile", "escalate"},
                                                        {"reconcile_confirm_delay", "900"}, {"review_sla_hours", "4"}}));
    QCOMPARE(*stricter.failedEvidence, FailedEvidence::Upstream);
    QCOMPARE(*stricter.failedEvidenceMaxAgeS, 60);
    QCOMPARE(*stricter.moneyMoving, true);
    QCOMPARE(*stricter.reconcileEscalate, true);
    QCOMPARE(*stricter.reconcileConfirmDelayS, 900);
    QCOMPARE(*stricter.reviewSlaHours, 4);
    // Every INI value weaker: the database's stays.
    const BizPolicy dbStrict = rows({{"failed_evidence", "upstream"}, {"failed_evidence_max_age", "60"}, {"money_moving", "true"},
                                     {"reconcile_confirm_delay", "900"}, {"review_sla_hours", "4"}});
    const BizPolicy weaker = stricterPolicy(dbStrict, rows({{"failed_evidence", "ticket_absent"}, {"failed_evidence_max_age", "600"},
                                                            {"money_moving", "false"}, {"reconcile", "auto"},
                                                            {"reconcile_confirm_delay", "300"}, {"review_sla_hours", "24"}}));
    QCOMPARE(*weaker.failedEvidence, FailedEvidence::Upstream);
    QCOMPARE(*weaker.failedEvidenceMaxAgeS, 60);
    QCOMPARE(*weaker.moneyMoving, true);
    QCOMPARE(*weaker.reconcileEscalate, true); // the database's money_moving makes escalate its policy: "auto" cannot undo it
    QCOMPARE(*weaker.reconcileConfirmDelayS, 900);
    QCOMPARE(*weaker.reviewSlaHours, 4);
    // One source only: that source's; neither: unset (the built-in defaults apply).
    const BizPolicy iniOnly = stricterPolicy(BizPolicy(), rows({{"review_sla_hours", "48"}, {"reconcile", "auto"}}));
    QCOMPARE(*iniOnly.reviewSlaHours, 48);
    QCOMPARE(*iniOnly.reconcileEscalate, false);
    QVERIFY(!iniOnly.failedEvidence && !iniOnly.moneyMoving);
    const BizPolicy dbOnly = stricterPolicy(rows({{"failed_evidence_max_age", "1200"}}), BizPolicy());
    QCOMPARE(*dbOnly.failedEvidenceMaxAgeS, 1200);
    // Rows of another biz_type, the freeze row and unreadable values are not this biz_type's.
    const BizPolicy other = bizPolicyFromRows({{QStringLiteral("biz.refund.money_moving"), QStringLiteral("true")},
                                               {QStringLiteral("frozen"), QStringLiteral("true")},
                                               {QStringLiteral("biz.pay.review_sla_hours"), QStringLiteral("9999")}},
                                              QStringLiteral("pay"));
    QVERIFY(!other.moneyMoving && !other.reviewSlaHours);
}

void TestPolicy::freezeRacesMarks_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestPolicy::freezeRacesMarks()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    QVector<MarkRequest> requests;
    for (int i = 0; i < kMarks; ++i) {
        const QString key = QStringLiteral("ticket:create:acme:race-%1").arg(i, 3, 10, QLatin1Char('0'));
        TRIAGE_OK(insertRecord(db, key, 0, 3600));
        MarkRequest r = request(key, Failed, QStringLiteral("race test: freeze during a batch"));
        requests << r;
    }
    WorkspaceConfig markerConfig = ticketAbsentConfig(db.config()); // stale and no ticket proves absence (DESIGN.md §6)
    markerConfig.operatorName = QStringLiteral("marker");
    WorkspaceConfig freezerConfig = db.config();
    freezerConfig.operatorName = QStringLiteral("alice");
    // Three operators mark the batch, three marks in flight at a time; once kFreezeAfter of
    // them have been applied alice freezes while the rest are still being marked. Ordering
    // by counts, never by time.
    std::vector<std::unique_ptr<Workspace>> lanes;
    for (int i = 0; i < 3; ++i)
        lanes.push_back(std::make_unique<Workspace>(markerConfig));
    Workspace freezer(freezerConfig);
    QVector<Outcome<MarkResult>> results(kMarks, Outcome<MarkResult>::failure(DbError{}));
    QList<std::pair<int, QFuture<Outcome<MarkResult>>>> inFlight;
    std::optional<QFuture<Outcome<PolicyRow>>> freezing;
    int next = 0, appliedSoFar = 0;
    while (next < kMarks || !inFlight.isEmpty()) {
        while (inFlight.size() < 3 && next < kMarks) {
            inFlight.append({next, markRecord(*lanes[size_t(next % 3)], requests[next])});
            ++next;
        }
        auto [index, future] = inFlight.takeFirst();
        results[index] = future.result();
        if (results[index].ok() && results[index]->kind == MarkResult::Kind::Applied)
            ++appliedSoFar;
        if (!freezing && appliedSoFar >= kFreezeAfter)
            freezing = setFreeze(freezer, true, QStringLiteral("race test: stop everything"));
    }
    QVERIFY(freezing);
    const Outcome<PolicyRow> frozen = freezing->result();
    TRIAGE_VERIFY_OUTCOME(frozen);

    const QString message = freezeMessage(*frozen);
    int applied = 0, refused = 0;
    for (const Outcome<MarkResult> &o : results) {
        const QString text = o.ok() ? o->message : o.error->message;
        if (o.ok() && o->kind == MarkResult::Kind::Applied)
            ++applied;
        else if (text == message)
            ++refused;
        else
            QFAIL(qPrintable(QStringLiteral("neither applied nor refused by the freeze: %1").arg(text)));
    }
    QCOMPARE(applied + refused, kMarks);
    QVERIFY(applied >= kFreezeAfter);
    qInfo("%s: %d marks applied before the freeze, %d refused by it", qPrintable(backend), applied, refused);
    // What the database holds agrees: one applied audit row and one FAILED record per applied
    // mark, every one of them before the freeze's audit row (its id comes after their commits:
    // the freeze's UPDATE waits for every writer holding the freeze row shared).
    const QString freezeId = db.adminQueryColumn(QStringLiteral("SELECT id FROM triage_audit WHERE action = 'policy.freeze'")).value(0);
    QVERIFY(!freezeId.isEmpty());
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'mark_failed'")), applied);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'mark_failed' AND id > %1").arg(freezeId)), 0);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 2")), applied);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 0")), refused);

    // After the freeze nothing more goes through; unfreeze restores.
    Workspace marker(markerConfig);
    const QVector<Outcome<MarkResult>> late = markRecords(marker, requests).result();
    for (const Outcome<MarkResult> &o : late)
        QVERIFY(!(o.ok() && o->kind == MarkResult::Kind::Applied));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'mark_failed'")), applied);
    TRIAGE_VERIFY_OUTCOME(setFreeze(freezer, false, QStringLiteral("race test: over now")).result());
    if (refused > 0) {
        QVector<MarkRequest> rest;
        for (int i = 0; i < kMarks; ++i)
            if (db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(requests[i].idemKey))
                    .value(0) == QLatin1String("0"))
                rest << request(requests[i].idemKey, Failed, QStringLiteral("race test: after the unfreeze"));
        QCOMPARE(int(rest.size()), refused);
        for (const Outcome<MarkResult> &o : markRecords(marker, rest).result())
            QVERIFY(o.ok() && o->kind == MarkResult::Kind::Applied);
    }
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 2")), kMarks);
}

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"
