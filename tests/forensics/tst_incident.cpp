// The incident service (DESIGN.md §7 "Incidents") on every backend, PgBouncer included: the
// checks' exact messages, a pin's event read from its own store (and gone when its row is),
// the stored filters read back, and the console schema version (DESIGN.md §10): a database
// without the incident tables says to run init-schema, a newer one refuses every change.
#include "BackendTestUtil.h"
#include "WindowFixture.h"

#include "ConsoleSchema.h"
#include "Incident.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

class TestIncident : public QObject {
    Q_OBJECT
private slots:
    void checks();
    void pinsAndFilters_data();
    void pinsAndFilters();
    void schemaVersion_data();
    void schemaVersion();
};

void TestIncident::checks()
{
    WindowQuery q = window();
    QCOMPARE(checkIncidentDraft(QStringLiteral("Outage"), q), QString());
    QCOMPARE(checkIncidentDraft(QStringLiteral(" \t"), q), QStringLiteral("the title is empty"));
    QCOMPARE(checkIncidentDraft(QString(201, QLatin1Char('x')), q), QStringLiteral("the title is longer than 200 characters (201)"));
    q.to = q.from;
    QCOMPARE(checkIncidentDraft(QStringLiteral("Outage"), q), QStringLiteral("the window's start must be before its end"));
    QCOMPARE(checkIncidentNote(QString(4000, QLatin1Char('n'))), QString());
    QCOMPARE(checkIncidentNote(QString(4001, QLatin1Char('n'))), QStringLiteral("the note is longer than 4000 characters (4001)"));
    QCOMPARE(checkIncidentNote(QStringLiteral(" ")), QStringLiteral("the note is empty"));
    QCOMPARE(checkIncidentNote(QString(1001, QLatin1Char('n')), kIncidentPinNoteMaxChars),
             QStringLiteral("the pin's note is longer than 1000 characters (1001)"));

    // The filters' JSON, keys in their documented order, read back exactly.
    WindowQuery f;
    f.bizType = QStringLiteral("ticket_create");
    f.tenant = QStringLiteral("acme");
    f.keySubstring = QStringLiteral("k:\"a");
    f.taskId = QStringLiteral("task_7");
    f.stores = {EventStore::Intent, EventStore::Console};
    f.kinds = {EventKind::IntentAttempt};
    f.statuses = {QStringLiteral("UNKNOWN")};
    const QString json = incidentFiltersJson(f);
    QCOMPARE(json, QStringLiteral("{\"biz_type\":\"ticket_create\",\"tenant\":\"acme\",\"key\":\"k:\\\"a\",\"task\":\"task_7\",\"stores\":[\"intent\","
                                  "\"console\"],\"kinds\":[\"intent.attempt\"],\"statuses\":[\"UNKNOWN\"]}"));
    WindowQuery back;
    QString error;
    QVERIFY(readIncidentFiltersJson(json, &back, &error));
    QCOMPARE(back.keySubstring, f.keySubstring);
    QCOMPARE(back.taskId, f.taskId);
    QCOMPARE(incidentFiltersText(back), QStringLiteral("biz_type ticket_create; tenant acme; key contains \"k:\"a\"; task task_7; "
                                                       "stores intent, console; kinds intent.attempt; statuses UNKNOWN"));
    QCOMPARE(back.stores, f.stores);
    QCOMPARE(back.kinds, f.kinds);
    QCOMPARE(back.statuses, f.statuses);
    QVERIFY(!readIncidentFiltersJson(QStringLiteral("{\"kinds\":[\"record.deleted\"]}"), &back, &error));
    QCOMPARE(error, QStringLiteral("unknown kind \"record.deleted\" in the incident's filters"));
    QVERIFY(!readIncidentFiltersJson(QStringLiteral("[]"), &back, &error));
    QCOMPARE(error, QStringLiteral("the incident's filters are not a JSON object"));
}

void TestIncident::pinsAndFilters_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestIncident::pinsAndFilters()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    Workspace ws(db.config());
    WindowQuery q = window();
    q.tenant = QStringLiteral("acme");
    q.stores = {EventStore::Ticket, EventStore::Console};
    q.statuses = {QStringLiteral("OPEN"), QStringLiteral("applied")};
    const auto created = await(createIncident(ws, QStringLiteral("  VPN tickets  "), q, QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(created);
    QCOMPARE(created->kind, IncidentChange::Kind::Applied);
    QCOMPARE(created->message, QStringLiteral("incident 1 created: VPN tickets"));
    QVERIFY(created->auditId > 0);
    const qint64 id = created->incidentId;
    // A pin lies in the incident: the ticket does; the audit row fails its tenant filter (its
    // key "k:a" matches no tenant pattern for acme), the record update its stores.
    {
        const auto pinned = await(pinEvent(ws, id, EventKind::TicketCreated, QStringLiteral("1"), QString(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(pinned);
        QVERIFY2(pinned->kind == IncidentChange::Kind::Applied, qPrintable(pinned->message));
    }
    const std::pair<EventKind, QString> refusals[] = {
        {EventKind::Audit, QStringLiteral("audit 1 does not pass incident 1's filters (tenant acme; stores ticket, console; "
                                          "statuses OPEN, applied): not pinned")},
        {EventKind::RecordUpdated, QStringLiteral("incident 1 covers no record.updated events (its kinds: ticket.created, audit, "
                                                  "compensation, compensation.attempt): record.updated 1 not pinned")}};
    for (const auto &[kind, message] : refusals) {
        const auto refused = await(pinEvent(ws, id, kind, QStringLiteral("1"), QString(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(refused);
        QCOMPARE(refused->kind, IncidentChange::Kind::Invalid);
        QCOMPARE(refused->message, message);
    }
    // Without filters the same events are in the window: pinned to a second incident.
    const auto wide = await(createIncident(ws, QStringLiteral("Wide"), window(), QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(wide);
    for (const EventKind kind : {EventKind::Audit, EventKind::RecordUpdated}) {
        const auto pinned = await(pinEvent(ws, wide->incidentId, kind, QStringLiteral("1"), QString(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(pinned);
        QVERIFY2(pinned->kind == IncidentChange::Kind::Applied, qPrintable(pinned->message));
    }
    // An id that is not an integer names no row of an integer key: not found, never a SQL error.
    const auto odd = await(pinEvent(ws, id, EventKind::IntentAttempt, QStringLiteral("1x"), QString(), QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(odd);
    QCOMPARE(odd->kind, IncidentChange::Kind::NotFound);
    QCOMPARE(odd->message, QStringLiteral("no intent.attempt event with id 1x"));
    const auto noted = await(addIncidentNote(ws, id, QStringLiteral("the ticket came first"), EventKind::TicketCreated,
                                             QStringLiteral("1"), QStringLiteral("carol")));
    TRIAGE_VERIFY_OUTCOME(noted);

    // The ticket is deleted: its pin stays, its event is gone.
    TRIAGE_ADMIN(db, QStringLiteral("DELETE FROM ticket WHERE id = 1"));
    const auto read = await(readIncident(ws, id));
    TRIAGE_VERIFY_OUTCOME(read);
    QVERIFY(read->has_value());
    const IncidentDetail &d = read->value();
    QCOMPARE(d.incident.title, QStringLiteral("VPN tickets"));
    QCOMPARE(d.incident.createdBy, QStringLiteral("bob"));
    QCOMPARE(d.incident.query.from, q.from);
    QCOMPARE(d.incident.query.to, q.to);
    QCOMPARE(d.incident.query.tenant, q.tenant);
    QCOMPARE(d.incident.query.stores, q.stores);
    QCOMPARE(d.incident.query.statuses, q.statuses);
    QVERIFY(d.incident.open);
    QCOMPARE(d.incident.version, 3); // create, the pin, the note
    QCOMPARE(d.pins.size(), 1);
    QCOMPARE(d.pins[0].kind, EventKind::TicketCreated);
    QCOMPARE(d.pins[0].eventAt, QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QVERIFY(!d.pins[0].event.has_value());
    // The wide incident's pins by event time (150 s both; by pin id): the audit row, the update.
    const auto readWide = await(readIncident(ws, wide->incidentId));
    TRIAGE_VERIFY_OUTCOME(readWide);
    const IncidentDetail &w = readWide->value();
    QCOMPARE(w.pins.size(), 2);
    QCOMPARE(w.pins[0].kind, EventKind::Audit);
    QVERIFY(w.pins[0].event.has_value());
    QCOMPARE(w.pins[0].event->detail, QStringLiteral("mark_success"));
    QCOMPARE(w.pins[0].event->actor, QStringLiteral("alice"));
    QCOMPARE(w.pins[1].kind, EventKind::RecordUpdated);
    QCOMPARE(w.pins[1].event->status, QStringLiteral("SUCCESS"));
    QCOMPARE(w.pins[1].event->idemKey, QStringLiteral("k:a"));
    QCOMPARE(d.notes.size(), 1);
    QCOMPARE(d.notes[0].operatorName, QStringLiteral("carol"));
    QCOMPARE(d.notes[0].eventKind, std::optional<EventKind>(EventKind::TicketCreated));
    QCOMPARE(d.notes[0].eventId, QStringLiteral("1"));

    const auto none = await(readIncident(ws, 42));
    TRIAGE_VERIFY_OUTCOME(none);
    QVERIFY(!none->has_value());
    const auto listed = await(listIncidents(ws, false));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 2); // newest first
    QCOMPARE(listed->at(0).pins, 2);
    QCOMPARE(listed->at(1).pins, 1);
    QCOMPARE(listed->at(1).notes, 1);
}

void TestIncident::schemaVersion_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestIncident::schemaVersion()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace ws(db.config());
        TRIAGE_OK(setUpSchema(ws));
    }
    // A database an older init-schema brought to version 1: no incident tables.
    for (const char *t : {"triage_incident_export", "triage_incident_note", "triage_incident_pin", "triage_incident"})
        TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE %1").arg(QLatin1String(t)));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '1' WHERE meta_key = 'schema_version'"));
    {
        Workspace ws(db.config());
        const auto listed = await(listIncidents(ws, true));
        QVERIFY(!listed.ok());
        QCOMPARE(listed.error->kind, DbError::Kind::Config);
        QCOMPARE(listed.error->message, QStringLiteral("the idempotency database has no incident tables (console schema version 1; "
                                                       "incidents need version 2): run `triagectl init-schema`"));
        const auto created = await(createIncident(ws, QStringLiteral("Outage"), window(), QStringLiteral("bob")));
        QVERIFY(!created.ok());
        QCOMPARE(created.error->message, listed.error->message);
        // init-schema adds them and records this build's version.
        TRIAGE_OK(setUpSchema(ws));
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT meta_value FROM triage_meta WHERE meta_key = 'schema_version'")),
             QStringList{QString::number(kConsoleSchemaVersion)});
    {
        Workspace ws(db.config());
        const auto done_ = await(createIncident(ws, QStringLiteral("Outage"), window(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(done_);
    }
    // A newer console brought the database to version 8: every change is refused, reading works.
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '8' WHERE meta_key = 'schema_version'"));
    Workspace ws(db.config());
    const auto closed = await(closeIncident(ws, 1, QStringLiteral("bob")));
    QVERIFY(!closed.ok());
    QCOMPARE(closed.error->kind, DbError::Kind::Refused);
    QCOMPARE(closed.error->message, QStringLiteral("the idempotency database has console schema version 8; this build knows "
                                                   "version 7: upgrade the console before writing"));
    const auto listed = await(listIncidents(ws, false));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 1);
    QVERIFY(listed->at(0).open);
}

QTEST_GUILESS_MAIN(TestIncident)
#include "tst_incident.moc"
