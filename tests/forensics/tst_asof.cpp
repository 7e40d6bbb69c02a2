// "As of T" for one key (DESIGN.md §7 "As of T"): each rule on hand-built histories with exact
// expected states, the cases where nothing may be invented, ties at exactly T (inclusive), and
// one key read through loadKeyDetail() on every backend and both shapes.
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "AsOf.h"
#include "KeyDetail.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

/// "<basis> <stateAtT or -> <stateNow>" per item of `part`.
QStringList states(const KeyStateAsOf &s, AsOfPart part)
{
    QStringList out;
    for (const AsOfItem &i : s.sections[int(part)].items)
        out << QStringLiteral("%1 %2 %3 %4").arg(i.ref, asOfBasisName(i.basis), i.stateAtT.value_or(QStringLiteral("-")), i.stateNow);
    return out;
}

/// A record created at `createdS` and last written at `updatedS` (s after the base), now `status`.
KeyDetail withRecord(qint64 createdS, qint64 updatedS, const QString &status)
{
    KeyDetail d;
    d.idemKey = QStringLiteral("k:x");
    RecordDetail r;
    r.id = 9;
    r.idemKey = d.idemKey;
    r.statusText = status;
    r.createdAt = iso(createdS * 1000);
    r.updatedAt = iso(updatedS * 1000);
    d.record = r;
    return d;
}

AuditEntry mark(qint64 id, qint64 atS, const QString &outcome, const QString &from, const QString &to, const QString &action = QStringLiteral("mark_success"))
{
    AuditEntry a;
    a.id = id;
    a.at = iso(atS * 1000);
    a.operatorName = QStringLiteral("alice");
    a.action = action;
    a.idemKey = QStringLiteral("k:x");
    a.fromState = from;
    a.toState = to;
    a.outcome = outcome;
    return a;
}

QString state(const QString &status, qint64 updatedS)
{
    return QStringLiteral("{\"status\":\"%1\",\"status_code\":0,\"updated_at\":\"%2\",\"version\":null}").arg(status, iso(updatedS * 1000));
}

IntentAttempt attempt(qint64 id, qint64 createdS, const std::optional<qint64> &updatedS, const QString &status)
{
    IntentAttempt a;
    a.id = id;
    a.taskId = QStringLiteral("t1");
    a.stepId = QStringLiteral("s1");
    a.action = QStringLiteral("create_ticket");
    a.status = status;
    a.createdAt = iso(createdS * 1000);
    a.updatedAt = updatedS ? iso(*updatedS * 1000) : QString();
    return a;
}

TicketRow ticketRow(int id, qint64 createdS, const std::optional<qint64> &updatedS, const QString &status)
{
    TicketRow t;
    t.id = BusinessId::fromInteger(id);
    t.status = status;
    t.createdAt = iso(createdS * 1000);
    t.hasUpdatedAtColumn = updatedS.has_value();
    if (updatedS)
        t.updatedAt = iso(*updatedS * 1000);
    return t;
}

UtcMicros sec(qint64 s)
{
    return at(s * 1000);
}

} // namespace

class TestAsOf : public QObject {
    Q_OBJECT
private slots:
    void record_notYetCreated();
    void record_unchangedSinceLastWrite_tieAtTIsInclusive();
    void record_writtenAfterT_notRecorded();
    void record_markBeforeT_isNamedNeverTaken();
    void record_appliedMarkAfterT_sawItUnchanged();
    void record_none_and_failedStore();
    void attempts_resultOnlyWhenWrittenByT();
    void attempts_nullStatusIsNull();
    void tickets_statusOnlyWhenEstablished();
    void audit_upToTInclusive();
    void compensations_andTheirAttempts();
    void textLines();

    void realKey_data();
    void realKey();
};

void TestAsOf::record_notYetCreated()
{
    const KeyStateAsOf s = keyStateAsOf(withRecord(200, 300, QStringLiteral("SUCCESS")), sec(199));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 not_yet - SUCCESS")});
    QCOMPARE(s.sections[0].summary, QStringLiteral("not created yet"));
    QCOMPARE(s.sections[0].items[0].text,
             QStringLiteral("no record yet: created at 2026-01-01T00:03:20.000000Z, after T; now SUCCESS"));
}

void TestAsOf::record_unchangedSinceLastWrite_tieAtTIsInclusive()
{
    const KeyDetail d = withRecord(100, 150, QStringLiteral("SUCCESS"));
    // Created exactly at T: it exists; last written exactly at T: its current status held at T.
    QCOMPARE(states(keyStateAsOf(withRecord(100, 100, QStringLiteral("PROCESSING")), sec(100)), AsOfPart::Record),
             QStringList{QStringLiteral("record 9 unchanged PROCESSING PROCESSING")});
    const KeyStateAsOf s = keyStateAsOf(d, sec(150));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 unchanged SUCCESS SUCCESS")});
    QCOMPARE(s.sections[0].summary, QStringLiteral("status at T: SUCCESS"));
    QCOMPARE(s.sections[0].items[0].text, QStringLiteral("SUCCESS: last written at 2026-01-01T00:02:30.000000Z, not after T "
                                                         "(created at 2026-01-01T00:01:40.000000Z)"));
    // One microsecond earlier it was written after T: not recorded.
    QCOMPARE(states(keyStateAsOf(d, sec(150) - 1), AsOfPart::Record), QStringList{QStringLiteral("record 9 not_recorded - SUCCESS")});
}

void TestAsOf::record_writtenAfterT_notRecorded()
{
    const KeyStateAsOf s = keyStateAsOf(withRecord(100, 300, QStringLiteral("SUCCESS")), sec(200));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 not_recorded - SUCCESS")});
    QCOMPARE(s.sections[0].summary, QStringLiteral("status at T not recorded"));
    QCOMPARE(s.sections[0].items[0].text,
             QStringLiteral("status not recorded before 2026-01-01T00:05:00.000000Z (the record's last write, after T; the table "
                            "keeps only the current state); now SUCCESS (created at 2026-01-01T00:01:40.000000Z)"));
}

void TestAsOf::record_markBeforeT_isNamedNeverTaken()
{
    // alice marked FAILED at 150 s; the record was written again at 300 s (an agent retook it):
    // between 150 s and T = 200 s anything may have happened, so FAILED is not the state at T.
    KeyDetail d = withRecord(100, 300, QStringLiteral("SUCCESS"));
    d.audit << mark(7, 150, QStringLiteral("applied"), state(QStringLiteral("PROCESSING"), 100), state(QStringLiteral("FAILED"), 150),
                    QStringLiteral("mark_failed"))
            << mark(8, 160, QStringLiteral("conflict"), state(QStringLiteral("FAILED"), 150), state(QStringLiteral("SUCCESS"), 160));
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 not_recorded - SUCCESS")});
    QCOMPARE(s.sections[0].items[0].text,
             QStringLiteral("status not recorded before 2026-01-01T00:05:00.000000Z (the record's last write, after T; the table "
                            "keeps only the current state); now SUCCESS; last recorded change before T: alice's mark_failed to "
                            "FAILED at 2026-01-01T00:02:30.000000Z (audit 7) (created at 2026-01-01T00:01:40.000000Z)"));
}

void TestAsOf::record_appliedMarkAfterT_sawItUnchanged()
{
    KeyDetail d = withRecord(100, 300, QStringLiteral("SUCCESS"));
    // A conflict after T proves nothing (its from-state was the operator's expectation), nor a
    // from-state last written after T; the applied mark at 300 s found PROCESSING unchanged since 100 s.
    d.audit << mark(5, 250, QStringLiteral("conflict"), state(QStringLiteral("FAILED"), 120), state(QStringLiteral("SUCCESS"), 250))
            << mark(6, 300, QStringLiteral("applied"), state(QStringLiteral("PROCESSING"), 100), state(QStringLiteral("SUCCESS"), 300));
    KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 seen_by_mark PROCESSING SUCCESS")});
    QCOMPARE(s.sections[0].summary, QStringLiteral("status at T: PROCESSING"));
    QCOMPARE(s.sections[0].items[0].text,
             QStringLiteral("PROCESSING: unchanged from 2026-01-01T00:01:40.000000Z until alice's mark_success at "
                            "2026-01-01T00:05:00.000000Z found it so (audit 6); now SUCCESS (created at 2026-01-01T00:01:40.000000Z)"));
    // Before the from-state's last write: not established.
    d.audit.last().fromState = state(QStringLiteral("PROCESSING"), 210);
    s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record 9 not_recorded - SUCCESS")});
}

void TestAsOf::record_none_and_failedStore()
{
    KeyDetail d;
    d.idemKey = QStringLiteral("k:x");
    KeyStateAsOf s = keyStateAsOf(d, sec(100));
    QCOMPARE(s.sections[0].summary, QStringLiteral("none (no idempotency_record has this key)"));
    QCOMPARE(s.sections[0].items.size(), 0);
    QCOMPARE(s.sections[2].summary, QStringLiteral("none at T"));
    d.errors.insert(DbRole::Idempotency, DbError{DbRole::Idempotency, DbError::Kind::Connection, QStringLiteral("connection refused"), QString()});
    d.errors.insert(DbRole::Ticket, DbError{DbRole::Ticket, DbError::Kind::Connection, QStringLiteral("timeout"), QString()});
    s = keyStateAsOf(d, sec(100));
    QCOMPARE(s.sections[0].summary, QStringLiteral("unknown (idempotency database failed: connection refused)"));
    QCOMPARE(s.sections[0].unknown, true);
    QCOMPARE(s.sections[3].summary, QStringLiteral("unknown (idempotency database failed: connection refused)"));
    QCOMPARE(s.sections[2].summary, QStringLiteral("unknown (ticket database failed: timeout)"));
    QCOMPARE(s.sections[1].unknown, false);
}

void TestAsOf::attempts_resultOnlyWhenWrittenByT()
{
    KeyDetail d = withRecord(100, 100, QStringLiteral("PROCESSING"));
    d.attempts << attempt(1, 100, 120, QStringLiteral("SUCCEEDED"))  // result at 120 s
               << attempt(2, 150, 250, QStringLiteral("UNKNOWN"))    // in flight at T, written again after
               << attempt(3, 200, 200, QStringLiteral("INTENT"))     // created exactly at T
               << attempt(4, 200, std::nullopt, QStringLiteral("FAILED")) // no result time
               << attempt(5, 201, 201, QStringLiteral("INTENT"));    // after T
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::IntentLog), (QStringList{QStringLiteral("attempt 1 unchanged SUCCEEDED SUCCEEDED"),
                                                          QStringLiteral("attempt 2 not_recorded - UNKNOWN"),
                                                          QStringLiteral("attempt 3 unchanged INTENT INTENT"),
                                                          QStringLiteral("attempt 4 not_recorded - FAILED")}));
    QCOMPARE(s.sections[1].summary, QStringLiteral("4 attempts at T (1 created after T)"));
    QCOMPARE(s.sections[1].later, 1);
    QCOMPARE(s.sections[1].items[0].text, QStringLiteral("attempt 1 create_ticket (task t1 step s1) at 2026-01-01T00:01:40.000000Z: "
                                                         "SUCCEEDED (last written at 2026-01-01T00:02:00.000000Z, not after T)"));
    QCOMPARE(s.sections[1].items[1].text, QStringLiteral("attempt 2 create_ticket (task t1 step s1) at 2026-01-01T00:02:30.000000Z: "
                                                         "status at T not recorded (last written at 2026-01-01T00:04:10.000000Z, "
                                                         "after T); now UNKNOWN"));
    QCOMPARE(s.sections[1].items[3].text, QStringLiteral("attempt 4 create_ticket (task t1 step s1) at 2026-01-01T00:03:20.000000Z: "
                                                         "status at T not recorded (last written at NULL, not a readable time); now FAILED"));
}

void TestAsOf::attempts_nullStatusIsNull()
{
    // An attempt whose status is SQL NULL: "NULL" in the text (as `show` prints it), a null
    // QString in stateNow and stateAtT (JSON null), never the text "NULL" as a status.
    KeyDetail d = withRecord(100, 100, QStringLiteral("PROCESSING"));
    d.attempts << attempt(1, 100, 120, QString()) << attempt(2, 150, 250, QString());
    d.attempts[0].status = std::nullopt;
    d.attempts[1].status = std::nullopt;
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    const AsOfItem &written = s.sections[1].items[0];
    QCOMPARE(written.basis, AsOfBasis::Unchanged);
    QVERIFY(written.stateAtT.has_value());
    QVERIFY(written.stateAtT->isNull());
    QVERIFY(written.stateNow.isNull());
    QCOMPARE(written.text, QStringLiteral("attempt 1 create_ticket (task t1 step s1) at 2026-01-01T00:01:40.000000Z: "
                                          "NULL (last written at 2026-01-01T00:02:00.000000Z, not after T)"));
    const AsOfItem &later = s.sections[1].items[1];
    QCOMPARE(later.basis, AsOfBasis::NotRecorded);
    QVERIFY(!later.stateAtT);
    QVERIFY(later.stateNow.isNull());
    QCOMPARE(later.text, QStringLiteral("attempt 2 create_ticket (task t1 step s1) at 2026-01-01T00:02:30.000000Z: "
                                        "status at T not recorded (last written at 2026-01-01T00:04:10.000000Z, after T); now NULL"));
}

void TestAsOf::tickets_statusOnlyWhenEstablished()
{
    KeyDetail d = withRecord(100, 100, QStringLiteral("PROCESSING"));
    d.tickets << ticketRow(1, 100, 100, QStringLiteral("OPEN"))          // never changed
              << ticketRow(2, 150, 300, QStringLiteral("CANCELLED"))     // cancelled after T
              << ticketRow(3, 120, std::nullopt, QStringLiteral("OPEN")) // the table has no updated_at
              << ticketRow(4, 250, 250, QStringLiteral("OPEN"));         // after T
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::Tickets), (QStringList{QStringLiteral("ticket 1 unchanged OPEN OPEN"),
                                                        QStringLiteral("ticket 2 not_recorded - CANCELLED"),
                                                        QStringLiteral("ticket 3 not_recorded - OPEN")}));
    QCOMPARE(s.sections[2].summary, QStringLiteral("3 tickets at T (1 created after T)"));
    QCOMPARE(s.sections[2].items[2].text, QStringLiteral("ticket 3 created at 2026-01-01T00:02:00.000000Z: status at T not recorded "
                                                         "(the table keeps no last-written time); now OPEN"));
}

void TestAsOf::audit_upToTInclusive()
{
    KeyDetail d = withRecord(100, 100, QStringLiteral("PROCESSING"));
    AuditEntry q = mark(1, 100, QStringLiteral("recorded"), QString(), QString(), QStringLiteral("query_upstream"));
    d.audit << q << mark(2, 200, QStringLiteral("refused"), state(QStringLiteral("PROCESSING"), 100), state(QStringLiteral("FAILED"), 200),
                         QStringLiteral("mark-failed"))
            << mark(3, 201, QStringLiteral("applied"), state(QStringLiteral("PROCESSING"), 100), state(QStringLiteral("SUCCESS"), 201));
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::OperatorActions), (QStringList{QStringLiteral("audit 1 written recorded recorded"),
                                                                QStringLiteral("audit 2 written refused refused")}));
    QCOMPARE(s.sections[3].summary, QStringLiteral("2 actions at T (1 created after T)"));
    QCOMPARE(s.sections[3].items[1].text, QStringLiteral("audit 2 at 2026-01-01T00:03:20.000000Z: alice mark_failed refused to FAILED"));
    QCOMPARE(s.sections[3].items[0].text, QStringLiteral("audit 1 at 2026-01-01T00:01:40.000000Z: alice query_upstream recorded"));
}

void TestAsOf::compensations_andTheirAttempts()
{
    KeyDetail d = withRecord(100, 100, QStringLiteral("SUCCESS"));
    auto comp = [](qint64 id, const QString &key, qint64 createdS, qint64 updatedS, const QString &status) {
        CompensationRow c;
        c.id = id;
        c.compKey = key;
        c.action = QStringLiteral("cancel");
        c.target = QStringLiteral("2");
        c.operatorName = QStringLiteral("bob");
        c.status = status;
        c.createdAt = iso(createdS * 1000);
        c.updatedAt = iso(updatedS * 1000);
        return c;
    };
    auto att = [](qint64 id, const QString &key, const QString &kind, qint64 atS, const QString &cls) {
        CompensationAttemptRow a;
        a.id = id;
        a.compKey = key;
        a.kind = kind;
        a.at = iso(atS * 1000);
        a.classification = cls;
        return a;
    };
    d.compensations << comp(1, QStringLiteral("comp:a"), 110, 130, QStringLiteral("SUCCEEDED"))
                    << comp(2, QStringLiteral("comp:b"), 150, 260, QStringLiteral("UNKNOWN"))
                    << comp(3, QStringLiteral("comp:c"), 250, 250, QStringLiteral("INTENT"));
    d.compensationAttempts << att(1, QStringLiteral("comp:a"), QStringLiteral("send"), 120, QStringLiteral("SUCCEEDED"))
                           << att(2, QStringLiteral("comp:b"), QStringLiteral("send"), 160, QStringLiteral("UNKNOWN"))
                           << att(3, QStringLiteral("comp:b"), QStringLiteral("confirm"), 200, QStringLiteral("ABSENT"))
                           << att(4, QStringLiteral("comp:b"), QStringLiteral("send"), 200, QStringLiteral("IN_FLIGHT"))
                           << att(5, QStringLiteral("comp:b"), QStringLiteral("confirm"), 255, QStringLiteral("ABSENT"));
    const KeyStateAsOf s = keyStateAsOf(d, sec(200));
    QCOMPARE(states(s, AsOfPart::Compensations), (QStringList{QStringLiteral("compensation 1 unchanged SUCCEEDED SUCCEEDED"),
                                                              QStringLiteral("compensation attempt 1 unchanged SUCCEEDED SUCCEEDED"),
                                                              QStringLiteral("compensation 2 not_recorded - UNKNOWN"),
                                                              QStringLiteral("compensation attempt 2 not_recorded - UNKNOWN"),
                                                              QStringLiteral("compensation attempt 3 written ABSENT ABSENT"),
                                                              QStringLiteral("compensation attempt 4 unchanged IN_FLIGHT IN_FLIGHT")}));
    QCOMPARE(s.sections[4].summary, QStringLiteral("2 compensations at T (1 created after T)"));
    QCOMPARE(s.sections[4].items[3].text, QStringLiteral("  compensation attempt 2 send at 2026-01-01T00:02:40.000000Z: reply at T "
                                                         "not recorded (its time is not kept); now UNKNOWN"));
}

void TestAsOf::textLines()
{
    KeyDetail d = withRecord(100, 300, QStringLiteral("SUCCESS"));
    d.attempts << attempt(1, 100, 120, QStringLiteral("UNKNOWN"));
    d.tickets << ticketRow(1, 250, 250, QStringLiteral("OPEN"));
    QCOMPARE(asOfTextLines(keyStateAsOf(d, sec(200))),
             (QStringList{QStringLiteral("As of 2026-01-01T00:03:20.000000Z (UTC, inclusive): k:x"),
                          QStringLiteral("Record: status at T not recorded"),
                          QStringLiteral("  status not recorded before 2026-01-01T00:05:00.000000Z (the record's last write, after T; "
                                         "the table keeps only the current state); now SUCCESS (created at 2026-01-01T00:01:40.000000Z)"),
                          QStringLiteral("Intent log: 1 attempt at T"),
                          QStringLiteral("  attempt 1 create_ticket (task t1 step s1) at 2026-01-01T00:01:40.000000Z: UNKNOWN (last "
                                         "written at 2026-01-01T00:02:00.000000Z, not after T)"),
                          QStringLiteral("Tickets: none at T (1 created after T)"),
                          QStringLiteral("Operator actions: none at T"),
                          QStringLiteral("Compensations: none at T")}));
}

void TestAsOf::realKey_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, true);
}

void TestAsOf::realKey()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    // An applied mark at 00:05:00 that found k:a SUCCESS since 00:02:30 (the fixture's audit row
    // at 00:02:30 is not a JSON state: it names no status).
    TRIAGE_OK(db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, from_state, "
                                          "to_state, reason, outcome) VALUES ('r-2', %1, 'bob', 'mark_success', 'k:a', %2, %2, "
                                          "'checked again', 'applied')")
                               .arg(ts(db, 300000), textLiteral(db, state(QStringLiteral("SUCCESS"), 150)))));
    Workspace ws(db.config());
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("k:a")).result();
    QVERIFY2(d.errors.isEmpty(), d.errors.isEmpty() ? "" : qPrintable(d.errors.first().message));
    const QString open = db.isShop() ? *shopTicketStatus(QStringLiteral("OPEN")) : QStringLiteral("OPEN");
    const QString ticketId = db.isShop() ? shopOrderId(1) : QStringLiteral("1");
    // At 00:02:00: created, written again at 00:02:30 → not recorded; the attempt and the ticket
    // were last written at 00:01:40; no operator action yet.
    KeyStateAsOf s = keyStateAsOf(d, at(120000));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record %1 not_recorded - SUCCESS").arg(d.record->id)});
    QCOMPARE(states(s, AsOfPart::IntentLog), QStringList{QStringLiteral("attempt %1 unchanged UNKNOWN UNKNOWN").arg(d.attempts[0].id)});
    QCOMPARE(states(s, AsOfPart::Tickets), QStringList{QStringLiteral("ticket %1 unchanged %2 %2").arg(ticketId, open)});
    QCOMPARE(s.sections[3].summary, QStringLiteral("none at T (2 created after T)"));
    // At 00:02:30 exactly: the record's last write and alice's mark count (inclusive).
    s = keyStateAsOf(d, at(150000));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record %1 unchanged SUCCESS SUCCESS").arg(d.record->id)});
    QCOMPARE(states(s, AsOfPart::OperatorActions), QStringList{QStringLiteral("audit %1 written applied applied").arg(d.audit[0].id)});
    QCOMPARE(s.sections[3].summary, QStringLiteral("1 action at T (1 created after T)"));
    QCOMPARE(s.sections[4].summary, QStringLiteral("none at T"));
    // A compensation of k:a (intent-log database) started at 00:02:40 and last written at
    // 00:03:00: its call at 00:02:50 and a confirmation at 00:03:10, read by loadKeyDetail().
    TRIAGE_OK(db.adminExec(QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, "
                                          "status, attempts, operator, reason, created_at, updated_at) VALUES ('comp:cancel:2:k:a', "
                                          "'k:a', 'ticket_create', 'cancel', '2', '{}', 'SUCCEEDED', 1, 'bob', 'duplicate ticket', %1, %2)")
                               .arg(ts(db, 160000), ts(db, 180000))));
    TRIAGE_OK(db.adminExec(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, classification) "
                                          "VALUES ('comp:cancel:2:k:a', 'send', %1, 200, 'SUCCEEDED'), "
                                          "('comp:cancel:2:k:a', 'confirm', %2, 200, 'CONFIRMED')")
                               .arg(ts(db, 170000), ts(db, 190000))));
    const KeyDetail withComp = loadKeyDetail(ws, QStringLiteral("k:a")).result();
    QVERIFY(withComp.errors.isEmpty());
    QCOMPARE(withComp.compensationAttempts.size(), 2);
    s = keyStateAsOf(withComp, at(175000));
    QCOMPARE(states(s, AsOfPart::Compensations), (QStringList{QStringLiteral("compensation %1 not_recorded - SUCCEEDED").arg(withComp.compensations[0].id),
                                                              QStringLiteral("compensation attempt %1 not_recorded - SUCCEEDED")
                                                                  .arg(withComp.compensationAttempts[0].id)}));
    s = keyStateAsOf(withComp, at(190000));
    QCOMPARE(states(s, AsOfPart::Compensations), (QStringList{QStringLiteral("compensation %1 unchanged SUCCEEDED SUCCEEDED").arg(withComp.compensations[0].id),
                                                              QStringLiteral("compensation attempt %1 unchanged SUCCEEDED SUCCEEDED")
                                                                  .arg(withComp.compensationAttempts[0].id),
                                                              QStringLiteral("compensation attempt %1 written CONFIRMED CONFIRMED")
                                                                  .arg(withComp.compensationAttempts[1].id)}));
    QCOMPARE(s.sections[4].items[0].text, QStringLiteral("compensation %1 cancel of ticket 2 by bob at 2026-01-01T00:02:40.000000Z: "
                                                         "SUCCEEDED (last written at 2026-01-01T00:03:00.000000Z, not after T)")
                                              .arg(withComp.compensations[0].id));

    // Before the record: not yet; the attempt and the ticket did not exist either.
    s = keyStateAsOf(d, at(99999));
    QCOMPARE(states(s, AsOfPart::Record), QStringList{QStringLiteral("record %1 not_yet - SUCCESS").arg(d.record->id)});
    QCOMPARE(s.sections[1].summary, QStringLiteral("none at T (1 created after T)"));
    QCOMPARE(s.sections[2].summary, QStringLiteral("none at T (1 created after T)"));
}

QTEST_GUILESS_MAIN(TestAsOf)
#include "tst_asof.moc"
