// triagectl end to end: runs the built executable with QProcess against a fresh database
// of every backend and checks its output against independent, hand-written SQL.
#include "BackendTestUtil.h"
#include "CtlRun.h"
#include "ShapeExpect.h"
#include "ServerTime.h"
#include "TestDatabases.h"
#include "Queue.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// The three --*-db options all naming `url`.
QStringList dbArgs(const QString &url)
{
    return {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url, QStringLiteral("--ticket-db"), url};
}

/// Runs triagectl and stops the test unless it exits 0; `result` is the CtlRun.
#define RUN_OK(result, ...)                                                                                          \
    const CtlRun result = runCtl(__VA_ARGS__);                                                                         \
    QVERIFY2(result.finished && result.exitCode == 0, result.describe().constData())

/// Empty when triagectl `args` exits with `code` and its stderr contains `needle`; else why not.
QByteArray exitMismatch(const QStringList &args, int code, const char *needle)
{
    const CtlRun r = runCtl(args);
    if (r.finished && r.exitCode == code && r.err.contains(needle))
        return {};
    return "expected exit " + QByteArray::number(code) + " and \"" + needle + "\" on stderr\n" + r.describe();
}

#define EXPECT_EXIT(...)                                                                                             \
    do {                                                                                                             \
        const QByteArray why_ = exitMismatch(__VA_ARGS__);                                                           \
        QVERIFY2(why_.isEmpty(), why_.constData());                                                                  \
    } while (false)

/// Keys of PROCESSING records older than `seconds` (updated_at < now() - seconds).
QStringList staleRecordKeys(const TestDatabase &db, int seconds)
{
    QString sql;
    if (db.dialect() == QLatin1String("sqlite"))
        sql = QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 0 AND "
                             "julianday(updated_at) < julianday('now') - %1 / 86400.0")
                  .arg(seconds);
    else
        sql = QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 0 AND updated_at < %1")
                  .arg(serverNowMinus(db.backend(), seconds));
    QString error;
    const QStringList keys = db.adminQueryColumn(sql, &error);
    if (!error.isEmpty())
        qWarning("independent SQL failed: %s", qPrintable(error));
    return keys;
}

/// `column` of every key's latest intent-log attempt (by created_at, id) whose status is
/// UNKNOWN or RECONCILE_PENDING: a window function, unlike the console's NOT EXISTS.
QStringList latestUnknownAttempts(const TestDatabase &db, const QString &column)
{
    QString error;
    const QStringList out = db.adminQueryColumn(
        QStringLiteral("SELECT %1 FROM (SELECT id, idem_key, status, ROW_NUMBER() OVER (PARTITION BY idem_key "
                       "ORDER BY created_at DESC, id DESC) AS rn FROM intent_log WHERE idem_key IS NOT NULL) latest "
                       "WHERE rn = 1 AND status IN ('UNKNOWN', 'RECONCILE_PENDING')")
            .arg(column),
        &error);
    if (!error.isEmpty())
        qWarning("independent SQL failed: %s", qPrintable(error));
    return out;
}

/// "server now minus `seconds`" as a value of the time column, for inserting edge rows.
QString agoValue(const QString &backend, int seconds)
{
    return serverNowMinus(backend, seconds);
}

QString futureValue(const QString &backend)
{
    if (triage::test::dialectOf(backend) == QLatin1String("postgresql"))
        return QStringLiteral("now() + interval '7 days'");
    if (triage::test::dialectOf(backend) == QLatin1String("mysql"))
        return QStringLiteral("UTC_TIMESTAMP(6) + INTERVAL 7 DAY");
    return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%f', 'now', '+7 days') || '000Z'");
}

QSet<QString> toSet(const QStringList &l)
{
    return QSet<QString>(l.begin(), l.end());
}

const QRegularExpression &isoMicros()
{
    static const QRegularExpression re(QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$)"));
    return re;
}

} // namespace

class TstCliTriagectl : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void unknownQueueMatchesIndependentSql_data();
    void unknownQueueMatchesIndependentSql();
    void showAndFormats_data();
    void showAndFormats();
    void exitCodes();
    void markExitCodes_data();
    void markExitCodes();
    void demoWorkspace();
    void helpListsCommands();
    void markHelpShowsMarkOptionsOnly();
};

void TstCliTriagectl::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(TRIAGECTL_PATH)).isExecutable(), TRIAGECTL_PATH);
}

void TstCliTriagectl::unknownQueueMatchesIndependentSql_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows(true);
}

void TstCliTriagectl::unknownQueueMatchesIndependentSql()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    const QStringList base = dbArgs(db.url());

    RUN_OK(schema, base + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")});
    QVERIFY(schema.out.contains("schema ready"));
    QVERIFY(schema.out.contains("omitted"));
    RUN_OK(again, base + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop"),
                                     QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(again.out).object().value(QStringLiteral("ticket_backstop")).toBool(true), false);

    RUN_OK(seed, base + QStringList{QStringLiteral("seed-demo"), QStringLiteral("--rows"), QStringLiteral("20000"),
                                    QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonObject seeded = QJsonDocument::fromJson(seed.out).object();
    QCOMPARE(seeded.value(QStringLiteral("records")).toInteger(), 20000);
    QVERIFY(seeded.value(QStringLiteral("tickets")).toInteger() > 10000);
    QVERIFY(seeded.value(QStringLiteral("intents")).toInteger() > 20000);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idempotency_record")), QStringList{QStringLiteral("20000")});

    // The generated in-flight records (1 s to 4 min old when generated; stale ones are 10 min
    // or older) are moved to 60 s old, so however long seeding took on a loaded machine, none
    // is near the 300 s boundary while the bracket below is taken (it must then be exact).
    {
        const QString error = db.adminExec(QStringLiteral("UPDATE idempotency_record SET created_at = %1, updated_at = %1 "
                                                          "WHERE status = 0 AND updated_at > %2")
                                               .arg(agoValue(backend, 60), agoValue(backend, 540)));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    // Two edge rows 15 s either side of the default 300 s processing timeout.
    for (const auto &[key, age] : {std::pair{QStringLiteral("cli:edge:stale"), 315}, std::pair{QStringLiteral("cli:edge:fresh"), 285}}) {
        const QString error = db.adminExec(
            QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                           "VALUES ('%1', 'ticket_create', 0, %2, %2, %3)")
                .arg(key, agoValue(backend, age), futureValue(backend)));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    const QStringList listArgs = base + QStringList{QStringLiteral("list"), QStringLiteral("UNKNOWN"), QStringLiteral("--format"),
                                                    QStringLiteral("json"), QStringLiteral("--limit"), QStringLiteral("0")};
    RUN_OK(list, listArgs);
    // Independent statements right after the CLI run: a record in the CLI's answer was stale
    // at the CLI's now(); with 5 s margins either side the two cut-offs bracket it.
    const QSet<QString> surelyStale = toSet(staleRecordKeys(db, 305));
    const QSet<QString> perhapsStale = toSet(staleRecordKeys(db, 295));
    const QSet<QString> sqlIntentKeys = toSet(latestUnknownAttempts(db, QStringLiteral("idem_key")));
    const QSet<QString> sqlIntentIds = toSet(latestUnknownAttempts(db, QStringLiteral("id")));

    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(list.out, &parseError);
    QVERIFY2(parseError.error == QJsonParseError::NoError && doc.isArray(), qPrintable(parseError.errorString()));
    const QJsonArray rows = doc.array();
    QSet<QString> cliRecordKeys, cliIntentKeys, cliIntentIds;
    int recordRows = 0, intentRows = 0;
    QString previousUpdated;
    for (const QJsonValue &v : rows) {
        const QJsonObject o = v.toObject();
        for (const char *k : {"idem_key", "source", "biz_type", "action", "status", "created_at", "updated_at", "expire_at",
                              "age_seconds", "id", "task_id", "step_id"})
            QVERIFY2(o.contains(QLatin1String(k)), k);
        const QString updated = o.value(QStringLiteral("updated_at")).toString();
        QVERIFY2(isoMicros().match(updated).hasMatch(), qPrintable(updated));
        QVERIFY2(isoMicros().match(o.value(QStringLiteral("created_at")).toString()).hasMatch(),
                 qPrintable(o.value(QStringLiteral("created_at")).toString()));
        QVERIFY2(previousUpdated <= updated, "oldest updated_at first");
        previousUpdated = updated;
        QVERIFY(o.value(QStringLiteral("age_seconds")).isDouble());
        QVERIFY(o.value(QStringLiteral("id")).isDouble());
        const QString source = o.value(QStringLiteral("source")).toString();
        if (source == QLatin1String("record")) {
            ++recordRows;
            cliRecordKeys << o.value(QStringLiteral("idem_key")).toString();
            QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("PROCESSING"));
            QVERIFY(o.value(QStringLiteral("biz_type")).isString());
            QVERIFY(o.value(QStringLiteral("action")).isNull());
            QVERIFY(o.value(QStringLiteral("task_id")).isNull());
            QVERIFY(o.value(QStringLiteral("step_id")).isNull());
            QVERIFY(isoMicros().match(o.value(QStringLiteral("expire_at")).toString()).hasMatch());
            QVERIFY(o.value(QStringLiteral("age_seconds")).toDouble() > 300);
        } else {
            QCOMPARE(source, QStringLiteral("intent"));
            ++intentRows;
            cliIntentKeys << o.value(QStringLiteral("idem_key")).toString();
            cliIntentIds << QString::number(o.value(QStringLiteral("id")).toInteger());
            const QString status = o.value(QStringLiteral("status")).toString();
            QVERIFY2(status == QLatin1String("UNKNOWN") || status == QLatin1String("RECONCILE_PENDING"), qPrintable(status));
            QVERIFY(o.value(QStringLiteral("biz_type")).isNull());
            QVERIFY(o.value(QStringLiteral("action")).isString());
            QVERIFY(o.value(QStringLiteral("task_id")).isString());
            QVERIFY(o.value(QStringLiteral("expire_at")).isNull());
        }
    }
    QCOMPARE(cliRecordKeys.size(), recordRows); // each record once
    QCOMPARE(cliIntentKeys.size(), intentRows); // one row per key: its latest attempt

    // The generated data keeps clear of the boundary, so the bracket is exact ...
    QCOMPARE(surelyStale, perhapsStale);
    QVERIFY2(surelyStale.size() > 200, qPrintable(QString::number(surelyStale.size())));
    // ... and the CLI must match it exactly (⊇ surelyStale and ⊆ perhapsStale).
    QVERIFY(cliRecordKeys.contains(surelyStale));
    QVERIFY(perhapsStale.contains(cliRecordKeys));
    QCOMPARE(cliRecordKeys, surelyStale);
    QVERIFY(cliRecordKeys.contains(QStringLiteral("cli:edge:stale")));
    QVERIFY(!cliRecordKeys.contains(QStringLiteral("cli:edge:fresh")));
    QVERIFY2(sqlIntentKeys.size() > 100, qPrintable(QString::number(sqlIntentKeys.size())));
    QCOMPARE(cliIntentKeys, sqlIntentKeys);
    QCOMPARE(cliIntentIds, sqlIntentIds);

    // Small pages (many keyset round trips merging both sources) give the same rows in the
    // same order; newest-first gives the same set, newest updated_at first.
    auto identities = [](const QJsonArray &a) {
        QStringList ids;
        for (const QJsonValue &v : a)
            ids << v.toObject().value(QStringLiteral("source")).toString() + QLatin1Char(':')
                    + QString::number(v.toObject().value(QStringLiteral("id")).toInteger());
        return ids;
    };
    RUN_OK(paged, listArgs + QStringList{QStringLiteral("--page-size"), QStringLiteral("37")});
    QCOMPARE(identities(QJsonDocument::fromJson(paged.out).array()), identities(rows));
    RUN_OK(newest, listArgs + QStringList{QStringLiteral("--page-size"), QStringLiteral("41"), QStringLiteral("--newest-first")});
    const QJsonArray newestRows = QJsonDocument::fromJson(newest.out).array();
    QCOMPARE(toSet(identities(newestRows)), toSet(identities(rows)));
    for (int i = 1; i < newestRows.size(); ++i)
        QVERIFY(newestRows.at(i - 1).toObject().value(QStringLiteral("updated_at")).toString()
                >= newestRows.at(i).toObject().value(QStringLiteral("updated_at")).toString());
    // --limit stops after exactly N rows, across pages.
    RUN_OK(limited, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--limit"), QStringLiteral("100"),
                                       QStringLiteral("--page-size"), QStringLiteral("30")});
    QCOMPARE(identities(QJsonDocument::fromJson(limited.out).array()), identities(rows).mid(0, 100));

    // The table format counts the whole queue (countQueue) and shows the first --limit rows.
    const QStringList tableArgs = base + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"),
                                                     QStringLiteral("5")};
    RUN_OK(table, tableArgs);
    const QStringList lines = QString::fromUtf8(table.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5 + 1);
    QVERIFY2(lines.first().startsWith(QStringLiteral("SOURCE")), qPrintable(lines.first()));
    QCOMPARE(lines.last(), QStringLiteral("5 rows (of %1); --limit 0 lists all").arg(rows.size()));

    // A filter narrows both sources consistently: --key selects the edge row only.
    RUN_OK(filtered, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--key"),
                                        QStringLiteral("cli:edge:"), QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonArray edge = QJsonDocument::fromJson(filtered.out).array();
    QCOMPARE(edge.size(), 1);
    QCOMPARE(edge.first().toObject().value(QStringLiteral("idem_key")).toString(), QStringLiteral("cli:edge:stale"));
}

void TstCliTriagectl::showAndFormats_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows(true, true); // and the shop shape (ShapeExpect.h)
}

void TstCliTriagectl::showAndFormats()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(createAgentTables(db)); // the shop's tables first on a shop row
    const QStringList base = ctlDbArgs(db);
    RUN_OK(schema, base + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")});
    const bool shop = db.isShop();

    // A stale PROCESSING record with two tickets (a breached backstop) and two attempts, a
    // SUCCESS record whose snapshot QJsonDocument would rewrite, and a FAILED record whose
    // key needs CSV quoting. Times come back exactly: to the microsecond on the default
    // schema, to the millisecond the shop's epoch_ms columns keep (`back`). The same logical
    // rows in either shape (BackendTestUtil's insert*()).
    const QString key = QStringLiteral("ticket:create:acme:cli-show-1");
    const QString snapshot = QString::fromUtf8(R"({"amount": 12345678901234567890, "ratio": 1.10, "name": "Zürich \"HQ\""})");
    const QString quotedKey = QStringLiteral("cli:quote:\"a,b\"");
    auto t = [&](const char *iso) { return timeLiteral(db, QString::fromLatin1(iso)); };
    auto back = [&](const char *iso) {
        const QString s = QString::fromLatin1(iso);
        return shop ? s.left(23) + QStringLiteral("000Z") : s;
    };
    {
        RecordSpec stale, success, failed;
        stale.key = key;
        stale.created = t("2026-01-02T03:04:05.123456Z");
        stale.updated = t("2026-01-02T03:09:05.654321Z");
        stale.expire = t("2099-01-01T00:00:00.000001Z");
        success.key = QStringLiteral("ticket:create:acme:cli-show-2");
        success.status = QStringLiteral("1");
        success.snapshot = snapshot;
        success.updated = success.created = t("2026-01-03T00:00:00.000000Z");
        success.expire = t("2099-01-01T00:00:00.000000Z");
        failed.key = quotedKey;
        failed.bizType = QStringLiteral("refund_issue");
        failed.status = QStringLiteral("2");
        failed.updated = failed.created = t("2026-01-04T00:00:00.000000Z");
        failed.expire = t("2099-01-01T00:00:00.000000Z");
        TRIAGE_OK(insertRecords(db, {stale, success, failed}));
        QVector<TicketSpec> tickets;
        for (const auto &[id, created] : {std::pair{900001, "2026-01-02T03:04:06.000001Z"}, std::pair{900002, "2026-01-02T03:06:00.500000Z"}}) {
            TicketSpec ticket;
            ticket.id = id;
            ticket.key = key;
            ticket.tenant = QStringLiteral("acme");
            ticket.title = QStringLiteral("VPN down");
            ticket.payload = ticketIdPayload(db, id);
            ticket.updated = ticket.created = t(created);
            tickets << ticket;
        }
        TRIAGE_OK(insertTickets(db, tickets));
        QVector<IntentSpec> attempts;
        for (const auto &[n, error, actor, created, updated] :
             {std::tuple{1, "timeout after 30000 ms", "agent-1", "2026-01-02T03:04:05.200000Z", "2026-01-02T03:04:35.200000Z"},
              std::tuple{2, "connection reset", "agent-2", "2026-01-02T03:05:00.000000Z", "2026-01-02T03:05:30.000000Z"}}) {
            IntentSpec a;
            a.key = key;
            a.request = QStringLiteral("{\"n\":%1}").arg(n);
            a.error = QString::fromLatin1(error);
            a.actor = QString::fromLatin1(actor);
            a.created = t(created);
            a.updated = t(updated);
            attempts << a;
        }
        TRIAGE_OK(insertIntents(db, attempts));
    }

    // show KEY --format json: exact values.
    RUN_OK(show, base + QStringList{QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonObject d = QJsonDocument::fromJson(show.out).object();
    QCOMPARE(d.value(QStringLiteral("idem_key")).toString(), key);
    const QJsonObject rec = d.value(QStringLiteral("record")).toObject();
    QCOMPARE(rec.value(QStringLiteral("status")).toString(), QStringLiteral("PROCESSING"));
    QCOMPARE(rec.value(QStringLiteral("status_code")).toInteger(-1), 0);
    // The status as stored: the integer on the default schema, the shop's own spelling there.
    QCOMPARE(rec.value(QStringLiteral("status_stored")), shop ? QJsonValue(QStringLiteral("pending ")) : QJsonValue(0));
    QCOMPARE(rec.value(QStringLiteral("created_at")).toString(), back("2026-01-02T03:04:05.123456Z"));
    QCOMPARE(rec.value(QStringLiteral("updated_at")).toString(), back("2026-01-02T03:09:05.654321Z"));
    // The shop has no expire_at column: null, and no expiry.
    QCOMPARE(rec.value(QStringLiteral("expire_at")), shop ? QJsonValue() : QJsonValue(QStringLiteral("2099-01-01T00:00:00.000001Z")));
    QVERIFY(rec.value(QStringLiteral("version")).isNull());
    QVERIFY(rec.value(QStringLiteral("result_snapshot")).isNull());
    QCOMPARE(rec.value(QStringLiteral("stale")).toBool(), true);
    QCOMPARE(rec.value(QStringLiteral("processing_timeout_s")).toInt(), 300);
    QCOMPARE(rec.value(QStringLiteral("tenant")).toString(), QStringLiteral("acme"));
    QCOMPARE(rec.value(QStringLiteral("biz_type")).toString(), QStringLiteral("ticket_create"));
    QVERIFY(rec.value(QStringLiteral("age_seconds")).toDouble() > 86400);
    if (shop)
        QVERIFY(rec.value(QStringLiteral("expires_in_seconds")).isNull());
    else
        QVERIFY(rec.value(QStringLiteral("expires_in_seconds")).toDouble() > 86400);
    const QJsonArray tickets = d.value(QStringLiteral("tickets")).toArray();
    QCOMPARE(tickets.size(), 2);
    QCOMPARE(tickets.at(0).toObject().value(QStringLiteral("id")), ticketIdJson(db, 900001));
    QCOMPARE(tickets.at(1).toObject().value(QStringLiteral("payload")).toString(), storedPayloadText(db, ticketIdPayload(db, 900002)));
    QCOMPARE(tickets.at(0).toObject().value(QStringLiteral("created_at")).toString(), back("2026-01-02T03:04:06.000001Z"));
    const QJsonArray attempts = d.value(QStringLiteral("attempts")).toArray();
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(1).toObject().value(QStringLiteral("error")).toString(), QStringLiteral("connection reset"));
    QVERIFY(attempts.at(0).toObject().value(QStringLiteral("response")).isNull());
    // record created + updated, 2 × (intent + result), 2 tickets created.
    const QJsonArray timeline = d.value(QStringLiteral("timeline")).toArray();
    QCOMPARE(timeline.size(), 8);
    QCOMPARE(timeline.first().toObject().value(QStringLiteral("time")).toString(), back("2026-01-02T03:04:05.123456Z"));
    QCOMPARE(timeline.first().toObject().value(QStringLiteral("source")).toString(), QStringLiteral("idempotency_record"));
    QCOMPARE(timeline.last().toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("updated"));
    for (int i = 1; i < timeline.size(); ++i)
        QVERIFY(timeline.at(i - 1).toObject().value(QStringLiteral("time")).toString()
                <= timeline.at(i).toObject().value(QStringLiteral("time")).toString());
    QCOMPARE(d.value(QStringLiteral("warnings")).toArray().size(), 2); // duplicate group; ticket exists while PROCESSING
    QVERIFY(d.value(QStringLiteral("errors")).toObject().isEmpty());

    // The snapshot comes back as the exact stored text (no number rewriting).
    RUN_OK(show2, base + QStringList{QStringLiteral("show"), QStringLiteral("ticket:create:acme:cli-show-2"),
                                     QStringLiteral("--format"), QStringLiteral("json")});
    const QJsonObject rec2 = QJsonDocument::fromJson(show2.out).object().value(QStringLiteral("record")).toObject();
    QCOMPARE(rec2.value(QStringLiteral("result_snapshot")).toString(), snapshot);
    QCOMPARE(rec2.value(QStringLiteral("status")).toString(), QStringLiteral("SUCCESS"));
    QCOMPARE(rec2.value(QStringLiteral("stale")).toBool(true), false);
    QCOMPARE(QJsonDocument::fromJson(show2.out).object().value(QStringLiteral("tickets")).toArray().size(), 0);

    // The table form for humans.
    RUN_OK(showTable, base + QStringList{QStringLiteral("show"), key});
    const QString text = QString::fromUtf8(showTable.out);
    // The stored spelling where it is not the code (the shop's "pending ", DESIGN.md §10).
    QVERIFY2(text.contains(shop ? QStringLiteral("PROCESSING (stored \"pending \"): stale, outcome UNKNOWN")
                                : QStringLiteral("PROCESSING (code 0): stale, outcome UNKNOWN")),
             qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Tickets (2)")));
    QVERIFY(text.contains(QStringLiteral("Intent-log attempts (2)")));
    QVERIFY(text.contains(QStringLiteral("Timeline (8 events)")));
    QVERIFY(text.contains(QStringLiteral("result_snapshot: NULL")));

    // A --config file's per-biz_type processing timeout moves the record from Unknown to
    // In flight (its intent step stays Unknown); the URLs come from the file.
    QTemporaryDir configDir;
    QVERIFY(configDir.isValid());
    const QString ini = configDir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(shapeIniText(db) // the shop's map sections first on a shop row
                + QStringLiteral("[idempotency]\nurl=%1\n[intent]\nurl=%1\n[ticket]\nurl=%1\n"
                                 "[biz.ticket_create]\nprocessing_timeout=999999999\n")
                      .arg(db.url())
                      .toUtf8());
    }
    auto keysOf = [](const QByteArray &json) {
        QStringList keys;
        for (const QJsonValue &v : QJsonDocument::fromJson(json).array())
            keys << v.toObject().value(QStringLiteral("source")).toString() + QLatin1Char(':')
                    + v.toObject().value(QStringLiteral("idem_key")).toString();
        return keys;
    };
    RUN_OK(unknownDefault, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"), QStringLiteral("json")});
    // Oldest updated_at first: the latest attempt (03:05:30) before the record (03:09:05).
    QCOMPARE(keysOf(unknownDefault.out), (QStringList{QStringLiteral("intent:") + key, QStringLiteral("record:") + key}));
    RUN_OK(unknownConfigured, QStringList{QStringLiteral("--config"), ini, QStringLiteral("list"), QStringLiteral("unknown"),
                                          QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(keysOf(unknownConfigured.out), QStringList{QStringLiteral("intent:") + key});
    RUN_OK(inflightConfigured, QStringList{QStringLiteral("--config"), ini, QStringLiteral("list"), QStringLiteral("inflight"),
                                           QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(keysOf(inflightConfigured.out), QStringList{QStringLiteral("record:") + key});
    RUN_OK(showConfigured, QStringList{QStringLiteral("--config"), ini, QStringLiteral("show"), key, QStringLiteral("--format"),
                                       QStringLiteral("json")});
    const QJsonObject recConfigured = QJsonDocument::fromJson(showConfigured.out).object().value(QStringLiteral("record")).toObject();
    QCOMPARE(recConfigured.value(QStringLiteral("processing_timeout_s")).toInt(), 999999999);
    QCOMPARE(recConfigured.value(QStringLiteral("stale")).toBool(true), false);

    // A key found nowhere: exit 1 with a message, nothing on stdout.
    const QStringList missingArgs = base + QStringList{QStringLiteral("show"), QStringLiteral("no:such:key")};
    const CtlRun missing = runCtl(missingArgs);
    QVERIFY2(missing.exitCode == 1, missing.describe().constData());
    QVERIFY(missing.err.contains("no record, ticket or intent-log entry has key \"no:such:key\""));
    QVERIFY(missing.out.isEmpty());

    // CSV: exact header, RFC 4180 quoting, CRLF.
    RUN_OK(csv, base + QStringList{QStringLiteral("list"), QStringLiteral("failed"), QStringLiteral("--format"), QStringLiteral("csv")});
    const QList<QByteArray> csvLines = csv.out.split('\n');
    QCOMPARE(csvLines.size(), 3); // header, one row, "" after the last CRLF
    QCOMPARE(csvLines.at(0), QByteArray("idem_key,source,biz_type,action,status,created_at,updated_at,expire_at,age_seconds,id,"
                                        "task_id,step_id\r"));
    QVERIFY2(csvLines.at(1).startsWith(QByteArray("\"cli:quote:\"\"a,b\"\"\",record,refund_issue,,FAILED,2026-01-04T00:00:00.000000Z,"
                                                  "2026-01-04T00:00:00.000000Z,")
                                       + (shop ? "," : "2099-01-01T00:00:00.000000Z,")),
             csvLines.at(1).constData());
    QVERIFY(csvLines.at(1).endsWith(",,\r"));
    QVERIFY(csvLines.at(2).isEmpty());

    // Table footer for a one-row queue.
    RUN_OK(failedTable, base + QStringList{QStringLiteral("list"), QStringLiteral("Failed")});
    QVERIFY2(failedTable.out.endsWith("\n1 row (of 1)\n"), failedTable.out.constData());
    RUN_OK(successJson, base + QStringList{QStringLiteral("list"), QStringLiteral("success"), QStringLiteral("--format"),
                                           QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(successJson.out).array().size(), 1);
    RUN_OK(emptyJson, base + QStringList{QStringLiteral("list"), QStringLiteral("escalated"), QStringLiteral("--format"),
                                         QStringLiteral("json")});
    QCOMPARE(emptyJson.out, QByteArray("[]\n"));
    // Time window filters: updated_at in [2026-01-03, 2026-01-04) selects the SUCCESS record only.
    RUN_OK(window, base + QStringList{QStringLiteral("list"), QStringLiteral("success"), QStringLiteral("--updated-from"),
                                      QStringLiteral("2026-01-03T00:00:00Z"), QStringLiteral("--updated-to"),
                                      QStringLiteral("2026-01-03T00:00:00.000001Z"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(window.out).array().size(), 1);
    RUN_OK(windowEmpty, base + QStringList{QStringLiteral("list"), QStringLiteral("success"), QStringLiteral("--updated-to"),
                                           QStringLiteral("2026-01-03"), QStringLiteral("--format"), QStringLiteral("json")});
    QCOMPARE(QJsonDocument::fromJson(windowEmpty.out).array().size(), 0);
}

void TstCliTriagectl::exitCodes()
{
    TestDatabase pg(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(pg);
    TestDatabase lite(QStringLiteral("sqlite"));
    const QStringList base = dbArgs(pg.url());
    const QStringList sqlite = dbArgs(lite.url());

    {
        const CtlRun help = runCtl({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        for (const char *needle : {"Exit codes:", "TRIAGE_DB_PASSWORD", "TRIAGE_TICKET_DB_PASSWORD", "init-schema", "seed-demo",
                                   "list QUEUE", "show KEY", "Usage: triagectl"})
            QVERIFY2(help.out.contains(needle), needle);
    }
    EXPECT_EXIT(QStringList{}, 1, "no command given");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("frobnicate")}, 1, "unknown command");
    EXPECT_EXIT(QStringList{QStringLiteral("list"), QStringLiteral("unknown")}, 1, "no database configured");
    EXPECT_EXIT((QStringList{QStringLiteral("--idempotency-db"), QStringLiteral("not a url"), QStringLiteral("--intent-db"),
                             lite.url(), QStringLiteral("--ticket-db"), lite.url(), QStringLiteral("list"), QStringLiteral("unknown")}),
                1, "idempotency database URL");
    EXPECT_EXIT(dbArgs(QStringLiteral("postgresql://triage:secret@127.0.0.1:5432/x")) + QStringList{QStringLiteral("list"), QStringLiteral("unknown")},
                1, "password in the URL is not accepted");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list"), QStringLiteral("nosuchqueue")}, 1, "unknown queue \"nosuchqueue\"");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list")}, 1, "missing argument");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--created-from"),
                                     QStringLiteral("yesterday")},
                1, "--created-from: cannot read \"yesterday\" as a UTC time");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"), QStringLiteral("lots")},
                1, "--limit");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"), QStringLiteral("xml")},
                1, "--format");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--rows"), QStringLiteral("5")},
                1, "--rows is an option of seed-demo");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("show"), QStringLiteral("k"), QStringLiteral("--format"), QStringLiteral("csv")},
                1, "show has no csv form");
    EXPECT_EXIT(sqlite + QStringList{QStringLiteral("--read-only"), QStringLiteral("seed-demo")}, 4, "read-only");

    // Unreachable server: exit 2, the store named.
    EXPECT_EXIT(dbArgs(QStringLiteral("postgresql://triage@127.0.0.1:1/triage")) + QStringList{QStringLiteral("list"), QStringLiteral("unknown")},
                2, "cannot connect to the idempotency database");
    EXPECT_EXIT(dbArgs(QStringLiteral("mysql://triage@127.0.0.1:1/triage")) + QStringList{QStringLiteral("show"), QStringLiteral("k")},
                2, "127.0.0.1:1");
    // A database without the tables: exit 2 naming the store.
    EXPECT_EXIT(base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")}, 2, "idempotency database");

    // Wrong passwords: exit 2, the store named, the password never printed.
    const QString wrong = QStringLiteral("Wr0ng-Secret-4711");
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRIAGE_DB_PASSWORD"), wrong);
        const QStringList args = base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")};
        const CtlRun r = runCtl(args, env);
        QVERIFY2(r.exitCode == 2, r.describe().constData());
        QVERIFY2(r.err.contains("cannot connect to the idempotency database"), r.describe().constData());
        QVERIFY2(r.err.contains("password authentication failed"), r.describe().constData());
        QVERIFY(!r.err.contains(wrong.toUtf8()) && !r.out.contains(wrong.toUtf8()));
    }
    {
        // Only the intent-log database's own variable is wrong: the message names that store.
        RUN_OK(schema, base + QStringList{QStringLiteral("init-schema")});
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRIAGE_INTENT_DB_PASSWORD"), wrong);
        const QStringList args = base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")};
        const CtlRun r = runCtl(args, env);
        QVERIFY2(r.exitCode == 2, r.describe().constData());
        QVERIFY2(r.err.contains("cannot connect to the intent-log database"), r.describe().constData());
        QVERIFY(!r.err.contains(wrong.toUtf8()));
    }
    // With the schema in place, the same list succeeds (empty queue).
    RUN_OK(empty, base + QStringList{QStringLiteral("list"), QStringLiteral("unknown")});
    QVERIFY2(empty.out.endsWith("0 rows (of 0)\n"), empty.out.constData());
}

void TstCliTriagectl::markExitCodes_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows(true, true); // and the <backend>/shop rows (ShopShape.h)
}

void TstCliTriagectl::markExitCodes()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // ticket_create's side effect is the ticket row (failed_evidence = ticket_absent);
    // payment_capture keeps the default (a recorded upstream NOT_FOUND).
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QFile f(ini);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(shapeIniText(db) + "[biz.ticket_create]\nfailed_evidence = ticket_absent\n"); // the shop's map sections first
    }
    const QStringList base = QStringList{QStringLiteral("--operator"), QStringLiteral("alice")} + ctlDbArgs(db, ini);
    TRIAGE_OK(createAgentTables(db)); // the shop's tables first on a shop row (ShapeExpect.h)
    RUN_OK(schema, base + QStringList{QStringLiteral("init-schema")});
    // The same logical rows in either shape (BackendTestUtil's insert*()).
    auto record = [&](const QString &key, const QString &biz, int age) {
        RecordSpec r;
        r.key = key;
        r.bizType = biz;
        r.updated = agoValue(db.backend(), age);
        r.expire = futureValue(db.backend());
        return insertRecords(db, {r});
    };
    for (const QString &k : {QStringLiteral("pay:none"), QStringLiteral("pay:fresh"), QStringLiteral("pay:over")})
        QCOMPARE(record(k, QStringLiteral("payment_capture"), 3600), QString());
    QCOMPARE(record(QStringLiteral("ticket:create:acme:gone"), QStringLiteral("ticket_create"), 3600), QString());
    QCOMPARE(record(QStringLiteral("ticket:create:acme:held"), QStringLiteral("ticket_create"), 3600), QString());
    auto ticketRow = [&](qint64 id, const QString &key, const QString &title) {
        TicketSpec t;
        t.id = id;
        t.key = key;
        t.tenant = QStringLiteral("acme");
        t.title = title;
        t.payload = ticketIdPayload(db, id);
        t.created = agoValue(db.backend(), 3000);
        return t;
    };
    QCOMPARE(insertTickets(db, {ticketRow(41, QStringLiteral("ticket:create:acme:held"), QStringLiteral("VPN outage")),
                                ticketRow(99, QStringLiteral("ticket:create:acme:other"), QStringLiteral("Disk full"))}),
             QString());
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, action, idem_key, reason, evidence, "
                                         "outcome) VALUES ('q-fresh', %1, 'alice', 'query_upstream', 'pay:fresh', 'upstream NOT_FOUND', "
                                         "'{\"evidence\":{\"classification\":\"NOT_FOUND\"}}', 'recorded')")
                              .arg(agoValue(db.backend(), 60))),
             QString());
    auto audited = [&]() { return db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")).value(0).toInt(); };
    auto mark = [&](const QStringList &args) { return runCtl(base + QStringList{QStringLiteral("mark")} + args); };
    const QString reason = QStringLiteral("processor confirms nothing was captured");
    int rows = audited();
    QCOMPARE(rows, 1);

    // A reason under 10 characters: refused (4), audited.
    CtlRun r = mark({QStringLiteral("pay:none"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"), QStringLiteral("x")});
    QVERIFY2(r.exitCode == 4 && r.out.contains("every manual mark needs a reason of at least 10 characters (got 1)"), r.describe().constData());
    QCOMPARE(audited(), ++rows);
    // payment_capture, no ticket, no upstream answer (§6 row 8): refused (4), audited.
    r = mark({QStringLiteral("pay:none"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 4 && r.out.contains("no proof of absence"), r.describe().constData());
    QCOMPARE(audited(), ++rows);
    // The same in bulk: only rows whose own verdict is FAILED; the rest refused with why.
    r = mark({QStringLiteral("--queue"), QStringLiteral("unknown"), QStringLiteral("--biz-type"), QStringLiteral("payment_capture"),
              QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"), reason, QStringLiteral("--format"),
              QStringLiteral("json")});
    QVERIFY2(r.exitCode == 4, r.describe().constData());
    {
        QMap<QString, QString> outcome;
        for (const QJsonValue &v : QJsonDocument::fromJson(r.out).array())
            outcome.insert(v.toObject().value(QStringLiteral("idem_key")).toString(), v.toObject().value(QStringLiteral("outcome")).toString());
        QCOMPARE(outcome, (QMap<QString, QString>{{QStringLiteral("pay:fresh"), QStringLiteral("applied")},
                                                  {QStringLiteral("pay:none"), QStringLiteral("refused")},
                                                  {QStringLiteral("pay:over"), QStringLiteral("refused")}}));
    }
    rows += 3;
    QCOMPARE(audited(), rows);
    QVERIFY2(!r.err.contains("--limit"), r.describe().constData()); // under --limit: nothing said
    // A queue longer than --limit: said, and only the first rows are taken (a dry run: nothing written).
    r = mark({QStringLiteral("--queue"), QStringLiteral("unknown"), QStringLiteral("--to"), QStringLiteral("failed"),
              QStringLiteral("--reason"), reason, QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("--dry-run")});
    QVERIFY2(r.err.contains("--limit 1 reached: the queue's first 1 rows are taken; more may be left (--limit 0 marks every row)"),
             r.describe().constData());
    QVERIFY2(r.out.contains("1 record(s):"), r.describe().constData());
    QCOMPARE(audited(), rows);
    // An override sets aside missing evidence (reason >= 20 characters): applied (0).
    r = mark({QStringLiteral("pay:none"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--override"),
              QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 0 && r.out.contains("(override: no proof of absence"), r.describe().constData());
    QCOMPARE(audited(), ++rows);
    // Bulk runs take no override: a usage error (1), nothing written.
    r = mark({QStringLiteral("--queue"), QStringLiteral("unknown"), QStringLiteral("--to"), QStringLiteral("failed"),
              QStringLiteral("--override"), QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 1
                 && r.err.contains("mark --queue: --override sets a rule aside for one key at a time, never in bulk (DESIGN.md §6)"),
             r.describe().constData());
    QCOMPARE(audited(), rows);
    // Never a ticket: refused (4) with --override.
    r = mark({QStringLiteral("ticket:create:acme:held"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--override"),
              QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 4 && r.out.contains("1 ticket row(s) carry the key"), r.describe().constData());
    QCOMPARE(audited(), ++rows);
    // --snapshot-from-ticket naming a ticket of another key: refused (4) and audited.
    r = mark({QStringLiteral("ticket:create:acme:held"), QStringLiteral("--to"), QStringLiteral("success"),
              QStringLiteral("--snapshot-from-ticket"), ticketIdText(db, 99), QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 4 && r.out.contains(QStringLiteral("ticket #%1 does not carry this key").arg(ticketIdText(db, 99)).toUtf8()),
             r.describe().constData());
    QCOMPARE(audited(), ++rows);
    // A dry run that hits a conflict: exit 3, nothing written.
    r = mark({QStringLiteral("ticket:create:acme:gone"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--dry-run"),
              QStringLiteral("--expect-status"), QStringLiteral("processing"), QStringLiteral("--expect-updated-at"),
              QStringLiteral("2020-01-01T00:00:00.000000Z"), QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 3 && r.out.contains("conflict"), r.describe().constData());
    QCOMPARE(audited(), rows);
    // Read-only mode allows a dry run (0, nothing written) and refuses a real mark (4, nothing written).
    const QStringList ro{QStringLiteral("--read-only"), QStringLiteral("mark"), QStringLiteral("ticket:create:acme:gone"),
                         QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"), reason};
    r = runCtl(base + ro + QStringList{QStringLiteral("--dry-run")});
    QVERIFY2(r.exitCode == 0 && r.out.contains("dry-run"), r.describe().constData());
    r = runCtl(base + ro);
    QVERIFY2(r.exitCode == 4 && r.err.contains("read-only"), r.describe().constData());
    QCOMPARE(audited(), rows);
    // failed_evidence = ticket_absent: stale and no ticket, applied (0).
    r = mark({QStringLiteral("ticket:create:acme:gone"), QStringLiteral("--to"), QStringLiteral("failed"), QStringLiteral("--reason"), reason});
    QVERIFY2(r.exitCode == 0 && r.out.contains("failed_evidence = ticket_absent"), r.describe().constData());
    QCOMPARE(audited(), ++rows);
    const QStringList keys{QStringLiteral("pay:fresh"), QStringLiteral("pay:none"), QStringLiteral("pay:over"),
                           QStringLiteral("ticket:create:acme:gone"), QStringLiteral("ticket:create:acme:held")};
    // As stored: FAILED is the code 2, or the shop's first FAILED spelling "ERROR"; PROCESSING untouched.
    const QString failed = db.isShop() ? QStringLiteral("ERROR") : QStringLiteral("2");
    const QString processing = db.isShop() ? QStringLiteral("pending ") : QStringLiteral("0");
    QCOMPARE(storedRecordStatuses(db, keys), (QStringList{failed, failed, processing, failed, processing}));
}

void TstCliTriagectl::demoWorkspace()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.path() + QStringLiteral("/share"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.path() + QStringLiteral("/config"));
    const QStringList args = {QStringLiteral("--demo"), QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--format"),
                              QStringLiteral("json")};
    const CtlRun r = runCtl(args, env);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QJsonArray rows = QJsonDocument::fromJson(r.out).array();
    QVERIFY2(!rows.isEmpty() && rows.size() <= 100, r.describe().constData()); // default --limit 100
    QVERIFY(QFileInfo::exists(home.path() + QStringLiteral("/share/triage-console/demo/demo.sqlite")));

    const QString key = rows.first().toObject().value(QStringLiteral("idem_key")).toString();
    const QStringList showArgs = {QStringLiteral("--demo"), QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")};
    const CtlRun shown = runCtl(showArgs, env);
    QVERIFY2(shown.exitCode == 0, shown.describe().constData());
    const QJsonObject d = QJsonDocument::fromJson(shown.out).object();
    QCOMPARE(d.value(QStringLiteral("idem_key")).toString(), key);
    QVERIFY(!d.value(QStringLiteral("timeline")).toArray().isEmpty());
}

/// The "Global options" lines of `triagectl --help` and of every `triagectl COMMAND --help`.
#define GLOBAL_OPTIONS_HELP \
        "  -h, --help            This help; after a COMMAND, that command's help.\n" \
        "  -v, --version         The version.\n" \
        "  --config FILE         INI configuration file (see resources/triage.example.ini).\n" \
        "  --profile NAME        Saved connection profile NAME (File → Connect…), read as --config of its file.\n" \
        "  --demo                Open the embedded SQLite demo workspace (created on first use).\n" \
        "  --demo-reset          Re-create the demo workspace with fresh data (implies --demo).\n" \
        "  --idempotency-db URL  Idempotency-record database URL.\n" \
        "  --intent-db URL       Intent-log database URL.\n" \
        "  --ticket-db URL       Ticket (business) database URL.\n" \
        "  --replica STORE=URL   A store's read replica, as its replica_url: idempotency=URL, intent=URL or ticket=URL (repeatable).\n" \
        "  --operator NAME       Operator name recorded on audit rows (default: the OS user).\n" \
        "  --read-only           Disable every write action.\n" \
        "  --environment NAME    production, staging or development (overrides [console] environment).\n" \
        "  --verbose             Log debug messages to stderr.\n" \
        "  --format FORMAT       Output format: table (default), json or csv.\n" \
        "  --limit N             At most N rows (default 100; reconcile: all; 0 = no limit).\n" \
        "  --production          Allow writing commands on a production workspace.\n"

void TstCliTriagectl::helpListsCommands()
{
    // `triagectl --help`: the commands with a one-line summary, the global options, the
    // databases, passwords, output formats and exit codes.
    const QStringList args = {QStringLiteral("--help")};
    const CtlRun r = runCtl(args);
    QVERIFY2(r.ok(), r.describe().constData());
    const QByteArray expected =
        "Usage: triagectl [global options] COMMAND [arguments and command options]\n"
        "Triage Console for scripts: read the idempotency records, the agents' intent log\n"
        "and the ticket table, and list what needs a human.\n"
        "\n"
        "Commands:\n"
        "  init-schema         Create the tables and indexes in the three databases (idempotent).\n"
        "  seed-demo           Insert the demo set, or N records at production-like proportions.\n"
        "  list QUEUE          List a work queue (unknown, inflight, failed, success, escalated).\n"
        "  show KEY            Everything about one key: record, tickets, intent-log attempts, timeline.\n"
        "  mark KEY            Settle a record (or every record row of a queue) by compare-and-set.\n"
        "  query KEY           Ask the upstream what happened to a key (or every key of a queue); audited.\n"
        "  duplicates          Ticket groups sharing one idem_key, record/ticket inconsistencies, regenerated keys.\n"
        "  compensate KEY      Undo one side effect of a key through the upstream's API (idempotent, audited).\n"
        "  compensations       The compensations and their history.\n"
        "  audit               The audit trail of operator actions (triage_audit).\n"
        "  doctor              Check the mapping and every index the queues and views need.\n"
        "  map --suggest       Draft the [*.map] sections of the config from the databases' catalogs.\n"
        "  timeline            Every event of a time window across the stores (incident replay).\n"
        "  incident            Incidents: a saved window with its filters, pinned events and notes.\n"
        "  bundle verify FILE  Checks an incident bundle: its hash, and the export recorded in the database.\n"
        "  report [BUNDLE]     An incident bundle's report (HTML or PDF), or the daily review's (HTML, PDF, JSON or CSV).\n"
        "  escalations         Escalations reconciliation handed to humans; resolve one.\n"
        "  claim KEY           Claim a key (or --escalation ID) for a while, so nobody else acts on it.\n"
        "  release KEY         Release your claim on a key (or --escalation ID).\n"
        "  claims              The claims operators hold now (--all: expired ones too).\n"
        "  reconcile           Settle stale PROCESSING records the evidence allows; escalate the rest (for cron).\n"
        "  review              The daily review of escalations; sign a day off; mark one reviewed or add a note.\n"
        "  policy              The safety policy in the database, and the global freeze.\n"
        "  proposals           Four-eyes proposals waiting for a second operator.\n"
        "  approve ID          Approve a four-eyes proposal (another operator than its proposer).\n"
        "  reject ID           Reject a four-eyes proposal: nothing is applied.\n"
        "  notify              PostgreSQL push: the console's NOTIFY triggers on the agents' tables.\n"
        "Run \"triagectl COMMAND --help\" for a command's arguments and options.\n"
        "\n"
        "Global options (before or after the command):\n"
        GLOBAL_OPTIONS_HELP
        "\n"
        "Databases:\n"
        "  --config FILE (INI; see resources/triage.example.ini) and/or --idempotency-db,\n"
        "  --intent-db, --ticket-db URLs (all three required): postgresql://user@host:port/db,\n"
        "  mysql://user@host:port/db, sqlite:///absolute/path.db; query parameters sslmode,\n"
        "  sslrootcert, sslcert, sslkey (PostgreSQL), ssl_ca, ssl_cert, ssl_key, option_file,\n"
        "  option_group (MySQL/MariaDB), statement_timeout (ms or \"30s\"), connect_timeout (s).\n"
        "  --profile NAME reads a saved connection profile (File → Connect…) as --config.\n"
        "  --demo uses the embedded SQLite demo workspace instead.\n"
        "\n"
        "Passwords (never in a URL, never printed):\n"
        "  TRIAGE_IDEMPOTENCY_DB_PASSWORD, TRIAGE_INTENT_DB_PASSWORD, TRIAGE_TICKET_DB_PASSWORD,\n"
        "  each falling back to TRIAGE_DB_PASSWORD; else libpq's ~/.pgpass or a MySQL option file.\n"
        "\n"
        "Output:\n"
        "  json: list prints an array of objects (one per line), show one object. Times are\n"
        "  ISO-8601 UTC with six fractional digits and Z, as the database holds them; SQL NULL\n"
        "  is null; snapshots and payloads are strings exactly as stored.\n"
        "  csv: RFC 4180 (header row, quoted fields where needed, CRLF line ends; NULL is an\n"
        "  empty field). show has no csv form.\n"
        "\n"
        "Exit codes:\n"
        "  0  ok\n"
        "  1  usage or configuration error (bad option, URL, time or queue; a [*.map] mapping that\n"
        "     does not match the database, checked when a store is first used; show: key found nowhere)\n"
        "  2  connection or database error, including missing privileges (the message names the store)\n"
        "  3  conflict: someone else's change wins (a compare-and-set matched no row, or the\n"
        "     compensation already exists)\n"
        "  4  refused by a safety rule, including --read-only for every writing command, a writing\n"
        "     command on a production workspace without --production, and a\n"
        "     database whose console schema is newer than this build's;\n"
        "     doctor: an index the queues need is missing (1: the mapping does not match)\n"
        "  5  upstream unusable or timed out (query), or a compensation left UNKNOWN\n"
        "  6  proposed: four-eyes made the mark a proposal; nothing is applied until another\n"
        "     operator approves it (triagectl approve ID --reason TEXT)\n";
    QCOMPARE(r.out, expected);
    QCOMPARE(r.err, QByteArray());
}

void TstCliTriagectl::markHelpShowsMarkOptionsOnly()
{
    // `triagectl mark --help`: mark's usage, description and options (none of compensate's
    // --action/--target/--resume), then the global options.
    const QStringList args = {QStringLiteral("mark"), QStringLiteral("--help")};
    const CtlRun r = runCtl(args);
    QVERIFY2(r.ok(), r.describe().constData());
    const QByteArray expected =
        "Usage: triagectl [global options] mark KEY --to success|failed --reason TEXT [options]\n"
        "       triagectl [global options] mark --queue QUEUE [filters] --to success|failed --reason TEXT\n"
        "\n"
        "Settle a record by compare-and-set (DESIGN.md §2): PROCESSING→SUCCESS, PROCESSING→FAILED,\n"
        "FAILED→SUCCESS. SUCCESS is final. SUCCESS needs a JSON-object snapshot: --snapshot FILE\n"
        "(- = stdin; kept byte-exact) or --snapshot-from-ticket ID (a ticket carrying KEY). Every\n"
        "mark needs a reason of >= 10 characters. FAILED needs positive evidence of absence\n"
        "(DESIGN.md §6): stale, no ticket, no SUCCEEDED or ESCALATED attempt, and a recorded upstream\n"
        "NOT_FOUND (`query KEY`) obtained after updated_at + processing_timeout and after the latest\n"
        "attempt, younger than failed_evidence_max_age (or failed_evidence = ticket_absent).\n"
        "--override (reason >= 20 characters, audited) sets aside only missing or aged evidence and\n"
        "an ESCALATED attempt, never a ticket, a SUCCEEDED attempt, an upstream FOUND or a record\n"
        "that is not stale. Without --expect-* the current state is read first and used; with\n"
        "--expect-status and --expect-updated-at (as `show --format json` prints them;\n"
        "--expect-version where the table has one) exactly that state must still hold. --dry-run\n"
        "decides and writes nothing (allowed in read-only mode). Every real outcome is audited\n"
        "(triage_audit), refusals included. With --queue instead of KEY: every record row of the\n"
        "queue (filters and --limit as for list; --limit 0 = all), one transaction per record, each\n"
        "decided on its own evidence (no override in bulk); SUCCESS takes the snapshot of the key's\n"
        "canonical ticket when it is its only live one. A SUCCESS snapshot comes only from the\n"
        "canonical ticket (DESIGN.md §6). A key another operator's live claim holds (on the key or\n"
        "on one of its open escalations; DESIGN.md §8) is not marked (exit 3, naming the holder)\n"
        "unless --despite-claim, which notes the claim in the audited reason. Exit: 0 applied,\n"
        "3 conflict or held by another's claim, 4 refused, 2 error, 6 proposed (four-eyes: another\n"
        "operator approves it with triagectl approve ID).\n"
        "\n"
        "Options:\n"
        "  --to STATUS                The new status, success or failed.\n"
        "  --reason TEXT              Why (required, >= 10 characters; audited).\n"
        "  --snapshot FILE            Result snapshot file for SUCCESS (- = stdin).\n"
        "  --snapshot-from-ticket ID  Take the snapshot from this ticket's payload.\n"
        "  --expect-status S          The status the record must still have: a name, or the value as stored.\n"
        "  --expect-updated-at T      The updated_at it must still have (as show prints it).\n"
        "  --expect-version V         The version it must still have.\n"
        "  --override                 Set aside missing FAILED evidence or an open escalation (reason >= 20 characters; audited).\n"
        "  --dry-run                  Show what would be applied; write nothing.\n"
        "  --queue QUEUE              Every record row of this queue instead of one KEY.\n"
        "  --despite-claim            Act although another operator's live claim holds the key or escalation (audited in the reason).\n"
        "  --biz-type T               Only this biz_type (leaves intent-log rows out).\n"
        "  --tenant T                 Only keys of this tenant (per biz_type tenant pattern).\n"
        "  --key SUBSTR               Only keys containing this text (case-sensitive).\n"
        "  --created-from TIME        created_at >= TIME (ISO-8601; no zone = UTC).\n"
        "  --created-to TIME          created_at < TIME.\n"
        "  --updated-from TIME        updated_at >= TIME.\n"
        "  --updated-to TIME          updated_at < TIME.\n"
        "  --newest-first             Newest updated_at first.\n"
        "\n"
        "Global options:\n"
        GLOBAL_OPTIONS_HELP
        "\n"
        "Databases, passwords, output formats and exit codes: triagectl --help\n";
    QCOMPARE(r.out, expected);
    QVERIFY(!r.out.contains("--action"));
    QVERIFY(!r.out.contains("--resume"));
    QCOMPARE(r.err, QByteArray());
}

QTEST_GUILESS_MAIN(TstCliTriagectl)
#include "tst_cli_triagectl.moc"
