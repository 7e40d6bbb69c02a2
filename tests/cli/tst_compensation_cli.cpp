// triagectl compensate / compensations end to end: exit codes (0, 3 existing,
// 5 UNKNOWN), two concurrent compensations of one target, and crash safety — SIGKILL right
// after the intent is written and while the call is in flight — followed by a resume: exactly
// one side effect per key, every attempt in the history.
#include "CompTestUtil.h"
#include "CtlRun.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using namespace triage::test;

namespace {

/// Collects a triagectl run started with CliEnv::start() (60 s at most).
CtlRun finish(QProcess &p)
{
    return finishCtl(p, p.arguments(), 60000);
}

/// One backend's fixture for the CLI: database, simulator, an INI file naming both.
struct CliEnv {
    std::unique_ptr<TestDatabase> db;
    UpstreamSimulatorProcess sim;
    std::unique_ptr<SimControl> ctl;
    QTemporaryDir dir;
    QString ini;

    QString setUp(const QString &backend, int timeoutMs)
    {
        db = std::make_unique<TestDatabase>(backend);
        if (!db->available())
            return QStringLiteral("SKIP ") + db->skipReason();
        QString e = insertCompFixture(*db);
        if (!e.isEmpty())
            return e;
        // On a shop row the simulator and the CLI read the shop's map sections (DESIGN.md §10).
        if (!sim.start(db->url(), &e, db->isShop() ? QStringList{QStringLiteral("--config"), shopIniPath()} : QStringList{}))
            return e;
        ctl = std::make_unique<SimControl>(sim.baseUrl());
        ini = dir.filePath(QStringLiteral("triage.ini"));
        {
            QFile f(ini);
            if (!f.open(QIODevice::WriteOnly) || f.write(shapeIniText(*db)) < 0)
                return QStringLiteral("cannot write ") + ini;
        }
        QSettings s(ini, QSettings::IniFormat);
        for (const char *role : {"idempotency", "intent", "ticket"})
            s.setValue(QStringLiteral("%1/url").arg(QLatin1String(role)), db->url());
        s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), sim.baseUrl().toString());
        s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_url"), QStringLiteral("/tickets/{ticket_id}/cancel"));
        s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_confirm_url"), QStringLiteral("/tickets/{ticket_id}"));
        s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_timeout_ms"), timeoutMs);
        s.sync();
        return {};
    }
    QStringList args(const QStringList &more) const
    {
        return QStringList{QStringLiteral("--config"), ini, QStringLiteral("--operator"), QStringLiteral("alice")} + more;
    }
    /// The id text of the fixture's ticket `n` on this shape (ticketIdText()).
    QString id(qint64 n) const { return ticketIdText(*db, n); }
    /// The compensation key of cancelling the extra ticket 102.
    QString key() const { return compensationKey(QStringLiteral("cancel_ticket"), id(102), kCompKey); }
    QStringList compensateArgs() const
    {
        return args({QStringLiteral("compensate"), kCompKey, QStringLiteral("--action"), QStringLiteral("cancel_ticket"),
                     QStringLiteral("--target"), id(102), QStringLiteral("--reason"), QStringLiteral("extra ticket")});
    }
    void start(QProcess &p, const QStringList &a, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment()) const
    {
        startCtl(p, a, env);
    }
    CtlRun run(const QStringList &a, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment()) const
    {
        return runCtl(a, env, {}, 60000);
    }
    QStringList column(const QString &sql) const { return db->adminQueryColumn(sql); }
};

#define SETUP_CLI(env, timeout)                                                                 \
    do {                                                                                        \
        const QString why = (env).setUp(backend, timeout);                                      \
        if (why.startsWith(QLatin1String("SKIP "))) {                                           \
            if (requireAllBackends())                                                           \
                QFAIL(qPrintable(why));                                                         \
            QSKIP(qPrintable(why));                                                             \
        }                                                                                       \
        QVERIFY2(why.isEmpty(), qPrintable(why));                                               \
    } while (0)

const QString kKey = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("102"), kCompKey);

} // namespace

class TestCompensationCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(QStringLiteral(TRIAGECTL_PATH)).isExecutable(), TRIAGECTL_PATH); }
    void exitCodes_data() { backends(); }
    void exitCodes();
    void concurrentCompensations_data() { backends(); }
    void concurrentCompensations();
    void crashAfterIntent_data() { backends(); }
    void crashAfterIntent();
    void crashDuringCall_data() { backends(); }
    void crashDuringCall();
    void duplicatesCommand_data() { backends(); }
    void duplicatesCommand();
    void snapshotOnlyFromCanonical_data() { backends(); }
    void snapshotOnlyFromCanonical();
    void fourEyes_data() { backends(); }
    void fourEyes();
    void resumeUnknownKey();
    void tokenSentNeverStored();
    void demoStartsSimulator();

private:
    static void backends()
    {
        QTest::addColumn<QString>("backend");
        addBackendRows(false, true); // and the shop shape (ShapeExpect.h)
    }
};

void TestCompensationCli::exitCodes()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    CtlRun r = env.run(env.compensateArgs() << QStringLiteral("--dry-run"));
    QVERIFY2(r.exitCode == 0, r.describe());
    QVERIFY2(r.out.contains(env.key().toUtf8()), r.describe());
    QCOMPARE(env.ctl->requests().size(), 0);
    // A dry run writes nothing, so read-only mode allows it; a real run there is refused (4).
    const QString auditRows = QStringLiteral("SELECT COUNT(*) FROM triage_audit");
    const QStringList auditBefore = env.column(auditRows);
    r = env.run(QStringList{QStringLiteral("--read-only")} + env.compensateArgs() << QStringLiteral("--dry-run"));
    QVERIFY2(r.exitCode == 0 && r.out.contains(env.key().toUtf8()), r.describe());
    r = env.run(QStringList{QStringLiteral("--read-only")} + env.compensateArgs());
    QVERIFY2(r.exitCode == 4 && r.err.contains("compensate writes to the databases: refused in read-only mode"), r.describe());
    QCOMPARE(env.ctl->requests().size(), 0);
    QCOMPARE(env.column(auditRows), auditBefore);

    QVERIFY(env.ctl->fault(QStringLiteral("/tickets/*/cancel"), QStringLiteral("http_500"), 0, 1) > 0);
    r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 5, r.describe()); // left UNKNOWN
    QCOMPARE(env.column(QStringLiteral("SELECT status FROM triage_compensation")), QStringList{QStringLiteral("UNKNOWN")});

    r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 3, r.describe()); // the compensation already exists
    QVERIFY2(r.err.contains("already exists"), r.describe());

    r = env.run(env.args({QStringLiteral("compensate"), QStringLiteral("--resume"), env.key()}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 1);

    r = env.run(env.args({QStringLiteral("compensations"), QStringLiteral("--status"), QStringLiteral("succeeded"),
                          QStringLiteral("--format"), QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    const QJsonArray rows = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(rows.size(), 1);
    const QJsonObject row = rows.first().toObject();
    QCOMPARE(row.value(QStringLiteral("comp_key")).toString(), env.key());
    QCOMPARE(row.value(QStringLiteral("attempts")).toInt(), 2);
    QStringList history;
    for (const QJsonValue &h : row.value(QStringLiteral("history")).toArray())
        history << h.toObject().value(QStringLiteral("kind")).toString() + QLatin1Char(':')
                + h.toObject().value(QStringLiteral("classification")).toString();
    QCOMPARE(history, (QStringList{QStringLiteral("send:UNKNOWN"), QStringLiteral("confirm:ABSENT"), QStringLiteral("confirm:ABSENT"),
                                   QStringLiteral("send:SUCCEEDED")}));
    r = env.run(env.args({QStringLiteral("compensations"), QStringLiteral("--status"), QStringLiteral("unknown")}));
    QVERIFY2(r.exitCode == 0 && r.out.endsWith("\n0 compensations\n"), r.describe());
}

void TestCompensationCli::fourEyes()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    const QString why = QStringLiteral("--reason"), text = QStringLiteral("four-eyes on compensations");
    CtlRun r = env.run(env.args({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("biz.ticket_create.four_eyes"),
                                 QStringLiteral("Compensate"), why, text}));
    QVERIFY2(r.exitCode == 0, r.describe());
    r = env.run(env.args({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("four_eyes_db_users"), QStringLiteral("shared"), why, text}));
    QVERIFY2(r.exitCode == 0, r.describe());

    // alice's compensation is a proposal: exit 6, nothing written to the intent log or sent.
    r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 6, r.describe());
    QVERIFY2(r.out.startsWith("outcome:    proposed\nproposal:   1\ncomp_key:   " + env.key().toUtf8() + "\n"), r.describe());
    QVERIFY2(r.out.contains(" — not sent\n"), r.describe());
    QVERIFY2(r.err.contains("proposed as proposal 1 (biz.ticket_create.four_eyes): nothing written or sent until another operator"),
             r.describe());
    QCOMPARE(env.ctl->requests().size(), 0);
    QCOMPARE(env.column(QStringLiteral("SELECT COUNT(*) FROM triage_compensation")), QStringList{QStringLiteral("0")});
    r = env.run(env.args({QStringLiteral("proposals"), QStringLiteral("--format"), QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(QJsonDocument::fromJson(r.out).array().at(0).toObject().value(QStringLiteral("action")).toString(), QStringLiteral("compensate"));

    // The proposer cannot approve it; bob can, and the compensation runs once as bob.
    const QStringList approve{QStringLiteral("approve"), QStringLiteral("1"), why, QStringLiteral("checked the duplicate group")};
    r = env.run(env.args(approve));
    QVERIFY2(r.exitCode == 4 && r.err.contains("proposal 1 was proposed by alice: a different operator must approve it (four-eyes)"),
             r.describe());
    QCOMPARE(env.ctl->requests().size(), 0);
    r = env.run(QStringList{QStringLiteral("--config"), env.ini, QStringLiteral("--operator"), QStringLiteral("bob")} + approve);
    QVERIFY2(r.exitCode == 0 && r.out.startsWith("outcome:    succeeded\nproposal:   1\n"), r.describe());
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 1);
    QCOMPARE(env.column(QStringLiteral("SELECT operator FROM triage_compensation")), QStringList{QStringLiteral("bob")});
    // A set replaces the whole list, and says what it dropped.
    r = env.run(env.args({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("biz.ticket_create.four_eyes"),
                          QStringLiteral("mark_success"), why, text}));
    QCOMPARE(r.out, QByteArray("policy biz.ticket_create.four_eyes = mark_success (version 2; was compensate): compensate no longer "
                               "needs a second operator\n"));
}

void TestCompensationCli::concurrentCompensations()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    // The first call is held a little, so both processes overlap.
    QVERIFY(env.ctl->fault(QStringLiteral("/tickets/*/cancel"), QStringLiteral("delay"), 400, 1) > 0);
    QProcess a, b;
    env.start(a, env.compensateArgs());
    env.start(b, env.compensateArgs());
    QVERIFY(a.waitForStarted(30000) && b.waitForStarted(30000));
    const CtlRun ra = finish(a);
    const CtlRun rb = finish(b);
    QList<int> codes{ra.exitCode, rb.exitCode};
    std::sort(codes.begin(), codes.end());
    QVERIFY2(codes == (QList<int>{0, 3}), ra.describe() + "\n---\n" + rb.describe());
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 1);
    QCOMPARE(env.column(QStringLiteral("SELECT COUNT(*) FROM triage_compensation")), QStringList{QStringLiteral("1")});
    QCOMPARE(cancelKeys(*env.ctl, env.id(102)), QStringList{env.key()});
}

void TestCompensationCli::crashAfterIntent()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    QProcessEnvironment crash = QProcessEnvironment::systemEnvironment();
    crash.insert(QStringLiteral("TRIAGE_TEST_CRASH_AFTER_INTENT"), QStringLiteral("1"));
    QProcess p;
    env.start(p, env.compensateArgs(), crash);
    QVERIFY(p.waitForStarted(30000));
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    QCOMPARE(env.column(QStringLiteral("SELECT status FROM triage_compensation")), QStringList{QStringLiteral("INTENT")});
    QCOMPARE(env.column(QStringLiteral("SELECT attempts FROM triage_compensation")), QStringList{QStringLiteral("0")});
    QCOMPARE(env.ctl->requests().size(), 0);
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 0);

    // A restarted console finds the intent (exit 3), and --resume completes it.
    CtlRun r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 3, r.describe());
    r = env.run(env.args({QStringLiteral("compensate"), QStringLiteral("--resume"), env.key()}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 1);
    QCOMPARE(cancelKeys(*env.ctl, env.id(102)), QStringList{env.key()});
    const QString kindAndClass = dialectOf(backend) == QLatin1String("sqlite") ? QStringLiteral("kind || ':' || classification")
                                                                     : QStringLiteral("CONCAT(kind, ':', classification)");
    QCOMPARE(env.column(QStringLiteral("SELECT %1 FROM triage_compensation_attempt ORDER BY id").arg(kindAndClass)),
             QStringList{QStringLiteral("send:SUCCEEDED")}); // no call was sent before: none to confirm
}

void TestCompensationCli::crashDuringCall()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 20000);
    // The simulator holds the call; the CLI is killed while it waits for the reply.
    QVERIFY(env.ctl->fault(QStringLiteral("/tickets/*/cancel"), QStringLiteral("delay"), 3000, 1) > 0);
    QProcess p;
    env.start(p, env.compensateArgs());
    QVERIFY(p.waitForStarted(30000));
    QElapsedTimer t;
    t.start();
    while (cancelKeys(*env.ctl, env.id(102)).isEmpty() && t.elapsed() < 20000)
        QTest::qWait(20);
    QCOMPARE(cancelKeys(*env.ctl, env.id(102)), QStringList{env.key()});
    p.kill(); // SIGKILL
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    QCOMPARE(env.column(QStringLiteral("SELECT status FROM triage_compensation")), QStringList{QStringLiteral("INTENT")});
    QCOMPARE(env.column(QStringLiteral("SELECT attempts FROM triage_compensation")), QStringList{QStringLiteral("1")});
    QCOMPARE(env.column(QStringLiteral("SELECT classification FROM triage_compensation_attempt")), QStringList{QStringLiteral("IN_FLIGHT")});
    env.ctl->clearFaults();

    const CtlRun r = env.run(env.args({QStringLiteral("compensate"), QStringLiteral("--resume"), env.key()}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(sideEffects(*env.ctl, env.id(102)), 1);
    for (const QString &k : cancelKeys(*env.ctl, env.id(102)))
        QCOMPARE(k, env.key());
    // Every attempt is in the history, the interrupted one still marked IN_FLIGHT.
    QCOMPARE(env.column(QStringLiteral("SELECT classification FROM triage_compensation_attempt ORDER BY id")),
             (QStringList{QStringLiteral("IN_FLIGHT"), QStringLiteral("ABSENT"), QStringLiteral("SUCCEEDED")}));
    QCOMPARE(env.column(QStringLiteral("SELECT status FROM triage_compensation")), QStringList{QStringLiteral("SUCCEEDED")});
    QCOMPARE(env.column(env.db->isShop() ? QStringLiteral("SELECT order_state FROM orders WHERE order_id = '%1'").arg(env.id(102))
                                         : QStringLiteral("SELECT status FROM ticket WHERE id = 102")),
             QStringList{env.db->isShop() ? QStringLiteral("voided") : QStringLiteral("CANCELLED")});
}

void TestCompensationCli::duplicatesCommand()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    CtlRun r = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--format"), QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QJsonArray groups = o.value(QStringLiteral("groups")).toArray();
    QCOMPARE(groups.size(), 1);
    QCOMPARE(groups.first().toObject().value(QStringLiteral("idem_key")).toString(), kCompKey);
    QCOMPARE(groups.first().toObject().value(QStringLiteral("live")).toInt(), 2);
    QCOMPARE(groups.first().toObject().value(QStringLiteral("record_status")).toString(), QStringLiteral("PROCESSING"));
    // Both tickets exist while the record is PROCESSING; ticket ids are JSON numbers (strings
    // for the shop's UUID order ids: ticketIdJson()).
    const QJsonArray issues = o.value(QStringLiteral("inconsistencies")).toArray();
    QCOMPARE(issues.size(), 2);
    QCOMPARE(issues.at(0).toObject().value(QStringLiteral("ticket_id")), ticketIdJson(*env.db, 101));
    QCOMPARE(issues.at(1).toObject().value(QStringLiteral("ticket_id")), ticketIdJson(*env.db, 102));
    // --limit 0: every group in one aggregate statement; the same groups, field by field.
    const CtlRun all = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--limit"), QStringLiteral("0"), QStringLiteral("--format"),
                                         QStringLiteral("json")}));
    QVERIFY2(all.exitCode == 0, all.describe());
    QCOMPARE(QJsonDocument::fromJson(all.out).object().value(QStringLiteral("groups")), QJsonValue(groups));
    // --key filters all three sections.
    r = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--key"), QStringLiteral("no-such-key"), QStringLiteral("--format"),
                          QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(QJsonDocument::fromJson(r.out).object(),
             (QJsonObject{{QStringLiteral("groups"), QJsonArray()},
                          {QStringLiteral("inconsistencies"), QJsonArray()},
                          {QStringLiteral("regenerated_keys"), QJsonArray()}}));
    r = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--key"), QStringLiteral("dup-comp")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QVERIFY2(r.out.contains("\n1 duplicate-key group (unresolved)\n"), r.describe());
    QVERIFY2(r.out.contains("\n2 inconsistencies\n"), r.describe());
    QVERIFY2(r.out.endsWith("\n0 steps with regenerated keys\n"), r.describe());

    r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 0, r.describe());
    // Resolved now: gone from the default queue, still listed with --all.
    r = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--format"), QStringLiteral("json")}));
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("groups")).toArray().size(), 0);
    r = env.run(env.args({QStringLiteral("duplicates"), QStringLiteral("--all"), QStringLiteral("--format"), QStringLiteral("json")}));
    groups = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("groups")).toArray();
    QCOMPARE(groups.size(), 1);
    QCOMPARE(groups.first().toObject().value(QStringLiteral("live")).toInt(), 1);
    QCOMPARE(groups.first().toObject().value(QStringLiteral("resolved")).toBool(), true);

    // The second attempt is audited as a conflict; the timeline shows the compensation.
    r = env.run(env.compensateArgs());
    QVERIFY2(r.exitCode == 3, r.describe());
    QCOMPARE(env.column(QStringLiteral("SELECT outcome FROM triage_audit WHERE action = 'compensate' ORDER BY id")),
             (QStringList{QStringLiteral("applied"), QStringLiteral("conflict")}));
    r = env.run(env.args({QStringLiteral("show"), kCompKey}));
    QVERIFY2(r.exitCode == 0 && r.out.contains("triage_compensation"), r.describe());
    // The compensation's target is a JSON number too (a string on the shop).
    r = env.run(env.args({QStringLiteral("compensations"), QStringLiteral("--format"), QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 0, r.describe());
    const QJsonValue target = QJsonDocument::fromJson(r.out).array().first().toObject().value(QStringLiteral("target"));
    QCOMPARE(target, ticketIdJson(*env.db, 102));
    r = env.run(env.args({QStringLiteral("compensations")}));
    QVERIFY2(r.out.endsWith("\n1 compensation\n"), r.describe());
}

void TestCompensationCli::snapshotOnlyFromCanonical()
{
    QFETCH(QString, backend);
    CliEnv env;
    SETUP_CLI(env, 5000);
    const QStringList mark{QStringLiteral("mark"), kCompKey, QStringLiteral("--to"), QStringLiteral("success"), QStringLiteral("--reason"),
                           QStringLiteral("ticket exists, settling the record")};
    // A bulk SUCCESS leaves a group with extras still live alone, with why (exit 4, audited).
    CtlRun r = env.run(env.args({QStringLiteral("mark"), QStringLiteral("--queue"), QStringLiteral("unknown"), QStringLiteral("--key"),
                                 QStringLiteral("dup-comp"), QStringLiteral("--to"), QStringLiteral("success"), QStringLiteral("--reason"),
                                 QStringLiteral("bulk settling of found tickets"), QStringLiteral("--format"), QStringLiteral("json")}));
    QVERIFY2(r.exitCode == 4, r.describe());
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("message")).toString(),
             QStringLiteral("2 live tickets carry the key (a bulk SUCCESS takes the snapshot of the key's only live ticket); mark it "
                            "alone with --snapshot-from-ticket %1 (the canonical ticket) or compensate the extras first")
                 .arg(env.id(101)));
    // #102 is an extra (#101 is the earliest live ticket): refused, exit 4, audited.
    r = env.run(env.args(mark + QStringList{QStringLiteral("--snapshot-from-ticket"), env.id(102)}));
    QVERIFY2(r.exitCode == 4, r.describe());
    const QString refusal = QStringLiteral("ticket #%1 is not the canonical ticket of this key (#%2: no SUCCESS snapshot names one of "
                                           "these tickets: the earliest live ticket (#%2, created ")
                                .arg(env.id(102), env.id(101));
    QVERIFY2(r.out.contains(refusal.toUtf8()), r.describe());
    const QString concat = dialectOf(backend) == QLatin1String("sqlite") ? QStringLiteral("action || ':' || outcome")
                                                               : QStringLiteral("CONCAT(action, ':', outcome)");
    QCOMPARE(env.column(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(concat)),
             (QStringList{QStringLiteral("mark_success:refused"), QStringLiteral("mark_success:refused")}));
    const QStringList detail = env.column(QStringLiteral("SELECT detail FROM triage_audit ORDER BY id"));
    QVERIFY2(detail.last().startsWith(refusal)
                 && detail.last().endsWith(QStringLiteral("): a SUCCESS snapshot comes only from the canonical ticket (DESIGN.md §6)")),
             qPrintable(detail.last()));
    QCOMPARE(storedStatuses(*env.db), stored(*env.db, {QStringLiteral("0")}));
    // The canonical ticket's snapshot is applied (written in the mapping's first spelling, "DONE" on the shop).
    r = env.run(env.args(mark + QStringList{QStringLiteral("--snapshot-from-ticket"), env.id(101)}));
    QVERIFY2(r.exitCode == 0, r.describe());
    QCOMPARE(storedStatuses(*env.db), QStringList{env.db->isShop() ? QStringLiteral("DONE") : QStringLiteral("1")});
    QCOMPARE(env.column(env.db->isShop() ? QStringLiteral("SELECT response_body FROM idem_requests")
                                         : QStringLiteral("SELECT result_snapshot FROM idempotency_record")),
             QStringList{storedPayloadText(*env.db, ticketIdPayload(*env.db, 101))});
    // Now the SUCCESS snapshot names #101: compensating it is refused (audited), #102 is the extra.
    r = env.run(env.args({QStringLiteral("compensate"), kCompKey, QStringLiteral("--action"), QStringLiteral("cancel_ticket"),
                          QStringLiteral("--target"), env.id(101), QStringLiteral("--reason"), QStringLiteral("extra ticket")}));
    QVERIFY2(r.exitCode == 4, r.describe());
    const QByteArray id101 = env.id(101).toUtf8();
    QVERIFY2(r.err.contains("ticket " + id101 + " is the canonical ticket of this key (the SUCCESS record's snapshot names ticket #" + id101
                            + " (callers were given it)): it is never a compensation target (DESIGN.md §6)"),
             r.describe());
    // The table output says the request was not sent, and why.
    const QByteArray key101 = compensationKey(QStringLiteral("cancel_ticket"), env.id(101), kCompKey).toUtf8();
    QVERIFY2(r.out.contains("/tickets/" + id101 + "/cancel (X-Idempotency-Key: " + key101 + ") — not sent\n"), r.describe());
    QVERIFY2(r.out.contains("reason:     ticket " + id101 + " is the canonical ticket of this key"), r.describe());
    QCOMPARE(env.ctl->requests().size(), 0);
    QCOMPARE(env.column(QStringLiteral("SELECT %1 FROM triage_audit ORDER BY id").arg(concat)),
             (QStringList{QStringLiteral("mark_success:refused"), QStringLiteral("mark_success:refused"), QStringLiteral("mark_success:applied"),
                          QStringLiteral("compensate:refused")}));
}

void TestCompensationCli::resumeUnknownKey()
{
    const QString backend = QStringLiteral("sqlite");
    CliEnv env;
    SETUP_CLI(env, 5000);
    const CtlRun r = env.run(env.args({QStringLiteral("compensate"), QStringLiteral("--resume"), QStringLiteral("nope")}));
    QVERIFY2(r.exitCode == 1, r.describe());
    QCOMPARE(r.err, QByteArray("triagectl: unknown compensation key \"nope\": no compensation has it (list them with `triagectl compensations`)\n"));
    QCOMPARE(r.out, QByteArray());
}

void TestCompensationCli::tokenSentNeverStored()
{
    const QString backend = QStringLiteral("sqlite");
    CliEnv env;
    SETUP_CLI(env, 5000);
    {
        QSettings s(env.ini, QSettings::IniFormat);
        s.setValue(QStringLiteral("biz.ticket_create/upstream_token_env"), QStringLiteral("TEST_COMP_TOKEN"));
    }
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("TEST_COMP_TOKEN"), QStringLiteral("s3cr3t-token"));
    const CtlRun r = env.run(env.compensateArgs(), e);
    QVERIFY2(r.exitCode == 0, r.describe());
    bool sawAuth = false;
    for (const QJsonValue &req : env.ctl->requests())
        for (const QJsonValue &h : req.toObject().value(QStringLiteral("headers")).toArray())
            if (h.toArray().at(0).toString().compare(QLatin1String("Authorization"), Qt::CaseInsensitive) == 0)
                sawAuth = h.toArray().at(1).toString() == QLatin1String("Bearer s3cr3t-token");
    QVERIFY(sawAuth);
    QVERIFY(!r.out.contains("s3cr3t") && !r.err.contains("s3cr3t"));
    const QStringList stored = env.column(QStringLiteral("SELECT request FROM triage_compensation"));
    QCOMPARE(stored.size(), 1);
    QVERIFY(!stored.first().contains(QLatin1String("s3cr3t")));
    QVERIFY(stored.first().contains(QLatin1String("TEST_COMP_TOKEN")));
}

void TestCompensationCli::demoStartsSimulator()
{
    // --demo: the CLI starts the upstream simulator on the demo file and compensates there.
    // A fresh demo: the demo file outlives a run (a day), and an earlier run's compensation
    // would leave the first group resolved and make a key-reuse group the first one.
    CliEnv env;
    CtlRun r = env.run({QStringLiteral("--demo-reset"), QStringLiteral("duplicates"), QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.exitCode == 0, r.describe());
    const QJsonArray groups = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("groups")).toArray();
    QVERIFY(!groups.isEmpty());
    const QString key = groups.first().toObject().value(QStringLiteral("idem_key")).toString();
    r = env.run({QStringLiteral("--demo"), QStringLiteral("show"), key, QStringLiteral("--format"), QStringLiteral("json")});
    QVERIFY2(r.exitCode == 0, r.describe());
    const QJsonArray tickets = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("tickets")).toArray();
    QVERIFY(tickets.size() >= 2);
    QString extra; // the newest ticket that is not CANCELLED (an unresolved group has two)
    for (const QJsonValue &t : tickets)
        if (t.toObject().value(QStringLiteral("status")).toString() != QLatin1String("CANCELLED"))
            extra = QString::number(t.toObject().value(QStringLiteral("id")).toInteger());
    QVERIFY(!extra.isEmpty());
    const QStringList args{QStringLiteral("--demo"), QStringLiteral("compensate"), key, QStringLiteral("--action"),
                           QStringLiteral("cancel_ticket"), QStringLiteral("--target"), extra, QStringLiteral("--reason"),
                           QStringLiteral("demo duplicate")};
    r = env.run(args);
    QVERIFY2(r.exitCode == 0, r.describe());
    QVERIFY2(r.out.contains("now CANCELLED"), r.describe());
    r = env.run(args);
    QVERIFY2(r.exitCode == 3, r.describe());
}

QTEST_GUILESS_MAIN(TestCompensationCli)
#include "tst_compensation_cli.moc"
