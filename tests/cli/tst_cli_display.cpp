// triagectl show/mark as an operator reads them: a store that fails is said, never shown
// as empty (exit 2, also for mark); stored text exactly as stored, odd bytes escaped by
// the one documented scheme (TextEscape.h, DESIGN.md §4 "Odd bytes") with a warning;
// control characters escaped in the table format; large snapshots previewed. Runs the
// built executable against a fresh database of every backend.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "ServerTime.h"
#include "TestDatabases.h"
#include "TextEscape.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QStringList dbArgs(const QString &url)
{
    return {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url, QStringLiteral("--ticket-db"), url};
}

/// Seven days after the server's now (an expire_at that is not due).
QString future(const QString &backend)
{
    return serverNowMinus(backend, -7 * 86400);
}

/// The lines of `out` (UTF-8, "\n"-separated).
QStringList lines(const QByteArray &out)
{
    return QString::fromUtf8(out).split(QLatin1Char('\n'));
}

/// The message of the one stderr line that names `store` ("triagectl: cannot connect to
/// the ticket database …" without the program name).
QString errorLine(const QByteArray &err, const QString &store)
{
    const QString prefix = QStringLiteral("triagectl: ");
    for (const QString &l : lines(err))
        if (l.contains(store))
            return l.startsWith(prefix) ? l.mid(prefix.size()) : l;
    return {};
}

#define RUN_OK(result, args)                                                                                          \
    const CtlRun result = runCtl(args);                                                                                \
    QVERIFY2(result.finished && result.exitCode == 0, result.describe().constData())

} // namespace

class TstCliDisplay : public QObject {
    Q_OBJECT
private slots:
    void escapingScheme_data();
    void escapingScheme();
    void escapingUnescapes();
    void pluralText();
    // Also on the <backend>/shop rows (ShopShape.h). oddText's ticket title and payload are
    // SQL expressions (chr(), CONCAT): the row goes in through the shape-aware insert, then
    // an UPDATE of the shape's own columns sets them.
    void storeDown_data() { QTest::addColumn<QString>("backend"); triage::test::addBackendRows(false, true); }
    void storeDown();
    void oddText_data() { QTest::addColumn<QString>("backend"); triage::test::addBackendRows(false, true); }
    void oddText();
    void invalidUtf8OnSqlite_data();
    void invalidUtf8OnSqlite();
};

void TstCliDisplay::escapingScheme_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("escaped");
    QTest::newRow("ascii") << QByteArray("plain") << true << QStringLiteral("plain");
    QTest::newRow("U+FFFF is valid") << QByteArray("a\xEF\xBF\xBF" "b") << true << QStringLiteral("a\uFFFFb");
    QTest::newRow("4-byte") << QByteArray("\xF0\x9F\x98\x80") << true << QString::fromUtf8("\xF0\x9F\x98\x80");
    QTest::newRow("overlong /") << QByteArray("a\xC0\xAF" "b") << false << QStringLiteral("a\\xC0\\xAFb");
    QTest::newRow("overlong 3-byte") << QByteArray("\xE0\x80\xAF") << false << QStringLiteral("\\xE0\\x80\\xAF");
    QTest::newRow("lone surrogate") << QByteArray("x\xED\xA0\x80y") << false << QStringLiteral("x\\xED\\xA0\\x80y");
    QTest::newRow("latin-1") << QByteArray("Z\xFCrich") << false << QStringLiteral("Z\\xFCrich");
    QTest::newRow("utf-16le") << QByteArray("\xFF\xFEh\0i\0", 6) << false << QStringLiteral("\\xFF\\xFEh") + QChar(0) + u'i' + QChar(0);
    QTest::newRow("truncated") << QByteArray("caf\xC3") << false << QStringLiteral("caf\\xC3");
    QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << false << QStringLiteral("\\xF4\\x90\\x80\\x80");
    QTest::newRow("backslash doubled") << QByteArray("C:\\x41\xFF") << false << QStringLiteral("C:\\\\x41\\xFF");
}

void TstCliDisplay::escapingScheme()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, valid);
    QFETCH(QString, escaped);
    QCOMPARE(isValidUtf8(bytes), valid);
    const StoredText t = decodeStoredText(QVariant(bytes));
    QCOMPARE(t.escaped, !valid);
    QCOMPARE(*t.text, valid ? QString::fromUtf8(bytes) : escaped);
    if (!valid) {
        QCOMPARE(escapeInvalidUtf8(bytes), escaped);
        QCOMPARE(unescapeInvalidUtf8(escaped).value_or("(none)"), bytes); // reversible
    }
}

void TstCliDisplay::escapingUnescapes()
{
    QCOMPARE(unescapeInvalidUtf8(QStringLiteral("a\\\\b\\x00\\xfe")).value_or("(none)"), QByteArray("a\\b\0\xFE", 5));
    QVERIFY(!unescapeInvalidUtf8(QStringLiteral("bad \\q")).has_value());
    QVERIFY(!unescapeInvalidUtf8(QStringLiteral("short \\xF")).has_value());
    QCOMPARE(escapeControlChars(QStringLiteral("a\tb\nc")), QStringLiteral("a\\tb\\nc"));
    QCOMPARE(escapeControlChars(QStringLiteral("nul") + QChar(0) + QStringLiteral("esc\x1b[2Jbel\x07")),
             QStringLiteral("nul\\0esc\\u{001B}[2Jbel\\u{0007}"));
    QCOMPARE(escapeControlChars(QStringLiteral("c1 \u0085 ls \u2028")), QStringLiteral("c1 \\u{0085} ls \\u{2028}"));
}

void TstCliDisplay::pluralText()
{
    QCOMPARE(countText(0, QStringLiteral("event")), QStringLiteral("0 events"));
    QCOMPARE(countText(1, QStringLiteral("event")), QStringLiteral("1 event"));
    QCOMPARE(countText(2, QStringLiteral("event")), QStringLiteral("2 events"));
    QCOMPARE(countText(1, QStringLiteral("inconsistency"), QStringLiteral("inconsistencies")), QStringLiteral("1 inconsistency"));
    QCOMPARE(countText(3, QStringLiteral("inconsistency"), QStringLiteral("inconsistencies")), QStringLiteral("3 inconsistencies"));
}

void TstCliDisplay::storeDown()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(createAgentTables(db)); // the shop's tables first on a shop row (ShapeExpect.h)
    RUN_OK(schema, ctlDbArgs(db) + QStringList{QStringLiteral("init-schema")});
    const QString key = QStringLiteral("ticket:create:acme:store-down-1");
    // The same logical rows in either shape (BackendTestUtil's insert*()).
    RecordSpec rec;
    rec.key = key;
    rec.updated = serverNowMinus(db.backend(), 3600);
    rec.expire = future(db.backend());
    TRIAGE_OK(insertRecords(db, {rec}));
    IntentSpec attempt;
    attempt.taskId = QStringLiteral("t1");
    attempt.stepId = QStringLiteral("s1");
    attempt.key = key;
    attempt.created = serverNowMinus(db.backend(), 3500);
    TRIAGE_OK(insertIntents(db, {attempt}));
    // The ticket store on a closed loopback port; the other two are up.
    const QString down = QStringLiteral("postgresql://triage@127.0.0.1:1/triage");
    QStringList base = ctlDbArgs(db);
    QCOMPARE(base.at(base.size() - 2), QStringLiteral("--ticket-db"));
    base.last() = down;

    const QStringList showArgs = base + QStringList{QStringLiteral("show"), key};
    const CtlRun show = runCtl(showArgs);
    QVERIFY2(show.finished && show.exitCode == 2, show.describe().constData());
    const QString why = errorLine(show.err, QStringLiteral("ticket database"));
    QVERIFY2(why.startsWith(QStringLiteral("cannot connect to the ticket database")), show.describe().constData());
    const QStringList out = lines(show.out);
    QVERIFY2(out.contains(QStringLiteral("Tickets: unknown (%1)").arg(why)), show.describe().constData());
    QVERIFY2(!show.out.contains("Tickets (0)"), show.describe().constData());
    QVERIFY2(out.contains(QStringLiteral("Intent-log attempts (1)")), show.describe().constData());
    QVERIFY2(out.contains(QStringLiteral("Timeline (3 events; incomplete: ticket database failed)")), show.describe().constData());
    QVERIFY2(out.contains(QStringLiteral("  ticket: %1").arg(why)), show.describe().constData());

    // JSON: the failed store's rows are null (unknown), not an empty list.
    const QStringList jsonArgs = base + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")};
    const CtlRun json = runCtl(jsonArgs);
    QVERIFY2(json.finished && json.exitCode == 2, json.describe().constData());
    const QJsonObject d = QJsonDocument::fromJson(json.out).object();
    QVERIFY2(d.value(QStringLiteral("tickets")).isNull(), json.describe().constData());
    QCOMPARE(d.value(QStringLiteral("attempts")).toArray().size(), 1);
    QCOMPARE(d.value(QStringLiteral("errors")).toObject().value(QStringLiteral("ticket")).toString(), why);

    // mark FAILED cannot read its evidence: an error (exit 2), not a safety refusal (4).
    const QStringList markArgs = base + QStringList{QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("failed"),
                                                    QStringLiteral("--reason"), QStringLiteral("upstream says nothing happened")};
    const CtlRun mark = runCtl(markArgs);
    QVERIFY2(mark.finished && mark.exitCode == 2, mark.describe().constData());
    QVERIFY2(lines(mark.out).contains(QStringLiteral("error    %1  the evidence could not be read (%2): FAILED needs proof of no side effect")
                                          .arg(key, why)),
             mark.describe().constData());
    // mark SUCCESS cannot check the canonical-ticket rule either: an error (exit 2), audited
    // (both marks), for --snapshot-from-ticket and for a snapshot file alike.
    QTemporaryDir dir;
    QFile snap(dir.filePath(QStringLiteral("snap.json")));
    QVERIFY(snap.open(QIODevice::WriteOnly));
    snap.write(R"({"ticket_id": 5, "title": "x"})");
    snap.close();
    for (const QStringList &from : {QStringList{QStringLiteral("--snapshot-from-ticket"), QStringLiteral("5")},
                                    QStringList{QStringLiteral("--snapshot"), snap.fileName()}}) {
        const QStringList successArgs = base + QStringList{QStringLiteral("mark"), key, QStringLiteral("--to"), QStringLiteral("success"),
                                                           QStringLiteral("--reason"), QStringLiteral("the ticket exists upstream")}
            + from;
        const CtlRun success = runCtl(successArgs);
        QVERIFY2(success.finished && success.exitCode == 2, success.describe().constData());
        QVERIFY2(lines(success.out).contains(QStringLiteral("error    %1  the tickets could not be read (%2): a SUCCESS snapshot may "
                                                            "come only from the canonical ticket (DESIGN.md §6)")
                                                 .arg(key, why)),
                 success.describe().constData());
    }
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT action || ':' || outcome FROM triage_audit ORDER BY id").replace(
                 QStringLiteral("action || ':' || outcome"), db.dialect() == QLatin1String("mysql") ? QStringLiteral("CONCAT(action, ':', outcome)")
                                                                                               : QStringLiteral("action || ':' || outcome"))),
             (QStringList{QStringLiteral("mark_failed:error"), QStringLiteral("mark_success:error"), QStringLiteral("mark_success:error")}));
    // The record is unchanged (as stored: the code 0, or the shop's "pending ").
    QCOMPARE(storedRecordStatuses(db, {key}), QStringList{db.isShop() ? QStringLiteral("pending ") : QStringLiteral("0")});
}

void TstCliDisplay::oddText()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    backend = db.backend(); // the SQL below follows the backend; the shape only names the tables
    TRIAGE_OK(createAgentTables(db)); // the shop's tables first on a shop row (ShapeExpect.h)
    const QStringList base = ctlDbArgs(db);
    RUN_OK(schema, base + QStringList{QStringLiteral("init-schema")});
    const QString key = QStringLiteral("ticket:create:acme:odd-text-1");
    const QString bigKey = QStringLiteral("ticket:create:acme:odd-text-big");
    const QString badKey = QStringLiteral("ticket:create:acme:odd-text-badjson");
    const QString dupKey = QStringLiteral("ticket:create:acme:odd-text-dupkeys");
    // ESC [2J (clear screen), a tab, a newline and a bell in a ticket title; U+FFFF (valid
    // UTF-8) in the payload.
    const QString chr = backend == QLatin1String("mysql") ? QStringLiteral("CHAR(%1 USING utf8mb4)") : QStringLiteral("chr(%1)");
    auto cat = [&](const QStringList &parts) {
        return backend == QLatin1String("mysql") ? QStringLiteral("CONCAT(%1)").arg(parts.join(QStringLiteral(", ")))
                                                 : parts.join(QStringLiteral(" || "));
    };
    const QString sqliteChr = QStringLiteral("char(%1)");
    const QString c = backend == QLatin1String("sqlite") ? sqliteChr : chr;
    const QString title = cat({QStringLiteral("'VPN'"), c.arg(27), QStringLiteral("'[2J down'"), c.arg(9), QStringLiteral("'x'"),
                               c.arg(10), QStringLiteral("'y'"), c.arg(7)});
    QString payload = cat({QStringLiteral("'{\"n\":\"'"), backend == QLatin1String("mysql") ? QStringLiteral("_utf8mb4 X'EFBFBF'")
                                                                                           : c.arg(0xFFFF),
                           QStringLiteral("'\"}'")});
    if (db.isShop() && backend == QLatin1String("postgresql"))
        payload = QStringLiteral("CAST(%1 AS jsonb)").arg(payload); // orders.body is JSONB
    const QString big = QStringLiteral("{\"text\":\"%1\"}").arg(QString(4990, QLatin1Char('a'))); // 5001 characters
    // The same logical rows in either shape (BackendTestUtil's insert*()): SUCCESS records.
    QVector<RecordSpec> records;
    for (const auto &[k, snapshot] : {std::pair{key, ticketIdPayload(db, 1)}, std::pair{bigKey, big},
                                      std::pair{badKey, QStringLiteral("{\"ticket_id\": 7,")},
                                      std::pair{dupKey, QStringLiteral("{\"status\":\"FAILED\",\"status\":\"SUCCESS\"}")}}) {
        RecordSpec r;
        r.key = k;
        r.status = QStringLiteral("1");
        r.snapshot = snapshot;
        r.updated = serverNowMinus(backend, 3600);
        r.expire = future(backend);
        records << r;
    }
    TRIAGE_OK(insertRecords(db, records));
    TicketSpec ticket;
    ticket.id = 1;
    ticket.key = key;
    ticket.tenant = QStringLiteral("acme");
    ticket.title = QStringLiteral("(set below)");
    ticket.payload = QStringLiteral("{}");
    ticket.created = serverNowMinus(backend, 3500);
    ticket.updated = ticket.created;
    TRIAGE_OK(insertTickets(db, {ticket}));
    // The title and payload as SQL expressions, in the shape's own columns.
    TRIAGE_OK(db.adminExec(db.isShop() ? QStringLiteral("UPDATE orders SET summary = %1, body = %2 WHERE request_key = '%3'").arg(title, payload, key)
                                       : QStringLiteral("UPDATE ticket SET title = %1, payload = %2 WHERE idem_key = '%3'").arg(title, payload, key)));
    const QString shownPayload = storedPayloadText(db, QStringLiteral("{\"n\":\"\uFFFF\"}"));

    // Table: the control characters are escaped; nothing raw reaches the terminal.
    const QStringList showArgs = base + QStringList{QStringLiteral("show"), key};
    RUN_OK(show, showArgs);
    for (char ch : {'\x1b', '\x07', '\t', '\0'})
        QVERIFY2(!show.out.contains(ch), show.describe().constData());
    QVERIFY2(show.out.contains("VPN\\u{001B}[2J down\\tx\\ny\\u{0007}"), show.describe().constData());
    QVERIFY2(show.out.contains(shownPayload.toUtf8()), show.describe().constData());
    QVERIFY2(show.out.contains("Timeline (2 events)"), show.describe().constData()); // record created, ticket created
    QVERIFY2(show.out.contains("Tickets (1)"), show.describe().constData());
    // JSON: exactly as stored (U+FFFF stays U+FFFF), no warning.
    const QStringList jsonArgs = base + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")};
    RUN_OK(json, jsonArgs);
    const QJsonObject d = QJsonDocument::fromJson(json.out).object();
    const QJsonObject t = d.value(QStringLiteral("tickets")).toArray().at(0).toObject();
    QCOMPARE(t.value(QStringLiteral("payload")).toString(), shownPayload);
    QCOMPARE(t.value(QStringLiteral("title")).toString(), QStringLiteral("VPN\x1b[2J down\tx\ny\x07"));
    QVERIFY(!t.contains(QStringLiteral("escaped_columns")));
    QCOMPARE(d.value(QStringLiteral("warnings")).toArray().size(), 0);

    // A large snapshot: a preview with its size, unless --full.
    const QStringList bigArgs = base + QStringList{QStringLiteral("show"), bigKey};
    RUN_OK(bigShow, bigArgs);
    const QStringList bigLines = lines(bigShow.out);
    const qsizetype at = bigLines.indexOf(QStringLiteral("  result_snapshot (5001 characters, as stored; the first 2000 shown, --full prints all):"));
    QVERIFY2(at >= 0, bigShow.describe().constData());
    QCOMPARE(bigLines.at(at + 1), QStringLiteral("    ") + big.left(2000) + QChar(0x2026));
    const QStringList fullArgs = bigArgs + QStringList{QStringLiteral("--full")};
    RUN_OK(bigFull, fullArgs);
    const QStringList fullLines = lines(bigFull.out);
    const qsizetype fullAt = fullLines.indexOf(QStringLiteral("  result_snapshot (5001 characters, as stored):"));
    QVERIFY2(fullAt >= 0, bigFull.describe().constData());
    QCOMPARE(fullLines.at(fullAt + 1), QStringLiteral("    ") + big);

    // A SUCCESS snapshot that is not valid JSON is a warning.
    const QStringList badArgs = base + QStringList{QStringLiteral("show"), badKey};
    RUN_OK(badShow, badArgs);
    QVERIFY2(badShow.out.contains("  ! result_snapshot of this SUCCESS record is not valid JSON (unterminated object at line 1, "
                                  "column 17 (offset 16)): callers were given a broken snapshot\n"),
             badShow.describe().constData());
    // A snapshot writing one key twice: shown as stored, and a warning.
    const QStringList dupArgs = base + QStringList{QStringLiteral("show"), dupKey};
    RUN_OK(dupShow, dupArgs);
    QVERIFY2(dupShow.out.contains("    {\"status\":\"FAILED\",\"status\":\"SUCCESS\"}\n"), dupShow.describe().constData());
    QVERIFY2(dupShow.out.contains("  ! result_snapshot writes \"status\" 2 times in $: a JSON parser keeps only the last, callers "
                                  "may have read either\n"),
             dupShow.describe().constData());
}

void TstCliDisplay::invalidUtf8OnSqlite_data()
{
    QTest::addColumn<QString>("hex");
    QTest::addColumn<QString>("shown");
    QTest::newRow("overlong") << QStringLiteral("7BC0AF7D") << QStringLiteral("{\\xC0\\xAF}");
    QTest::newRow("lone surrogate") << QStringLiteral("7BEDA0807D") << QStringLiteral("{\\xED\\xA0\\x80}");
    QTest::newRow("latin-1") << QStringLiteral("5AFC72696368") << QStringLiteral("Z\\xFCrich");
    QTest::newRow("utf-16le") << QStringLiteral("FFFE680069005C00") << QStringLiteral("\\xFF\\xFEh") + QChar(0) + u'i' + QChar(0)
                                                                            + QStringLiteral("\\\\") + QChar(0);
    QTest::newRow("truncated") << QStringLiteral("636166C3") << QStringLiteral("caf\\xC3");
    QTest::newRow("U+FFFF (valid)") << QStringLiteral("61EFBFBF62") << QStringLiteral("a\uFFFFb");
}

void TstCliDisplay::invalidUtf8OnSqlite()
{
    // Only SQLite stores bytes that are not valid UTF-8 in a text column of the default
    // schema (PostgreSQL UTF8 databases and utf8mb4 columns reject them).
    QFETCH(QString, hex);
    QFETCH(QString, shown);
    TestDatabase db(QStringLiteral("sqlite"));
    const QStringList base = dbArgs(db.url());
    RUN_OK(schema, base + QStringList{QStringLiteral("init-schema")});
    const QString key = QStringLiteral("ticket:create:acme:bytes-1");
    for (const QString &sql : {
             QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, result_snapshot, created_at, updated_at, expire_at) "
                            "VALUES ('%1', 'ticket_create', 0, CAST(X'%2' AS TEXT), %3, %3, %4)")
                 .arg(key, hex, serverNowMinus(QStringLiteral("sqlite"), 3600), future(QStringLiteral("sqlite"))),
             QStringLiteral("INSERT INTO intent_log (task_id, step_id, action, idem_key, status, response, actor, created_at, updated_at) "
                            "VALUES ('t', 's', 'create_ticket', '%1', 'UNKNOWN', CAST(X'%2' AS TEXT), 'a', %3, %3)")
                 .arg(key, hex, serverNowMinus(QStringLiteral("sqlite"), 3500)),
         }) {
        const QString error = db.adminExec(sql);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    const QStringList args = base + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")};
    RUN_OK(json, args);
    const QJsonObject d = QJsonDocument::fromJson(json.out).object();
    const QJsonObject rec = d.value(QStringLiteral("record")).toObject();
    const QJsonObject att = d.value(QStringLiteral("attempts")).toArray().at(0).toObject();
    QCOMPARE(rec.value(QStringLiteral("result_snapshot")).toString(), shown);
    QCOMPARE(att.value(QStringLiteral("response")).toString(), shown);
    const bool valid = hex == QLatin1String("61EFBFBF62");
    const QStringList warnings = [&] {
        QStringList w;
        for (const QJsonValue &v : d.value(QStringLiteral("warnings")).toArray())
            w << v.toString();
        return w;
    }();
    const QString scheme = QStringLiteral("shown with each invalid byte as \\xHH and each backslash doubled (DESIGN.md §4 \"Odd bytes\")");
    if (valid) {
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
        QVERIFY(!rec.contains(QStringLiteral("escaped_columns")));
    } else {
        QCOMPARE(warnings, (QStringList{QStringLiteral("idempotency_record.result_snapshot is not valid UTF-8: ") + scheme,
                                        QStringLiteral("intent_log.response of 1 attempt (id 1) is not valid UTF-8: ") + scheme}));
        QCOMPARE(rec.value(QStringLiteral("escaped_columns")).toArray(), QJsonArray{QStringLiteral("result_snapshot")});
        QCOMPARE(att.value(QStringLiteral("escaped_columns")).toArray(), QJsonArray{QStringLiteral("response")});
        // The scheme gives the stored bytes back exactly.
        QCOMPARE(unescapeInvalidUtf8(shown).value_or("(none)"), QByteArray::fromHex(hex.toLatin1()));
    }
}

QTEST_GUILESS_MAIN(TstCliDisplay)
#include "tst_cli_display.moc"
