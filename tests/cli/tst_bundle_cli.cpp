// triagectl incident export and bundle verify (DESIGN.md §5, §7 "Bundles") on every backend:
// the one-line summary, the file read back, the recorded export found by verify (and not
// found, and a changed file refused), --no-redact audited, a store down during the export
// (named, exit 2), and bad input with its exact messages.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "SimFixture.h"
#include "WindowFixture.h"

#include "Bundle.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QCryptographicHash>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::optional<IncidentBundle> readBundle(const QString &path)
{
    QString error;
    auto b = readBundleJson(readAll(path), &error);
    if (!b)
        qWarning("%s", qPrintable(error));
    return b;
}

/// `text` with each canonical time of the server's clock (after the fixture's hour) as "<now>".
QString nowed(const QByteArray &text)
{
    static const QRegularExpression serverTime(QStringLiteral(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)"));
    QString out = QString::fromUtf8(text);
    QRegularExpressionMatchIterator it = serverTime.globalMatch(QString::fromUtf8(text));
    while (it.hasNext()) {
        const QString t = it.next().captured(0);
        if (!t.startsWith(QLatin1String("2026-01-01T00:0")))
            out.replace(t, QStringLiteral("<now>"));
    }
    return out;
}

} // namespace

/// What `bundle verify` adds to a hash that matches (DESIGN.md §7 "Bundles").
const QString kCovers = QStringLiteral(" (the hash covers the events only, not the notes, pins, key details or summary)");

class TestBundleCli : public QObject {
    Q_OBJECT
private slots:
    void exportAndVerify_data();
    void exportAndVerify();
    void storeDown_data();
    void storeDown();
    void badInput();
    void redactionLeavesNoSecret_data();
    void redactionLeavesNoSecret();
};

#define RUN_OK(name, ...)                                                  \
    const CtlRun name = runCtl(__VA_ARGS__);                               \
    QVERIFY2(name.ok(), name.describe().constData())
void TestBundleCli::exportAndVerify_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestBundleCli::exportAndVerify()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    QTemporaryDir dir;
    const QStringList base = ctlDbArgs(db) + QStringList{QStringLiteral("--operator"), QStringLiteral("alice")};
    const QString file = dir.filePath(QStringLiteral("window.json"));
    const QStringList window{QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"), QStringLiteral("--to"),
                             QStringLiteral("2026-01-01T00:03:20Z")};

    RUN_OK(exported, base + QStringList{QStringLiteral("incident"), QStringLiteral("export")} + window
                         + QStringList{QStringLiteral("--out"), file});
    const auto b = readBundle(file);
    QVERIFY(b);
    QVERIFY(verifyBundleHash(*b));
    QCOMPARE(b->events.size(), 8);
    QCOMPARE(nowed(exported.out),
             QStringLiteral("exported 8 events, 2 keys, sha256 %1, 0 redactions → %2; recorded as export 1 by alice at <now>\n")
                 .arg(b->eventsSha256, file));

    // verify: with the database, without, and after a change to the file.
    RUN_OK(verified, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), file});
    QCOMPARE(nowed(verified.out), QStringLiteral("sha256 %1 matches its 8 events%2\nmatches the export recorded by alice at <now> (export 1)\n")
                                      .arg(b->eventsSha256, kCovers));
    RUN_OK(offline, (QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), file}));
    QCOMPARE(QString::fromUtf8(offline.out),
             QStringLiteral("sha256 %1 matches its 8 events%2\nnot checked against a database\n").arg(b->eventsSha256, kCovers));
    QByteArray changed = readAll(file);
    changed.replace("\"mark_success\",false]", "\"mark_failed\",false]");
    const QString changedFile = dir.filePath(QStringLiteral("changed.json"));
    {
        QFile f(changedFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(changed);
    }
    RUN_EXIT(refused, 4, (QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), changedFile}));
    QVERIFY2(refused.out.startsWith(QStringLiteral("sha256 %1 does NOT match its 8 events (they hash to ").arg(b->eventsSha256).toUtf8()),
             refused.out.constData());
    // With the database: the export of the hash the file carries is named, never as a match.
    RUN_EXIT(refusedDb, 4, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), changedFile});
    QVERIFY2(nowed(refusedDb.out).endsWith(QStringLiteral("the file was changed after the export\nthe hash it records was exported by alice "
                                                          "at <now> (export 1), but its events no longer match it\n")),
             refusedDb.out.constData());

    // --no-record: the same hash, so verify still finds the first export; --no-redact audited.
    const QString plain = dir.filePath(QStringLiteral("plain.json"));
    RUN_OK(unrecorded, base + QStringList{QStringLiteral("incident"), QStringLiteral("export")} + window
                           + QStringList{QStringLiteral("--out"), plain, QStringLiteral("--no-record"), QStringLiteral("--no-redact")});
    QVERIFY2(unrecorded.out.endsWith("; not recorded (--no-record)\n"), unrecorded.out.constData());
    QVERIFY2(unrecorded.out.contains(", not redacted (--no-redact) → "), unrecorded.out.constData());
    QCOMPARE(readBundle(plain)->eventsSha256, b->eventsSha256);
    RUN_OK(createIncident, base + QStringList{QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--title"),
                                              QStringLiteral("Outage")} + window + QStringList{QStringLiteral("--kind"), QStringLiteral("audit")});
    const QString fromIncident = dir.filePath(QStringLiteral("incident.json"));
    RUN_OK(incidentExport, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("1"),
                                              QStringLiteral("--out"), fromIncident, QStringLiteral("--no-redact"),
                                              QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonObject summary = QJsonDocument::fromJson(incidentExport.out).object();
    QCOMPARE(summary.value(QStringLiteral("events")).toInt(), 1);
    QCOMPARE(summary.value(QStringLiteral("redacted")).toBool(true), false);
    QCOMPARE(summary.value(QStringLiteral("export_id")).toInt(), 2);
    QCOMPARE(summary.value(QStringLiteral("complete")).toBool(), true);
    QCOMPARE(readBundle(fromIncident)->incident->incident.title, QStringLiteral("Outage"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM triage_audit WHERE action = 'incident.export' ORDER BY id")),
             (QStringList{QStringLiteral("window:2026-01-01T00:01:40.000000Z/2026-01-01T00:03:20.000000Z"), QStringLiteral("incident:1")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT detail FROM triage_audit WHERE action = 'incident.export' ORDER BY id")).value(1),
             QStringLiteral("--no-redact: secrets in the bundle are not redacted"));
    RUN_OK(incidentVerified, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), fromIncident});
    QCOMPARE(nowed(incidentVerified.out).split(QLatin1Char('\n')).value(1), QStringLiteral("matches the export recorded by alice at <now> (export 2)"));
    // A window never recorded: verify says so (exit 3).
    const QString intents = dir.filePath(QStringLiteral("intents.json"));
    RUN_OK(intentsExport, base + QStringList{QStringLiteral("incident"), QStringLiteral("export")} + window
                              + QStringList{QStringLiteral("--kind"), QStringLiteral("intent.attempt"), QStringLiteral("--out"), intents,
                                            QStringLiteral("--no-record")});
    RUN_EXIT(unknown, 3, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), intents});
    QCOMPARE(QString::fromUtf8(unknown.out), QStringLiteral("sha256 %1 matches its 2 events%2\nno recorded export with this hash\n")
                                                 .arg(readBundle(intents)->eventsSha256, kCovers));
    // The same events exported again without redaction (they hold no secret: the same hash):
    // verify names the export with the file's own redaction setting.
    const QString plainRecorded = dir.filePath(QStringLiteral("plain-recorded.json"));
    RUN_OK(plainExport, base + QStringList{QStringLiteral("incident"), QStringLiteral("export")} + window
                            + QStringList{QStringLiteral("--out"), plainRecorded, QStringLiteral("--no-redact")});
    QCOMPARE(readBundle(plainRecorded)->eventsSha256, b->eventsSha256);
    RUN_OK(plainVerified, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), plainRecorded});
    QCOMPARE(nowed(plainVerified.out).split(QLatin1Char('\n')).value(1),
             QStringLiteral("matches the export recorded by alice at <now> (export 3; exported 2 times in all)"));
    RUN_OK(redactedVerified, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), file});
    QCOMPARE(nowed(redactedVerified.out).split(QLatin1Char('\n')).value(1),
             QStringLiteral("matches the export recorded by alice at <now> (export 1; exported 2 times in all)"));

    // Read-only: exported, not recorded, said so.
    RUN_OK(readOnly, base + QStringList{QStringLiteral("--read-only"), QStringLiteral("incident"), QStringLiteral("export")} + window
                         + QStringList{QStringLiteral("--out"), plain, QStringLiteral("--redact-field"), QStringLiteral("title")});
    QVERIFY2(readOnly.out.endsWith("; read-only mode: the export is not recorded\n"), readOnly.out.constData());
    QCOMPARE(readBundle(plain)->redactionRules.fields.last(), QStringLiteral("title"));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_incident_export")), QStringList{QStringLiteral("3")});
}

void TestBundleCli::storeDown_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestBundleCli::storeDown()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("down.json"));
    const QString scheme = db.dialect() == QLatin1String("mysql") ? QStringLiteral("mysql") : QStringLiteral("postgresql");
    const QStringList args = ctlDbArgs(db)
        + QStringList{QStringLiteral("--ticket-db"), QStringLiteral("%1://triage@127.0.0.1:%2/gone").arg(scheme).arg(closedPort()),
                      QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"),
                      QStringLiteral("--to"), QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--out"), file};
    RUN_EXIT(down, 2, args);
    QVERIFY2(down.err.contains("the ticket database failed during the export (named in the bundle): cannot connect to the ticket database"), down.err.constData());
    const auto b = readBundle(file);
    QVERIFY(b);
    QVERIFY(!b->complete());
    QCOMPARE(b->events.size(), 6); // all but the two tickets
    RUN_OK(verified, (QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), file}));
    QVERIFY2(verified.out.contains("\nincomplete: failed during the export: ticket (cannot connect to the ticket database"), verified.out.constData());
}

void TestBundleCli::badInput()
{
    TestDatabase db(QStringLiteral("sqlite"));
    TRIAGE_OK(seed(db));
    const QStringList base = ctlDbArgs(db);
    RUN_EXIT(noOut, 1, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("1")});
    QVERIFY2(noOut.err.contains("incident export needs --out FILE"), noOut.err.constData());
    RUN_EXIT(both, 1, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--out"),
                                         QStringLiteral("x.json"), QStringLiteral("--kind"), QStringLiteral("audit")});
    QVERIFY2(both.err.contains("incident export ID takes the incident's window and filters: no --from, --to or filters"), both.err.constData());
    RUN_EXIT(noWindow, 1, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("--out"), QStringLiteral("x.json")});
    QVERIFY2(noWindow.err.contains("--from"), noWindow.err.constData());
    RUN_EXIT(notFound, 1, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("7"), QStringLiteral("--out"),
                                             QStringLiteral("x.json")});
    QVERIFY2(notFound.err.contains("no incident 7\n"), notFound.err.constData());
    QTemporaryDir dir;
    const QString junk = dir.filePath(QStringLiteral("junk.json"));
    {
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\":\"triage-incident-bundle\",\"format_version\":9}");
    }
    RUN_EXIT(newer, 1, (QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), junk}));
    QCOMPARE(newer.err, (QStringLiteral("triagectl: ") + junk + QStringLiteral(": bundle format version 9 is newer than this build reads (3): upgrade the console\n")).toUtf8());
    RUN_EXIT(missing, 1, (QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), dir.filePath(QStringLiteral("none.json"))}));
    QVERIFY2(missing.err.startsWith("triagectl: cannot read "), missing.err.constData());
    RUN_EXIT(action, 1, (QStringList{QStringLiteral("bundle"), QStringLiteral("check"), junk}));
    QVERIFY2(action.err.contains("bundle: unknown action \"check\" (verify)"), action.err.constData());
}


void TestBundleCli::redactionLeavesNoSecret_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

/// DESIGN.md §7 "Redaction": the secrets of a key are redacted wherever the bundle carries them,
/// not only in its intent attempts: the ticket's payload, the upstream's answer recorded by
/// `triagectl query` (audit evidence echoing the ticket), the timeline's summaries and the
/// events' details built from a redacted title. The written file holds none of them.
void TestBundleCli::redactionLeavesNoSecret()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    const QString key = QStringLiteral("ticket:create:acme:leak-1");
    IntentSpec a;
    a.key = key;
    a.created = ts(db, 150000);
    a.request = QStringLiteral(R"({"headers":{"Authorization":"Bearer AUTH-SECRET-1"},"token":"TOKEN-SECRET-2"})");
    TicketSpec t;
    t.id = 9;
    t.key = key;
    t.tenant = QStringLiteral("acme");
    t.title = QStringLiteral("secret test");
    t.payload = QStringLiteral(R"({"title":"secret test","api_key":"SUPERSECRET-APIKEY"})");
    t.created = ts(db, 150000);
    TRIAGE_OK(record(db, key, 150000, 150000, 0) + insertIntents(db, {a}) + insertTickets(db, {t}));

    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(shapeIniText(db)) >= 0);
    }
    {
        QSettings s(ini, QSettings::IniFormat);
        for (const char *role : {"idempotency", "intent", "ticket"})
            s.setValue(QStringLiteral("%1/url").arg(QLatin1String(role)), db.url());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), sim.baseUrl().toString());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_query_url"), QStringLiteral("/tickets?idem_key={idem_key}"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_not_found"), QStringLiteral("empty"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_result_path"), QStringLiteral("tickets"));
    }
    const QStringList base{QStringLiteral("--config"), ini, QStringLiteral("--operator"), QStringLiteral("alice")};
    RUN_OK(query, base + QStringList{QStringLiteral("query"), key});
    // The upstream's answer, recorded in the audit row, echoes the ticket with its secret.
    const QStringList evidence =
        db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE action = 'query_upstream'"));
    QCOMPARE(evidence.size(), 1);
    QVERIFY2(evidence.first().contains(QLatin1String("SUPERSECRET-APIKEY")), qPrintable(evidence.first()));

    const QString file = dir.filePath(QStringLiteral("leak.json"));
    RUN_OK(exported, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("--from"),
                                        QStringLiteral("2026-01-01T00:01:40Z"), QStringLiteral("--to"),
                                        QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--key"), key,
                                        QStringLiteral("--redact-field"), QStringLiteral("title"), QStringLiteral("--out"), file});
    const QByteArray bytes = readAll(file);
    QVERIFY(!bytes.isEmpty());
    for (const char *secret : {"SUPERSECRET-APIKEY", "secret test", "AUTH-SECRET-1", "TOKEN-SECRET-2"})
        QCOMPARE(bytes.count(secret), qsizetype(0));
    const auto b = readBundle(file);
    QVERIFY(b);
    QVERIFY(verifyBundleHash(*b));
    const auto marker = [](const char *value) {
        return QStringLiteral("[redacted sha256:%1]")
            .arg(QString::fromLatin1(QCryptographicHash::hash(value, QCryptographicHash::Sha256).toHex()));
    };
    QCOMPARE(b->keys.size(), 1);
    const KeyDetail &k = b->keys.first();
    QCOMPARE(*k.tickets.value(0).title, marker("secret test"));
    QCOMPARE(*k.tickets.value(0).payload,
             QStringLiteral(R"({"title":"%1","api_key":"%2"})").arg(marker("secret test"), marker("SUPERSECRET-APIKEY")));
    QStringList events;
    for (const WindowEvent &e : b->events)
        events << QStringLiteral("%1 %2").arg(eventKindName(e.kind), e.detail);
    QVERIFY2(events.contains(QStringLiteral("ticket.created %1 (now OPEN)").arg(marker("secret test"))), qPrintable(events.join(QLatin1Char('|'))));
    QStringList redacted;
    for (const Redaction &r : b->redactions)
        redacted << QStringLiteral("%1 %2").arg(r.where, r.field);
    redacted.sort();
    // Every place the bundle held them: the request, the ticket's title and payload, the
    // upstream's answer in the audit evidence (its objects, raw body and the verdict's
    // snapshot), the timeline's summary and the ticket's event built from the title.
    const QString at = QStringLiteral("keys[%1].").arg(key);
    QCOMPARE(redacted, (QStringList{
        QStringLiteral("events[2].detail title"),
        at + QStringLiteral("attempts[0].request.headers.Authorization Authorization"),
        at + QStringLiteral("attempts[0].request.token token"),
        at + QStringLiteral("audit[0].evidence.evidence.found_objects[0].payload.api_key api_key"),
        at + QStringLiteral("audit[0].evidence.evidence.found_objects[0].payload.title title"),
        at + QStringLiteral("audit[0].evidence.evidence.found_objects[0].title title"),
        at + QStringLiteral("audit[0].evidence.evidence.raw_body.tickets[0].payload.api_key api_key"),
        at + QStringLiteral("audit[0].evidence.evidence.raw_body.tickets[0].payload.title title"),
        at + QStringLiteral("audit[0].evidence.evidence.raw_body.tickets[0].title title"),
        at + QStringLiteral("audit[0].evidence.verdict.snapshot.api_key api_key"),
        at + QStringLiteral("audit[0].evidence.verdict.snapshot.title title"),
        at + QStringLiteral("tickets[0].payload.api_key api_key"),
        at + QStringLiteral("tickets[0].payload.title title"),
        at + QStringLiteral("tickets[0].title title"),
        at + QStringLiteral("timeline[3].summary title"),
    }));
    QCOMPARE(b->redactions.size(), 15);
    QVERIFY2(exported.out.contains(", 15 redactions \xe2\x86\x92 "), exported.out.constData());
    // The recorded export holds the hash of the redacted events the file carries: verify finds it.
    RUN_OK(verified, base + QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), file});
    QCOMPARE(nowed(verified.out).split(QLatin1Char('\n')).value(1), QStringLiteral("matches the export recorded by alice at <now> (export 1)"));

    // The operators' words too: a pin's note and the incident's notes quoting the key's secrets
    // (one about the pinned event, one about the incident as a whole) hold only their markers.
    RUN_OK(created, base + QStringList{QStringLiteral("incident"), QStringLiteral("create"), QStringLiteral("--title"), QStringLiteral("Leak"),
                                       QStringLiteral("--from"), QStringLiteral("2026-01-01T00:01:40Z"), QStringLiteral("--to"),
                                       QStringLiteral("2026-01-01T00:03:20Z"), QStringLiteral("--key"), key});
    const QStringList attemptIds = db.adminQueryColumn(QStringLiteral("SELECT id FROM intent_log WHERE idem_key = 'ticket:create:acme:leak-1'"));
    QCOMPARE(attemptIds.size(), 1);
    const QStringList event{QStringLiteral("--kind"), QStringLiteral("intent.attempt"), QStringLiteral("--event-id"), attemptIds.first()};
    RUN_OK(pinned, base + QStringList{QStringLiteral("incident"), QStringLiteral("pin"), QStringLiteral("1")} + event
                       + QStringList{QStringLiteral("--note"), QStringLiteral("the caller read out TOKEN-SECRET-2")});
    RUN_OK(noted, base + QStringList{QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"),
                                     QStringLiteral("Bearer AUTH-SECRET-1 was sent for 'secret test'")} + event);
    RUN_OK(notedWhole, base + QStringList{QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"),
                                          QStringLiteral("{\"api_key\": \"NOTE-KEY-3\", \"seen\": \"SUPERSECRET-APIKEY\"}")});
    // A secret typed as free text (DESIGN.md §7 "Redaction", the free-text rule).
    RUN_OK(notedTyped, base + QStringList{QStringLiteral("incident"), QStringLiteral("note"), QStringLiteral("1"), QStringLiteral("--text"),
                                          QStringLiteral("reset by hand: password=hunter2, then Authorization: Bearer TYPED-BEARER-4")});
    const QString incidentFile = dir.filePath(QStringLiteral("leak-incident.json"));
    RUN_OK(incidentExport, base + QStringList{QStringLiteral("incident"), QStringLiteral("export"), QStringLiteral("1"),
                                              QStringLiteral("--redact-field"), QStringLiteral("title"), QStringLiteral("--out"), incidentFile});
    const QByteArray incidentBytes = readAll(incidentFile);
    for (const char *secret : {"SUPERSECRET-APIKEY", "secret test", "AUTH-SECRET-1", "TOKEN-SECRET-2", "NOTE-KEY-3", "hunter2",
                               "TYPED-BEARER-4"})
        QCOMPARE(incidentBytes.count(secret), qsizetype(0));
    const auto ib = readBundle(incidentFile);
    QVERIFY(ib && ib->incident);
    QCOMPARE(ib->incident->pins.size(), 1);
    QCOMPARE(ib->incident->pins.value(0).note, QStringLiteral("the caller read out %1").arg(marker("TOKEN-SECRET-2")));
    QCOMPARE(ib->incident->notes.value(0).text,
             QStringLiteral("%1 was sent for '%2'").arg(marker("Bearer AUTH-SECRET-1"), marker("secret test")));
    QCOMPARE(ib->incident->notes.value(1).text,
             QStringLiteral("{\"api_key\": \"%1\", \"seen\": \"%2\"}").arg(marker("NOTE-KEY-3"), marker("SUPERSECRET-APIKEY")));
    const QString typed = QStringLiteral("reset by hand: password=%1, then Authorization: Bearer %2")
                              .arg(marker("hunter2"), marker("TYPED-BEARER-4"));
    QCOMPARE(ib->incident->notes.value(2).text, typed);
    QStringList typedRedactions;
    for (const Redaction &r : ib->redactions)
        if (r.where == QLatin1String("incident.notes[2].text"))
            typedRedactions << QStringLiteral("%1 %2").arg(r.field, r.sha256);
    const auto sha = [](const char *value) { return QString::fromLatin1(QCryptographicHash::hash(value, QCryptographicHash::Sha256).toHex()); };
    QCOMPARE(typedRedactions, (QStringList{QStringLiteral("password ") + sha("hunter2"), QStringLiteral("Authorization ") + sha("TYPED-BEARER-4")}));
    // Nor in its reports: the HTML's bytes and the PDF's text (pdftotext).
    const QString html = dir.filePath(QStringLiteral("leak.html")), pdf = dir.filePath(QStringLiteral("leak.pdf"));
    RUN_OK(htmlReport, (QStringList{QStringLiteral("report"), incidentFile, QStringLiteral("--out"), html}));
    RUN_OK(pdfReport, (QStringList{QStringLiteral("report"), incidentFile, QStringLiteral("--out"), pdf}));
    const QByteArray htmlBytes = readAll(html);
    QVERIFY2(htmlBytes.contains(typed.toHtmlEscaped().toUtf8()), htmlBytes.constData());
    QProcess pdftotext;
    pdftotext.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
    QVERIFY2(pdftotext.waitForFinished(60000) && pdftotext.exitCode() == 0, "pdftotext (poppler-utils, tests/packages.txt) failed");
    const QByteArray pdfText = pdftotext.readAllStandardOutput();
    QVERIFY2(pdfText.contains("reset by hand: password="), pdfText.constData());
    for (const char *secret : {"SUPERSECRET-APIKEY", "secret test", "AUTH-SECRET-1", "TOKEN-SECRET-2", "NOTE-KEY-3", "hunter2",
                               "TYPED-BEARER-4"}) {
        QCOMPARE(htmlBytes.count(secret), qsizetype(0));
        QCOMPARE(pdfText.count(secret), qsizetype(0));
    }
    sim.stop();
}

QTEST_GUILESS_MAIN(TestBundleCli)
#include "tst_bundle_cli.moc"
