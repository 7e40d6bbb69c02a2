// triagectl: the Triage Console's operations for scripts, cron jobs and tests (DESIGN.md §5).
#include "Triagectl.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <memory>

int main(int argc, char **argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    triage::ctl::Triagectl ctl;
    // Only a command that draws (report: fonts, Qt Charts) gets a QApplication, on the
    // offscreen platform unless QT_QPA_PLATFORM says otherwise: it needs no display and its
    // output does not depend on one. Every other command keeps the light QCoreApplication.
    // A drawing command run without a session (cron, ssh, a container) has no XDG_RUNTIME_DIR:
    // QStandardPaths would then warn on stderr and fall back to a shared /tmp folder. It gets a
    // private one instead (created 0700 as QStandardPaths requires; removed at exit, after the
    // application), so a successful run writes nothing on stderr.
    std::unique_ptr<QTemporaryDir> runtimeDir;
    std::unique_ptr<QCoreApplication> app;
    if (ctl.needsGui(arguments)) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
            runtimeDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/triagectl-runtime-XXXXXX"));
            if (runtimeDir->isValid()
                && QFile::setPermissions(runtimeDir->path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadUser
                                                                 | QFile::WriteUser | QFile::ExeUser))
                qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtimeDir->path()));
        }
        app = std::make_unique<QApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    QCoreApplication::setApplicationName(QStringLiteral("triagectl"));
    return ctl.run(QCoreApplication::arguments());
}
