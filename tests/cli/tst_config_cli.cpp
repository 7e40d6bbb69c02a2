// triagectl with a config file, on every backend: [biz.*] sections compared with the
// records' biz_types (warnings on stderr after every command), and a typo'd config that
// exits 1 before anything is written.
#include "CtlRun.h"
#include "TestDatabases.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;
using triage::test::CtlRun;
using triage::test::TestDatabase;
using triage::test::runCtl;

namespace {

QStringList dbArgs(const QString &url)
{
    return {QStringLiteral("--idempotency-db"), url, QStringLiteral("--intent-db"), url, QStringLiteral("--ticket-db"), url};
}

QString writeFile(const QTemporaryDir &dir, const QString &name, const QString &text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    f.write(text.toUtf8());
    return path;
}

/// The stderr lines of `r` that are not the log's.
QStringList stderrLines(const CtlRun &r)
{
    QStringList out;
    for (const QString &l : QString::fromUtf8(r.err).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (l.startsWith(QLatin1String("triagectl: ")))
            out << l;
    return out;
}

} // namespace

class TstConfigCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void bizSectionsAgainstRecords_data();
    void bizSectionsAgainstRecords();
    void typoConfigWritesNothing_data();
    void typoConfigWritesNothing();
    void consoleRefusesATypoConfig();
    void demoSettingsMatchTheDemo();
};

void TstConfigCli::initTestCase()
{
    QVERIFY2(QFile::exists(QStringLiteral(TRIAGECTL_PATH)), TRIAGECTL_PATH);
}

void TstConfigCli::bizSectionsAgainstRecords_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows();
}

void TstConfigCli::bizSectionsAgainstRecords()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    // The demo set: biz_types notify_send, payment_capture, refund_issue, ticket_create.
    {
        const QStringList a = dbArgs(db.url()) + QStringList{QStringLiteral("init-schema"), QStringLiteral("--without-backstop")};
        const CtlRun r = runCtl(a);
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        QCOMPARE(stderrLines(r), QStringList()); // no config file: the defaults by design, nothing to say
        const QStringList s = dbArgs(db.url()) + QStringList{QStringLiteral("seed-demo")};
        const CtlRun seeded = runCtl(s);
        QVERIFY2(seeded.finished && seeded.exitCode == 0, seeded.describe().constData());
    }
    QTemporaryDir dir;
    const QString ini = writeFile(dir, QStringLiteral("triage.ini"),
                                  QStringLiteral("[idempotency]\nurl=%1\n[intent]\nurl=%1\n[ticket]\nurl=%1\n"
                                                 "[biz.ticket_craete]\nprocessing_timeout=3600\n"   // line 7
                                                 "[biz.payment_capture]\nprocessing_timeout=600\n"
                                                 "[biz.refund_issue]\nprocessing_timeout=600\n")
                                      .arg(db.url()));
    const QStringList expected = {
        QStringLiteral("triagectl: warning: config %1:7: [biz.ticket_craete]: no idempotency record has biz_type "
                       "\"ticket_craete\", so its settings apply to nothing (did you mean ticket_create?)")
            .arg(ini),
        QStringLiteral("triagectl: warning: config %1: biz_type \"notify_send\" has idempotency records but no "
                       "[biz.notify_send] section: its records use processing_timeout 300 s and no upstream")
            .arg(ini),
        QStringLiteral("triagectl: warning: config %1: biz_type \"ticket_create\" has idempotency records but no "
                       "[biz.ticket_create] section: its records use processing_timeout 300 s and no upstream")
            .arg(ini),
    };
    // Every command, reading or writing, says it (after its own output).
    const QList<QStringList> commands = {
        {QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"), QStringLiteral("1")},
        {QStringLiteral("show"), QStringLiteral("no:such:key")},
        {QStringLiteral("audit")},
        {QStringLiteral("duplicates"), QStringLiteral("--limit"), QStringLiteral("1")},
        {QStringLiteral("init-schema"), QStringLiteral("--without-backstop")},
    };
    for (const QStringList &command : commands) {
        const QStringList a = QStringList{QStringLiteral("--config"), ini} + command;
        const CtlRun r = runCtl(a);
        QVERIFY2(r.finished && (r.exitCode == 0 || r.exitCode == 1), r.describe().constData());
        QStringList lines = stderrLines(r);
        if (command.first() == QLatin1String("show")) {
            QCOMPARE(r.exitCode, 1); // the key is found nowhere
            lines.removeFirst();     // ... says so first
        }
        QVERIFY2(lines == expected, r.describe().constData());
    }

    // Sections matching the records: silence.
    const QString good = writeFile(dir, QStringLiteral("good.ini"),
                                   QStringLiteral("[idempotency]\nurl=%1\n[intent]\nurl=%1\n[ticket]\nurl=%1\n"
                                                  "[biz.ticket_create]\n[biz.payment_capture]\n[biz.refund_issue]\n[biz.notify_send]\n")
                                       .arg(db.url()));
    const QStringList a = {QStringLiteral("--config"), good, QStringLiteral("list"), QStringLiteral("unknown")};
    const CtlRun r = runCtl(a);
    QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
    QCOMPARE(stderrLines(r), QStringList());
}

void TstConfigCli::typoConfigWritesNothing_data()
{
    QTest::addColumn<QString>("backend");
    triage::test::addBackendRows();
}

void TstConfigCli::typoConfigWritesNothing()
{
    QFETCH(QString, backend);
    TestDatabase db(backend);
    TRIAGE_REQUIRE_BACKEND(db);
    QTemporaryDir dir;
    const QString ini = writeFile(dir, QStringLiteral("triage.ini"),
                                  QStringLiteral("[idempotency]\nurl=%1\n[intent]\nurl=%1\n[ticket]\nurl=%1\n"
                                                 "[console]\nread_onyl=true\n"
                                                 "[biz.ticket_create]\nprocessing_timout=5\n"
                                                 "upstream_query_ulr=http://127.0.0.1:9/tickets?idem_key={idem_key}\n")
                                      .arg(db.url()));
    const QStringList a = {QStringLiteral("--config"), ini, QStringLiteral("init-schema")};
    const CtlRun r = runCtl(a);
    QVERIFY2(r.finished, r.describe().constData());
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(stderrLines(r),
             (QStringList{
                 QStringLiteral("triagectl: config %1:8: unknown key \"read_onyl\" in [console] (did you mean read_only?)").arg(ini),
                 QStringLiteral("triagectl: config %1:10: unknown key \"processing_timout\" in [biz.ticket_create] (did you mean "
                                "processing_timeout?)")
                     .arg(ini),
                 QStringLiteral("triagectl: config %1:11: unknown key \"upstream_query_ulr\" in [biz.ticket_create] (did you mean "
                                "upstream_query_url?)")
                     .arg(ini),
                 QStringLiteral("triagectl: run \"triagectl --help\" for usage"),
             }));
    QVERIFY(r.out.isEmpty());
    // Nothing was created: the table init-schema would make does not exist.
    QString error;
    db.adminQueryColumn(QStringLiteral("SELECT COUNT(*) FROM idempotency_record"), &error);
    QVERIFY2(!error.isEmpty(), "init-schema wrote with a typo'd config");
}

void TstConfigCli::consoleRefusesATypoConfig()
{
    // triage-console reads the same file the same way: exit 1 before a window opens.
    QTemporaryDir dir;
    const QString ini = writeFile(dir, QStringLiteral("triage.ini"),
                                  QStringLiteral("[console]\nread_onyl=true\n[biz.ticket_create]\nprocessing_timout=5\n"));
    QProcess p;
    p.start(QStringLiteral(TRIAGE_CONSOLE_PATH), {QStringLiteral("--config"), ini});
    QVERIFY(p.waitForStarted(30000));
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QStringList lines;
    for (const QString &l : QString::fromUtf8(p.readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (l.startsWith(QLatin1String("triage-console: ")))
            lines << l;
    QCOMPARE(lines, (QStringList{
                        QStringLiteral("triage-console: config %1:2: unknown key \"read_onyl\" in [console] (did you mean read_only?)").arg(ini),
                        QStringLiteral("triage-console: config %1:4: unknown key \"processing_timout\" in [biz.ticket_create] (did you "
                                       "mean processing_timeout?)")
                            .arg(ini),
                    }));
}

void TstConfigCli::demoSettingsMatchTheDemo()
{
    const QStringList a = {QStringLiteral("--demo"), QStringLiteral("list"), QStringLiteral("unknown"), QStringLiteral("--limit"),
                           QStringLiteral("1")};
    const CtlRun r = runCtl(a);
    QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
    QCOMPARE(stderrLines(r), QStringList());
}

QTEST_GUILESS_MAIN(TstConfigCli)
#include "tst_config_cli.moc"
