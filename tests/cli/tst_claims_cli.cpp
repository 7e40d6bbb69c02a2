// Claims stop others (DESIGN.md §8 "Claims stop others"), triagectl end to end on every
// backend: mark, compensate and escalations resolve refuse a key or escalation another
// operator's live claim holds (exit 3, the exact message naming the holder, nothing written
// or audited) unless --despite-claim (the claim noted in the audited reason); the holder is
// not stopped; resolving releases the escalation's claim and a resolved escalation shows no
// claim; reconcile skips keys whose open escalation is claimed; claim refuses what does not
// exist (exit 1, nothing written or audited); escalations says when --limit cut it.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "MarkTestUtil.h"
#include "ShapeExpect.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// `text` with canonical ISO times from the server's clock replaced by "<now>" (the fixture's
/// 2026-01-01 / 2099 times kept) and claim ages by "<n> s ago".
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

/// Escalation 13 (CONTRADICTION, open) of `key`, and 14 (DUPLICATE, open) of `other`.
QString seedEscalations(const TestDatabase &db, const QString &key, const QString &other)
{
    auto t = [&](const char *iso) { return timeLiteral(db, QString::fromLatin1(iso)); };
    const QString cols = QStringLiteral("INSERT INTO triage_escalation (id, idem_key, biz_type, tenant, reason, facts, amount, currency, "
                                        "source_ref, first_escalated_at, last_seen_at, run_id, sla_due_at, resolution, resolved_at, "
                                        "resolved_by, version, open_slot) VALUES ");
    const QStringList rows{
        QStringLiteral("(13, '%1', 'ticket_create', 'acme', 'CONTRADICTION', '{}', NULL, '', '', %2, %2, 4, %3, NULL, NULL, NULL, 1, 1)")
            .arg(key, t("2026-01-01T00:00:00.000000Z"), t("2099-01-01T00:00:00.000000Z")),
        QStringLiteral("(14, '%1', 'ticket_create', 'acme', 'DUPLICATE', '{}', NULL, '', '', %2, %2, 4, %3, NULL, NULL, NULL, 1, 1)")
            .arg(other, t("2026-01-01T01:00:00.000000Z"), t("2099-01-01T00:00:00.000000Z"))};
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

class TestClaimsCli : public QObject {
    Q_OBJECT
private slots:
    void claimsStopOthers_data();
    void claimsStopOthers();
    void reconcileMessages_data() { claimsStopOthers_data(); }
    void reconcileMessages();
};

void TestClaimsCli::claimsStopOthers_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestClaimsCli::claimsStopOthers()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db);
    auto as = [&](const char *who, const QStringList &args) {
        return base + QStringList{QStringLiteral("--operator"), QString::fromLatin1(who)} + args;
    };
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    const QString k1 = QStringLiteral("ticket:create:acme:cg-1");
    const QString k2 = QStringLiteral("ticket:create:acme:cg-2");
    const QString k3 = QStringLiteral("ticket:create:acme:cg-3");
    TRIAGE_OK(insertRecord(db, k1, 0, 3600));
    TRIAGE_OK(insertRecord(db, k2, 0, 3600));
    TRIAGE_OK(insertRecord(db, k3, 0, 3600));
    TRIAGE_OK(seedEscalations(db, k2, k3));
    const QStringList markFailed{QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"),
                                 QStringLiteral("upstream has no such ticket")};

    // A claim names something that exists: nothing written or audited otherwise.
    RUN_EXIT(noEsc, 1, as("carol", {QStringLiteral("claim"), QStringLiteral("--escalation"), QStringLiteral("9999")}));
    QCOMPARE(noEsc.out, QByteArray());
    QCOMPARE(noEsc.err, QByteArray("triagectl: no escalation 9999\n"));
    RUN_EXIT(noKey, 1, as("carol", {QStringLiteral("claim"), QStringLiteral("no-such-key-at-all")}));
    QCOMPARE(noKey.err, QByteArray("triagectl: no key no-such-key-at-all: no record, ticket, intent attempt or escalation carries it: "
                                   "nothing claimed\n"));
    QCOMPARE(auditRows(db), QStringList());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim")), QStringList{QStringLiteral("0")});

    // alice holds k1: bob's mark is refused, nothing written or audited.
    RUN_EXIT(take, 0, as("alice", {QStringLiteral("claim"), k1}));
    RUN_EXIT(bobMark, 3, as("bob", QStringList{QStringLiteral("mark"), k1} + markFailed));
    QCOMPARE(bobMark.out, QByteArray());
    QCOMPARE(nowed(bobMark.err), QStringLiteral("triagectl: key %1 is held by alice until <now> (claimed by alice, <n> s ago): nothing "
                                                "marked (--despite-claim acts anyway, audited)\n")
                                     .arg(k1));
    RUN_EXIT(bobComp, 3, as("bob", {QStringLiteral("compensate"), k1, QStringLiteral("--action"), QStringLiteral("cancel_ticket"),
                                    QStringLiteral("--target"), QStringLiteral("7"), QStringLiteral("--reason"),
                                    QStringLiteral("extra ticket of a duplicate")}));
    QCOMPARE(nowed(bobComp.err), QStringLiteral("triagectl: key %1 is held by alice until <now> (claimed by alice, <n> s ago): nothing "
                                                "compensated (--despite-claim acts anyway, audited)\n")
                                     .arg(k1));
    QCOMPARE(auditRows(db), QStringList{QStringLiteral("claim.take applied alice %1").arg(k1)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key = '%1'").arg(k1)),
             QStringList{QStringLiteral("0")});

    // The holder is not stopped (the mark rules still apply: no NOT_FOUND answer, refused);
    // bob with --despite-claim goes on, the claim noted in his audited reason.
    RUN_EXIT(aliceMark, 4, as("alice", QStringList{QStringLiteral("mark"), k1} + markFailed));
    RUN_EXIT(despite, 4, as("bob", QStringList{QStringLiteral("mark"), k1, QStringLiteral("--despite-claim")} + markFailed));
    const QStringList reasons = db.adminQueryColumn(
        QStringLiteral("SELECT reason FROM triage_audit WHERE action = 'mark_failed' AND operator = 'bob' ORDER BY id"));
    QCOMPARE(reasons.size(), 1);
    QCOMPARE(nowed(reasons[0].toUtf8()),
             QStringLiteral("upstream has no such ticket [despite the claim of alice on key %1 until <now>]").arg(k1));

    // carol holds escalation 13 (of k2): bob can neither resolve it nor mark its key.
    RUN_EXIT(escTake, 0, as("carol", {QStringLiteral("claim"), QStringLiteral("--escalation"), QStringLiteral("13")}));
    const QStringList beforeRefusals = auditRows(db);
    RUN_EXIT(bobResolve, 3, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("13"),
                                       QStringLiteral("--reason"), QStringLiteral("checked with the agent team")}));
    QCOMPARE(nowed(bobResolve.err), QStringLiteral("triagectl: escalation 13 of key %1 is held by carol until <now> (claimed by carol, "
                                                   "<n> s ago): nothing resolved (--despite-claim acts anyway, audited)\n")
                                        .arg(k2));
    RUN_EXIT(bobMark2, 3, as("bob", QStringList{QStringLiteral("mark"), k2} + markFailed));
    QCOMPARE(nowed(bobMark2.err), QStringLiteral("triagectl: escalation 13 of key %1 is held by carol until <now> (claimed by carol, "
                                                 "<n> s ago): nothing marked (--despite-claim acts anyway, audited)\n")
                                      .arg(k2));
    // A key claim stops resolving the key's escalations too.
    RUN_EXIT(k3Take, 0, as("alice", {QStringLiteral("claim"), k3}));
    RUN_EXIT(bobResolve14, 3, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("14"),
                                         QStringLiteral("--reason"), QStringLiteral("one ticket cancelled by hand")}));
    QCOMPARE(nowed(bobResolve14.err), QStringLiteral("triagectl: key %1 is held by alice until <now> (claimed by alice, <n> s ago): "
                                                     "nothing resolved (--despite-claim acts anyway, audited)\n")
                                          .arg(k3));
    QCOMPARE(auditRows(db), beforeRefusals + QStringList{QStringLiteral("claim.take applied alice %1").arg(k3)});

    // reconcile skips keys an operator claimed, and keys whose open escalation is claimed.
    RUN_EXIT(dry, 0, base + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("reconcile"),
                                        QStringLiteral("--dry-run")});
    const QJsonObject summary = QJsonDocument::fromJson(dry.out).object();
    QCOMPARE(summary.value(QStringLiteral("examined")).toInt(), 0);
    QCOMPARE(summary.value(QStringLiteral("skipped_claimed")).toInt(), 3);

    // Bob resolves 13 despite carol's claim: noted in the resolution, her claim released with it.
    RUN_EXIT(resolved, 0, as("bob", {QStringLiteral("escalations"), QStringLiteral("resolve"), QStringLiteral("13"),
                                     QStringLiteral("--reason"), QStringLiteral("checked with the agent team"),
                                     QStringLiteral("--despite-claim")}));
    QCOMPARE(resolved.out, QByteArray("escalation 13 (CONTRADICTION) of ticket:create:acme:cg-2 resolved\n"));
    RUN_EXIT(all, 0, base + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("escalations"),
                                        QStringLiteral("--all")});
    const QJsonArray rows = QJsonDocument::fromJson(all.out).array();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].toObject().value(QStringLiteral("state")).toString(), QStringLiteral("resolved"));
    QCOMPARE(rows[0].toObject().value(QStringLiteral("claimed_by")), QJsonValue(QJsonValue::Null));
    QCOMPARE(nowed(rows[0].toObject().value(QStringLiteral("resolution")).toString().toUtf8()),
             QStringLiteral("checked with the agent team [despite the claim of carol on escalation 13 until <now>]"));
    QCOMPARE(rows[1].toObject().value(QStringLiteral("claimed_by")).toString(), QStringLiteral("alice"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_claim WHERE scope = 'escalation'")),
             QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT detail FROM triage_audit WHERE action = 'escalation.resolve'")),
             QStringList{QStringLiteral("the claim of carol on escalation 13 was released with it")});

    // escalations says when --limit cut the list, as list does.
    RUN_EXIT(cut, 0, base + QStringList{QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("escalations"), QStringLiteral("--all")});
    QVERIFY2(cut.out.endsWith("\n1 escalation (of 2); --limit 0 lists all\n"), cut.out.constData());
    RUN_EXIT(whole, 0, base + QStringList{QStringLiteral("escalations"), QStringLiteral("--all")});
    QVERIFY2(whole.out.endsWith("\n2 escalations\n"), whole.out.constData());
}

/// reconcile's summary line counts what its table shows and a dry run predicts the creations;
/// --biz-type that matches nothing warns; --format csv is refused; a renewal that moves the
/// expiry earlier says so; a console-schema-3 database is a configuration problem (exit 1)
/// for reconcile as for escalations, claims and claim, and mark still works there.
void TestClaimsCli::reconcileMessages()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db);
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    const QString k1 = QStringLiteral("ticket:create:acme:rm-1");
    TRIAGE_OK(insertRecord(db, k1, 0, 3600));
    static const QRegularExpression runId(QStringLiteral(R"(run \d+ finished)"));
    auto lastLine = [](const QByteArray &out) {
        const QList<QByteArray> lines = out.trimmed().split('\n');
        return QString::fromUtf8(lines.last()).replace(runId, QStringLiteral("run N finished"));
    };

    RUN_EXIT(dry, 0, base + QStringList{QStringLiteral("reconcile"), QStringLiteral("--dry-run")});
    QCOMPARE(lastLine(dry.out), QStringLiteral("dry run N finished: 1 examined, 0 SUCCESS, 0 FAILED, 1 key would escalate (1 escalation "
                                               "would be created, 0 updated), resolutions not predicted, 0 conflicts, 0 skipped (claimed), 0 waiting "
                                               "for a second NOT_FOUND, 0 errors; upstream: 0 queried, 0 unusable; reasons: 1 NO_QUERY_API"));
    RUN_EXIT(real, 0, base + QStringList{QStringLiteral("reconcile")});
    QCOMPARE(lastLine(real.out), QStringLiteral("run N finished: 1 examined, 0 SUCCESS, 0 FAILED, 1 key escalated (1 escalation new, "
                                                "0 updated), 0 resolved, 0 conflicts, 0 skipped (claimed), 0 waiting for a second "
                                                "NOT_FOUND, 0 errors; upstream: 0 queried, 0 unusable; reasons: 1 NO_QUERY_API"));
    RUN_EXIT(dry2, 0, base + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("reconcile"),
                                         QStringLiteral("--dry-run")});
    const QJsonObject again = QJsonDocument::fromJson(dry2.out).object();
    QCOMPARE(again.value(QStringLiteral("escalations_created")).toInt(), 0);
    QCOMPARE(again.value(QStringLiteral("escalations_updated")).toInt(), 1);

    RUN_EXIT(nope, 0, base + QStringList{QStringLiteral("reconcile"), QStringLiteral("--dry-run"), QStringLiteral("--biz-type"),
                                         QStringLiteral("nope")});
    QCOMPARE(nope.err, QByteArray("triagectl: warning: reconcile --biz-type \"nope\": no stale PROCESSING record has this biz_type "
                                  "(the records' biz_types: ticket_create)\n"));
    RUN_EXIT(csv, 1, base + QStringList{QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("reconcile")});
    QCOMPARE(csv.err, QByteArray("triagectl: reconcile prints table or json (--format csv is not supported)\n"
                                 "triagectl: run \"triagectl --help\" for usage\n"));

    RUN_EXIT(take, 0, base + QStringList{QStringLiteral("--operator"), QStringLiteral("alice"), QStringLiteral("claim"), k1});
    RUN_EXIT(shorter, 0, base + QStringList{QStringLiteral("--operator"), QStringLiteral("alice"), QStringLiteral("claim"), k1,
                                            QStringLiteral("--ttl"), QStringLiteral("600")});
    QCOMPARE(nowed(shorter.out), QStringLiteral("key %1: claim of alice renewed; now expires at <now> (earlier than before: <now>)\n").arg(k1));
    RUN_EXIT(longer, 0, base + QStringList{QStringLiteral("--operator"), QStringLiteral("alice"), QStringLiteral("claim"), k1});
    QCOMPARE(nowed(longer.out), QStringLiteral("key %1: claim of alice renewed until <now>\n").arg(k1));

    // Console schema version 3: no escalation tables.
    for (const char *t : {"triage_escalation", "triage_claim", "triage_reconcile_run"})
        TRIAGE_OK(db.adminExec(QStringLiteral("DROP TABLE %1").arg(QLatin1String(t))));
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE triage_meta SET meta_value = '3' WHERE meta_key = 'schema_version'")));
    const QByteArray v3("triagectl: the idempotency database has no escalation tables (console schema version 3; escalations and "
                        "claims need version 4): run `triagectl init-schema`\n");
    for (const QStringList &args : {QStringList{QStringLiteral("reconcile")}, QStringList{QStringLiteral("reconcile"), QStringLiteral("--dry-run")},
                                    QStringList{QStringLiteral("escalations")}, QStringList{QStringLiteral("claims")},
                                    QStringList{QStringLiteral("claim"), k1}}) {
        RUN_EXIT(r, 1, base + args);
        QCOMPARE(r.err, v3);
    }
    // mark is not held back there (no claims): its own rules refuse (no NOT_FOUND answer).
    RUN_EXIT(mark, 4, base + QStringList{QStringLiteral("mark"), k1, QStringLiteral("--to"), QStringLiteral("failed"),
                                         QStringLiteral("--reason"), QStringLiteral("upstream has no such ticket")});
}

QTEST_GUILESS_MAIN(TestClaimsCli)
#include "tst_claims_cli.moc"
