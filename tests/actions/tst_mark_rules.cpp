// The allowed-transition and safety rules of a manual mark (DESIGN.md §2, issue 3), as a
// table written by hand: one row per situation, expected verdict not computed by the code.
#include "MarkRules.h"
#include "RecordStatus.h"

#include <QTest>

using namespace triage;

class TestMarkRules : public QObject {
    Q_OBJECT
private slots:
    void rules_data();
    void rules();
};

void TestMarkRules::rules_data()
{
    QTest::addColumn<int>("from"); // -1 = NULL
    QTest::addColumn<bool>("stale");
    QTest::addColumn<int>("tickets");
    QTest::addColumn<int>("succeeded");
    QTest::addColumn<int>("to");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("override");
    QTest::addColumn<bool>("snapshotOk");
    QTest::addColumn<bool>("allowed");
    QTest::addColumn<QString>("messageContains");

    const QString shortReason = QStringLiteral("checked upstream");
    const QString longReason = QStringLiteral("upstream support confirmed ticket was voided");
    QTest::newRow("processing->success") << 0 << true << 1 << 0 << 1 << shortReason << false << true << true << "PROCESSING → SUCCESS allowed";
    QTest::newRow("processing->success young") << 0 << false << 1 << 0 << 1 << shortReason << false << true << true << "allowed";
    QTest::newRow("processing->success no snapshot") << 0 << true << 1 << 0 << 1 << shortReason << false << false << false << "JSON object";
    QTest::newRow("processing->failed clean stale") << 0 << true << 0 << 0 << 2 << shortReason << false << true << true << "PROCESSING → FAILED allowed";
    QTest::newRow("processing->failed with ticket") << 0 << true << 1 << 0 << 2 << shortReason << false << true << false << "1 ticket row(s) carry the key";
    QTest::newRow("processing->failed succeeded attempt") << 0 << true << 0 << 2 << 2 << shortReason << false << true << false << "2 SUCCEEDED attempt(s)";
    QTest::newRow("processing->failed young") << 0 << false << 0 << 0 << 2 << shortReason << false << true << false << "younger than its processing timeout";
    QTest::newRow("override short reason") << 0 << true << 1 << 0 << 2 << shortReason << true << true << false << "at least 20 characters";
    QTest::newRow("override long reason") << 0 << true << 1 << 0 << 2 << longReason << true << true << true << "allowed";
    QTest::newRow("override young") << 0 << false << 0 << 0 << 2 << longReason << true << true << true << "allowed";
    QTest::newRow("failed->success correction") << 2 << false << 1 << 0 << 1 << shortReason << false << true << true << "FAILED → SUCCESS allowed";
    QTest::newRow("failed->failed") << 2 << false << 0 << 0 << 2 << shortReason << false << true << false << "FAILED → FAILED is not an allowed transition";
    QTest::newRow("success final ->failed") << 1 << false << 0 << 0 << 2 << longReason << true << true << false << "SUCCESS is final";
    QTest::newRow("success final ->success") << 1 << false << 0 << 0 << 1 << longReason << true << true << false << "SUCCESS is final";
    QTest::newRow("unknown code") << 7 << true << 0 << 0 << 1 << shortReason << false << true << false << "UNKNOWN_CODE_7 → SUCCESS is not an allowed transition";
    QTest::newRow("null status") << -1 << true << 0 << 0 << 2 << shortReason << false << true << false << "NULL → FAILED is not an allowed transition";
    QTest::newRow("no reason") << 0 << true << 0 << 0 << 2 << QStringLiteral("  ") << false << true << false << "a reason is required";
}

void TestMarkRules::rules()
{
    QFETCH(int, from);
    QFETCH(bool, stale);
    QFETCH(int, tickets);
    QFETCH(int, succeeded);
    QFETCH(int, to);
    QFETCH(QString, reason);
    QFETCH(bool, override);
    QFETCH(bool, snapshotOk);
    QFETCH(bool, allowed);
    QFETCH(QString, messageContains);
    MarkFacts f;
    if (from >= 0)
        f.fromStatus = from;
    f.stale = stale;
    f.ticketCount = tickets;
    f.succeededAttempts = succeeded;
    const MarkDecision d = decideMark(f, to, reason, override, snapshotOk, QStringLiteral("no snapshot given"));
    QCOMPARE(d.allowed, allowed);
    QVERIFY2(d.reason.contains(messageContains), qPrintable(d.reason));
}

QTEST_GUILESS_MAIN(TestMarkRules)
#include "tst_mark_rules.moc"
