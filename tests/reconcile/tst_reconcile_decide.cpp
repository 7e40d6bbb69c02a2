// The reconciler's decision table (DESIGN.md §8 "Reconciliation"), pure: every §6 verdict row
// × the biz_type's policy (auto, escalate) × the two-answer rule × the facts (expiry,
// amounts, the agents' escalations, compensations) → the exact action and reason codes,
// written out by hand below. Plus the policy defaults and the new [biz.*] keys.
#include "ReconcileDecide.h"

#include "CanonicalTicket.h"
#include "UpstreamClient.h"
#include "WorkspaceConfig.h"

#include <QDateTime>

#include <QTemporaryDir>
#include <QTest>

using namespace triage;

namespace {

const UtcMicros kNow = *parseUtcMicros(u"2026-12-01T12:00:00.000000Z");
constexpr qint64 kS = 1000000;

struct Row {
    const char *name;
    const char *tickets;  ///< "0", "1", "1null" (NULL payload), "1amt" (amount 10.00 EUR), "2", "2reuse"
    const char *attempts; ///< "none", "SUCCEEDED", "ESCALATED", "UNKNOWN"
    UpstreamAnswer upstream; ///< this run's answer
    const char *answers;  ///< recorded answers oldest first: "NF@-400,F@-200" (seconds from now)
    const char *extra;    ///< space-separated: young expiring expired breaker noupstream ticket_absent comp settled storeerr upamt12 upamt10 snapamt9 late_attempt
    const char *autoAction, *autoReasons; ///< expected under reconcile = auto
    const char *escAction, *escReasons;   ///< expected under reconcile = escalate
};

using UA = UpstreamAnswer;

// clang-format off
const Row kRows[] = {
    // §6 row 1: not stale → nothing.
    {"r1 young",                 "0", "none", UA::NotFound, "NF@-10",  "young", "none", "", "none", ""},
    // Row 2: DUPLICATE / KEY_REUSE, whatever the policy.
    {"r2 two tickets",           "2", "none", UA::Found,    "F@-10",   "", "escalate", "DUPLICATE", "escalate", "DUPLICATE"},
    {"r2 key reuse",             "2reuse", "none", UA::Found, "F@-10", "", "escalate", "KEY_REUSE", "escalate", "KEY_REUSE"},
    {"r2 ambiguous",             "0", "none", UA::Ambiguous, "A@-10",  "", "escalate", "DUPLICATE", "escalate", "DUPLICATE"},
    {"r2 + stuck compensation",  "2", "none", UA::Found,    "F@-10",   "comp", "escalate", "DUPLICATE,STUCK_COMPENSATION", "escalate", "DUPLICATE,STUCK_COMPENSATION"},
    {"r2 + expiring",            "2", "none", UA::Found,    "F@-10",   "expiring", "escalate", "DUPLICATE,EXPIRING", "escalate", "DUPLICATE,EXPIRING"},
    // Row 3: one ticket, NOT_FOUND.
    {"r3 contradiction",         "1", "none", UA::NotFound, "NF@-10",  "", "escalate", "CONTRADICTION", "escalate", "CONTRADICTION"},
    // Row 4: one ticket → SUCCESS from it, under both policies.
    {"r4 found",                 "1", "none", UA::Found,    "F@-10",   "", "apply_success", "", "apply_success", ""},
    {"r4 unusable",              "1", "none", UA::Unusable, "U@-10",   "", "apply_success", "", "apply_success", ""},
    {"r4 not configured",        "1", "none", UA::NotConfigured, "",   "noupstream", "apply_success", "", "apply_success", ""},
    {"r4 breaker",               "1", "none", UA::Unusable, "",        "breaker", "apply_success", "", "apply_success", ""},
    {"r4 expiring applies",      "1", "none", UA::Found,    "F@-10",   "expiring", "apply_success", "", "apply_success", ""},
    {"r4 NULL payload",          "1null", "none", UA::Unusable, "U@-10", "", "escalate", "POLICY", "escalate", "POLICY"},
    {"r4 amount mismatch",       "1amt", "none", UA::Found, "F@-10",   "upamt12", "escalate", "AMOUNT_MISMATCH", "escalate", "AMOUNT_MISMATCH"},
    {"r4 same amount 10 = 10.00","1amt", "none", UA::Found, "F@-10",   "upamt10", "apply_success", "", "apply_success", ""},
    {"r4 snapshot amount differs","1amt", "none", UA::Unusable, "U@-10", "snapamt9", "escalate", "AMOUNT_MISMATCH", "escalate", "AMOUNT_MISMATCH"},
    {"r4 + ESCALATED attempt",   "1", "ESCALATED", UA::Found, "F@-10", "", "apply_success", "EXTERNAL", "apply_success", "EXTERNAL"},
    // Row 5: no ticket, FOUND → SUCCESS from the upstream object.
    {"r5 found",                 "0", "none", UA::Found,    "F@-10",   "", "apply_success", "", "apply_success", ""},
    {"r5 amount mismatch",       "0", "none", UA::Found,    "F@-10",   "upamt12 snapamt9", "escalate", "AMOUNT_MISMATCH", "escalate", "AMOUNT_MISMATCH"},
    // Row 6: NOT_FOUND but the agent saw success / escalated.
    {"r6 SUCCEEDED attempt",     "0", "SUCCEEDED", UA::NotFound, "NF@-400,NF@-10", "", "escalate", "AGENT_SAW_SUCCESS", "escalate", "AGENT_SAW_SUCCESS"},
    {"r6 ESCALATED attempt",     "0", "ESCALATED", UA::NotFound, "NF@-400,NF@-10", "", "escalate", "EXTERNAL", "escalate", "EXTERNAL"},
    // Row 7: FAILED — only with policy auto and two NOT_FOUND answers ≥ 300 s apart.
    {"r7 two answers",           "0", "none", UA::NotFound, "NF@-400,NF@-10", "", "apply_failed", "", "escalate", "POLICY"},
    {"r7 two answers, UNUSABLE between", "0", "none", UA::NotFound, "NF@-400,U@-200,NF@-10", "", "apply_failed", "", "escalate", "POLICY"},
    {"r7 two answers exactly 300 s", "0", "none", UA::NotFound, "NF@-310,NF@-10", "", "apply_failed", "", "escalate", "POLICY"},
    {"r7 one answer",            "0", "none", UA::NotFound, "NF@-10",  "", "wait_confirmation", "", "escalate", "POLICY"},
    {"r7 answers 299 s apart",   "0", "none", UA::NotFound, "NF@-309,NF@-10", "", "wait_confirmation", "", "escalate", "POLICY"},
    {"r7 earlier before stale point", "0", "none", UA::NotFound, "NF@-3400,NF@-10", "", "wait_confirmation", "", "escalate", "POLICY"},
    {"r7 earlier before latest attempt", "0", "UNKNOWN", UA::NotFound, "NF@-400,NF@-10", "late_attempt", "wait_confirmation", "", "escalate", "POLICY"},
    {"r7 FOUND between",         "0", "none", UA::NotFound, "NF@-600,F@-400,NF@-10", "", "wait_confirmation", "", "escalate", "POLICY"},
    {"r7 unknown attempt, two answers", "0", "UNKNOWN", UA::NotFound, "NF@-400,NF@-10", "", "apply_failed", "", "escalate", "POLICY"},
    {"r7 one answer + expiring", "0", "none", UA::NotFound, "NF@-10",  "expiring", "escalate", "EXPIRING", "escalate", "EXPIRING,POLICY"},
    {"r7 two answers + expired", "0", "none", UA::NotFound, "NF@-400,NF@-10", "expired", "apply_failed", "", "escalate", "EXPIRING,POLICY"},
    {"r7 ticket_absent, no upstream", "0", "none", UA::NotConfigured, "", "ticket_absent noupstream", "escalate", "NO_QUERY_API", "escalate", "POLICY"},
    {"r7 ticket_absent, unusable", "0", "none", UA::Unusable, "NF@-400,U@-10", "ticket_absent", "escalate", "UPSTREAM_UNUSABLE", "escalate", "POLICY"},
    {"r7 ticket_absent, breaker", "0", "none", UA::Unusable, "NF@-400", "ticket_absent breaker", "wait_confirmation", "", "escalate", "POLICY"},
    // Row 8: nothing definitive.
    {"r8 unusable",              "0", "none", UA::Unusable, "U@-10",   "", "escalate", "UPSTREAM_UNUSABLE", "escalate", "UPSTREAM_UNUSABLE"},
    {"r8 breaker",               "0", "none", UA::Unusable, "",        "breaker", "escalate", "UPSTREAM_UNUSABLE", "escalate", "UPSTREAM_UNUSABLE"},
    {"r8 not configured",        "0", "none", UA::NotConfigured, "",   "noupstream", "escalate", "NO_QUERY_API", "escalate", "NO_QUERY_API"},
    {"r8 + expiring",            "0", "none", UA::Unusable, "U@-10",   "expiring", "escalate", "UPSTREAM_UNUSABLE,EXPIRING", "escalate", "UPSTREAM_UNUSABLE,EXPIRING"},
    {"r8 + ESCALATED attempt",   "0", "ESCALATED", UA::Unusable, "U@-10", "", "escalate", "UPSTREAM_UNUSABLE,EXTERNAL", "escalate", "UPSTREAM_UNUSABLE,EXTERNAL"},
    // Before the table: a settled record, incomplete evidence.
    {"settled meanwhile",        "0", "none", UA::NotFound, "NF@-400,NF@-10", "settled", "none", "", "none", ""},
    {"store error",              "0", "none", UA::NotFound, "NF@-400,NF@-10", "storeerr", "none", "", "none", ""},
};
// clang-format on

QString ticketPayload(const QString &spec, int i)
{
    if (spec == QLatin1String("1null"))
        return {};
    if (spec == QLatin1String("1amt"))
        return QStringLiteral("{\"ticket_id\":%1,\"title\":\"refund\",\"amount\":10.00,\"currency\":\"EUR\"}").arg(17 + i);
    if (spec == QLatin1String("2reuse"))
        return QStringLiteral("{\"ticket_id\":%1,\"title\":\"title %1\"}").arg(17 + i);
    return QStringLiteral("{\"ticket_id\":%1,\"title\":\"VPN outage\"}").arg(17 + i);
}

ReconcileInput inputOf(const Row &row, ReconcilePolicy policy)
{
    const QStringList extra = QString::fromLatin1(row.extra).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString tickets = QString::fromLatin1(row.tickets);
    const QString attempts = QString::fromLatin1(row.attempts);
    VerdictInput vi;
    vi.recordStale = !extra.contains(QStringLiteral("young"));
    vi.recordStatus = QStringLiteral("PROCESSING");
    vi.ticketAbsentIsEvidence = extra.contains(QStringLiteral("ticket_absent"));
    const int n = tickets.startsWith(QLatin1Char('2')) ? 2 : tickets.startsWith(QLatin1Char('1')) ? 1 : 0;
    ReconcileInput in;
    for (int i = 0; i < n; ++i) {
        VerdictTicket t;
        t.id = BusinessId::fromInteger(17 + i);
        const QString p = ticketPayload(tickets, i);
        if (!p.isEmpty())
            t.payload = p;
        t.status = QStringLiteral("OPEN");
        t.createdAt = formatUtcMicros(kNow - (3600 - i) * kS);
        vi.tickets << t;
        in.ticketPayloads << qMakePair(QStringLiteral("ticket:%1").arg(17 + i), t.payload);
    }
    if (attempts != QLatin1String("none"))
        vi.attemptStatuses << attempts;
    vi.upstream = row.upstream;
    if (row.upstream == UA::Found) {
        vi.upstreamObject = extra.contains(QStringLiteral("upamt12"))
            ? QStringLiteral("{\"idem_key\":\"k\",\"ticket_id\":17,\"amount\":\"12\",\"currency\":\"EUR\"}")
            : extra.contains(QStringLiteral("upamt10")) ? QStringLiteral("{\"idem_key\":\"k\",\"ticket_id\":17,\"amount\":\"10\"}")
                                                        : QStringLiteral("{\"idem_key\":\"k\",\"ticket_id\":17}");
        in.upstreamObject = vi.upstreamObject;
    }
    if (extra.contains(QStringLiteral("snapamt9")))
        in.recordSnapshot = QStringLiteral("{\"amount\":9.5}");
    in.verdict = suggestVerdict(vi);
    in.policy = policy;
    in.confirmDelayS = 300;
    in.upstreamConfigured = !extra.contains(QStringLiteral("noupstream"));
    in.breakerOpen = extra.contains(QStringLiteral("breaker"));
    in.recordProcessing = !extra.contains(QStringLiteral("settled"));
    if (extra.contains(QStringLiteral("storeerr")))
        in.storeErrors << QStringLiteral("ticket store: connection refused");
    in.now = kNow;
    in.updatedAt = kNow - 3600 * kS; // stale at -3300 s
    in.processingTimeoutS = 300;
    in.failedEvidenceMaxAgeS = 900;
    if (attempts != QLatin1String("none"))
        in.latestAttemptAt = extra.contains(QStringLiteral("late_attempt")) ? kNow - 100 * kS : kNow - 3550 * kS;
    in.succeededAttempts = attempts == QLatin1String("SUCCEEDED") ? 1 : 0;
    if (attempts == QLatin1String("ESCALATED"))
        in.latestEscalatedAttemptId = 41;
    if (extra.contains(QStringLiteral("expiring")))
        in.expiresInS = 3600;
    else if (extra.contains(QStringLiteral("expired")))
        in.expiresInS = -60;
    else
        in.expiresInS = 7 * 86400;
    if (extra.contains(QStringLiteral("comp")))
        in.unsettledCompensations << QStringLiteral("comp:cancel:18:k");
    qint64 auditId = 100;
    for (const QString &a : QString::fromLatin1(row.answers).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = a.split(QLatin1Char('@'));
        RecordedUpstreamAnswer r;
        r.auditId = ++auditId;
        r.answer = parts[0] == QLatin1String("NF") ? UA::NotFound
            : parts[0] == QLatin1String("F")       ? UA::Found
            : parts[0] == QLatin1String("A")       ? UA::Ambiguous
                                                   : UA::Unusable;
        r.at = kNow + parts[1].toLongLong() * kS;
        r.atText = formatUtcMicros(*r.at);
        in.answers << r;
    }
    return in;
}

} // namespace

class TestReconcileDecide : public QObject {
    Q_OBJECT
private slots:
    void table_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<bool>("escalatePolicy");
        for (int i = 0; i < int(std::size(kRows)); ++i) {
            QTest::newRow(qPrintable(QStringLiteral("%1 / auto").arg(QLatin1String(kRows[i].name)))) << i << false;
            QTest::newRow(qPrintable(QStringLiteral("%1 / escalate").arg(QLatin1String(kRows[i].name)))) << i << true;
        }
    }
    void table()
    {
        QFETCH(int, index);
        QFETCH(bool, escalatePolicy);
        const Row &row = kRows[index];
        const ReconcileAction a = decideReconcile(inputOf(row, escalatePolicy ? ReconcilePolicy::Escalate : ReconcilePolicy::Auto));
        QCOMPARE(reconcileActionName(a.kind), QString::fromLatin1(escalatePolicy ? row.escAction : row.autoAction));
        QCOMPARE(a.reasonList(), QString::fromLatin1(escalatePolicy ? row.escReasons : row.autoReasons));
        QVERIFY(!a.why.isEmpty());
        // Never FAILED without the evidence: only row 7, policy auto, two answers.
        if (a.kind == ReconcileActionKind::ApplyFailed) {
            QCOMPARE(a.firstNotFoundAuditId > 0 && a.secondNotFoundAuditId > a.firstNotFoundAuditId, true);
            QVERIFY(!escalatePolicy);
        }
    }

    void details()
    {
        // SUCCESS carries the snapshot byte-exact and its source.
        ReconcileAction a = decideReconcile(inputOf(kRows[7], ReconcilePolicy::Auto)); // r4 found
        QCOMPARE(a.snapshotSource, QStringLiteral("ticket:17"));
        QCOMPARE(*a.snapshot, QStringLiteral("{\"ticket_id\":17,\"title\":\"VPN outage\"}"));
        a = decideReconcile(inputOf(kRows[17], ReconcilePolicy::Auto)); // r5 found
        QCOMPARE(a.snapshotSource, QStringLiteral("upstream"));
        QCOMPARE(*a.snapshot, QStringLiteral("{\"idem_key\":\"k\",\"ticket_id\":17}"));
        // EXTERNAL names the intent attempt.
        a = decideReconcile(inputOf(kRows[20], ReconcilePolicy::Auto)); // r6 ESCALATED
        QCOMPARE(a.escalations.size(), 1);
        QCOMPARE(a.escalations[0].sourceRef, QStringLiteral("intent:41"));
        // FAILED names both answers; waiting names the one it has.
        a = decideReconcile(inputOf(kRows[21], ReconcilePolicy::Auto)); // r7 two answers
        QCOMPARE(a.firstNotFoundAuditId, qint64(101));
        QCOMPARE(a.secondNotFoundAuditId, qint64(102));
        a = decideReconcile(inputOf(kRows[24], ReconcilePolicy::Auto)); // r7 one answer
        QCOMPARE(a.firstNotFoundAuditId, qint64(0));
        QCOMPARE(a.secondNotFoundAuditId, qint64(101));
        a = decideReconcile(inputOf(kRows[30], ReconcilePolicy::Auto)); // r7 one answer + expiring
        QVERIFY(a.awaitingConfirmation);
        // Amount and currency from the business row first.
        a = decideReconcile(inputOf(kRows[13], ReconcilePolicy::Auto)); // r4 amount mismatch
        QCOMPARE(*a.amount, QStringLiteral("10.00"));
        QCOMPARE(a.currency, QStringLiteral("EUR"));
        QCOMPARE(a.escalations[0].note, QStringLiteral("amount 10.00 (ticket:17) vs 12 (upstream)"));
    }

    void amounts()
    {
        QCOMPARE(sameAmount(QStringLiteral("10.00"), QStringLiteral("10")), true);
        QCOMPARE(sameAmount(QStringLiteral("010.5"), QStringLiteral("10.50")), true);
        QCOMPARE(sameAmount(QStringLiteral("-0.0"), QStringLiteral("0")), true);
        QCOMPARE(sameAmount(QStringLiteral("12345678901234567890"), QStringLiteral("12345678901234567891")), false);
        QCOMPARE(sameAmount(QStringLiteral("1e3"), QStringLiteral("1000")), false); // not a plain decimal: text
        QString cur;
        QCOMPARE(amountOf(QStringLiteral("{\"amount\":12345678901234567890,\"currency\":\"EUR\"}"), &cur).value_or(QString()),
                 QStringLiteral("12345678901234567890"));
        QCOMPARE(cur, QStringLiteral("EUR"));
        QCOMPARE(amountOf(QStringLiteral("{\"amount\":\"7.10\"}")).value_or(QString()), QStringLiteral("7.10"));
        QVERIFY(!amountOf(QStringLiteral("{\"amount\":null}")));
        QVERIFY(!amountOf(QStringLiteral("[1]")));
        QVERIFY(!amountOf(QStringLiteral("{broken")));
        QVERIFY(!amountOf(std::nullopt));
    }

    void retryAfter()
    {
        // Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3); what the bulk query honours.
        UpstreamEvidence e;
        QVERIFY(!retryAfterMs(e, 0));
        e.responseHeaders = {{QByteArray("Retry-After"), QByteArray("2")}};
        QCOMPARE(retryAfterMs(e, 0).value_or(-1), qint64(2000));
        e.responseHeaders = {{QByteArray("retry-after"), QByteArray(" 0 ")}};
        QCOMPARE(retryAfterMs(e, 0).value_or(-1), qint64(0));
        const qint64 now = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
        e.responseHeaders = {{QByteArray("Retry-After"), QByteArray("Tue, 01 Dec 2026 12:00:30 GMT")}};
        QCOMPARE(retryAfterMs(e, now).value_or(-1), qint64(30000));
        e.responseHeaders = {{QByteArray("Retry-After"), QByteArray("Tue, 01 Dec 2026 11:00:00 GMT")}};
        QCOMPARE(retryAfterMs(e, now).value_or(-1), qint64(0)); // a date in the past: at once
        e.responseHeaders = {{QByteArray("Retry-After"), QByteArray("soon")}};
        QCOMPARE(retryAfterMs(e, now).value_or(-1), qint64(-1));
        e.responseHeaders = {{QByteArray("Retry-After"), QByteArray("-5")}};
        QCOMPARE(retryAfterMs(e, now).value_or(-1), qint64(-1));
    }

    void policyDefaults()
    {
        ReconcileBizConfig b;
        QCOMPARE(b.policy(), ReconcilePolicy::Auto);
        QCOMPARE(b.confirmDelayS, 300);
        b.moneyMoving = true;
        QCOMPARE(b.policy(), ReconcilePolicy::Escalate);
        b.reconcile = ReconcilePolicy::Auto;
        QCOMPARE(b.policy(), ReconcilePolicy::Auto);
        b.moneyMoving = false;
        b.reconcile = ReconcilePolicy::Escalate;
        QCOMPARE(b.policy(), ReconcilePolicy::Escalate);
    }

    void configKeys_data()
    {
        QTest::addColumn<QString>("lines");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("delay");
        QTest::newRow("defaults") << QString() << QString() << QStringLiteral("auto") << 300;
        QTest::newRow("money moving") << QStringLiteral("money_moving=true\n") << QString() << QStringLiteral("escalate") << 300;
        QTest::newRow("money moving, auto") << QStringLiteral("money_moving=yes\nreconcile=AUTO\n") << QString() << QStringLiteral("auto") << 300;
        QTest::newRow("escalate, delay") << QStringLiteral("reconcile=escalate\nreconcile_confirm_delay=600\n") << QString()
                                         << QStringLiteral("escalate") << 600;
        QTest::newRow("bad policy") << QStringLiteral("reconcile=sometimes\n")
                                    << QStringLiteral("[biz.pay] reconcile: must be auto or escalate, not \"sometimes\"") << QString() << 0;
        QTest::newRow("bad delay") << QStringLiteral("reconcile_confirm_delay=0\n")
                                   << QStringLiteral("[biz.pay] reconcile_confirm_delay: must be a positive number of seconds, not \"0\"")
                                   << QString() << 0;
        QTest::newRow("bad bool") << QStringLiteral("money_moving=maybe\n")
                                  << QStringLiteral("[biz.pay] money_moving: must be true or false, not \"maybe\"") << QString() << 0;
        QTest::newRow("misspelt key") << QStringLiteral("reconcile_confirm_dely=60\n")
                                      << QStringLiteral("unknown key \"reconcile_confirm_dely\" in [biz.pay] (did you mean reconcile_confirm_delay?)")
                                      << QString() << 0;
    }
    void configKeys()
    {
        QFETCH(QString, lines);
        QFETCH(QString, error);
        QFETCH(QString, policy);
        QFETCH(int, delay);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.ini"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(("[biz.pay]\nprocessing_timeout=300\n" + lines).toUtf8());
        f.close();
        QString why;
        const auto cfg = WorkspaceConfig::fromIniFile(path, &why);
        if (!error.isEmpty()) {
            QVERIFY(!cfg);
            QVERIFY2(why.contains(error), qPrintable(why));
            return;
        }
        QVERIFY2(cfg, qPrintable(why));
        const ReconcileBizConfig rc = reconcileConfigFor(*cfg, QStringLiteral("pay"));
        QCOMPARE(reconcilePolicyName(rc.policy()), policy);
        QCOMPARE(rc.confirmDelayS, delay);
        // Another biz_type keeps the defaults.
        QCOMPARE(reconcileConfigFor(*cfg, QStringLiteral("other")).policy(), ReconcilePolicy::Auto);
    }
};

QTEST_GUILESS_MAIN(TestReconcileDecide)
#include "tst_reconcile_decide.moc"
