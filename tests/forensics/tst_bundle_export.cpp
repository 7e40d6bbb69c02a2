// The bundle export (DESIGN.md §7 "Bundles") on every backend: export, write, read back — the
// same events and hash as the window read directly; a 10 MB value, NUL characters (SQLite,
// MariaDB) and bytes that are not UTF-8 (SQLite) byte-exact through the whole path; two exports
// identical but their generation moment; a store down during the export named in the bundle
// with the rest exported; redaction; the recorded export (triage_incident_export with its
// audit row), found again by its hash; read-only mode and a database without the table.
#include "BackendTestUtil.h"
#include "SimFixture.h"
#include "WindowFixture.h"

#include "Bundle.h"
#include "ConsoleSchema.h"
#include "Incident.h"
#include "KeyDetailBulk.h"
#include "KeyDetailJson.h"
#include "KeyDetailJsonLine.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <cmath>

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;
using namespace triage::test::wfix;

namespace {

const QString kOdd = QStringLiteral("k:odd");
/// The 10 MB snapshot: {"blob":"xxx…<NUL where the backend keeps one>…"}.
constexpr int kBlobChars = 10 * 1024 * 1024;

bool keepsNul(const TestDatabase &db)
{
    return db.dialect() != QLatin1String("postgresql"); // PostgreSQL text refuses U+0000
}

QString expectedBlob(const TestDatabase &db)
{
    return QStringLiteral("{\"blob\":\"") + QString(kBlobChars, QLatin1Char('x'))
        + (keepsNul(db) ? QString(QChar(0)) + QStringLiteral("nul") : QString()) + QStringLiteral("\"}");
}

/// The fixture plus key k:odd: a record (110 s) with the 10 MB snapshot, an attempt (110 s)
/// whose request holds secrets, a ticket (130 s) whose title holds a NUL (SQLite, MariaDB) or
/// bytes that are not UTF-8 (SQLite).
QString seedOdd(const TestDatabase &db)
{
    if (const QString e = seed(db); !e.isEmpty())
        return e;
    IntentSpec a;
    a.key = kOdd;
    a.created = ts(db, 110000);
    a.request = QStringLiteral("{\"headers\":{\"Authorization\":\"Bearer s3cret\"},\"password\":\"hunter2\",\"n\":12345678901234567890}");
    QStringList errors{record(db, kOdd, 110000, 110000, 2), insertIntents(db, {a}), ticket(db, 3, kOdd, 130000)};
    const QString d = db.dialect();
    const QString blob = d == QLatin1String("sqlite")
        ? QStringLiteral("'{\"blob\":\"' || replace(hex(zeroblob(%1)), '00', 'x') || char(0) || 'nul\"}'").arg(kBlobChars)
        : d == QLatin1String("mysql") ? QStringLiteral("CONCAT('{\"blob\":\"', REPEAT('x', %1), CHAR(0 USING utf8mb4), 'nul\"}')").arg(kBlobChars)
                                      : QStringLiteral("'{\"blob\":\"' || repeat('x', %1) || '\"}'").arg(kBlobChars);
    errors << db.adminExec(QStringLiteral("UPDATE idempotency_record SET result_snapshot = %1 WHERE idem_key = 'k:odd'").arg(blob));
    const QString title = d == QLatin1String("sqlite")  ? QStringLiteral("'VPN' || char(0) || 'down ' || CAST(X'5AFC72696368' AS TEXT)")
        : d == QLatin1String("mysql")                     ? QStringLiteral("CONCAT('VPN', CHAR(0 USING utf8mb4), 'down')")
                                                          : QStringLiteral("'VPN down'");
    errors << db.adminExec(QStringLiteral("UPDATE ticket SET title = %1 WHERE id = 3").arg(title));
    errors.removeAll(QString());
    return errors.join(QLatin1Char('\n'));
}

QString expectedTitle(const TestDatabase &db)
{
    const QString d = db.dialect();
    if (d == QLatin1String("sqlite"))
        return QStringLiteral("VPN") + QChar(0) + QStringLiteral("down Z\\xFCrich");
    if (d == QLatin1String("mysql"))
        return QStringLiteral("VPN") + QChar(0) + QStringLiteral("down");
    return QStringLiteral("VPN down");
}

/// The window read directly, every page then the settling tail.
QVector<WindowEvent> readDirect(Workspace &ws, const WindowQuery &q)
{
    QVector<WindowEvent> events;
    WindowCursor cursor;
    for (;;) {
        const auto page = await(readWindowPage(ws, q, cursor, 3));
        if (!page.ok())
            qFatal("%s", qPrintable(page.error->message));
        events << page->events;
        cursor = page->next;
        if (page->end)
            break;
    }
    events << *await(readSettlingTail(ws, q, 0));
    return events;
}

/// `json` without the members of the export's moment ("generated_at", "clocks", and each
/// record's "server_now", "age_seconds" and "expires_in_seconds", read then).
QByteArray withoutMoment(QByteArray json)
{
    static const QRegularExpression moment(QStringLiteral("\n    \"generated_at\": [^\n]*|\n    \"clocks\": \\[(.|\n)*?\n    \\],"
                                                          "|\"server_now\":\"[^\"]*\"|\"age_seconds\":[^,]*,|\"expires_in_seconds\":[^,]*,"));
    return QString::fromUtf8(json).remove(moment).toUtf8();
}

const KeyDetail *keyIn(const IncidentBundle &b, const QString &key)
{
    for (const KeyDetail &d : b.keys)
        if (d.idemKey == key)
            return &d;
    return nullptr;
}

} // namespace

class TestBundleExport : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void storeDown_data();
    void storeDown();
    void recording_data();
    void recording();
    void bulkDetails_data();
    void bulkDetails();
};

void TestBundleExport::roundTrip_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestBundleExport::roundTrip()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seedOdd(db));
    Workspace ws(db.config());
    const auto first = await(exportBundle(ws, window(), std::nullopt, RedactionRules(), false));
    TRIAGE_VERIFY_OUTCOME(first);
    const IncidentBundle &b = *first;
    QVERIFY(b.complete());
    QCOMPARE(b.notRecordedReason, QStringLiteral("not recorded (--no-record)"));
    QCOMPARE(b.stores.size(), 3);
    for (const BundleStore &s : b.stores)
        QCOMPARE(s.watermark, QStringLiteral("2026-01-01T00:03:20.000000Z")); // the window ended long ago: final to its end
    QVERIFY(!b.clocks.isEmpty());

    // The same events as the window read directly, hashed as documented.
    const QVector<WindowEvent> direct = readDirect(ws, window());
    QCOMPARE(QString::fromUtf8(canonicalEventList(b.events)), QString::fromUtf8(canonicalEventList(direct)));
    QCOMPARE(b.events.size(), 11);
    QCOMPARE(b.eventsSha256, bundleEventsSha256(direct));
    QCOMPARE(b.summary.events[int(EventKind::RecordCreated)], qint64(3));
    QCOMPARE(b.keys.size(), 3);
    QCOMPARE(b.keys[0].idemKey, QStringLiteral("k:a"));

    // Written and read back: every value byte-exact.
    const QByteArray json = writeBundleJson(b);
    QString error;
    const auto back = readBundleJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(verifyBundleHash(*back));
    QCOMPARE(back->eventsSha256, b.eventsSha256);
    QCOMPARE(canonicalEventList(back->events), canonicalEventList(b.events));
    QCOMPARE(writeBundleJson(*back), json);
    const KeyDetail *odd = keyIn(*back, kOdd);
    QVERIFY(odd && odd->record);
    QVERIFY2(*odd->record->resultSnapshot == expectedBlob(db),
             qPrintable(QStringLiteral("snapshot of %1 characters").arg(odd->record->resultSnapshot->size())));
    QCOMPARE(odd->tickets.size(), 1);
    QCOMPARE(*odd->tickets[0].title, expectedTitle(db));
    if (db.dialect() == QLatin1String("sqlite")) {
        QCOMPARE(odd->tickets[0].escapedColumns, QStringList{QStringLiteral("title")});
        QCOMPARE(unescapeInvalidUtf8(*odd->tickets[0].title), std::optional<QByteArray>(QByteArray("VPN\0down Z\xFCrich", 15)));
    }
    bool titleEvent = false;
    for (const WindowEvent &e : back->events)
        if (e.kind == EventKind::TicketCreated && e.idemKey == kOdd) {
            QCOMPARE(e.detail, expectedTitle(db) + QStringLiteral(" (now OPEN)")); // DESIGN.md §7 "Honesty"
            titleEvent = true;
        }
    QVERIFY(titleEvent);
    // Redaction: the attempt's secrets replaced by their hashes, the big number kept as written.
    QCOMPARE(*odd->attempts[0].request,
             QStringLiteral("{\"headers\":{\"Authorization\":\"[redacted sha256:%1]\"},\"password\":\"[redacted sha256:%2]\","
                            "\"n\":12345678901234567890}")
                 .arg(QString::fromLatin1(QCryptographicHash::hash("Bearer s3cret", QCryptographicHash::Sha256).toHex()),
                      QString::fromLatin1(QCryptographicHash::hash("hunter2", QCryptographicHash::Sha256).toHex())));
    QCOMPARE(back->redactions.size(), 2);
    QCOMPARE(back->redactions[0].where, QStringLiteral("keys[k:odd].attempts[0].request.headers.Authorization"));
    // The record's ages as the export read them, on the database's clock (format version 3):
    // server_now, and the age measured against it, never 0 with no time (DESIGN.md §7).
    QVERIFY(odd->record->serverNow.startsWith(QLatin1String("20")));
    QCOMPARE(int(odd->record->ageBasis), int(RecordDetail::AgeBasis::AtExport));
    const double expectedAge =
        double(*parseUtcMicros(odd->record->serverNow) - *parseUtcMicros(odd->record->updatedAt)) / 1e6;
    QVERIFY2(std::fabs(odd->record->ageSeconds - expectedAge) < 0.001,
             qPrintable(QStringLiteral("age %1 s, server_now - updated_at %2 s").arg(odd->record->ageSeconds).arg(expectedAge)));
    QVERIFY(odd->record->stale == false); // status 2 (FAILED): never stale

    // A second export of the same data: the same hash, the same file but its moment.
    const auto second = await(exportBundle(ws, window(), std::nullopt, RedactionRules(), false));
    TRIAGE_VERIFY_OUTCOME(second);
    QCOMPARE(second->eventsSha256, b.eventsSha256);
    const QByteArray again = writeBundleJson(*second);
    QVERIFY(withoutMoment(json).size() < json.size());
    QVERIFY(withoutMoment(json) == withoutMoment(again));
}

void TestBundleExport::bulkDetails_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

/// A key's detail without what depends on the reading moment (as the bundle keeps it), compact JSON.
QByteArray momentless(KeyDetail d)
{
    if (d.record) {
        for (const QString &w : expiryWarnings(*d.record))
            d.warnings.removeAll(w);
        d.record->ageSeconds = 0;
        d.record->expiresInSeconds.reset();
        d.record->serverNow = QString();
    }
    return QJsonDocument(key_json::keyDetailFull(d)).toJson(QJsonDocument::Compact);
}

void TestBundleExport::bulkDetails()
{
    // loadKeyDetails() (the export's bulk read) gives exactly what loadKeyDetail() gives key by
    // key: records, tickets, attempts, audit, compensations with their attempts, a
    // key with nothing, the 10 MB snapshot and odd text; and a batch larger than one statement.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seedOdd(db));
    TRIAGE_OK(db.adminExec(QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, "
                                          "status, attempts, operator, reason, created_at, updated_at) VALUES "
                                          "('comp:cancel:2:k:b', 'k:b', 'ticket_create', 'cancel', '2', '{}', 'SUCCEEDED', 1, 'bob', "
                                          "'duplicate ticket', %1, %2), ('comp:cancel:4:k:b', 'k:b', 'ticket_create', 'cancel', '4', "
                                          "'{}', 'INTENT', 0, 'bob', 'duplicate ticket', %3, %3)")
                               .arg(ts(db, 160000), ts(db, 180000), ts(db, 170000))));
    TRIAGE_OK(db.adminExec(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, classification) "
                                          "VALUES ('comp:cancel:4:k:b', 'send', %1, 503, 'RETRYABLE'), "
                                          "('comp:cancel:2:k:b', 'send', %2, 200, 'SUCCEEDED'), "
                                          "('comp:cancel:2:k:b', 'confirm', %3, 200, 'CONFIRMED')")
                               .arg(ts(db, 171000), ts(db, 172000), ts(db, 190000))));
    Workspace ws(db.config());
    QStringList keys{QStringLiteral("k:a"), QStringLiteral("k:b"), QStringLiteral("k:c"), QStringLiteral("k:z"), kOdd,
                     QStringLiteral("k:none"), QStringLiteral("K:A")};
    for (int i = 0; i < kKeysPerStatement; ++i) // past one statement's keys
        keys << QStringLiteral("k:filler:%1").arg(i);
    keys << QStringLiteral("k:b:last");
    TRIAGE_OK(record(db, QStringLiteral("k:b:last"), 120000, 130000, 1));
    const QVector<KeyDetail> bulk = loadKeyDetails(ws, keys).result();
    QCOMPARE(bulk.size(), keys.size());
    for (qsizetype i = 0; i < keys.size(); ++i) {
        if (i >= 7 && i < keys.size() - 1)
            continue; // the fillers: checked below as empty
        const KeyDetail one = loadKeyDetail(ws, keys[i]).result();
        QCOMPARE(bulk[i].idemKey, keys[i]);
        QCOMPARE(momentless(bulk[i]), momentless(one));
        // The bundle's line (attempts and timeline written directly) is QJsonDocument's.
        QCOMPARE(key_json::keyDetailFullLine(bulk[i]), QJsonDocument(key_json::keyDetailFull(bulk[i])).toJson(QJsonDocument::Compact));
    }
    QCOMPARE(bulk[1].tickets.size(), 1);
    QCOMPARE(bulk[1].compensations.size(), 2);
    QCOMPARE(bulk[1].compensationAttempts.size(), 3);
    QCOMPARE(bulk[1].compensationAttempts[0].compKey, QStringLiteral("comp:cancel:2:k:b"));
    QVERIFY(!bulk[5].record && bulk[5].attempts.isEmpty());
    QVERIFY(!bulk[6].record); // "K:A" is not "k:a", even on MariaDB's case-insensitive collations
    QVERIFY(bulk[keys.size() - 1].record);
    QVERIFY(!bulk[100].record && bulk[100].tickets.isEmpty() && bulk[100].errors.isEmpty());
}

void TestBundleExport::storeDown_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, false);
}

void TestBundleExport::storeDown()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    WorkspaceConfig config = db.config();
    // The ticket store on a loopback port nobody listens on.
    const QString scheme = db.dialect() == QLatin1String("mysql") ? QStringLiteral("mysql") : QStringLiteral("postgresql");
    QString error;
    const auto down = ConnectionProfile::fromUrl(QStringLiteral("%1://triage@127.0.0.1:%2/gone").arg(scheme).arg(closedPort()),
                                                 DbRole::Ticket, &error);
    QVERIFY2(down, qPrintable(error));
    config.setProfile(*down);
    Workspace ws(config);
    const auto out = await(exportBundle(ws, window(), std::nullopt, RedactionRules(), true));
    TRIAGE_VERIFY_OUTCOME(out);
    QVERIFY(!out->complete());
    QCOMPARE(out->stores[2].role, DbRole::Ticket);
    QVERIFY(!out->stores[2].ok);
    QVERIFY2(out->stores[2].error.startsWith(QStringLiteral("cannot connect to the ticket database")), qPrintable(out->stores[2].error));
    QCOMPARE(out->stores[2].watermark, QString());
    QVERIFY(out->stores[0].ok && out->stores[1].ok);
    // Everything but the tickets is exported.
    QStringList kinds;
    for (const WindowEvent &e : out->events)
        kinds << eventKindName(e.kind);
    QVERIFY(!kinds.contains(QStringLiteral("ticket.created")));
    QCOMPARE(kinds.count(QStringLiteral("intent.attempt")), 2);
    QCOMPARE(kinds.count(QStringLiteral("audit")), 1);
    QCOMPARE(out->keys.size(), 2);
    QVERIFY(out->keys[0].errors.contains(DbRole::Ticket));
    // Named in the file, and recorded all the same.
    const auto back = readBundleJson(writeBundleJson(*out), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(!back->complete());
    QCOMPARE(back->stores[2].error, out->stores[2].error);
    QVERIFY(out->recorded.has_value());
}

void TestBundleExport::recording_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, false);
}

void TestBundleExport::recording()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(seed(db));
    WorkspaceConfig config = db.config();
    config.operatorName = QStringLiteral("alice");
    Workspace ws(config);
    const auto created = await(createIncident(ws, QStringLiteral("Outage"), window(), QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(created);
    const auto pinned = await(pinEvent(ws, created->incidentId, EventKind::Audit, QStringLiteral("1"), QStringLiteral("the mark"),
                                       QStringLiteral("bob")));
    TRIAGE_VERIFY_OUTCOME(pinned);
    const auto noted = await(addIncidentNote(ws, created->incidentId, QStringLiteral("ticket first"), std::nullopt, {}, QStringLiteral("carol")));
    TRIAGE_VERIFY_OUTCOME(noted);

    // From the incident, not redacted: recorded with its audit row.
    RedactionRules off;
    off.enabled = false;
    const auto out = await(exportBundle(ws, WindowQuery(), created->incidentId, off, true));
    TRIAGE_VERIFY_OUTCOME(out);
    QVERIFY(out->incident.has_value());
    QCOMPARE(out->incident->pins.size(), 1);
    QCOMPARE(out->incident->pins[0].event->detail, QStringLiteral("mark_success"));
    QCOMPARE(out->incident->notes[0].text, QStringLiteral("ticket first"));
    QCOMPARE(out->query.from, window().from);
    QCOMPARE(out->events.size(), 8);
    QVERIFY(out->recorded.has_value());
    QCOMPARE(out->recorded->exportedBy, QStringLiteral("alice"));
    QCOMPARE(out->recorded->incidentId, std::optional<qint64>(created->incidentId));
    QCOMPARE(out->recorded->eventCount, qint64(8));
    QVERIFY(!out->recorded->redacted);
    QVERIFY(isCanonicalTime(out->recorded->exportedAt));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action FROM triage_audit WHERE idem_key = 'incident:1' ORDER BY id")),
             (QStringList{QStringLiteral("incident.create"), QStringLiteral("incident.pin"), QStringLiteral("incident.note"),
                          QStringLiteral("incident.export")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT detail FROM triage_audit WHERE action = 'incident.export'")),
             QStringList{QStringLiteral("--no-redact: secrets in the bundle are not redacted")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT reason FROM triage_audit WHERE action = 'incident.export'")),
             QStringList{QStringLiteral("exported 8 events without redaction (--no-redact)")});
    QVERIFY(db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE action = 'incident.export'"))
                .value(0)
                .contains(QStringLiteral("\"redaction\":\"off (--no-redact)\"")));

    // Found again by its hash (in any case); another hash finds nothing.
    const auto found = await(findBundleExports(ws, out->eventsSha256.toUpper()));
    TRIAGE_VERIFY_OUTCOME(found);
    QCOMPARE(found->size(), 1);
    QCOMPARE(found->at(0).id, out->recorded->id);
    QCOMPARE(found->at(0).exportedAt, out->recorded->exportedAt);
    const auto none = await(findBundleExports(ws, QString(64, QLatin1Char('0'))));
    TRIAGE_VERIFY_OUTCOME(none);
    QVERIFY(none->isEmpty());
    const auto gone = await(exportBundle(ws, WindowQuery(), 99, RedactionRules(), true));
    QVERIFY(!gone.ok());
    QCOMPARE(gone.error->message, QStringLiteral("no incident 99"));

    // Read-only mode: exported, not recorded, said so.
    WorkspaceConfig readOnly = config;
    readOnly.readOnly = true;
    {
        Workspace ro(readOnly);
        const auto r = await(exportBundle(ro, window(), std::nullopt, RedactionRules(), true));
        TRIAGE_VERIFY_OUTCOME(r);
        QVERIFY(!r->recorded);
        QCOMPARE(r->notRecordedReason, QStringLiteral("read-only mode: the export is not recorded"));
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_incident_export")), QStringList{QStringLiteral("1")});

    // A database an older init-schema brought to version 2: exported, not recorded, and why.
    TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE triage_incident_export"));
    TRIAGE_ADMIN(db, QStringLiteral("UPDATE triage_meta SET meta_value = '2' WHERE meta_key = 'schema_version'"));
    Workspace old(config);
    const auto v2 = await(exportBundle(old, window(), std::nullopt, RedactionRules(), true));
    TRIAGE_VERIFY_OUTCOME(v2);
    QVERIFY(v2->recordError.has_value());
    QCOMPARE(v2->recordError->kind, DbError::Kind::Config);
    QCOMPARE(v2->notRecordedReason, QStringLiteral("not recorded: the idempotency database has no incident export table (console "
                                                   "schema version 2; recorded exports need version 3): run `triagectl init-schema`"));
    const auto find = await(findBundleExports(old, out->eventsSha256));
    QVERIFY(!find.ok());
    QCOMPARE(find.error->kind, DbError::Kind::Config);
}

QTEST_GUILESS_MAIN(TestBundleExport)
#include "tst_bundle_export.moc"
