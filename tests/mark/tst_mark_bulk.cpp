// Bulk marks in batches (DESIGN.md §9 "Bulk marks", mark_sql::applyBatch()): a batch decides,
// words and audits every record exactly as a mark alone does; 8 racing bulk runs over the same
// 10,000 records apply each record exactly once with exact conflict counts; a connection
// killed mid-batch applies nothing half and the retried batch applies each record once; a lost
// COMMIT is verified by request id; SUCCESS snapshots go into a jsonb column.
#include "BackendTestUtil.h"
#include "MarkTestUtil.h"

#include "KeyDetailBulk.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QUrl>

#include <memory>

using namespace triage;
using namespace triage::test;

namespace {

const QString kFixedTime = QStringLiteral("2026-12-01T10:00:00.000000Z"); // stale for every biz_type

/// `text` with every ISO UTC time as "<time>" and `prefix` as "KEY:" (two key sets compared).
QString masked(QString text, const QString &prefix)
{
    static const QRegularExpression iso(QStringLiteral("\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z?"));
    return text.replace(iso, QStringLiteral("<time>")).replace(prefix, QStringLiteral("KEY:"));
}

QString line(const Outcome<MarkResult> &o, const QString &prefix)
{
    if (!o.ok())
        return QStringLiteral("error | ") + o.error->message;
    return markKindName(o->kind) + QStringLiteral(" | ") + masked(o->message, prefix);
}

/// The audit rows of the keys starting with `prefix`, by key then id, masked.
QStringList auditLines(const TestDatabase &db, const QString &prefix)
{
    const QString cols = db.dialect() == QLatin1String("mysql")
        ? QStringLiteral("CONCAT_WS(' | ', idem_key, action, outcome, from_state, COALESCE(to_state, '-'), reason, evidence, detail)")
        : QStringLiteral("idem_key || ' | ' || action || ' | ' || outcome || ' | ' || from_state || ' | ' || COALESCE(to_state, '-') "
                         "|| ' | ' || reason || ' | ' || evidence || ' | ' || detail");
    QStringList out;
    for (const QString &l : db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit WHERE idem_key LIKE '%2%%' ORDER BY idem_key, id")
                                                    .arg(cols, prefix)))
        out << masked(l, prefix);
    return out;
}

RecordSpec record(const TestDatabase &db, const QString &key, const QString &status)
{
    RecordSpec r;
    r.key = key;
    r.status = status;
    r.updated = timeLiteral(db, kFixedTime);
    return r;
}

/// A connection of the test's own (not the console's), for holding locks and killing sessions.
QSqlDatabase openOwn(const TestDatabase &db, const QString &name)
{
    const bool pg = db.dialect() == QLatin1String("postgresql");
    QSqlDatabase c = QSqlDatabase::addDatabase(pg ? QStringLiteral("QPSQL") : QStringLiteral("QMYSQL"), name);
    const QUrl u(db.url());
    c.setHostName(u.host());
    c.setPort(u.port());
    c.setUserName(u.userName());
    c.setPassword(qEnvironmentVariable(pg ? "TRIAGE_TEST_PG_PASSWORD" : "TRIAGE_TEST_MYSQL_PASSWORD"));
    c.setDatabaseName(db.databaseName());
    c.open();
    return c;
}

QVector<MarkRequest> failedMarks(const QString &prefix, int n, const QString &reason)
{
    QVector<MarkRequest> v;
    for (int i = 1; i <= n; ++i) {
        MarkRequest r = request(QStringLiteral("%1%2").arg(prefix).arg(i, 5, 10, QLatin1Char('0')), Failed, reason);
        r.expect = ExpectedState{Processing, parseUtcMicros(kFixedTime), std::nullopt};
        v << r;
    }
    return v;
}

QString insertSeries(const TestDatabase &db, const QString &prefix, int n)
{
    QVector<RecordSpec> rows;
    for (int i = 1; i <= n; ++i)
        rows << record(db, QStringLiteral("%1%2").arg(prefix).arg(i, 5, 10, QLatin1Char('0')), QStringLiteral("0"));
    return insertRecords(db, rows);
}

} // namespace

class TestMarkBulk : public QObject {
    Q_OBJECT
private slots:
    void batchEqualsAlone_data();
    void batchEqualsAlone();
    void race_data();
    void race();
    void killedMidBatch_data();
    void killedMidBatch();
    void lostCommitPostgres();
    void snapshotIntoJsonb();
};

void TestMarkBulk::batchEqualsAlone_data()
{
    QTest::addColumn<QString>("backend");
    for (const char *b : {"sqlite", "postgresql", "mysql"})
        QTest::newRow(b) << QString::fromLatin1(b);
}

void TestMarkBulk::batchEqualsAlone()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws));
    QVector<RecordSpec> rows;
    for (const QString p : {QStringLiteral("one:"), QStringLiteral("bulk:")})
        rows << record(db, p + QStringLiteral("ok"), QStringLiteral("0")) << record(db, p + QStringLiteral("expect"), QStringLiteral("0"))
             << record(db, p + QStringLiteral("final"), QStringLiteral("1")) << record(db, p + QStringLiteral("twice"), QStringLiteral("0"))
             << record(db, p + QStringLiteral("unknown"), QStringLiteral("7"));
    TRIAGE_OK(insertRecords(db, rows));
    auto marks = [](const QString &p) {
        QVector<MarkRequest> v;
        v << request(p + QStringLiteral("ok"), Failed);
        MarkRequest e = request(p + QStringLiteral("expect"), Failed);
        e.expect = ExpectedState{Processing, parseUtcMicros(QStringLiteral("2020-01-01T00:00:00.000000Z")), std::nullopt};
        v << e << request(p + QStringLiteral("final"), Failed) << request(p + QStringLiteral("missing"), Failed)
          << request(p + QStringLiteral("twice"), Failed) << request(p + QStringLiteral("twice"), Failed)
          << request(p + QStringLiteral("unknown"), Failed) << request(p + QStringLiteral("short"), Failed, QStringLiteral("short"));
        for (MarkRequest &r : v) {
            r.bulk = true; // as markRecords() marks them
            if (r.idemKey.endsWith(QLatin1String("twice"))) // both from the state read before: the second loses
                r.expect = ExpectedState{Processing, parseUtcMicros(kFixedTime), std::nullopt};
        }
        return v;
    };
    QStringList alone, batch;
    for (const MarkRequest &r : marks(QStringLiteral("one:")))
        alone << line(markRecord(ws, r).result(), QStringLiteral("one:"));
    for (const auto &o : markRecords(ws, marks(QStringLiteral("bulk:"))).result())
        batch << line(o, QStringLiteral("bulk:"));
    QCOMPARE(batch, alone);
    QStringList kinds;
    for (const QString &l : batch)
        kinds << l.section(QStringLiteral(" | "), 0, 0);
    QCOMPARE(kinds, (QStringList{QStringLiteral("applied"), QStringLiteral("conflict"), QStringLiteral("refused"), QStringLiteral("refused"),
                                 QStringLiteral("applied"), QStringLiteral("conflict"), QStringLiteral("refused"), QStringLiteral("refused")}));
    QCOMPARE(batch.value(1), QStringLiteral("conflict | compare-and-set matched no row: the record is not in the state given (it changed "
                                            "since it was read, or the expected state was wrong); now PROCESSING, updated_at <time> (no "
                                            "operator action is recorded for it: if it changed, the agent or the reconciler did)"));
    QCOMPARE(batch.value(5), QStringLiteral("conflict | compare-and-set matched no row: the record is not in the state given (it changed "
                                            "since it was read, or the expected state was wrong); now FAILED, updated_at <time> (last "
                                            "changed by alice at <time>: verified in upstream console)"));
    // The same audit rows, row for row (a short reason on a key without a record is still audited).
    const QStringList aloneAudit = auditLines(db, QStringLiteral("one:"));
    QCOMPARE(aloneAudit.size(), 8);
    QCOMPARE(auditLines(db, QStringLiteral("bulk:")), aloneAudit);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT status FROM idempotency_record WHERE idem_key LIKE 'bulk:%' ORDER BY idem_key")),
             (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("2"), QStringLiteral("7")}));
}

void TestMarkBulk::race_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

void TestMarkBulk::race()
{
    // 8 operators, each its own Workspace (own connections, 20 batches over 5 of them), mark
    // the same 10,000 records from the same expected state at once.
    constexpr int kRecords = 10000;
    constexpr int kRuns = 8;
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        TRIAGE_OK(setUpSchema(setup));
    }
    TRIAGE_OK(insertSeries(db, QStringLiteral("race:"), kRecords));
    const QVector<MarkRequest> marks = failedMarks(QStringLiteral("race:"), kRecords, QStringLiteral("bulk race: eight operators"));
    std::vector<std::unique_ptr<Workspace>> runs;
    for (int w = 0; w < kRuns; ++w) {
        WorkspaceConfig c = ticketAbsentConfig(db.config());
        c.operatorName = QStringLiteral("op%1").arg(w);
        runs.push_back(std::make_unique<Workspace>(c));
    }
    QList<QFuture<QVector<Outcome<MarkResult>>>> futures;
    for (auto &w : runs)
        futures << markRecords(*w, marks);
    int applied = 0, conflicts = 0;
    QStringList other;
    QHash<QString, int> appliedPerKey;
    for (auto &f : futures) {
        const QVector<Outcome<MarkResult>> results = await(f);
        QCOMPARE(results.size(), kRecords);
        for (const Outcome<MarkResult> &o : results) {
            if (o.ok() && o->kind == MarkResult::Kind::Applied) {
                ++applied;
                ++appliedPerKey[o->idemKey];
            } else if (o.ok() && o->kind == MarkResult::Kind::Conflict) {
                ++conflicts;
            } else if (other.size() < 5) {
                other << (o.ok() ? markKindName(o->kind) + QStringLiteral(": ") + o->message : o.error->message);
            }
        }
    }
    QCOMPARE(other, QStringList());
    QCOMPARE(applied, kRecords);
    QCOMPARE(conflicts, kRecords * (kRuns - 1));
    QCOMPARE(appliedPerKey.size(), kRecords);
    for (auto it = appliedPerKey.cbegin(); it != appliedPerKey.cend(); ++it)
        QCOMPARE(it.value(), 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT outcome, COUNT(*) FROM triage_audit GROUP BY outcome ORDER BY outcome")),
             (QStringList{QStringLiteral("applied"), QStringLiteral("conflict")}));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), kRecords);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")), kRecords * (kRuns - 1));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(DISTINCT idem_key) FROM triage_audit WHERE outcome = 'applied'")), kRecords);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 2")), kRecords);
    // Each key's conflicts name the operator whose mark won.
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit c JOIN triage_audit a ON a.idem_key = c.idem_key AND "
                                      "a.outcome = 'applied' WHERE c.outcome = 'conflict' AND c.detail NOT LIKE "
                                      "CONCAT('%last changed by ', a.operator, ' at %')")),
             0);
}

void TestMarkBulk::killedMidBatch_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
    QTest::newRow("mysql") << QStringLiteral("mysql");
}

void TestMarkBulk::killedMidBatch()
{
    // The batch's connection is killed while its locking read waits behind a row the test holds:
    // nothing of the batch is applied then; the worker re-opens and runs the batch again, which
    // applies every record exactly once.
    constexpr int kRecords = 400;
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertSeries(db, QStringLiteral("kill:"), kRecords));
    const bool pg = db.dialect() == QLatin1String("postgresql");
    const QString holderName = QStringLiteral("holder");
    {
        QSqlDatabase holder = openOwn(db, holderName);
        QVERIFY2(holder.isOpen(), qPrintable(holder.lastError().text()));
        QVERIFY(holder.transaction());
        // A failed check returns early: closing the connection releases the lock then too (else
        // dropping the database would wait for it).
        const std::unique_ptr<QSqlDatabase, void (*)(QSqlDatabase *)> release(&holder, [](QSqlDatabase *h) { h->close(); });
        QSqlQuery lock(holder);
        QVERIFY2(lock.exec(QStringLiteral("SELECT idem_key FROM idempotency_record WHERE idem_key = 'kill:00200' FOR UPDATE")),
                 qPrintable(lock.lastError().text()));
        QSqlQuery own(holder);
        QVERIFY(own.exec(pg ? QStringLiteral("SELECT pg_backend_pid()") : QStringLiteral("SELECT CONNECTION_ID()")) && own.next());
        const QString holderId = own.value(0).toString();
        auto future = markRecords(ws, failedMarks(QStringLiteral("kill:"), kRecords, QStringLiteral("killed mid-batch test")));
        // The batch's backend waiting for the lock: kill it (once). Never the holder: the server
        // may show the holder's finished FOR UPDATE for a moment (MariaDB's processlist), and
        // killing it would release the lock instead.
        const QString waiting = pg ? QStringLiteral("SELECT pid FROM pg_stat_activity WHERE datname = '%1' AND wait_event_type = 'Lock' "
                                                    "AND pid <> %2")
                                         .arg(db.databaseName(), holderId)
                                   : QStringLiteral("SELECT id FROM information_schema.processlist WHERE db = '%1' AND info LIKE "
                                                    "'%FOR UPDATE' AND id <> CONNECTION_ID() AND id <> %2")
                                         .arg(db.databaseName(), holderId);
        QStringList victims;
        QVERIFY(QTest::qWaitFor([&] { return !(victims = db.adminQueryColumn(waiting)).isEmpty(); }, 60000));
        QCOMPARE(victims.size(), 1);
        QCOMPARE(db.adminExec(pg ? QStringLiteral("SELECT pg_terminate_backend(%1)").arg(victims.first())
                                 : QStringLiteral("KILL %1").arg(victims.first())),
                 QString());
        // The killed transaction applied nothing; the re-run now waits behind the same lock.
        const bool rerun = QTest::qWaitFor([&] {
            const QStringList again = db.adminQueryColumn(waiting);
            return !again.isEmpty() && again != victims;
        }, 60000);
        QVERIFY(rerun);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status <> 0")), 0);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 0);
        holder.rollback();
        const QVector<Outcome<MarkResult>> results = await(future);
        QCOMPARE(results.size(), kRecords);
        QStringList notApplied;
        for (const auto &o : results)
            if (!o.ok() || o->kind != MarkResult::Kind::Applied)
                notApplied << (o.ok() ? o->message : o.error->message);
        QCOMPARE(notApplied, QStringList());
    }
    QSqlDatabase::removeDatabase(holderName);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), kRecords);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), kRecords);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 2")), kRecords);
}

void TestMarkBulk::lostCommitPostgres()
{
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(ticketAbsentConfig(db.config()));
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(insertSeries(db, QStringLiteral("lost:"), 3));
    // A deferred constraint trigger kills its own backend at COMMIT: the reply never arrives.
    TRIAGE_OK(db.adminExec(QStringLiteral("CREATE FUNCTION die_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                                          "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$")));
    TRIAGE_OK(db.adminExec(QStringLiteral("CREATE CONSTRAINT TRIGGER die AFTER INSERT ON triage_audit DEFERRABLE INITIALLY "
                                          "DEFERRED FOR EACH ROW WHEN (NEW.outcome = 'applied') EXECUTE FUNCTION die_at_commit()")));
    const auto lost = markRecords(ws, failedMarks(QStringLiteral("lost:"), 3, QStringLiteral("lost commit test"))).result();
    QCOMPARE(lost.size(), 3);
    for (const auto &o : lost) {
        QVERIFY(o.ok());
        QCOMPARE(markKindName(o->kind), QStringLiteral("error"));
        QVERIFY2(o->message.startsWith(QStringLiteral("not applied: the COMMIT failed (")), qPrintable(o->message));
        QVERIFY2(o->message.endsWith(QStringLiteral("); verified after reconnecting that no change was recorded")), qPrintable(o->message));
    }
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit")), 0);
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status <> 0")), 0);
    TRIAGE_OK(db.adminExec(QStringLiteral("DROP TRIGGER die ON triage_audit")));
    const auto again = markRecords(ws, failedMarks(QStringLiteral("lost:"), 3, QStringLiteral("lost commit test"))).result();
    for (const auto &o : again)
        QCOMPARE(o.ok() ? markKindName(o->kind) : o.error->message, QStringLiteral("applied"));
    QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")), 3);
}

void TestMarkBulk::snapshotIntoJsonb()
{
    // Each record's own snapshot, into a jsonb column (the batch's CASE is cast to the column's type).
    TestDatabase db(QStringLiteral("postgresql"));
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    TRIAGE_OK(setUpSchema(ws));
    TRIAGE_OK(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record ALTER COLUMN result_snapshot TYPE jsonb USING result_snapshot::jsonb")));
    QVector<MarkRequest> marks;
    for (int i = 1; i <= 3; ++i) {
        const QString key = QStringLiteral("snap:%1").arg(i);
        const QString payload = QStringLiteral("{\"ticket_id\":%1,\"status\":\"OPEN\"}").arg(40 + i);
        TRIAGE_OK(insertRecords(db, {record(db, key, QStringLiteral("0"))}));
        TRIAGE_OK(insertTicket(db, 40 + i, key, payload));
        MarkRequest r = request(key, Success);
        r.snapshot = payload;
        r.snapshotSource = QStringLiteral("ticket:%1").arg(40 + i);
        marks << r;
    }
    marks << request(QStringLiteral("snap:9"), Failed); // no record: refused in the same batch
    const auto results = markRecords(ws, marks).result();
    QStringList kinds;
    for (const auto &o : results)
        kinds << (o.ok() ? markKindName(o->kind) : o.error->message);
    QCOMPARE(kinds, (QStringList{QStringLiteral("applied"), QStringLiteral("applied"), QStringLiteral("applied"), QStringLiteral("refused")}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key || '=' || (result_snapshot->>'ticket_id') FROM idempotency_record ORDER BY idem_key")),
             (QStringList{QStringLiteral("snap:1=41"), QStringLiteral("snap:2=42"), QStringLiteral("snap:3=43")}));
}

QTEST_GUILESS_MAIN(TestMarkBulk)
#include "tst_mark_bulk.moc"
