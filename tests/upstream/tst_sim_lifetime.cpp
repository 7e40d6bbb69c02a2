// The upstream simulator ends with the process that started it (UpstreamSimulatorProcess):
// when that parent is killed with SIGTERM or SIGKILL (no destructor runs) and when it exits
// normally (the destructor stops it). The parent is this test program itself, re-started
// in "launcher" mode: it starts the simulator through the same launcher the console's
// --demo uses, prints the simulator's pid, and waits (or returns at once for a normal exit).
// The simulator counts as gone when its /proc entry is gone or it is a zombie (it has
// exited; who reaps an orphan is up to the container's init). The wait is bounded (15 s):
// without PR_SET_PDEATHSIG the simulator would run on forever with parent pid 1.

#include "SimTestUtil.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTest>

#include <cstdio>
#include <signal.h>

using namespace triage;
using namespace triage::test;

namespace {

/// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', …), or 0 when there is no such process.
char processState(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray stat = f.readAll();
    const int close = stat.lastIndexOf(')'); // the command name may contain spaces
    return close > 0 && close + 2 < stat.size() ? stat.at(close + 2) : 0;
}

bool processGone(qint64 pid)
{
    const char s = processState(pid);
    return s == 0 || s == 'Z' || s == 'X';
}

/// Launcher mode: `tst_sim_lifetime --launch TICKET_DB_URL wait|exit`.
int launch(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    UpstreamSimulatorProcess sim;
    QString error;
    if (!sim.start(QString::fromLocal8Bit(argv[2]), &error)) {
        std::fprintf(stdout, "error %s\n", qUtf8Printable(error));
        return 3;
    }
    std::fprintf(stdout, "sim %lld\n", static_cast<long long>(sim.processId()));
    std::fflush(stdout);
    if (qstrcmp(argv[3], "exit") == 0)
        return 0; // ~UpstreamSimulatorProcess stops it
    return app.exec(); // until killed
}

} // namespace

class TestSimLifetime : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TestDatabase> m_db;

private slots:
    void initTestCase()
    {
        m_db = std::make_unique<TestDatabase>(QStringLiteral("sqlite"));
        QVERIFY(m_db->available());
        const QString e = createSchemaWithoutBackstop(*m_db);
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }
    void cleanupTestCase() { m_db.reset(); }

    void endsWithItsParent_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("parent killed by SIGTERM") << QStringLiteral("sigterm");
        QTest::newRow("parent killed by SIGKILL") << QStringLiteral("sigkill");
        QTest::newRow("parent exits normally") << QStringLiteral("exit");
    }
    void endsWithItsParent()
    {
        QFETCH(QString, how);
        QProcess parent;
        parent.setProgram(QCoreApplication::applicationFilePath());
        parent.setArguments({QStringLiteral("--launch"), m_db->url(), how == QLatin1String("exit") ? QStringLiteral("exit")
                                                                                                 : QStringLiteral("wait")});
        parent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        parent.start();
        QVERIFY(parent.waitForStarted(30000));
        // The launcher's log lines go to stdout too: the pid is on the line "sim <pid>".
        QByteArray line;
        while (!line.startsWith("sim ") && !line.startsWith("error ")) {
            if (!parent.canReadLine() && !parent.waitForReadyRead(30000))
                break;
            while (parent.canReadLine() && !line.startsWith("sim ") && !line.startsWith("error "))
                line = parent.readLine().trimmed();
        }
        QVERIFY2(line.startsWith("sim "), line.constData());
        const qint64 simPid = line.mid(4).toLongLong();
        QVERIFY(simPid > 0);
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(simPid));
        if (how != QLatin1String("exit")) {
            // It runs, and it is the simulator, a child of the launcher.
            QVERIFY(cmdline.open(QIODevice::ReadOnly));
            QVERIFY(cmdline.readAll().contains("triage-upstream-sim"));
            QVERIFY(!processGone(simPid));
            if (how == QLatin1String("sigterm"))
                ::kill(pid_t(parent.processId()), SIGTERM);
            else
                ::kill(pid_t(parent.processId()), SIGKILL);
        }
        QVERIFY(parent.waitForFinished(30000));
        if (how == QLatin1String("exit")) {
            QCOMPARE(parent.exitStatus(), QProcess::NormalExit);
            QCOMPARE(parent.exitCode(), 0);
            // The destructor waited for the simulator to end: it is gone already.
            QVERIFY2(processGone(simPid), qPrintable(QStringLiteral("simulator %1 still runs").arg(simPid)));
        } else {
            QCOMPARE(parent.exitStatus(), QProcess::CrashExit);
            const bool gone = QTest::qWaitFor([&] { return processGone(simPid); }, 15000);
            const char state = processState(simPid);
            if (!gone)
                ::kill(pid_t(simPid), SIGKILL); // leave nothing behind
            QVERIFY2(gone, qPrintable(QStringLiteral("simulator %1 still runs (state %2) 15 s after its parent was killed")
                                          .arg(simPid)
                                          .arg(QChar::fromLatin1(state))));
        }
    }
};

int main(int argc, char **argv)
{
    if (argc == 4 && qstrcmp(argv[1], "--launch") == 0)
        return launch(argc, argv);
    QCoreApplication app(argc, argv);
    TestSimLifetime test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sim_lifetime.moc"
