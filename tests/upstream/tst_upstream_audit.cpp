// The audit trail of upstream queries, on every backend: a bulk query writes each answer's
// row as it arrives and stops at the first failed write (no further upstream call, the keys
// not recorded named, triagectl exit 2, the earlier rows kept), and audit rows are bounded
// (at most 64 KB: 20,000 intent attempts summarised with their SHA-256, a large upstream
// body cut to a prefix with its length and SHA-256, the final guard in audit_sql::insert).
#include "CtlRun.h"
#include "ServerTime.h"
#include "SimTestUtil.h"
#include "KeyDetail.h"

#include "Audit.h"
#include "JsonText.h"
#include "UpstreamCheck.h"
#include "UpstreamClient.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QSemaphore>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

QString key(int i)
{
    return QStringLiteral("ticket:create:acme:audit-%1").arg(i);
}

/// Eight stale PROCESSING records, key 0 the oldest (the queue's order).
QString insertRecords(const TestDatabase &db, int n = 8)
{
    for (int i = 0; i < n; ++i) {
        const QString e = db.adminExec(QStringLiteral("INSERT INTO idempotency_record (idem_key, biz_type, status, created_at, "
                                                      "updated_at, expire_at) VALUES ('%1', 'ticket_create', 0, %2, %2, %3)")
                                           .arg(key(i), serverNowMinus(db.backend(), 3000 - i), serverNowMinus(db.backend(), -7 * 86400)));
        if (!e.isEmpty())
            return e;
    }
    return {};
}

QString renameAudit(const TestDatabase &db, const QString &from, const QString &to)
{
    return db.adminExec(QStringLiteral("ALTER TABLE %1 RENAME TO %2").arg(from, to));
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

} // namespace

class TestUpstreamAudit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(QStringLiteral(TRIAGECTL_PATH)).isExecutable(), TRIAGECTL_PATH); }
    void bulkStopsAtFailedAuditWrite_data() { backends(); }
    void bulkStopsAtFailedAuditWrite();
    void cliBulkStopsAtFailedAuditWrite_data() { backends(); }
    void cliBulkStopsAtFailedAuditWrite();
    void boundedEvidence_data() { backends(); }
    void boundedEvidence();
    void insertIsBounded_data() { backends(); }
    void insertIsBounded();
    void newerSchemaRefusesBeforeUpstream_data() { backends(); }
    void newerSchemaRefusesBeforeUpstream();

private:
    static void backends()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows();
    }
};

void TestUpstreamAudit::bulkStopsAtFailedAuditWrite()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(insertRecords(db), QString());
    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    SimControl ctl(sim.baseUrl());
    WorkspaceConfig c = db.config();
    c.operatorName = QStringLiteral("alice");
    c.upstreams = {{QStringLiteral("ticket_create"), listConfig(sim.baseUrl(), 5000)}};
    Workspace ws(c);
    QVector<KeyDetail> details;
    for (int i = 0; i < 8; ++i)
        details << loadKeyDetail(ws, key(i)).result();
    UpstreamClient client(c.upstreams);

    // One key at a time: key i+1 is sent only once key i's audit row is written. Right
    // after key 2's row is written (on the worker, before key 3 is sent), the audit table
    // goes away. Key 0 is held by the simulator until the hook below is connected.
    QVERIFY(ctl.fault(QStringLiteral("/tickets"), QStringLiteral("hold"), 0, 1) > 0);
    QSemaphore reached, proceed;
    UpstreamBulkOptions o;
    o.concurrency = 1;
    auto bulk = checkUpstreamMany(ws, client, details, o);
    QObject::connect(
        bulk.get(), &UpstreamBulkCheck::checked, bulk.get(),
        [&](int index, const UpstreamCheck &) {
            if (index == 2) {
                reached.release();
                proceed.acquire();
            }
        },
        Qt::DirectConnection);
    QTRY_VERIFY_WITH_TIMEOUT(ctl.stats().value(QStringLiteral("held")).toInt() == 1, 60000);
    QCOMPARE(ctl.json("POST", QStringLiteral("/_sim/release")).value(QStringLiteral("released")).toInt(), 1);
    QVERIFY(reached.tryAcquire(1, 60000));
    QCOMPARE(renameAudit(db, QStringLiteral("triage_audit"), QStringLiteral("triage_audit_moved")), QString());
    proceed.release();
    const UpstreamBulkCheckReport r = bulk->report().result();

    QVERIFY(r.auditError);
    QCOMPARE(r.auditError->role, DbRole::Idempotency);
    QCOMPARE(r.run.state, UpstreamBulkState::Stopped);
    QVERIFY(r.run.keepFailed);
    QCOMPARE(r.answered, (QVector<bool>{true, true, true, true, false, false, false, false}));
    QCOMPARE(r.answeredUnrecordedKeys(), QStringList{key(3)});
    QCOMPARE(r.unrecordedKeys(), (QStringList{key(3), key(4), key(5), key(6), key(7)}));
    for (int i = 0; i < 3; ++i)
        QVERIFY(r.checks.at(i).auditId > 0);
    QCOMPARE(r.checks.at(3).auditId, 0);
    QVERIFY2(r.checks.at(3).recordNote.startsWith(QStringLiteral("not recorded: ")), qPrintable(r.checks.at(3).recordNote));
    // No upstream call after the failed write.
    QCOMPARE(ctl.requests().size(), 4);
    // The rows written before the failure are there, one per key, with their ids.
    QCOMPARE(renameAudit(db, QStringLiteral("triage_audit_moved"), QStringLiteral("triage_audit")), QString());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM triage_audit WHERE action = 'query_upstream' ORDER BY id")),
             (QStringList{key(0), key(1), key(2)}));
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT id FROM triage_audit ORDER BY id")),
             (QStringList{QString::number(r.checks.at(0).auditId), QString::number(r.checks.at(1).auditId),
                          QString::number(r.checks.at(2).auditId)}));
    sim.stop();
}

void TestUpstreamAudit::cliBulkStopsAtFailedAuditWrite()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(insertRecords(db), QString());
    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    SimControl ctl(sim.baseUrl());
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QSettings s(ini, QSettings::IniFormat);
        for (const char *role : {"idempotency", "intent", "ticket"})
            s.setValue(QStringLiteral("%1/url").arg(QLatin1String(role)), db.url());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), sim.baseUrl().toString());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_query_url"), QStringLiteral("/tickets?idem_key={idem_key}"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_not_found"), QStringLiteral("empty"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_result_path"), QStringLiteral("tickets"));
        s.sync();
    }
    // Keys 0..2 are answered at once; key 3's request is held until the test releases it.
    QVERIFY(ctl.fault(QStringLiteral("/tickets"), QStringLiteral("delay"), 1, 3) > 0);
    QVERIFY(ctl.fault(QStringLiteral("/tickets"), QStringLiteral("hold"), 0, 1) > 0);
    QProcess p;
    startCtl(p, {QStringLiteral("--config"), ini, QStringLiteral("--operator"), QStringLiteral("alice"),
                                              QStringLiteral("query"), QStringLiteral("--queue"), QStringLiteral("unknown"),
                                              QStringLiteral("--concurrency"), QStringLiteral("1")});
    QVERIFY(p.waitForStarted(30000));
    // Key 3 is sent only after key 2's row is written (one key at a time).
    QTRY_VERIFY_WITH_TIMEOUT(ctl.stats().value(QStringLiteral("held")).toInt() == 1, 60000);
    QCOMPARE(renameAudit(db, QStringLiteral("triage_audit"), QStringLiteral("triage_audit_moved")), QString());
    QCOMPARE(ctl.json("POST", QStringLiteral("/_sim/release")).value(QStringLiteral("released")).toInt(), 1);
    QVERIFY(p.waitForFinished(60000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QStringList err = QString::fromUtf8(p.readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.size() == 3, qPrintable(err.join(QLatin1Char('\n'))));
    QVERIFY2(err.at(0).startsWith(QStringLiteral("triagectl: stopped: the audit write failed (idempotency")), qPrintable(err.at(0)));
    QVERIFY2(err.at(0).endsWith(QStringLiteral("); no further upstream calls were made")), qPrintable(err.at(0)));
    QCOMPARE(err.at(1), QStringLiteral("triagectl: not recorded in triage_audit (5 of 8 key(s)): %1, %2, %3, %4, %5")
                            .arg(key(3), key(4), key(5), key(6), key(7)));
    QCOMPARE(err.at(2), QStringLiteral("triagectl: answered but not recorded (query again to record them): %1").arg(key(3)));
    QVERIFY2(out.contains(QStringLiteral("4 of 8 key(s) queried: 0 found, 4 not found")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("NOT RECORDED")), qPrintable(out));
    QCOMPARE(ctl.requests().size(), 4);
    QCOMPARE(renameAudit(db, QStringLiteral("triage_audit_moved"), QStringLiteral("triage_audit")), QString());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT idem_key FROM triage_audit WHERE action = 'query_upstream' ORDER BY id")),
             (QStringList{key(0), key(1), key(2)}));
    sim.stop();
}

void TestUpstreamAudit::boundedEvidence()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(insertRecords(db, 1), QString());
    // 20,000 UNKNOWN attempts for the key, and a ticket whose payload is 100,000 bytes.
    const QString sequence = backend == QLatin1String("postgresql") ? QStringLiteral("SELECT 1 FROM generate_series(1, 20000)")
        : backend == QLatin1String("mysql")
        ? QStringLiteral("SELECT 1 FROM seq_1_to_20000")
        : QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT 1 FROM n");
    QCOMPARE(db.adminExec(QStringLiteral("INSERT INTO intent_log (task_id, step_id, action, idem_key, status) SELECT 't1', 's1', "
                                         "'create_ticket', '%1', 'UNKNOWN' FROM (%2) AS x")
                              .arg(key(0), sequence)),
             QString());
    const QString payload = QStringLiteral("{\"note\":\"%1\"}").arg(QString(99990, QLatin1Char('x')));
    QCOMPARE(insertTicketRow(db, 41, key(0), payload), QString());
    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    WorkspaceConfig c = db.config();
    c.upstreams = {{QStringLiteral("ticket_create"), listConfig(sim.baseUrl(), 10000)}};
    Workspace ws(c);
    UpstreamClient client(c.upstreams);
    const UpstreamCheck check = checkUpstream(ws, client, key(0)).result();
    QCOMPARE(check.detail.attempts.size(), 20000);
    QCOMPARE(check.evidence.classification, UpstreamClass::Found);
    QVERIFY(check.evidence.rawBody.size() > 100000);
    const QString fact = QStringLiteral("intent-log attempts: 20000 (20000 UNKNOWN; first UNKNOWN, last UNKNOWN; SHA-256 of the "
                                        "statuses oldest first, one per line: "
                                        "3e1d5c57fde9077fa8589084fef6569035845586c5b2aefbf989089ecb0ae81e; no SUCCEEDED attempt)");
    QVERIFY2(check.verdict.reason.contains(QStringLiteral("; %1; ").arg(fact)), qPrintable(check.verdict.reason.left(2000)));
    QVERIFY(check.verdict.reason.size() < 2000);
    QVERIFY(check.auditId > 0);

    const QStringList stored = db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE id = %1").arg(check.auditId));
    QCOMPARE(stored.size(), 1);
    const QByteArray evidence = stored.first().toUtf8();
    QVERIFY2(evidence.size() <= kAuditRowMaxBytes, qPrintable(QString::number(evidence.size())));
    const QJsonObject o = QJsonDocument::fromJson(evidence).object();
    QVERIFY(!o.isEmpty());
    QVERIFY(o[QStringLiteral("verdict")][QStringLiteral("facts")].toArray().contains(fact));
    // The body: a prefix, its full length and SHA-256, and the cut said.
    const QJsonObject body = o[QStringLiteral("evidence")][QStringLiteral("raw_body")].toObject();
    QCOMPARE(body[QStringLiteral("cut")].toBool(), true);
    QCOMPARE(qint64(body[QStringLiteral("bytes")].toDouble()), qint64(check.evidence.rawBody.size()));
    QCOMPARE(body[QStringLiteral("sha256")].toString(), sha256(check.evidence.rawBody));
    QVERIFY(check.evidence.rawBody.startsWith(body[QStringLiteral("prefix")].toString().toUtf8()));
    QVERIFY(body[QStringLiteral("prefix")].toString().size() > 10000);
    QCOMPARE(o[QStringLiteral("evidence")][QStringLiteral("body_bytes")].toInt(), int(check.evidence.rawBody.size()));
    // The found object and the suggested snapshot are cut the same way.
    const QJsonObject found = o[QStringLiteral("evidence")][QStringLiteral("found_objects")].toArray().at(0).toObject();
    QCOMPARE(found[QStringLiteral("sha256")].toString(), sha256(check.evidence.foundObjects.first().toUtf8()));
    const QJsonObject snapshot = o[QStringLiteral("verdict")][QStringLiteral("snapshot")].toObject();
    QCOMPARE(snapshot[QStringLiteral("sha256")].toString(), sha256(payload.toUtf8()));
    QCOMPARE(qint64(snapshot[QStringLiteral("bytes")].toDouble()), qint64(payload.size()));
    sim.stop();
}

void TestUpstreamAudit::insertIsBounded()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    Workspace ws(db.config());
    AuditEntry a;
    a.requestId = QStringLiteral("req-1");
    a.operatorName = QStringLiteral("alice");
    a.action = QStringLiteral("mark_failed");
    a.idemKey = key(0);
    a.reason = QStringLiteral("bounded");
    a.outcome = QStringLiteral("refused");
    a.fromState = QStringLiteral("{\"status\":\"PROCESSING\"}");
    // One megabyte of evidence (JSON) and 200,000 characters of detail, some of them non-ASCII.
    QJsonArray ids;
    for (int i = 0; i < 100000; ++i)
        ids.append(1000000 + i);
    const QString evidence = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("succeeded_attempt_ids"), ids}}).toJson(QJsonDocument::Compact));
    QVERIFY(evidence.size() > 800000);
    const QString detail = QString(100000, QChar(0x00E9)) + QString(100000, QLatin1Char('d'));
    a.evidence = evidence;
    a.detail = detail;
    const auto id = ws.worker(DbRole::Idempotency).run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }).result();
    QVERIFY2(id.ok(), id.ok() ? "" : qPrintable(id.error->message));
    auto one = [&](const QString &column) {
        const QStringList v = db.adminQueryColumn(QStringLiteral("SELECT %1 FROM triage_audit WHERE id = %2").arg(column).arg(*id));
        return v.value(0);
    };
    // Every text column but the NULL ones (db_user, host, to_state).
    qsizetype total = 0;
    for (const char *column : {"request_id", "operator", "action", "idem_key", "from_state", "reason", "evidence", "outcome", "detail"})
        total += one(QLatin1String(column)).toUtf8().size();
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit WHERE id = %1 AND db_user IS NULL AND host IS NULL "
                                                "AND to_state IS NULL").arg(*id)),
             QStringList{QStringLiteral("1")});
    QVERIFY2(total <= kAuditRowMaxBytes, qPrintable(QString::number(total)));
    QVERIFY(total > kAuditRowMaxBytes - 1000); // the bound is used, not wasted
    QCOMPARE(one(QStringLiteral("from_state")), a.fromState); // small columns are never cut
    QCOMPARE(one(QStringLiteral("reason")), a.reason);
    const QJsonObject e = QJsonDocument::fromJson(one(QStringLiteral("evidence")).toUtf8()).object();
    QCOMPARE(e[QStringLiteral("cut")].toBool(), true);
    QCOMPARE(qint64(e[QStringLiteral("bytes")].toDouble()), qint64(evidence.toUtf8().size()));
    QCOMPARE(e[QStringLiteral("sha256")].toString(), sha256(evidence.toUtf8()));
    QVERIFY(evidence.startsWith(e[QStringLiteral("prefix")].toString()));
    const QJsonObject d = QJsonDocument::fromJson(one(QStringLiteral("detail")).toUtf8()).object();
    QCOMPARE(qint64(d[QStringLiteral("bytes")].toDouble()), qint64(300000)); // é is two bytes
    QCOMPARE(d[QStringLiteral("sha256")].toString(), sha256(detail.toUtf8()));
    QVERIFY(detail.startsWith(d[QStringLiteral("prefix")].toString())); // whole characters only
    // The two large columns share the bound equally.
    QVERIFY(qAbs(one(QStringLiteral("evidence")).toUtf8().size() - one(QStringLiteral("detail")).toUtf8().size()) < 200);

    // A row within the bound is stored exactly as given.
    a.requestId = QStringLiteral("req-2");
    a.evidence = QStringLiteral("{\"ticket_ids\":[1,2]}");
    a.detail = QStringLiteral("small");
    const auto id2 = ws.worker(DbRole::Idempotency).run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }).result();
    QVERIFY(id2.ok());
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT evidence FROM triage_audit WHERE id = %1").arg(*id2)),
             QStringList{QStringLiteral("{\"ticket_ids\":[1,2]}")});
}

void TestUpstreamAudit::newerSchemaRefusesBeforeUpstream()
{
    // DESIGN.md §10 "Schema version": an upstream answer is recorded in triage_audit, so a
    // console older than the idempotency database's console schema refuses the query before
    // the upstream is called — the console's checkUpstream() and triagectl query alike.
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QCOMPARE(createSchemaWithoutBackstop(db), QString());
    QCOMPARE(insertRecords(db, 2), QString());
    QCOMPARE(db.adminExec(QStringLiteral("UPDATE triage_meta SET meta_value = '8' WHERE meta_key = 'schema_version'")), QString());
    const QString refusal = QStringLiteral("the idempotency database has console schema version 8; this build knows version 7: "
                                           "upgrade the console before writing");
    UpstreamSimulatorProcess sim;
    QString error;
    QVERIFY2(sim.start(db.url(), &error), qPrintable(error));
    SimControl ctl(sim.baseUrl());

    WorkspaceConfig c = db.config();
    c.upstreams = {{QStringLiteral("ticket_create"), listConfig(sim.baseUrl(), 10000)}};
    {
        Workspace ws(c);
        UpstreamClient client(c.upstreams);
        const UpstreamCheck check = checkUpstream(ws, client, key(0)).result();
        QVERIFY(check.refusal.has_value());
        QCOMPARE(int(check.refusal->kind), int(DbError::Kind::Refused));
        QCOMPARE(check.refusal->message, refusal);
        QCOMPARE(check.evidence.sent, false);
        QCOMPARE(check.evidence.classification, UpstreamClass::Unusable);
        QCOMPARE(check.evidence.message, QStringLiteral("not sent: ") + refusal);
        QCOMPARE(check.auditId, qint64(0));
        QCOMPARE(check.recordNote, QStringLiteral("not recorded: ") + refusal);
        QVERIFY(check.detail.record.has_value()); // reading still works
        QCOMPARE(check.detail.record->idemKey, key(0));
        QCOMPARE(ctl.requests().size(), 0);

        // Read-only: nothing is recorded, so the query is allowed and made.
        WorkspaceConfig ro = c;
        ro.readOnly = true;
        Workspace rws(ro);
        const UpstreamCheck read = checkUpstream(rws, client, key(0)).result();
        QVERIFY(!read.refusal);
        QCOMPARE(read.evidence.classification, UpstreamClass::NotFound);
        QCOMPARE(ctl.requests().size(), 1);
    }

    // triagectl query, one key and a queue: exit 4, the refusal, no upstream call.
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("triage.ini"));
    {
        QSettings s(ini, QSettings::IniFormat);
        for (const char *role : {"idempotency", "intent", "ticket"})
            s.setValue(QStringLiteral("%1/url").arg(QLatin1String(role)), db.url());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), sim.baseUrl().toString());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_query_url"), QStringLiteral("/tickets?idem_key={idem_key}"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_not_found"), QStringLiteral("empty"));
        s.setValue(QStringLiteral("biz.ticket_create/upstream_result_path"), QStringLiteral("tickets"));
        s.sync();
    }
    const QStringList base{QStringLiteral("--config"), ini, QStringLiteral("--operator"), QStringLiteral("alice")};
    const CtlRun one = runCtl(base + QStringList{QStringLiteral("query"), key(1)});
    QVERIFY2(one.finished && one.exitCode == 4, one.describe().constData());
    QCOMPARE(one.err, QByteArray("triagectl: ") + refusal.toUtf8() + "\n");
    QCOMPARE(one.out, QByteArray());
    const CtlRun queue = runCtl(base + QStringList{QStringLiteral("query"), QStringLiteral("--queue"), QStringLiteral("unknown")});
    QVERIFY2(queue.finished && queue.exitCode == 4, queue.describe().constData());
    QCOMPARE(queue.err, QByteArray("triagectl: ") + refusal.toUtf8() + "\n");
    QCOMPARE(ctl.requests().size(), 1); // only the read-only query above
    QCOMPARE(db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM triage_audit")), QStringList{QStringLiteral("0")});
    sim.stop();
}

QTEST_GUILESS_MAIN(TestUpstreamAudit)
#include "tst_upstream_audit.moc"
