#include "CtlRun.h"

namespace triage::test {

QByteArray CtlRun::describe() const
{
    QByteArray state;
    if (!started)
        state = "did not start";
    else if (timedOut)
        state = "timed out and was killed" + (stacks.isEmpty() ? QByteArray() : "; its stacks:\n" + stacks);
    else if (crashed)
        state = "crashed";
    else
        state = "exit " + QByteArray::number(exitCode);
    return "triagectl " + args.join(QLatin1Char(' ')).toUtf8() + "\n" + state + "\nstderr: " + err
        + "\nstdout (first 3000 bytes): " + out.left(3000);
}

QString ctlPath()
{
    return QStringLiteral(TRIAGECTL_PATH);
}

void startCtl(QProcess &process, const QStringList &args, const QProcessEnvironment &env)
{
    process.setProcessEnvironment(env);
    process.start(ctlPath(), args);
}

CtlRun finishCtl(QProcess &process, const QStringList &args, int timeoutMs)
{
    CtlRun r;
    r.args = args;
    r.started = process.state() != QProcess::NotRunning || process.error() != QProcess::FailedToStart;
    if (!r.started)
        return r;
    if (!process.waitForFinished(timeoutMs) && process.state() != QProcess::NotRunning) {
        r.timedOut = true;
        // A hung triagectl: record every thread's stack for the failure message.
        QProcess gdb;
        gdb.start(QStringLiteral("gdb"), {QStringLiteral("-batch"), QStringLiteral("-p"), QString::number(process.processId()),
                                           QStringLiteral("-ex"), QStringLiteral("thread apply all bt")});
        if (gdb.waitForFinished(60000))
            r.stacks = gdb.readAllStandardOutput();
        process.kill();
        process.waitForFinished(10000);
    }
    r.crashed = !r.timedOut && process.exitStatus() == QProcess::CrashExit;
    r.finished = !r.timedOut && !r.crashed;
    r.exitCode = process.exitCode();
    r.out = process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}

CtlRun runCtl(const QStringList &args, const QProcessEnvironment &env, const QByteArray &input, int timeoutMs)
{
    QProcess process;
    startCtl(process, args, env);
    if (!process.waitForStarted(30000)) {
        CtlRun r;
        r.args = args;
        r.err = process.errorString().toUtf8();
        return r;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    return finishCtl(process, args, timeoutMs);
}

} // namespace triage::test
