#include "AuditEntry.h"

#include <QSysInfo>
#include <QUuid>

#include <algorithm>

namespace triage {

QString canonicalAuditAction(const QString &stored)
{
    QString out = stored.trimmed().toLower();
    out.replace(QLatin1Char('-'), QLatin1Char('_'));
    out.replace(QLatin1Char(' '), QLatin1Char('_'));
    return out;
}

AuditEntry boundedAuditEntry(AuditEntry e, qsizetype maxRowBytes)
{
    auto size = [](const QString &s) { return qsizetype(s.toUtf8().size()); };
    const qsizetype fixed = size(e.requestId) + size(e.operatorName) + size(e.dbUser) + size(e.host) + size(e.action)
        + size(e.idemKey) + size(e.reason) + size(e.outcome);
    QVector<QString *> large{&e.fromState, &e.toState, &e.evidence, &e.detail};
    qsizetype total = fixed;
    for (const QString *f : std::as_const(large))
        total += size(*f);
    if (total <= maxRowBytes)
        return e;
    std::stable_sort(large.begin(), large.end(), [&](const QString *a, const QString *b) { return size(*a) < size(*b); });
    qsizetype budget = std::max<qsizetype>(0, maxRowBytes - fixed);
    qsizetype left = large.size();
    for (QString *f : std::as_const(large)) {
        const qsizetype share = budget / left--;
        if (size(*f) > share)
            *f = boundedText(*f, share);
        budget = std::max<qsizetype>(0, budget - size(*f));
    }
    return e;
}

QString auditHostName()
{
    return QSysInfo::machineHostName().left(255);
}

AuditEntry auditStamp(QStringView action, const QString &idemKey, const QString &operatorName, const QString &dbUser,
                      const QString &requestId)
{
    AuditEntry a;
    a.requestId = requestId.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : requestId;
    a.operatorName = operatorName;
    a.dbUser = dbUser;
    a.host = auditHostName();
    a.action = action.toString();
    a.idemKey = idemKey;
    return a;
}

} // namespace triage
