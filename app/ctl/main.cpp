// triagectl: the Triage Console's operations for scripts, cron jobs and tests (DESIGN.md §5).
#include "Triagectl.h"

#include <QApplication>
#include <QCoreApplication>

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
    std::unique_ptr<QCoreApplication> app;
    if (ctl.needsGui(arguments)) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        app = std::make_unique<QApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    QCoreApplication::setApplicationName(QStringLiteral("triagectl"));
    return ctl.run(QCoreApplication::arguments());
}
