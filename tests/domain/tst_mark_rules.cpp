// The allowed-transition and safety rules of a manual mark (DESIGN.md §2, §6 "FAILED needs
// positive evidence of absence"), as a table written by hand: one row per situation, the
// expected decision and its exact reason, not computed by the code.
#include "BusinessIdTestUtil.h"
#include "MarkRules.h"
#include "RecordStatus.h"

#include <QTest>

using namespace triage;

Q_DECLARE_METATYPE(triage::MarkFacts)

namespace {

constexpr qint64 kSecond = 1000000;

UtcMicros t0()
{
    return *parseUtcMicros(u"2026-12-01T12:00:00.000000Z");
}

/// A stale PROCESSING record (updated 1 h ago, timeout 300 s) with nothing against FAILED
/// and no proof of absence yet.
MarkFacts base()
{
    MarkFacts f;
    f.fromStatus = Processing;
    f.stale = true;
    f.now = t0();
    f.updatedAt = t0() - 3600 * kSecond;
    f.upstreamConfigured = true;
    return f;
}

RecordedUpstreamAnswer answer(UpstreamAnswer a, qint64 agoSeconds, qint64 auditId = 12)
{
    RecordedUpstreamAnswer u;
    u.auditId = auditId;
    u.answer = a;
    u.at = t0() - agoSeconds * kSecond;
    u.atText = formatUtcMicros(*u.at);
    return u;
}

/// base() with a fresh NOT_FOUND recorded 60 s ago, after the stale point and every attempt.
MarkFacts proven()
{
    MarkFacts f = base();
    f.upstream = answer(UpstreamAnswer::NotFound, 60);
    return f;
}

} // namespace

class TestMarkRules : public QObject {
    Q_OBJECT
private slots:
    void rules_data();
    void rules();
};

void TestMarkRules::rules_data()
{
    QTest::addColumn<MarkFacts>("facts");
    QTest::addColumn<int>("to");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("override");
    QTest::addColumn<bool>("snapshotOk");
    QTest::addColumn<bool>("bulk");
    QTest::addColumn<bool>("allowed");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("overridden");

    const QString reason = QStringLiteral("checked upstream"); // 16 characters
    const QString longReason = QStringLiteral("upstream support confirmed ticket was voided");
    const QString prefix = QStringLiteral("FAILED means \"confirmed no side effect\" (DESIGN.md §6), but ");
    const QString queryHint = QStringLiteral("; query the upstream for a fresh answer, or use --override with a reason of at least "
                                             "20 characters if you are sure");
    const QString overrideNever = QStringLiteral("; --override sets aside only missing evidence or an open escalation, never "
                                                 "evidence that the side effect happened or a record that is not stale");
    const QString noAnswer = QStringLiteral("no proof of absence: no upstream answer is recorded for the key (query the upstream first)");
    const QString at60 = formatUtcMicros(t0() - 60 * kSecond);

    auto with = [](MarkFacts f, auto change) {
        change(f);
        return f;
    };

    // Transitions and the reason's length.
    QTest::newRow("processing->success") << base() << 1 << reason << false << true << false << true
                                         << "PROCESSING → SUCCESS allowed" << "";
    QTest::newRow("processing->success young") << with(base(), [](MarkFacts &f) { f.stale = false; }) << 1 << reason << false
                                               << true << false << true << "PROCESSING → SUCCESS allowed" << "";
    QTest::newRow("processing->success no snapshot") << base() << 1 << reason << false << false << false << false
                                                     << "SUCCESS needs a result snapshot that is a JSON object: no snapshot given" << "";
    QTest::newRow("success from a ticket of another key")
        << with(base(), [](MarkFacts &f) { f.snapshotTicketId = bid(152); f.snapshotTicketCarriesKey = false; }) << 1 << reason
        << false << true << false << false
        << "ticket #152 does not carry this key: a SUCCESS snapshot comes only from a ticket of the key" << "";
    QTest::newRow("failed->success correction") << with(base(), [](MarkFacts &f) { f.fromStatus = Failed; f.ticketCount = 1; })
                                                << 1 << reason << false << true << false << true << "FAILED → SUCCESS allowed" << "";
    QTest::newRow("failed->failed") << with(base(), [](MarkFacts &f) { f.fromStatus = Failed; }) << 2 << reason << false << true
                                    << false << false
                                    << "FAILED → FAILED is not an allowed transition (allowed: PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS)"
                                    << "";
    QTest::newRow("success final ->failed") << with(base(), [](MarkFacts &f) { f.fromStatus = Success; }) << 2 << longReason
                                            << true << true << false << false
                                            << "SUCCESS is final: its snapshot was returned to callers (DESIGN.md §2)" << "";
    QTest::newRow("unknown code") << with(base(), [](MarkFacts &f) { f.fromStatus = 7; }) << 1 << reason << false << true << false
                                  << false
                                  << "UNKNOWN_CODE_7 → SUCCESS is not an allowed transition (allowed: PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS)"
                                  << "";
    QTest::newRow("null status") << with(base(), [](MarkFacts &f) { f.fromStatus.reset(); }) << 2 << reason << false << true
                                 << false << false
                                 << "NULL → FAILED is not an allowed transition (allowed: PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS)"
                                 << "";
    QTest::newRow("no record") << with(base(), [](MarkFacts &f) { f.recordExists = false; }) << 2 << reason << false << true
                               << false << false << "no idempotency record has this key" << "";
    QTest::newRow("blank reason") << proven() << 2 << QStringLiteral("  ") << false << true << false << false
                                  << "every manual mark needs a reason of at least 10 characters (got 0)" << "";
    QTest::newRow("short reason success") << base() << 1 << QStringLiteral(" ok, done ") << false << true << false << false
                                          << "every manual mark needs a reason of at least 10 characters (got 8)" << "";
    QTest::newRow("ten characters") << proven() << 2 << QStringLiteral("0123456789") << false << true << false << true
                                    << QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded 1m 0s ago (audit #12, %1)").arg(at60)
                                    << "";

    // FAILED with positive evidence of absence.
    QTest::newRow("fresh NOT_FOUND") << proven() << 2 << reason << false << true << false << true
                                     << QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded 1m 0s ago (audit #12, %1)").arg(at60)
                                     << "";
    QTest::newRow("fresh NOT_FOUND in bulk") << proven() << 2 << reason << false << true << true << true
                                             << QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded 1m 0s ago (audit #12, %1)").arg(at60)
                                             << "";
    QTest::newRow("NOT_FOUND after the latest attempt")
        << with(proven(), [](MarkFacts &f) { f.latestAttemptAt = t0() - 61 * kSecond; }) << 2 << reason << false << true << false
        << true << QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded 1m 0s ago (audit #12, %1)").arg(at60) << "";
    QTest::newRow("ticket_absent") << with(base(), [](MarkFacts &f) { f.failedEvidence = FailedEvidence::TicketAbsent; }) << 2
                                   << reason << false << true << false << true
                                   << "PROCESSING → FAILED allowed: failed_evidence = ticket_absent: stale and no ticket carries the key"
                                   << "";

    // FAILED without proof of absence: refused; an override may set it aside.
    QTest::newRow("no upstream answer") << base() << 2 << reason << false << true << false << false
                                        << prefix + noAnswer + queryHint << "";
    QTest::newRow("no upstream API")
        << with(base(), [](MarkFacts &f) { f.upstreamConfigured = false; }) << 2 << reason << false << true << false << false
        << prefix
               + "no proof of absence: no upstream answer is recorded for the key and its biz_type has no upstream query API configured "
                 "(upstream_query_url); declare failed_evidence = ticket_absent if this biz_type's side effect is the ticket row, or use "
                 "--override with a reason of at least 20 characters if you are sure"
        << "";
    QTest::newRow("latest answer UNUSABLE")
        << with(base(), [](MarkFacts &f) { f.upstream = answer(UpstreamAnswer::Unusable, 30, 14); }) << 2 << reason << false << true
        << false << false
        << prefix
               + QStringLiteral("no proof of absence: the latest recorded upstream answer (audit #14, %1) is UNUSABLE, not a definitive NOT_FOUND")
                     .arg(formatUtcMicros(t0() - 30 * kSecond))
               + queryHint
        << "";
    QTest::newRow("NOT_FOUND too old")
        << with(base(), [](MarkFacts &f) { f.upstream = answer(UpstreamAnswer::NotFound, 1200); }) << 2 << reason << false << true
        << false << false
        << prefix
               + QStringLiteral("no proof of absence: the recorded NOT_FOUND (audit #12, %1) is 20m 0s old, older than "
                                "failed_evidence_max_age (900 s): query the upstream again")
                     .arg(formatUtcMicros(t0() - 1200 * kSecond))
               + queryHint
        << "";
    QTest::newRow("NOT_FOUND before the stale point")
        << with(base(), [](MarkFacts &f) {
               f.updatedAt = t0() - 400 * kSecond; // stale at t0 - 100 s
               f.upstream = answer(UpstreamAnswer::NotFound, 200);
           })
        << 2 << reason << false << true << false << false
        << prefix
               + QStringLiteral("no proof of absence: the recorded NOT_FOUND (audit #12, %1) was obtained before updated_at + "
                                "processing_timeout (%2), while the request could still have been running")
                     .arg(formatUtcMicros(t0() - 200 * kSecond), formatUtcMicros(t0() - 100 * kSecond))
               + queryHint
        << "";
    QTest::newRow("NOT_FOUND before the latest attempt")
        << with(proven(), [](MarkFacts &f) { f.latestAttemptAt = t0() - 30 * kSecond; }) << 2 << reason << false << true << false
        << false
        << prefix
               + QStringLiteral("no proof of absence: the recorded NOT_FOUND (audit #12, %1) was obtained before the key's latest "
                                "intent attempt (%2)")
                     .arg(at60, formatUtcMicros(t0() - 30 * kSecond))
               + queryHint
        << "";
    QTest::newRow("attempt time unreadable")
        << with(proven(), [](MarkFacts &f) { f.attemptTimeUnreadable = true; }) << 2 << reason << false << true << false << false
        << prefix
               + QStringLiteral("no proof of absence: an intent attempt's time cannot be read, so the recorded NOT_FOUND (audit #12, %1) "
                                "cannot be shown to come after it")
                     .arg(at60)
               + queryHint
        << "";
    QTest::newRow("ESCALATED attempt") << with(proven(), [](MarkFacts &f) { f.escalatedAttempts = 1; }) << 2 << reason << false
                                       << true << false << false
                                       << prefix + "the intent log shows 1 ESCALATED attempt(s) (an open escalation)" + queryHint << "";
    QTest::newRow("override short reason") << base() << 2 << reason << true << true << false << false
                                           << "--override needs a reason of at least 20 characters (got 16)" << "";
    QTest::newRow("override sets aside missing evidence") << base() << 2 << longReason << true << true << false << true
                                                          << "PROCESSING → FAILED allowed" << noAnswer;
    QTest::newRow("override sets aside an escalation")
        << with(proven(), [](MarkFacts &f) { f.escalatedAttempts = 2; }) << 2 << longReason << true << true << false << true
        << "PROCESSING → FAILED allowed" << "the intent log shows 2 ESCALATED attempt(s) (an open escalation)";
    QTest::newRow("no override in bulk")
        << base() << 2 << longReason << true << true << true << false
        << prefix + noAnswer + "; a bulk FAILED applies only where the verdict is FAILED (override one key at a time)" << "";

    // Evidence that the side effect happened: no override sets it aside.
    QTest::newRow("ticket") << with(proven(), [](MarkFacts &f) { f.ticketCount = 1; }) << 2 << reason << false << true << false
                            << false << prefix + "1 ticket row(s) carry the key (the side effect happened)" << "";
    QTest::newRow("ticket, override") << with(base(), [](MarkFacts &f) { f.ticketCount = 2; }) << 2 << longReason << true << true
                                      << false << false
                                      << prefix + "2 ticket row(s) carry the key (the side effect happened); " + noAnswer + overrideNever
                                      << "";
    QTest::newRow("ticket_absent with a ticket, override")
        << with(base(), [](MarkFacts &f) { f.failedEvidence = FailedEvidence::TicketAbsent; f.ticketCount = 1; }) << 2 << longReason
        << true << true << false << false << prefix + "1 ticket row(s) carry the key (the side effect happened)" + overrideNever << "";
    QTest::newRow("SUCCEEDED attempt, override")
        << with(proven(), [](MarkFacts &f) { f.succeededAttempts = 2; }) << 2 << longReason << true << true << false << false
        << prefix + "the intent log shows 2 SUCCEEDED attempt(s)" + overrideNever << "";
    QTest::newRow("upstream FOUND, override")
        << with(base(), [](MarkFacts &f) { f.upstream = answer(UpstreamAnswer::Found, 30, 15); }) << 2 << longReason << true << true
        << false << false
        << prefix
               + QStringLiteral("the latest recorded upstream answer (audit #15, %1) is FOUND (the side effect happened)")
                     .arg(formatUtcMicros(t0() - 30 * kSecond))
               + overrideNever
        << "";
    QTest::newRow("upstream AMBIGUOUS, ticket_absent")
        << with(base(), [](MarkFacts &f) {
               f.failedEvidence = FailedEvidence::TicketAbsent;
               f.upstream = answer(UpstreamAnswer::Ambiguous, 30, 16);
           })
        << 2 << reason << false << true << false << false
        << prefix
               + QStringLiteral("the latest recorded upstream answer (audit #16, %1) is AMBIGUOUS (the side effect happened)")
                     .arg(formatUtcMicros(t0() - 30 * kSecond))
        << "";
    QTest::newRow("not stale, override")
        << with(proven(), [](MarkFacts &f) { f.stale = false; }) << 2 << longReason << true << true << false << false
        << prefix + "the record is younger than its processing timeout of 300 s (the request may still be running)" + overrideNever
        << "";
    QTest::newRow("store unreadable, override")
        << with(proven(), [](MarkFacts &f) { f.storeErrors << QStringLiteral("ticket store: connection refused"); }) << 2
        << longReason << true << true << false << false
        << prefix + "the evidence is incomplete (ticket store: connection refused)" + overrideNever << "";
}

void TestMarkRules::rules()
{
    QFETCH(MarkFacts, facts);
    QFETCH(int, to);
    QFETCH(QString, reason);
    QFETCH(bool, override);
    QFETCH(bool, snapshotOk);
    QFETCH(bool, bulk);
    QFETCH(bool, allowed);
    QFETCH(QString, expected);
    QFETCH(QString, overridden);
    const MarkDecision d = decideMark(facts, RecordStatusCode(to), reason, override, snapshotOk, QStringLiteral("no snapshot given"), bulk);
    QCOMPARE(d.reason, expected);
    QCOMPARE(d.allowed, allowed);
    QCOMPARE(d.overridden, overridden);
}

QTEST_GUILESS_MAIN(TestMarkRules)
#include "tst_mark_rules.moc"
