// triagectl: the Triage Console's operations for scripts, cron jobs and tests (DESIGN.md §5).
#include "Triagectl.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("triagectl"));
    triage::ctl::Triagectl ctl;
    return ctl.run(QCoreApplication::arguments());
}
