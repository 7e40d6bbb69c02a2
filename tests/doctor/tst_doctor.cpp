// `doctor`: the indexes the queues need are found on a fresh schema, and a
// dropped one is reported with the statement that fixes it, on every backend.
#include "TestDatabases.h"
#include "Schema.h"

#include "Doctor.h"
#include "Workspace.h"

#include <QTest>

using namespace triage;
using namespace triage::test;

class TestDoctor : public QObject {
    Q_OBJECT
private slots:
    void droppedIndex_data() { QTest::addColumn<QString>("backend"); addBackendRows(); }
    void droppedIndex();
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

QTEST_GUILESS_MAIN(TestDoctor)
#include "tst_doctor.moc"
