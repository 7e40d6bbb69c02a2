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
    f.stores = {EventStore::Intent, EventStore::Console};
    f.kinds = {EventKind::IntentAttempt};
    f.statuses = {QStringLiteral("UNKNOWN")};
    const QString json = incidentFiltersJson(f);
    QCOMPARE(json, QStringLiteral("{\"biz_type\":\"ticket_create\",\"tenant\":\"acme\",\"key\":\"k:\\\"a\",\"stores\":[\"intent\","
                                  "\"console\"],\"kinds\":[\"intent.attempt\"],\"statuses\":[\"UNKNOWN\"]}"));
    WindowQuery back;
    QString error;
    QVERIFY(readIncidentFiltersJson(json, &back, &error));
    QCOMPARE(back.keySubstring, f.keySubstring);
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
    for (const auto &[kind, eventId] : {std::pair{EventKind::Audit, QStringLiteral("1")}, std::pair{EventKind::TicketCreated, QStringLiteral("1")},
                                        std::pair{EventKind::RecordUpdated, QStringLiteral("1")}}) {
        const auto pinned = await(pinEvent(ws, id, kind, eventId, QString(), QStringLiteral("bob")));
        TRIAGE_VERIFY_OUTCOME(pinned);
        QCOMPARE(pinned->kind, IncidentChange::Kind::Applied);
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
    QCOMPARE(d.incident.version, 5);
    QCOMPARE(d.pins.size(), 3);
    // By event time: the ticket (100 s), then the audit row and the update (150 s; by pin id).
    QCOMPARE(d.pins[0].kind, EventKind::TicketCreated);
    QCOMPARE(d.pins[0].eventAt, QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QVERIFY(!d.pins[0].event.has_value());
    QCOMPARE(d.pins[1].kind, EventKind::Audit);
    QVERIFY(d.pins[1].event.has_value());
    QCOMPARE(d.pins[1].event->detail, QStringLiteral("mark_success"));
    QCOMPARE(d.pins[1].event->actor, QStringLiteral("alice"));
    QCOMPARE(d.pins[2].kind, EventKind::RecordUpdated);
    QCOMPARE(d.pins[2].event->status, QStringLiteral("SUCCESS"));
    QCOMPARE(d.pins[2].event->idemKey, QStringLiteral("k:a"));
    QCOMPARE(d.notes.size(), 1);
    QCOMPARE(d.notes[0].operatorName, QStringLiteral("carol"));
    QCOMPARE(d.notes[0].eventKind, std::optional<EventKind>(EventKind::TicketCreated));
    QCOMPARE(d.notes[0].eventId, QStringLiteral("1"));

    const auto none = await(readIncident(ws, 42));
    TRIAGE_VERIFY_OUTCOME(none);
    QVERIFY(!none->has_value());
    const auto listed = await(listIncidents(ws, false));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 1);
    QCOMPARE(listed->at(0).pins, 3);
    QCOMPARE(listed->at(0).notes, 1);
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
    // A newer console brought the database to version 4: every change is refused, reading works.
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '4' WHERE meta_key = 'schema_version'"));
    Workspace ws(db.config());
    const auto closed = await(closeIncident(ws, 1, QStringLiteral("bob")));
    QVERIFY(!closed.ok());
    QCOMPARE(closed.error->kind, DbError::Kind::Refused);
    QCOMPARE(closed.error->message, QStringLiteral("the idempotency database has console schema version 4; this build knows "
                                                   "version 3: upgrade the console before writing"));
    const auto listed = await(listIncidents(ws, false));
    TRIAGE_VERIFY_OUTCOME(listed);
    QCOMPARE(listed->size(), 1);
    QVERIFY(listed->at(0).open);
}

QTEST_GUILESS_MAIN(TestIncident)
#include "tst_incident.moc"
