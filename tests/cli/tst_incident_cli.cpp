// triagectl incident and timeline --incident (DESIGN.md §5, §7 "Incidents") on every backend:
// create, pin, note, list, show, close, reopen, unpin with their exact output; bad input,
// conflicts and read-only mode with their exact messages and exit codes; the audit rows.
#include "DeepLink.h"
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "WindowFixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

/// `text` with every canonical ISO time after 2026-01-01T00:59 (the server's clock: created,
/// pinned, noted, closed) replaced by "<now>"; the fixture's own times stay.
QString nowed(const QByteArray &text)
{
    static const QRegularExpression serverTime(QStringLiteral(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)"));
    QString out = QString::fromUtf8(text);
    QRegularExpressionMatchIterator it = serverTime.globalMatch(out);
    QStringList seen;
    while (it.hasNext()) {
        const QString t = it.next().captured(0);
        if (!t.startsWith(QLatin1String("2026-01-01T00:0")))
            seen << t;
    }
    for (const QString &t : seen)
        out.replace(t, QStringLiteral("<now>"));
    return out;
}

} // namespace

class TestIncidentCli : public QObject {
    Q_OBJECT
private slots:
    void lifecycle_data();
    void lifecycle();
    void badInput_data();
    void badInput();
};

void TestIncidentCli::lifecycle_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

#define RUN_OK(name, args)                                                 \
    const CtlRun name = runCtl(base + (args));                             \
    QVERIFY2(name.ok(), name.describe().constData())
#undef RUN_EXIT // this file binds the database arguments itself
#define RUN_EXIT(name, code, args)                                         \
    const CtlRun name = runCtl(base + (args));                             \
    QVERIFY2(name.finished && name.exitCode == (code), name.describe().constData())

void TestIncidentCli::lifecycle()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QStringList base = ctlDbArgs(db) + QStringList{QStringLiteral("--operator"), QStringLiteral("alice")};
    auto args = [](const char *text) { return QString::fromUtf8(text).split(QLatin1Char(' ')); };

    RUN_OK(create, QStringList({QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--title"),
                                QStringLiteral("Ticket service timeouts"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"),
                                QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--kind"),
                                QStringLiteral("record.created,intent.attempt,ticket.created")}));
    QCOMPARE(create.out, QByteArray("incident 1 created: Ticket service timeouts\n"));
    RUN_OK(pin1, QStringList({QStringLiteral("incident"), QStringLiteral("pin"), QStringLiteral("1"), QStringLiteral("--kind"),
                              QStringLiteral("intent.attempt"), QStringLiteral("--event-id"), QStringLiteral("1"), QStringLiteral("--note"),
                              QStringLiteral("first UNKNOWN")}));
    QCOMPARE(pin1.out, QByteArray("incident 1: pinned intent.attempt 1\n"));
    RUN_OK(pin2, args("incident pin 1 --kind ticket.created --event-id 2 --format json"));
    QCOMPARE(pin2.out, QByteArray("{\"incident\":1,\"message\":\"incident 1: pinned ticket.created 2\",\"outcome\":\"applied\",\"pin\":2}\n"));
    RUN_EXIT(twice, 3, args("incident pin 1 --kind intent.attempt --event-id 1"));
    QCOMPARE(twice.err, QByteArray("triagectl: intent.attempt 1 is already pinned to incident 1\n"));
    RUN_EXIT(missing, 1, args("incident pin 1 --kind intent.attempt --event-id 99"));
    QCOMPARE(missing.err, QByteArray("triagectl: no intent.attempt event with id 99\n"));
    RUN_EXIT(notUpdated, 1, args("incident pin 1 --kind record.updated --event-id 2"));
    QCOMPARE(notUpdated.err, QByteArray("triagectl: no record.updated event with id 2\n"));
    RUN_OK(note, QStringList({QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"),
                              QStringLiteral("ticket API timed out from 00:01:40")}));
    QCOMPARE(note.out, QByteArray("incident 1: note added\n"));

    RUN_OK(list, args("incident list"));
    QCOMPARE(QString::fromUtf8(list.out),
             QStringLiteral("ID  STATUS  TITLE                    FROM (UTC)                   TO (UTC)                     PINS  NOTES  CREATED_BY\n"
                            " 1  open    Ticket service timeouts  2026-01-01T00:01:40.000000Z  2026-01-01T00:03:20.000000Z     2      1  alice\n"
                            "1 incident\n"));
    RUN_OK(show, args("incident show 1"));
    QCOMPARE(nowed(show.out).split(QLatin1Char('\n')),
             QStringLiteral("Incident 1: Ticket service timeouts\n"
                            "Status: open\n"
                            "Window: 2026-01-01T00:01:40.000000Z .. 2026-01-01T00:03:20.000000Z (UTC, end excluded)\n"
                            "Filters: kinds record.created, intent.attempt, ticket.created\n"
                            "Created: alice at <now>\n"
                            "Link: triage://window?from=2026-01-01T00%3A01%3A40.000000Z&to=2026-01-01T00%3A03%3A20.000000Z"
                            "&kinds=record.created,intent.attempt,ticket.created\n"
                            "Pins: 2\n"
                            "  AT (UTC)                     KIND            ID  EVENT                                 NOTE           PINNED_BY\n"
                            "  2026-01-01T00:01:40.000000Z  intent.attempt  1   UNKNOWN k:a create_ticket by agent-1  first UNKNOWN  alice\n"
                            "  2026-01-01T00:03:19.999000Z  ticket.created  2   k:b VPN down (now OPEN)                              alice\n"
                            "Notes: 1\n"
                            "  AT (UTC)                     OPERATOR  ABOUT  TEXT\n"
                            "  <now>  alice            ticket API timed out from 00:01:40\n").split(QLatin1Char('\n')));
    RUN_OK(json, args("incident show 1 --format json"));
    const QJsonObject o = QJsonDocument::fromJson(json.out).object();
    QCOMPARE(o.value(QStringLiteral("filters")).toObject().value(QStringLiteral("kinds")).toArray().size(), 3);
    // The link opens the same window and filters (triagectl timeline --link, triage-console --open).
    QString linkError;
    const auto link = parseDeepLink(o.value(QStringLiteral("link")).toString(), &linkError);
    QVERIFY2(link, qPrintable(linkError));
    QCOMPARE(link->query.kinds, (QVector<EventKind>{EventKind::RecordCreated, EventKind::IntentAttempt, EventKind::TicketCreated}));
    QCOMPARE(formatUtcMicros(link->query.from), QStringLiteral("2026-01-01T00:01:40.000000Z"));
    QCOMPARE(o.value(QStringLiteral("pins")).toArray().at(0).toObject().value(QStringLiteral("line")).toString(),
             QStringLiteral("UNKNOWN k:a create_ticket by agent-1"));
    QCOMPARE(o.value(QStringLiteral("pins")).toArray().at(1).toObject().value(QStringLiteral("event_id")).toString(), QStringLiteral("2"));
    QCOMPARE(o.value(QStringLiteral("notes")).toArray().at(0).toObject().value(QStringLiteral("event_kind")), QJsonValue(QJsonValue::Null));

    // The timeline of the incident: its window and its kinds.
    RUN_OK(timeline, args("timeline --incident 1"));
    QCOMPARE(QString::fromUtf8(timeline.out),
             QStringLiteral("AT (UTC)                     STORE        KIND            STATUS     IDEM_KEY  ACTOR    DETAIL\n"
                            "2026-01-01T00:01:40.000000Z  idempotency  record.created             k:a                now SUCCESS\n"
                            "2026-01-01T00:01:40.000000Z  intent       intent.attempt  UNKNOWN    k:a       agent-1  create_ticket\n"
                            "2026-01-01T00:01:40.000000Z  ticket       ticket.created             k:a                VPN down (now OPEN)\n"
                            "2026-01-01T00:02:00.000000Z  idempotency  record.created             k:b                now PROCESSING\n"
                            "2026-01-01T00:02:30.000000Z  intent       intent.attempt  SUCCEEDED  k:b       agent-1  create_ticket\n"
                            "2026-01-01T00:03:19.999000Z  ticket       ticket.created             k:b                VPN down (now OPEN)\n"
                            "6 events\n"));

    RUN_OK(close, args("incident close 1"));
    QCOMPARE(close.out, QByteArray("incident 1 closed\n"));
    RUN_EXIT(closeAgain, 3, args("incident close 1"));
    QCOMPARE(nowed(closeAgain.err), QStringLiteral("triagectl: incident 1 is already closed (by alice at <now>)\n"));
    RUN_EXIT(pinClosed, 3, args("incident pin 1 --kind ticket.created --event-id 1"));
    QCOMPARE(nowed(pinClosed.err), QStringLiteral("triagectl: incident 1 is closed (by alice at <now>): reopen it to pin events\n"));
    RUN_OK(listOpen, args("incident list"));
    QCOMPARE(listOpen.out, QByteArray("ID  STATUS  TITLE  FROM (UTC)  TO (UTC)  PINS  NOTES  CREATED_BY\n0 incidents\n"));
    RUN_OK(listAll, args("incident list --all --format csv"));
    QCOMPARE(listAll.out, QByteArray("id,status,title,from,to,pins,notes,created_by\r\n"
                                     "1,closed,Ticket service timeouts,2026-01-01T00:01:40.000000Z,2026-01-01T00:03:20.000000Z,2,1,alice\r\n"));
    RUN_OK(reopen, args("incident reopen 1"));
    QCOMPARE(reopen.out, QByteArray("incident 1 reopened\n"));
    RUN_EXIT(reopenAgain, 3, args("incident reopen 1"));
    QCOMPARE(reopenAgain.err, QByteArray("triagectl: incident 1 is already open\n"));
    RUN_OK(unpin, args("incident unpin 1 --kind ticket.created --event-id 2"));
    QCOMPARE(unpin.out, QByteArray("incident 1: unpinned ticket.created 2\n"));
    RUN_EXIT(unpinAgain, 3, args("incident unpin 1 --kind ticket.created --event-id 2"));
    QCOMPARE(unpinAgain.err, QByteArray("triagectl: ticket.created 2 is not pinned to incident 1\n"));

    // Read-only mode writes nothing.
    RUN_EXIT(readOnly, 4, args("--read-only incident close 1"));
    QCOMPARE(readOnly.err, QByteArray("triagectl: read-only mode: incidents cannot be changed (started with --read-only or read_only=true)\n"));

    // Every change and every conflict, audited under incident:1.
    QString error;
    const QStringList audit = db.adminQueryColumn(
        QStringLiteral("SELECT action || ' ' || outcome || ' ' || operator FROM triage_audit WHERE idem_key = 'incident:1' ORDER BY id")
            .replace(QStringLiteral("action || ' ' || outcome || ' ' || operator"),
                     db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(action, ' ', outcome, ' ', operator)")
                                                            : QStringLiteral("action || ' ' || outcome || ' ' || operator")),
        &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(audit, (QStringList{QStringLiteral("incident.create applied alice"), QStringLiteral("incident.pin applied alice"),
                                 QStringLiteral("incident.pin applied alice"), QStringLiteral("incident.pin conflict alice"),
                                 QStringLiteral("incident.note applied alice"), QStringLiteral("incident.close applied alice"),
                                 QStringLiteral("incident.close conflict alice"), QStringLiteral("incident.pin conflict alice"),
                                 QStringLiteral("incident.reopen applied alice"), QStringLiteral("incident.reopen conflict alice"),
                                 QStringLiteral("incident.unpin applied alice"), QStringLiteral("incident.unpin conflict alice")}));
    // Every change bumped the compare-and-set version: create 1, two pins, a note, close, reopen, unpin.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT version FROM triage_incident WHERE id = 1")), QStringList{QStringLiteral("7")});
}

void TestIncidentCli::badInput_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestIncidentCli::badInput()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QStringList base = ctlDbArgs(db);
    const QStringList create{QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--from"),
                             QStringLiteral("2026-01-01T00:01:40Z"), QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z")};
    const struct {
        QStringList args;
        int code;
        QByteArray err;
    } cases[] = {
        {create + QStringList{QStringLiteral("--title"), QStringLiteral("  ")}, 1, "triagectl: the title is empty\n"},
        {create + QStringList{QStringLiteral("--title"), QString(201, QLatin1Char('t'))}, 1,
         "triagectl: the title is longer than 200 characters (201)\n"},
        {create, 1, "triagectl: incident create needs --title\n"},
        {create + QStringList{QStringLiteral("--title"), QStringLiteral("x"), QStringLiteral("--store"), QStringLiteral("tickets")}, 1,
         "triagectl: --store \"tickets\": idempotency, intent, ticket or console\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--title"), QStringLiteral("x"),
                     QStringLiteral("--from"), QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--to"), QStringLiteral("2026-01-01T00:01:40Z")},
         1, "triagectl: --from 2026-01-01T00:03:20.000000Z is not before --to 2026-01-01T00:01:40.000000Z: the window is empty\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("show"), QStringLiteral("99")}, 1, "triagectl: no incident 99\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("close"), QStringLiteral("99")}, 1, "triagectl: no incident 99\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("show"), QStringLiteral("x1")}, 1,
         "triagectl: incident show: \"x1\" is not an incident ID\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("open")}, 1,
         "triagectl: incident: unknown action \"open\" (create, list, show, pin, unpin, note, close, reopen, export)\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("close")}, 1, "triagectl: incident close: missing incident ID\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("close"), QStringLiteral("1"), QStringLiteral("--all")}, 1,
         "triagectl: incident close takes no --all\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("pin"), QStringLiteral("1"), QStringLiteral("--kind"),
                     QStringLiteral("record.deleted"), QStringLiteral("--event-id"), QStringLiteral("1")},
         1,
         "triagectl: --kind \"record.deleted\": one of record.created, record.updated, intent.attempt, ticket.created, audit, "
         "compensation, compensation.attempt\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("pin"), QStringLiteral("1"), QStringLiteral("--kind"),
                     QStringLiteral("audit")},
         1, "triagectl: incident pin needs --kind and --event-id\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"),
                     QString(4001, QLatin1Char('n'))},
         1, "triagectl: the note is longer than 4000 characters (4001)\n"},
        {QStringList{QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"), QString()}, 1,
         "triagectl: the note is empty\n"},
        {QStringList{QStringLiteral("timeline"), QStringLiteral("--incident"), QStringLiteral("1"), QStringLiteral("--from"),
                     QStringLiteral("2026-01-01T00:01:40Z")},
         1, "triagectl: --incident takes the window and filters from the incident: leave out --from, --to and the filters\n"},
        {QStringList{QStringLiteral("timeline"), QStringLiteral("--incident"), QStringLiteral("5")}, 1, "triagectl: no incident 5\n"},
    };
    for (const auto &c : cases) {
        const CtlRun r = runCtl(base + c.args);
        QVERIFY2(r.finished && r.exitCode == c.code, r.describe().constData());
        QVERIFY2(r.err.startsWith(c.err), r.describe().constData());
        QCOMPARE(r.out, QByteArray());
    }
    // Nothing was written by any of them.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_incident")), QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE idem_key LIKE 'incident:%'")),
             QStringList{QStringLiteral("0")});
}

QTEST_GUILESS_MAIN(TestIncidentCli)
#include "tst_incident_cli.moc"
