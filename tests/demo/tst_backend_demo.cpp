// The embedded demo workspace (DESIGN.md §5 --demo): where it lives, when it is created,
// re-used and re-created, and that its data covers every case the console must show.

#include "BackendTestUtil.h"
#include "ShapeExpect.h"
#include "JsonText.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "DemoWorkspace.h"
#include "Queue.h"
#include "KeyDetail.h"
#include "SqliteFile.h"

#include <QDateTime>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

const char *kMarker = "INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, expire_at) "
                      "VALUES ('test:marker', 'x', 1, '2030-01-01T00:00:00.000000Z', '2030-01-01T00:00:00.000000Z', "
                      "'2030-01-01T00:00:00.000000Z')";

bool hasMarker(const QString &path)
{
    return sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key = 'test:marker'")) == 1;
}

} // namespace

class TstBackendDemo : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void lifecycle();
    void coversEveryCase();
    void seedEveryBackend_data();
    void seedEveryBackend();
    void seedShapes_data();
    void seedShapes();
    void seedEnumStatus_data();
    void seedEnumStatus();
    void seedOneBizType_data();
    void seedOneBizType();
    void seedKeysFollowTheSeed();

private:
    QTemporaryDir m_data;
    /// Time-independent queue counts of the first backend seeded, to compare the others with.
    QMap<QString, qint64> m_firstCounts;
};

void TstBackendDemo::initTestCase()
{
    QVERIFY(m_data.isValid());
    // The demo lives under $XDG_DATA_HOME: point it at a directory of our own.
    qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
}

void TstBackendDemo::lifecycle()
{
    const QString path = DemoWorkspace::path();
    QCOMPARE(path, m_data.path() + QStringLiteral("/triage-console/demo/demo.sqlite"));
    QVERIFY(!QFile::exists(path));
    const WorkspaceConfig config = DemoWorkspace::config();
    QVERIFY(config.isDemo);
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QCOMPARE(config.profile(role).dialect, Dialect::Sqlite);
        QCOMPARE(config.profile(role).database, path);
    }
    QCOMPARE(config.bizTypes.keys(), demoBizTypes().keys());

    // Created on first use.
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    QVERIFY(QFile::exists(path));
    QVERIFY(QFile::exists(path + QStringLiteral(".created")));
    const qint64 records = sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM idempotency_record"));
    QVERIFY2(records >= 200, qPrintable(QString::number(records)));
    QString error;
    sqliteColumn(path, QString::fromLatin1(kMarker), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(hasMarker(path));

    // Fresh: re-used as it is.
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    QVERIFY2(hasMarker(path), "a fresh demo was re-created");

    // reset = true: re-created.
    QCOMPARE(DemoWorkspace::ensure(true), QString());
    QVERIFY2(!hasMarker(path), "reset did not re-create the demo");
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM idempotency_record")), records); // same generator, same data

    // More than a day old: re-created.
    sqliteColumn(path, QString::fromLatin1(kMarker));
    QVERIFY(hasMarker(path));
    {
        QFile stamp(path + QStringLiteral(".created"));
        QVERIFY(stamp.open(QIODevice::WriteOnly | QIODevice::Truncate));
        stamp.write(QDateTime::currentDateTimeUtc().addDays(-2).toString(Qt::ISODate).toUtf8());
    }
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    QVERIFY2(!hasMarker(path), "a stale demo was re-used");

    // The database file gone but the stamp still there: re-created.
    QVERIFY(QFile::remove(path));
    QFile::remove(path + QStringLiteral("-wal"));
    QFile::remove(path + QStringLiteral("-shm"));
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    QCOMPARE(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM idempotency_record")), records);

    // An unreadable stamp is not "fresh".
    sqliteColumn(path, QString::fromLatin1(kMarker));
    {
        QFile stamp(path + QStringLiteral(".created"));
        QVERIFY(stamp.open(QIODevice::WriteOnly | QIODevice::Truncate));
        stamp.write("garbage");
    }
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    QVERIFY(!hasMarker(path));
}

void TstBackendDemo::coversEveryCase()
{
    QCOMPARE(DemoWorkspace::ensure(false), QString());
    const QString path = DemoWorkspace::path();
    Workspace ws(DemoWorkspace::config());
    const QMap<QString, BizTypeConfig> biz = demoBizTypes();

    // Stale and fresh PROCESSING, by each biz_type's own timeout.
    QueueRequest unknown;
    unknown.kind = QueueKind::Unknown;
    const PagedQueue u = fetchWholeQueue(ws, unknown, 100);
    QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
    int staleRecords = 0, intentRows = 0, unknownStatusRecords = 0;
    for (const QueueRow &r : u.rows) {
        if (r.source == QueueSource::Record && r.status.startsWith(QLatin1String("UNKNOWN_CODE_"))) {
            // The demo's record with a code the console does not know: listed, as stored (DESIGN.md §2).
            ++unknownStatusRecords;
            QCOMPARE(r.status, QStringLiteral("UNKNOWN_CODE_7"));
        } else if (r.source == QueueSource::Record) {
            ++staleRecords;
            QCOMPARE(r.status, QStringLiteral("PROCESSING"));
            QVERIFY2(r.ageSeconds > biz.value(r.bizType).processingTimeoutS, qPrintable(r.idemKey));
        } else {
            ++intentRows;
            QVERIFY2(r.status == QLatin1String("UNKNOWN") || r.status == QLatin1String("RECONCILE_PENDING"), qPrintable(r.status));
        }
    }
    QVERIFY2(staleRecords >= 50, qPrintable(QString::number(staleRecords)));
    QVERIFY2(intentRows >= 50, qPrintable(QString::number(intentRows)));
    QCOMPARE(unknownStatusRecords, 1);
    QCOMPARE(countOf(ws, unknown), qint64(u.rows.size()));

    // FAILED is legitimately allowed for some stale keys: ticket_create (failed_evidence =
    // ticket_absent, stale and no ticket), and the others whose only proof is the NOT_FOUND the
    // creation's reconcile pass recorded (an operator may mark with one; the reconciler itself
    // waits for a second, DESIGN.md §8 "The two-answer rule").
    int ticketAbsent = 0, notFoundRecorded = 0;
    for (const QueueRow &r : u.rows) {
        if (r.source != QueueSource::Record)
            continue;
        const KeyDetail d = loadKeyDetail(ws, r.idemKey).result();
        // The demo ships an upstream (its simulator) for every biz_type, started on demand.
        QVERIFY2(d.record && d.record->upstreamConfigured, qPrintable(r.idemKey));
        const MarkDecision m = decideMark(markFactsFrom(d.record, markEvidenceOf(d)), Failed,
                                          QStringLiteral("demo check of the FAILED rule"), false, true, QString());
        if (!m.allowed)
            continue;
        if (r.bizType == QLatin1String("ticket_create")) {
            ++ticketAbsent;
            QCOMPARE(m.reason, QStringLiteral("PROCESSING → FAILED allowed: failed_evidence = ticket_absent: stale and no ticket "
                                              "carries the key"));
        } else {
            ++notFoundRecorded;
            QVERIFY2(m.reason.startsWith(QStringLiteral("PROCESSING → FAILED allowed: upstream NOT_FOUND recorded ")), qPrintable(m.reason));
            const bool recorded = std::any_of(d.audit.cbegin(), d.audit.cend(), [](const AuditEntry &a) {
                return a.action == QLatin1String("query_upstream") && a.operatorName == QLatin1String("reconciler");
            });
            QVERIFY2(recorded, qPrintable(r.idemKey));
        }
    }
    QVERIFY2(ticketAbsent >= 1, qPrintable(QString::number(ticketAbsent)));
    QVERIFY2(notFoundRecorded >= 1, qPrintable(QString::number(notFoundRecorded)));

    QueueRequest inflight;
    inflight.kind = QueueKind::InFlight;
    const PagedQueue f = fetchWholeQueue(ws, inflight, 100);
    QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
    QVERIFY2(f.rows.size() >= 5, qPrintable(QString::number(f.rows.size())));
    for (const QueueRow &r : f.rows)
        QVERIFY2(r.ageSeconds < biz.value(r.bizType).processingTimeoutS, qPrintable(r.idemKey));

    for (QueueKind k : {QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated}) {
        QueueRequest req;
        req.kind = k;
        QVERIFY2(countOf(ws, req) > 0, qPrintable(queueName(k)));
    }

    // Duplicate tickets (no backstop in the demo), and a ticket whose record is PROCESSING.
    QVERIFY(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM (SELECT idem_key FROM ticket WHERE idem_key IS NOT NULL "
                                             "GROUP BY idem_key HAVING COUNT(*) > 1)"))
            > 0);
    const QStringList processingWithTicket = sqliteColumn(
        path, QStringLiteral("SELECT DISTINCT r.idem_key FROM ticket t JOIN idempotency_record r ON r.idem_key = t.idem_key "
                             "WHERE r.status = 0"));
    QVERIFY(!processingWithTicket.isEmpty());
    const KeyDetail withTicket = loadKeyDetail(ws, processingWithTicket.first()).result();
    QVERIFY(withTicket.warnings.contains(QStringLiteral("a ticket exists but the record is still PROCESSING: the side effect happened")));

    // Every intent status, and several attempts for one step.
    const QStringList statuses = sqliteColumn(path, QStringLiteral("SELECT DISTINCT status FROM intent_log"));
    for (const QString &s : intentStatuses())
        QVERIFY2(statuses.contains(s), qPrintable(s));
    const QStringList manyAttempts = sqliteColumn(
        path, QStringLiteral("SELECT idem_key FROM intent_log GROUP BY task_id, step_id, idem_key HAVING COUNT(*) >= 3"));
    QVERIFY(!manyAttempts.isEmpty());
    const KeyDetail many = loadKeyDetail(ws, manyAttempts.first()).result();
    QVERIFY(many.attempts.size() >= 3);
    bool thirdAttempt = false;
    for (const TimelineEvent &e : many.timeline)
        thirdAttempt = thirdAttempt || e.summary.contains(QStringLiteral("attempt 3"));
    QVERIFY(thirdAttempt);

    // The unknown status code 7 prints as such.
    const QStringList code7 = sqliteColumn(path, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 7"));
    QCOMPARE(code7.size(), 1);
    const KeyDetail d7 = loadKeyDetail(ws, code7.first()).result();
    QVERIFY(d7.record.has_value());
    QCOMPARE(d7.record->statusText, QStringLiteral("UNKNOWN_CODE_7"));
    QCOMPARE(d7.record->statusCode, std::optional<qint64>(7));

    // A malformed snapshot on a SUCCESS record.
    const QStringList successKeys = sqliteColumn(path, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 1 "
                                                                      "AND result_snapshot IS NOT NULL"));
    QVERIFY(successKeys.size() >= 50);
    QStringList malformed;
    for (const QString &k : successKeys) {
        const QStringList snap = sqliteColumn(path, QStringLiteral("SELECT result_snapshot FROM idempotency_record WHERE "
                                                                   "idem_key = '%1'")
                                                        .arg(QString(k).replace(QLatin1Char('\''), QStringLiteral("''"))));
        if (!parseJsonText(snap.value(0)).ok)
            malformed << k;
    }
    QCOMPARE(malformed.size(), 1);
    const KeyDetail bad = loadKeyDetail(ws, malformed.first()).result();
    QVERIFY(bad.record.has_value());
    const ParsedJson pj = parseJsonText(bad.record->resultSnapshot);
    QVERIFY(!pj.ok);
    QVERIFY(pj.errorOffset >= 0);

    // NULL columns, non-ASCII text, records about to be reaped.
    QVERIFY(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM intent_log WHERE actor IS NULL AND response IS NULL")) > 0);
    QVERIFY(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key LIKE '%:zürich:%'")) > 0);
    QVERIFY(sqliteCount(path, QStringLiteral("SELECT COUNT(*) FROM ticket WHERE title LIKE '%東京%'")) > 0);
    const QStringList expiring = sqliteColumn(
        path, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 0 AND expire_at < "
                             "strftime('%Y-%m-%dT%H:%M:%f', 'now', '+1 day') || '000Z'"));
    QVERIFY(!expiring.isEmpty());
    const KeyDetail soon = loadKeyDetail(ws, expiring.first()).result();
    QVERIFY(!soon.warnings.isEmpty());

    // Every time in the demo is canonical text.
    for (const char *sql : {"SELECT created_at FROM idempotency_record", "SELECT updated_at FROM idempotency_record",
                            "SELECT expire_at FROM idempotency_record", "SELECT created_at FROM intent_log",
                            "SELECT updated_at FROM ticket"}) {
        for (const QString &t : sqliteColumn(path, QString::fromLatin1(sql)))
            QVERIFY2(isCanonicalTime(t), qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(sql), t)));
    }
}

void TstBackendDemo::seedEveryBackend_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("backstop");
    for (const QString &b : backendNames()) {
        QTest::newRow(qPrintable(b + QStringLiteral(", no backstop"))) << b << false;
        QTest::newRow(qPrintable(b + QStringLiteral(", backstop"))) << b << true;
    }
}

void TstBackendDemo::seedEveryBackend()
{
    // seed-demo into a real server: every row of the plan lands; with the backstop the
    // extra tickets of a key are refused, not an error.
    QFETCH(QString, backend);
    QFETCH(bool, backstop);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes = demoBizTypes();
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws, backstop));
    const SeedPlan plan = makeSeedPlan(SeedOptions{});
    QSet<QString> ticketKeys;
    for (const SeedTicket &t : plan.tickets)
        ticketKeys.insert(t.idemKey);
    QVERIFY(ticketKeys.size() < plan.tickets.size()); // the plan has duplicate-key groups
    const Outcome<SeedReport> report = seedWorkspace(ws, SeedOptions{}).result();
    TRIAGE_VERIFY_OUTCOME(report);
    QCOMPARE(report->records, qint64(plan.records.size()));
    QCOMPARE(report->intents, qint64(plan.intents.size()));
    QCOMPARE(report->tickets, qint64(backstop ? ticketKeys.size() : plan.tickets.size()));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM ticket")),
             QStringList{QString::number(report->tickets)});

    // The same plan gives the same queues on every backend (counts that do not depend on
    // the moment of reading: PROCESSING rows split between Unknown and In flight by age).
    QMap<QString, qint64> counts;
    QueueRequest req;
    for (QueueKind k : {QueueKind::Failed, QueueKind::Succeeded, QueueKind::Escalated}) {
        req.kind = k;
        counts[queueName(k)] = countOf(ws, req);
    }
    qint64 processing = 0;
    for (const QString &biz : demoBizTypes().keys()) {
        for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight}) {
            req = {};
            req.kind = k;
            req.filter.bizType = biz;
            processing += countOf(ws, req);
        }
    }
    counts[QStringLiteral("processing")] = processing;
    req = {};
    req.kind = QueueKind::Unknown;
    req.filter.tenant = QStringLiteral("zürich");
    // Keys with a tenant are never near a timeout in the demo set (fresh: < 4 min, timeouts >= 5 min).
    counts[QStringLiteral("unknown zürich")] = countOf(ws, req);
    const QString code7 = db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 7")).value(0);
    QVERIFY(!code7.isEmpty());
    QCOMPARE(loadKeyDetail(ws, code7).result().record->statusText, QStringLiteral("UNKNOWN_CODE_7"));
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        QVERIFY2(it.value() > 0, qPrintable(it.key()));
    if (m_firstCounts.isEmpty())
        m_firstCounts = counts;
    else
        QCOMPARE(counts, m_firstCounts);
}

namespace {

/// The plan seed-demo generates for `seed` on `db` (ticket ids from 1; text ids on the shop's UUID column).
SeedPlan planFor(const TestDatabase &db, quint32 seed)
{
    SeedOptions o;
    o.seed = seed;
    o.textTicketIds = db.isShop();
    return makeSeedPlan(o);
}

/// The number of intent-log rows / tickets of `plan` carrying `key`.
qint64 intentsOf(const SeedPlan &plan, const QString &key)
{
    return std::count_if(plan.intents.cbegin(), plan.intents.cend(), [&](const SeedIntent &a) { return a.idemKey == key; });
}
qint64 ticketsOf(const SeedPlan &plan, const QString &key)
{
    return std::count_if(plan.tickets.cbegin(), plan.tickets.cend(), [&](const SeedTicket &t) { return t.idemKey == key; });
}

/// The key of the demo's record with an unknown status code.
QString unknownCodeKey(const SeedPlan &plan)
{
    for (const SeedRecord &r : plan.records)
        if (r.status == 7)
            return r.idemKey;
    return {};
}

QString recordTable(const TestDatabase &db) { return db.isShop() ? QStringLiteral("idem_requests") : QStringLiteral("idempotency_record"); }
QString intentTable(const TestDatabase &db) { return db.isShop() ? QStringLiteral("agent_steps") : QStringLiteral("intent_log"); }
QString ticketTable(const TestDatabase &db) { return db.isShop() ? QStringLiteral("orders") : QStringLiteral("ticket"); }

} // namespace

void TstBackendDemo::seedShapes_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(false, true);
}

void TstBackendDemo::seedShapes()
{
    // seed-demo through the mapping (DESIGN.md §10): the record with an unknown status code
    // is stored as a value the status column holds and no status is mapped to — the code 7 on
    // the default integer column, "UNMAPPED" on the shop's free-text column — and reads back
    // as UNKNOWN_CODE_<value>. A second seed into the same database collides with nothing.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes = demoBizTypes();
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws, false));
    const SeedPlan plan = planFor(db, SeedOptions().seed);
    const QString code7 = unknownCodeKey(plan);
    QVERIFY(!code7.isEmpty());

    const Outcome<SeedReport> report = seedWorkspace(ws, SeedOptions{}).result();
    TRIAGE_VERIFY_OUTCOME(report);
    QCOMPARE(report->records, qint64(plan.records.size()));
    QCOMPARE(report->tickets, qint64(plan.tickets.size()));
    QCOMPARE(report->intents, qint64(plan.intents.size()));
    QCOMPARE(report->bizTypeValue, QString());
    QCOMPARE(report->otherBizTypeRecords, qint64(0));
    QCOMPARE(report->unknownStatusRows, qint64(1));
    const QString stored = db.isShop() ? QStringLiteral("UNMAPPED") : QStringLiteral("7");
    QCOMPARE(report->unknownStatusStored, std::optional<QString>(stored));
    QCOMPARE(report->unknownStatusNote,
             db.isShop() ? QStringLiteral("the record with an unknown status holds \"UNMAPPED\" (no status is mapped to it)") : QString());
    QCOMPARE(storedRecordStatuses(db, {code7}), QStringList{stored});
    QCOMPARE(loadKeyDetail(ws, code7).result().record->statusText, QStringLiteral("UNKNOWN_CODE_") + stored);

    // --seed 2 into the same database: other keys (task-style keys too), other ticket ids.
    SeedOptions two;
    two.seed = 2;
    const SeedPlan plan2 = planFor(db, 2);
    const Outcome<SeedReport> again = seedWorkspace(ws, two).result();
    TRIAGE_VERIFY_OUTCOME(again);
    QCOMPARE(again->records, qint64(plan2.records.size()));
    QCOMPARE(again->tickets, qint64(plan2.tickets.size()));
    QCOMPARE(again->intents, qint64(plan2.intents.size()));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM %1").arg(recordTable(db))),
             QStringList{QString::number(plan.records.size() + plan2.records.size())});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM %1").arg(ticketTable(db))),
             QStringList{QString::number(plan.tickets.size() + plan2.tickets.size())});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM %1").arg(intentTable(db))),
             QStringList{QString::number(plan.intents.size() + plan2.intents.size())});
    const QString taskKeys = db.isShop() ? QStringLiteral("SELECT COUNT(*) FROM idem_requests WHERE request_key LIKE 'task\\_2\\_%'")
                                         : QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE idem_key LIKE 'task\\_2\\_%'");
    const qint64 taskKeys2 = std::count_if(plan2.records.cbegin(), plan2.records.cend(),
                                           [](const SeedRecord &r) { return r.idemKey.startsWith(QLatin1String("task_2_")); });
    QVERIFY(taskKeys2 > 0);
    QCOMPARE(db.adminQueryColumn(db.dialect() == QLatin1String("sqlite") ? taskKeys + QStringLiteral(" ESCAPE '\\'") : taskKeys),
             QStringList{QString::number(taskKeys2)});
}

void TstBackendDemo::seedEnumStatus_data()
{
    // Enums exist on PostgreSQL (a type) and MySQL/MariaDB (ENUM); SQLite has none.
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql/shop") << QStringLiteral("postgresql/shop");
    QTest::newRow("mysql/shop") << QStringLiteral("mysql/shop");
}

void TstBackendDemo::seedEnumStatus()
{
    // The shop's record status as an enum: an enum of mapped labels only cannot hold an unknown
    // status, so that record (with its tickets and intent-log rows) is left out and seed-demo
    // says so; with a label no status is mapped to, the record holds that label.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes = demoBizTypes();
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws, false));
    const bool pg = db.dialect() == QLatin1String("postgresql");
    if (pg) {
        TRIAGE_OK(db.adminExec(QStringLiteral("CREATE TYPE shop_state AS ENUM ('PENDING', 'DONE', 'ERROR')")));
        TRIAGE_OK(db.adminExec(QStringLiteral("ALTER TABLE idem_requests ALTER COLUMN state TYPE shop_state USING state::shop_state")));
    } else {
        TRIAGE_OK(db.adminExec(QStringLiteral("ALTER TABLE idem_requests MODIFY state ENUM('PENDING', 'DONE', 'ERROR')")));
    }
    const SeedPlan plan = planFor(db, SeedOptions().seed);
    const QString code7 = unknownCodeKey(plan);
    const Outcome<SeedReport> report = seedWorkspace(ws, SeedOptions{}).result();
    TRIAGE_VERIFY_OUTCOME(report);
    QCOMPARE(report->unknownStatusRows, qint64(1));
    QCOMPARE(report->unknownStatusStored, std::optional<QString>());
    QCOMPARE(report->unknownStatusNote, QStringLiteral("the record with an unknown status is left out: every label of the enum "
                                                       "column state (PENDING, DONE, ERROR) is a mapped status"));
    QCOMPARE(report->records, qint64(plan.records.size() - 1));
    QCOMPARE(report->tickets, qint64(plan.tickets.size() - ticketsOf(plan, code7)));
    QCOMPARE(report->intents, qint64(plan.intents.size() - intentsOf(plan, code7)));
    QCOMPARE(intentsOf(plan, code7), qint64(1));
    QCOMPARE(storedRecordStatuses(db, {code7}), QStringList{QStringLiteral("(no record)")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM agent_steps WHERE request_key = '%1'").arg(code7)),
             QStringList{QStringLiteral("0")});

    // An unmapped label: the unknown record holds it, read back as UNKNOWN_CODE_ARCHIVED.
    TRIAGE_OK(db.adminExec(pg ? QStringLiteral("ALTER TYPE shop_state ADD VALUE 'ARCHIVED'")
                              : QStringLiteral("ALTER TABLE idem_requests MODIFY state ENUM('PENDING', 'DONE', 'ERROR', 'ARCHIVED')")));
    SeedOptions two;
    two.seed = 2;
    const SeedPlan plan2 = planFor(db, 2);
    const QString code7b = unknownCodeKey(plan2);
    const Outcome<SeedReport> again = seedWorkspace(ws, two).result();
    TRIAGE_VERIFY_OUTCOME(again);
    QCOMPARE(again->unknownStatusStored, std::optional<QString>(QStringLiteral("ARCHIVED")));
    QCOMPARE(again->unknownStatusNote,
             QStringLiteral("the record with an unknown status holds \"ARCHIVED\", a label of the enum column state no status is mapped to"));
    QCOMPARE(again->records, qint64(plan2.records.size()));
    QCOMPARE(storedRecordStatuses(db, {code7b}), QStringList{QStringLiteral("ARCHIVED")});
    QCOMPARE(loadKeyDetail(ws, code7b).result().record->statusText, QStringLiteral("UNKNOWN_CODE_ARCHIVED"));
}

void TstBackendDemo::seedOneBizType_data()
{
    QTest::addColumn<QString>("backend");
    for (const QString &b : backendNames())
        QTest::newRow(qPrintable(b + QStringLiteral("/shop"))) << b + QStringLiteral("/shop");
}

void TstBackendDemo::seedOneBizType()
{
    // A record table without a biz_type column holds one biz_type (biz_type_value): seed-demo
    // writes only the generated records of that biz_type, with their tickets and intent-log
    // rows, and says how many it left out.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes = demoBizTypes();
    config.schema.records.bizType.clear();
    config.schema.records.bizTypeValue = QStringLiteral("payment_capture");
    Workspace ws(config);
    TRIAGE_OK(createAgentTables(db));
    TRIAGE_OK(db.adminExec(QStringLiteral("ALTER TABLE idem_requests DROP COLUMN kind")));
    TRIAGE_OK(setUpSchema(ws, false));
    SeedPlan plan = planFor(db, SeedOptions().seed);
    const qint64 all = plan.records.size();
    qint64 payments = 0;
    QSet<QString> keys;
    for (const SeedRecord &r : plan.records)
        if (r.bizType == QLatin1String("payment_capture"))
            ++payments, keys.insert(r.idemKey);
    const qint64 tickets = std::count_if(plan.tickets.cbegin(), plan.tickets.cend(), [&](const SeedTicket &t) { return keys.contains(t.idemKey); });
    const qint64 intents = std::count_if(plan.intents.cbegin(), plan.intents.cend(), [&](const SeedIntent &a) { return keys.contains(a.idemKey); });
    // The demo set's exact split (seed 20261129).
    QCOMPARE(all, qint64(299));
    QCOMPARE(payments, qint64(60));

    const Outcome<SeedReport> report = seedWorkspace(ws, SeedOptions{}).result();
    TRIAGE_VERIFY_OUTCOME(report);
    QCOMPARE(report->bizTypeValue, QStringLiteral("payment_capture"));
    QCOMPARE(report->otherBizTypeRecords, all - payments);
    QCOMPARE(report->records, payments);
    QCOMPARE(report->tickets, tickets);
    QCOMPARE(report->intents, intents);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idem_requests WHERE request_key LIKE 'pay:capture:%'")),
             QStringList{QString::number(payments)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idem_requests")), QStringList{QString::number(payments)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM orders WHERE request_key LIKE 'pay:capture:%'")),
             QStringList{QString::number(tickets)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM agent_steps WHERE request_key LIKE 'pay:capture:%'")),
             QStringList{QString::number(intents)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM agent_steps")), QStringList{QString::number(intents)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM orders")), QStringList{QString::number(tickets)});
}

void TstBackendDemo::seedKeysFollowTheSeed()
{
    // Every key of the demo set (task-style keys included) depends on the seed: two seeds
    // share none, so both fit in one database (UNIQUE idem_key).
    SeedOptions one, two;
    two.seed = one.seed + 1;
    QSet<QString> a;
    for (const SeedRecord &r : makeSeedPlan(one).records)
        a.insert(r.idemKey);
    qint64 shared = 0, taskStyle = 0;
    for (const SeedRecord &r : makeSeedPlan(two).records) {
        shared += a.contains(r.idemKey);
        taskStyle += r.idemKey.startsWith(QStringLiteral("task_%1_").arg(two.seed));
    }
    QCOMPARE(shared, 0);
    QVERIFY(taskStyle > 0);
    // Same seed, same keys.
    QCOMPARE(makeSeedPlan(one).records.first().idemKey, makeSeedPlan(one).records.first().idemKey);
}

QTEST_GUILESS_MAIN(TstBackendDemo)
#include "tst_backend_demo.moc"
