// The key detail view's data on every backend: NULL is not "", unknown status codes stay
// unknown, snapshots (malformed, and >= 10 MB) come back byte for byte, non-ASCII text is
// identical everywhere, and times/ages are right on servers whose own time zone is not UTC
// (the test servers run in Asia/Kolkata and +05:30), with microseconds preserved; a mapped
// shape (DESIGN.md §10) read through its names, status spellings and time encodings.

#include "BackendTestUtil.h"
#include "BusinessIdSql.h"
#include "BusinessIdTestUtil.h"
#include "CanonicalTicket.h"
#include "Duplicates.h"
#include "OddShape.h"
#include "ServerTime.h"
#include "JsonText.h"
#include "Queue.h"
#include "KeyDetail.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

const QString kNonAscii = QStringLiteral("Störung – 東京 – 🚑");

KeyDetail detailOf(Workspace &ws, const QString &key)
{
    return loadKeyDetail(ws, key).result();
}

QString errorsOf(const KeyDetail &d)
{
    QStringList out;
    for (const DbError &e : d.errors)
        out << e.message;
    return out.join(QStringLiteral("; "));
}

/// The server's clock as microseconds since the epoch, read independently of the console.
std::optional<UtcMicros> serverEpochMicros(const TestDatabase &db, const QString &timeExpr, const QString &from = {})
{
    QString sql;
    if (db.dialect() == QLatin1String("postgresql"))
        sql = QStringLiteral("SELECT CAST(EXTRACT(EPOCH FROM %1) * 1000000 AS BIGINT)").arg(timeExpr);
    else if (db.dialect() == QLatin1String("mysql"))
        // DATETIME(6) holds UTC wall time: read it as such, whatever the session's zone.
        sql = QStringLiteral("SELECT CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', %1) AS SIGNED)").arg(timeExpr);
    else
        sql = QStringLiteral("SELECT %1").arg(timeExpr);
    if (!from.isEmpty())
        sql += QStringLiteral(" FROM ") + from;
    QString error;
    const QStringList v = db.adminQueryColumn(sql, &error);
    if (v.size() != 1)
        return std::nullopt;
    if (db.dialect() == QLatin1String("sqlite"))
        return parseUtcMicros(v.first());
    bool ok = false;
    const qint64 n = v.first().toLongLong(&ok);
    return ok ? std::optional<UtcMicros>(n) : std::nullopt;
}

UtcMicros desktopNow()
{
    return QDateTime::currentMSecsSinceEpoch() * 1000;
}

} // namespace

class TstBackendDetail : public QObject {
    Q_OBJECT

private slots:
    void nullColumns_data();
    void nullColumns();
    void unknownStatusCodes_data();
    void unknownStatusCodes();
    void malformedSnapshot_data();
    void malformedSnapshot();
    void bigSnapshot_data();
    void bigSnapshot();
    void nonAscii_data();
    void nonAscii();
    void serverTimeZone_data();
    void serverTimeZone();
    void microseconds_data();
    void microseconds();
    void seedsOwnTypes_data();
    void seedsOwnTypes();
    void textTicketIds_data();
    void textTicketIds();
    void missingKey_data();
    void missingKey();
    void mappedShape_data();
    void mappedShape();
};

// ===================================================================== NULL columns

void TstBackendDetail::nullColumns_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true); // no shop rows: an empty ticket payload is not JSON, which the shop's JSON column refuses
}

void TstBackendDetail::nullColumns()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws, false));
    const QString key = QStringLiteral("ticket:create:acme:nulls");
    RecordSpec r;
    r.key = key;
    r.status = QStringLiteral("0");
    r.updated = serverAgoSeconds(db, 10);
    TRIAGE_OK(insertRecords(db, {r}));
    RecordSpec empty = r;
    empty.key = key + QStringLiteral(":empty");
    empty.snapshot = QString(); // '' is not NULL
    TRIAGE_OK(insertRecords(db, {empty}));

    IntentSpec allNull;
    allNull.id = 1;
    allNull.key = key;
    allNull.taskId.reset();
    allNull.stepId.reset();
    allNull.action.reset();
    allNull.status.reset();
    allNull.actor.reset();
    allNull.created = serverAgoSeconds(db, 9);
    IntentSpec allEmpty;
    allEmpty.id = 2;
    allEmpty.key = key;
    allEmpty.taskId = allEmpty.stepId = allEmpty.action = allEmpty.status = allEmpty.actor = QString();
    allEmpty.request = allEmpty.response = allEmpty.error = allEmpty.stateBefore = allEmpty.stateAfter = QString();
    allEmpty.created = serverAgoSeconds(db, 8);
    TRIAGE_OK(insertIntents(db, {allNull, allEmpty}));

    TicketSpec nullTicket;
    nullTicket.id = 1;
    nullTicket.key = key;
    nullTicket.status.reset();
    nullTicket.created = serverAgoSeconds(db, 9);
    TicketSpec emptyTicket;
    emptyTicket.id = 2;
    emptyTicket.key = key;
    emptyTicket.tenant = emptyTicket.title = emptyTicket.status = emptyTicket.payload = QString();
    emptyTicket.created = serverAgoSeconds(db, 8);
    TRIAGE_OK(insertTickets(db, {nullTicket, emptyTicket}));

    const KeyDetail d = detailOf(ws, key);
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(d.record.has_value());
    QCOMPARE(d.record->resultSnapshot, NullableText());
    QVERIFY(parseJsonText(d.record->resultSnapshot).isNull);
    QCOMPARE(d.record->bizType, NullableText(QStringLiteral("ticket_create")));
    bool sawNullSnapshotColumn = false;
    for (const auto &[name, shown] : d.record->allColumns)
        if (name == QLatin1String("result_snapshot"))
            sawNullSnapshotColumn = shown == QLatin1String("NULL");
    QVERIFY(sawNullSnapshotColumn);

    QCOMPARE(d.attempts.size(), 2);
    const IntentAttempt &n = d.attempts[0];
    QCOMPARE(n.id, qint64(1));
    for (const NullableText *f : {&n.taskId, &n.stepId, &n.action, &n.status, &n.request, &n.response, &n.error,
                                  &n.stateBefore, &n.stateAfter, &n.actor})
        QVERIFY2(!f->has_value(), qPrintable(f->value_or(QString())));
    QCOMPARE(n.idemKey, NullableText(key));
    const IntentAttempt &e = d.attempts[1];
    QCOMPARE(e.id, qint64(2));
    for (const NullableText *f : {&e.taskId, &e.stepId, &e.action, &e.status, &e.request, &e.response, &e.error,
                                  &e.stateBefore, &e.stateAfter, &e.actor}) {
        QVERIFY(f->has_value());
        QVERIFY(f->value().isEmpty());
    }

    QCOMPARE(d.tickets.size(), 2);
    const TicketRow &nt = d.tickets[0];
    QCOMPARE(nt.id, bid(1));
    QCOMPARE(nt.tenantId, NullableText());
    QCOMPARE(nt.title, NullableText());
    QCOMPARE(nt.status, NullableText());
    QCOMPARE(nt.payload, NullableText());
    const TicketRow &et = d.tickets[1];
    QCOMPARE(et.tenantId, NullableText(QString()));
    QCOMPARE(et.title, NullableText(QString()));
    QCOMPARE(et.payload, NullableText(QString()));
    QVERIFY(et.title.has_value());

    // The timeline spells NULL as NULL.
    bool nullIntent = false;
    for (const TimelineEvent &ev : d.timeline)
        if (ev.source == QLatin1String("intent_log") && ev.refId == bid(1) && ev.kind == QLatin1String("intent"))
            nullIntent = ev.summary.contains(QStringLiteral("intent: NULL (task NULL step NULL"));
    QVERIFY(nullIntent);

    const KeyDetail de = detailOf(ws, key + QStringLiteral(":empty"));
    QVERIFY(de.record.has_value());
    QCOMPARE(de.record->resultSnapshot, NullableText(QString()));
    const ParsedJson pe = parseJsonText(de.record->resultSnapshot);
    QVERIFY(!pe.isNull);
    QCOMPARE(pe.error, QStringLiteral("empty document"));

    // Queue rows keep NULL as a null string too (an intent step with a NULL action).
    IntentSpec q;
    q.id = 3;
    q.key = QStringLiteral("q:null:action");
    q.action.reset();
    q.taskId.reset();
    q.created = serverAgoSeconds(db, 5);
    TRIAGE_OK(insertIntents(db, {q}));
    QueueRequest req;
    req.kind = QueueKind::Unknown;
    req.filter.keySubstring = QStringLiteral("q:null:action");
    const PagedQueue page = fetchWholeQueue(ws, req, 10);
    QVERIFY2(page.error.isEmpty(), qPrintable(page.error));
    QCOMPARE(page.rows.size(), 1);
    QVERIFY(page.rows[0].action.isNull());
    QVERIFY(page.rows[0].taskId.isNull());
    QCOMPARE(page.rows[0].stepId, QStringLiteral("step_1"));
}

// ===================================================================== status codes

void TstBackendDetail::unknownStatusCodes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendDetail::unknownStatusCodes()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    struct Code {
        QString key, sql, text;
        std::optional<qint64> code;
    };
    QVector<Code> codes = {
        {"code:0", "0", "PROCESSING", 0}, {"code:1", "1", "SUCCESS", 1}, {"code:2", "2", "FAILED", 2},
        {"code:7", "7", "UNKNOWN_CODE_7", 7}, {"code:-1", "-1", "UNKNOWN_CODE_-1", -1}, {"code:3", "3", "UNKNOWN_CODE_3", 3},
        {"code:127", "127", "UNKNOWN_CODE_127", 127},
    };
    if (dialectOf(backend) == QLatin1String("sqlite")) {
        // SQLite keeps what it is given, whatever the declared type.
        codes << Code{"code:1.5", "1.5", "UNKNOWN_CODE_1.5", std::nullopt}
              << (db.isShop() // "done" spells SUCCESS there (status_ignore_case)
                      ? Code{"code:text", "'finito'", "UNKNOWN_CODE_finito", std::nullopt}
                      : Code{"code:text", "'done'", "UNKNOWN_CODE_done", std::nullopt});
    }
    QVector<RecordSpec> recs;
    for (const Code &c : codes) {
        RecordSpec r;
        r.key = c.key;
        r.status = c.sql;
        r.updated = serverAgoSeconds(db, 3600); // old: a PROCESSING one would be stale
        recs << r;
    }
    TRIAGE_OK(insertRecords(db, recs));
    if (db.isShop()) {
        // Text statuses (DESIGN.md §10): a value no spelling matches has no code at all.
        for (Code &c : codes)
            if (c.text.startsWith(QLatin1String("UNKNOWN_CODE_")))
                c.code.reset();
    }
    for (const Code &c : codes) {
        const KeyDetail d = detailOf(ws, c.key);
        QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
        QVERIFY2(d.record.has_value(), qPrintable(c.key));
        QCOMPARE(d.record->statusText, c.text);
        QCOMPARE(d.record->statusCode, c.code);
        QCOMPARE(d.record->stale, c.code == 0);
        bool timelineSays = false;
        for (const TimelineEvent &e : d.timeline)
            timelineSays = timelineSays || e.summary.contains(QStringLiteral("status ") + c.text);
        QVERIFY2(timelineSays, qPrintable(c.key));
    }
    // Unknown codes are never shown as one of the known statuses: they are listed in the
    // Unknown queue only, as stored (DESIGN.md §2), beside the stale PROCESSING record.
    QStringList unknownQueue{"record:code:0=PROCESSING"};
    for (const Code &c : codes)
        if (c.text.startsWith(QLatin1String("UNKNOWN_CODE_")))
            unknownQueue << QStringLiteral("record:%1=%2").arg(c.key, c.text);
    unknownQueue.sort();
    for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded}) {
        QueueRequest req;
        req.kind = k;
        const PagedQueue all = fetchWholeQueue(ws, req, 50);
        QVERIFY2(all.error.isEmpty(), qPrintable(all.error));
        QStringList got;
        for (const QueueRow &r : all.rows)
            got << rowTag(r) + QLatin1Char('=') + r.status;
        got.sort();
        const QStringList expected = k == QueueKind::Unknown ? unknownQueue
            : k == QueueKind::Failed                         ? QStringList{"record:code:2=FAILED"}
            : k == QueueKind::Succeeded                      ? QStringList{"record:code:1=SUCCESS"}
                                                             : QStringList{};
        QCOMPARE(got, expected);
        QCOMPARE(countOf(ws, req), qint64(expected.size()));
    }
}

// ===================================================================== snapshots

void TstBackendDetail::malformedSnapshot_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendDetail::malformedSnapshot()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    // A snapshot cut in half (the demo's malformed case), with non-ASCII text before the cut,
    // and one with an illegal value on its third line.
    const QString truncated = QStringLiteral("{\"ticket_id\": 42, \"title\": \"Störung – 東京 – 🚑\", \"amount\": \"12.30");
    const QString illegal = QStringLiteral("{\n  \"ticket_id\": 42,\n  \"title\": undefined\n}");
    RecordSpec r;
    r.key = QStringLiteral("snap:truncated");
    r.status = QStringLiteral("1");
    r.snapshot = truncated;
    r.updated = serverAgoSeconds(db, 60);
    RecordSpec r2 = r;
    r2.key = QStringLiteral("snap:illegal");
    r2.snapshot = illegal;
    TRIAGE_OK(insertRecords(db, {r, r2}));

    KeyDetail d = detailOf(ws, QStringLiteral("snap:truncated"));
    QVERIFY2(d.record.has_value(), qPrintable(errorsOf(d)));
    QCOMPARE(d.record->resultSnapshot, NullableText(truncated)); // raw text kept exactly
    ParsedJson p = parseJsonText(d.record->resultSnapshot);
    QVERIFY(!p.ok);
    QCOMPARE(p.errorOffset, int(truncated.size())); // unterminated string: at the end
    QCOMPARE(p.errorLine, 1);
    QCOMPARE(p.errorColumn, int(truncated.size()) + 1);
    QCOMPARE(p.error, QStringLiteral("unterminated string at line 1, column %1 (offset %2)")
                          .arg(truncated.size() + 1)
                          .arg(truncated.size()));

    d = detailOf(ws, QStringLiteral("snap:illegal"));
    QVERIFY(d.record.has_value());
    QCOMPARE(d.record->resultSnapshot, NullableText(illegal));
    p = parseJsonText(d.record->resultSnapshot);
    QVERIFY(!p.ok);
    QCOMPARE(p.error, QStringLiteral("illegal number at line 3, column 12 (offset 32)")); // Qt's wording
    QCOMPARE(illegal.mid(p.errorOffset, 9), QStringLiteral("undefined"));
}

void TstBackendDetail::bigSnapshot_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendDetail::bigSnapshot()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    // >= 10 MB of JSON with quotes, backslash escapes, non-ASCII and emoji, and exact numbers
    // that QJsonDocument would rewrite (docs/QT-PITFALLS.md): the raw text must come back unchanged.
    QString big;
    big.reserve(11 * 1024 * 1024);
    big += QStringLiteral("{\"id\": 12345678901234567890, \"price\": 1.10, \"items\": [");
    for (int i = 0; big.size() < 10 * 1024 * 1024 + 100; ++i) {
        if (i)
            big += QLatin1Char(',');
        big += QStringLiteral("{\"n\":%1,\"t\":\"%2 it's \\\"quoted\\\" \\\\ %3\"}").arg(i).arg(kNonAscii).arg(i % 7);
    }
    big += QStringLiteral("]}");
    QVERIFY(big.toUtf8().size() >= 10 * 1024 * 1024);
    RecordSpec r;
    r.key = QStringLiteral("snap:big");
    r.status = QStringLiteral("1");
    r.snapshot = big;
    r.updated = serverAgoSeconds(db, 60);
    TRIAGE_OK(insertRecords(db, {r}));

    const KeyDetail d = detailOf(ws, QStringLiteral("snap:big"));
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(d.record.has_value());
    QVERIFY(d.record->resultSnapshot.has_value());
    QCOMPARE(d.record->resultSnapshot->size(), big.size());
    QVERIFY2(d.record->resultSnapshot->toUtf8() == big.toUtf8(), "the 10 MB snapshot changed on its way");
    for (const auto &[name, shown] : d.record->allColumns)
        if (name == QLatin1String("result_snapshot"))
            QCOMPARE(shown, QStringLiteral("(%1 characters)").arg(big.size()));
    const ParsedJson p = parseJsonText(d.record->resultSnapshot);
    QVERIFY2(p.ok, qPrintable(p.error));
    QCOMPARE(p.characters, qint64(big.size()));
    QCOMPARE(p.root.toObject().value("items").toArray().at(3).toObject().value("t").toString(),
             kNonAscii + QStringLiteral(" it's \"quoted\" \\ 3"));
}

// ===================================================================== non-ASCII

void TstBackendDetail::nonAscii_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true); // no shop rows: PostgreSQL JSONB rewrites the payload's spacing; the setup deletes from idempotency_record by name
}

void TstBackendDetail::nonAscii()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes.insert(QStringLiteral("ticket_create"), BizTypeConfig{300, QStringLiteral("ticket:create:{tenant}")});
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("ticket:create:zürich:") + kNonAscii; // 35 characters, 50 UTF-8 bytes
    QVERIFY(key.size() <= 64);
    const QString payload = QStringLiteral("{\"title\":\"%1\",\"tenant\":\"zürich\"}").arg(kNonAscii);
    RecordSpec r;
    r.key = key;
    r.status = QStringLiteral("2");
    r.snapshot = payload;
    r.updated = serverAgoSeconds(db, 60);
    TRIAGE_OK(insertRecords(db, {r}));
    TicketSpec t;
    t.id = 7;
    t.key = key;
    t.tenant = QStringLiteral("zürich");
    t.title = kNonAscii;
    t.payload = payload;
    t.created = serverAgoSeconds(db, 59);
    TRIAGE_OK(insertTickets(db, {t}));
    IntentSpec a;
    a.key = key;
    a.action = QStringLiteral("créer_ticket");
    a.actor = QStringLiteral("agent-🚑");
    a.request = payload;
    a.stateBefore = QStringLiteral("{\"état\":\"avant – 東京\"}");
    a.error = kNonAscii;
    a.created = serverAgoSeconds(db, 58);
    TRIAGE_OK(insertIntents(db, {a}));

    const KeyDetail d = detailOf(ws, key);
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(d.record.has_value());
    QCOMPARE(d.record->idemKey, key);
    QCOMPARE(d.record->resultSnapshot, NullableText(payload));
    QCOMPARE(d.record->tenant, QStringLiteral("zürich"));
    QCOMPARE(d.tickets.size(), 1);
    QCOMPARE(d.tickets[0].idemKey, NullableText(key));
    QCOMPARE(d.tickets[0].title, NullableText(kNonAscii));
    QCOMPARE(d.tickets[0].tenantId, NullableText(QStringLiteral("zürich")));
    QCOMPARE(d.tickets[0].payload, NullableText(payload));
    QCOMPARE(d.attempts.size(), 1);
    QCOMPARE(d.attempts[0].action, NullableText(QStringLiteral("créer_ticket")));
    QCOMPARE(d.attempts[0].actor, NullableText(QStringLiteral("agent-🚑")));
    QCOMPARE(d.attempts[0].request, NullableText(payload));
    QCOMPARE(d.attempts[0].stateBefore, NullableText(QStringLiteral("{\"état\":\"avant – 東京\"}")));
    QCOMPARE(d.attempts[0].error, NullableText(kNonAscii));
    QVERIFY(parseJsonText(d.record->resultSnapshot).ok);

    // The queue row shows the same key; filters on non-ASCII text find it.
    QueueRequest req;
    req.kind = QueueKind::Failed;
    for (const QString &sub : {QStringLiteral("東京"), QStringLiteral("🚑"), QStringLiteral("– 東京 –"), QStringLiteral("zürich:St")}) {
        req.filter = {};
        req.filter.keySubstring = sub;
        const PagedQueue p = fetchWholeQueue(ws, req, 10);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(p.rows.size(), 1);
        QCOMPARE(p.rows[0].idemKey, key);
    }
    req.filter = {};
    req.filter.tenant = QStringLiteral("zürich");
    QCOMPARE(countOf(ws, req), qint64(1));
    req.filter.tenant = QStringLiteral("zurich");
    QCOMPARE(countOf(ws, req), qint64(0));
    req.filter = {};
    req.filter.keySubstring = QStringLiteral("東京x");
    QCOMPARE(countOf(ws, req), qint64(0));
    // The Unknown queue's intent row carries the key too. (A step whose record is settled
    // is not unknown when both share a database: remove the FAILED record first.)
    QCOMPARE(db.adminExec(QStringLiteral("DELETE FROM idempotency_record WHERE idem_key = '%1'").arg(key)), QString());
    req = {};
    req.kind = QueueKind::Unknown;
    req.filter.keySubstring = QStringLiteral("🚑");
    const PagedQueue u = fetchWholeQueue(ws, req, 10);
    QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
    QCOMPARE(rowTags(u.rows), QStringList{QStringLiteral("intent:") + key});
    QCOMPARE(u.rows[0].action, QStringLiteral("créer_ticket"));
}

// ===================================================================== time zones

void TstBackendDetail::serverTimeZone_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true); // no shop rows: time-zone handling of native columns; the shop keeps epoch milliseconds and no expire_at
}

void TstBackendDetail::serverTimeZone()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QString key = QStringLiteral("tz:hour-old");
    RecordSpec r;
    r.key = key;
    r.status = QStringLiteral("0");
    r.updated = serverAgoSeconds(db, 3600);
    r.created = serverAgoSeconds(db, 7200);
    r.expire = serverAgoSeconds(db, -86400 * 7);
    TRIAGE_OK(insertRecords(db, {r}));

    const KeyDetail d = detailOf(ws, key);
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(d.record.has_value());
    const RecordDetail &rec = *d.record;
    QVERIFY2(rec.ageSeconds >= 3599 && rec.ageSeconds <= 3605, qPrintable(QString::number(rec.ageSeconds, 'f', 3)));
    QVERIFY(rec.stale);
    QVERIFY2(rec.expiresInSeconds && *rec.expiresInSeconds > 7 * 86400 - 10 && *rec.expiresInSeconds <= 7 * 86400,
             qPrintable(QString::number(rec.expiresInSeconds.value_or(-1))));
    for (const QString &t : {rec.createdAt, rec.updatedAt, rec.expireAt, rec.serverNow})
        QVERIFY2(isCanonicalTime(t), qPrintable(t));

    // updatedAt is the server's stored instant in UTC, read independently of the console.
    const auto stored = serverEpochMicros(db, QStringLiteral("updated_at"),
                                          QStringLiteral("idempotency_record WHERE idem_key = 'tz:hour-old'"));
    QVERIFY(stored.has_value());
    QCOMPARE(rec.updatedAt, formatUtcMicros(*stored));
    // And that instant is an hour before the desktop's clock (same machine): a time-zone
    // slip of the +05:30 servers would be off by 19800 s.
    const qint64 drift = *parseUtcMicros(rec.updatedAt) - (desktopNow() - 3600LL * 1000000);
    QVERIFY2(qAbs(drift) < 5LL * 1000000, qPrintable(QStringLiteral("updated_at %1 is %2 s away from desktop now - 1 h")
                                                        .arg(rec.updatedAt)
                                                        .arg(drift / 1e6)));
    const qint64 nowDrift = *parseUtcMicros(rec.serverNow) - desktopNow();
    QVERIFY2(qAbs(nowDrift) < 5LL * 1000000, qPrintable(rec.serverNow));
    QCOMPARE(*parseUtcMicros(rec.updatedAt) - *parseUtcMicros(rec.createdAt), 3600LL * 1000000);

    // The queue row agrees.
    QueueRequest req;
    req.kind = QueueKind::Unknown;
    const PagedQueue p = fetchWholeQueue(ws, req, 10);
    QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    QCOMPARE(p.rows.size(), 1);
    QCOMPARE(p.rows[0].updatedAt, rec.updatedAt);
    QCOMPARE(p.rows[0].createdAt, rec.createdAt);
    QCOMPARE(p.rows[0].expireAt, rec.expireAt);
    QVERIFY2(p.rows[0].ageSeconds >= 3599 && p.rows[0].ageSeconds <= 3605, qPrintable(QString::number(p.rows[0].ageSeconds)));

    if (dialectOf(backend) == QLatin1String("postgresql")) {
        // A writer whose session runs in the server's own zone (Asia/Kolkata) writes local
        // wall time; timestamptz keeps the instant and the console prints it in UTC.
        TRIAGE_ADMIN(db, QStringLiteral("SET TIME ZONE DEFAULT"));
        const QStringList zone = db.adminQueryColumn(QStringLiteral("SELECT current_setting('TimeZone')"));
        QVERIFY2(zone != QStringList{QStringLiteral("UTC")}, qPrintable(zone.join(',')));
        TRIAGE_ADMIN(db, QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                        "expire_at) VALUES ('tz:local', 'x', 1, TIMESTAMP '2026-01-02 08:34:07.123456', "
                                        "'2026-01-02 08:34:07.123456', '2026-01-02 08:34:07.123456+05:30')"));
        TRIAGE_ADMIN(db, QStringLiteral("SET TIME ZONE 'UTC'"));
        const KeyDetail l = detailOf(ws, QStringLiteral("tz:local"));
        QVERIFY(l.record.has_value());
        if (zone == QStringList{QStringLiteral("Asia/Kolkata")}) {
            QCOMPARE(l.record->createdAt, QStringLiteral("2026-01-02T03:04:07.123456Z"));
            QCOMPARE(l.record->updatedAt, QStringLiteral("2026-01-02T03:04:07.123456Z"));
        }
        QCOMPARE(l.record->expireAt, QStringLiteral("2026-01-02T03:04:07.123456Z"));
    }
    if (dialectOf(backend) == QLatin1String("mysql")) {
        // The server's own zone is +05:30; the console's session must be pinned to UTC.
        const QStringList zone = db.adminQueryColumn(QStringLiteral("SELECT @@global.time_zone"));
        QCOMPARE(zone, QStringList{QStringLiteral("+05:30")});
        const Outcome<QString> session = ws.worker(DbRole::Idempotency)
                                             .run<QString>([](DbSession &s) {
                                                 QSqlQuery q = s.exec(QStringLiteral("SELECT @@session.time_zone"));
                                                 return q.next() ? q.value(0).toString() : QString();
                                             })
                                             .result();
        QVERIFY(session.ok());
        QCOMPARE(*session, QStringLiteral("+00:00"));
    }
}

void TstBackendDetail::microseconds_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true); // no shop rows: microseconds; the shop keeps milliseconds
}

void TstBackendDetail::microseconds()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const QStringList times = {QStringLiteral("2026-11-29T21:55:07.123456Z"), QStringLiteral("2026-11-29T21:55:07.000001Z"),
                               QStringLiteral("2026-11-29T21:55:07.999999Z"), QStringLiteral("2026-11-29T21:55:08.000000Z"),
                               QStringLiteral("1999-12-31T23:59:59.500000Z")};
    for (int i = 0; i < times.size(); ++i) {
        const QString key = QStringLiteral("us:%1").arg(i);
        RecordSpec r;
        r.key = key;
        r.status = QStringLiteral("2");
        r.created = timeLiteral(db, times[i]);
        r.updated = timeLiteral(db, times[(i + 1) % times.size()]);
        r.expire = timeLiteral(db, times[(i + 2) % times.size()]);
        TRIAGE_OK(insertRecords(db, {r}));
        TicketSpec t;
        t.key = key;
        t.created = timeLiteral(db, times[i]);
        t.updated = timeLiteral(db, times[(i + 1) % times.size()]);
        TRIAGE_OK(insertTickets(db, {t}));
        IntentSpec a;
        a.key = key;
        a.created = timeLiteral(db, times[i]);
        a.updated = timeLiteral(db, times[(i + 1) % times.size()]);
        TRIAGE_OK(insertIntents(db, {a}));

        const KeyDetail d = detailOf(ws, key);
        QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
        QCOMPARE(d.record->createdAt, times[i]);
        QCOMPARE(d.record->updatedAt, times[(i + 1) % times.size()]);
        QCOMPARE(d.record->expireAt, times[(i + 2) % times.size()]);
        QCOMPARE(d.tickets.value(0).createdAt, times[i]);
        QCOMPARE(d.tickets.value(0).updatedAt, times[(i + 1) % times.size()]);
        QCOMPARE(d.attempts.value(0).createdAt, times[i]);
        QCOMPARE(d.attempts.value(0).updatedAt, times[(i + 1) % times.size()]);
        // Timeline events carry the exact microseconds.
        for (const TimelineEvent &e : d.timeline) {
            QVERIFY2(times.contains(e.time), qPrintable(e.time));
            QCOMPARE(e.micros, parseUtcMicros(e.time));
        }
    }
    QueueRequest req;
    req.kind = QueueKind::Failed;
    const PagedQueue p = fetchWholeQueue(ws, req, 2);
    QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    QCOMPARE(p.rows.size(), times.size());
    for (const QueueRow &row : p.rows) {
        const int i = row.idemKey.mid(3).toInt();
        QCOMPARE(row.createdAt, times[i]);
        QCOMPARE(row.updatedAt, times[(i + 1) % times.size()]);
        QCOMPARE(row.expireAt, times[(i + 2) % times.size()]);
    }
    // Queue order uses the full precision: .000001 < .123456 < .999999 < :08.
    QStringList order;
    for (const QueueRow &row : p.rows)
        order << row.updatedAt;
    QStringList sortedOrder = order;
    sortedOrder.sort();
    QCOMPARE(order, sortedOrder);
}

// ===================================================================== the seeds' own types

void TstBackendDetail::seedsOwnTypes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true); // no shop rows: users' own tables with the default names
}

void TstBackendDetail::seedsOwnTypes()
{
    // DESIGN.md §4: users' own tables with the seeds' exact types (DATETIME, TEXT; PostgreSQL
    // timestamp without time zone holding UTC) must still work.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    if (dialectOf(backend) == QLatin1String("mysql")) {
        TRIAGE_ADMIN(db, QStringLiteral("CREATE TABLE idempotency_record (id BIGINT PRIMARY KEY AUTO_INCREMENT, idem_key "
                                        "VARCHAR(64) NOT NULL UNIQUE, biz_type VARCHAR(32) NOT NULL, status TINYINT NOT NULL "
                                        "DEFAULT 0, result_snapshot TEXT, created_at DATETIME, updated_at DATETIME, expire_at "
                                        "DATETIME NOT NULL)"));
    } else if (dialectOf(backend) == QLatin1String("postgresql")) {
        TRIAGE_ADMIN(db, QStringLiteral("CREATE TABLE idempotency_record (id BIGSERIAL PRIMARY KEY, idem_key VARCHAR(64) NOT "
                                        "NULL UNIQUE, biz_type VARCHAR(32) NOT NULL, status SMALLINT NOT NULL DEFAULT 0, "
                                        "result_snapshot TEXT, created_at TIMESTAMP, updated_at TIMESTAMP, expire_at TIMESTAMP "
                                        "NOT NULL)"));
    } else {
        TRIAGE_ADMIN(db, QStringLiteral("CREATE TABLE idempotency_record (id INTEGER PRIMARY KEY, idem_key VARCHAR(64) NOT NULL "
                                        "UNIQUE, biz_type VARCHAR(32) NOT NULL, status TINYINT NOT NULL DEFAULT 0, "
                                        "result_snapshot TEXT, created_at DATETIME, updated_at DATETIME, expire_at DATETIME NOT "
                                        "NULL)"));
    }
    // UTC wall time, second precision (the writers' convention).
    const QString farFuture = dialectOf(backend) == QLatin1String("sqlite") ? QStringLiteral("'2099-01-01T00:00:00.000000Z'")
                                                                 : QStringLiteral("'2099-01-01 00:00:00'");
    const auto ago = [&backend](qint64 seconds) { return serverNowMinusWholeSeconds(backend, seconds); };
    TRIAGE_ADMIN(db, QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                    "expire_at) VALUES ('own:stale', 'x', 0, %1, %1, %2), ('own:fresh', 'x', 0, %3, %3, %2), "
                                    "('own:a', 'x', 2, %4, %4, %2), ('own:b', 'x', 2, %4, %4, %2), ('own:c', 'x', 2, %4, %4, %2)")
                         .arg(ago(3600), farFuture, ago(60), ago(7200)));
    WorkspaceConfig config = db.config();
    Workspace ws(config);
    QueueRequest unknown;
    unknown.kind = QueueKind::Unknown;
    QueueRequest inflight;
    inflight.kind = QueueKind::InFlight;
    QueueRequest failed;
    failed.kind = QueueKind::Failed;
    // No intent_log table in this database: read only the record queues.
    const Outcome<QueuePage> stale = fetchQueuePage(ws, inflight, {}, 10).result();
    TRIAGE_VERIFY_OUTCOME(stale);
    QCOMPARE(rowTags(stale->rows), QStringList{"record:own:fresh"});
    QVERIFY2(stale->rows[0].ageSeconds >= 59 && stale->rows[0].ageSeconds <= 65, qPrintable(QString::number(stale->rows[0].ageSeconds)));
    QVERIFY2(isCanonicalTime(stale->rows[0].updatedAt), qPrintable(stale->rows[0].updatedAt));
    QVERIFY2(stale->rows[0].updatedAt.endsWith(QLatin1String(".000000Z")), qPrintable(stale->rows[0].updatedAt));
    // Paging over second-precision equal times, one row per page.
    QStringList ids;
    QueueCursor cursor;
    for (int i = 0; i < 10; ++i) {
        const Outcome<QueuePage> page = fetchQueuePage(ws, failed, cursor, 1).result();
        TRIAGE_VERIFY_OUTCOME(page);
        for (const QueueRow &row : page->rows)
            ids << row.idemKey;
        cursor = page->next;
        if (page->atEnd)
            break;
    }
    QCOMPARE(ids, (QStringList{"own:a", "own:b", "own:c"}));
    const Outcome<QVector<QueueRow>> staleRecords = ws.worker(DbRole::Idempotency)
                                                        .run<QVector<QueueRow>>([config, unknown](DbSession &s) {
                                                            return queue_sql::pageRecords(s, config, unknown, {}, 10);
                                                        })
                                                        .result();
    TRIAGE_VERIFY_OUTCOME(staleRecords);
    QCOMPARE(rowTags(*staleRecords), QStringList{"record:own:stale"});
    QVERIFY2((*staleRecords)[0].ageSeconds >= 3599 && (*staleRecords)[0].ageSeconds <= 3605,
             qPrintable(QString::number((*staleRecords)[0].ageSeconds)));
    const auto stored = serverEpochMicros(
        db, dialectOf(backend) == QLatin1String("postgresql") ? QStringLiteral("updated_at AT TIME ZONE 'UTC'") : QStringLiteral("updated_at"),
        QStringLiteral("idempotency_record WHERE idem_key = 'own:stale'"));
    QVERIFY(stored.has_value());
    QCOMPARE((*staleRecords)[0].updatedAt, formatUtcMicros(*stored));
}

// ===================================================================== text ticket ids

void TstBackendDetail::textTicketIds_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true);
}

void TstBackendDetail::textTicketIds()
{
    // Business ids are opaque values end to end (DESIGN.md §4 "Business ids"): a ticket table
    // keyed by VARCHAR gives back each id's exact text ("0042" stays "0042"), the canonical-
    // ticket rule follows a SUCCESS snapshot naming one by its text, and a statement binding
    // a text id matches exactly that row (businessIdBindValue()).
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws, false)); // no UNIQUE(idem_key): the key has three tickets
    const QString dialect = dialectOf(backend);
    if (dialect == QLatin1String("postgresql")) {
        TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE ticket ALTER COLUMN id DROP DEFAULT, ALTER COLUMN id TYPE VARCHAR(64)"));
    } else if (dialect == QLatin1String("mysql")) {
        TRIAGE_ADMIN(db, QStringLiteral("ALTER TABLE ticket MODIFY id VARCHAR(64) NOT NULL"));
    } else {
        TRIAGE_ADMIN(db, QStringLiteral("DROP TABLE ticket"));
        TRIAGE_ADMIN(db, QStringLiteral("CREATE TABLE ticket (id VARCHAR(64) NOT NULL PRIMARY KEY, idem_key VARCHAR(64), "
                                        "tenant_id VARCHAR(64), title VARCHAR(255), status VARCHAR(16), payload TEXT, "
                                        "created_at TEXT NOT NULL, updated_at TEXT NOT NULL)"));
    }
    const QString key = QStringLiteral("ticket:create:acme:text-ids");
    const QString named = QStringLiteral("{\"ticket_id\":\"T-0002\",\"title\":\"Disk\"}");
    TRIAGE_ADMIN(db, QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload, created_at, updated_at) "
                                    "VALUES ('T-0010', %1, 'acme', 'Disk', 'OPEN', %2, %5, %5), "
                                    "('T-0002', %1, 'acme', 'Disk', 'OPEN', %3, %6, %6), "
                                    "('0042', %1, 'acme', 'Disk', 'CANCELLED', %4, %7, %7)")
                         .arg(textLiteral(db, key), textLiteral(db, QStringLiteral("{\"ticket_id\":\"T-0010\",\"title\":\"Disk\"}")),
                              textLiteral(db, named), textLiteral(db, QStringLiteral("{\"ticket_id\":\"0042\",\"title\":\"Disk\"}")),
                              serverAgoSeconds(db, 30), serverAgoSeconds(db, 20), serverAgoSeconds(db, 10)));
    RecordSpec r;
    r.key = key;
    r.status = QStringLiteral("1"); // SUCCESS
    r.snapshot = named;
    r.updated = serverAgoSeconds(db, 5);
    RecordSpec missing;
    missing.key = QStringLiteral("ticket:create:acme:text-ids-missing");
    missing.status = QStringLiteral("1");
    missing.snapshot = QStringLiteral("{\"ticket_id\":\"T-9999\"}");
    missing.updated = serverAgoSeconds(db, 5);
    TRIAGE_OK(insertRecords(db, {r, missing}));

    // readTickets: each id exactly as stored, oldest first.
    const KeyDetail d = detailOf(ws, key);
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QCOMPARE(d.tickets.size(), 3);
    QCOMPARE(d.tickets[0].id, BusinessId(QStringLiteral("T-0010")));
    QCOMPARE(d.tickets[1].id, BusinessId(QStringLiteral("T-0002")));
    QCOMPARE(d.tickets[2].id, BusinessId(QStringLiteral("0042")));

    // The canonical-ticket rule: the SUCCESS snapshot names "T-0002" (not the earliest).
    const CanonicalTicket c = canonicalTicket(d);
    QCOMPARE(c.basis, CanonicalTicket::Basis::SnapshotNames);
    QCOMPARE(c.id, std::optional<BusinessId>(BusinessId(QStringLiteral("T-0002"))));
    QVERIFY2(c.inconsistency.isEmpty(), qPrintable(c.inconsistency));
    QVERIFY2(c.reason.contains(QLatin1String("#T-0002")), qPrintable(c.reason));
    QCOMPARE(canonicalTicket(d.tickets, QString(), std::nullopt).id, std::optional<BusinessId>(BusinessId(QStringLiteral("T-0010"))));
    const SnapshotTicketChoice choice = snapshotTicketFor(d, BusinessId(QStringLiteral("T-0002")));
    QVERIFY2(choice.ticket.has_value(), qPrintable(choice.refusal));
    QCOMPARE(choice.ticket->payload, std::optional<QString>(named));
    QVERIFY(!snapshotTicketFor(d, BusinessId(QStringLiteral("42"))).ticket); // "42" is not "0042"

    // Binding: a text column compares text, exactly; an integer column takes numbers only.
    const auto bound = ws.worker(DbRole::Ticket)
                           .run<QStringList>([](DbSession &s) {
                               QStringList out;
                               out << (isIntegerColumn(s, QStringLiteral("ticket"), QStringLiteral("id")) ? QStringLiteral("int")
                                                                                                          : QStringLiteral("text"));
                               for (const QString &id : {QStringLiteral("0042"), QStringLiteral("42"), QStringLiteral("T-0002")}) {
                                   const auto v = businessIdBindValue(s, QStringLiteral("ticket"), QStringLiteral("id"), BusinessId(id));
                                   SqlBuilder b;
                                   QSqlQuery q = s.exec(QStringLiteral("SELECT id FROM ticket WHERE id = %1").arg(b.bind(*v)), b);
                                   QStringList ids;
                                   while (q.next())
                                       ids << BusinessId::fromColumn(q.value(0)).text();
                                   out << id + QLatin1Char('=') + ids.join(QLatin1Char(','));
                               }
                               out << (isIntegerColumn(s, QStringLiteral("idempotency_record"), QStringLiteral("id"))
                                           ? QStringLiteral("int")
                                           : QStringLiteral("text"));
                               for (const QString &id : {QStringLiteral("042"), QStringLiteral("T-1"), QStringLiteral("1")}) {
                                   const auto v = businessIdBindValue(s, QStringLiteral("idempotency_record"), QStringLiteral("id"), BusinessId(id));
                                   out << id + QLatin1Char('=') + (v ? v->toString() : QStringLiteral("(none)"));
                               }
                               return out;
                           })
                           .result();
    TRIAGE_VERIFY_OUTCOME(bound);
    QCOMPARE(*bound, (QStringList{"text", "0042=0042", "42=", "T-0002=T-0002", "int", "042=(none)", "T-1=(none)", "1=1"}));

    // The inconsistency scan binds the snapshots' text ids: "T-0002" is found (no row),
    // "T-9999" does not exist.
    const Outcome<InconsistencyPage> page = fetchInconsistencies(ws, 0, 100, QStringLiteral("text-ids")).result();
    TRIAGE_VERIFY_OUTCOME(page);
    QCOMPARE(page->rows.size(), 1);
    QCOMPARE(page->rows[0].kind, DuplicateInconsistency::Kind::SnapshotTicketMissing);
    QCOMPARE(page->rows[0].idemKey, missing.key);
    QCOMPARE(page->rows[0].ticketId, BusinessId(QStringLiteral("T-9999")));
    QCOMPARE(page->rows[0].ticketId.toJson(), QJsonValue(QStringLiteral("T-9999")));
}

// ===================================================================== missing key

void TstBackendDetail::missingKey_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendDetail::missingKey()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    const KeyDetail d = detailOf(ws, QStringLiteral("no:such:key"));
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(!d.record.has_value());
    QVERIFY(d.tickets.isEmpty());
    QVERIFY(d.attempts.isEmpty());
    QVERIFY(d.timeline.isEmpty());
    QCOMPARE(d.idemKey, QStringLiteral("no:such:key"));
}

// ===================================================================== mapped shape

void TstBackendDetail::mappedShape_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true);
}

void TstBackendDetail::mappedShape()
{
    // DESIGN.md §10: the detail reads the tables the mapping describes (tests/support/OddShape.h).
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(odd::create(db));
    const WorkspaceConfig config = odd::config(db, 60);
    Workspace ws(config);

    auto rec = [](qint64 id, const QString &key, std::optional<QString> state, const QString &updatedMs) {
        odd::Rec r;
        r.id = id;
        r.key = key;
        r.state = std::move(state);
        r.updatedMs = updatedMs;
        return r;
    };
    odd::Rec d1 = rec(1, "s:acme:d1", "Done ", QString::number(odd::fixedMs(31, 5)));
    d1.createdMs = QString::number(odd::fixedMs(30, 250));
    d1.tenant = QStringLiteral("bolt"); // the tenant column, not the key's third field
    d1.snap = QStringLiteral("{\"order_id\":900}");
    d1.rev = 4;
    const QString fixed = QString::number(odd::fixedMs(40));
    TRIAGE_OK(odd::insertRecs(db, {d1, rec(2, "s:acme:d2", "Weird", fixed), rec(3, "s:acme:d3", "1", fixed),
                                   rec(4, "s:acme:d4", std::nullopt, fixed),
                                   rec(5, "s:acme:d5", " pending", odd::nowMinusMs(db, 65000)),
                                   rec(6, "s:acme:d6", "PENDING", odd::nowMinusMs(db, 55000))}));
    auto order = [](qint64 id, std::optional<QString> shop, const QString &state, qint64 placedMs) {
        odd::Order o;
        o.id = id;
        o.key = QStringLiteral("s:acme:d1");
        o.shop = std::move(shop);
        o.state = state;
        o.placedMs = placedMs;
        return o;
    };
    odd::Order o900 = order(900, QStringLiteral("acme"), "live", odd::fixedMs(30, 500));
    o900.body = QStringLiteral("{\"order_id\":900}");
    TRIAGE_OK(odd::insertOrders(db, {o900, order(901, std::nullopt, "voided", odd::fixedMs(30, 500)),
                                     order(899, QStringLiteral("acme"), "VOIDED", odd::fixedMs(32))}));
    auto step = [&](qint64 id, const QString &state, int started, int changed) {
        odd::Step s;
        s.id = id;
        s.key = QStringLiteral("s:acme:d1");
        s.state = state;
        s.started = timeLiteral(db, odd::fixedIso(started));
        s.changed = timeLiteral(db, odd::fixedIso(changed));
        return s;
    };
    odd::Step s201 = step(201, "ok", 31, 33);
    s201.resp = QStringLiteral("{\"ok\":true}");
    odd::Step other = step(203, "timeout", 35, 35);
    other.key = QStringLiteral("S:ACME:D1"); // another key, whatever the collation says
    TRIAGE_OK(odd::insertSteps(db, {step(200, "started", 30, 30), s201, step(202, "TIMEOUT", 34, 34), other}));

    const KeyDetail d = detailOf(ws, QStringLiteral("s:acme:d1"));
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsOf(d)));
    QVERIFY(d.record.has_value());
    const RecordDetail &r = *d.record;
    QCOMPARE(r.id, qint64(1));
    QCOMPARE(r.idemKey, QStringLiteral("s:acme:d1"));
    QCOMPARE(r.bizType, NullableText(QStringLiteral("shop_order")));
    QCOMPARE(r.tenant, QStringLiteral("bolt"));
    QCOMPARE(r.statusText, QStringLiteral("SUCCESS"));
    QCOMPARE(r.statusCode, std::optional<qint64>(1));
    QCOMPARE(r.statusStored, NullableText(QStringLiteral("Done "))); // the raw value, spaces and case kept
    QCOMPARE(r.createdAt, QStringLiteral("2020-01-01T00:00:30.250000Z"));
    QCOMPARE(r.updatedAt, QStringLiteral("2020-01-01T00:00:31.005000Z"));
    QVERIFY(r.expireAt.isNull());
    QVERIFY(!r.expiresInSeconds.has_value());
    QVERIFY(!r.hasExpireAtColumn);
    QVERIFY(r.hasVersionColumn); // "rev", on a table whose quoted name has capitals
    QCOMPARE(r.version, std::optional<qint64>(4));
    QCOMPARE(r.resultSnapshot, NullableText(QStringLiteral("{\"order_id\":900}")));
    QCOMPARE(r.processingTimeoutS, 60);
    QVERIFY(!r.stale);
    const QVector<QPair<QString, QString>> columns = {
        {"rid", "1"},   {"rkey", "s:acme:d1"}, {"tenant", "bolt"}, {"State", "Done "}, {"snap", "(16 characters)"},
        {"c_ms", "2020-01-01T00:00:30.250000Z"}, {"u_ms", "2020-01-01T00:00:31.005000Z"}, {"rev", "4"}};
    QCOMPARE(r.allColumns, columns);
    // Every one of them is mapped (by its real name): none is an "other" column for show.
    QCOMPARE(r.mappedColumns, (QStringList{"rid", "rkey", "State", "snap", "c_ms", "u_ms", "rev", "tenant"}));
    for (const auto &[name, shown] : r.allColumns)
        QVERIFY2(r.isMappedColumn(name), qPrintable(name));
    QVERIFY(!r.isMappedColumn(QStringLiteral("status"))); // the default name means nothing here
    for (const QString &w : d.warnings)
        QVERIFY2(!w.contains(QStringLiteral("expire")), qPrintable(w)); // no expire_at: nothing to say

    QCOMPARE(d.tickets.size(), 3);
    const QStringList ticketIds{d.tickets[0].id.text(), d.tickets[1].id.text(), d.tickets[2].id.text()};
    QCOMPARE(ticketIds, (QStringList{QStringLiteral("900"), QStringLiteral("901"), QStringLiteral("899")}));
    QCOMPARE(d.tickets[0].status, NullableText(QStringLiteral("live")));
    QCOMPARE(d.tickets[1].status, NullableText(QStringLiteral("CANCELLED"))); // "voided" is the cancelled spelling
    QCOMPARE(d.tickets[2].status, NullableText(QStringLiteral("VOIDED")));    // exact spellings: another value
    QCOMPARE(d.tickets[0].tenantId, NullableText(QStringLiteral("acme")));
    QCOMPARE(d.tickets[1].tenantId, NullableText());
    QCOMPARE(d.tickets[0].title, NullableText()); // the table has no title
    QCOMPARE(d.tickets[0].payload, NullableText(QStringLiteral("{\"order_id\":900}")));
    QCOMPARE(d.tickets[0].idemKey, NullableText(QStringLiteral("s:acme:d1")));
    QCOMPARE(d.tickets[0].createdAt, QStringLiteral("2020-01-01T00:00:30.500000Z"));
    QVERIFY(d.tickets[0].updatedAt.isNull()); // the table has no updated_at
    QVERIFY(!d.tickets[0].hasUpdatedAtColumn);
    QCOMPARE(d.tickets[2].createdAt, QStringLiteral("2020-01-01T00:00:32.000000Z"));

    QCOMPARE(d.attempts.size(), 3);
    QCOMPARE(d.attempts[0].id, qint64(200));
    QCOMPARE(d.attempts[0].status, NullableText(QStringLiteral("INTENT")));
    QCOMPARE(d.attempts[1].status, NullableText(QStringLiteral("SUCCEEDED")));
    QCOMPARE(d.attempts[2].status, NullableText(QStringLiteral("TIMEOUT"))); // no spelling matches: as stored
    QCOMPARE(d.attempts[1].taskId, NullableText(QStringLiteral("job-1")));
    QCOMPARE(d.attempts[1].stepId, NullableText(QStringLiteral("s1")));
    QCOMPARE(d.attempts[1].action, NullableText(QStringLiteral("place_order")));
    QCOMPARE(d.attempts[1].actor, NullableText(QStringLiteral("agent-7")));
    QCOMPARE(d.attempts[1].response, NullableText(QStringLiteral("{\"ok\":true}")));
    QCOMPARE(d.attempts[1].request, NullableText());
    QCOMPARE(d.attempts[1].createdAt, QStringLiteral("2020-01-01T00:00:31.000000Z"));
    QCOMPARE(d.attempts[1].updatedAt, QStringLiteral("2020-01-01T00:00:33.000000Z"));

    QStringList timeline;
    for (const TimelineEvent &e : d.timeline)
        timeline << QStringLiteral("%1 %2 %3 %4: %5").arg(e.time, e.source, e.kind).arg(e.refId.text()).arg(e.summary);
    const QStringList expected = {
        "2020-01-01T00:00:30.000000Z intent_log intent 200: intent: place_order (task job-1 step s1, attempt 1) by agent-7",
        "2020-01-01T00:00:30.250000Z idempotency_record created 1: record created (biz_type shop_order)",
        "2020-01-01T00:00:30.500000Z ticket created 900: ticket #900 created (tenant acme; now live): NULL",
        "2020-01-01T00:00:30.500000Z ticket created 901: ticket #901 created (tenant NULL; now CANCELLED): NULL",
        "2020-01-01T00:00:31.000000Z intent_log intent 201: intent: place_order (task job-1 step s1, attempt 2) by agent-7",
        "2020-01-01T00:00:31.005000Z idempotency_record updated 1: record last updated: status SUCCESS",
        "2020-01-01T00:00:32.000000Z ticket created 899: ticket #899 created (tenant acme; now VOIDED): NULL",
        "2020-01-01T00:00:33.000000Z intent_log result 201: result: SUCCEEDED (response: {\"ok\":true})",
        "2020-01-01T00:00:34.000000Z intent_log intent 202: intent: place_order (task job-1 step s1, attempt 3) by agent-7",
        "2020-01-01T00:00:34.000000Z intent_log result 202: result: TIMEOUT",
    };
    QCOMPARE(timeline, expected);

    // Status values through the mapping: an unknown value stays visible as UNKNOWN_CODE_<value>.
    struct Status {
        const char *key;
        const char *text;
        std::optional<qint64> code;
        NullableText stored;
    };
    for (const Status &s : {Status{"s:acme:d2", "UNKNOWN_CODE_Weird", std::nullopt, QStringLiteral("Weird")},
                            Status{"s:acme:d3", "UNKNOWN_CODE_1", std::nullopt, QStringLiteral("1")},
                            Status{"s:acme:d4", "NULL", std::nullopt, std::nullopt},
                            Status{"s:acme:d5", "PROCESSING", 0, QStringLiteral(" pending")},
                            Status{"s:acme:d6", "PROCESSING", 0, QStringLiteral("PENDING")}}) {
        const KeyDetail k = detailOf(ws, QString::fromLatin1(s.key));
        QVERIFY2(k.errors.isEmpty(), qPrintable(errorsOf(k)));
        QVERIFY2(k.record.has_value(), s.key);
        QCOMPARE(k.record->statusText, QString::fromLatin1(s.text));
        QCOMPARE(k.record->statusCode, s.code);
        QCOMPARE(k.record->statusStored, s.stored);
        QVERIFY(!k.record->version.has_value()); // rev is NULL
        QVERIFY(k.record->hasVersionColumn);
    }
    // Staleness at the boundary (60 s, the server's clock on epoch milliseconds).
    const KeyDetail stale = detailOf(ws, QStringLiteral("s:acme:d5"));
    QVERIFY(stale.record->stale);
    QVERIFY2(stale.record->ageSeconds >= 65 && stale.record->ageSeconds < 75, qPrintable(QString::number(stale.record->ageSeconds)));
    const KeyDetail fresh = detailOf(ws, QStringLiteral("s:acme:d6"));
    QVERIFY(!fresh.record->stale);
    QVERIFY2(fresh.record->ageSeconds >= 55 && fresh.record->ageSeconds < 60, qPrintable(QString::number(fresh.record->ageSeconds)));

    // The version column counts only when mapped: the default name "version" is not there.
    WorkspaceConfig noRev = config;
    noRev.schema.records.version = QStringLiteral("version");
    Workspace wsNoRev(noRev);
    const KeyDetail n = detailOf(wsNoRev, QStringLiteral("s:acme:d1"));
    QVERIFY2(n.errors.isEmpty(), qPrintable(errorsOf(n)));
    QVERIFY(!n.record->hasVersionColumn);
    QVERIFY(!n.record->version.has_value());

    // Stored-text warnings name the mapped tables and columns.
    KeyDetail bad;
    bad.record = RecordDetail();
    bad.record->escapedColumns = {QStringLiteral("snap")};
    TicketRow t;
    t.id = BusinessId::fromInteger(7);
    t.escapedColumns = {QStringLiteral("body")};
    bad.tickets = {t};
    const QStringList w = storedTextWarnings(bad, config.schema);
    QCOMPARE(w.size(), 2);
    QVERIFY2(w[0].startsWith(QStringLiteral("IdemRecs.snap is not valid UTF-8: ")), qPrintable(w[0]));
    QVERIFY2(w[1].startsWith(QStringLiteral("orders.body of 1 ticket (id 7) is not valid UTF-8: ")), qPrintable(w[1]));
}

QTEST_GUILESS_MAIN(TstBackendDetail)
#include "tst_backend_detail.moc"
