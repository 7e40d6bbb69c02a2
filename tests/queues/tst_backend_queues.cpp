// Schema creation and the work queues on every backend: membership at the processing
// timeout boundary (server-computed ages), per-biz_type timeouts, intent-derived rows,
// filters (biz_type, tenant patterns, key substring, time windows), keyset pagination with
// ties and concurrent inserts, and counts; the same on a mapped shape (DESIGN.md §10).

#include "BackendTestUtil.h"
#include "OddShape.h"
#include "BizTypeCheck.h"
#include "Schema.h"
#include "Queue.h"
#include "KeyDetail.h"
#include "Mark.h"
#include "MarkRules.h"

#include <QSet>
#include <QTest>

#include <algorithm>

using namespace triage;
using namespace triage::test;

namespace {

QStringList sorted(QStringList l)
{
    l.sort();
    return l;
}

QueueRequest request(QueueKind kind, const QueueFilter &filter = {}, bool newestFirst = false)
{
    QueueRequest r;
    r.kind = kind;
    r.filter = filter;
    r.newestFirst = newestFirst;
    return r;
}

/// Every row of `req` (page size 50), as sorted tags, or a failure text in `*error`.
QStringList queueTags(Workspace &ws, const QueueRequest &req, QString *error)
{
    const PagedQueue all = fetchWholeQueue(ws, req, 50);
    if (!all.error.isEmpty()) {
        *error = all.error;
        return {};
    }
    return sorted(rowTags(all.rows));
}

QStringList tablesOf(const TestDatabase &db, QString *error)
{
    if (db.dialect() == QLatin1String("postgresql"))
        return db.adminQueryColumn(QStringLiteral("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                                  "'public' ORDER BY 1"),
                                   error);
    if (db.dialect() == QLatin1String("mysql"))
        return db.adminQueryColumn(QStringLiteral("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                                  "DATABASE() ORDER BY 1"),
                                   error);
    return db.adminQueryColumn(
        QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1"), error);
}

QStringList indexesOf(const TestDatabase &db, const QString &table, QString *error)
{
    if (db.dialect() == QLatin1String("postgresql"))
        return db.adminQueryColumn(
            QStringLiteral("SELECT indexname FROM pg_indexes WHERE tablename = '%1' ORDER BY 1").arg(table), error);
    if (db.dialect() == QLatin1String("mysql"))
        return db.adminQueryColumn(QStringLiteral("SELECT DISTINCT index_name FROM information_schema.statistics WHERE "
                                                  "table_schema = DATABASE() AND table_name = '%1' ORDER BY 1")
                                       .arg(table),
                                   error);
    return db.adminQueryColumn(
        QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '%1' ORDER BY 1").arg(table), error);
}

/// Fixed, distinct UTC times for pagination data: second `i` after 2020-01-01T00:00:00Z,
/// with a microsecond part so precision matters.
QString fixedTime(int i, int micros = 0)
{
    return formatUtcMicros(*parseUtcMicros(QStringLiteral("2020-01-01T00:00:00Z")) + qint64(i) * 1000000 + micros);
}

struct ExpectedRow {
    QueueSource source;
    qint64 id;
    UtcMicros time;
    QString tag() const { return sourceName(source) + QLatin1Char('#') + QString::number(id); }
};

/// Queue order: updated_at, then records before intents, then id (DESIGN.md: oldest first by
/// default); newest first reverses time and id but keeps records before intents on ties.
QStringList expectedOrder(QVector<ExpectedRow> rows, bool newestFirst)
{
    std::sort(rows.begin(), rows.end(), [&](const ExpectedRow &a, const ExpectedRow &b) {
        if (a.time != b.time)
            return newestFirst ? a.time > b.time : a.time < b.time;
        if (a.source != b.source)
            return a.source == QueueSource::Record;
        return newestFirst ? a.id > b.id : a.id < b.id;
    });
    QStringList out;
    for (const ExpectedRow &r : rows)
        out << r.tag();
    return out;
}

QStringList idTags(const QVector<QueueRow> &rows)
{
    QStringList out;
    for (const QueueRow &r : rows)
        out << rowId(r);
    return out;
}

} // namespace

class TstBackendQueues : public QObject {
    Q_OBJECT

private slots:
    void initSchema_data();
    void initSchema();
    void timeoutBoundary_data();
    void timeoutBoundary();
    void filters_data();
    void filters();
    void pagination_data();
    void pagination();
    void paginationConcurrentInserts_data();
    void paginationConcurrentInserts();
    void unknownMerge_data();
    void unknownMerge();
    void mappedShape_data();
    void mappedShape();
    void unknownStatuses_data();
    void unknownStatuses();
};

// ===================================================================== schema

void TstBackendQueues::initSchema_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("backstop");
    for (const QString &b : backendNames()) {
        QTest::newRow(qPrintable(b + QStringLiteral(", backstop"))) << b << true;
        QTest::newRow(qPrintable(b + QStringLiteral(", no backstop"))) << b << false;
    }
}

void TstBackendQueues::initSchema()
{
    QFETCH(QString, backend);
    QFETCH(bool, backstop);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    SchemaOptions options;
    options.ticketBackstop = backstop;
    const Outcome<int> first = triage::initSchema(ws, options).result();
    TRIAGE_VERIFY_OUTCOME(first);
    QVERIFY(*first > 0);
    // The first run created everything; running it again is fine and runs only the console's
    // own statements: the agents' tables exist now, and init-schema never indexes an existing
    // agents' table (DESIGN.md §10).
    const Dialect dialect = ws.config().profile(DbRole::Idempotency).dialect;
    int console = 0;
    int agents = 0;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        console += int(consoleTableStatements(dialect, role).size());
        agents += int(agentsTableStatements(dialect, role, options).size());
    }
    QCOMPARE(*first, agents + console);
    const Outcome<int> second = triage::initSchema(ws, options).result();
    TRIAGE_VERIFY_OUTCOME(second);
    QCOMPARE(*second, console);

    QString error;
    const QStringList tables = tablesOf(db, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    for (const char *t : {"idempotency_record", "intent_log", "ticket"})
        QVERIFY2(tables.contains(QLatin1String(t)), qPrintable(tables.join(", ")));
    const QStringList ticketIndexes = indexesOf(db, QStringLiteral("ticket"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(ticketIndexes.contains(QStringLiteral("uq_ticket_idem_key")), backstop);
    QCOMPARE(ticketIndexes.contains(QStringLiteral("idx_ticket_idem_key")), !backstop);
    QVERIFY(indexesOf(db, QStringLiteral("idempotency_record"), &error)
                .contains(QStringLiteral("idx_idempotency_record_status_updated")));
    QVERIFY(indexesOf(db, QStringLiteral("intent_log"), &error).contains(QStringLiteral("idx_intent_log_key_created")));

    // The backstop: a second ticket with the same key is refused only with it.
    const QString now = serverAgoSeconds(db, 0);
    TicketSpec t;
    t.key = QStringLiteral("ticket:create:acme:dup");
    t.tenant = QStringLiteral("acme");
    t.title = QStringLiteral("first");
    t.created = now;
    TRIAGE_OK(insertTickets(db, {t}));
    t.title = QStringLiteral("second");
    const QString dupError = insertTickets(db, {t});
    QCOMPARE(dupError.isEmpty(), !backstop);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM ticket WHERE idem_key = 'ticket:create:acme:dup'")),
             QStringList{backstop ? QStringLiteral("1") : QStringLiteral("2")});
    // Tickets without a key never collide.
    TicketSpec nokey;
    nokey.created = now;
    TRIAGE_OK(insertTickets(db, {nokey, nokey}));
    // idempotency_record.idem_key is always unique (the seeds' DDL).
    RecordSpec r;
    r.key = QStringLiteral("ticket:create:acme:dup");
    r.updated = now;
    TRIAGE_OK(insertRecords(db, {r}));
    QVERIFY(!insertRecords(db, {r}).isEmpty());

    // And the console reads the duplicate-key group back.
    const KeyDetail d = loadKeyDetail(ws, QStringLiteral("ticket:create:acme:dup")).result();
    QVERIFY2(d.errors.isEmpty(), qPrintable(errorsText(d)));
    QCOMPARE(d.tickets.size(), backstop ? 1 : 2);
}

// ===================================================================== timeout boundary

void TstBackendQueues::timeoutBoundary_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendQueues::timeoutBoundary()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.defaultProcessingTimeoutS = 300;
    config.bizTypes.insert(QStringLiteral("fast"), BizTypeConfig{60, QStringLiteral("*:*:{tenant}")});
    config.bizTypes.insert(QStringLiteral("slow"), BizTypeConfig{900, QStringLiteral("*:*:{tenant}")});
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws));

    auto rec = [&](const QString &key, const QString &biz, int status, qint64 ageS) {
        RecordSpec r;
        r.key = key;
        r.bizType = biz;
        r.status = QString::number(status);
        r.updated = serverAgoSeconds(db, ageS);
        r.created = serverAgoSeconds(db, ageS + 5);
        r.expire = serverAgoSeconds(db, -7 * 86400);
        return r;
    };
    // Ages are computed by each server from its own clock, 10 s either side of the timeout.
    TRIAGE_OK(insertRecords(db, {
        rec("d290", "other", 0, 290), rec("d310", "other", 0, 310),            // default 300 s
        rec("f50", "fast", 0, 50), rec("f70", "fast", 0, 70), rec("f310", "fast", 0, 310), // 60 s
        rec("s310", "slow", 0, 310), rec("s890", "slow", 0, 890), rec("s910", "slow", 0, 910), // 900 s
        rec("failed_old", "other", 2, 3600), rec("failed_new", "fast", 2, 1),
        rec("success_old", "other", 1, 3600), rec("success_new", "slow", 1, 1),
        rec("code7", "other", 7, 3600), rec("code-1", "other", -1, 3600),
    }));

    // Intent steps: the latest attempt of each key decides (created_at, then id).
    auto att = [&](qint64 id, const QString &key, const QString &status, qint64 agoS) {
        IntentSpec a;
        a.id = id;
        a.key = key;
        a.status = status;
        a.created = serverAgoSeconds(db, agoS);
        a.updated = serverAgoSeconds(db, agoS - 1);
        return a;
    };
    const QString tie = timeLiteral(db, QStringLiteral("2026-01-01T00:00:00.000000Z"));
    IntentSpec tieUnknown = att(20, "iH", "UNKNOWN", 0), tieSucceeded = att(21, "iH", "SUCCEEDED", 0);
    tieUnknown.created = tieSucceeded.created = tie; // same created_at: the higher id is later
    IntentSpec tieUnknown2 = att(23, "iJ", "UNKNOWN", 0), tieSucceeded2 = att(22, "iJ", "SUCCEEDED", 0);
    tieUnknown2.created = tieSucceeded2.created = tie;
    TRIAGE_OK(insertIntents(db, {
        att(1, "iA", "UNKNOWN", 100),
        att(2, "iB", "RECONCILE_PENDING", 100),
        att(3, "iC", "ESCALATED", 100),
        att(4, "iD", "UNKNOWN", 200), att(5, "iD", "SUCCEEDED", 100),   // resolved by a retry
        att(6, "iE", "SUCCEEDED", 200), att(7, "iE", "UNKNOWN", 100),   // latest attempt unknown
        att(8, "iF", "INTENT", 100),
        att(9, "iG", "UNKNOWN", 200), att(10, "iG", "ESCALATED", 100),
        att(12, "iK", "ESCALATED", 200), att(11, "iK", "UNKNOWN", 100), // ids out of time order
        att(13, "iL", "FAILED", 100), att(14, "iM", "COMPENSATED", 100),
        tieUnknown, tieSucceeded, tieUnknown2, tieSucceeded2,
    }));
    IntentSpec noKey = att(30, "", "UNKNOWN", 100);
    noKey.key.reset(); // steps without a key are not queue rows
    TRIAGE_OK(insertIntents(db, {noKey}));

    struct Case {
        const char *what;
        QueueRequest req;
        QStringList expected;
    };
    QueueFilter fast;
    fast.bizType = QStringLiteral("fast");
    QueueFilter slow;
    slow.bizType = QStringLiteral("slow");
    QueueFilter other;
    other.bizType = QStringLiteral("other");
    const QVector<Case> cases = {
        // Records whose stored status the console does not know (code 7, -1) are listed in the
        // Unknown queue, at any age (DESIGN.md §2), and in no other.
        {"unknown", request(QueueKind::Unknown),
         {"record:d310", "record:f70", "record:f310", "record:s910", "record:code7", "record:code-1", "intent:iA",
          "intent:iB", "intent:iE", "intent:iJ", "intent:iK"}},
        {"in flight", request(QueueKind::InFlight), {"record:d290", "record:f50", "record:s310", "record:s890"}},
        {"failed", request(QueueKind::Failed), {"record:failed_old", "record:failed_new"}},
        {"succeeded", request(QueueKind::Succeeded), {"record:success_old", "record:success_new"}},
        {"escalated", request(QueueKind::Escalated), {"intent:iC", "intent:iG"}},
        {"unknown fast", request(QueueKind::Unknown, fast), {"record:f70", "record:f310"}},
        {"in flight fast", request(QueueKind::InFlight, fast), {"record:f50"}},
        {"unknown slow", request(QueueKind::Unknown, slow), {"record:s910"}},
        {"in flight slow", request(QueueKind::InFlight, slow), {"record:s310", "record:s890"}},
        {"unknown other (default timeout)", request(QueueKind::Unknown, other), {"record:d310", "record:code7", "record:code-1"}},
        {"in flight other", request(QueueKind::InFlight, other), {"record:d290"}},
        {"escalated fast (intents have no biz_type)", request(QueueKind::Escalated, fast), {}},
    };
    for (const Case &c : cases) {
        QString error;
        const QStringList got = queueTags(ws, c.req, &error);
        QVERIFY2(error.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(c.what, error)));
        QVERIFY2(got == sorted(c.expected),
                 qPrintable(QStringLiteral("%1: got [%2], expected [%3]")
                                .arg(c.what, got.join(", "), sorted(c.expected).join(", "))));
        const qint64 count = countOf(ws, c.req, &error);
        QVERIFY2(count == c.expected.size(),
                 qPrintable(QStringLiteral("%1: count %2, expected %3 %4").arg(c.what).arg(count).arg(c.expected.size()).arg(error)));
    }

    // Rows carry status, canonical times and server-computed ages.
    const PagedQueue inflight = fetchWholeQueue(ws, request(QueueKind::InFlight), 50);
    for (const QueueRow &r : inflight.rows) {
        QCOMPARE(r.status, QStringLiteral("PROCESSING"));
        // The shop shape has no expire_at (DESIGN.md §10): NULL there.
        QVERIFY2(isCanonicalTime(r.updatedAt) && isCanonicalTime(r.createdAt)
                     && (db.isShop() ? r.expireAt.isNull() : isCanonicalTime(r.expireAt)),
                 qPrintable(r.updatedAt + " " + r.createdAt + " " + r.expireAt));
        if (r.idemKey == QLatin1String("d290"))
            QVERIFY2(r.ageSeconds >= 289.5 && r.ageSeconds < 300, qPrintable(QString::number(r.ageSeconds)));
    }
    const PagedQueue unknown = fetchWholeQueue(ws, request(QueueKind::Unknown), 50);
    for (const QueueRow &r : unknown.rows) {
        if (r.source == QueueSource::Record && r.idemKey.startsWith(QLatin1String("code")))
            QCOMPARE(r.status, QStringLiteral("UNKNOWN_CODE_") + r.idemKey.mid(4));
        else if (r.source == QueueSource::Record)
            QCOMPARE(r.status, QStringLiteral("PROCESSING"));
        else
            QVERIFY2(r.status == QLatin1String("UNKNOWN") || r.status == QLatin1String("RECONCILE_PENDING"), qPrintable(r.status));
        if (r.idemKey == QLatin1String("d310"))
            QVERIFY2(r.ageSeconds > 300 && r.ageSeconds < 320, qPrintable(QString::number(r.ageSeconds)));
        if (r.idemKey == QLatin1String("iK"))
            QCOMPARE(r.id, qint64(11)); // the latest attempt's row, not the highest id
    }

    // The detail view agrees on staleness and the timeout it used.
    struct Stale {
        const char *key;
        bool stale;
        int timeout;
    };
    for (const Stale &s : {Stale{"d290", false, 300}, Stale{"d310", true, 300}, Stale{"f70", true, 60},
                           Stale{"s310", false, 900}, Stale{"s910", true, 900}, Stale{"failed_old", false, 300},
                           Stale{"code7", false, 300}}) {
        const KeyDetail d = loadKeyDetail(ws, QString::fromLatin1(s.key)).result();
        QVERIFY2(d.record.has_value(), s.key);
        QVERIFY2(d.record->stale == s.stale, s.key);
        QCOMPARE(d.record->processingTimeoutS, s.timeout);
    }
}

// ===================================================================== filters

void TstBackendQueues::filters_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendQueues::filters()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    config.bizTypes.insert(QStringLiteral("ticket_create"), BizTypeConfig{300, QStringLiteral("ticket:create:{tenant}")});
    config.bizTypes.insert(QStringLiteral("notify_send"), BizTypeConfig{300, QStringLiteral("*:{tenant}")});
    config.bizTypes.insert(QStringLiteral("job_run"), BizTypeConfig{300, QStringLiteral("job:{tenant}:run")});
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws));

    // Every record is FAILED (no clock involved); times are exact for the window filters.
    QVector<RecordSpec> recs;
    int n = 0;
    auto rec = [&](const QString &key, const QString &biz) {
        RecordSpec r;
        r.key = key;
        r.bizType = biz;
        r.status = QStringLiteral("2");
        r.created = timeLiteral(db, fixedTime(100 + n));
        r.updated = timeLiteral(db, fixedTime(1000 + n));
        r.expire = timeLiteral(db, fixedTime(100000));
        ++n;
        recs << r;
    };
    rec("ticket:create:acme:1", "ticket_create");     // tenant acme
    rec("ticket:create:acme", "ticket_create");       // tenant acme (the key ends with it)
    rec("ticket:create:acmex:2", "ticket_create");    // acmex, not acme
    rec("ticket:create:ACME:2b", "ticket_create");    // tenants are case-sensitive
    rec("ticket:create:zürich:3", "ticket_create");
    rec("ticket:create:a_b%c:4", "ticket_create");
    rec("ticket:create:aXbYYc:5", "ticket_create");   // matches a_b%c only if _ and % were wildcards
    rec("ticket:create:x.y:7", "ticket_create");
    rec("ticket:create:xzy:8", "ticket_create");      // matches x.y only if . were a wildcard
    rec("pay:capture:acme:9", "ticket_create");       // acme in field 3, but not ticket_create's pattern
    rec("o:p:acme:14", "other");                       // default pattern *:*:{tenant}
    rec("o:p:acme", "other");
    rec("o:acme:p:15", "other");                       // tenant p
    rec("o:p:x.y:9", "other");
    rec("o:p:xzy:10", "other");
    rec("o:p:zürich:11", "other");
    rec("o:p:zurich:11b", "other");                    // ASCII look-alike
    rec("o:p:a_b%c:12", "other");
    rec("o:p:aXbYYc:13", "other");
    rec("ticket:create:acme:16", "other");             // default pattern: field 3 is acme
    rec("n:acme", "notify_send");                      // *:{tenant}
    rec("n:acme:extra", "notify_send");
    rec("n:x:acme", "notify_send");                    // tenant x
    rec("job:acme:run:1", "job_run");                  // literal tail
    rec("job:acme:walk:1", "job_run");                 // tail does not match
    rec("k%1_a", "keys");                              // key substring cases
    rec("k%1_b", "keys");
    rec("k11xa", "keys");
    rec("bang!x", "keys");
    rec("bangx", "keys");
    rec("Case:KEY", "keys");
    TRIAGE_OK(insertRecords(db, recs));

    // Unknown intent steps (no biz_type): any configured pattern or the default one.
    QVector<IntentSpec> ints;
    int m = 0;
    auto step = [&](const QString &key) {
        IntentSpec a;
        a.key = key;
        a.status = QStringLiteral("UNKNOWN");
        a.created = timeLiteral(db, fixedTime(200 + m));
        a.updated = timeLiteral(db, fixedTime(2000 + m));
        ++m;
        ints << a;
    };
    step("ticket:create:zürich:i1");
    step("x:y:zürich:i2");
    step("x:y:a_b%c:i3");
    step("x:y:aXbYYc:i4");
    step("x:y:acme:i5");
    step("x:y:x.y:i6");
    step("x:y:xzy:i7");
    TRIAGE_OK(insertIntents(db, ints));

    auto filter = [](const char *biz, const char *tenant, const char *key) {
        QueueFilter f;
        f.bizType = QString::fromUtf8(biz);
        f.tenant = QString::fromUtf8(tenant);
        f.keySubstring = QString::fromUtf8(key);
        return f;
    };
    auto window = [](std::optional<int> cFrom, std::optional<int> cTo, std::optional<int> uFrom, std::optional<int> uTo) {
        QueueFilter f;
        auto t = [](std::optional<int> i) -> std::optional<UtcMicros> {
            if (!i)
                return std::nullopt;
            return parseUtcMicros(fixedTime(*i));
        };
        f.createdFrom = t(cFrom);
        f.createdTo = t(cTo);
        f.updatedFrom = t(uFrom);
        f.updatedTo = t(uTo);
        return f;
    };
    auto tags = [](const char *prefix, std::initializer_list<const char *> keys) {
        QStringList out;
        for (const char *k : keys)
            out << QString::fromLatin1(prefix) + QString::fromUtf8(k);
        return out;
    };
    struct Case {
        const char *what;
        QueueRequest req;
        QStringList expected;
    };
    const QVector<Case> cases = {
        {"biz_type", request(QueueKind::Failed, filter("notify_send", "", "")),
         tags("record:", {"n:acme", "n:acme:extra", "n:x:acme"})},
        {"biz_type unknown", request(QueueKind::Failed, filter("nope", "", "")), {}},
        {"tenant acme, every pattern", request(QueueKind::Failed, filter("", "acme", "")),
         tags("record:", {"ticket:create:acme:1", "ticket:create:acme", "o:p:acme:14", "o:p:acme", "ticket:create:acme:16",
                          "n:acme", "n:acme:extra", "job:acme:run:1"})},
        {"tenant acme, ticket_create", request(QueueKind::Failed, filter("ticket_create", "acme", "")),
         tags("record:", {"ticket:create:acme:1", "ticket:create:acme"})},
        {"tenant acme, default pattern biz", request(QueueKind::Failed, filter("other", "acme", "")),
         tags("record:", {"o:p:acme:14", "o:p:acme", "ticket:create:acme:16"})},
        {"tenant acme, literal tail", request(QueueKind::Failed, filter("job_run", "acme", "")),
         tags("record:", {"job:acme:run:1"})},
        {"tenant ACME is another tenant", request(QueueKind::Failed, filter("", "ACME", "")),
         tags("record:", {"ticket:create:ACME:2b"})},
        {"tenant zürich", request(QueueKind::Failed, filter("", "zürich", "")),
         tags("record:", {"ticket:create:zürich:3", "o:p:zürich:11"})},
        {"tenant zürich, default pattern biz", request(QueueKind::Failed, filter("other", "zürich", "")),
         tags("record:", {"o:p:zürich:11"})},
        {"tenant a_b%c", request(QueueKind::Failed, filter("", "a_b%c", "")),
         tags("record:", {"ticket:create:a_b%c:4", "o:p:a_b%c:12"})},
        {"tenant x.y", request(QueueKind::Failed, filter("", "x.y", "")),
         tags("record:", {"ticket:create:x.y:7", "o:p:x.y:9"})},
        {"tenant x", request(QueueKind::Failed, filter("notify_send", "x", "")), tags("record:", {"n:x:acme"})},
        {"tenant p", request(QueueKind::Failed, filter("other", "p", "")), tags("record:", {"o:acme:p:15"})},
        {"unknown queue, tenant zürich (intents)", request(QueueKind::Unknown, filter("", "zürich", "")),
         tags("intent:", {"ticket:create:zürich:i1", "x:y:zürich:i2"})},
        {"unknown queue, tenant a_b%c (intents)", request(QueueKind::Unknown, filter("", "a_b%c", "")),
         tags("intent:", {"x:y:a_b%c:i3"})},
        {"unknown queue, tenant x.y (intents)", request(QueueKind::Unknown, filter("", "x.y", "")),
         tags("intent:", {"x:y:x.y:i6"})},
        {"unknown queue, biz_type leaves intents out", request(QueueKind::Unknown, filter("ticket_create", "zürich", "")), {}},
        {"key %1_", request(QueueKind::Failed, filter("", "", "%1_")), tags("record:", {"k%1_a", "k%1_b"})},
        {"key _", request(QueueKind::Failed, filter("keys", "", "_")), tags("record:", {"k%1_a", "k%1_b"})},
        {"key %", request(QueueKind::Failed, filter("", "", "%")),
         tags("record:", {"k%1_a", "k%1_b", "ticket:create:a_b%c:4", "o:p:a_b%c:12"})},
        {"key with the escape character", request(QueueKind::Failed, filter("", "", "g!x")), tags("record:", {"bang!x"})},
        {"key is case-sensitive", request(QueueKind::Failed, filter("", "", "case:key")), {}},
        {"key exact case", request(QueueKind::Failed, filter("", "", "e:KEY")), tags("record:", {"Case:KEY"})},
        {"key non-ASCII", request(QueueKind::Failed, filter("", "", "ürich:")),
         tags("record:", {"ticket:create:zürich:3", "o:p:zürich:11"})},
        {"key and tenant", request(QueueKind::Failed, filter("", "acme", ":1")), tags("record:", {"ticket:create:acme:1", "o:p:acme:14", "ticket:create:acme:16", "job:acme:run:1"})},
        {"key on intents", request(QueueKind::Unknown, filter("", "", "zürich:i")),
         tags("intent:", {"ticket:create:zürich:i1", "x:y:zürich:i2"})},
        // created_at 100+i, updated_at 1000+i for record i; from inclusive, to exclusive.
        {"created window", request(QueueKind::Failed, window(101, 103, {}, {})),
         tags("record:", {"ticket:create:acme", "ticket:create:acmex:2"})},
        {"created from only", request(QueueKind::Failed, window(129, {}, {}, {})), tags("record:", {"bangx", "Case:KEY"})},
        {"updated window", request(QueueKind::Failed, window({}, {}, 1000, 1002)),
         tags("record:", {"ticket:create:acme:1", "ticket:create:acme"})},
        {"updated to only", request(QueueKind::Failed, window({}, {}, {}, 1001)), tags("record:", {"ticket:create:acme:1"})},
        {"both windows", request(QueueKind::Failed, window(100, 110, 1005, 2000)),
         tags("record:", {"ticket:create:a_b%c:4", "ticket:create:aXbYYc:5", "ticket:create:x.y:7", "ticket:create:xzy:8",
                          "pay:capture:acme:9"})},
        {"empty window", request(QueueKind::Failed, window(105, 105, {}, {})), {}},
        {"intent windows", request(QueueKind::Unknown, window(201, 203, 2000, 2002)), tags("intent:", {"x:y:zürich:i2"})},
    };
    for (const Case &c : cases) {
        // The shop shape's records have a tenant column: their tenant filter is tested on the
        // mapped shape (mappedShape), not against these key patterns.
        if (db.isShop() && !c.req.filter.tenant.isEmpty())
            continue;
        QString error;
        const QStringList got = queueTags(ws, c.req, &error);
        QVERIFY2(error.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(c.what, error)));
        QVERIFY2(got == sorted(c.expected),
                 qPrintable(QStringLiteral("%1: got [%2], expected [%3]")
                                .arg(c.what, got.join(", "), sorted(c.expected).join(", "))));
        const qint64 count = countOf(ws, c.req, &error);
        QVERIFY2(count == c.expected.size(),
                 qPrintable(QStringLiteral("%1: count %2, expected %3 %4").arg(c.what).arg(count).arg(c.expected.size()).arg(error)));
    }

    // Microsecond-exact windows on the oldest row (updated_at = fixedTime(1000)): from its
    // time includes it, from 1 µs later excludes it; "to" is exclusive.
    QueueFilter exact;
    exact.updatedFrom = parseUtcMicros(fixedTime(1000));
    QCOMPARE(countOf(ws, request(QueueKind::Failed, exact)), qint64(recs.size()));
    exact.updatedFrom = *exact.updatedFrom + 1;
    QCOMPARE(countOf(ws, request(QueueKind::Failed, exact)), qint64(recs.size() - 1));
    exact.updatedFrom.reset();
    exact.updatedTo = parseUtcMicros(fixedTime(1000));
    QCOMPARE(countOf(ws, request(QueueKind::Failed, exact)), qint64(0));
    exact.updatedTo = *exact.updatedTo + 1;
    QCOMPARE(countOf(ws, request(QueueKind::Failed, exact)), qint64(1));
}

// ===================================================================== pagination

namespace {

/// A few hundred rows with many equal updated_at values, ids deliberately out of time order.
/// Records: `failedCount` FAILED + `staleCount` stale PROCESSING; intents: `intentCount`
/// UNKNOWN steps (latest attempts) plus superseded attempts that must not show.
struct PagingData {
    QVector<ExpectedRow> failed, unknown;
};

QString loadPagingData(const TestDatabase &db, PagingData *out)
{
    QVector<RecordSpec> recs;
    QVector<IntentSpec> ints;
    // 150 FAILED records at 30 distinct times (5 per time), 200 stale PROCESSING at 40 times.
    for (int i = 0; i < 350; ++i) {
        RecordSpec r;
        r.id = 1000 + (i * 7919) % 350; // a permutation of 1000..1349
        r.key = QStringLiteral("page:rec:%1").arg(r.id);
        r.bizType = QStringLiteral("ticket_create");
        const bool failed = i < 150;
        r.status = failed ? QStringLiteral("2") : QStringLiteral("0");
        const int slot = failed ? i / 5 : (i - 150) / 5;
        const QString t = fixedTime(slot * 10, 123456);
        r.updated = timeLiteral(db, t);
        r.created = timeLiteral(db, fixedTime(0));
        r.expire = timeLiteral(db, fixedTime(10000000));
        recs << r;
        (failed ? out->failed : out->unknown) << ExpectedRow{QueueSource::Record, r.id, *parseUtcMicros(t)};
    }
    // 150 intent keys; their latest attempt shares times with records (cross-source ties).
    for (int i = 0; i < 150; ++i) {
        IntentSpec latest;
        latest.id = 5000 + (i * 104729) % 150;
        latest.key = QStringLiteral("page:int:%1").arg(latest.id);
        latest.status = i % 3 == 0 ? QStringLiteral("RECONCILE_PENDING") : QStringLiteral("UNKNOWN");
        const QString t = fixedTime((i / 3) * 10 + (i % 2 ? 0 : 5), 123456);
        latest.created = timeLiteral(db, fixedTime(500000 + i));
        latest.updated = timeLiteral(db, t);
        IntentSpec older = latest; // an earlier attempt of the same key: superseded
        older.id = 9000 + i;
        older.created = timeLiteral(db, fixedTime(400000 + i));
        older.updated = timeLiteral(db, fixedTime(400000 + i));
        ints << older << latest;
        out->unknown << ExpectedRow{QueueSource::Intent, latest.id, *parseUtcMicros(t)};
    }
    // Resolved keys: UNKNOWN followed by SUCCEEDED must not show.
    for (int i = 0; i < 20; ++i) {
        IntentSpec a;
        a.id = 7000 + 2 * i;
        a.key = QStringLiteral("page:resolved:%1").arg(i);
        a.status = QStringLiteral("UNKNOWN");
        a.created = timeLiteral(db, fixedTime(300000 + i));
        a.updated = timeLiteral(db, fixedTime(20, 123456));
        IntentSpec b = a;
        b.id = a.id + 1;
        b.status = QStringLiteral("SUCCEEDED");
        b.created = timeLiteral(db, fixedTime(300100 + i));
        ints << a << b;
    }
    QString err = insertRecords(db, recs);
    if (err.isEmpty())
        err = insertIntents(db, ints);
    return err;
}

} // namespace

void TstBackendQueues::pagination_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendQueues::pagination()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    PagingData data;
    TRIAGE_OK(loadPagingData(db, &data));
    QCOMPARE(data.failed.size(), 150);
    QCOMPARE(data.unknown.size(), 350);

    for (QueueKind kind : {QueueKind::Failed, QueueKind::Unknown}) {
        const QVector<ExpectedRow> &rows = kind == QueueKind::Failed ? data.failed : data.unknown;
        for (bool newestFirst : {false, true}) {
            const QStringList expected = expectedOrder(rows, newestFirst);
            const QueueRequest req = request(kind, {}, newestFirst);
            QString error;
            QCOMPARE(countOf(ws, req, &error), qint64(expected.size()));
            for (int pageSize : {1, 7, 50}) {
                const QString what = QStringLiteral("%1, %2, page size %3")
                                         .arg(queueName(kind), newestFirst ? QStringLiteral("newest first") : QStringLiteral("oldest first"))
                                         .arg(pageSize);
                const PagedQueue got = fetchWholeQueue(ws, req, pageSize);
                QVERIFY2(got.error.isEmpty(), qPrintable(what + ": " + got.error));
                const QStringList ids = idTags(got.rows);
                QVERIFY2(ids.size() == QSet<QString>(ids.begin(), ids.end()).size(), qPrintable(what + ": duplicates"));
                if (ids != expected) {
                    int i = 0;
                    while (i < qMin(ids.size(), expected.size()) && ids[i] == expected[i])
                        ++i;
                    QFAIL(qPrintable(QStringLiteral("%1: %2 rows, expected %3; first difference at %4: got %5, expected %6")
                                         .arg(what)
                                         .arg(ids.size())
                                         .arg(expected.size())
                                         .arg(i)
                                         .arg(ids.value(i), expected.value(i))));
                }
                QVERIFY2(got.pages >= (expected.size() + pageSize - 1) / pageSize, qPrintable(what));
                QVERIFY2(got.pages <= expected.size() / pageSize + 1, qPrintable(what));
                // The rows' times are the stored ones, exactly (the shop shape keeps milliseconds).
                const QLatin1String fraction = db.isShop() ? QLatin1String(".123000Z") : QLatin1String(".123456Z");
                for (const QueueRow &r : got.rows)
                    QVERIFY2(r.updatedAt.endsWith(fraction), qPrintable(r.updatedAt));
            }
        }
    }
}

void TstBackendQueues::paginationConcurrentInserts_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("newestFirst");
    for (const QString &b : backendNames()) {
        for (QueueKind k : {QueueKind::Failed, QueueKind::Unknown}) {
            for (bool nf : {false, true})
                QTest::newRow(qPrintable(QStringLiteral("%1, %2, %3").arg(b, queueName(k), nf ? "newest first" : "oldest first")))
                    << b << int(k) << nf;
        }
    }
}

void TstBackendQueues::paginationConcurrentInserts()
{
    QFETCH(QString, backend);
    QFETCH(int, kind);
    QFETCH(bool, newestFirst);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    PagingData data;
    TRIAGE_OK(loadPagingData(db, &data));
    const QueueKind k = QueueKind(kind);
    const QVector<ExpectedRow> &rows = k == QueueKind::Failed ? data.failed : data.unknown;
    const QStringList existing = expectedOrder(rows, newestFirst);

    // Between pages, other writers add rows newer than everything (still stale for the
    // Unknown queue), older than everything, and at times between existing rows.
    QSet<QString> inserted;
    int next = 0;
    const QString status = k == QueueKind::Failed ? QStringLiteral("2") : QStringLiteral("0");
    auto between = [&](int) -> QString {
        QVector<RecordSpec> recs;
        QVector<IntentSpec> ints;
        for (int j = 0; j < 3; ++j, ++next) {
            QString t;
            switch (next % 3) {
            case 0: t = fixedTime(100000 + next, 5); break;           // newer than everything
            case 1: t = fixedTime(-100000 - next, 5); break;          // older than everything
            default: t = fixedTime((next * 37) % 500, 123456); break; // among existing rows (ties too)
            }
            RecordSpec r;
            r.id = 20000 + next;
            r.key = QStringLiteral("late:rec:%1").arg(r.id);
            r.status = status;
            r.updated = timeLiteral(db, t);
            r.created = r.expire = r.updated;
            recs << r;
            inserted << QStringLiteral("record#%1").arg(r.id);
            if (k == QueueKind::Unknown) {
                IntentSpec a;
                a.id = 30000 + next;
                a.key = QStringLiteral("late:int:%1").arg(a.id);
                a.created = timeLiteral(db, fixedTime(900000 + next));
                a.updated = timeLiteral(db, t);
                ints << a;
                inserted << QStringLiteral("intent#%1").arg(a.id);
            }
        }
        QString err = insertRecords(db, recs);
        if (err.isEmpty() && !ints.isEmpty())
            err = insertIntents(db, ints);
        return err;
    };
    const PagedQueue got = fetchWholeQueue(ws, request(k, {}, newestFirst), 7, between);
    QVERIFY2(got.error.isEmpty(), qPrintable(got.error));
    const QStringList ids = idTags(got.rows);
    QVERIFY2(ids.size() == QSet<QString>(ids.begin(), ids.end()).size(), "a row came twice");
    // The listing is in queue order throughout, whatever was inserted meanwhile: nothing
    // shows up behind a position already passed.
    for (int i = 1; i < got.rows.size(); ++i) {
        const QueueRow &a = got.rows[i - 1], &b = got.rows[i];
        const UtcMicros ta = *parseUtcMicros(a.updatedAt), tb = *parseUtcMicros(b.updatedAt);
        bool ordered;
        if (ta != tb)
            ordered = newestFirst ? ta > tb : ta < tb;
        else if (a.source != b.source)
            ordered = a.source == QueueSource::Record;
        else
            ordered = newestFirst ? a.id > b.id : a.id < b.id;
        QVERIFY2(ordered, qPrintable(QStringLiteral("row %1 (%2 %3) before row %4 (%5 %6)")
                                         .arg(i - 1)
                                         .arg(rowId(a), a.updatedAt)
                                         .arg(i)
                                         .arg(rowId(b), b.updatedAt)));
    }
    // Every existing row exactly once, in order.
    QStringList seenExisting, seenNew;
    for (const QString &id : ids)
        (inserted.contains(id) ? seenNew : seenExisting) << id;
    QCOMPARE(seenExisting, existing);
    if (!newestFirst) {
        // Rows newer than everything come at the end (the listing ends with them).
        QVERIFY2(!seenNew.isEmpty(), "no row inserted while paging showed up");
        QVERIFY(inserted.contains(ids.last()));
    }
}

// ===================================================================== Unknown merge

void TstBackendQueues::unknownMerge_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendQueues::unknownMerge()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    // Records at t1, t3, t5, t5; intents at t2, t3, t4, t6: the queue interleaves them by
    // updated_at; on equal times records come first, then ids.
    auto rec = [&](qint64 id, int t) {
        RecordSpec r;
        r.id = id;
        r.key = QStringLiteral("r%1").arg(id);
        r.updated = timeLiteral(db, fixedTime(t));
        return r;
    };
    auto step = [&](qint64 id, int t) {
        IntentSpec a;
        a.id = id;
        a.key = QStringLiteral("i%1").arg(id);
        a.created = timeLiteral(db, fixedTime(0));
        a.updated = timeLiteral(db, fixedTime(t));
        return a;
    };
    TRIAGE_OK(insertRecords(db, {rec(4, 1), rec(3, 3), rec(2, 5), rec(1, 5)}));
    TRIAGE_OK(insertIntents(db, {step(14, 2), step(13, 3), step(12, 4), step(11, 6)}));
    const QStringList oldest = {"record#4", "intent#14", "record#3", "intent#13", "intent#12", "record#1", "record#2", "intent#11"};
    const QStringList newest = {"intent#11", "record#2", "record#1", "intent#12", "record#3", "intent#13", "intent#14", "record#4"};
    for (int pageSize : {1, 2, 3, 8, 9}) {
        PagedQueue p = fetchWholeQueue(ws, request(QueueKind::Unknown), pageSize);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(idTags(p.rows), oldest);
        p = fetchWholeQueue(ws, request(QueueKind::Unknown, {}, true), pageSize);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(idTags(p.rows), newest);
    }
    QCOMPARE(countOf(ws, request(QueueKind::Unknown)), qint64(8));

    // A page's cursor restarts exactly where it stopped, whichever source ran out first.
    const Outcome<QueuePage> first = fetchQueuePage(ws, request(QueueKind::Unknown), {}, 3).result();
    TRIAGE_VERIFY_OUTCOME(first);
    QCOMPARE(idTags(first->rows), oldest.mid(0, 3));
    QVERIFY(!first->atEnd);
    const Outcome<QueuePage> second = fetchQueuePage(ws, request(QueueKind::Unknown), first->next, 3).result();
    TRIAGE_VERIFY_OUTCOME(second);
    QCOMPARE(idTags(second->rows), oldest.mid(3, 3));
    // The same cursor gives the same page again (stateless).
    const Outcome<QueuePage> again = fetchQueuePage(ws, request(QueueKind::Unknown), first->next, 3).result();
    TRIAGE_VERIFY_OUTCOME(again);
    QCOMPARE(idTags(again->rows), oldest.mid(3, 3));
}

// ===================================================================== mapped shape

void TstBackendQueues::mappedShape_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true);
}

void TstBackendQueues::mappedShape()
{
    // DESIGN.md §10: every queue statement follows the mapping (tests/support/OddShape.h):
    // text statuses with odd case and spaces, epoch-millisecond record times and native
    // intent times, a real tenant column, no biz_type column, no expire_at.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    TRIAGE_OK(odd::create(db));
    Workspace ws(odd::config(db, 60));

    auto rec = [](qint64 id, const QString &key, std::optional<QString> state, const QString &updatedMs,
                  std::optional<QString> tenant = QStringLiteral("acme")) {
        odd::Rec r;
        r.id = id;
        r.key = key;
        r.state = std::move(state);
        r.updatedMs = updatedMs;
        r.tenant = std::move(tenant);
        return r;
    };
    auto ms = [](int s, int extra = 0) { return QString::number(odd::fixedMs(s, extra)); };
    QVector<odd::Rec> recs = {
        // The staleness boundary (60 s), on the server's clock.
        rec(1, "s:acme:b65", "pending ", odd::nowMinusMs(db, 65000)),
        rec(2, "s:acme:b55", "Pending", odd::nowMinusMs(db, 55000)),
        // Unknown, with ties (second 1, 2) among themselves and with intent steps.
        rec(10, "u10", " pending", ms(1)), rec(11, "u11", "PENDING", ms(1)), rec(12, "u12", "pEnDiNg", ms(2)),
        rec(13, "u13", "PENDING", ms(2)), rec(14, "u14", "PENDING", ms(2)), rec(15, "u15", "PENDING", ms(3)),
        // Succeeded (both spellings), tenants from the column, not from the key.
        rec(40, "s:bolt:40", "DONE", ms(20), QStringLiteral("bolt")), rec(41, "s:acme:41", " ok", ms(20, 1)),
        rec(42, "s:acme:42", "Done", ms(21), QStringLiteral("bolt")), rec(43, "s:acme:43", "OK ", ms(21, 1)),
        rec(44, "s:acme:44", "done", ms(22), QStringLiteral("BOLT")), // tenants are exact, whatever the collation
        // Values no spelling matches (not even the console's own names or codes, nor NULL) are
        // never taken for a known status: they are listed in the Unknown queue only, at any age.
        rec(50, "s:acme:50", "Weird", ms(5)), rec(51, "s:acme:51", std::nullopt, ms(5)),
        rec(52, "s:acme:52", "PROCESSING", ms(5)), rec(53, "s:acme:53", "1", ms(5)),
    };
    // Failed: 13 rows in three ties, for keyset paging.
    for (int i = 0; i < 13; ++i)
        recs << rec(20 + i, QStringLiteral("f%1").arg(20 + i),
                    i % 3 == 0 ? QStringLiteral("ERROR") : i % 3 == 1 ? QStringLiteral("error") : QStringLiteral(" Error "),
                    ms(i < 5 ? 10 : i < 9 ? 11 : 12));
    TRIAGE_OK(odd::insertRecs(db, recs));

    auto step = [&](qint64 id, const QString &key, const QString &state, int s) {
        odd::Step st;
        st.id = id;
        st.key = key;
        st.state = state;
        st.started = timeLiteral(db, fixedTime(s));
        return st;
    };
    TRIAGE_OK(odd::insertSteps(db, {
        step(100, "u10i", "timeout", 1), step(101, "u12i", "reconcile", 2), step(102, "u13i", "timeout", 2),
        step(103, "s:bolt:40", "timeout", 2),  // its record is settled (DONE): not unknown any more
        step(104, "s:acme:50", "timeout", 3),  // its record's status is unknown, not settled: listed
        step(105, "iT", "TIMEOUT", 2),         // intent spellings are exact: an unknown value
        step(106, "iE", "escalated", 4),
        step(107, "iR", "timeout", 1), step(108, "iR", "ok", 6),   // a later attempt succeeded
        step(109, "iS", "ok", 1), step(110, "iS", "timeout", 4),   // a later attempt is unknown
        step(111, "U10I", "ok", 6), // another key (keys are exact, whatever the collation)
    }));


    // The Unknown queue merges both tables by time (records first on ties), every page size,
    // both directions: each row exactly once, in order (the cursor crosses from epoch
    // milliseconds to native times and back).
    const auto R = QueueSource::Record, I = QueueSource::Intent;
    auto at = [](int s) { return *parseUtcMicros(fixedTime(s)); };
    const UtcMicros now = *parseUtcMicros(QStringLiteral("2100-01-01T00:00:00Z")); // record 1: after every fixed time
    const QVector<ExpectedRow> unknownRows = {{R, 10, at(1)}, {R, 11, at(1)}, {I, 100, at(1)}, {R, 12, at(2)},
                                              {R, 13, at(2)}, {R, 14, at(2)}, {I, 101, at(2)}, {I, 102, at(2)},
                                              {R, 15, at(3)}, {I, 104, at(3)}, {I, 110, at(4)}, {R, 50, at(5)},
                                              {R, 51, at(5)}, {R, 52, at(5)}, {R, 53, at(5)}, {R, 1, now}};
    QVector<ExpectedRow> failedRows;
    for (int i = 0; i < 13; ++i)
        failedRows << ExpectedRow{R, 20 + i, at(i < 5 ? 10 : i < 9 ? 11 : 12)};
    for (bool newestFirst : {false, true}) {
        for (int pageSize : {1, 2, 3, 5, 50}) {
            const QString what = QStringLiteral("%1, page size %2").arg(newestFirst ? "newest first" : "oldest first").arg(pageSize);
            const PagedQueue u = fetchWholeQueue(ws, request(QueueKind::Unknown, {}, newestFirst), pageSize);
            QVERIFY2(u.error.isEmpty(), qPrintable(what + ": " + u.error));
            QVERIFY2(idTags(u.rows) == expectedOrder(unknownRows, newestFirst),
                     qPrintable(what + ": unknown [" + idTags(u.rows).join(", ") + "]"));
            const PagedQueue f = fetchWholeQueue(ws, request(QueueKind::Failed, {}, newestFirst), pageSize);
            QVERIFY2(f.error.isEmpty(), qPrintable(what + ": " + f.error));
            QVERIFY2(idTags(f.rows) == expectedOrder(failedRows, newestFirst),
                     qPrintable(what + ": failed [" + idTags(f.rows).join(", ") + "]"));
        }
    }

    // Row values: console spellings, canonical times from epoch milliseconds, the one biz_type,
    // no expire_at; intent statuses in the console's spelling.
    const PagedQueue unknown = fetchWholeQueue(ws, request(QueueKind::Unknown), 50);
    QVERIFY2(unknown.error.isEmpty(), qPrintable(unknown.error));
    const QueueRow &r10 = unknown.rows.at(0);
    QCOMPARE(r10.idemKey, QStringLiteral("u10"));
    QCOMPARE(r10.status, QStringLiteral("PROCESSING"));
    QCOMPARE(r10.bizType, QStringLiteral("shop_order"));
    QCOMPARE(r10.createdAt, QStringLiteral("2020-01-01T00:00:01.000000Z"));
    QCOMPARE(r10.updatedAt, QStringLiteral("2020-01-01T00:00:01.000000Z"));
    QVERIFY(r10.expireAt.isNull());
    QCOMPARE(r10.cursorTime, QString::number(odd::fixedMs(1)));
    const QueueRow &i100 = unknown.rows.at(2);
    QCOMPARE(i100.status, QStringLiteral("UNKNOWN"));
    QCOMPARE(i100.action, QStringLiteral("place_order"));
    QCOMPARE(i100.taskId, QStringLiteral("job-1"));
    QCOMPARE(i100.stepId, QStringLiteral("s1"));
    QCOMPARE(i100.updatedAt, QStringLiteral("2020-01-01T00:00:01.000000Z"));
    QCOMPARE(unknown.rows.at(6).status, QStringLiteral("RECONCILE_PENDING"));
    // Values no spelling matches: as stored, never a known status (NULL reads "NULL").
    QStringList odd5;
    for (int i = 11; i < 15; ++i)
        odd5 << unknown.rows.at(i).idemKey + QLatin1Char('=') + unknown.rows.at(i).status;
    QCOMPARE(odd5, (QStringList{"s:acme:50=UNKNOWN_CODE_Weird", "s:acme:51=NULL", "s:acme:52=UNKNOWN_CODE_PROCESSING",
                                "s:acme:53=UNKNOWN_CODE_1"}));
    const QueueRow &r1 = unknown.rows.last();
    QCOMPARE(r1.idemKey, QStringLiteral("s:acme:b65"));
    QVERIFY2(r1.ageSeconds >= 65 && r1.ageSeconds < 75, qPrintable(QString::number(r1.ageSeconds)));
    const PagedQueue inflight = fetchWholeQueue(ws, request(QueueKind::InFlight), 50);
    QCOMPARE(idTags(inflight.rows), QStringList{"record#2"});
    QVERIFY2(inflight.rows.at(0).ageSeconds >= 55 && inflight.rows.at(0).ageSeconds < 60,
             qPrintable(QString::number(inflight.rows.at(0).ageSeconds)));
    const PagedQueue succeeded = fetchWholeQueue(ws, request(QueueKind::Succeeded), 50);
    QCOMPARE(idTags(succeeded.rows), (QStringList{"record#40", "record#41", "record#42", "record#43", "record#44"}));
    QCOMPARE(succeeded.rows.at(1).status, QStringLiteral("SUCCESS"));
    QCOMPARE(succeeded.rows.at(1).updatedAt, QStringLiteral("2020-01-01T00:00:20.001000Z"));
    QCOMPARE(fetchWholeQueue(ws, request(QueueKind::Failed), 50).rows.at(0).status, QStringLiteral("FAILED"));

    // Filters and counts.
    auto filter = [](const char *biz, const char *tenant, const char *key) {
        QueueFilter f;
        f.bizType = QString::fromUtf8(biz);
        f.tenant = QString::fromUtf8(tenant);
        f.keySubstring = QString::fromUtf8(key);
        return f;
    };
    auto window = [](std::optional<UtcMicros> from, std::optional<UtcMicros> to, bool created) {
        QueueFilter f;
        (created ? f.createdFrom : f.updatedFrom) = from;
        (created ? f.createdTo : f.updatedTo) = to;
        return f;
    };
    const UtcMicros halfMsAfter20 = odd::fixedMs(20) * 1000 + 500, halfMsAfter21 = odd::fixedMs(21) * 1000 + 500;
    struct Case {
        const char *what;
        QueueRequest req;
        QStringList expected;
    };
    const QVector<Case> cases = {
        {"in flight", request(QueueKind::InFlight), {"record#2"}},
        {"escalated", request(QueueKind::Escalated), {"intent#106"}},
        {"tenant column bolt", request(QueueKind::Succeeded, filter("", "bolt", "")), {"record#40", "record#42"}},
        {"tenant column acme", request(QueueKind::Succeeded, filter("", "acme", "")), {"record#41", "record#43"}},
        {"tenant acme: record column, intent key pattern", request(QueueKind::Unknown, filter("", "acme", "")),
         {"record#10", "record#11", "record#12", "record#13", "record#14", "record#15", "intent#104", "record#50",
          "record#51", "record#52", "record#53", "record#1"}},
        {"the one biz_type", request(QueueKind::Unknown, filter("shop_order", "", "")),
         {"record#10", "record#11", "record#12", "record#13", "record#14", "record#15", "record#50", "record#51",
          "record#52", "record#53", "record#1"}},
        {"another biz_type", request(QueueKind::Failed, filter("other", "", "")), {}},
        {"biz_type and tenant", request(QueueKind::Succeeded, filter("shop_order", "bolt", "")), {"record#40", "record#42"}},
        {"key substring", request(QueueKind::Succeeded, filter("", "", "s:acme:4")),
         {"record#41", "record#42", "record#43", "record#44"}},
        {"key substring is case-sensitive", request(QueueKind::Succeeded, filter("", "", "S:ACME")), {}},
        {"tenant column BOLT", request(QueueKind::Succeeded, filter("", "BOLT", "")), {"record#44"}},
        {"key substring on intents", request(QueueKind::Unknown, filter("", "", "i")),
         {"intent#100", "intent#101", "intent#102", "intent#110"}},
        {"updated window, half a millisecond into both ends", request(QueueKind::Succeeded, window(halfMsAfter20, halfMsAfter21, false)),
         {"record#41", "record#42"}},
        {"created window, half a millisecond into both ends", request(QueueKind::Succeeded, window(halfMsAfter20, halfMsAfter21, true)),
         {"record#41", "record#42"}},
        {"updated from, both tables", request(QueueKind::Unknown, window(at(3), std::nullopt, false)),
         {"record#15", "intent#104", "intent#110", "record#50", "record#51", "record#52", "record#53", "record#1"}},
        {"updated to, both tables", request(QueueKind::Unknown, window(std::nullopt, at(2), false)),
         {"record#10", "record#11", "intent#100"}},
    };
    for (const Case &c : cases) {
        const PagedQueue all = fetchWholeQueue(ws, c.req, 2);
        QVERIFY2(all.error.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(c.what, all.error)));
        QVERIFY2(idTags(all.rows) == c.expected, qPrintable(QStringLiteral("%1: got [%2], expected [%3]")
                                                                .arg(c.what, idTags(all.rows).join(", "), c.expected.join(", "))));
        QString error;
        const qint64 count = countOf(ws, c.req, &error);
        QVERIFY2(count == c.expected.size(),
                 qPrintable(QStringLiteral("%1: count %2, expected %3 %4").arg(c.what).arg(count).arg(c.expected.size()).arg(error)));
    }
    QString error;
    QCOMPARE(countOf(ws, request(QueueKind::Unknown), &error), qint64(unknownRows.size()));
    QCOMPARE(countOf(ws, request(QueueKind::Failed), &error), qint64(13));
    QCOMPARE(countOf(ws, request(QueueKind::Succeeded), &error), qint64(5));

    // The biz_type census (doctor) reads the mapped table too: without a biz_type column the
    // table holds its one biz_type once it has a row.
    const WorkspaceConfig config = odd::config(db);
    auto census = [&](const WorkspaceConfig &c, const QStringList &configured, int limit) {
        return ws.worker(DbRole::Idempotency)
            .run<BizTypeCensus>([c, configured, limit](DbSession &s) {
                return biztype_sql::census(s, c.records(s.dialect().kind()), configured, limit);
            })
            .result();
    };
    const Outcome<BizTypeCensus> one = census(config, {}, 10);
    TRIAGE_VERIFY_OUTCOME(one);
    QCOMPARE(one->bizTypes, QStringList{"shop_order"});
    QVERIFY(one->complete);
    // A mapped biz_type column (the records' tenant column stands in for one): the loose
    // scan over its values, cut at the limit, then the configured ones looked up.
    WorkspaceConfig byTenant = config;
    byTenant.schema.records.bizType = QStringLiteral("tenant");
    byTenant.schema.records.bizTypeValue.clear();
    const Outcome<BizTypeCensus> cut = census(byTenant, {QStringLiteral("bolt"), QStringLiteral("nope")}, 1);
    TRIAGE_VERIFY_OUTCOME(cut);
    QCOMPARE(cut->bizTypes.size(), 1); // the first in the database's order (its collation decides)
    QVERIFY2(cut->bizTypes == QStringList{"acme"} || cut->bizTypes == QStringList{"BOLT"}, qPrintable(cut->bizTypes.join(',')));
    QVERIFY(!cut->complete);
    QCOMPARE(cut->configuredWithRecords, QStringList{"bolt"});
}

// ===================================================================== unknown stored statuses

void TstBackendQueues::unknownStatuses_data()
{
    QTest::addColumn<QString>("backend");
    addBackendRows(true, true);
}

void TstBackendQueues::unknownStatuses()
{
    // DESIGN.md §2, §10: a record whose stored status no spelling matches (the default shape's
    // code 7; the shop shape's text "Weird ", which status_ignore_case does not make known) is
    // in the Unknown queue whatever its age, shows its raw value, is counted, and a mark on it
    // is a compare-and-set on that exact raw value.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    WorkspaceConfig config = db.config();
    BizTypeConfig ticketCreate = config.bizType(QStringLiteral("ticket_create"));
    ticketCreate.failedEvidence = FailedEvidence::TicketAbsent; // stale and no ticket proves absence
    config.bizTypes.insert(QStringLiteral("ticket_create"), ticketCreate);
    Workspace ws(config);
    TRIAGE_OK(setUpSchema(ws));

    const QString odd = db.isShop() ? QStringLiteral("'Weird '") : QStringLiteral("7");
    const QString oddText = db.isShop() ? QStringLiteral("UNKNOWN_CODE_Weird ") : QStringLiteral("UNKNOWN_CODE_7");
    const QString oddStored = db.isShop() ? QStringLiteral("Weird ") : QStringLiteral("7");
    auto rec = [&](const QString &key, const QString &status, qint64 ageS, const QString &biz = QStringLiteral("ticket_create")) {
        RecordSpec r;
        r.key = key;
        r.bizType = biz;
        r.status = status;
        r.updated = serverAgoSeconds(db, ageS);
        r.created = serverAgoSeconds(db, ageS + 5);
        r.expire = serverAgoSeconds(db, -7 * 86400);
        return r;
    };
    TRIAGE_OK(insertRecords(db, {
        rec("u_old", odd, 3600), rec("p_stale", "0", 600), rec("u_other", odd, 100, "other"), rec("m1", "-1", 50),
        rec("u_young", odd, 1), rec("p_young", "0", 10), rec("s", "1", 3000), rec("f", "2", 3000),
    }));

    const QStringList oldest = {"record:u_old", "record:p_stale", "record:u_other", "record:m1", "record:u_young"};
    QStringList newest = oldest;
    std::reverse(newest.begin(), newest.end());
    for (int pageSize : {1, 2, 3, 50}) {
        PagedQueue p = fetchWholeQueue(ws, request(QueueKind::Unknown), pageSize);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(rowTags(p.rows), oldest);
        p = fetchWholeQueue(ws, request(QueueKind::Unknown, {}, true), pageSize);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(rowTags(p.rows), newest);
    }
    const PagedQueue all = fetchWholeQueue(ws, request(QueueKind::Unknown), 50);
    QStringList statuses;
    for (const QueueRow &r : all.rows)
        statuses << r.status;
    QCOMPARE(statuses, (QStringList{oddText, "PROCESSING", oddText, "UNKNOWN_CODE_-1", oddText}));
    QString error;
    QCOMPARE(countOf(ws, request(QueueKind::Unknown), &error), qint64(5));
    QVERIFY2(error.isEmpty(), qPrintable(error));

    QueueFilter other;
    other.bizType = QStringLiteral("other");
    QCOMPARE(queueTags(ws, request(QueueKind::Unknown, other), &error), QStringList{"record:u_other"});
    QCOMPARE(countOf(ws, request(QueueKind::Unknown, other), &error), qint64(1));
    QueueFilter byKey;
    byKey.keySubstring = QStringLiteral("_young");
    QCOMPARE(queueTags(ws, request(QueueKind::Unknown, byKey), &error), QStringList{"record:u_young"});
    QCOMPARE(countOf(ws, request(QueueKind::Unknown, byKey), &error), qint64(1));
    // In no other queue.
    QCOMPARE(queueTags(ws, request(QueueKind::InFlight), &error), QStringList{"record:p_young"});
    QCOMPARE(queueTags(ws, request(QueueKind::Failed), &error), QStringList{"record:f"});
    QCOMPARE(queueTags(ws, request(QueueKind::Succeeded), &error), QStringList{"record:s"});
    QVERIFY2(error.isEmpty(), qPrintable(error));

    // Marking it: the rules refuse a transition from a status the console does not know, and
    // nothing changes.
    const QString table = db.isShop() ? QStringLiteral("idem_requests") : QStringLiteral("idempotency_record");
    const QString statusCol = db.isShop() ? QStringLiteral("state") : QStringLiteral("status");
    const QString keyCol = db.isShop() ? QStringLiteral("request_key") : QStringLiteral("idem_key");
    auto storedStatus = [&]() {
        return db.adminQueryColumn(QStringLiteral("SELECT %1 FROM %2 WHERE %3 = 'u_old'").arg(statusCol, table, keyCol));
    };
    const KeyDetail seen = loadKeyDetail(ws, QStringLiteral("u_old")).result();
    QVERIFY2(seen.record, qPrintable(errorsText(seen)));
    QCOMPARE(seen.record->statusText, oddText);
    QCOMPARE(seen.record->statusStored, std::optional<QString>(oddStored));
    auto mark = [&](const ExpectedState &expect) {
        MarkRequest r;
        r.idemKey = QStringLiteral("u_old");
        r.toStatus = Failed;
        r.reason = QStringLiteral("checked: no ticket exists");
        r.operatorName = QStringLiteral("alice");
        r.expect = expect;
        return markRecord(ws, r).result();
    };
    const auto refused = mark(expectedStateOf(*seen.record));
    TRIAGE_VERIFY_OUTCOME(refused);
    QCOMPARE(markKindName(refused->kind), QStringLiteral("refused"));
    QCOMPARE(refused->message, oddText + QStringLiteral(" → FAILED is not an allowed transition (allowed: "
                                                         "PROCESSING→SUCCESS, PROCESSING→FAILED, FAILED→SUCCESS)"));
    QCOMPARE(storedStatus(), QStringList{oddStored});

    // Someone fixed the stored value since (a spelling of PROCESSING, same updated_at): the
    // operator's view of the raw value no longer holds, so the mark is a conflict.
    const QString fixedSpelling = db.isShop() ? QStringLiteral("'pending'") : QStringLiteral("0");
    TRIAGE_OK(db.adminExec(QStringLiteral("UPDATE %1 SET %2 = %3 WHERE %4 = 'u_old'").arg(table, statusCol, fixedSpelling, keyCol)));
    const auto conflict = mark(expectedStateOf(*seen.record));
    TRIAGE_VERIFY_OUTCOME(conflict);
    QCOMPARE(markKindName(conflict->kind), QStringLiteral("conflict"));
    QCOMPARE(conflict->current->statusText, QStringLiteral("PROCESSING"));
    QCOMPARE(storedStatus(), QStringList{db.isShop() ? QStringLiteral("pending") : QStringLiteral("0")});
    QCOMPARE(countOf(ws, request(QueueKind::Unknown), &error), qint64(5)); // now a stale PROCESSING row

    // The compare-and-set on the value as seen now applies.
    const KeyDetail now = loadKeyDetail(ws, QStringLiteral("u_old")).result();
    QVERIFY2(now.record, qPrintable(errorsText(now)));
    const auto applied = mark(expectedStateOf(*now.record));
    TRIAGE_VERIFY_OUTCOME(applied);
    QVERIFY2(applied->kind == MarkResult::Kind::Applied, qPrintable(applied->message));
    QCOMPARE(storedStatus(), QStringList{db.isShop() ? QStringLiteral("ERROR") : QStringLiteral("2")});
    QCOMPARE(countOf(ws, request(QueueKind::Unknown), &error), qint64(4));
}

QTEST_GUILESS_MAIN(TstBackendQueues)
#include "tst_backend_queues.moc"
