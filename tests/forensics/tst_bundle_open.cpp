// The bundle file's streamed writer and two-step reader (DESIGN.md §7 "Bundles", "Offline
// viewer"): the streamed bytes are the one-piece writer's, batch boundaries included; the
// head (header and first events) read without the rest, a file in another layout read whole,
// bad input with the whole reader's exact messages; format version 1 ("notes") still read
// and verified. Pure; no database.
#include "Bundle.h"
#include "KeyDetailJson.h"

#include <cmath>

#include <QBuffer>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;

namespace {

/// `events` events over `keys` keys (past the writer's 4096-event and 64-key batches), each
/// key with two attempts whose texts need escaping.
IncidentBundle bigBundle(int events, int keys)
{
    IncidentBundle b;
    b.toolVersion = QStringLiteral("0.1.0");
    b.generatedAt = QStringLiteral("2026-12-02T10:00:00.000000Z");
    b.generatedBy = QStringLiteral("alice");
    b.query.from = *parseUtcMicros(u"2026-12-01T02:00:00Z");
    b.query.to = *parseUtcMicros(u"2026-12-01T03:00:00Z");
    b.stores = {{DbRole::Idempotency, true, {}, QStringLiteral("2026-12-02T09:59:00.000000Z")}};
    b.notes = {QStringLiteral("biz_type filter not applied to ticket.created")};
    for (int i = 0; i < events; ++i) {
        WindowEvent e;
        e.at = b.query.from + qint64(i) * 1000;
        e.atText = formatUtcMicros(e.at);
        e.kind = i % 2 ? EventKind::IntentAttempt : EventKind::RecordCreated;
        e.store = storeOf(e.kind);
        e.id = QString::number(i);
        e.idemKey = QStringLiteral("k:%1").arg(i % keys);
        e.status = QStringLiteral("UNKNOWN");
        e.detail = QStringLiteral("line \"%1\"\n\ttab \\ \u00FC \U0001F600").arg(i);
        b.events << e;
    }
    b.eventsSha256 = bundleEventsSha256(b.events);
    for (int k = 0; k < keys; ++k) {
        KeyDetail d;
        d.idemKey = QStringLiteral("k:%1").arg(k);
        for (int n = 0; n < 2; ++n) {
            IntentAttempt a;
            a.id = k * 2 + n;
            a.request = QStringLiteral("{\"title\":\"VPN \\\"down\\\"\",\"n\":12345678901234567890,\"u\":\"\u00FC\"}");
            a.createdAt = QStringLiteral("2026-12-01T02:10:00.000001Z");
            d.attempts << a;
        }
        b.keys << d;
    }
    return b;
}

QString headError(const QByteArray &bytes)
{
    QString error;
    const auto head = readBundleHead(bytes, kBundleFirstEvents, &error);
    return head ? QStringLiteral("(read)") : error;
}

QString wholeError(const QByteArray &bytes)
{
    QString error;
    const auto b = readBundleJson(bytes, &error);
    return b ? QStringLiteral("(read)") : error;
}

} // namespace

class TestBundleOpen : public QObject {
    Q_OBJECT
private slots:
    void streamedWriter();
    void formatVersion1();
    void head();
    void headBadInput();
};

void TestBundleOpen::streamedWriter()
{
    const IncidentBundle b = bigBundle(5000, 130);
    const QByteArray json = writeBundleJson(b);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QString error;
    QVERIFY(writeBundleJson(b, &buffer, &error));
    QCOMPARE(buffer.data(), json);
    // The events exactly as the canonical lines, one per line; the keys each one compact document.
    QList<QByteArray> lines = canonicalEventList(b.events).split('\n');
    lines.removeLast();
    QVERIFY(json.contains("\n    \"events\": [\n        " + lines.join(",\n        ") + "\n    ],\n"));
    QList<QByteArray> keys;
    for (const KeyDetail &d : b.keys)
        keys << QJsonDocument(key_json::keyDetailFull(d)).toJson(QJsonDocument::Compact);
    QVERIFY(json.endsWith("\n    \"keys\": [\n        " + keys.join(",\n        ") + "\n    ]\n}\n"));
    // Empty lists.
    IncidentBundle empty = bigBundle(0, 0);
    QVERIFY(writeBundleJson(empty).endsWith("    \"events\": [],\n    \"keys\": []\n}\n"));
    // A device that refuses the bytes: false, with its message.
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("b.json")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    error.clear();
    QVERIFY(!writeBundleJson(b, &file, &error));
    QCOMPARE(error, file.errorString());
    QVERIFY(!error.isEmpty());
}

void TestBundleOpen::formatVersion1()
{
    // A bundle written before format version 2 (the stream's notes under "notes") still reads
    // and verifies; written again it comes out in version 2, the same events and hash.
    const IncidentBundle b = bigBundle(20, 3);
    const QByteArray v2 = writeBundleJson(b);
    QByteArray v1 = v2;
    v1.replace("\n    \"format_version\": 3,\n", "\n    \"format_version\": 1,\n");
    v1.replace("\n    \"window_notes\": [", "\n    \"notes\": [");
    QVERIFY(v1 != v2);
    QString error;
    const auto back = readBundleJson(v1, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->formatVersion, 1);
    QCOMPARE(back->notes, b.notes);
    QVERIFY(verifyBundleHash(*back));
    QCOMPARE(writeBundleJson(*back), v2);
    QString headErr;
    const auto head = readBundleHead(v1, kBundleFirstEvents, &headErr);
    QVERIFY2(head, qPrintable(headErr));
    QCOMPARE(head->bundle.notes, b.notes);
    // Each version wants its own name.
    QByteArray v1Named2 = v2;
    v1Named2.replace("\n    \"format_version\": 3,\n", "\n    \"format_version\": 1,\n");
    QCOMPARE(wholeError(v1Named2), QStringLiteral("malformed bundle: \"notes\" is missing"));
    QCOMPARE(headError(v1Named2), QStringLiteral("malformed bundle: \"notes\" is missing"));
    QCOMPARE(wholeError(v1.replace("\n    \"format_version\": 1,\n", "\n    \"format_version\": 2,\n")),
             QStringLiteral("malformed bundle: \"window_notes\" is missing"));
    // A file exported by the build before version 2 (tests/forensics/data/bundle-v1.json).
    QFile old(QStringLiteral(TRIAGE_FORENSICS_TEST_DATA "/bundle-v1.json"));
    QVERIFY(old.open(QIODevice::ReadOnly));
    const auto exported = readBundleJson(old.readAll(), &error);
    QVERIFY2(exported, qPrintable(error));
    QCOMPARE(exported->formatVersion, 1);
    QVERIFY(!exported->events.isEmpty());
    QVERIFY(verifyBundleHash(*exported));
    // Its records' ages were written as 0 with no server_now: unknown, never 0 (DESIGN.md §7).
    int records = 0;
    for (const KeyDetail &k : exported->keys)
        if (k.record) {
            ++records;
            QCOMPARE(int(k.record->ageBasis), int(RecordDetail::AgeBasis::Unknown));
            QVERIFY(std::isnan(k.record->ageSeconds));
            QVERIFY(!k.record->expiresInSeconds);
            QCOMPARE(k.record->serverNow, QString());
        }
    QVERIFY(records > 0);
    // Written again (version 3): still unknown, as null.
    const QByteArray again = writeBundleJson(*exported);
    QVERIFY(again.contains("\"age_seconds\":null,"));
    QVERIFY(!again.contains("\"age_seconds\":0,"));
    const auto reread = readBundleJson(again, &error);
    QVERIFY2(reread, qPrintable(error));
    for (const KeyDetail &k : reread->keys)
        if (k.record)
            QCOMPARE(int(k.record->ageBasis), int(RecordDetail::AgeBasis::Unknown));
}

void TestBundleOpen::head()
{
    const IncidentBundle b = bigBundle(5000, 130);
    const QByteArray json = writeBundleJson(b);
    QString error;
    auto head = readBundleHead(json, 1000, &error);
    QVERIFY2(head, qPrintable(error));
    QVERIFY(!head->whole);
    QCOMPARE(head->eventCount, qint64(5000));
    QCOMPARE(head->bundle.events.size(), 1000);
    QCOMPARE(canonicalEventList(head->bundle.events), canonicalEventList(b.events.mid(0, 1000)));
    QCOMPARE(head->bundle.eventsSha256, b.eventsSha256);
    QCOMPARE(head->bundle.notes, b.notes);
    QCOMPARE(head->bundle.query.from, b.query.from);
    QCOMPARE(head->bundle.generatedBy, QStringLiteral("alice"));
    QCOMPARE(head->bundle.stores.size(), 1);
    QVERIFY(head->bundle.keys.isEmpty());
    // Fewer events than asked for: all of them.
    head = readBundleHead(json, 10000, &error);
    QVERIFY(head && !head->whole);
    QCOMPARE(head->bundle.events.size(), 5000);
    head = readBundleHead(writeBundleJson(bigBundle(0, 0)), 1000, &error);
    QVERIFY(head && !head->whole && head->bundle.events.isEmpty() && head->eventCount == 0);
    // Another layout (re-indented by a tool): read whole at once.
    const QByteArray indented = QJsonDocument::fromJson(json).toJson(QJsonDocument::Indented);
    head = readBundleHead(indented, 1000, &error);
    QVERIFY2(head, qPrintable(error));
    QVERIFY(head->whole);
    QCOMPARE(head->bundle.events.size(), 5000);
    QCOMPARE(head->bundle.keys.size(), 130);
    QVERIFY(verifyBundleHash(head->bundle));
}

void TestBundleOpen::headBadInput()
{
    const QByteArray json = writeBundleJson(bigBundle(5000, 130));
    // Cut short: the whole reader's message, at once.
    const QByteArray cut = json.left(json.indexOf("\n    \"keys\": ["));
    QCOMPARE(headError(cut), wholeError(cut));
    QCOMPARE(headError(cut), QStringLiteral("not JSON: unterminated object at offset %1").arg(cut.size()));
    QCOMPARE(headError(json.left(100)), QStringLiteral("not JSON: unterminated object at offset 100"));
    QCOMPARE(headError(QByteArray()), QStringLiteral("not JSON: illegal value at offset 0"));
    // Malformed JSON in the header.
    QByteArray badHeader = json;
    badHeader.replace("\n    \"complete\": true,\n", "\n    \"complete\": tru,\n");
    QCOMPARE(headError(badHeader), QStringLiteral("not JSON: illegal value at offset %1").arg(json.indexOf("tru") + 4)); // Qt names the character after "tru,"
    // A newer format version, a missing member, not a bundle.
    QByteArray newer = json;
    newer.replace("\"format_version\": 3,", "\"format_version\": 4,");
    QCOMPARE(headError(newer), QStringLiteral("bundle format version 4 is newer than this build reads (3): upgrade the console"));
    QByteArray missing = json;
    missing.replace("\"events_sha256\"", "\"events_sha\"");
    QCOMPARE(headError(missing), QStringLiteral("malformed bundle: \"events_sha256\" is missing"));
    QCOMPARE(headError("{\"format\":\"other\"}"), QStringLiteral("not a triage incident bundle (format \"other\")"));
    // A bad event after the first ones: the head reads (the viewer shows the first page); the
    // whole reader, run next, names it.
    QByteArray lateBad = json;
    const qsizetype at = lateBad.indexOf("\"intent.attempt\",\"3001\"");
    QVERIFY(at > 0);
    lateBad.replace(at, 16, "\"intent.nope\"");
    QCOMPARE(headError(lateBad), QStringLiteral("(read)"));
    QCOMPARE(wholeError(lateBad), QStringLiteral("malformed bundle: \"events[3001][2]\" names an unknown kind \"intent.nope\""));
}

QTEST_GUILESS_MAIN(TestBundleOpen)
#include "tst_bundle_open.moc"
