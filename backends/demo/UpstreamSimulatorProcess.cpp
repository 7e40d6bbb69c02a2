#include "UpstreamSimulatorProcess.h"

#include "Log.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace triage {

namespace {
const char kBinaryName[] = "triage-upstream-sim";
}

UpstreamSimulatorProcess::UpstreamSimulatorProcess() = default;

UpstreamSimulatorProcess::~UpstreamSimulatorProcess()
{
    stop();
}

QString UpstreamSimulatorProcess::locateBinary()
{
    const QString fromEnv = qEnvironmentVariable("TRIAGE_UPSTREAM_SIM");
    if (!fromEnv.isEmpty() && QFileInfo(fromEnv).isExecutable())
        return fromEnv;
    if (QCoreApplication::instance()) {
        const QDir here(QCoreApplication::applicationDirPath());
        for (const QString &candidate : {here.filePath(QLatin1String(kBinaryName)),
                                         here.filePath(QStringLiteral("../upstream-sim/") + QLatin1String(kBinaryName))}) {
            if (QFileInfo(candidate).isExecutable())
                return QDir::cleanPath(candidate);
        }
    }
    return QStandardPaths::findExecutable(QLatin1String(kBinaryName));
}

bool UpstreamSimulatorProcess::start(const QString &ticketDbUrl, QString *error, const QStringList &extraArgs,
                                     int timeoutMs, const QProcessEnvironment &environment)
{
    stop();
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("upstream simulator: %1").arg(why);
        stop();
        return false;
    };
    const QString program = locateBinary();
    if (program.isEmpty())
        return fail(QStringLiteral("%1 not found (set TRIAGE_UPSTREAM_SIM, or install it next to this program)")
                        .arg(QLatin1String(kBinaryName)));
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(program);
    m_process->setArguments(QStringList{QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--ticket-db"), ticketDbUrl}
                            + extraArgs);
    m_process->setProcessEnvironment(environment);
    m_process->setReadChannel(QProcess::StandardOutput);
#ifdef Q_OS_LINUX
    // The simulator ends with its parent, however the parent ends (SIGTERM, SIGKILL, a
    // crash): the kernel sends it SIGTERM when the thread that started it dies. This runs
    // in the child between fork() and exec() (async-signal-safe calls only); the death
    // signal survives exec(). If the parent died before prctl() took effect, the child has
    // been re-parented already and would never get the signal: it exits instead.
    const pid_t parent = ::getpid();
    m_process->setChildProcessModifier([parent] {
        if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent)
            ::_exit(127);
    });
#endif
    m_process->start();
    if (!m_process->waitForStarted(timeoutMs))
        return fail(QStringLiteral("cannot start %1: %2").arg(program, m_process->errorString()));

    const QDeadlineTimer deadline(timeoutMs);
    QByteArray line;
    while (!m_process->canReadLine()) {
        if (m_process->state() == QProcess::NotRunning || deadline.hasExpired())
            break;
        m_process->waitForReadyRead(int(qMax<qint64>(1, qMin<qint64>(deadline.remainingTime(), 200))));
    }
    if (m_process->canReadLine())
        line = m_process->readLine().trimmed();
    static const QRegularExpression re(QStringLiteral("^listening on http://127\\.0\\.0\\.1:(\\d+)$"));
    const auto m = re.match(QString::fromUtf8(line));
    if (!m.hasMatch()) {
        const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed().right(400);
        if (m_process->state() == QProcess::NotRunning)
            return fail(QStringLiteral("exited (code %1) before listening: %2").arg(m_process->exitCode()).arg(err));
        return fail(QStringLiteral("no \"listening on\" line within %1 ms (got \"%2\") %3")
                        .arg(timeoutMs)
                        .arg(QString::fromUtf8(line), err));
    }
    m_port = quint16(m.captured(1).toUInt());
    logger("backend.upstream")->info("upstream simulator pid {} listening on port {}", m_process->processId(), m_port);
    return true;
}

void UpstreamSimulatorProcess::stop()
{
    m_port = 0;
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(3000)) {
            m_process->kill();
            m_process->waitForFinished(3000);
        }
    }
    m_process.reset();
}

bool UpstreamSimulatorProcess::isRunning() const
{
    return m_process && m_process->state() == QProcess::Running;
}

QUrl UpstreamSimulatorProcess::baseUrl() const
{
    return m_port ? QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port)) : QUrl();
}

qint64 UpstreamSimulatorProcess::processId() const
{
    return m_process ? m_process->processId() : 0;
}

} // namespace triage
