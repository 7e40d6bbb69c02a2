// What a key's timeline says about escalations and claims (DESIGN.md §8): their audit rows read
// "open DUPLICATE", "held by alice" and "none" instead of "? → ?", on every backend.
#include "BackendTestUtil.h"
#include "EscalationTestUtil.h"

#include "Escalation.h"
#include "EscalationService.h"
#include "KeyDetail.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

class TestReconcileTimeline : public QObject {
    Q_OBJECT
private slots:
    void auditRowsInTheTimeline_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(true, false);
    }
    void auditRowsInTheTimeline();
};

void TestReconcileTimeline::auditRowsInTheTimeline()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:acme:t1");
    RecordSpec r;
    r.key = key;
    r.updated = serverAgoSeconds(db, 3600);
    TRIAGE_OK(insertRecords(db, {r}));

    const auto raised = raiseNow(ws, escalationOf(key, EscalationReason::Duplicate, QStringLiteral("{\"tickets\":2}")));
    TRIAGE_VERIFY_OUTCOME(raised);
    const auto resolved = await(resolveEscalation(ws, raised->escalation.id, QStringLiteral("one ticket cancelled by hand"), std::nullopt,
                                                  QStringLiteral("alice")));
    TRIAGE_VERIFY_OUTCOME(resolved);
    const auto taken = await(takeClaim(ws, ClaimScope::Key, key, 600, QString(), QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(taken);
    const auto released = await(releaseClaim(ws, ClaimScope::Key, key, QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(released);

    const KeyDetail detail = await(loadKeyDetail(ws, key));
    QStringList audit;
    for (const TimelineEvent &e : detail.timeline) {
        if (e.source == QLatin1String("triage_audit"))
            audit << e.summary;
    }
    QCOMPARE(audit, (QStringList{
        QStringLiteral("escalation.raise by reconciler: none \u2192 open DUPLICATE (applied): escalated: DUPLICATE"),
        QStringLiteral("escalation.resolve by alice: open DUPLICATE \u2192 resolved DUPLICATE (applied): one ticket cancelled by hand"),
        QStringLiteral("claim.take by bob: none \u2192 held by bob (applied): claimed for 600 s"),
        QStringLiteral("claim.release by bob: released"),
    }));
}

QTEST_MAIN(TestReconcileTimeline)
#include "tst_reconcile_timeline.moc"
