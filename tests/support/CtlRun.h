#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStringList>

namespace triage::test {

/// What one run of the built triagectl produced.
struct CtlRun {
    QStringList args;      ///< the arguments it ran with
    bool started = false;  ///< the process started
    bool finished = false; ///< it exited normally within the time allowed
    bool crashed = false;  ///< it died of a signal
    bool timedOut = false; ///< it was killed after the time allowed
    int exitCode = -1;     ///< its exit code (valid when finished)
    QByteArray out, err;   ///< everything it wrote to stdout and stderr
    QByteArray stacks;     ///< on a timeout: every thread's stack (gdb), when gdb is there

    /// finished with exit code 0.
    bool ok() const { return finished && exitCode == 0; }
    /// A failure message with everything needed to diagnose the run: the command line,
    /// the exit code or why there is none (did not start, crashed, timed out after N ms,
    /// with the stacks), stderr and the first 3000 bytes of stdout.
    QByteArray describe() const;
};

/// `text` (UTF-8) with every server time to the second ("2026-12-03 08:14:07", as triagectl's
/// tables print them) replaced by "<t>", so an output can be compared exactly.
inline QString timesAsT(const QByteArray &text)
{
    static const QRegularExpression t(QStringLiteral(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"));
    return QString::fromUtf8(text).replace(t, QStringLiteral("<t>"));
}

/// Milliseconds a triagectl run may take by default before it is a hang.
constexpr int kCtlTimeoutMs = 180000;

/// The path of the triagectl executable the tests run.
QString ctlPath();

/// Runs triagectl with `args` in `env`, writing `input` to its stdin (then closing it),
/// and waits up to `timeoutMs`; a run past that is killed and reported as timed out.
CtlRun runCtl(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
              const QByteArray &input = QByteArray(), int timeoutMs = kCtlTimeoutMs);

/// Starts triagectl with `args` in `env` on `process` (for tests that act while it runs);
/// finish it with finishCtl().
void startCtl(QProcess &process, const QStringList &args,
              const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

/// Waits up to `timeoutMs` for `process` (started by startCtl() with `args`) and collects
/// what it produced, as runCtl().
CtlRun finishCtl(QProcess &process, const QStringList &args, int timeoutMs = kCtlTimeoutMs);

} // namespace triage::test

/// Runs triagectl with the arguments after `code` as `const CtlRun name` and fails the test
/// (with the run's description: arguments, exit, stdout, stderr) unless it finished with exit
/// `code`. Shared by the CLI tests; define RUN_EXIT yourself before including this header to
/// bind other arguments.
#ifndef RUN_EXIT
#define RUN_EXIT(name, code, ...)                                          \
    const CtlRun name = triage::test::runCtl(__VA_ARGS__);                 \
    QVERIFY2(name.finished && name.exitCode == (code), name.describe().constData())
#endif
