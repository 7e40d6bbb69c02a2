#include "WindowGap.h"

namespace triage {

QString windowGapText(qint64 micros)
{
    const qint64 minutes = micros / (60LL * 1000 * 1000);
    QString span;
    if (minutes < 60)
        span = QStringLiteral("%1 min").arg(minutes);
    else if (minutes < 24 * 60)
        span = minutes % 60 ? QStringLiteral("%1 h %2 min").arg(minutes / 60).arg(minutes % 60) : QStringLiteral("%1 h").arg(minutes / 60);
    else
        span = (minutes / 60) % 24 ? QStringLiteral("%1 d %2 h").arg(minutes / (24 * 60)).arg((minutes / 60) % 24)
                                   : QStringLiteral("%1 d").arg(minutes / (24 * 60));
    return QStringLiteral("\u2014 %1 without events \u2014").arg(span);
}

} // namespace triage
