// The detail models (RecordFieldsModel, TicketsModel, AttemptsModel, TimelineModel) over
// KeyDetail read from demo-seeded databases, compared with what the tables hold.

#include "AttemptsModel.h"
#include "BusinessIdTestUtil.h"
#include "Audit.h"
#include "AuditModel.h"
#include "ModelTestUtil.h"
#include "RecordFieldsModel.h"
#include "StatusTone.h"
#include "TicketsModel.h"
#include "TimelineModel.h"
#include "KeyDetail.h"
#include "Queue.h"
#include "DemoWorkspace.h"

#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include <QTest>

using namespace triage;
using namespace triage::test;

class TestDetailModels : public QObject {
    Q_OBJECT
private:
    struct Seeded {
        std::unique_ptr<TestDatabase> db;
        std::unique_ptr<Workspace> ws;
    };
    /// A demo-seeded database of `backend` (created once per backend for all tests).
    Seeded *seeded(const QString &backend)
    {
        auto &s = m_seeded[backend];
        if (!s.db) {
            s.db = std::make_unique<TestDatabase>(backend);
            if (!s.db->available())
                return &s;
            s.ws = std::make_unique<Workspace>(demoConfig(*s.db));
            const QString e = seedDemo(*s.ws);
            if (!e.isEmpty()) {
                qWarning("seeding %s failed: %s", qPrintable(backend), qPrintable(e));
                s.ws.reset();
            }
        }
        return &s;
    }
    static QString one(const TestDatabase &db, const QString &sql)
    {
        QString error;
        const QStringList rows = db.adminQueryColumn(sql, &error);
        if (!error.isEmpty())
            qWarning("%s: %s", qPrintable(sql), qPrintable(error));
        return rows.value(0);
    }
    static QString cell(const QAbstractItemModel &m, int row, int column, int role = Qt::DisplayRole)
    {
        return m.index(row, column).data(role).toString();
    }

    std::map<QString, Seeded> m_seeded;

private slots:
    void cleanupTestCase()
    {
        for (auto &[name, s] : m_seeded) {
            s.ws.reset();
            s.db.reset();
        }
    }

    void recordFields_data()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows();
    }
    void recordFields()
    {
        QFETCH(QString, backend);
        Seeded *s = seeded(backend);
        TRIAGE_REQUIRE_BACKEND(*s->db);
        QVERIFY(s->ws);
        // The record with a status code the console does not know.
        const QString key = one(*s->db, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 7"));
        QVERIFY(!key.isEmpty());
        const KeyDetail d = awaitResult(loadKeyDetail(*s->ws, key));
        QVERIFY(d.errors.isEmpty());
        QVERIFY(d.record);

        RecordFieldsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRecord(d.record);
        const QStringList columns = {QStringLiteral("id"), QStringLiteral("idem_key"), QStringLiteral("biz_type"),
                                     QStringLiteral("status"), QStringLiteral("result_snapshot"), QStringLiteral("created_at"),
                                     QStringLiteral("updated_at"), QStringLiteral("expire_at")};
        const QStringList computed = {QStringLiteral("status text"), QStringLiteral("age"), QStringLiteral("expires in"),
                                      QStringLiteral("stale"), QStringLiteral("tenant"), QStringLiteral("processing timeout"),
                                      QStringLiteral("server now"), QStringLiteral("version column")};
        QCOMPARE(model.rowCount(), columns.size() + computed.size());
        for (int r = 0; r < columns.size(); ++r) {
            QCOMPARE(cell(model, r, 0), columns[r]);
            QCOMPARE(model.index(r, 0).data(RecordFieldsModel::ComputedRole).toBool(), false);
        }
        for (int r = 0; r < computed.size(); ++r) {
            QCOMPARE(cell(model, columns.size() + r, 0), computed[r]);
            QCOMPARE(model.index(columns.size() + r, 0).data(RecordFieldsModel::ComputedRole).toBool(), true);
        }
        auto value = [&](const QString &name) { return cell(model, model.rowOf(name), 1); };
        QCOMPARE(value(QStringLiteral("idem_key")), key);
        QCOMPARE(value(QStringLiteral("id")), one(*s->db, QStringLiteral("SELECT id FROM idempotency_record WHERE status = 7")));
        QCOMPARE(value(QStringLiteral("status")), QStringLiteral("7"));
        QCOMPARE(value(QStringLiteral("status text")), QStringLiteral("UNKNOWN_CODE_7"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("status text")), 1).data(roles::Tone).toInt(), int(Tone::Warning));
        // result_snapshot is NULL: shown as "NULL" and flagged.
        QCOMPARE(value(QStringLiteral("result_snapshot")), QStringLiteral("NULL"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("result_snapshot")), 1).data(roles::IsNull).toBool(), true);
        QCOMPARE(model.index(model.rowOf(QStringLiteral("biz_type")), 1).data(roles::IsNull).toBool(), false);
        QCOMPARE(value(QStringLiteral("stale")), QStringLiteral("no")); // not PROCESSING
        const QString biz = value(QStringLiteral("biz_type"));
        QCOMPARE(biz, one(*s->db, QStringLiteral("SELECT biz_type FROM idempotency_record WHERE status = 7")));
        QCOMPARE(value(QStringLiteral("processing timeout")), QStringLiteral("%1 s").arg(demoBizTypes().value(biz).processingTimeoutS));
        QCOMPARE(value(QStringLiteral("tenant")), tenantFromKey(key, demoBizTypes().value(biz).tenantPattern).isEmpty()
                                                      ? QStringLiteral("(not in the key)")
                                                      : tenantFromKey(key, demoBizTypes().value(biz).tenantPattern));
        QCOMPARE(value(QStringLiteral("age")), QStringLiteral("2h 0m")); // seeded 2 h ago
        QCOMPARE(value(QStringLiteral("created_at")), d.record->createdAt);
        QCOMPARE(value(QStringLiteral("version column")), QStringLiteral("absent"));

        // A stale PROCESSING record: stale "yes", amber.
        const KeyDetail stale = awaitResult(loadKeyDetail(*s->ws, 
            one(*s->db, QStringLiteral("SELECT idem_key FROM idempotency_record WHERE status = 0 ORDER BY updated_at, id"))));
        QVERIFY(stale.record);
        model.setRecord(stale.record);
        QCOMPARE(value(QStringLiteral("stale")), QStringLiteral("yes"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("stale")), 1).data(roles::Tone).toInt(), int(Tone::Warning));
        QCOMPARE(value(QStringLiteral("status text")), QStringLiteral("PROCESSING"));

        model.setRecord(std::nullopt);
        QCOMPARE(model.rowCount(), 0);
    }

    void ticketsOfDuplicateGroup_data() { recordFields_data(); }
    void ticketsOfDuplicateGroup()
    {
        QFETCH(QString, backend);
        Seeded *s = seeded(backend);
        TRIAGE_REQUIRE_BACKEND(*s->db);
        QVERIFY(s->ws);
        const QString key = one(*s->db, QStringLiteral("SELECT idem_key FROM ticket WHERE idem_key IS NOT NULL GROUP BY idem_key "
                                                       "HAVING COUNT(*) = 3 ORDER BY idem_key"));
        QVERIFY(!key.isEmpty());
        const KeyDetail d = awaitResult(loadKeyDetail(*s->ws, key));
        QVERIFY(d.errors.isEmpty());
        TicketsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTickets(d.tickets);
        const QString where = QStringLiteral(" FROM ticket WHERE idem_key = '%1' ORDER BY created_at, id").arg(key);
        const QStringList ids = s->db->adminQueryColumn(QStringLiteral("SELECT id") + where);
        const QStringList payloads = s->db->adminQueryColumn(QStringLiteral("SELECT payload") + where);
        const QStringList statuses = s->db->adminQueryColumn(QStringLiteral("SELECT status") + where);
        const QStringList tenants = s->db->adminQueryColumn(QStringLiteral("SELECT tenant_id") + where);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(ids.size(), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(cell(model, r, TicketsModel::IdColumn), ids[r]);
            QCOMPARE(cell(model, r, TicketsModel::StatusColumn), statuses[r]);
            QCOMPARE(model.index(r, TicketsModel::StatusColumn).data(roles::Tone).toInt(), int(ticketStatusTone(statuses[r])));
            QCOMPARE(model.index(r, 0).data(TicketsModel::PayloadRole).toString(), payloads[r]);
            QCOMPARE(cell(model, r, TicketsModel::PayloadColumn, roles::FullText), payloads[r]);
            QCOMPARE(cell(model, r, TicketsModel::TenantColumn), tenants[r]);
            QCOMPARE(model.ticket(r).id, BusinessId(ids[r]));
        }
        QCOMPARE(statuses[0], QStringLiteral("OPEN"));
        QCOMPARE(model.index(0, TicketsModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Info));
        QCOMPARE(model.headerData(TicketsModel::PayloadColumn, Qt::Horizontal).toString(), QStringLiteral("Payload"));
    }

    void attemptsAndTimeline_data() { recordFields_data(); }
    void attemptsAndTimeline()
    {
        QFETCH(QString, backend);
        Seeded *s = seeded(backend);
        TRIAGE_REQUIRE_BACKEND(*s->db);
        QVERIFY(s->ws);
        // The key with five attempts of one step: UNKNOWN, UNKNOWN, RECONCILE_PENDING, ESCALATED, UNKNOWN.
        const QString key = one(*s->db, QStringLiteral("SELECT idem_key FROM intent_log GROUP BY idem_key HAVING COUNT(*) = 5"));
        QVERIFY(!key.isEmpty());
        const KeyDetail d = awaitResult(loadKeyDetail(*s->ws, key));
        QVERIFY(d.errors.isEmpty());

        AttemptsModel attempts;
        QAbstractItemModelTester tester(&attempts, QAbstractItemModelTester::FailureReportingMode::QtTest);
        attempts.setAttempts(d.attempts);
        QCOMPARE(attempts.rowCount(), 5);
        const QStringList path = {QStringLiteral("UNKNOWN"), QStringLiteral("UNKNOWN"), QStringLiteral("RECONCILE_PENDING"),
                                  QStringLiteral("ESCALATED"), QStringLiteral("UNKNOWN")};
        const QString where = QStringLiteral(" FROM intent_log WHERE idem_key = '%1' ORDER BY created_at, id").arg(key);
        const QStringList ids = s->db->adminQueryColumn(QStringLiteral("SELECT id") + where);
        const QStringList requests = s->db->adminQueryColumn(QStringLiteral("SELECT request") + where);
        for (int r = 0; r < 5; ++r) {
            QCOMPARE(cell(attempts, r, AttemptsModel::IdColumn), ids[r]);
            QCOMPARE(cell(attempts, r, AttemptsModel::AttemptColumn), QString::number(r + 1));
            QCOMPARE(cell(attempts, r, AttemptsModel::StatusColumn), path[r]);
            QCOMPARE(cell(attempts, r, AttemptsModel::StepColumn), QStringLiteral("step_3"));
            QCOMPARE(attempts.index(r, 0).data(AttemptsModel::RequestRole).toString(), requests[r]);
            QVERIFY(!attempts.index(r, 0).data(AttemptsModel::StateAfterRole).isValid()); // NULL: no result state
        }
        QCOMPARE(attempts.index(3, AttemptsModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Escalated));
        QCOMPARE(attempts.index(0, AttemptsModel::StatusColumn).data(roles::Tone).toInt(), int(Tone::Warning));

        // Timeline: 1 record event (created == updated), 5 intents + 5 results, 1 ticket.
        TimelineModel timeline;
        QAbstractItemModelTester timelineTester(&timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setEvents(d.timeline);
        QCOMPARE(d.timeline.size(), 12);
        QCOMPARE(timeline.rowCount(), 12);
        QMap<QString, int> sources;
        for (int r = 0; r < timeline.rowCount(); ++r) {
            const TimelineEvent &e = d.timeline[r];
            QCOMPARE(cell(timeline, r, TimelineModel::TimeColumn), e.time);
            QVERIFY(e.micros);
            QCOMPARE(cell(timeline, r, TimelineModel::LocalTimeColumn), formatLocal(*e.micros));
            QCOMPARE(cell(timeline, r, TimelineModel::SummaryColumn), e.summary);
            QCOMPARE(cell(timeline, r, TimelineModel::KindColumn), e.kind);
            ++sources[cell(timeline, r, TimelineModel::SourceColumn)];
            if (r > 0)
                QVERIFY(*d.timeline[r - 1].micros <= *e.micros);
        }
        QCOMPARE(sources.value(QStringLiteral("idempotency_record")), 1);
        QCOMPARE(sources.value(QStringLiteral("intent_log")), 10);
        QCOMPARE(sources.value(QStringLiteral("ticket")), 1);
        // The last event is the fifth attempt's result, 30 s after its intent.
        QCOMPARE(cell(timeline, 11, TimelineModel::KindColumn), QStringLiteral("result"));
        QVERIFY(cell(timeline, 11, TimelineModel::SummaryColumn).startsWith(QStringLiteral("result: UNKNOWN")));
        QCOMPARE(timeline.index(11, 0).data(TimelineModel::RefIdRole).toLongLong(), ids[4].toLongLong());
        QCOMPARE(timeline.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Time (UTC)"));
    }

    void nullColumnsOfAnAttempt_data() { recordFields_data(); }
    void nullColumnsOfAnAttempt()
    {
        QFETCH(QString, backend);
        Seeded *s = seeded(backend);
        TRIAGE_REQUIRE_BACKEND(*s->db);
        QVERIFY(s->ws);
        // The regenerated key's second attempt has NULL actor, response and state_after.
        const QString key = one(*s->db, QStringLiteral("SELECT idem_key FROM intent_log WHERE actor IS NULL"));
        QVERIFY(!key.isEmpty());
        const KeyDetail d = awaitResult(loadKeyDetail(*s->ws, key));
        AttemptsModel attempts;
        QAbstractItemModelTester tester(&attempts, QAbstractItemModelTester::FailureReportingMode::QtTest);
        attempts.setAttempts(d.attempts);
        QCOMPARE(attempts.rowCount(), 1);
        QCOMPARE(cell(attempts, 0, AttemptsModel::ActorColumn), QStringLiteral("NULL"));
        QCOMPARE(attempts.index(0, AttemptsModel::ActorColumn).data(roles::IsNull).toBool(), true);
        QCOMPARE(attempts.index(0, AttemptsModel::ActionColumn).data(roles::IsNull).toBool(), false);
        QVERIFY(!attempts.index(0, 0).data(AttemptsModel::ResponseRole).isValid());
        QVERIFY(attempts.index(0, 0).data(AttemptsModel::StateBeforeRole).isValid());
        QCOMPARE(cell(attempts, 0, AttemptsModel::ErrorColumn),
                 one(*s->db, QStringLiteral("SELECT error FROM intent_log WHERE actor IS NULL")));
    }

    void auditRows_data() { recordFields_data(); }
    void auditRows()
    {
        QFETCH(QString, backend);
        Seeded *s = seeded(backend);
        TRIAGE_REQUIRE_BACKEND(*s->db);
        QVERIFY(s->ws);
        const QString key = one(*s->db, QStringLiteral("SELECT idem_key FROM idempotency_record ORDER BY id LIMIT 1"));
        QVERIFY(!key.isEmpty());
        AuditEntry a;
        a.requestId = QStringLiteral("audit-model-1-") + backend;
        a.operatorName = QStringLiteral("alice");
        a.action = QStringLiteral("query_upstream");
        a.idemKey = key;
        a.reason = QStringLiteral("checking the upstream");
        a.evidence = QStringLiteral("{\"answer\":\"NOT_FOUND\"}");
        a.outcome = QStringLiteral("applied");
        AuditEntry b = a;
        b.requestId = QStringLiteral("audit-model-2-") + backend;
        b.operatorName = QStringLiteral("bob");
        b.action = QStringLiteral("mark_failed");
        b.reason = QStringLiteral("confirmed absent upstream");
        b.evidence.clear();
        b.outcome = QStringLiteral("refused");
        for (const AuditEntry &e : {a, b}) {
            const Outcome<qint64> id = awaitResult(s->ws->worker(DbRole::Idempotency).run<qint64>([e](DbSession &session) {
                return audit_sql::insert(session, e);
            }));
            QVERIFY2(id.ok(), id.error ? qPrintable(id.error->message) : "no result");
            QVERIFY(*id > 0);
        }

        const KeyDetail d = awaitResult(loadKeyDetail(*s->ws, key));
        QCOMPARE(d.audit.size(), 2);
        AuditModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries(d.audit);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 5);
        QCOMPARE(model.headerData(AuditModel::AtColumn, Qt::Horizontal).toString(), QStringLiteral("at (UTC)"));
        QCOMPARE(model.headerData(AuditModel::ReasonColumn, Qt::Horizontal).toString(), QStringLiteral("reason"));
        const QRegularExpression canonical(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$"));
        for (int row = 0; row < 2; ++row) {
            QVERIFY2(canonical.match(cell(model, row, AuditModel::AtColumn)).hasMatch(),
                     qPrintable(cell(model, row, AuditModel::AtColumn)));
            QCOMPARE(cell(model, row, AuditModel::AtColumn), d.audit[row].at);
        }
        QCOMPARE(cell(model, 0, AuditModel::OperatorColumn), QStringLiteral("alice"));
        QCOMPARE(cell(model, 0, AuditModel::ActionColumn), QStringLiteral("query_upstream"));
        QCOMPARE(cell(model, 0, AuditModel::OutcomeColumn), QStringLiteral("applied"));
        QCOMPARE(cell(model, 0, AuditModel::ReasonColumn), QStringLiteral("checking the upstream"));
        QCOMPARE(cell(model, 0, AuditModel::ReasonColumn, Qt::ToolTipRole), QStringLiteral("checking the upstream"));
        QCOMPARE(cell(model, 1, AuditModel::OperatorColumn), QStringLiteral("bob"));
        QCOMPARE(cell(model, 1, AuditModel::ActionColumn), QStringLiteral("mark_failed"));
        QCOMPARE(cell(model, 1, AuditModel::OutcomeColumn), QStringLiteral("refused"));
        QCOMPARE(cell(model, 1, AuditModel::ReasonColumn), QStringLiteral("confirmed absent upstream"));
        QCOMPARE(model.entry(0).evidence, QStringLiteral("{\"answer\":\"NOT_FOUND\"}"));
        QCOMPARE(model.entry(1).evidence, QString());
        QVERIFY(!model.index(0, 0).data(Qt::DecorationRole).isValid());
        QCOMPARE(model.flags(model.index(1, AuditModel::ReasonColumn)), Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren);

        model.setEntries({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestDetailModels)
#include "tst_detailmodels.moc"
