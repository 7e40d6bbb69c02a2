// Marks on a record table of another shape (DESIGN.md §10), created by the test itself on
// SQLite, PostgreSQL (direct and behind PgBouncer) and MariaDB: text statuses with odd case
// and spaces (status_ignore_case), epoch-millisecond times, no version and no expire_at
// (tests/support/MappedShape.h). The compare-and-set compares the exact stored status the
// operator saw, writes the mapping's first spelling and moves updated_at; every expected
// value is written out.
#include "BackendTestUtil.h"
#include "MappedShape.h"
#include "MarkTestUtil.h"
#include "Schema.h"
#include "KeyDetail.h"

#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// The mapped shape's tables next to the console's own (triage_audit) in `db`.
QString setUp(const TestDatabase &db, Workspace &ws)
{
    const auto schema = initSchema(ws, SchemaOptions{}).result();
    if (!schema.ok())
        return schema.error->message;
    return createMappedTables(db);
}

QString one(const TestDatabase &db, const QString &sql)
{
    QString error;
    const QStringList v = db.adminQueryColumn(sql, &error);
    if (!error.isEmpty())
        return QStringLiteral("ERROR ") + error;
    return v.isEmpty() ? QStringLiteral("(no row)") : v.first();
}

/// The canonical text of epoch milliseconds `ms`.
QString msText(qint64 ms)
{
    return formatUtcMicros(ms * 1000);
}

} // namespace

class TestMarkMapped : public QObject {
    Q_OBJECT
private slots:
    void appliedWritesFirstSpelling_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void appliedWritesFirstSpelling();
    void rewrittenSpellingConflicts_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void rewrittenSpellingConflicts();
    void unknownStoredStatusRefused_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void unknownStoredStatusRefused();
    void evidenceFromMappedTables_data() { QTest::addColumn<QString>("backend"); addBackendRows(true); }
    void evidenceFromMappedTables();
    void epochSecondsPrecision_data() { QTest::addColumn<QString>("backend"); addBackendRows(); }
    void epochSecondsPrecision();
};

void TestMarkMapped::appliedWritesFirstSpelling()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(mappedConfig(ticketAbsentConfig(db.config())));
    TRIAGE_OK(setUp(db, ws));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k1"), QStringLiteral("pending ")));

    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY2(seen.record, qPrintable(errorsText(seen)));
    QCOMPARE(seen.record->statusText, QStringLiteral("PROCESSING"));
    QCOMPARE(seen.record->statusCode, std::optional<qint64>(Processing));
    QCOMPARE(seen.record->statusStored, NullableText(QStringLiteral("pending ")));
    QCOMPARE(seen.record->updatedAt, QStringLiteral("2026-01-01T00:00:00.123000Z"));
    QCOMPARE(seen.record->expireAt, QString());
    QCOMPARE(seen.record->hasVersionColumn, false);
    QCOMPARE(seen.record->stale, true);

    // FAILED (stale, no ticket, ticket_absent): written as "ERROR", the first FAILED spelling.
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = expectedStateOf(*seen.record);
    QCOMPARE(r.expect->statusStored, std::optional<QString>(QStringLiteral("pending ")));
    const auto out = markRecord(ws, r).result();
    TRIAGE_VERIFY_OUTCOME(out);
    QVERIFY2(out->kind == MarkResult::Kind::Applied, qPrintable(out->message));
    QCOMPARE(out->warnings, QStringList()); // epoch_ms: exact to the millisecond, no blind spot
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k1'")), QStringLiteral("ERROR"));
    const qint64 after = one(db, QStringLiteral("SELECT updated_ms FROM idem_req WHERE rkey = 'k1'")).toLongLong();
    QVERIFY2(after > kMappedMs, qPrintable(QString::number(after)));
    QCOMPARE(one(db, QStringLiteral("SELECT created_ms FROM idem_req WHERE rkey = 'k1'")), QString::number(kMappedMs));
    QVERIFY(out->current);
    QCOMPARE(out->current->statusText, QStringLiteral("FAILED"));
    QCOMPARE(out->current->statusStored, NullableText(QStringLiteral("ERROR")));
    QCOMPARE(out->current->updatedAt, msText(after));
    QCOMPARE(out->before->statusStored, NullableText(QStringLiteral("pending ")));

    // The audit row keeps the stored values on both sides.
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QCOMPARE(d.audit.size(), 1);
    QCOMPARE(d.audit[0].outcome, QStringLiteral("applied"));
    QCOMPARE(d.audit[0].fromState, QStringLiteral("{\"status\":\"PROCESSING\",\"status_code\":0,\"status_stored\":\"pending \","
                                                  "\"updated_at\":\"2026-01-01T00:00:00.123000Z\",\"version\":null}"));
    QCOMPARE(d.audit[0].toState, QStringLiteral("{\"status\":\"FAILED\",\"status_code\":2,\"status_stored\":\"ERROR\","
                                                "\"updated_at\":\"%1\",\"version\":null}")
                                     .arg(msText(after)));

    // A repeat with the state seen before loses: the record changed.
    MarkRequest again = r;
    again.requestId.clear();
    const auto lost = markRecord(ws, again).result();
    TRIAGE_VERIFY_OUTCOME(lost);
    QCOMPARE(markKindName(lost->kind), QStringLiteral("conflict"));

    // SUCCESS from a ticket of the mapped ticket table: written as "Done" with the payload
    // byte-exact, from a record spelled "PENDING" (ignore case).
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k2"), QStringLiteral("PENDING")));
    TRIAGE_OK(insertMappedTicket(db, 41, QStringLiteral("k2"), QStringLiteral("acme"), QStringLiteral("live"), kPayload));
    MarkRequest s;
    s.idemKey = QStringLiteral("k2");
    s.toStatus = Success;
    s.reason = QStringLiteral("verified in upstream console");
    s.operatorName = QStringLiteral("alice");
    s.snapshotFromTicket = BusinessId::fromInteger(41);
    const auto success = markRecord(ws, s).result();
    TRIAGE_VERIFY_OUTCOME(success);
    QVERIFY2(success->kind == MarkResult::Kind::Applied, qPrintable(success->message));
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k2'")), QStringLiteral("Done"));
    QCOMPARE(one(db, QStringLiteral("SELECT body FROM idem_req WHERE rkey = 'k2'")), kPayload);
    QCOMPARE(success->current->statusText, QStringLiteral("SUCCESS"));
    QCOMPARE(*success->current->resultSnapshot, kPayload);
    const KeyDetail d2 = loadKeyDetail(ws, QStringLiteral("k2")).result();
    QCOMPARE(d2.audit.size(), 1);
    QVERIFY2(d2.audit[0].evidence.contains(QStringLiteral("\"ticket_ids\":[41]")), qPrintable(d2.audit[0].evidence));
    QVERIFY2(d2.audit[0].evidence.contains(QStringLiteral("\"snapshot_source\":\"ticket:41\"")), qPrintable(d2.audit[0].evidence));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 2);
}

void TestMarkMapped::rewrittenSpellingConflicts()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(mappedConfig(ticketAbsentConfig(db.config())));
    TRIAGE_OK(setUp(db, ws));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k1"), QStringLiteral("pending ")));
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY2(seen.record, qPrintable(errorsText(seen)));

    // Someone rewrote the status: the same status (PROCESSING), another stored value, same time.
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE idem_req SET state = 'PENDING' WHERE rkey = 'k1'"));
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = expectedStateOf(*seen.record);
    const auto out = markRecord(ws, r).result();
    TRIAGE_VERIFY_OUTCOME(out);
    QCOMPARE(markKindName(out->kind), QStringLiteral("conflict"));
    QCOMPARE(out->current->statusText, QStringLiteral("PROCESSING"));
    QCOMPARE(out->current->statusStored, NullableText(QStringLiteral("PENDING")));
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k1'")), QStringLiteral("PENDING"));
    QCOMPARE(one(db, QStringLiteral("SELECT updated_ms FROM idem_req WHERE rkey = 'k1'")), QString::number(kMappedMs));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")), 1);

    // Given only the status (triagectl mark --expect-status processing): any stored spelling
    // of it matches, the time still exactly.
    MarkRequest byName = request(QStringLiteral("k1"), Failed);
    byName.expect = ExpectedState{Processing, parseUtcMicros(QStringLiteral("2026-01-01T00:00:00.123000Z")), std::nullopt, std::nullopt};
    const auto applied = markRecord(ws, byName).result();
    TRIAGE_VERIFY_OUTCOME(applied);
    QVERIFY2(applied->kind == MarkResult::Kind::Applied, qPrintable(applied->message));
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k1'")), QStringLiteral("ERROR"));

    // A time the epoch_ms column cannot hold (microseconds) matches nothing.
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k2"), QStringLiteral("pending")));
    MarkRequest micro = request(QStringLiteral("k2"), Failed);
    micro.expect = ExpectedState{Processing, parseUtcMicros(QStringLiteral("2026-01-01T00:00:00.123456Z")), std::nullopt,
                                 QStringLiteral("pending")};
    QCOMPARE(markKindName(markRecord(ws, micro).result()->kind), QStringLiteral("conflict"));
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k2'")), QStringLiteral("pending"));
}

void TestMarkMapped::unknownStoredStatusRefused()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(mappedConfig(ticketAbsentConfig(db.config())));
    TRIAGE_OK(setUp(db, ws));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k1"), QStringLiteral("weird")));
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY2(seen.record, qPrintable(errorsText(seen)));
    QCOMPARE(seen.record->statusText, QStringLiteral("UNKNOWN_CODE_weird"));
    QCOMPARE(seen.record->statusCode, std::optional<qint64>());
    QCOMPARE(seen.record->statusStored, NullableText(QStringLiteral("weird")));
    QCOMPARE(seen.record->stale, false);

    for (RecordStatusCode to : {Failed, Success}) {
        MarkRequest r = request(QStringLiteral("k1"), to);
        r.expect = expectedStateOf(*seen.record);
        const auto out = markRecord(ws, r).result();
        TRIAGE_VERIFY_OUTCOME(out);
        QCOMPARE(markKindName(out->kind), QStringLiteral("refused"));
        QCOMPARE(out->message, QStringLiteral("UNKNOWN_CODE_weird → %1 is not an allowed transition (allowed: PROCESSING→SUCCESS, "
                                              "PROCESSING→FAILED, FAILED→SUCCESS)")
                                   .arg(recordStatusName(to)));
    }
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k1'")), QStringLiteral("weird"));
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QCOMPARE(d.audit.size(), 2);
    QCOMPARE(d.audit[0].outcome, QStringLiteral("refused"));
    QCOMPARE(d.audit[0].fromState, QStringLiteral("{\"status\":\"UNKNOWN_CODE_weird\",\"status_code\":null,\"status_stored\":\"weird\","
                                                  "\"updated_at\":\"2026-01-01T00:00:00.123000Z\",\"version\":null}"));
}

void TestMarkMapped::evidenceFromMappedTables()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(mappedConfig(ticketAbsentConfig(db.config())));
    TRIAGE_OK(setUp(db, ws));
    // k1: the agent saw success ("ok" spells SUCCEEDED); k2: a voided ticket still carries the
    // key; k3: only a timed-out attempt ("timeout" spells UNKNOWN), no ticket.
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k1"), QStringLiteral("pending")));
    TRIAGE_OK(insertMappedAttempt(db, QStringLiteral("job_1"), QStringLiteral("s1"), QStringLiteral("k1"), QStringLiteral("ok"),
                                  kMappedMs + 5));
    TRIAGE_OK(insertMappedAttempt(db, QStringLiteral("job_1"), QStringLiteral("s1"), QStringLiteral("k1"), QStringLiteral("escalated"),
                                  kMappedMs + 7));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k2"), QStringLiteral("pending")));
    TRIAGE_OK(insertMappedTicket(db, 7, QStringLiteral("k2"), QStringLiteral("acme"), QStringLiteral("voided"), QStringLiteral("{}")));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k3"), QStringLiteral("pending")));
    TRIAGE_OK(insertMappedAttempt(db, QStringLiteral("job_3"), QStringLiteral("s1"), QStringLiteral("k3"), QStringLiteral("timeout"),
                                  kMappedMs + 9));

    const auto results = markRecords(ws, {request(QStringLiteral("k1"), Failed), request(QStringLiteral("k2"), Failed),
                                          request(QStringLiteral("k3"), Failed)})
                             .result();
    QCOMPARE(results.size(), 3);
    for (const auto &o : results)
        TRIAGE_VERIFY_OUTCOME(o);
    QCOMPARE(markKindName(results[0]->kind), QStringLiteral("refused"));
    QCOMPARE(results[0]->message, QStringLiteral("FAILED means \"confirmed no side effect\" (DESIGN.md §6), but the intent log shows 1 "
                                                 "SUCCEEDED attempt(s); the intent log shows 1 ESCALATED attempt(s) (an open escalation)"));
    QCOMPARE(markKindName(results[1]->kind), QStringLiteral("refused"));
    QCOMPARE(results[1]->message, QStringLiteral("FAILED means \"confirmed no side effect\" (DESIGN.md §6), but 1 ticket row(s) carry "
                                                 "the key (the side effect happened)"));
    QVERIFY2(results[2]->kind == MarkResult::Kind::Applied, qPrintable(results[2]->message));
    QCOMPARE(one(db, QStringLiteral("SELECT state FROM idem_req WHERE rkey = 'k3'")), QStringLiteral("ERROR"));

    const KeyDetail d1 = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QCOMPARE(d1.audit.size(), 1);
    QVERIFY2(d1.audit[0].evidence.contains(QStringLiteral("\"succeeded_attempt_ids\":[1]")), qPrintable(d1.audit[0].evidence));
    QVERIFY2(d1.audit[0].evidence.contains(QStringLiteral("\"escalated_attempt_ids\":[2]")), qPrintable(d1.audit[0].evidence));
    QVERIFY2(d1.audit[0].evidence.contains(QStringLiteral("\"latest_attempt_at\":\"2026-01-01T00:00:00.130000Z\"")),
             qPrintable(d1.audit[0].evidence));
    const KeyDetail d2 = loadKeyDetail(ws, QStringLiteral("k2")).result();
    QVERIFY2(d2.audit[0].evidence.contains(QStringLiteral("\"ticket_ids\":[7]")), qPrintable(d2.audit[0].evidence));
    const KeyDetail d3 = loadKeyDetail(ws, QStringLiteral("k3")).result();
    QVERIFY2(d3.audit[0].evidence.contains(QStringLiteral("\"latest_attempt_at\":\"2026-01-01T00:00:00.132000Z\"")),
             qPrintable(d3.audit[0].evidence));
}

void TestMarkMapped::epochSecondsPrecision()
{
    // epoch_s has one-second precision: without a version column the console says so.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig c = mappedConfig(ticketAbsentConfig(db.config()));
    c.schema.records.time.encoding = TimeEncoding::EpochSeconds;
    Workspace ws(c);
    TRIAGE_OK(setUp(db, ws));
    TRIAGE_OK(insertMappedRecord(db, QStringLiteral("k1"), QStringLiteral("pending"), kMappedMs / 1000));
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    QVERIFY2(seen.record, qPrintable(errorsText(seen)));
    QCOMPARE(seen.record->updatedAt, QStringLiteral("2026-01-01T00:00:00.000000Z"));
    MarkRequest r = request(QStringLiteral("k1"), Failed);
    r.expect = expectedStateOf(*seen.record);
    const auto out = markRecord(ws, r).result();
    TRIAGE_VERIFY_OUTCOME(out);
    QVERIFY2(out->kind == MarkResult::Kind::Applied, qPrintable(out->message));
    QCOMPARE(out->warnings, QStringList{QStringLiteral("updated_ms has one-second precision and the table has no version column: this "
                                                       "compare-and-set cannot see a change made within the same second")});
    const qint64 after = one(db, QStringLiteral("SELECT updated_ms FROM idem_req WHERE rkey = 'k1'")).toLongLong();
    QVERIFY2(after > kMappedMs / 1000 && after < kMappedMs, qPrintable(QString::number(after))); // seconds, moved forward
}

QTEST_GUILESS_MAIN(TestMarkMapped)
#include "tst_mark_mapped.moc"
