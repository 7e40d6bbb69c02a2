// The incident bundle's file form (DESIGN.md §7 "Bundles"): canonical event list and hash,
// the writer's determinism, the exact round trip of odd values (invalid UTF-8 in its escaped
// form, NUL characters, a 10 MB value, SQL NULL), the reader's messages, redaction. Pure; no
// database.
#include "Bundle.h"
#include "BundleParts.h"
#include "BundleRedactor.h"
#include "KeyDetailJson.h"
#include "KeyDetailJsonLine.h"
#include "LiteralFinder.h"
#include "Sha256Stream.h"
#include "TextEscape.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace triage;

namespace {

WindowEvent windowEvent(const QString &at, EventKind kind, const QString &id, const QString &key, const QString &detail)
{
    WindowEvent e;
    e.atText = at;
    e.at = *parseUtcMicros(at);
    e.kind = kind;
    e.store = storeOf(kind);
    e.id = id;
    e.idemKey = key;
    e.status = QStringLiteral("UNKNOWN");
    e.detail = detail;
    return e;
}

const QByteArray kOddBytes("bad \xff\xfe utf8 \\ and \xc3", 19);

QString bigValue()
{
    QString s = QStringLiteral("{\"blob\":\"");
    s += QString(10 * 1024 * 1024, QLatin1Char('x'));
    s[100] = QChar(0); // a NUL inside
    s += QStringLiteral("\"}");
    return s;
}

/// A bundle with every odd value the stores can give.
IncidentBundle oddBundle()
{
    IncidentBundle b;
    b.toolVersion = QStringLiteral("0.1.0");
    b.generatedAt = QStringLiteral("2026-12-02T10:00:00.000000Z");
    b.generatedBy = QStringLiteral("alice");
    b.query.from = *parseUtcMicros(u"2026-12-01T02:00:00Z");
    b.query.to = *parseUtcMicros(u"2026-12-01T03:00:00Z");
    b.query.bizType = QStringLiteral("ticket_create");
    b.query.kinds = {EventKind::IntentAttempt, EventKind::TicketCreated};
    b.query.statuses = {QStringLiteral("UNKNOWN")};
    b.stores = {{DbRole::Idempotency, true, {}, QStringLiteral("2026-12-02T09:59:00.000000Z")},
                {DbRole::Intent, true, {}, QStringLiteral("2026-12-02T09:59:00.000000Z")},
                {DbRole::Ticket, true, {}, QStringLiteral("2026-12-02T09:59:00.000000Z")}};
    b.clocks = {{DbRole::Idempotency, 12, 3}, {DbRole::Ticket, -1500, 4}};
    b.events = {windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::IntentAttempt, QStringLiteral("7"),
                      QStringLiteral("k:1"), QStringLiteral("create_ticket")),
                windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::TicketCreated, QStringLiteral("T-0042"),
                      escapeInvalidUtf8(kOddBytes), QString::fromUtf8("nul\0inside", 10)),
                windowEvent(QStringLiteral("2026-12-01T02:59:59.999999Z"), EventKind::RecordUpdated, QStringLiteral("3"),
                      QStringLiteral("k:ü/%#"), QString())};
    b.events[2].settling = true;
    b.eventsSha256 = bundleEventsSha256(b.events);
    b.summary.events[int(EventKind::IntentAttempt)] = 1;
    b.summary.perMinute = {{QStringLiteral("2026-12-01T02:10"), EventKind::IntentAttempt, 1}};
    b.summary.topBizTypes = {{QStringLiteral("ticket_create"), 2}};
    b.notes = {QStringLiteral("biz_type filter not applied to ticket.created")};

    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    RecordDetail r;
    r.id = 9007199254740993; // above 2^53: must not go through a double
    r.idemKey = d.idemKey;
    r.bizType = std::nullopt;
    r.statusText = QStringLiteral("PROCESSING");
    r.statusCode = 0;
    r.statusStored = QStringLiteral("0");
    r.statusStoredIsNumber = true;
    r.resultSnapshot = bigValue();
    r.createdAt = QStringLiteral("2026-12-01T02:10:00.000000Z");
    r.updatedAt = QStringLiteral("2026-12-01T02:10:00.000000Z");
    r.hasExpireAtColumn = false;
    r.ageSeconds = 0.1 + 0.2; // as the export read it, against server_now (format version 3)
    r.serverNow = QStringLiteral("2026-12-01T02:10:00.300000Z");
    r.failedEvidence = FailedEvidence::TicketAbsent;
    r.allColumns = {{QStringLiteral("id"), QStringLiteral("9007199254740993")},
                    {QStringLiteral("note"), QStringLiteral("NULL")},
                    {QStringLiteral("extra"), QStringLiteral("NULL")}};
    r.nullColumns = {QStringLiteral("note")};
    r.escapedColumns = {QStringLiteral("result_snapshot")};
    d.record = r;
    TicketRow t;
    t.id = BusinessId(QStringLiteral("042"));
    t.idemKey = d.idemKey;
    t.title = escapeInvalidUtf8(kOddBytes);
    t.escapedColumns = {QStringLiteral("title")};
    t.hasUpdatedAtColumn = false;
    d.tickets = {t};
    IntentAttempt a;
    a.id = 7;
    a.request = QStringLiteral("{\"token\":\"abc\",\"n\":12345678901234567890}");
    a.response = escapeInvalidUtf8(kOddBytes);
    a.escapedColumns = {QStringLiteral("response")};
    a.createdAt = QStringLiteral("2026-12-01T02:10:00.000001Z");
    d.attempts = {a};
    CompensationRow c;
    c.id = 4;
    c.compKey = QStringLiteral("comp:1");
    c.target = QStringLiteral("42");
    c.request = QStringLiteral("{\"headers\":{\"Authorization\":\"Bearer x\"}}");
    d.compensations = {c};
    CompensationAttemptRow ca;
    ca.id = 5;
    ca.compKey = c.compKey;
    ca.httpStatus = 503;
    d.compensationAttempts = {ca};
    d.errors.insert(DbRole::Ticket, DbError{DbRole::Ticket, DbError::Kind::Connection, QStringLiteral("ticket database: down"),
                                            QStringLiteral("08006")});
    d.tickets.clear(); // a failed store's part is empty
    d.warnings = {QStringLiteral("result_snapshot is not valid UTF-8")};
    b.keys = {d};
    KeyDetail d2 = d;
    d2.idemKey = QStringLiteral("k:2");
    d2.errors.clear();
    d2.tickets = {t};
    d2.record.reset();
    b.keys.append(d2);
    return b;
}

QByteArray withoutGeneratedAt(QByteArray json)
{
    return json.replace(QRegularExpression(QStringLiteral("\"generated_at\": \"[^\"]*\"")).match(QString::fromUtf8(json)).captured().toUtf8(), "");
}

QString readError(const QByteArray &bytes)
{
    QString error;
    const auto b = readBundleJson(bytes, &error);
    return b ? QStringLiteral("(read)") : error;
}

} // namespace

/// A device that takes `limit` bytes, then refuses every write ("No space left on device").
class FullDevice : public QIODevice
{
public:
    explicit FullDevice(qsizetype limit)
        : m_limit(limit)
    {
        open(QIODevice::WriteOnly);
    }
    QByteArray bytes;

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override
    {
        if (bytes.size() + size > m_limit) {
            setErrorString(QStringLiteral("No space left on device"));
            return -1;
        }
        bytes.append(data, size);
        return size;
    }

private:
    qsizetype m_limit;
};

class TestBundle : public QObject {
    Q_OBJECT

private slots:
    void canonicalList();
    void keyLine();
    void roundTrip();
    void determinism();
    void malformed();
    void hashMismatch();
    void redaction();
    void redactionOff();
    void redactionSkipsTextsWithoutNames();
    void redactionNotesAndActors();
    void redactionFreeText();
    void literalFinder();
    void redactionSubstitution();
    void redactorInSteps();
    void writerBlocks();
    void sha256Stream();
    void matchingExportRecord();
};

void TestBundle::canonicalList()
{
    const IncidentBundle b = oddBundle();
    const QByteArray list = canonicalEventList(b.events);
    QCOMPARE(list.count('\n'), 3);
    QCOMPARE(list.split('\n').at(0),
             QByteArray(R"(["2026-12-01T02:10:00.000001Z","intent","intent.attempt","7","k:1",null,"UNKNOWN",null,false,null,"create_ticket",false])"));
    QCOMPARE(list.split('\n').at(2).right(6), QByteArray(",true]"));
    QCOMPARE(bundleEventsSha256(b.events),
             QString::fromLatin1(QCryptographicHash::hash(list, QCryptographicHash::Sha256).toHex()));
    QCOMPARE(canonicalEventList({}), QByteArray());
    // Each line exactly as QJsonDocument::Compact writes the documented array (DESIGN.md §7),
    // also for quotes, controls, NUL, a lone surrogate, a pair and a stored empty string.
    QVector<WindowEvent> odd = b.events;
    WindowEvent e = b.events.at(0);
    e.detail = QStringLiteral("say \"hi\"\\ \n\t") + QChar(0) + QChar(0x1b) + QChar(0xd800) + QStringLiteral("x")
             + QChar(0xd83d) + QChar(0xde00) + QStringLiteral("€");
    e.actor = QStringLiteral("");
    e.statusUnmapped = true;
    odd << e;
    QByteArray reference;
    for (const WindowEvent &x : std::as_const(odd)) {
        const auto text = [](const QString &v) { return v.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(v); };
        reference += QJsonDocument(QJsonArray{x.atText, eventStoreName(x.store), eventKindName(x.kind), x.id, text(x.idemKey),
                                              text(x.bizType), text(x.status), text(x.statusNow), x.statusUnmapped, text(x.actor),
                                              text(x.detail), x.settling})
                         .toJson(QJsonDocument::Compact)
                   + '\n';
    }
    QCOMPARE(canonicalEventList(odd), reference);
    QCOMPARE(bundleEventsSha256({}), QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

void TestBundle::keyLine()
{
    // keyDetailFullLine() writes the attempts and the timeline itself: byte for byte
    // QJsonDocument's compact line of keyDetailFull(), for every odd value a key can hold.
    const auto qtLine = [](const KeyDetail &d) { return QJsonDocument(key_json::keyDetailFull(d)).toJson(QJsonDocument::Compact); };
    IncidentBundle b = oddBundle();
    KeyDetail d = b.keys[1];
    IntentAttempt odd;
    odd.id = -9007199254740993; // below -2^53: an integer, never a double
    odd.taskId = QString(); // "" (stored empty), not NULL
    odd.stepId = QStringLiteral("step\t\"1\"\\");
    odd.action = QString::fromUtf8("créer \xf0\x9f\x98\x80 ticket");
    odd.idemKey = d.idemKey;
    odd.status = QStringLiteral("UNKNOWN");
    odd.request = QString(QChar(0xd800)) + QStringLiteral("lone") + QChar(0xdc00) + QChar(0) + QChar(0x1f) + QChar(0x7f);
    odd.error = escapeInvalidUtf8(kOddBytes);
    odd.stateBefore = QStringLiteral("{}");
    odd.actor = QStringLiteral("agent-1");
    odd.escapedColumns = {QStringLiteral("error"), QStringLiteral("request")};
    odd.updatedAt = QStringLiteral("not a time");
    d.attempts << odd << IntentAttempt{};
    TimelineEvent e;
    e.time = QStringLiteral("2026-12-01T02:10:00.000001Z");
    e.source = QStringLiteral("ticket");
    e.kind = QStringLiteral("created");
    e.summary = QString::fromUtf8("ticket \"042\" — ü\n");
    e.refId = BusinessId(QStringLiteral("042"));
    TimelineEvent numeric = e;
    numeric.refId = BusinessId(QStringLiteral("-12345678901234567"));
    TimelineEvent huge = e;
    huge.refId = BusinessId(QStringLiteral("123456789012345678901234567890"));
    d.timeline = {e, numeric, huge, TimelineEvent{}};
    d.warnings = {QStringLiteral("timeline"), QStringLiteral("warnings\":[")};
    d.record = b.keys[0].record;
    d.record->allColumns << qMakePair(QStringLiteral("timeline"), QStringLiteral("[1]"))
                         << qMakePair(QStringLiteral("attempts"), QStringLiteral("x"));
    QCOMPARE(key_json::keyDetailFullLine(d), qtLine(d));
    // A failed intent store: attempts null; the ticket store failed too.
    KeyDetail failed = d;
    failed.attempts.clear();
    failed.errors.insert(DbRole::Intent, DbError{DbRole::Intent, DbError::Kind::Statement, QStringLiteral("intent: gone"), {}});
    failed.errors.insert(DbRole::Ticket, DbError{DbRole::Ticket, DbError::Kind::Connection, QStringLiteral("down"), {}});
    QCOMPARE(key_json::keyDetailFullLine(failed), qtLine(failed));
    QVERIFY(key_json::keyDetailFullLine(failed).startsWith("{\"attempts\":null,\"audit\":[]"));
    // Nothing at all, and the bundle's own keys.
    QCOMPARE(key_json::keyDetailFullLine(KeyDetail{}), qtLine(KeyDetail{}));
    for (const KeyDetail &k : b.keys)
        QCOMPARE(key_json::keyDetailFullLine(k), qtLine(k));
}

void TestBundle::roundTrip()
{
    const IncidentBundle b = oddBundle();
    const QByteArray json = writeBundleJson(b);
    QVERIFY(json.startsWith("{\n    \"format\": \"triage-incident-bundle\",\n    \"format_version\": 3,\n"));
    QVERIFY(json.contains("\n    \"window_notes\": [\n        \"biz_type filter not applied to ticket.created\"\n    ],\n"));
    QString error;
    const auto back = readBundleJson(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(writeBundleJson(*back), json);
    QVERIFY(verifyBundleHash(*back));
    QCOMPARE(back->eventsSha256, b.eventsSha256);
    QVERIFY(back->complete());
    // Events exactly.
    QCOMPARE(back->events.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(back->events[i].at, b.events[i].at);
        QCOMPARE(back->events[i].kind, b.events[i].kind);
        QCOMPARE(back->events[i].store, b.events[i].store);
        QCOMPARE(back->events[i].idemKey, b.events[i].idemKey);
        QCOMPARE(back->events[i].detail, b.events[i].detail);
        QCOMPARE(back->events[i].settling, b.events[i].settling);
    }
    QCOMPARE(back->events[1].detail.size(), 10);
    QCOMPARE(back->events[1].detail.at(3), QChar(0));
    QCOMPARE(unescapeInvalidUtf8(back->events[1].idemKey), std::optional<QByteArray>(kOddBytes));
    // The window and its filters.
    QCOMPARE(back->query.from, b.query.from);
    QCOMPARE(back->query.to, b.query.to);
    QCOMPARE(back->query.bizType, b.query.bizType);
    QCOMPARE(back->query.kinds, b.query.kinds);
    QCOMPARE(back->query.statuses, b.query.statuses);
    QCOMPARE(back->clocks.at(1).offsetMs, qint64(-1500));
    QCOMPARE(back->notes, b.notes);
    // The redactions as QJsonDocument::Indented writes their array (written directly), odd
    // characters in a path included; none: an empty array.
    IncidentBundle r = b;
    r.redactions = {{QStringLiteral("keys[k:\"1\"].attempts[0].request.token"), QStringLiteral("token"), QStringLiteral("ab12")},
                    {QStringLiteral("events[2].detail\t") + QChar(0xd800) + QChar(1), QStringLiteral("pass\\word"), QStringLiteral("cd")}};
    QJsonArray list;
    for (const Redaction &x : std::as_const(r.redactions))
        list.append(QJsonObject{{QStringLiteral("where"), x.where}, {QStringLiteral("field"), x.field}, {QStringLiteral("sha256"), x.sha256}});
    QByteArray indented = QJsonDocument(list).toJson(QJsonDocument::Indented);
    indented.chop(1);
    QVERIFY(writeBundleJson(r).contains("\n    \"redactions\": " + indented.replace("\n", "\n    ") + ",\n    \"window_notes\""));
    const auto redactionsBack = readBundleJson(writeBundleJson(r), &error);
    QVERIFY2(redactionsBack, qPrintable(error));
    QCOMPARE(redactionsBack->redactions.size(), 2);
    QCOMPARE(redactionsBack->redactions.at(1).where, r.redactions.at(1).where);
    QVERIFY(json.contains("\n    \"redactions\": [\n    ],\n"));
    // The keys' details: the 10 MB value with its NUL byte-exact, escaped text and its flag, NULLs.
    QCOMPARE(back->keys.size(), 2);
    const KeyDetail &k = back->keys.at(0);
    QVERIFY(k.record);
    QCOMPARE(k.record->id, qint64(9007199254740993));
    QCOMPARE(k.record->resultSnapshot->size(), b.keys[0].record->resultSnapshot->size());
    QVERIFY(*k.record->resultSnapshot == *b.keys[0].record->resultSnapshot);
    QCOMPARE(k.record->bizType, std::optional<QString>());
    QCOMPARE(k.record->statusStored, std::optional<QString>(QStringLiteral("0")));
    QVERIFY(k.record->statusStoredIsNumber);
    QCOMPARE(k.record->ageSeconds, 0.1 + 0.2);
    QCOMPARE(k.record->serverNow, QStringLiteral("2026-12-01T02:10:00.300000Z"));
    QCOMPARE(int(k.record->ageBasis), int(RecordDetail::AgeBasis::AtExport));
    QCOMPARE(k.record->failedEvidence, FailedEvidence::TicketAbsent);
    QVERIFY(!k.record->hasExpireAtColumn);
    QVERIFY(k.record->expireAt.isNull());
    QCOMPARE(k.record->allColumns, b.keys[0].record->allColumns);
    QCOMPARE(k.record->nullColumns, QStringList{QStringLiteral("note")});
    QCOMPARE(k.record->escapedColumns, QStringList{QStringLiteral("result_snapshot")});
    QCOMPARE(k.attempts.at(0).request, b.keys[0].attempts[0].request);
    QCOMPARE(unescapeInvalidUtf8(*k.attempts.at(0).response), std::optional<QByteArray>(kOddBytes));
    QCOMPARE(k.attempts.at(0).escapedColumns, QStringList{QStringLiteral("response")});
    QCOMPARE(k.attempts.at(0).error, std::optional<QString>());
    QVERIFY(k.tickets.isEmpty());
    QCOMPARE(k.errors.value(DbRole::Ticket).message, QStringLiteral("ticket database: down"));
    QCOMPARE(k.errors.value(DbRole::Ticket).kind, DbError::Kind::Connection);
    QCOMPARE(k.errors.value(DbRole::Ticket).nativeCode, QStringLiteral("08006"));
    QCOMPARE(k.compensations.at(0).id, qint64(4));
    QCOMPARE(k.compensations.at(0).target, QStringLiteral("42"));
    QCOMPARE(k.compensationAttempts.at(0).compKey, QStringLiteral("comp:1"));
    QCOMPARE(k.compensationAttempts.at(0).httpStatus, std::optional<int>(503));
    const KeyDetail &k2 = back->keys.at(1);
    QVERIFY(!k2.record);
    QCOMPARE(k2.tickets.at(0).id.text(), QStringLiteral("042")); // not re-spelled as 42
    QCOMPARE(unescapeInvalidUtf8(*k2.tickets.at(0).title), std::optional<QByteArray>(kOddBytes));
    QVERIFY(!k2.tickets.at(0).hasUpdatedAtColumn);
}

void TestBundle::determinism()
{
    IncidentBundle b = oddBundle();
    const QByteArray first = writeBundleJson(b);
    QCOMPARE(writeBundleJson(b), first);
    b.generatedAt = QStringLiteral("2026-12-03T11:11:11.000000Z");
    const QByteArray second = writeBundleJson(b);
    QVERIFY(first != second);
    QCOMPARE(withoutGeneratedAt(second), withoutGeneratedAt(first));
    QVERIFY(withoutGeneratedAt(first).size() < first.size());
}

void TestBundle::malformed()
{
    const QByteArray good = writeBundleJson(oddBundle());
    QCOMPARE(readError("not json"), QStringLiteral("not JSON: illegal value at offset 1"));
    QCOMPARE(readError("[1]"), QStringLiteral("not a triage incident bundle (not a JSON object)"));
    QCOMPARE(readError("{}"), QStringLiteral("not a triage incident bundle (no \"format\")"));
    QCOMPARE(readError(R"({"format":"other"})"), QStringLiteral("not a triage incident bundle (format \"other\")"));
    QByteArray newer = good;
    newer.replace("\"format_version\": 3,", "\"format_version\": 4,");
    QCOMPARE(readError(newer), QStringLiteral("bundle format version 4 is newer than this build reads (3): upgrade the console"));
    QByteArray wrongType = good;
    wrongType.replace("\"event_count\": 3,", "\"event_count\": \"3\",");
    QCOMPARE(readError(wrongType), QStringLiteral("malformed bundle: \"event_count\" must be a number, not a string"));
    QByteArray wrongCount = good;
    wrongCount.replace("\"event_count\": 3,", "\"event_count\": 4,");
    QCOMPARE(readError(wrongCount), QStringLiteral("malformed bundle: \"event_count\" is 4 but \"events\" holds 3"));
    QByteArray wrongKey = good;
    wrongKey.replace("\"id\":9007199254740993,", "\"id\":\"x\",");
    QCOMPARE(readError(wrongKey), QStringLiteral("malformed bundle: \"keys[0].record.id\" must be a number, not a string"));
    QByteArray missing = good;
    missing.replace("\"events_sha256\"", "\"events_sha\"");
    QCOMPARE(readError(missing), QStringLiteral("malformed bundle: \"events_sha256\" is missing"));
    QByteArray badKind = good;
    badKind.replace("\"intent.attempt\",\"7\"", "\"intent.nope\",\"7\"");
    QCOMPARE(readError(badKind), QStringLiteral("malformed bundle: \"events[0][2]\" names an unknown kind \"intent.nope\""));
    QByteArray badEvent = good;
    badEvent.replace(",\"create_ticket\",false]", ",\"create_ticket\",0]");
    QCOMPARE(readError(badEvent), QStringLiteral("malformed bundle: \"events[0]\" must be [at, store, kind, id, idem_key, biz_type, status, status_now, "
                                                 "status_unmapped, actor, detail, settling]: texts (null where absent) and two booleans"));
}

void TestBundle::hashMismatch()
{
    IncidentBundle b = oddBundle();
    QVERIFY(verifyBundleHash(b));
    QByteArray json = writeBundleJson(b);
    // An event changed in the file after export: read fine, the hash no longer matches.
    json.replace("\"create_ticket\",false]", "\"create_tickeT\",false]");
    QString error;
    const auto tampered = readBundleJson(json, &error);
    QVERIFY2(tampered, qPrintable(error));
    QVERIFY(!verifyBundleHash(*tampered));
    b.events.removeLast();
    QVERIFY(!verifyBundleHash(b));
}

namespace {

QString sha(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QString marker(const QByteArray &bytes)
{
    return QStringLiteral("[redacted sha256:%1]").arg(sha(bytes));
}

QString redactionLine(const Redaction &r)
{
    return QStringLiteral("%1 %2 %3").arg(r.where, r.field, r.sha256);
}

/// Every redaction of `list` as redactionLine() gives it, in order.
QStringList redactionLines(const QVector<Redaction> &list)
{
    QStringList lines;
    for (const Redaction &r : list)
        lines << redactionLine(r);
    return lines;
}

} // namespace

void TestBundle::redaction()
{
    IncidentBundle b;
    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    IntentAttempt a;
    // Headers as an object, fields in any case, a nested member, a number kept exactly, a
    // secret inside a string holding JSON (a body), a list's element.
    a.request = QStringLiteral(R"({"headers": {"Authorization": "Bearer abc", "COOKIE": "sid=1", "Accept": "*/*"},)"
                               R"( "n": 12345678901234567890, "user": {"Password": "hunter2", "name": "bob"},)"
                               R"( "body": "{\"api_key\":\"k-9\",\"x\":1}", "items": [{"token": 7}], "ticket_id": 42})");
    a.response = QStringLiteral(R"({"Set-Cookie": "sid=2; HttpOnly", "secret": null, "ok": true})");
    a.error = QStringLiteral(R"({"password": "p-err"})"); // an error can hold a body too
    IntentAttempt plain;
    plain.request = QStringLiteral("Authorization: Bearer abc"); // not JSON: the value redacted above is found in it
    plain.response = QStringLiteral("{\"token\": \"cut"); // broken JSON: the free-text rule
    d.attempts = {a, plain};
    // Outside the intent log (DESIGN.md §7 "Redaction"): a ticket's title (--redact-field title)
    // and payload, an audit row's evidence holding the upstream's body, the timeline's summary
    // and the ticket's event built from the title.
    TicketRow t;
    t.title = QStringLiteral("Secret Title");
    t.payload = QStringLiteral(R"({"title":"Secret Title","api_key":"SUPERSECRET-APIKEY"})");
    d.tickets = {t};
    AuditEntry au;
    au.evidence = QStringLiteral(R"({"upstream":{"status":200,"body":"{\"title\":\"Secret Title\",\"api_key\":\"SUPERSECRET-APIKEY\"}"}})");
    au.toState = QStringLiteral(R"({"status":"SUCCESS"})");
    d.audit = {au};
    TimelineEvent te;
    te.summary = QStringLiteral("ticket created: Secret Title");
    d.timeline = {te};
    CompensationRow c;
    c.request = QStringLiteral(R"({"method":"POST","headers":[["Authorization","Bearer t0"],["X-Idempotency-Key","comp:1"],)"
                               R"(["set-cookie","a=b"]],"body":"{\"reason\":\"dup\",\"customer_ref\":\"c-1\"}"})");
    c.response = QStringLiteral(R"({"refresh_token":"r-1"})");
    d.compensations = {c};
    CompensationAttemptRow ca;
    ca.responsePreview = QStringLiteral(R"({"access_token":"a-1","status":"done"})");
    d.compensationAttempts = {ca};
    RecordDetail r;
    r.resultSnapshot = QStringLiteral(R"({"ticket_id":1,"customer_ref":"c-2"})");
    d.record = r;
    b.keys = {d};
    WindowEvent e = windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::Audit, QStringLiteral("1"), QStringLiteral("k:1"),
                          QStringLiteral(R"({"apikey":"z"})"));
    b.events = {e, windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::TicketCreated, QStringLiteral("2"),
                         QStringLiteral("k:1"), QStringLiteral("password reset for bob")),
                windowEvent(QStringLiteral("2026-12-01T02:10:00.000002Z"), EventKind::TicketCreated, QStringLiteral("3"),
                            QStringLiteral("k:1"), QStringLiteral("Secret Title (now OPEN)"))};

    RedactionRules rules;
    rules.fields << QStringLiteral("title") << QStringLiteral("Customer_Ref"); // --redact-field, matched in any case
    redactBundle(&b, rules);
    const IntentAttempt &ra = b.keys[0].attempts[0];
    QCOMPARE(*ra.request,
             QStringLiteral(R"({"headers": {"Authorization": "%1", "COOKIE": "%2", "Accept": "*/*"},)"
                            R"( "n": 12345678901234567890, "user": {"Password": "%3", "name": "bob"},)"
                            R"( "body": "{\"api_key\":\"%4\",\"x\":1}", "items": [{"token": "%5"}], "ticket_id": 42})")
                 .arg(marker("Bearer abc"), marker("sid=1"), marker("hunter2"), marker("k-9"), marker("7")));
    QCOMPARE(*ra.response, QStringLiteral(R"({"Set-Cookie": "%1", "secret": "%2", "ok": true})").arg(marker("sid=2; HttpOnly"), marker("null")));
    QCOMPARE(*ra.error, QStringLiteral(R"({"password": "%1"})").arg(marker("p-err")));
    // Not JSON: the free-text rule keeps the scheme word; broken JSON goes through it too.
    QCOMPARE(*b.keys[0].attempts[1].request, QStringLiteral("Authorization: Bearer %1").arg(marker("abc")));
    QCOMPARE(*b.keys[0].attempts[1].response, QStringLiteral("{\"token\": \"%1").arg(marker("cut")));
    QCOMPARE(b.keys[0].compensations[0].request,
             QStringLiteral(R"({"method":"POST","headers":[["Authorization","%1"],["X-Idempotency-Key","comp:1"],)"
                            R"(["set-cookie","%2"]],"body":"{\"reason\":\"dup\",\"customer_ref\":\"%3\"}"})")
                 .arg(marker("Bearer t0"), marker("a=b"), marker("c-1")));
    QCOMPARE(*b.keys[0].compensations[0].response, QStringLiteral(R"({"refresh_token":"%1"})").arg(marker("r-1")));
    QCOMPARE(*b.keys[0].compensationAttempts[0].responsePreview,
             QStringLiteral(R"({"access_token":"%1","status":"done"})").arg(marker("a-1")));
    QCOMPARE(*b.keys[0].record->resultSnapshot, QStringLiteral(R"({"ticket_id":1,"customer_ref":"%1"})").arg(marker("c-2")));
    QCOMPARE(b.events[0].detail, QStringLiteral(R"({"apikey":"%1"})").arg(marker("z")));
    QCOMPARE(b.events[1].detail, QStringLiteral("password reset for bob"));
    QCOMPARE(b.events[2].detail, QStringLiteral("%1 (now OPEN)").arg(marker("Secret Title")));
    QCOMPARE(*b.keys[0].tickets[0].title, marker("Secret Title"));
    QCOMPARE(*b.keys[0].tickets[0].payload,
             QStringLiteral(R"({"title":"%1","api_key":"%2"})").arg(marker("Secret Title"), marker("SUPERSECRET-APIKEY")));
    QCOMPARE(b.keys[0].audit[0].evidence,
             QStringLiteral(R"({"upstream":{"status":200,"body":"{\"title\":\"%1\",\"api_key\":\"%2\"}"}})")
                 .arg(marker("Secret Title"), marker("SUPERSECRET-APIKEY")));
    QCOMPARE(b.keys[0].audit[0].toState, au.toState);
    QCOMPARE(b.keys[0].timeline[0].summary, QStringLiteral("ticket created: %1").arg(marker("Secret Title")));
    const QStringList lines = redactionLines(b.redactions);
    QCOMPARE(lines, (QStringList{
                        QStringLiteral("events[0].detail.apikey apikey ") + sha("z"),
                        QStringLiteral("events[2].detail title ") + sha("Secret Title"),
                        QStringLiteral("keys[k:1].record.result_snapshot.customer_ref customer_ref ") + sha("c-2"),
                        QStringLiteral("keys[k:1].tickets[0].title title ") + sha("Secret Title"),
                        QStringLiteral("keys[k:1].tickets[0].payload.title title ") + sha("Secret Title"),
                        QStringLiteral("keys[k:1].tickets[0].payload.api_key api_key ") + sha("SUPERSECRET-APIKEY"),
                        QStringLiteral("keys[k:1].attempts[0].request.headers.Authorization Authorization ") + sha("Bearer abc"),
                        QStringLiteral("keys[k:1].attempts[0].request.headers.COOKIE COOKIE ") + sha("sid=1"),
                        QStringLiteral("keys[k:1].attempts[0].request.user.Password Password ") + sha("hunter2"),
                        QStringLiteral("keys[k:1].attempts[0].request.body.api_key api_key ") + sha("k-9"),
                        QStringLiteral("keys[k:1].attempts[0].request.items[0].token token ") + sha("7"),
                        QStringLiteral("keys[k:1].attempts[0].response.Set-Cookie Set-Cookie ") + sha("sid=2; HttpOnly"),
                        QStringLiteral("keys[k:1].attempts[0].response.secret secret ") + sha("null"),
                        QStringLiteral("keys[k:1].attempts[0].error.password password ") + sha("p-err"),
                        QStringLiteral("keys[k:1].attempts[1].request Authorization ") + sha("abc"),
                        QStringLiteral("keys[k:1].attempts[1].response token ") + sha("cut"),
                        QStringLiteral("keys[k:1].audit[0].evidence.upstream.body.title title ") + sha("Secret Title"),
                        QStringLiteral("keys[k:1].audit[0].evidence.upstream.body.api_key api_key ") + sha("SUPERSECRET-APIKEY"),
                        QStringLiteral("keys[k:1].compensations[0].request.headers[0][1] Authorization ") + sha("Bearer t0"),
                        QStringLiteral("keys[k:1].compensations[0].request.headers[2][1] set-cookie ") + sha("a=b"),
                        QStringLiteral("keys[k:1].compensations[0].request.body.customer_ref customer_ref ") + sha("c-1"),
                        QStringLiteral("keys[k:1].compensations[0].response.refresh_token refresh_token ") + sha("r-1"),
                        QStringLiteral("keys[k:1].compensation_attempts[0].response_preview.access_token access_token ") + sha("a-1"),
                        QStringLiteral("keys[k:1].timeline[0].summary title ") + sha("Secret Title"),
                    }));
    // Nothing of the secrets is left anywhere in the written file.
    const QByteArray written = writeBundleJson(b);
    for (const char *secret : {"Secret Title", "SUPERSECRET-APIKEY", "Bearer abc", "hunter2", "p-err"})
        QCOMPARE(written.count(secret), qsizetype(0));
    QCOMPARE(b.redactionRules.fields.last(), QStringLiteral("Customer_Ref"));
    // Redacting again changes nothing (markers are not redacted twice).
    const IncidentBundle once = b;
    redactBundle(&b, rules);
    QCOMPARE(b.keys[0].attempts[0].request, once.keys[0].attempts[0].request);
    QVERIFY(b.redactions.isEmpty());
    // The redactions travel in the file.
    QString error;
    const auto back = readBundleJson(writeBundleJson(once), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->redactions.size(), once.redactions.size());
    QCOMPARE(redactionLine(back->redactions.at(3)), redactionLine(once.redactions.at(3)));
    QVERIFY(back->redactionRules.enabled);
}

void TestBundle::redactionOff()
{
    IncidentBundle b = oddBundle();
    const QString request = *b.keys[0].attempts[0].request;
    RedactionRules off;
    off.enabled = false;
    redactBundle(&b, off);
    QCOMPARE(*b.keys[0].attempts[0].request, request);
    QVERIFY(b.redactions.isEmpty());
    QVERIFY(!b.redactionRules.enabled);
    QString error;
    QVERIFY(!readBundleJson(writeBundleJson(b), &error)->redactionRules.enabled);
    // On: the 10 MB snapshot (no secret in it) is kept byte-exact, the token goes.
    IncidentBundle on = oddBundle();
    redactBundle(&on, RedactionRules());
    QVERIFY(*on.keys[0].record->resultSnapshot == bigValue());
    QCOMPARE(*on.keys[0].attempts[0].request, QStringLiteral("{\"token\":\"%1\",\"n\":12345678901234567890}").arg(marker("abc")));
}

void TestBundle::redactionSkipsTextsWithoutNames()
{
    // Texts holding no rule's name are not parsed (DESIGN.md §7 "Redaction"): kept byte-exact;
    // a name hidden by an escape (\u0074oken, the JSON spelling of "token") is still found, and
    // so is one in another case or inside a string holding JSON.
    IncidentBundle b;
    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    IntentAttempt a;
    a.request = QStringLiteral(R"({"title": "VPN down",  "n": 12345678901234567890})");
    a.response = QStringLiteral(R"({"\u0074oken": "t-1", "ok": true})");
    a.error = QStringLiteral(R"({"body": "{\"TOKEN\":\"t-22\"}"})");
    a.stateAfter = QStringLiteral(R"({"path": "a\/b", "x\/y": 1})");
    // Plain ASCII in upper case; non-ASCII text (lowered as a whole: the Kelvin sign U+212A
    // lowers to "k"), where a name broken by a space is still no name.
    a.stateBefore = QStringLiteral(R"({"n": 1, "APIKEY": "k-3"})");
    IntentAttempt other;
    other.request = QStringLiteral("{\"caf\u00e9\": 1, \"to\u212Aen\": \"k-4\"}");
    other.response = QStringLiteral("{\"caf\u00e9\": \"tok en\"}");
    d.attempts = {a, other};
    b.keys = {d};
    RedactionRules rules;
    rules.fields << QStringLiteral("x/y"); // a name JSON may write escaped: every text parsed
    redactBundle(&b, RedactionRules());
    QCOMPARE(*b.keys[0].attempts[0].request, *a.request);
    QCOMPARE(*b.keys[0].attempts[0].response, QStringLiteral(R"({"\u0074oken": "%1", "ok": true})").arg(marker("t-1")));
    QCOMPARE(*b.keys[0].attempts[0].error, QStringLiteral(R"({"body": "{\"TOKEN\":\"%1\"}"})").arg(marker("t-22")));
    QCOMPARE(*b.keys[0].attempts[0].stateAfter, *a.stateAfter);
    QCOMPARE(*b.keys[0].attempts[0].stateBefore, QStringLiteral(R"({"n": 1, "APIKEY": "%1"})").arg(marker("k-3")));
    QCOMPARE(*b.keys[0].attempts[1].request, QStringLiteral("{\"caf\u00e9\": 1, \"to\u212Aen\": \"%1\"}").arg(marker("k-4")));
    QCOMPARE(*b.keys[0].attempts[1].response, *other.response);
    QCOMPARE(b.redactions.size(), qsizetype(4));
    IncidentBundle slashed;
    slashed.keys = {d};
    redactBundle(&slashed, rules);
    QCOMPARE(*slashed.keys[0].attempts[0].stateAfter, QStringLiteral(R"({"path": "a\/b", "x\/y": "%1"})").arg(marker("1")));
    QVERIFY(redactionLines(slashed.redactions).contains(QStringLiteral("keys[k:1].attempts[0].state_after.x/y x/y ") + sha("1")));
}

void TestBundle::redactionNotesAndActors()
{
    // DESIGN.md §7 "Redaction": the incident's notes, the pins' notes and the events' actor and
    // statuses are redacted as the rest: JSON inside, a whole column the rules name, and the
    // values redacted in the keys they are about.
    IncidentBundle b;
    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    IntentAttempt a;
    a.id = 7;
    a.request = QStringLiteral(R"({"token":"tok-SECRET-1"})");
    d.attempts = {a};
    KeyDetail other;
    other.idemKey = QStringLiteral("k:2");
    IntentAttempt o;
    o.request = QStringLiteral(R"({"password":"pw-OTHER-2"})");
    other.attempts = {o};
    b.keys = {d, other};
    WindowEvent e = windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::IntentAttempt, QStringLiteral("7"),
                                QStringLiteral("k:1"), QStringLiteral("create_ticket"));
    e.actor = QStringLiteral("svc:tok-SECRET-1");
    e.status = QStringLiteral("FAILED tok-SECRET-1");
    WindowEvent e2 = windowEvent(QStringLiteral("2026-12-01T02:10:00.000002Z"), EventKind::IntentAttempt, QStringLiteral("8"),
                                 QStringLiteral("k:2"), QStringLiteral("create_ticket"));
    e2.actor = QStringLiteral("agent-1 tok-SECRET-1"); // another key's value: not this event's key
    b.events = {e, e2};
    IncidentDetail inc;
    IncidentPin pin;
    pin.kind = EventKind::IntentAttempt;
    pin.eventId = QStringLiteral("7");
    pin.note = QStringLiteral("caller read out tok-SECRET-1 and pw-OTHER-2");
    pin.event = e;
    inc.pins = {pin};
    IncidentNote whole, aboutEvent, json;
    whole.text = QStringLiteral("seen: tok-SECRET-1, pw-OTHER-2");
    aboutEvent.eventKind = EventKind::IntentAttempt;
    aboutEvent.eventId = QStringLiteral("8");
    aboutEvent.text = QStringLiteral("tok-SECRET-1 / pw-OTHER-2");
    json.text = QStringLiteral(R"({"Authorization":"Bearer n-3","why":"dup"})");
    inc.notes = {whole, aboutEvent, json};
    b.incident = inc;

    redactBundle(&b, RedactionRules());
    const QString m1 = marker("tok-SECRET-1"), m2 = marker("pw-OTHER-2");
    QCOMPARE(b.events[0].actor, QStringLiteral("svc:") + m1);
    QCOMPARE(b.events[0].status, QStringLiteral("FAILED ") + m1);
    QCOMPARE(b.events[0].detail, QStringLiteral("create_ticket"));
    QCOMPARE(b.events[1].actor, e2.actor);
    QCOMPARE(b.incident->pins[0].note, QStringLiteral("caller read out %1 and pw-OTHER-2").arg(m1));
    QCOMPARE(b.incident->pins[0].event->actor, QStringLiteral("svc:") + m1);
    QCOMPARE(b.incident->notes[0].text, QStringLiteral("seen: %1, %2").arg(m1, m2));
    QCOMPARE(b.incident->notes[1].text, QStringLiteral("tok-SECRET-1 / %1").arg(m2));
    QCOMPARE(b.incident->notes[2].text, QStringLiteral(R"({"Authorization":"%1","why":"dup"})").arg(marker("Bearer n-3")));
    const QStringList lines = redactionLines(b.redactions);
    QCOMPARE(lines, (QStringList{
                        QStringLiteral("incident.pins[0].note token ") + sha("tok-SECRET-1"),
                        QStringLiteral("incident.pins[0].event.actor token ") + sha("tok-SECRET-1"),
                        QStringLiteral("incident.pins[0].event.status token ") + sha("tok-SECRET-1"),
                        QStringLiteral("incident.notes[0].text token ") + sha("tok-SECRET-1"),
                        QStringLiteral("incident.notes[0].text password ") + sha("pw-OTHER-2"),
                        QStringLiteral("incident.notes[1].text password ") + sha("pw-OTHER-2"),
                        QStringLiteral("incident.notes[2].text.Authorization Authorization ") + sha("Bearer n-3"),
                        QStringLiteral("events[0].actor token ") + sha("tok-SECRET-1"),
                        QStringLiteral("events[0].status token ") + sha("tok-SECRET-1"),
                        QStringLiteral("keys[k:1].attempts[0].request.token token ") + sha("tok-SECRET-1"),
                        QStringLiteral("keys[k:2].attempts[0].request.password password ") + sha("pw-OTHER-2"),
                    }));
    // A column the rules name is replaced whole (--redact-field actor, --redact-field note).
    IncidentBundle named;
    named.events = {e2};
    named.incident = IncidentDetail{};
    named.incident->pins = {pin};
    RedactionRules rules;
    rules.fields = {QStringLiteral("Actor"), QStringLiteral("note")};
    redactBundle(&named, rules);
    QCOMPARE(named.events[0].actor, marker("agent-1 tok-SECRET-1"));
    QCOMPARE(named.incident->pins[0].note, marker("caller read out tok-SECRET-1 and pw-OTHER-2"));
    QCOMPARE(named.incident->pins[0].event->actor, marker("svc:tok-SECRET-1"));
    // Nothing of them is left in the written file.
    const QByteArray written = writeBundleJson(b);
    // Only where the key is k:2, which never held it: the second event's actor and the note about that event.
    QCOMPARE(written.count("tok-SECRET-1"), qsizetype(2));
    QCOMPARE(written.count("Bearer n-3"), qsizetype(0));
}

void TestBundle::literalFinder()
{
    // The redaction's second pass (DESIGN.md §7 "Redaction"): the leftmost occurrence of any
    // literal, the longest at that place, case-sensitive, one-unit literals and text beyond the
    // BMP included; what a regular expression of the literals (longest first) finds.
    const QString emoji = QString::fromUtf8("\xF0\x9F\x94\x91"); // U+1F511, two UTF-16 units
    const LiteralFinder f(QStringList{QStringLiteral("ab"), QStringLiteral("abcd"), QStringLiteral("x"), emoji,
                                      QStringLiteral("ab"), QString(), QStringLiteral("cd")});
    auto at = [&f](const QString &text, qsizetype from = 0) {
        const LiteralFinder::Match m = f.find(text, from);
        return QStringLiteral("%1/%2/%3").arg(m.pos).arg(m.length).arg(m.index);
    };
    QCOMPARE(at(QStringLiteral("zzabcdzz")), QStringLiteral("2/4/1"));  // the longest at the leftmost place
    QCOMPARE(at(QStringLiteral("zzabczz")), QStringLiteral("2/2/0"));   // the first of a duplicate
    QCOMPARE(at(QStringLiteral("zzabcdzz"), 3), QStringLiteral("4/2/6")); // from inside a match
    QCOMPARE(at(QStringLiteral("ABCD X")), QStringLiteral("-1/0/-1"));  // case-sensitive
    QCOMPARE(at(QStringLiteral("qqqx")), QStringLiteral("3/1/2"));      // one unit, at the very end
    QCOMPARE(at(QStringLiteral("a ") + emoji), QStringLiteral("2/2/3"));
    QCOMPARE(at(QString()), QStringLiteral("-1/0/-1"));
    QCOMPARE(at(QStringLiteral("ab"), 5), QStringLiteral("-1/0/-1"));
    QCOMPARE(LiteralFinder().find(QStringLiteral("ab"), 0).pos, qsizetype(-1));
    // Many literals sharing their first units (the filter passes; the lookup decides).
    QStringList many;
    for (int i = 0; i < 300; ++i)
        many << QStringLiteral("t-%1").arg(i);
    const LiteralFinder g(many);
    const LiteralFinder::Match m = g.find(QStringLiteral("token t-2999 t-29 t-"), 0);
    QCOMPARE(m.pos, qsizetype(6));
    QCOMPARE(m.length, qsizetype(5)); // "t-299", the longest literal at place 6
    QCOMPARE(m.index, qsizetype(299));
}

void TestBundle::redactionSubstitution()
{
    // DESIGN.md §7 "Redaction": a value redacted in one of a key's texts is cut out of the key's
    // other texts and its events' details, the longest first; a value shorter than 8
    // characters only where it is not part of a longer word; never inside a marker.
    IncidentBundle b;
    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    IntentAttempt a1, a2, a3;
    a1.request = QStringLiteral(R"({"token":"t-12"})");
    a2.request = QStringLiteral(R"({"token":"t-12-long-secret"})");
    a3.request = QStringLiteral(R"({"token":"x"})");
    a3.response = QStringLiteral("echo t-12-long-secret, t-123, t-12, (t-12) x-ray xray x");
    d.attempts = {a1, a2, a3};
    b.keys = {d};
    b.events = {windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::IntentAttempt, QStringLiteral("9"),
                            QStringLiteral("k:1"), QStringLiteral("sent t-12 again"))};
    redactBundle(&b, RedactionRules());
    QCOMPARE(*b.keys[0].attempts[2].response, QStringLiteral("echo %1, t-123, %2, (%2) %3-ray xray %3")
                                                  .arg(marker("t-12-long-secret"), marker("t-12"), marker("x")));
    QCOMPARE(b.events[0].detail, QStringLiteral("sent %1 again").arg(marker("t-12")));
    const QStringList lines = redactionLines(b.redactions);
    QCOMPARE(lines, (QStringList{
                        QStringLiteral("events[0].detail token ") + sha("t-12"),
                        QStringLiteral("keys[k:1].attempts[0].request.token token ") + sha("t-12"),
                        QStringLiteral("keys[k:1].attempts[1].request.token token ") + sha("t-12-long-secret"),
                        QStringLiteral("keys[k:1].attempts[2].request.token token ") + sha("x"),
                        QStringLiteral("keys[k:1].attempts[2].response token ") + sha("t-12-long-secret"),
                        QStringLiteral("keys[k:1].attempts[2].response token ") + sha("t-12"),
                        QStringLiteral("keys[k:1].attempts[2].response token ") + sha("x"),
                    }));
}

void TestBundle::redactorInSteps()
{
    // The exporter redacts each batch of keys as it arrives (BundleRedactor): the same bundle
    // and the same redaction list, in bundle order, as redactBundle() in one call.
    IncidentBundle whole;
    for (int k = 0; k < 7; ++k) {
        KeyDetail d;
        d.idemKey = QStringLiteral("k:%1").arg(k);
        IntentAttempt a;
        a.request = QStringLiteral(R"({"token":"t-%1","n":%1})").arg(k);
        a.response = QStringLiteral("echo t-%1 and t-%2").arg(k).arg((k + 1) % 7); // the next key's value is not this key's
        d.attempts = {a};
        whole.keys << d;
        whole.events << windowEvent(QStringLiteral("2026-12-01T02:10:00.00000%1Z").arg(k), EventKind::IntentAttempt,
                                    QString::number(k), d.idemKey, QStringLiteral("sent t-%1").arg(k));
    }
    IncidentBundle stepped = whole;
    redactBundle(&whole, RedactionRules());

    QVector<KeyDetail> first = stepped.keys.mid(0, 3), second = stepped.keys.mid(3, 1), third = stepped.keys.mid(4), none;
    BundleRedactor redactor{RedactionRules()};
    redactor.redactKeys(&first);
    redactor.redactKeys(&none);
    redactor.redactKeys(&second);
    redactor.redactKeys(&third);
    redactor.waitForKeys();
    stepped.keys = first + second + third;
    redactor.finish(&stepped);

    QCOMPARE(writeBundleJson(stepped), writeBundleJson(whole));
    QCOMPARE(*stepped.keys[2].attempts[0].response, QStringLiteral("echo %1 and t-3").arg(marker("t-2")));
    QCOMPARE(stepped.events[6].detail, QStringLiteral("sent %1").arg(marker("t-6")));
    const QStringList lines = redactionLines(stepped.redactions), expected = redactionLines(whole.redactions);
    QCOMPARE(lines.size(), 21); // per key: the request's token, the response's own value, the event's
    QCOMPARE(lines, expected);
}

void TestBundle::writerBlocks()
{
    // writeBundleJson() serialises the redactions and the keys in blocks on the pool while
    // earlier blocks are written: the bytes are the same as one QJsonDocument array (the
    // redactions, over several rounds) and one keyDetailFullLine() per key, in order.
    IncidentBundle b;
    QJsonArray expected;
    for (int i = 0; i < 20000; ++i) {
        const Redaction r{QStringLiteral("keys[k:%1].attempts[0].request.token").arg(i), i % 3 ? QStringLiteral("token") : QStringLiteral("p\"ä\\"),
                          sha(QByteArray::number(i))};
        b.redactions << r;
        expected.append(QJsonObject{{QStringLiteral("where"), r.where}, {QStringLiteral("field"), r.field}, {QStringLiteral("sha256"), r.sha256}});
    }
    QByteArray keys = "    \"keys\": [";
    for (int i = 0; i < 150; ++i) {
        KeyDetail d;
        d.idemKey = QStringLiteral("k:%1/é").arg(i);
        IntentAttempt a;
        a.request = QStringLiteral(R"({"n":%1})").arg(i);
        d.attempts = {a};
        b.keys << d;
        keys += i ? ",\n        " : "\n        ";
        keys += key_json::keyDetailFullLine(d);
    }
    keys += "\n    ]\n}\n";
    const QByteArray written = writeBundleJson(b);
    const QByteArray redactions = "    \"redactions\": " + bundle_parts::valueText(expected, 1) + ",\n";
    QCOMPARE(written.count(redactions), qsizetype(1));
    QVERIFY(written.endsWith(keys));
    // And an empty list as QJsonDocument writes it.
    IncidentBundle none;
    QCOMPARE(writeBundleJson(none).count("    \"redactions\": " + bundle_parts::valueText(QJsonArray(), 1) + ",\n"), qsizetype(1));
    // A device that fills up in the redactions, the events or the keys: writing stops there
    // (the blocks being made are waited for) and names the device's error; what was written
    // is the file's start.
    for (int i = 0; i < 3000; ++i) {
        WindowEvent e;
        e.atText = QStringLiteral("2026-12-01T02:00:00.000000Z");
        e.store = EventStore::Intent;
        e.kind = EventKind::IntentAttempt;
        e.id = QString::number(i);
        e.idemKey = QStringLiteral("k:%1/é").arg(i % 150);
        e.detail = QStringLiteral("create_ticket");
        b.events << e;
    }
    const QByteArray full = writeBundleJson(b);
    for (const char *section : {"\n    \"redactions\": [", "\n    \"events\": [", "\n    \"keys\": ["}) {
        QCOMPARE(full.count(section), qsizetype(1));
        const qsizetype limit = full.indexOf(section) + 2000;
        QVERIFY(limit < full.size());
        FullDevice device(limit);
        QString error;
        QVERIFY(!writeBundleJson(b, &device, &error));
        QCOMPARE(error, QStringLiteral("No space left on device"));
        QVERIFY(full.startsWith(device.bytes));
        QVERIFY(device.bytes.size() <= limit);
    }
}

void TestBundle::redactionFreeText()
{
    // DESIGN.md §7 "Redaction", the free-text rule: in a note, an event's detail, raw text, a
    // JSON string holding no JSON or broken JSON, NAME=value, NAME: value, NAME="value" and
    // NAME='value' with a rule's name (any case, a whole word) have their value redacted, ending
    // at whitespace , ; & or the closing quote (a Cookie header's at the end of the line: every
    // pair is a credential); Authorization's scheme word is kept. The values
    // found are substituted in the key's other texts like the JSON's.
    IncidentBundle b;
    KeyDetail d;
    d.idemKey = QStringLiteral("k:1");
    IntentAttempt a;
    a.request = QStringLiteral("{\"url\": \"https://127.0.0.1/x?user=bob&api_key=K-LONG-SECRET-9&v=2\", \"ok\": \"password reset\"}");
    a.error = QStringLiteral("upstream said: Authorization: Basic dXNlcjpwYXNz, Cookie: sid=s-1; path=/");
    d.attempts = {a};
    TimelineEvent te;
    te.summary = QStringLiteral("retried with K-LONG-SECRET-9");
    d.timeline = {te};
    b.keys = {d};
    const WindowEvent e = windowEvent(QStringLiteral("2026-12-01T02:10:00.000001Z"), EventKind::IntentAttempt, QStringLiteral("7"),
                                      QStringLiteral("k:1"), QStringLiteral("login failed: password=hunter2 user=bob"));
    b.events = {e};
    IncidentDetail inc;
    IncidentPin pin;
    pin.kind = EventKind::IntentAttempt;
    pin.eventId = QStringLiteral("7");
    pin.note = QStringLiteral("token: abc123 (rotated)");
    pin.event = e;
    inc.pins = {pin};
    IncidentNote typed, kept, quoted;
    typed.text = QStringLiteral("Authorization: Bearer xyz; api_key=\"s3cr3t\" and PASSWORD='two words'");
    kept.text = QStringLiteral("kept: my_password=x, tokens: 5, password reset, token:\nnext, cookie=");
    IncidentNote cookies;
    cookies.text = QStringLiteral("sent Cookie: a=1; b=2\nSet-Cookie: sid=3; HttpOnly \nafter");
    quoted.text = QStringLiteral("spring.datasource.password=pw1 {\"secret\": \"q 2\"");
    inc.notes = {typed, kept, quoted, cookies};
    b.incident = inc;

    redactBundle(&b, RedactionRules());
    QCOMPARE(*b.keys[0].attempts[0].request,
             QStringLiteral("{\"url\": \"https://127.0.0.1/x?user=bob&api_key=%1&v=2\", \"ok\": \"password reset\"}").arg(marker("K-LONG-SECRET-9")));
    QCOMPARE(*b.keys[0].attempts[0].error,
             QStringLiteral("upstream said: Authorization: Basic %1, Cookie: %2").arg(marker("dXNlcjpwYXNz"), marker("sid=s-1; path=/")));
    QCOMPARE(b.keys[0].timeline[0].summary, QStringLiteral("retried with %1").arg(marker("K-LONG-SECRET-9")));
    QCOMPARE(b.events[0].detail, QStringLiteral("login failed: password=%1 user=bob").arg(marker("hunter2")));
    QCOMPARE(b.incident->pins[0].note, QStringLiteral("token: %1 (rotated)").arg(marker("abc123")));
    QCOMPARE(b.incident->pins[0].event->detail, b.events[0].detail);
    QCOMPARE(b.incident->notes[0].text, QStringLiteral("Authorization: Bearer %1; api_key=\"%2\" and PASSWORD='%3'")
                                            .arg(marker("xyz"), marker("s3cr3t"), marker("two words")));
    QCOMPARE(b.incident->notes[1].text, kept.text);
    QCOMPARE(b.incident->notes[2].text, QStringLiteral("spring.datasource.password=%1 {\"secret\": \"%2\"").arg(marker("pw1"), marker("q 2")));
    QCOMPARE(b.incident->notes[3].text,
             QStringLiteral("sent Cookie: %1\nSet-Cookie: %2 \nafter").arg(marker("a=1; b=2"), marker("sid=3; HttpOnly")));
    const QStringList lines = redactionLines(b.redactions);
    QCOMPARE(lines, (QStringList{
                        QStringLiteral("incident.pins[0].note token ") + sha("abc123"),
                        QStringLiteral("incident.pins[0].event.detail password ") + sha("hunter2"),
                        QStringLiteral("incident.notes[0].text Authorization ") + sha("xyz"),
                        QStringLiteral("incident.notes[0].text api_key ") + sha("s3cr3t"),
                        QStringLiteral("incident.notes[0].text PASSWORD ") + sha("two words"),
                        QStringLiteral("incident.notes[2].text password ") + sha("pw1"),
                        QStringLiteral("incident.notes[2].text secret ") + sha("q 2"),
                        QStringLiteral("incident.notes[3].text Cookie ") + sha("a=1; b=2"),
                        QStringLiteral("incident.notes[3].text Set-Cookie ") + sha("sid=3; HttpOnly"),
                        QStringLiteral("events[0].detail password ") + sha("hunter2"),
                        QStringLiteral("keys[k:1].attempts[0].request.url api_key ") + sha("K-LONG-SECRET-9"),
                        QStringLiteral("keys[k:1].attempts[0].error Authorization ") + sha("dXNlcjpwYXNz"),
                        QStringLiteral("keys[k:1].attempts[0].error Cookie ") + sha("sid=s-1; path=/"),
                        QStringLiteral("keys[k:1].timeline[0].summary api_key ") + sha("K-LONG-SECRET-9"),
                    }));
    const QByteArray written = writeBundleJson(b);
    for (const char *secret : {"hunter2", "abc123", "xyz", "s3cr3t", "two words", "K-LONG-SECRET-9", "dXNlcjpwYXNz", "sid=s-1", "pw1", "b=2", "sid=3"})
        QCOMPARE(written.count(secret), qsizetype(0));
    // Redacting again changes nothing: a value that already is a marker is left alone.
    const IncidentBundle once = b;
    redactBundle(&b, RedactionRules());
    QVERIFY(b.redactions.isEmpty());
    QCOMPARE(b.incident->notes[0].text, once.incident->notes[0].text);
    QCOMPARE(b.keys[0].attempts[0].error, once.keys[0].attempts[0].error);
    // Off: kept as typed.
    IncidentBundle off;
    off.incident = inc;
    RedactionRules none;
    none.enabled = false;
    redactBundle(&off, none);
    QCOMPARE(off.incident->notes[0].text, typed.text);
}

void TestBundle::sha256Stream()
{
    // FIPS 180-4's examples: the empty input and "abc", as 64 lower-case hex digits.
    QCOMPARE(Sha256Stream().hexResult(), QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    {
        Sha256Stream s;
        s.addData("ab");
        s.addData(QByteArrayView());
        s.addData("c");
        QCOMPARE(s.hexResult(), QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    }
    // 3 MB fed in pieces that cross the 64-byte blocks every way: QCryptographicHash's digest.
    QRandomGenerator rng(5);
    QByteArray bytes(3 * 1024 * 1024, Qt::Uninitialized);
    for (char &c : bytes)
        c = char(rng.bounded(256));
    const QString expected = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    for (const qsizetype piece : {qsizetype(1), qsizetype(63), qsizetype(64), qsizetype(65), qsizetype(4096), qsizetype(0)}) {
        Sha256Stream s;
        for (qsizetype at = 0; at < bytes.size();) {
            const qsizetype n = piece ? piece : 1 + rng.bounded(100000);
            s.addData(QByteArrayView(bytes).sliced(at, std::min(n, bytes.size() - at)));
            at += n;
        }
        QCOMPARE(s.hexResult(), expected);
    }
}

void TestBundle::matchingExportRecord()
{
    // The recorded exports with one hash, oldest first: the bundle's own redaction setting and
    // incident first, then its redaction setting, then the oldest; none for an empty list.
    const auto rec = [](qint64 id, std::optional<qint64> incident, bool redacted) {
        BundleExportRecord r;
        r.id = id;
        r.incidentId = incident;
        r.redacted = redacted;
        return r;
    };
    const QVector<BundleExportRecord> found{rec(1, std::nullopt, true), rec(2, 7, true), rec(3, std::nullopt, false), rec(4, 7, false)};
    IncidentBundle b;
    QCOMPARE(matchingExport(b, {}), nullptr);
    QCOMPARE(matchingExport(b, found)->id, 1);
    b.redactionRules.enabled = false;
    QCOMPARE(matchingExport(b, found)->id, 3);
    b.incident = IncidentDetail();
    b.incident->incident.id = 7;
    QCOMPARE(matchingExport(b, found)->id, 4);
    b.redactionRules.enabled = true;
    QCOMPARE(matchingExport(b, found)->id, 2);
    b.incident->incident.id = 8; // no export of incident 8: the same redaction setting
    QCOMPARE(matchingExport(b, found)->id, 1);
    QCOMPARE(matchingExport(b, {rec(5, std::nullopt, false)})->id, 5); // nothing with the setting: the oldest
    // The same incident exported again (a note added: the same events, the same hash): the
    // export recorded nearest the file's generation time, whichever clock is a second off.
    QVector<BundleExportRecord> again{rec(1, 7, true), rec(5, 7, true), rec(9, 7, true)};
    again[0].exportedAt = QStringLiteral("2026-12-05T12:14:32.334000Z");
    again[1].exportedAt = QStringLiteral("2026-12-05T12:15:48.100000Z");
    again[2].exportedAt = QStringLiteral("2026-12-05T12:20:01.000000Z");
    b.incident->incident.id = 7;
    b.generatedAt = QStringLiteral("2026-12-05T12:15:47.020000Z");
    QCOMPARE(matchingExport(b, again)->id, 5);
    b.generatedAt = QStringLiteral("2026-12-05T12:14:33.000000Z");
    QCOMPARE(matchingExport(b, again)->id, 1);
    b.generatedAt.clear(); // no time to go by: the oldest
    QCOMPARE(matchingExport(b, again)->id, 1);
}

QTEST_GUILESS_MAIN(TestBundle)
#include "tst_bundle.moc"
