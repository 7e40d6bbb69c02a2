#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace triage {

/// Runs the upstream simulator (`triage-upstream-sim`, app/upstream-sim) as a child process on a
/// free loopback port, serving the ticket query API from a ticket database (used by
/// `--demo` and by tests). Qt Core only. The process is stopped on destruction (SIGTERM,
/// then SIGKILL), and on Linux it also ends when its parent ends without that cleanup
/// (killed by SIGTERM or SIGKILL, crashed): the child sets PR_SET_PDEATHSIG = SIGTERM
/// before exec and exits at once if its parent is already gone. The death signal follows
/// the *thread* that called start(): start it from a thread that lives as long as the
/// simulator should (the main thread in the console and triagectl).
///
/// start() blocks the calling thread until the simulator prints its first line
/// ("listening on http://127.0.0.1:PORT") or the timeout passes; it polls the process
/// pipe (no event loop runs). Call it at startup, before a window opens, or off the GUI
/// thread. Use the object on one thread only (QProcess rules).
class UpstreamSimulatorProcess {
public:
    UpstreamSimulatorProcess();
    ~UpstreamSimulatorProcess();
    UpstreamSimulatorProcess(const UpstreamSimulatorProcess &) = delete;
    UpstreamSimulatorProcess &operator=(const UpstreamSimulatorProcess &) = delete;

    /// Where the simulator binary is: $TRIAGE_UPSTREAM_SIM if set, else next to the running
    /// executable (an installed demo), else in the build tree's `app/upstream-sim/` beside
    /// the running program's folder (`build/app/console`, `build/app/ctl`), else on PATH.
    /// Empty when none is found. No build path is compiled in.
    static QString locateBinary();

    /// Starts the simulator for `ticketDbUrl` (sqlite:///…, postgresql://…, mysql://…;
    /// the password comes from the environment as for the console) with `extraArgs`
    /// (e.g. "--no-idempotency"), in `environment`. Waits up to `timeoutMs` for the port.
    /// Returns false and sets `*error` (binary missing, exited early with its stderr
    /// tail, no port line in time). Stops a simulator started before.
    bool start(const QString &ticketDbUrl, QString *error, const QStringList &extraArgs = {},
               int timeoutMs = 15000,
               const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

    /// Terminates the simulator (SIGTERM, then SIGKILL after 3 s). Safe to call twice.
    void stop();

    bool isRunning() const;
    /// The bound port (0 before start() succeeded).
    quint16 port() const { return m_port; }
    /// "http://127.0.0.1:PORT" — use as upstream_base_url.
    QUrl baseUrl() const;
    /// The process id, or 0.
    qint64 processId() const;

private:
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
};

} // namespace triage
