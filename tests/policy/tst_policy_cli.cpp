// The safety policy in the database (DESIGN.md §8 "Safety policy"), triagectl end to end on
// every backend: policy show / set round trip with exact output, exact refusals (unknown name,
// bad value, short reason, compare-and-set), the database's value made stricter (never weaker)
// by the local INI, the global freeze refusing a mark, a claim, a reconcile run and a review
// sign-off with one exact message while reads keep working and nothing is written, unfreeze
// restoring writes, and the upgrade from console schema version 5.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "MarkTestUtil.h"
#include "ShapeExpect.h"

#include "ConsoleSchema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QStringList auditRows(const TestDatabase &db)
{
    const QString row = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator, ' ', idem_key)")
        : QStringLiteral("action || ' ' || outcome || ' ' || operator || ' ' || idem_key");
    return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(row));
}

QString countOf(const TestDatabase &db, const QString &table)
{
    return db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM %1").arg(table)).value(0);
}

const QString kFrozen = QStringLiteral("Frozen by alice at <t> UTC: incident 42: nobody touches anything — every write is refused");

} // namespace

class TestPolicyCli : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void iniOnlyStricter_data() { roundTrip_data(); }
    void iniOnlyStricter();
    void freezeRefusesWrites_data() { roundTrip_data(); }
    void freezeRefusesWrites();
    void upgradeFrom5_data() { roundTrip_data(); }
    void upgradeFrom5();
};

void TestPolicyCli::roundTrip_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestPolicyCli::roundTrip()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db) + QStringList{QStringLiteral("--operator"), QStringLiteral("alice")};
    auto policy = [&](const QStringList &args) { return base + QStringList{QStringLiteral("policy")} + args; };
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});

    // A fresh schema holds the freeze row only, off.
    RUN_EXIT(fresh, 0, policy({QStringLiteral("show")}));
    QCOMPARE(timesAsT(fresh.out),
             QStringLiteral("NAME    VALUE  SET_BY       SET_AT (UTC)         SCHEMA  VERSION  REASON\n"
                            "frozen  false  init-schema  <t>  7       1        created by init-schema: not frozen\n"
                            "1 setting\n"));

    RUN_EXIT(set, 0, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.money_moving"), QStringLiteral("TRUE"),
                             QStringLiteral("--reason"), QStringLiteral("card payments move money")}));
    QCOMPARE(set.out, QByteArray("policy biz.payment_capture.money_moving = true (version 1; was unset)\n"));
    RUN_EXIT(sla, 0, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.review_sla_hours"), QStringLiteral(" 4"),
                             QStringLiteral("--reason"), QStringLiteral("payments within four hours"), QStringLiteral("--expect-version"),
                             QStringLiteral("0")}));
    QCOMPARE(sla.out, QByteArray("policy biz.payment_capture.review_sla_hours = 4 (version 1; was unset)\n"));

    // Exact refusals: nothing written.
    const QStringList before = auditRows(db);
    RUN_EXIT(unknown, 1, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.money_movin"), QStringLiteral("true"),
                                 QStringLiteral("--reason"), QStringLiteral("card payments move money")}));
    QCOMPARE(unknown.err, QByteArray("triagectl: unknown policy setting \"biz.payment_capture.money_movin\": use "
                                     "biz.<biz_type>.<setting> with setting failed_evidence, failed_evidence_max_age, money_moving, "
                                     "reconcile, reconcile_confirm_delay, review_sla_hours, four_eyes or four_eyes_amount_over, or four_eyes_db_users or four_eyes_policy\n"
                                     "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(bad, 1, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.reconcile"), QStringLiteral("maybe"),
                             QStringLiteral("--reason"), QStringLiteral("card payments move money")}));
    QCOMPARE(bad.err, QByteArray("triagectl: bad value \"maybe\" for reconcile: must be auto or escalate\n"
                                 "triagectl: run \"triagectl --help\" for usage\n"));
    RUN_EXIT(badAge, 1, policy({QStringLiteral("set"), QStringLiteral("biz.x.failed_evidence_max_age"), QStringLiteral("0"),
                                QStringLiteral("--reason"), QStringLiteral("card payments move money")}));
    QCOMPARE(badAge.err.split('\n').first(),
             QByteArray("triagectl: bad value \"0\" for failed_evidence_max_age: must be a whole number of seconds from 1 to 2147483647"));
    RUN_EXIT(frozenBySet, 1, policy({QStringLiteral("set"), QStringLiteral("frozen"), QStringLiteral("true"), QStringLiteral("--reason"),
                                     QStringLiteral("card payments move money")}));
    QCOMPARE(frozenBySet.err.split('\n').first(),
             QByteArray("triagectl: \"frozen\" is changed by triagectl policy freeze / unfreeze, not policy set"));
    RUN_EXIT(shortReason, 4, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.reconcile"), QStringLiteral("auto"),
                                     QStringLiteral("--reason"), QStringLiteral(" why ")}));
    QCOMPARE(shortReason.err, QByteArray("triagectl: a policy change needs a reason of at least 10 characters (got 3)\n"));
    RUN_EXIT(moved, 3, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.money_moving"), QStringLiteral("false"),
                               QStringLiteral("--reason"), QStringLiteral("refunds only from now on"), QStringLiteral("--expect-version"),
                               QStringLiteral("0")}));
    QCOMPARE(moved.err, QByteArray("triagectl: policy biz.payment_capture.money_moving is at version 1, not 0: read it again with "
                                   "triagectl policy show\n"));
    QCOMPARE(auditRows(db), before);

    // Compare-and-set with the version read: version 2, audited with both states.
    RUN_EXIT(cas, 0, policy({QStringLiteral("set"), QStringLiteral("biz.payment_capture.money_moving"), QStringLiteral("false"),
                             QStringLiteral("--reason"), QStringLiteral("refunds only from now on"), QStringLiteral("--expect-version"),
                             QStringLiteral("1")}));
    QCOMPARE(cas.out, QByteArray("policy biz.payment_capture.money_moving = false (version 2; was true)\n"));
    QCOMPARE(auditRows(db), (QStringList{QStringLiteral("policy.set applied alice policy:biz.payment_capture.money_moving"),
                                         QStringLiteral("policy.set applied alice policy:biz.payment_capture.review_sla_hours"),
                                         QStringLiteral("policy.set applied alice policy:biz.payment_capture.money_moving")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT from_state FROM triage_audit ORDER BY id DESC LIMIT 1")),
             QStringList{QStringLiteral("{\"value\":\"true\",\"version\":1}")});

    RUN_EXIT(json, 0, base + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("policy"), QStringLiteral("show")});
    const QJsonArray rows = QJsonDocument::fromJson(json.out).array();
    QCOMPARE(rows.size(), 3);
    const QJsonObject money = rows[0].toObject();
    QCOMPARE(money.value(QStringLiteral("name")).toString(), QStringLiteral("biz.payment_capture.money_moving"));
    QCOMPARE(money.value(QStringLiteral("value")).toString(), QStringLiteral("false"));
    QCOMPARE(money.value(QStringLiteral("set_by")).toString(), QStringLiteral("alice"));
    QCOMPARE(money.value(QStringLiteral("reason")).toString(), QStringLiteral("refunds only from now on"));
    QCOMPARE(money.value(QStringLiteral("schema_version")).toInt(), kConsoleSchemaVersion);
    QCOMPARE(money.value(QStringLiteral("version")).toInt(), 2);
    QCOMPARE(rows[1].toObject().value(QStringLiteral("value")).toString(), QStringLiteral("4"));
    RUN_EXIT(csv, 0, base + QStringList{QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("policy"), QStringLiteral("show")});
    QCOMPARE(csv.out.split('\n').first(), QByteArray("name,value,set_by,set_at,schema_version,version,reason,source\r")); // RFC 4180 line ends
    QVERIFY2(csv.out.split('\n').value(1).endsWith(",database\r"), csv.out.constData());
    QCOMPARE(money.value(QStringLiteral("source")).toString(), QStringLiteral("database"));
    QCOMPARE(csv.out.count('\n'), 4);
}

void TestPolicyCli::iniOnlyStricter()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QTemporaryDir dir;
    auto ini = [&](const char *name, const QByteArray &text) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    };
    const QString strict = ini("strict.ini", "[biz.ticket_create]\nfailed_evidence = upstream\n");
    const QString lax = ini("lax.ini", "[biz.ticket_create]\nfailed_evidence = ticket_absent\n");
    const QStringList who{QStringLiteral("--operator"), QStringLiteral("alice")};
    auto mark = [&](const QString &config, const QString &key) {
        return (config.isEmpty() ? ctlDbArgs(db) : QStringList{QStringLiteral("--config"), config} + ctlDbArgs(db)) + who
            + QStringList{QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"),
                          QStringLiteral("nothing was created upstream")};
    };
    RUN_EXIT(schema, 0, ctlDbArgs(db) + QStringList{QStringLiteral("init-schema")});
    for (const char *k : {"ticket:create:acme:s1", "ticket:create:acme:s2", "ticket:create:acme:s3"})
        TRIAGE_OK(insertRecord(db, QString::fromLatin1(k), 0, 3600));

    // policy show lists the local INI's settings under the database's rows (the table
    // format), so a stricter local setting is never invisible.
    const QString fourEyes = ini("four-eyes.ini", "[biz.ticket_create]\nfailed_evidence = upstream\nfour_eyes = mark_success, mark_failed\n");
    RUN_EXIT(localShow, 0, QStringList{QStringLiteral("--config"), fourEyes} + ctlDbArgs(db) + QStringList{QStringLiteral("policy"), QStringLiteral("show")});
    QVERIFY2(localShow.out.endsWith(QStringLiteral("\nLocal settings in %1 (this operator's console and CLI only; where both are set, "
                                                   "the stricter of the two applies: the local file can tighten a rule, never loosen it):\n"
                                                   "NAME                               LOCAL                     DATABASE\n"
                                                   "biz.ticket_create.failed_evidence  upstream                  (not set)\n"
                                                   "biz.ticket_create.four_eyes        mark_success,mark_failed  (not set)\n")
                                        .arg(fourEyes)
                                        .toUtf8()),
             localShow.out.constData());
    // json and csv list them too, after the database's rows, by source.
    RUN_EXIT(localJson, 0, QStringList{QStringLiteral("--config"), fourEyes} + ctlDbArgs(db)
                               + QStringList{QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("policy"), QStringLiteral("show")});
    QJsonArray localRows;
    for (const QJsonValue &v : QJsonDocument::fromJson(localJson.out).array())
        if (v.toObject().value(QStringLiteral("source")).toString() == QLatin1String("local"))
            localRows.append(v);
    QCOMPARE(localRows.size(), 2);
    QCOMPARE(localRows[1].toObject(), (QJsonObject{{QStringLiteral("name"), QStringLiteral("biz.ticket_create.four_eyes")},
                                                   {QStringLiteral("value"), QStringLiteral("mark_success,mark_failed")},
                                                   {QStringLiteral("source"), QStringLiteral("local")},
                                                   {QStringLiteral("file"), fourEyes},
                                                   {QStringLiteral("database_value"), QJsonValue(QJsonValue::Null)}}));
    RUN_EXIT(localCsv, 0, QStringList{QStringLiteral("--config"), fourEyes} + ctlDbArgs(db)
                              + QStringList{QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("policy"), QStringLiteral("show")});
    QVERIFY2(localCsv.out.contains(QStringLiteral("\nbiz.ticket_create.four_eyes,\"mark_success,mark_failed\",,,,,local setting in %1 (the stricter "
                                                  "of it and the database's applies),local\r\n").arg(fourEyes).toUtf8()),
             localCsv.out.constData());
    RUN_EXIT(noLocal, 0, ctlDbArgs(db) + QStringList{QStringLiteral("policy"), QStringLiteral("show")});
    QVERIFY2(!noLocal.out.contains("Local settings"), noLocal.out.constData());

    // The database says ticket_absent: the mark is allowed, unless the local INI says the
    // stricter upstream for this operator.
    RUN_EXIT(set, 0, ctlDbArgs(db) + who + QStringList{QStringLiteral("policy"), QStringLiteral("set"),
                                                      QStringLiteral("biz.ticket_create.failed_evidence"), QStringLiteral("ticket_absent"),
                                                      QStringLiteral("--reason"), QStringLiteral("tickets always carry the key")});
    // Both set: the local section shows the database's value beside the local one.
    RUN_EXIT(bothShow, 0, QStringList{QStringLiteral("--config"), fourEyes} + ctlDbArgs(db) + QStringList{QStringLiteral("policy"), QStringLiteral("show")});
    QVERIFY2(bothShow.out.contains("\nbiz.ticket_create.failed_evidence  upstream                  ticket_absent\n"), bothShow.out.constData());
    RUN_EXIT(strictMark, 4, mark(strict, QStringLiteral("ticket:create:acme:s1")));
    QVERIFY2(strictMark.out.contains("no proof of absence: no upstream answer is recorded"), strictMark.out.constData());
    RUN_EXIT(dbMark, 0, mark(QString(), QStringLiteral("ticket:create:acme:s1")));
    QVERIFY2(dbMark.out.contains("allowed: failed_evidence = ticket_absent: stale and no ticket carries the key"), dbMark.out.constData());

    // The database says upstream: an INI saying ticket_absent cannot make it weaker.
    RUN_EXIT(back, 0, ctlDbArgs(db) + who + QStringList{QStringLiteral("policy"), QStringLiteral("set"),
                                                       QStringLiteral("biz.ticket_create.failed_evidence"), QStringLiteral("upstream"),
                                                       QStringLiteral("--reason"), QStringLiteral("tickets are created late now")});
    RUN_EXIT(laxMark, 4, mark(lax, QStringLiteral("ticket:create:acme:s2")));
    QVERIFY2(laxMark.out.contains("no proof of absence: no upstream answer is recorded"), laxMark.out.constData());
    // Without any policy row the INI alone decides, as before.
    TRIAGE_ADMIN(db, QStringLiteral("DELETE FROM triage_policy WHERE name = 'biz.ticket_create.failed_evidence'"));
    RUN_EXIT(iniMark, 0, mark(lax, QStringLiteral("ticket:create:acme:s3")));
    QCOMPARE(storedKeyStatuses(db), (QStringList{QStringLiteral("ticket:create:acme:s1:2"), QStringLiteral("ticket:create:acme:s2:0"),
                                                 QStringLiteral("ticket:create:acme:s3:2")}));
}

void TestPolicyCli::freezeRefusesWrites()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db);
    auto as = [&](const char *who, const QStringList &args) {
        return base + QStringList{QStringLiteral("--operator"), QString::fromLatin1(who)} + args;
    };
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    const QString k1 = QStringLiteral("ticket:create:acme:f1");
    const QString k2 = QStringLiteral("ticket:create:acme:f2");
    TRIAGE_OK(insertRecord(db, k1, 0, 3600));
    TRIAGE_OK(insertRecord(db, k2, 0, 3600));
    RUN_EXIT(set, 0, as("alice", {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("biz.ticket_create.failed_evidence"),
                                  QStringLiteral("ticket_absent"), QStringLiteral("--reason"), QStringLiteral("tickets always carry the key")}));
    const QStringList markK1{QStringLiteral("mark"), k1, QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"),
                             QStringLiteral("nothing was created upstream")};

    RUN_EXIT(freeze, 0, as("alice", {QStringLiteral("policy"), QStringLiteral("freeze"), QStringLiteral("--reason"),
                                     QStringLiteral("incident 42: nobody touches anything")}));
    QCOMPARE(timesAsT(freeze.out), kFrozen + QLatin1Char('\n'));
    const QStringList audit = auditRows(db);
    QCOMPARE(audit.last(), QStringLiteral("policy.freeze applied alice policy:frozen"));
    const QString records = storedKeyStatuses(db).join(QLatin1Char(' '));

    // Every write refused with the one message, nothing written.
    RUN_EXIT(mark, 4, as("bob", markK1));
    QVERIFY2(timesAsT(mark.out).contains(QStringLiteral("error              ") + kFrozen), mark.out.constData());
    RUN_EXIT(claim, 4, as("bob", {QStringLiteral("claim"), k2}));
    QCOMPARE(timesAsT(claim.err), QStringLiteral("triagectl: %1\n").arg(kFrozen));
    RUN_EXIT(reconcile, 4, as("bob", {QStringLiteral("reconcile")}));
    QCOMPARE(timesAsT(reconcile.err), QStringLiteral("triagectl: %1\n").arg(kFrozen));
    RUN_EXIT(signoff, 4, as("bob", {QStringLiteral("review"), QStringLiteral("signoff")}));
    QCOMPARE(timesAsT(signoff.err), QStringLiteral("triagectl: %1\n").arg(kFrozen));
    RUN_EXIT(policySet, 4, as("bob", {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("biz.ticket_create.reconcile"),
                                      QStringLiteral("auto"), QStringLiteral("--reason"), QStringLiteral("during the freeze too")}));
    QCOMPARE(timesAsT(policySet.err), QStringLiteral("triagectl: %1\n").arg(kFrozen));
    RUN_EXIT(again, 3, as("bob", {QStringLiteral("policy"), QStringLiteral("freeze"), QStringLiteral("--reason"),
                                  QStringLiteral("incident 43 as well")}));
    QCOMPARE(timesAsT(again.err), QStringLiteral("triagectl: already frozen: %1\n").arg(kFrozen));
    QCOMPARE(auditRows(db), audit);
    QCOMPARE(storedKeyStatuses(db).join(QLatin1Char(' ')), records);
    QCOMPARE(countOf(db, QStringLiteral("triage_claim")), QStringLiteral("0"));
    QCOMPARE(countOf(db, QStringLiteral("triage_reconcile_run")), QStringLiteral("0"));
    QCOMPARE(countOf(db, QStringLiteral("triage_review_signoff")), QStringLiteral("0"));
    QCOMPARE(countOf(db, QStringLiteral("triage_policy")), QStringLiteral("2"));

    // Reads keep working; doctor says it.
    RUN_EXIT(show, 0, as("bob", {QStringLiteral("show"), k1}));
    const QString daily = countOf(db, QStringLiteral("triage_review_daily"));
    RUN_EXIT(review, 0, as("bob", {QStringLiteral("review")})); // read as in read-only mode: nothing recorded
    QCOMPARE(countOf(db, QStringLiteral("triage_review_daily")), daily);
    QCOMPARE(auditRows(db), audit);
    RUN_EXIT(doctor, 0, as("bob", {QStringLiteral("doctor")}));
    QVERIFY2(timesAsT(doctor.out + doctor.err).contains(QStringLiteral("warning: ") + kFrozen), doctor.err.constData());
    RUN_EXIT(policyShow, 0, as("bob", {QStringLiteral("policy"), QStringLiteral("show")}));
    QVERIFY2(policyShow.out.contains("frozen  "), policyShow.out.constData());

    // Unfreeze (audited) restores writes.
    RUN_EXIT(unfreeze, 0, as("bob", {QStringLiteral("policy"), QStringLiteral("unfreeze"), QStringLiteral("--reason"),
                                     QStringLiteral("incident 42 is over")}));
    QCOMPARE(timesAsT(unfreeze.out), QStringLiteral("Unfrozen by bob at <t> UTC: incident 42 is over\n"));
    RUN_EXIT(unfreezeAgain, 3, as("bob", {QStringLiteral("policy"), QStringLiteral("unfreeze"), QStringLiteral("--reason"),
                                          QStringLiteral("incident 42 is over")}));
    QCOMPARE(unfreezeAgain.err, QByteArray("triagectl: not frozen: nothing to unfreeze\n"));
    RUN_EXIT(markAfter, 0, as("bob", markK1));
    RUN_EXIT(claimAfter, 0, as("bob", {QStringLiteral("claim"), k2}));
    QCOMPARE(auditRows(db), (audit + QStringList{QStringLiteral("policy.unfreeze applied bob policy:frozen"),
                                                 QStringLiteral("mark_failed applied bob %1").arg(k1),
                                                 QStringLiteral("claim.take applied bob %1").arg(k2)}));
}

void TestPolicyCli::upgradeFrom5()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = ctlDbArgs(db) + QStringList{QStringLiteral("--operator"), QStringLiteral("alice")};
    RUN_EXIT(schema, 0, base + QStringList{QStringLiteral("init-schema")});
    // A database as console schema version 5 left it.
    TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE triage_policy"));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '5' WHERE meta_key = 'schema_version'"));
    const QString k = QStringLiteral("ticket:create:acme:u1");
    TRIAGE_OK(insertRecord(db, k, 0, 3600));

    RUN_EXIT(empty, 0, base + QStringList{QStringLiteral("policy"), QStringLiteral("show")});
    QCOMPARE(empty.out, QByteArray("NAME  VALUE  SET_BY  SET_AT (UTC)  SCHEMA  VERSION  REASON\n0 settings\n"));
    const QByteArray needs = "triagectl: the idempotency database has no triage_policy (the safety policy needs console schema version "
                             "6): run `triagectl init-schema`\n";
    RUN_EXIT(freeze, 1, base + QStringList{QStringLiteral("policy"), QStringLiteral("freeze"), QStringLiteral("--reason"),
                                           QStringLiteral("incident 42: hands off")});
    QCOMPARE(freeze.err, needs);
    // Writes go on as before (no freeze without the table).
    RUN_EXIT(claim, 0, base + QStringList{QStringLiteral("claim"), k});

    RUN_EXIT(upgrade, 0, base + QStringList{QStringLiteral("init-schema")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT meta_value FROM triage_meta WHERE meta_key = 'schema_version'")),
             QStringList{QString::number(kConsoleSchemaVersion)});
    const QString nameValue = db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(name, '=', value)")
                                                                      : QStringLiteral("name || '=' || value");
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_policy").arg(nameValue)), QStringList{QStringLiteral("frozen=false")});
    RUN_EXIT(now, 0, base + QStringList{QStringLiteral("policy"), QStringLiteral("freeze"), QStringLiteral("--reason"),
                                        QStringLiteral("incident 42: hands off")});
    RUN_EXIT(release, 4, base + QStringList{QStringLiteral("release"), k});
}

QTEST_GUILESS_MAIN(TestPolicyCli)
#include "tst_policy_cli.moc"
