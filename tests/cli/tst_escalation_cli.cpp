// triagectl escalations, claim, release and claims (DESIGN.md §5, §8) on every backend: the
// exact output of each, "claimed by …" on the escalations, takeover, release by a non-holder,
// resolve with its conflict and refusals, bad input and read-only mode with their exact
// messages and exit codes, and the audit rows they leave.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// `text` with every canonical ISO time from the server's clock (this year or later, not the
/// fixture's 2026-01-01 / 2099 times) replaced by "<now>", and claim ages by "<n> s ago".
QString nowed(const QByteArray &text)
{
    static const QRegularExpression serverTime(QStringLiteral(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)"));
    static const QRegularExpression age(QStringLiteral(R"(\b\d+ s ago)"));
    QString out = QString::fromUtf8(text);
    QRegularExpressionMatchIterator it = serverTime.globalMatch(out);
    QStringList seen;
    while (it.hasNext()) {
        const QString t = it.next().captured(0);
        if (!t.startsWith(QLatin1String("2026-01-01T")) && !t.startsWith(QLatin1String("2099-")))
            seen << t;
    }
    for (const QString &t : seen)
        out.replace(t, QStringLiteral("<now>"));
    out.replace(age, QStringLiteral("<n> s ago"));
    return out;
}

/// Inserts the fixture's escalations through the admin connection: 1 UPSTREAM_UNUSABLE
/// (past its SLA), 2 DUPLICATE (open), 3 EXTERNAL (resolved by bob).
QString seedEscalations(const TestDatabase &db)
{
    auto t = [&](const char *iso) { return timeLiteral(db, QString::fromLatin1(iso)); };
    const QString cols = QStringLiteral("INSERT INTO triage_escalation (id, idem_key, biz_type, tenant, reason, facts, amount, currency, "
                                        "source_ref, first_escalated_at, last_seen_at, run_id, sla_due_at, resolution, resolved_at, "
                                        "resolved_by, version, open_slot) VALUES ");
    const QStringList rows{
        QStringLiteral("(1, 'ticket:create:acme:a1', 'ticket_create', 'acme', 'UPSTREAM_UNUSABLE', '{\"status\":503}', NULL, '', '', "
                       "%1, %1, 4, %2, NULL, NULL, NULL, 1, 1)")
            .arg(t("2026-01-01T00:00:00.000000Z"), t("2026-01-02T00:00:00.000000Z")),
        QStringLiteral("(2, 'refund:create:beta:b2', 'refund', 'beta', 'DUPLICATE', '{\"tickets\":2}', '12.50', 'EUR', '', "
                       "%1, %1, 4, %2, NULL, NULL, NULL, 1, 1)")
            .arg(t("2026-01-01T01:00:00.000000Z"), t("2099-01-01T00:00:00.000000Z")),
        QStringLiteral("(3, 'ticket:create:acme:c3', 'ticket_create', 'acme', 'EXTERNAL', '{}', NULL, '', 'intent:9', "
                       "%1, %1, 4, %2, 'checked with the agent team', %3, 'bob', 2, NULL)")
            .arg(t("2026-01-01T02:00:00.000000Z"), t("2026-01-02T02:00:00.000000Z"), t("2026-01-01T03:00:00.000000Z"))};
    for (const QString &r : rows)
        if (const QString error = db.adminExec(cols + r); !error.isEmpty())
            return error;
    return {};
}

QStringList auditRows(const TestDatabase &db)
{
    const QString row = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator, ' ', idem_key)")
        : QStringLiteral("action || ' ' || outcome || ' ' || operator || ' ' || idem_key");
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(row));
}

} // namespace

class TestEscalationCli : public QObject {
    Q_OBJECT
private slots:
    void escalationsAndClaims_data();
    void escalationsAndClaims();
};

void TestEscalationCli::escalationsAndClaims_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestEscalationCli::escalationsAndClaims()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db);
    auto as = [&](const char *who, const QStringList &args) {
        return base + QStringList{QStringLiteral("--operator"), QString::fromLatin1(who)} + args;
    };
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    TRIAGE_OK(seedEscalations(db));
    const QString a1 = QStringLiteral("ticket:create:acme:a1");
    const QString b2 = QStringLiteral("refund:create:beta:b2");

    // The open escalations, oldest first.
    RUN_EXIT(open, 0, base + QStringList{QStringLiteral("escalations")});
    QCOMPARE(QString::fromUtf8(open.out),
             QStringLiteral("ID  REASON             IDEM_KEY               BIZ_TYPE       TENANT  STATE    FIRST_ESCALATED (UTC)        "
                            "SLA_DUE (UTC)                CLAIMED  RESOLUTION\n"
                            " 1  UPSTREAM_UNUSABLE  ticket:create:acme:a1  ticket_create  acme    overdue  2026-01-01T00:00:00.000000Z  "
                            "2026-01-02T00:00:00.000000Z\n"
                            " 2  DUPLICATE          refund:create:beta:b2  refund         beta    open     2026-01-01T01:00:00.000000Z  "
                            "2099-01-01T00:00:00.000000Z\n"
                            "2 escalations\n"));
    QCOMPARE(open.err, QByteArray());

    // Filters and bad input.
    RUN_EXIT(dup, 0, base + QStringList{QStringLiteral("escalations"), QStringLiteral("--reason"), QStringLiteral("duplicate"),
                                        QStringLiteral("--format"), QStringLiteral("csv")});
    QCOMPARE(QString::fromUtf8(dup.out),
             QStringLiteral("id,reason,idem_key,biz_type,tenant,state,first_escalated_at,sla_due_at,claimed,resolution\r\n"
                            "2,DUPLICATE,refund:create:beta:b2,refund,beta,open,2026-01-01T01:00:00.000000Z,2099-01-01T00:00:00.000000Z,,\r\n"));
    RUN_EXIT(biz, 0, base + QStringList{QStringLiteral("escalations"), QStringLiteral("--biz-type"), QStringLiteral("refund"),
                                        QStringLiteral("--all")});
    QVERIFY2(biz.out.endsWith("\n1 escalation\n"), biz.out.constData());
    RUN_EXIT(badReason, 1, base + QStringList{QStringLiteral("escalations"), QStringLiteral("--reason"), QStringLiteral("nope")});
    QCOMPARE(badReason.err, QByteArray("triagectl: escalations: --reason \"nope\": one of CONTRADICTION, AGENT_SAW_SUCCESS, DUPLICATE, "
                                       "KEY_REUSE, UPSTREAM_UNUSABLE, NO_QUERY_API, AMOUNT_MISMATCH, EXPIRING, STUCK_COMPENSATION, "
                                       "POLICY, EXTERNAL\ntriagectl: run \"triagectl --help\" for usage\n"));

    // Claims: alice takes b2's key, bob is told who holds it, then takes it over.
    RUN_EXIT(take, 0, as("alice", {QStringLiteral("claim"), b2, QStringLiteral("--ttl"), QStringLiteral("600")}));
    QCOMPARE(nowed(take.out), QStringLiteral("key refund:create:beta:b2 claimed by alice until <now>\n"));
    RUN_EXIT(held, 3, as("bob", {QStringLiteral("claim"), b2}));
    QCOMPARE(held.out, QByteArray());
    QCOMPARE(nowed(held.err), QStringLiteral("triagectl: key refund:create:beta:b2 is held by alice until <now> (claimed by alice, "
                                             "<n> s ago): take it over with a reason\n"));
    RUN_EXIT(noReason, 1, as("bob", {QStringLiteral("claim"), b2, QStringLiteral("--takeover")}));
    QCOMPARE(noReason.err, QByteArray("triagectl: claim --takeover needs --reason TEXT (>= 10 characters)\n"
                                      "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(shortReason, 4, as("bob", {QStringLiteral("claim"), b2, QStringLiteral("--takeover"), QStringLiteral("--reason"),
                                        QStringLiteral("urgent")}));
    QCOMPARE(shortReason.err, QByteArray("triagectl: a takeover needs a reason of at least 10 characters (got 6)\n"));
    RUN_EXIT(badTtl, 1, as("bob", {QStringLiteral("claim"), b2, QStringLiteral("--ttl"), QStringLiteral("0")}));
    QCOMPARE(badTtl.err, QByteArray("triagectl: claim: --ttl \"0\": seconds from 1 to 86400\ntriagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(over, 0, as("bob", {QStringLiteral("claim"), b2, QStringLiteral("--takeover"), QStringLiteral("--reason"),
                                 QStringLiteral("alice is on leave today"), QStringLiteral("--format"), QStringLiteral("json")}));
    const QJsonObject overJson = QJsonDocument::fromJson(over.out).object();
    QCOMPARE(overJson.value(QStringLiteral("outcome")).toString(), QStringLiteral("taken-over"));
    QCOMPARE(overJson.value(QStringLiteral("claim")).toObject().value(QStringLiteral("holder")).toString(), QStringLiteral("bob"));
    QCOMPARE(overJson.value(QStringLiteral("claim")).toObject().value(QStringLiteral("reason")).toString(),
             QStringLiteral("alice is on leave today"));
    QCOMPARE(overJson.value(QStringLiteral("claim")).toObject().value(QStringLiteral("version")).toInt(), 2);
    RUN_EXIT(escClaim, 0, as("carol", {QStringLiteral("claim"), QStringLiteral("--escalation"), QStringLiteral("1")}));
    QCOMPARE(nowed(escClaim.out), QStringLiteral("escalation 1 claimed by carol until <now>\n"));
    RUN_EXIT(badEsc, 1, as("carol", {QStringLiteral("claim"), QStringLiteral("--escalation"), QStringLiteral("x")}));
    QCOMPARE(badEsc.err, QByteArray("triagectl: claim: --escalation \"x\" is not an escalation ID\n"
                                    "triagectl: run \"triagectl --help\" for usage\n"));

    // The escalations say who holds them.
    RUN_EXIT(claimed, 0, base + QStringList{QStringLiteral("escalations"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray rows = QJsonDocument::fromJson(claimed.out).array();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].toObject().value(QStringLiteral("claimed_by")).toString(), QStringLiteral("carol"));
    QCOMPARE(nowed(rows[0].toObject().value(QStringLiteral("claimed")).toString().toUtf8()), QStringLiteral("claimed by carol, <n> s ago"));
    QCOMPARE(rows[0].toObject().value(QStringLiteral("state")).toString(), QStringLiteral("overdue"));
    QCOMPARE(rows[1].toObject().value(QStringLiteral("claimed_by")).toString(), QStringLiteral("bob"));
    QCOMPARE(rows[1].toObject().value(QStringLiteral("amount")).toString(), QStringLiteral("12.50"));
    QCOMPARE(rows[1].toObject().value(QStringLiteral("facts")).toString(), QStringLiteral("{\"tickets\":2}"));
    QCOMPARE(rows[1].toObject().value(QStringLiteral("resolution")), QJsonValue(QJsonValue::Null));

    RUN_EXIT(claims, 0, base + QStringList{QStringLiteral("claims")});
    // Times and ages vary (the server's clock): each line matched whole, its widths included.
    const QStringList lines = QString::fromUtf8(claims.out).split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 5);
    const QString time = QStringLiteral(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");
    const QStringList patterns{
        QStringLiteral("SCOPE       SUBJECT                HOLDER  CLAIMED_AT \\(UTC\\)             EXPIRES_AT \\(UTC\\)             "
                       "STATE   CLAIMED +REASON"),
        QStringLiteral("escalation  1                      carol   %1  %1  active  claimed by carol, \\d+ s ago").arg(time),
        QStringLiteral("key         refund:create:beta:b2  bob     %1  %1  active  claimed by bob, \\d+ s ago +alice is on leave today")
            .arg(time),
        QStringLiteral("2 claims"), QString()};
    for (int i = 0; i < lines.size(); ++i)
        QVERIFY2(QRegularExpression(QRegularExpression::anchoredPattern(patterns[i])).match(lines[i]).hasMatch(),
                 qPrintable(lines[i] + QStringLiteral(" !~ ") + patterns[i]));

    // Release: only by its holder.
    RUN_EXIT(notHolder, 3, as("alice", {QStringLiteral("release"), b2}));
    QCOMPARE(notHolder.err, QByteArray("triagectl: key refund:create:beta:b2 is held by bob, not by alice: nothing released\n"));
    RUN_EXIT(released, 0, as("bob", {QStringLiteral("release"), b2}));
    QCOMPARE(released.out, QByteArray("key refund:create:beta:b2 released by bob\n"));
    RUN_EXIT(again, 3, as("bob", {QStringLiteral("release"), b2}));
    QCOMPARE(again.err, QByteArray("triagectl: key refund:create:beta:b2 is not claimed\n"));

    // Resolve: a short reason, then resolved, then a conflict; bad input.
    RUN_EXIT(shortResolve, 4, as("alice", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("2"),
                                           QStringLiteral("--reason"), QStringLiteral("done")}));
    QCOMPARE(shortResolve.err, QByteArray("triagectl: resolving an escalation needs a reason of at least 10 characters (got 4)\n"));
    RUN_EXIT(resolved, 0, as("alice", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("2"),
                                       QStringLiteral("--reason"), QStringLiteral("one ticket cancelled by hand")}));
    QCOMPARE(resolved.out, QByteArray("escalation 2 (DUPLICATE) of refund:create:beta:b2 resolved\n"));
    RUN_EXIT(twice, 3, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("2"), QStringLiteral("--reason"),
                                  QStringLiteral("another look at it")}));
    QCOMPARE(nowed(twice.err), QStringLiteral("triagectl: escalation 2 (DUPLICATE) is already resolved by alice at <now>: one ticket "
                                              "cancelled by hand\n"));
    RUN_EXIT(missing, 1, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("99"), QStringLiteral("--reason"),
                                    QStringLiteral("another look at it")}));
    QCOMPARE(missing.err, QByteArray("triagectl: no escalation 99\n"));
    RUN_EXIT(noId, 1, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve")}));
    QCOMPARE(noId.err, QByteArray("triagectl: escalations resolve: missing escalation ID\ntriagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(noText, 1, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("1")}));
    QCOMPARE(noText.err, QByteArray("triagectl: escalations resolve needs --reason TEXT (>= 10 characters)\n"
                                    "triagectl: run \"triagectl --help\" for usage\n"));

    // Read-only mode refuses every write without writing.
    const QStringList before = auditRows(db);
    RUN_EXIT(roClaim, 4, as("dave", {QStringLiteral("--read-only"), QStringLiteral("claim"), a1}));
    QCOMPARE(roClaim.err, QByteArray("triagectl: claim writes to the databases: refused in read-only mode (--read-only or read_only=true)\n"));
    RUN_EXIT(roRelease, 4, as("carol", {QStringLiteral("--read-only"), QStringLiteral("release"), QStringLiteral("--escalation"),
                                        QStringLiteral("1")}));
    RUN_EXIT(roResolve, 4, as("dave", {QStringLiteral("--read-only"), QStringLiteral("escalations"), QStringLiteral("resolve"),
                                       QStringLiteral("1"), QStringLiteral("--reason"), QStringLiteral("upstream answered again")}));
    QCOMPARE(roResolve.err, QByteArray("triagectl: read-only mode: escalations cannot be resolved (started with --read-only or "
                                       "read_only=true)\n"));
    RUN_EXIT(roList, 0, as("dave", {QStringLiteral("--read-only"), QStringLiteral("escalations"), QStringLiteral("--all")}));
    QVERIFY2(roList.out.endsWith("\n3 escalations\n"), roList.out.constData());
    QCOMPARE(auditRows(db), before);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim")), QStringList{QStringLiteral("1")});

    QCOMPARE(before, (QStringList{QStringLiteral("claim.take applied alice %1").arg(b2),
                                  QStringLiteral("claim.take refused bob %1").arg(b2), // held by alice
                                  QStringLiteral("claim.takeover refused bob %1").arg(b2),
                                  QStringLiteral("claim.takeover applied bob %1").arg(b2),
                                  QStringLiteral("claim.take applied carol escalation:1"),
                                  QStringLiteral("claim.release applied bob %1").arg(b2),
                                  QStringLiteral("escalation.resolve refused alice %1").arg(b2),
                                  QStringLiteral("escalation.resolve applied alice %1").arg(b2),
                                  QStringLiteral("escalation.resolve conflict bob %1").arg(b2)}));
}

QTEST_GUILESS_MAIN(TestEscalationCli)
#include "tst_escalation_cli.moc"
