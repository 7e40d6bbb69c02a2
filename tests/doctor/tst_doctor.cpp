// `doctor`: the indexes the queues need are found on a fresh schema, and a
// dropped one is reported with the statement that fixes it, on every backend.
#include "TestDatabases.h"
#include "Schema.h"

#include "BackendTestUtil.h"
#include "BizTypeCheck.h"
#include "Queue.h"
#include "Doctor.h"
#include "ServerTime.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

class TestDoctor : public QObject {
    Q_OBJECT
private slots:
    void droppedIndex_data() { QTest::addColumn<QString>("backend"); addBackendRows(); }
    void droppedIndex();
    void censusExactSpellings_data() { QTest::addColumn<QString>("backend"); addBackendRows(); }
    void censusExactSpellings();
};

void TestDoctor::droppedIndex()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    auto inspect = [&](DbRole role) {
        const auto o = inspectIndexes(ws, role).result();
        if (!o.ok())
            qFatal("%s", qPrintable(o.error->message));
        return *o;
    };
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        for (const IndexFinding &f : inspect(role))
            QVERIFY2(f.present, qPrintable(f.need.table + QLatin1Char(' ') + f.need.columns.join(QLatin1Char(','))));
    const QString drop = backend == QLatin1String("mysql")
        ? QStringLiteral("DROP INDEX idx_idempotency_record_status_updated ON idempotency_record")
        : QStringLiteral("DROP INDEX idx_idempotency_record_status_updated");
    QCOMPARE(db.adminExec(drop), QString());
    const QVector<IndexFinding> after = inspect(DbRole::Idempotency);
    QCOMPARE(after.size(), 5);
    QCOMPARE(after[0].need.columns, (QStringList{QStringLiteral("status"), QStringLiteral("updated_at"), QStringLiteral("id")}));
    QCOMPARE(after[0].present, false);
    // PostgreSQL: CONCURRENTLY, so the DBA's fix does not block the agents' writes (DESIGN.md §10).
    const QString create = dialectOf(backend) == QLatin1String("postgresql") ? QStringLiteral("CREATE INDEX CONCURRENTLY")
                                                                              : QStringLiteral("CREATE INDEX");
    QCOMPARE(after[0].fix, create + QStringLiteral(" idx_idempotency_record_status_updated ON idempotency_record "
                                                   "(status, updated_at, id)"));
    // The fix restores exactly what init-schema creates.
    QCOMPARE(db.adminExec(after[0].fix), QString());
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    QCOMPARE(inspect(DbRole::Idempotency)[0].satisfiedBy, QStringLiteral("idx_idempotency_record_status_updated"));
    QCOMPARE(after[1].present, true); // idem_key: the UNIQUE index
    QCOMPARE(after[2].present, true); // triage_audit(idem_key, …)
    // The incident window's streams (DESIGN.md §7): records by (created_at, id), (updated_at, id).
    QCOMPARE(after[3].need.columns, QStringList{QStringLiteral("created_at")});
    QCOMPARE(after[3].satisfiedBy, QStringLiteral("idx_idempotency_record_created"));
    QCOMPARE(after[4].need.columns, QStringList{QStringLiteral("updated_at")});
    QCOMPARE(after[4].satisfiedBy, QStringLiteral("idx_idempotency_record_updated"));

    // The Duplicate keys queue's creation-time index on the ticket store.
    const QString dropCreated = backend == QLatin1String("mysql") ? QStringLiteral("DROP INDEX idx_ticket_created ON ticket")
                                                                  : QStringLiteral("DROP INDEX idx_ticket_created");
    QCOMPARE(db.adminExec(dropCreated), QString());
    const QVector<IndexFinding> tickets = inspect(DbRole::Ticket);
    QCOMPARE(tickets.size(), 2);
    QCOMPARE(tickets[0].present, true);
    QCOMPARE(tickets[1].present, false);
    QCOMPARE(tickets[1].fix, create + QStringLiteral(" idx_ticket_created ON ticket (created_at, id)"));
}

void TestDoctor::censusExactSpellings()
{
    // The biz_type census keeps biz_types that differ only in case or trailing spaces apart on
    // every backend: on MariaDB a case-insensitive PAD SPACE collation makes 'Ticket',
    // 'ticket', 'TICKET' and 'ticket ' one value for its seek, and each is still listed.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    Workspace ws(db.config());
    QVERIFY(initSchema(ws, SchemaOptions{}).result().ok());
    const bool my = db.dialect() == QLatin1String("mysql");
    if (my) // the users' usual collation, whatever the test server's default
        QCOMPARE(db.adminExec(QStringLiteral("ALTER TABLE idempotency_record MODIFY biz_type VARCHAR(32) CHARACTER SET utf8mb4 "
                                             "COLLATE utf8mb4_general_ci NOT NULL")),
                 QString());
    int n = 0;
    for (const char *biz : {"ticket", "Ticket", "payment", "TICKET", "ticket ", "Ticket", "zeta"})
        QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                             "expire_at) VALUES ('census-%1', '%2', 0, %3, %3, %3)")
                                  .arg(++n)
                                  .arg(QLatin1String(biz), serverNowMinus(backend, 60))),
                 QString());
    if (my) // the collation merges them (what the census must not do)
        QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(DISTINCT biz_type) FROM idempotency_record")),
                 QStringList{QStringLiteral("3")});
    auto census = [&](const QStringList &configured, int limit) {
        const auto o = ws.worker(DbRole::Idempotency)
                           .run<BizTypeCensus>([configured, limit, config = db.config()](DbSession &s) {
                               return biztype_sql::census(s, config.records(s.dialect().kind()), configured, limit);
                           })
                           .result();
        if (!o.ok())
            qFatal("%s", qPrintable(o.error->message));
        return *o;
    };
    const BizTypeCensus all = census({}, 100);
    QVERIFY(all.complete);
    const QStringList spellings{QStringLiteral("TICKET"), QStringLiteral("Ticket"), QStringLiteral("payment"), QStringLiteral("ticket"),
                                QStringLiteral("ticket "), QStringLiteral("zeta")};
    if (my) {
        // The collation's order between groups, byte order within one.
        QCOMPARE(all.bizTypes, (QStringList{QStringLiteral("payment"), QStringLiteral("TICKET"), QStringLiteral("Ticket"),
                                            QStringLiteral("ticket"), QStringLiteral("ticket "), QStringLiteral("zeta")}));
        // Cut at the limit inside a group; the configured ones looked up exactly.
        const BizTypeCensus cut = census({QStringLiteral("ticket "), QStringLiteral("TickeT"), QStringLiteral("zeta")}, 3);
        QCOMPARE(cut.bizTypes, (QStringList{QStringLiteral("payment"), QStringLiteral("TICKET"), QStringLiteral("Ticket")}));
        QVERIFY(!cut.complete);
        QCOMPARE(cut.configuredWithRecords, (QStringList{QStringLiteral("ticket "), QStringLiteral("zeta")}));
    } else {
        QStringList sorted = all.bizTypes; // the database's collation decides the order
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, spellings);
    }
    // The queues' biz_type filter is exact as well (every record is 60 s old: in flight).
    for (const auto &[biz, count] : {std::pair{"Ticket", 2}, std::pair{"ticket", 1}, std::pair{"ticket ", 1}, std::pair{"TICKET", 1}}) {
        QueueRequest req;
        req.kind = QueueKind::InFlight;
        req.filter.bizType = QString::fromLatin1(biz);
        QString error;
        QCOMPARE(countOf(ws, req, &error), qint64(count));
        QCOMPARE(error, QString());
    }
}

QTEST_GUILESS_MAIN(TestDoctor)
#include "tst_doctor.moc"
