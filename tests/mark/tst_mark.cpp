// Marks with audit against SQLite, PostgreSQL and MariaDB: applied, refused, the FAILED
// evidence rule, dry runs, snapshots from tickets, action names and atomicity (the
// compare-and-set itself: tst_mark_cas.cpp). Every expected value is written out.
#include "BusinessIdTestUtil.h"
#include "MarkTestUtil.h"
#include "Schema.h"
#include "Queue.h"
#include "KeyDetail.h"

#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <thread>

using namespace triage;
using namespace triage::test;

class TestMark : public QObject {
    Q_OBJECT
private slots:
    void applyAndAudit_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void applyAndAudit();
    void refusals_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void refusals();
    void failedEvidence_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void failedEvidence();
    void dryRunWritesNothing_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void dryRunWritesNothing();
    void snapshotFromTicket_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void snapshotFromTicket();
    void auditActionNames_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void auditActionNames();
    void atomicity_data() { QTest::addColumn<QString>("backend"); addBackendRows(true, true); }
    void atomicity();
};

void TestMark::applyAndAudit()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(insertRecord(db, QStringLiteral("ticket:create:acme:k1"), Processing, 3600), QString());
    QCOMPARE(insertTicket(db, 41, QStringLiteral("ticket:create:acme:k1"), payloadOf(db)), QString());
    QueueRequest unknown;
    QCOMPARE(*countQueue(ws, unknown).result(), 1);

    const Outcome<MarkResult> out = markRecord(ws, request(db, QStringLiteral("ticket:create:acme:k1"), Success)).result();
    QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error->message));
    QCOMPARE(markKindName(out->kind), QStringLiteral("applied"));
    QVERIFY(out->auditId > 0);
    QCOMPARE(out->current->statusText, QStringLiteral("SUCCESS"));
    QCOMPARE(*out->current->resultSnapshot, payloadOf(db)); // byte-exact: the big number is not rewritten
    // Written as the mapping's first spelling of SUCCESS on a shop row ("DONE"), the code elsewhere.
    QCOMPARE(storedStatuses(db), QStringList{db.isShop() ? QStringLiteral("DONE") : QStringLiteral("1")});
    QCOMPARE(*countQueue(ws, unknown).result(), 0);

    const QStringList audit = db.adminQueryColumn(QStringLiteral(
        "SELECT operator || '|' || action || '|' || outcome || '|' || reason FROM triage_audit ORDER BY id").replace(
        QStringLiteral("operator || '|' || action || '|' || outcome || '|' || reason"),
        dialectOf(backend) == QLatin1String("mysql") ? QStringLiteral("CONCAT_WS('|', operator, action, outcome, reason)")
                                          : QStringLiteral("operator || '|' || action || '|' || outcome || '|' || reason")));
    QCOMPARE(audit, QStringList{QStringLiteral("alice|mark_success|applied|verified in upstream console")});

    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("ticket:create:acme:k1")).result();
    QCOMPARE(d.audit.size(), 1);
    QCOMPARE(d.audit[0].fromState.contains(QStringLiteral("\"status\":\"PROCESSING\"")), true);
    QCOMPARE(d.audit[0].toState.contains(QStringLiteral("\"status\":\"SUCCESS\"")), true);
    // The ticket id as every JSON output spells it (ShapeExpect.h): 41, or the order's UUID text.
    QVERIFY2(d.audit[0].evidence.contains(QStringLiteral("\"ticket_ids\":[%1]").arg(ticketIdLiteral(db, 41))),
             qPrintable(d.audit[0].evidence));
    int auditEvents = 0;
    for (const TimelineEvent &e : d.timeline)
        if (e.source == QLatin1String("triage_audit")) {
            ++auditEvents;
            QCOMPARE(e.summary, QStringLiteral("mark_success by alice: PROCESSING → SUCCESS (applied): verified in upstream console"));
        }
    QCOMPARE(auditEvents, 1);

    // The same request again (a retry after a lost reply) reports the recorded outcome.
    MarkRequest again = request(db, QStringLiteral("ticket:create:acme:k1"), Success);
    again.requestId = out->requestId;
    const Outcome<MarkResult> retried = markRecord(ws, again).result();
    QCOMPARE(markKindName(retried->kind), QStringLiteral("applied"));
    QCOMPARE(retried->auditId, out->auditId);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 1);
}

void TestMark::refusals()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(insertRecord(db, QStringLiteral("k-ticket"), Processing, 3600), QString());
    QCOMPARE(insertTicket(db, 7, QStringLiteral("k-ticket"), kPayload), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("k-succeeded"), Processing, 3600), QString());
    QCOMPARE(insertAttempt(db, QStringLiteral("k-succeeded"), QStringLiteral("SUCCEEDED")), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("k-young"), Processing, 10), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("k-final"), Success, 3600), QString());

    auto kindOf = [&](const MarkRequest &r) {
        const auto o = markRecord(ws, r).result();
        return o.ok() ? markKindName(o->kind) + QLatin1Char(':') + o->message : QStringLiteral("error:") + o.error->message;
    };
    const QString prefix = QStringLiteral("refused:FAILED means \"confirmed no side effect\" (DESIGN.md §6), but ");
    const QString never = QStringLiteral("; --override sets aside only missing evidence or an open escalation, never evidence "
                                         "that the side effect happened or a record that is not stale");
    QCOMPARE(kindOf(request(QStringLiteral("k-ticket"), Failed)),
             prefix + QStringLiteral("1 ticket row(s) carry the key (the side effect happened)"));
    QCOMPARE(kindOf(request(QStringLiteral("k-succeeded"), Failed)), prefix + QStringLiteral("the intent log shows 1 SUCCEEDED attempt(s)"));
    QCOMPARE(kindOf(request(QStringLiteral("k-young"), Failed)),
             prefix + QStringLiteral("the record is younger than its processing timeout of 300 s (the request may still be running)"));
    QCOMPARE(kindOf(request(QStringLiteral("k-final"), Failed)),
             QStringLiteral("refused:SUCCESS is final: its snapshot was returned to callers (DESIGN.md §2)"));
    QCOMPARE(kindOf(request(QStringLiteral("k-nothing-here"), Failed)), QStringLiteral("refused:no idempotency record has this key"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'refused'")), 5);
    // An override never sets aside evidence that the side effect happened, nor a record that is not stale.
    for (const QString &key : {QStringLiteral("k-ticket"), QStringLiteral("k-succeeded"), QStringLiteral("k-young")}) {
        MarkRequest o = request(key, Failed, QStringLiteral("agent host was powered off before sending"));
        o.override = true;
        const QString out = kindOf(o);
        QVERIFY2(out.startsWith(prefix) && out.endsWith(never), qPrintable(out));
    }
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'refused'")), 8);
    // Every mark needs a reason of at least 10 characters, SUCCESS too; the refusal is audited.
    QCOMPARE(kindOf(request(QStringLiteral("k-ticket"), Success, QStringLiteral("seen it"))),
             QStringLiteral("refused:every manual mark needs a reason of at least 10 characters (got 7)"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'refused' AND reason = 'seen it' "
                                      "AND action = 'mark_success'")),
             1);
    // Nothing changed.
    QCOMPARE(storedStatuses(db), stored(db, {QStringLiteral("1"), QStringLiteral("0"), QStringLiteral("0"), QStringLiteral("0")}));

    // Read-only mode refuses before touching anything, and writes nothing (no audit row).
    WorkspaceConfig ro = db.config();
    ro.readOnly = true;
    Workspace readOnly(ro);
    const auto r = markRecord(readOnly, request(QStringLiteral("k-ticket"), Success)).result();
    QCOMPARE(markKindName(r->kind), QStringLiteral("refused"));
    QCOMPARE(r->message, QStringLiteral("read-only mode: marking is disabled (started with --read-only or read_only=true)"));
    QCOMPARE(r->auditId, 0);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 9);
}

void TestMark::failedEvidence()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = ticketAbsentConfig(db.config());
    BizTypeConfig pay; // failed_evidence = upstream (the default), max age 900 s, timeout 300 s
    config.bizTypes.insert(QStringLiteral("payment_capture"), pay);
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    const QString payBiz = QStringLiteral("payment_capture");
    for (const QString &k : {QStringLiteral("pay:none"), QStringLiteral("pay:fresh"), QStringLiteral("pay:old"),
                             QStringLiteral("pay:attempt"), QStringLiteral("pay:unusable")})
        QCOMPARE(insertRecord(db, k, Processing, 3600, payBiz), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("pay:early"), Processing, 400, payBiz), QString()); // stale 100 s ago
    QCOMPARE(insertRecord(db, QStringLiteral("ticket:create:acme:gone"), Processing, 3600), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:fresh"), QStringLiteral("UNUSABLE"), 300), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:fresh"), QStringLiteral("NOT_FOUND"), 60), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:old"), QStringLiteral("NOT_FOUND"), 1200), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:attempt"), QStringLiteral("NOT_FOUND"), 200), QString());
    QCOMPARE(insertAttempt(db, QStringLiteral("pay:attempt"), QStringLiteral("UNKNOWN")), QString()); // 120 s ago
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:early"), QStringLiteral("NOT_FOUND"), 200), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:unusable"), QStringLiteral("NOT_FOUND"), 100), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:unusable"), QStringLiteral("UNUSABLE"), 50), QString());
    auto auditIdOf = [&](const QString &key, const QString &classification) {
        return db.adminQueryColumn(QStringLiteral("SELECT id FROM triage_audit WHERE idem_key = '%1' AND reason = 'upstream %2'")
                                       .arg(key, classification))
            .value(0);
    };
    const int queries = count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit"));
    QCOMPARE(queries, 7);

    auto mark = [&](const QString &key) { return markRecord(ws, request(key, Failed)).result(); };
    const QString prefix = QStringLiteral("FAILED means \"confirmed no side effect\" (DESIGN.md §6), but ");
    const QString hint = QStringLiteral("; query the upstream for a fresh answer, or use --override with a reason of at least 20 "
                                        "characters if you are sure");

    // No upstream configured, nothing recorded (§6 row 8): refused and audited.
    auto none = mark(QStringLiteral("pay:none"));
    QCOMPARE(markKindName(none->kind), QStringLiteral("refused"));
    QCOMPARE(none->message, prefix + QStringLiteral("no proof of absence: no upstream answer is recorded for the key and its "
                                                    "biz_type has no upstream query API configured (upstream_query_url); declare "
                                                    "failed_evidence = ticket_absent if this biz_type's side effect is the ticket "
                                                    "row, or use --override with a reason of at least 20 characters if you are sure"));
    QVERIFY(none->auditId > 0);
    // A fresh NOT_FOUND recorded after updated_at + timeout and after every attempt: applied.
    auto fresh = mark(QStringLiteral("pay:fresh"));
    QCOMPARE(markKindName(fresh->kind), QStringLiteral("applied"));
    QVERIFY2(fresh->message.startsWith(QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded ")),
             qPrintable(fresh->message));
    QVERIFY2(fresh->message.contains(QStringLiteral("(audit #%1, ").arg(auditIdOf(QStringLiteral("pay:fresh"), QStringLiteral("NOT_FOUND")))),
             qPrintable(fresh->message));
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE idem_key = 'pay:fresh' AND action = 'mark_failed'"))
                .value(0)
                .contains(QStringLiteral("\"answer\":\"NOT_FOUND\"")));
    // Older than failed_evidence_max_age: refused.
    auto old = mark(QStringLiteral("pay:old"));
    QCOMPARE(markKindName(old->kind), QStringLiteral("refused"));
    QVERIFY2(old->message.contains(QStringLiteral("is 20m 0s old, older than failed_evidence_max_age (900 s): query the upstream again"))
                 || old->message.contains(QStringLiteral("is 20m 1s old, older than failed_evidence_max_age (900 s)")),
             qPrintable(old->message));
    // Obtained before the key's latest intent attempt: refused.
    auto attempt = mark(QStringLiteral("pay:attempt"));
    QCOMPARE(markKindName(attempt->kind), QStringLiteral("refused"));
    QVERIFY2(attempt->message.contains(QStringLiteral("was obtained before the key's latest intent attempt")), qPrintable(attempt->message));
    // Obtained before updated_at + processing_timeout: refused.
    auto early = mark(QStringLiteral("pay:early"));
    QCOMPARE(markKindName(early->kind), QStringLiteral("refused"));
    QVERIFY2(early->message.contains(QStringLiteral("was obtained before updated_at + processing_timeout")), qPrintable(early->message));
    // The latest answer counts: a NOT_FOUND followed by an UNUSABLE proves nothing now.
    auto unusable = mark(QStringLiteral("pay:unusable"));
    QCOMPARE(markKindName(unusable->kind), QStringLiteral("refused"));
    QVERIFY2(unusable->message.contains(QStringLiteral("is UNUSABLE, not a definitive NOT_FOUND")), qPrintable(unusable->message));
    // failed_evidence = ticket_absent: stale and no ticket, no query needed.
    auto gone = mark(QStringLiteral("ticket:create:acme:gone"));
    QCOMPARE(markKindName(gone->kind), QStringLiteral("applied"));
    QCOMPARE(gone->message, QStringLiteral("PROCESSING → FAILED allowed: failed_evidence = ticket_absent: stale and no ticket carries the key"));

    const QString pending = stored(db, {QStringLiteral("0")}).first(), failed = stored(db, {QStringLiteral("2")}).first();
    QCOMPARE(storedKeyStatuses(db),
             (QStringList{QStringLiteral("pay:attempt:") + pending, QStringLiteral("pay:early:") + pending,
                          QStringLiteral("pay:fresh:") + failed, QStringLiteral("pay:none:") + pending, QStringLiteral("pay:old:") + pending,
                          QStringLiteral("pay:unusable:") + pending, QStringLiteral("ticket:create:acme:gone:") + failed}));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'refused'")), 5);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 2);

    // The override sets aside missing evidence (reason >= 20 characters), audited as an override.
    MarkRequest o = request(QStringLiteral("pay:none"), Failed, QStringLiteral("processor confirms no capture for this order"));
    o.override = true;
    const auto overridden = markRecord(ws, o).result();
    QCOMPARE(markKindName(overridden->kind), QStringLiteral("applied"));
    const QString missing = QStringLiteral("no proof of absence: no upstream answer is recorded for the key and its biz_type has no "
                                           "upstream query API configured (upstream_query_url)");
    QCOMPARE(overridden->message, QStringLiteral("PROCESSING → FAILED allowed (override: %1)").arg(missing));
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE idem_key = 'pay:none' AND outcome = 'applied'"))
                .value(0)
                .contains(QStringLiteral("\"override\":\"%1\"").arg(missing)));
    // It never sets aside an upstream FOUND.
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("pay:old"), QStringLiteral("FOUND"), 10), QString());
    MarkRequest found = request(QStringLiteral("pay:old"), Failed, QStringLiteral("processor confirms no capture for this order"));
    found.override = true;
    const auto foundOut = markRecord(ws, found).result();
    QString foundAt;
    for (const AuditEntry &a : loadKeyDetail(ws, QStringLiteral("pay:old")).result().audit)
        if (a.reason == QLatin1String("upstream FOUND"))
            foundAt = a.at;
    QVERIFY(!foundAt.isEmpty());
    QCOMPARE(markKindName(foundOut->kind), QStringLiteral("refused"));
    QCOMPARE(foundOut->message,
             prefix
                 + QStringLiteral("the latest recorded upstream answer (audit #%1, %2) is FOUND (the side effect happened); "
                                  "--override sets aside only missing evidence or an open escalation, never evidence that the "
                                  "side effect happened or a record that is not stale")
                       .arg(auditIdOf(QStringLiteral("pay:old"), QStringLiteral("FOUND")), foundAt));

    // Bulk: each row on its own verdict; no override in bulk.
    for (const QString &k : {QStringLiteral("bulk:a"), QStringLiteral("bulk:b")})
        QCOMPARE(insertRecord(db, k, Processing, 3600, payBiz), QString());
    QCOMPARE(insertUpstreamAnswer(db, QStringLiteral("bulk:b"), QStringLiteral("NOT_FOUND"), 30), QString());
    QVector<MarkRequest> bulk{request(QStringLiteral("bulk:a"), Failed, QStringLiteral("processor confirms no capture at all")),
                              request(QStringLiteral("bulk:b"), Failed, QStringLiteral("processor confirms no capture at all"))};
    bulk[0].override = bulk[1].override = true;
    const auto results = markRecords(ws, bulk).result();
    QCOMPARE(results.size(), 2);
    QCOMPARE(markKindName(results[0]->kind), QStringLiteral("refused"));
    QCOMPARE(results[0]->message,
             prefix + QStringLiteral("no proof of absence: no upstream answer is recorded for the key and its biz_type has no "
                                     "upstream query API configured (upstream_query_url); a bulk FAILED applies only where the verdict is FAILED "
                                     "(override one key at a time)"));
    QCOMPARE(markKindName(results[1]->kind), QStringLiteral("applied"));
    QVERIFY(results[0]->auditId > 0);
}

void TestMark::dryRunWritesNothing()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    QCOMPARE(insertRecord(db, QStringLiteral("k-ticket"), Processing, 3600), QString());
    QCOMPARE(insertTicket(db, 7, QStringLiteral("k-ticket"), kPayload), QString());
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("k1")).result();
    // A conflict in a dry run: reported (exit 3 in the CLI), nothing written.
    MarkRequest conflict = request(QStringLiteral("k1"), Failed);
    conflict.dryRun = true;
    conflict.expect = ExpectedState{Processing, parseUtcMicros(QStringLiteral("2020-01-01T00:00:00.000000Z")), std::nullopt};
    const auto c = markRecord(ws, conflict).result();
    QCOMPARE(markKindName(c->kind), QStringLiteral("conflict"));
    QCOMPARE(c->auditId, 0);
    // A refusal in a dry run: reported, nothing written.
    MarkRequest refused = request(QStringLiteral("k-ticket"), Failed);
    refused.dryRun = true;
    const auto r = markRecord(ws, refused).result();
    QCOMPARE(markKindName(r->kind), QStringLiteral("refused"));
    QCOMPARE(r->auditId, 0);
    // Read-only mode allows a dry run: decided, nothing written.
    WorkspaceConfig roConfig = ticketAbsentConfig(db.config());
    roConfig.readOnly = true;
    Workspace ro(roConfig);
    MarkRequest dry = request(QStringLiteral("k1"), Failed);
    dry.dryRun = true;
    dry.expect = expectedStateOf(*seen.record);
    const auto d = markRecord(ro, dry).result();
    QCOMPARE(markKindName(d->kind), QStringLiteral("dry-run"));
    QCOMPARE(d->message, QStringLiteral("would mark PROCESSING → FAILED if the record still has status PROCESSING, updated_at %1")
                             .arg(seen.record->updatedAt));
    const auto bulk = markRecords(ro, {dry}).result();
    QCOMPARE(markKindName(bulk.value(0)->kind), QStringLiteral("dry-run"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 0);
    QCOMPARE(storedStatuses(db), stored(db, {QStringLiteral("0"), QStringLiteral("0")}));
}

void TestMark::snapshotFromTicket()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    QCOMPARE(insertTicket(db, 41, QStringLiteral("k1"), payloadOf(db)), QString());
    QCOMPARE(insertTicket(db, 99, QStringLiteral("k-other"), ticketIdPayload(db, 99)), QString());
    MarkRequest wrong = request(db, QStringLiteral("k1"), Success);
    wrong.snapshot.reset();
    wrong.snapshotFromTicket = ticketIdOf(db, 99);
    const auto w = markRecord(ws, wrong).result();
    QCOMPARE(markKindName(w->kind), QStringLiteral("refused"));
    QCOMPARE(w->message, QStringLiteral("ticket #%1 does not carry this key: a SUCCESS snapshot comes only from a ticket of the key")
                             .arg(ticketIdText(db, 99)));
    QVERIFY(w->auditId > 0);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action FROM triage_audit WHERE outcome = 'refused' AND idem_key = 'k1'")),
             QStringList{QStringLiteral("mark_success")});
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE idem_key = 'k1'"))
                .value(0)
                .contains(QStringLiteral("\"snapshot_source\":\"ticket:%1\"").arg(ticketIdText(db, 99))));
    MarkRequest right = request(db, QStringLiteral("k1"), Success);
    right.snapshot.reset();
    right.snapshotFromTicket = ticketIdOf(db, 41);
    const auto ok = markRecord(ws, right).result();
    QCOMPARE(markKindName(ok->kind), QStringLiteral("applied"));
    // The ticket's payload byte-exact as the ticket table holds it (JSONB's own text on PostgreSQL/shop).
    QCOMPARE(*ok->current->resultSnapshot, storedPayloadText(db, payloadOf(db)));
}

void TestMark::auditActionNames()
{
    // One spelling: snake_case, verb first.
    const QRegularExpression snake(QStringLiteral("^[a-z]+(_[a-z]+)*$"));
    for (const char16_t *a : {audit_action::MarkSuccess, audit_action::MarkFailed, audit_action::QueryUpstream,
                              audit_action::Compensate, audit_action::CompensateResume})
        QVERIFY2(snake.match(QString::fromUtf16(a)).hasMatch(), qPrintable(QString::fromUtf16(a)));
    QCOMPARE(QString::fromUtf16(audit_action::CompensateResume), QStringLiteral("compensate_resume"));
    // Rows written with the old spelling read in today's.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, reason, outcome) "
                                         "VALUES ('old-1', %1, 'alice', 'compensate-resume', 'k1', 'resumed after timeout', 'applied')")
                              .arg(serverNowMinus(backend, 60))),
             QString());
    AuditQuery q;
    q.idemKey = QStringLiteral("k1");
    const auto rows = readAudit(ws, q).result();
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), 1);
    QCOMPARE(rows->first().action, QStringLiteral("compensate_resume"));
    QCOMPARE(canonicalAuditAction(QStringLiteral("Mark-Failed")), QStringLiteral("mark_failed"));
}

void TestMark::atomicity()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws)); // on a shop row the shop tables first (BackendTestUtil.h)
    QCOMPARE(insertRecord(db, QStringLiteral("k1"), Processing, 3600), QString());
    const QString before = storedUpdatedAt(db);
    // A reason longer than the audit column (1000): the audit insert fails, the UPDATE is rolled back.
    const auto out = markRecord(ws, request(QStringLiteral("k1"), Failed, QString(1001, QLatin1Char('r')))).result();
    QVERIFY(!out.ok());
    QCOMPARE(out.error->role, DbRole::Idempotency);
    QCOMPARE(storedStatuses(db), stored(db, {QStringLiteral("0")}));
    QCOMPARE(storedUpdatedAt(db), before);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 0);
    // The connection stays usable.
    const auto ok = markRecord(ws, request(QStringLiteral("k1"), Failed)).result();
    QVERIFY2(ok.ok(), ok.ok() ? "" : qPrintable(ok.error->message));
    QCOMPARE(markKindName(ok->kind), QStringLiteral("applied"));
}

QTEST_GUILESS_MAIN(TestMark)
#include "tst_mark.moc"
