// Four-eyes through triagectl (DESIGN.md §9 "Four-eyes", §5 exit codes) on every backend: a mark
// the policy gives to a second operator exits 6 with the proposal's id; `proposals` lists it in
// table, JSON (undecided fields null) and CSV; the proposer's approve exits 4 with the
// database's refusal; another operator's approve exits 0 and applies it; reject of a decided
// proposal exits 3; an unknown id exits 1; `proposals --all` shows every state.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "MarkTestUtil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestFourEyesCli : public QObject {
    Q_OBJECT
private slots:
    void proposeApproveReject_data();
    void proposeApproveReject();
};

void TestFourEyesCli::proposeApproveReject_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestFourEyesCli::proposeApproveReject()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    auto as = [&](const char *name, const QStringList &args) {
        return ctlDbArgs(db) + QStringList{QStringLiteral("--operator"), QString::fromUtf8(name)} + args;
    };
    RUN_EXIT(schema, 0, as("alice", {QStringLiteral("init-schema")}));
    const QString k1 = QStringLiteral("ticket:create:acme:fc-1");
    const QString k2 = QStringLiteral("ticket:create:acme:fc-2");
    for (const QString &k : {k1, k2})
        TRIAGE_OK(insertRecord(db, k, 0, 3600));
    for (const auto &[name, value] : {std::pair{"biz.ticket_create.four_eyes", "mark_failed"},
                                      std::pair{"biz.ticket_create.failed_evidence", "ticket_absent"},
                                      std::pair{"four_eyes_db_users", "shared"}}) {
        RUN_EXIT(set, 0, as("alice", {QStringLiteral("policy"), QStringLiteral("set"), QLatin1String(name), QLatin1String(value),
                                      QStringLiteral("--reason"), QStringLiteral("four-eyes for failed marks")}));
    }
    auto mark = [&](const QString &key) {
        return as("alice", {QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"),
                            QStringLiteral("no ticket was ever created")});
    };

    // alice's marks: proposals 1 and 2, exit 6, nothing applied.
    RUN_EXIT(p1, 6, mark(k1));
    QVERIFY2(p1.out.contains("proposed as proposal 1 (biz.ticket_create.four_eyes): nothing applied until another operator "
                             "approves it (triagectl approve 1 --reason …) before "),
             p1.out.constData());
    RUN_EXIT(p2, 6, mark(k2));
    QCOMPARE(storedKeyStatuses(db), (QStringList{k1 + QStringLiteral(":0"), k2 + QStringLiteral(":0")}));

    RUN_EXIT(table, 0, as("carol", {QStringLiteral("proposals")}));
    QCOMPARE(timesAsT(table.out),
             QStringLiteral("ID  STATE  ACTION       WHAT      IDEM_KEY                 PROPOSED_BY  PROPOSED_AT (UTC)    EXPIRES_AT (UTC)     "
                            "REASON                      DECIDED\n"
                            "1   open   mark_failed  \u2192 FAILED  ticket:create:acme:fc-1  alice        <t>  <t>  no ticket was ever created\n"
                            "2   open   mark_failed  \u2192 FAILED  ticket:create:acme:fc-2  alice        <t>  <t>  no ticket was ever created\n"
                            "2 proposals\n"));
    RUN_EXIT(limited, 0, as("carol", {QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("proposals")}));
    QVERIFY2(limited.out.endsWith("\n1 proposal (first 1 of 2: --limit 0 for all)\n") && !limited.out.contains("fc-2"), limited.out.constData());
    RUN_EXIT(json, 0, as("carol", {QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("proposals")}));
    const QJsonArray rows = QJsonDocument::fromJson(json.out).array();
    QCOMPARE(rows.size(), 2);
    const QJsonObject first = rows.at(0).toObject();
    QCOMPARE(first.value(QStringLiteral("id")).toInt(), 1);
    QCOMPARE(first.value(QStringLiteral("state")).toString(), QStringLiteral("open"));
    QCOMPARE(first.value(QStringLiteral("to_status")).toString(), QStringLiteral("FAILED"));
    QCOMPARE(first.value(QStringLiteral("proposed_by")).toString(), QStringLiteral("alice"));
    QCOMPARE(first.value(QStringLiteral("snapshot")).type(), QJsonValue::Null);
    QCOMPARE(first.value(QStringLiteral("expected_state")).toObject().value(QStringLiteral("status")).toInt(), 0);
    QVERIFY(first.value(QStringLiteral("expected_state")).toObject().contains(QStringLiteral("updated_at")));
    for (const char *undecided : {"decided_by", "decided_at", "decision_reason"})
        QVERIFY2(first.value(QLatin1String(undecided)).isNull(), undecided);

    // The proposer cannot approve (exit 4, the database's refusal); bob can (exit 0, applied).
    RUN_EXIT(self, 4, as("Alice", {QStringLiteral("approve"), QStringLiteral("1"), QStringLiteral("--reason"),
                                   QStringLiteral("I checked it myself")}));
    QVERIFY2(self.out.contains("refused: "), self.out.constData());
    RUN_EXIT(approved, 0, as("bob", {QStringLiteral("approve"), QStringLiteral("1"), QStringLiteral("--reason"),
                                     QStringLiteral("no ticket in the ticket table")}));
    QVERIFY2(approved.out.startsWith("applied: "), approved.out.constData());
    RUN_EXIT(rejected, 0, as("carol", {QStringLiteral("reject"), QStringLiteral("2"), QStringLiteral("--reason"),
                                       QStringLiteral("the agent is still retrying it")}));
    QCOMPARE(rejected.out, QByteArray("proposal 2 rejected by carol: the agent is still retrying it\n"));
    RUN_EXIT(again, 3, as("carol", {QStringLiteral("reject"), QStringLiteral("1"), QStringLiteral("--reason"),
                                    QStringLiteral("the agent is still retrying it")}));
    RUN_EXIT(unknown, 1, as("carol", {QStringLiteral("approve"), QStringLiteral("99"), QStringLiteral("--reason"),
                                      QStringLiteral("no ticket in the ticket table")}));
    // A name of only spaces and invisible characters names nobody: refused before anything runs.
    RUN_EXIT(nobody, 1, as(" \u200B ", {QStringLiteral("approve"), QStringLiteral("2"), QStringLiteral("--reason"),
                                     QStringLiteral("no ticket in the ticket table")}));
    QVERIFY2(nobody.err.startsWith("triagectl: operator name \" \u200B \" names nobody: give a name with at least one letter or digit"),
             nobody.err.constData());
    QCOMPARE(storedKeyStatuses(db), (QStringList{k1 + QStringLiteral(":2"), k2 + QStringLiteral(":0")}));

    RUN_EXIT(none, 0, as("carol", {QStringLiteral("proposals")}));
    QCOMPARE(none.out.split('\n').last(), QByteArray());
    QVERIFY2(none.out.endsWith("0 proposals\n"), none.out.constData());
    RUN_EXIT(csv, 0, as("carol", {QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("proposals"), QStringLiteral("--all")}));
    const QList<QByteArray> lines = csv.out.split('\n');
    QCOMPARE(lines.value(0), QByteArray("id,state,action,idem_key,biz_type,proposed_by,proposed_at,expires_at,reason,decided_by,decided_at,"
                                        "decision_reason,expected_state,snapshot_source,proposal_hash,what\r"));
    QCOMPARE(lines.size(), 4); // header, 2, 1 (newest first), and the end
    QVERIFY2(lines.value(1).startsWith("2,rejected,mark_failed,ticket:create:acme:fc-2,ticket_create,alice,"), lines.value(1).constData());
    QVERIFY2(lines.value(2).startsWith("1,approved,mark_failed,ticket:create:acme:fc-1,ticket_create,alice,"), lines.value(2).constData());
    QVERIFY2(lines.value(2).contains(",bob,"), lines.value(2).constData());
}

QTEST_GUILESS_MAIN(TestFourEyesCli)
#include "tst_four_eyes_cli.moc"
