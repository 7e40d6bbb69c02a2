// The demo's reconcile pass and its 14 days of escalation history (DESIGN.md §8 "The demo's
// reconcile pass and history"): the plan, exactly; the demo workspace after creation (counts
// per reason and state, overdue ones, age buckets, the run rows and their counts, the audit
// rows as the stores wrote them, moved back in time with the rows, the claims); the history
// written on every backend. (A file of its own beside tst_backend_demo.cpp, which is at the
// ~600-line limit.)

#include "BackendTestUtil.h"
#include "DemoHistory.h"
#include "DemoWorkspace.h"
#include "EscalationService.h"
#include "Review.h"
#include "SqliteFile.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace triage;
using namespace triage::test;

namespace {

constexpr qint64 kHour = 3600LL * 1000000;

/// "REASON state count" per (reason, open / resolved), as the database groups them.
const char *kByReasonAndState =
    "SELECT reason || ' ' || CASE WHEN open_slot = 1 THEN 'open' ELSE 'resolved' END || ' ' || COUNT(*) FROM triage_escalation "
    "GROUP BY reason, open_slot ORDER BY 1";

/// `name` of every run's counts JSON, oldest run first.
QList<int> countsOf(const QString &path, const char *name)
{
    QList<int> out;
    for (const QString &c : sqliteColumn(path, QStringLiteral("SELECT counts FROM triage_reconcile_run ORDER BY id")))
        out << QJsonDocument::fromJson(c.toUtf8()).object().value(QLatin1String(name)).toInt(-1);
    return out;
}

} // namespace

class TstDemoHistory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void plan();
    void demoCreation();
    void historyEveryBackend_data();
    void historyEveryBackend();

private:
    QTemporaryDir m_data;
};

void TstDemoHistory::initTestCase()
{
    QVERIFY(m_data.isValid());
    qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
}

void TstDemoHistory::plan()
{
    const EscalationHistory h = makeEscalationHistory(1);
    QCOMPARE(h.runs.size(), 14);
    for (int i = 0; i < 14; ++i) {
        QCOMPARE(h.runs[i].startedAgo, (14 - i) * 24 * kHour - 2 * kHour);
        QCOMPARE(h.runs[i].holder, QStringLiteral("reconciler:demo-cron:%1").arg(4100 + i));
    }
    QCOMPARE(h.escalations.size(), 60);
    // reason → (open, resolved by an operator, resolved by a later run): HistoryEscalation::End's order
    std::map<QString, std::array<int, 3>> ends;
    QList<int> raisedPerRun(14, 0);
    QSet<QString> keys;
    for (const HistoryEscalation &e : h.escalations) {
        ends[escalationReasonName(e.reason)][int(e.end)] += 1;
        raisedPerRun[e.raisedByRun] += 1;
        keys.insert(e.idemKey);
        QVERIFY2(!e.verdictJson.isEmpty() && !e.why.isEmpty() && !e.upstream.isEmpty(), qPrintable(e.idemKey));
        if (e.end == HistoryEscalation::End::Operator) {
            QVERIFY2(e.resolution.size() >= kOperatorReasonMinChars, qPrintable(e.resolution));
            QVERIFY(e.resolvedAgo < h.runs[e.raisedByRun].startedAgo);
        }
        if (e.end == HistoryEscalation::End::Reconciler)
            QCOMPARE(e.resolvedByRun, e.raisedByRun + 1);
    }
    const std::map<QString, std::array<int, 3>> expected{
        {QStringLiteral("AGENT_SAW_SUCCESS"), {1, 0, 6}}, {QStringLiteral("AMOUNT_MISMATCH"), {5, 4, 0}},
        {QStringLiteral("CONTRADICTION"), {4, 4, 0}},     {QStringLiteral("DUPLICATE"), {4, 3, 5}},
        {QStringLiteral("EXTERNAL"), {2, 4, 0}},          {QStringLiteral("KEY_REUSE"), {1, 3, 0}},
        {QStringLiteral("UPSTREAM_UNUSABLE"), {1, 0, 13}},
    };
    QCOMPARE(ends, expected);
    QCOMPARE(raisedPerRun, (QList<int>{4, 4, 4, 4, 5, 4, 4, 4, 5, 4, 4, 5, 4, 5}));
    QCOMPARE(keys.size(), 60); // one key per escalation, each with its record
    QCOMPARE(h.keys.records.size(), 60);
    for (const SeedRecord &r : h.keys.records)
        QVERIFY(keys.contains(r.idemKey));
    // Same plan every time (the demo is re-created daily).
    QCOMPARE(makeEscalationHistory(1).escalations.first().idemKey, h.escalations.first().idemKey);
    QCOMPARE(h.claims.size(), 4);
}

void TstDemoHistory::demoCreation()
{
    QCOMPARE(DemoWorkspace::ensure(true), QString());
    const QString path = DemoWorkspace::path();

    // The creation's reconcile pass: the 15th run, finished, against the simulator.
    const QStringList runs = sqliteColumn(path, QStringLiteral("SELECT holder || ' ' || state || ' ' || (finished_at IS NOT NULL) "
                                                               "FROM triage_reconcile_run ORDER BY id"));
    QCOMPARE(runs.size(), 15);
    for (int i = 0; i < 14; ++i)
        QCOMPARE(runs[i], QStringLiteral("reconciler:demo-cron:%1 finished 1").arg(4100 + i));
    QVERIFY2(runs[14].startsWith(QStringLiteral("reconciler:")) && runs[14].endsWith(QStringLiteral(" finished 1")), qPrintable(runs[14]));
    const QJsonObject pass = QJsonDocument::fromJson(
                                 sqliteColumn(path, QStringLiteral("SELECT counts FROM triage_reconcile_run WHERE id = 15")).value(0).toUtf8())
                                 .object();
    QCOMPARE(pass.value(QLatin1String("state")).toString(), QStringLiteral("finished"));
    QCOMPARE(pass.value(QLatin1String("examined")).toInt(), 139);
    QCOMPARE(pass.value(QLatin1String("applied_success")).toInt(), 32);
    QCOMPARE(pass.value(QLatin1String("applied_failed")).toInt(), 0);
    QCOMPARE(pass.value(QLatin1String("escalated")).toInt(), 59);
    QCOMPARE(pass.value(QLatin1String("escalations_created")).toInt(), 56);
    QCOMPARE(pass.value(QLatin1String("escalations_updated")).toInt(), 5); // the history's open ones whose keys are still stale
    QCOMPARE(pass.value(QLatin1String("resolved")).toInt(), 3);             // yesterday's, settled since
    QCOMPARE(pass.value(QLatin1String("skipped_claimed")).toInt(), 1);      // the key bob holds
    QCOMPARE(pass.value(QLatin1String("waiting")).toInt(), 51); // ticket_create and notify_send (auto); payments and refunds escalate POLICY
    QCOMPARE(pass.value(QLatin1String("conflicts")).toInt(), 0);
    QCOMPARE(pass.value(QLatin1String("errors")).toInt(), 0);
    QCOMPARE(pass.value(QLatin1String("by_reason")).toObject(),
             (QJsonObject{{QStringLiteral("AMOUNT_MISMATCH"), 1}, {QStringLiteral("DUPLICATE"), 19}, {QStringLiteral("EXPIRING"), 3},
                          {QStringLiteral("EXTERNAL"), 18}, {QStringLiteral("KEY_REUSE"), 2}, {QStringLiteral("POLICY"), 18}}));
    const QJsonObject upstream = pass.value(QLatin1String("upstream")).toObject();
    QCOMPARE(upstream.value(QLatin1String("queried")).toInt(), 139);
    QCOMPARE(upstream.value(QLatin1String("unusable")).toInt(), 0);
    QCOMPARE(upstream.value(QLatin1String("breaker_open")).toBool(), false);
    // The history's runs: what each raised, saw again and resolved.
    QCOMPARE(countsOf(path, "escalations_created"), (QList<int>{4, 4, 4, 4, 5, 4, 4, 4, 5, 4, 4, 5, 4, 5, 56}));
    QCOMPARE(countsOf(path, "escalations_updated"), (QList<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 5}));
    QCOMPARE(countsOf(path, "resolved"), (QList<int>{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 3}));

    // Every escalation, by reason and state.
    QCOMPARE(sqliteColumn(path, QString::fromLatin1(kByReasonAndState)),
             (QStringList{QStringLiteral("AGENT_SAW_SUCCESS resolved 7"), QStringLiteral("AMOUNT_MISMATCH open 6"),
                          QStringLiteral("AMOUNT_MISMATCH resolved 4"), QStringLiteral("CONTRADICTION open 4"),
                          QStringLiteral("CONTRADICTION resolved 4"), QStringLiteral("DUPLICATE open 20"),
                          QStringLiteral("DUPLICATE resolved 9"), QStringLiteral("EXPIRING open 3"), QStringLiteral("EXTERNAL open 18"),
                          QStringLiteral("EXTERNAL resolved 4"), QStringLiteral("KEY_REUSE open 2"), QStringLiteral("KEY_REUSE resolved 3"),
                          QStringLiteral("POLICY open 18"),
                          QStringLiteral("UPSTREAM_UNUSABLE resolved 14")}));
    QCOMPARE(sqliteColumn(path, QStringLiteral("SELECT resolved_by || ' ' || COUNT(*) FROM triage_escalation WHERE resolved_by IS NOT NULL "
                                               "GROUP BY resolved_by ORDER BY 1")),
             (QStringList{QStringLiteral("alice 3"), QStringLiteral("bob 4"), QStringLiteral("carol 2"), QStringLiteral("dave 5"),
                          QStringLiteral("erin 4"), QStringLiteral("reconciler 27")}));
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(DISTINCT biz_type) FROM triage_escalation")), 4);
    QCOMPARE(sqliteColumn(path, QStringLiteral("SELECT DISTINCT tenant FROM triage_escalation ORDER BY 1")),
             (QStringList{QString(), QStringLiteral("acme"), QStringLiteral("globex"), QStringLiteral("initech"), QStringLiteral("umbrella"),
                          QStringLiteral("zürich")}));

    // Consistent with the rest of the demo: every key has its record; a resolution has its
    // time, its operator and a reason, after the escalation; 14 calendar days of history.
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE NOT EXISTS (SELECT 1 FROM "
                                              "idempotency_record r WHERE r.idem_key = e.idem_key)")),
             0);
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE open_slot IS NULL AND (resolved_at IS NULL "
                                              "OR resolved_by IS NULL OR length(resolution) < 10 OR resolved_at <= first_escalated_at)")),
             0);
    const QString passStart = sqliteColumn(path, QStringLiteral("SELECT started_at FROM triage_reconcile_run WHERE id = 15")).value(0);
    const QString before = QStringLiteral("'%1'").arg(passStart);
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(DISTINCT substr(first_escalated_at, 1, 10)) FROM triage_escalation WHERE "
                                              "first_escalated_at < %1").arg(before)),
             14);
    // The stores' audit rows, moved back with the rows: each history escalation's raise at its
    // first_escalated_at, each resolution before the pass at its resolved_at (its to_state too).
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE first_escalated_at < %1 AND (SELECT "
                                              "COUNT(*) FROM triage_audit a WHERE a.action = 'escalation.raise' AND a.idem_key = e.idem_key "
                                              "AND a.operator = 'reconciler' AND a.at = e.first_escalated_at) = 1").arg(before)),
             60);
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE resolved_at < %1 AND (SELECT COUNT(*) FROM "
                                              "triage_audit a WHERE a.action = 'escalation.resolve' AND a.idem_key = e.idem_key AND "
                                              "a.operator = e.resolved_by AND a.at = e.resolved_at AND a.to_state LIKE '%\"resolved_at\":\"' "
                                              "|| e.resolved_at || '\"%') = 1").arg(before)),
             42);
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'escalation.resolve' AND outcome = 'applied'")), 45);
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE action = 'escalation.raise'")), 116);

    // As the console and the review read them: open ones by age bucket, overdue ones.
    Workspace ws(DemoWorkspace::config());
    EscalationQuery open;
    const auto rows = listEscalations(ws, open).result();
    TRIAGE_VERIFY_OUTCOME(rows);
    int overdue = 0;
    QList<int> buckets(4, 0); // < 24 h, 1–3 d, 3–7 d, > 7 d
    for (const EscalationRow &r : *rows) {
        overdue += r.escalation.overdue;
        const qint64 age = r.escalation.ageS;
        buckets[age < 86400 ? 0 : age < 3 * 86400 ? 1 : age < 7 * 86400 ? 2 : 3] += 1;
    }
    QCOMPARE(rows->size(), 71);
    QCOMPARE(overdue, 14); // 13 past their SLA, and the EXPIRING one whose record expired before the pass (due at once)
    QCOMPARE(buckets, (QList<int>{58, 4, 5, 4}));

    // The daily review (DESIGN.md §8 "The daily review"): the 14 overdue ones' breaches,
    // noticed by today's pass, due at their sla_due_at; the day before yesterday (UTC) signed
    // off by alice at 09:00 yesterday; trend rows for every day of the history, complete ones
    // before today.
    QCOMPARE(sqliteColumn(path, QStringLiteral("SELECT noticed_by || ' ' || COUNT(*) FROM triage_review_breach GROUP BY noticed_by")),
             QStringList{QStringLiteral("reconciler 14")});
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_review_breach b JOIN triage_escalation e ON e.id = b.escalation_id "
                                              "WHERE b.due_at = e.sla_due_at AND e.open_slot = 1")),
             14);
    QCOMPARE(sqliteColumn(path, QStringLiteral("SELECT day || ' ' || zone || ' ' || signed_by || ' ' || substr(signed_at, 12) || ' ' || "
                                               "length(report_sha256) FROM triage_review_signoff")),
             QStringList{QStringLiteral("%1 UTC alice 09:00:00.000000Z 64")
                             .arg(QDate::fromString(sqliteColumn(path, QStringLiteral("SELECT date('now', '-2 days')")).value(0), Qt::ISODate)
                                      .toString(Qt::ISODate))});
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(DISTINCT day) FROM triage_review_daily WHERE complete = 1 AND day >= "
                                              "substr(%1, 1, 10)").arg(QStringLiteral("(SELECT MIN(first_escalated_at) FROM triage_escalation)"))),
             sqliteCount(path, QStringLiteral("SELECT CAST(julianday(date('now')) - julianday(substr(MIN(first_escalated_at), 1, 10)) AS "
                                              "INTEGER) FROM triage_escalation")));
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(DISTINCT day) FROM triage_review_daily WHERE complete = 0")), 1);
    const auto review = readReview(ws, std::nullopt, QStringLiteral("console")).result();
    TRIAGE_VERIFY_OUTCOME(review);
    QCOMPARE(review->totals.open, 71);
    QCOMPARE(review->totals.openByBucket, (QVector<int>{58, 4, 5, 4}));
    QCOMPARE(review->lastSignOff->signedBy, QStringLiteral("alice"));

    // Claims: three live, one run out; the key bob holds was skipped by the pass (its
    // DUPLICATE last seen by yesterday's run), the other stale ones were seen again.
    const auto live = listClaims(ws, false).result();
    TRIAGE_VERIFY_OUTCOME(live);
    QStringList shown;
    for (const Claim &c : *live)
        shown << QStringLiteral("%1 %2").arg(claimScopeName(c.scope), claimedByText(c));
    QCOMPARE(shown, (QStringList{QStringLiteral("escalation claimed by alice, 25 min ago"), QStringLiteral("key claimed by bob, 2 h ago"),
                                 QStringLiteral("escalation claimed by carol, 4 h ago")}));
    const auto all = listClaims(ws, true).result();
    TRIAGE_VERIFY_OUTCOME(all);
    QCOMPARE(all->size(), 4);
    QCOMPARE(all->last().holder, QStringLiteral("dave"));
    QVERIFY(all->last().expired);
    const QString bobsKey = live->at(1).subject;
    QCOMPARE(sqliteColumn(path, QStringLiteral("SELECT reason || ' ' || run_id FROM triage_escalation WHERE idem_key = '%1'").arg(bobsKey)),
             QStringList{QStringLiteral("DUPLICATE 14")});
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE first_escalated_at < %1 AND run_id = 15").arg(before)),
             5);

    // A run finished just now: no freshness warning (DESIGN.md §8 "Freshness").
    const auto fresh = reconcileFreshness(ws).result();
    TRIAGE_VERIFY_OUTCOME(fresh);
    QCOMPARE(*fresh, std::optional<QString>());
}

void TstDemoHistory::historyEveryBackend_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true);
}

void TstDemoHistory::historyEveryBackend()
{
    // The history through the stores on every backend (the demo is SQLite; the writer is not):
    // the same rows, the audit rows at the rows' times.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes = demoBizTypes();
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws, false));
    const Outcome<HistoryReport> report = seedEscalationHistory(ws);
    TRIAGE_VERIFY_OUTCOME(report);
    QCOMPARE(report->records, qint64(60));
    QCOMPARE(report->runs, qint64(14));
    QCOMPARE(report->escalations, qint64(60));
    QCOMPARE(report->resolved, qint64(42));
    QCOMPARE(report->claims, qint64(4));
    const EscalationHistory plan = makeEscalationHistory(1);
    QCOMPARE(report->tickets, qint64(plan.keys.tickets.size()));
    QCOMPARE(report->intents, qint64(plan.keys.intents.size()));
    QCOMPARE(report->audits, qint64(plan.keys.audits.size()));

    const auto column = [&](const QString &sql) {
        QString error;
        const QStringList rows = db.adminQueryColumn(sql, &error);
        if (!error.isEmpty())
            qWarning("%s: %s", qPrintable(sql), qPrintable(error));
        return rows;
    };
    const QString state = QStringLiteral("CASE WHEN open_slot = 1 THEN 'open' ELSE 'resolved' END");
    const QString line = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(reason, ' ', %1, ' ', COUNT(*))").arg(state)
                                                                : QStringLiteral("reason || ' ' || %1 || ' ' || COUNT(*)").arg(state);
    QCOMPARE(column(QStringLiteral("SELECT %1 FROM triage_escalation GROUP BY reason, open_slot ORDER BY 1").arg(line)),
             (QStringList{QStringLiteral("AGENT_SAW_SUCCESS open 1"), QStringLiteral("AGENT_SAW_SUCCESS resolved 6"),
                          QStringLiteral("AMOUNT_MISMATCH open 5"), QStringLiteral("AMOUNT_MISMATCH resolved 4"),
                          QStringLiteral("CONTRADICTION open 4"), QStringLiteral("CONTRADICTION resolved 4"),
                          QStringLiteral("DUPLICATE open 4"), QStringLiteral("DUPLICATE resolved 8"), QStringLiteral("EXTERNAL open 2"),
                          QStringLiteral("EXTERNAL resolved 4"), QStringLiteral("KEY_REUSE open 1"), QStringLiteral("KEY_REUSE resolved 3"),
                          QStringLiteral("UPSTREAM_UNUSABLE open 1"), QStringLiteral("UPSTREAM_UNUSABLE resolved 13")}));
    QCOMPARE(column(QStringLiteral("SELECT COUNT(*) FROM triage_escalation WHERE resolved_by = 'reconciler'")), QStringList{QStringLiteral("24")});
    QCOMPARE(column(QStringLiteral("SELECT COUNT(*) FROM triage_reconcile_run WHERE state = 'finished' AND finished_at IS NOT NULL "
                                   "AND started_at < finished_at")),
             QStringList{QStringLiteral("14")});
    QCOMPARE(column(QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE EXISTS (SELECT 1 FROM triage_audit a WHERE "
                                   "a.action = 'escalation.raise' AND a.idem_key = e.idem_key AND a.at = e.first_escalated_at)")),
             QStringList{QStringLiteral("60")});
    QCOMPARE(column(QStringLiteral("SELECT COUNT(*) FROM triage_escalation e WHERE EXISTS (SELECT 1 FROM triage_audit a WHERE "
                                   "a.action = 'escalation.resolve' AND a.idem_key = e.idem_key AND a.at = e.resolved_at)")),
             QStringList{QStringLiteral("42")});
    QCOMPARE(column(QStringLiteral("SELECT COUNT(*) FROM triage_claim c WHERE EXISTS (SELECT 1 FROM triage_audit a WHERE "
                                   "a.action = 'claim.take' AND a.operator = c.holder AND a.at = c.claimed_at)")),
             QStringList{QStringLiteral("4")});
    // Open ones keep their age: first_escalated_at is the run's, sla_due_at 24 h after it.
    const auto rows = listEscalations(ws, EscalationQuery{}).result();
    TRIAGE_VERIFY_OUTCOME(rows);
    QCOMPARE(rows->size(), 18);
    int overdue = 0;
    for (const EscalationRow &r : *rows) {
        overdue += r.escalation.overdue;
        QCOMPARE(parseUtcMicros(r.escalation.slaDueAt).value_or(0) - parseUtcMicros(r.escalation.firstEscalatedAt).value_or(0), 24 * kHour);
    }
    QCOMPARE(overdue, 13);
}

QTEST_GUILESS_MAIN(TstDemoHistory)
#include "tst_demo_history.moc"
