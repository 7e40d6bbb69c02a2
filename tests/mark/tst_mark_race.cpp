// The compare-and-set race: 8 writers (each its own Workspace: own connections and threads) holding
// the state read before the race try the same transition on the same 500 records. Exactly
// one wins per record; everybody else gets a conflict, and the audit trail says so.
// Repeated with a simulated reconciler marking the same records by its own CAS.
#include "BackendTestUtil.h"
#include "MappedShape.h"
#include "MarkTestUtil.h"
#include "Schema.h"
#include "KeyDetail.h"

#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QUrl>
#include <QtConcurrent>

using namespace triage;
using namespace triage::test;

namespace {
constexpr int kRecords = 500;
constexpr int kWriters = 8;
} // namespace

class TestMarkRace : public QObject {
    Q_OBJECT
private slots:
    void race_data();
    void race();
    void raceMapped_data();
    void raceMapped();
};

void TestMarkRace::race_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("withReconciler");
    for (const char *b : {"postgresql", "mysql", "pgbouncer"}) {
        QTest::newRow(qPrintable(QStringLiteral("%1 operators").arg(QLatin1String(b)))) << QString::fromLatin1(b) << false;
        QTest::newRow(qPrintable(QStringLiteral("%1 operators+reconciler").arg(QLatin1String(b)))) << QString::fromLatin1(b) << true;
    }
}

void TestMarkRace::race()
{
    QFETCH(QString, backend);
    QFETCH(bool, withReconciler);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        QVERIFY(initSchema(setup, SchemaOptions{}).result().ok());
    }
    const QString series = dialectOf(backend) == QLatin1String("postgresql")
        ? QStringLiteral("SELECT 'race:' || g, 'ticket_create', 0, now() - interval '1 hour', now() - interval '1 hour', "
                         "now() + interval '7 days' FROM generate_series(1, %1) g").arg(kRecords)
        : QStringLiteral("SELECT CONCAT('race:', seq), 'ticket_create', 0, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, "
                         "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, UTC_TIMESTAMP(6) + INTERVAL 7 DAY FROM seq_1_to_%1").arg(kRecords);
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, updated_at, "
                                         "expire_at) ") + series),
             QString());

    // Every writer holds the state read before the race.
    QVector<MarkRequest> requests;
    {
        Workspace reader(db.config());
        for (int i = 1; i <= kRecords; ++i) {
            const QString key = QStringLiteral("race:%1").arg(i);
            const KeyDetail d = loadKeyDetail(reader, key).result();
            QVERIFY(d.record);
            MarkRequest r;
            r.idemKey = key;
            r.toStatus = Failed;
            r.reason = QStringLiteral("race test: eight operators");
            r.expect = expectedStateOf(*d.record);
            requests.append(r);
        }
    }
    std::vector<std::unique_ptr<Workspace>> writers;
    for (int w = 0; w < kWriters; ++w) {
        WorkspaceConfig c = ticketAbsentConfig(db.config()); // stale and no ticket proves absence (DESIGN.md §6)
        c.operatorName = QStringLiteral("op%1").arg(w);
        writers.push_back(std::make_unique<Workspace>(c));
    }
    QList<QFuture<QVector<Outcome<MarkResult>>>> futures;
    for (auto &w : writers)
        futures << markRecords(*w, requests);

    // The reconciler: its own connection, its own compare-and-set on the same records.
    int reconcilerApplied = 0;
    if (withReconciler) {
        const QString name = QStringLiteral("reconciler");
        {
            QSqlDatabase r = QSqlDatabase::addDatabase(dialectOf(backend) == QLatin1String("postgresql") ? QStringLiteral("QPSQL")
                                                                                             : QStringLiteral("QMYSQL"),
                                                       name);
            // The reconciler is another agent with its own direct connection (and its own
            // prepared statement); only the console's connections go through the pooler.
            const QUrl u(backend == QLatin1String("pgbouncer") ? qEnvironmentVariable("TRIAGE_TEST_PG_URL") : db.url());
            r.setHostName(u.host());
            r.setPort(u.port());
            r.setUserName(u.userName());
            r.setPassword(qEnvironmentVariable(dialectOf(backend) == QLatin1String("postgresql") ? "TRIAGE_TEST_PG_PASSWORD"
                                                                                      : "TRIAGE_TEST_MYSQL_PASSWORD"));
            r.setDatabaseName(db.databaseName());
            if (dialectOf(backend) == QLatin1String("mysql"))
                r.setConnectOptions(QStringLiteral("CLIENT_FOUND_ROWS=1"));
            QVERIFY2(r.open(), qPrintable(r.lastError().text()));
            for (const MarkRequest &req : requests) {
                QSqlQuery q(r);
                q.prepare(dialectOf(backend) == QLatin1String("postgresql")
                              ? QStringLiteral("UPDATE idempotency_record SET status = 1, result_snapshot = '{\"by\":\"reconciler\"}', "
                                               "updated_at = clock_timestamp() WHERE idem_key = :k AND status = 0 AND "
                                               "updated_at = CAST(:u AS timestamptz)")
                              : QStringLiteral("UPDATE idempotency_record SET status = 1, result_snapshot = '{\"by\":\"reconciler\"}', "
                                               "updated_at = UTC_TIMESTAMP(6) WHERE idem_key = :k AND status = 0 AND "
                                               "updated_at = CAST(:u AS DATETIME(6))"));
                q.bindValue(QStringLiteral(":k"), req.idemKey);
                QString u = formatUtcMicros(*req.expect->updatedAt);
                if (dialectOf(backend) == QLatin1String("mysql"))
                    u = u.left(10) + QLatin1Char(' ') + u.mid(11, 15);
                q.bindValue(QStringLiteral(":u"), u);
                QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
                reconcilerApplied += q.numRowsAffected();
            }
            r.close();
        }
        QSqlDatabase::removeDatabase(name);
    }

    int applied = 0, conflicts = 0, other = 0;
    QHash<QString, int> appliedPerKey;
    for (auto &f : futures) {
        for (const Outcome<MarkResult> &o : f.result()) {
            if (!o.ok()) {
                ++other;
                qWarning() << o.error->message;
                continue;
            }
            if (o->kind == MarkResult::Kind::Applied) {
                ++applied;
                ++appliedPerKey[o->idemKey];
            } else if (o->kind == MarkResult::Kind::Conflict) {
                ++conflicts;
            } else {
                ++other;
                qWarning() << markKindName(o->kind) << o->message;
            }
        }
    }
    QCOMPARE(other, 0);
    QCOMPARE(applied + reconcilerApplied, kRecords);
    QCOMPARE(applied + conflicts, kRecords * kWriters);
    for (auto it = appliedPerKey.cbegin(); it != appliedPerKey.cend(); ++it)
        QCOMPARE(it.value(), 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")),
             QStringList{QString::number(applied)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")),
             QStringList{QString::number(conflicts)});
    // No record changed twice: each key has at most one applied row, and the statuses add up.
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM (SELECT idem_key FROM triage_audit WHERE outcome = "
                                                "'applied' GROUP BY idem_key HAVING COUNT(*) > 1) t")),
             QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 2")),
             QStringList{QString::number(applied)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE status = 1")),
             QStringList{QString::number(reconcilerApplied)});
    if (!withReconciler) {
        QCOMPARE(applied, kRecords);
        QCOMPARE(conflicts, kRecords * (kWriters - 1));
    }
    if (backend == QLatin1String("pgbouncer")) {
        // The eight writers really ran on several server connections behind the pooler
        // (they stay in its pool, idle, after use).
        QString error;
        const QHash<QString, int> servers = poolerServerStates(db.databaseName(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        int total = 0;
        for (int n : servers)
            total += n;
        QVERIFY2(total > 1, qPrintable(QStringLiteral("%1 server connection(s) for %2").arg(total).arg(db.databaseName())));
    }
}

void TestMarkRace::raceMapped_data()
{
    QTest::addColumn<QString>("backend");
    for (const char *b : {"postgresql", "mysql", "pgbouncer"})
        QTest::newRow(b) << QString::fromLatin1(b);
}

void TestMarkRace::raceMapped()
{
    // The same race on a record table of another shape (DESIGN.md §10): text statuses in
    // two stored spellings of PROCESSING ("pending ", "Pending"; status_ignore_case),
    // epoch-millisecond times, no version column. Exactly one writer wins per record and
    // writes "ERROR", the first FAILED spelling.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    {
        Workspace setup(db.config());
        QVERIFY(initSchema(setup, SchemaOptions{}).result().ok());
    }
    TRIAGE_OK(createMappedTables(db));
    const QString series = dialectOf(backend) == QLatin1String("postgresql")
        ? QStringLiteral("SELECT 'race:' || g, 'ticket_create', CASE WHEN g % 2 = 0 THEN 'pending ' ELSE 'Pending' END, "
                         "%2 + g, %2 + g FROM generate_series(1, %1) g")
              .arg(kRecords)
              .arg(kMappedMs)
        : QStringLiteral("SELECT CONCAT('race:', seq), 'ticket_create', CASE WHEN seq % 2 = 0 THEN 'pending ' ELSE 'Pending' END, "
                         "%2 + seq, %2 + seq FROM seq_1_to_%1")
              .arg(kRecords)
              .arg(kMappedMs);
    TRIAGE_ADMIN(db, QStringLiteral("INSERT INTO idem_req (rkey, kind, state, created_ms, updated_ms) ") + series);

    QVector<MarkRequest> requests;
    {
        Workspace reader(mappedConfig(db.config()));
        for (int i = 1; i <= kRecords; ++i) {
            const QString key = QStringLiteral("race:%1").arg(i);
            const KeyDetail d = loadKeyDetail(reader, key).result();
            QVERIFY2(d.record, qPrintable(key));
            QCOMPARE(d.record->statusStored, NullableText(i % 2 == 0 ? QStringLiteral("pending ") : QStringLiteral("Pending")));
            MarkRequest r;
            r.idemKey = key;
            r.toStatus = Failed;
            r.reason = QStringLiteral("race test: eight operators");
            r.expect = expectedStateOf(*d.record);
            requests.append(r);
        }
    }
    std::vector<std::unique_ptr<Workspace>> writers;
    for (int w = 0; w < kWriters; ++w) {
        WorkspaceConfig c = mappedConfig(ticketAbsentConfig(db.config()));
        c.operatorName = QStringLiteral("op%1").arg(w);
        writers.push_back(std::make_unique<Workspace>(c));
    }
    QList<QFuture<QVector<Outcome<MarkResult>>>> futures;
    for (auto &w : writers)
        futures << markRecords(*w, requests);
    int applied = 0, conflicts = 0, other = 0;
    QHash<QString, int> appliedPerKey;
    for (auto &f : futures) {
        for (const Outcome<MarkResult> &o : f.result()) {
            if (!o.ok()) {
                ++other;
                qWarning() << o.error->message;
            } else if (o->kind == MarkResult::Kind::Applied) {
                ++applied;
                ++appliedPerKey[o->idemKey];
            } else if (o->kind == MarkResult::Kind::Conflict) {
                ++conflicts;
            } else {
                ++other;
                qWarning() << markKindName(o->kind) << o->message;
            }
        }
    }
    QCOMPARE(other, 0);
    QCOMPARE(applied, kRecords);
    QCOMPARE(conflicts, kRecords * (kWriters - 1));
    QCOMPARE(appliedPerKey.size(), kRecords);
    for (auto it = appliedPerKey.cbegin(); it != appliedPerKey.cend(); ++it)
        QCOMPARE(it.value(), 1);
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idem_req WHERE state = 'ERROR'")),
             QStringList{QString::number(kRecords)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idem_req WHERE updated_ms <= created_ms")),
             QStringList{QStringLiteral("0")});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'applied'")),
             QStringList{QString::number(kRecords)});
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE outcome = 'conflict'")),
             QStringList{QString::number(kRecords * (kWriters - 1))});
}

QTEST_GUILESS_MAIN(TestMarkRace)
#include "tst_mark_race.moc"
