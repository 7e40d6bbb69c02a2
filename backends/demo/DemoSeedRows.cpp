// Rows the demo's generators share (DemoData.cpp, DemoHistory.cpp): ids, operators' audit rows,
// an operator's mark as the mark service audits it.
#include "DemoData.h"

#include "AuditEntry.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

namespace {

QString json(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

} // namespace

QString seedUuid(QRandomGenerator &rng)
{
    const quint64 a = rng.generate64(), b = rng.generate64();
    const QString hex = QStringLiteral("%1%2").arg(a, 16, 16, QLatin1Char('0')).arg(b, 16, 16, QLatin1Char('0'));
    return hex.mid(0, 8) + QLatin1Char('-') + hex.mid(8, 4) + QStringLiteral("-4") + hex.mid(13, 3) + QLatin1Char('-')
        + hex.mid(16, 4) + QLatin1Char('-') + hex.mid(20, 12);
}

SeedAudit seedOperatorAudit(QRandomGenerator &rng, const QString &key, const QString &operatorName, const char16_t *action,
                            qint64 atAgo, const QString &outcome, const QString &reason)
{
    SeedAudit a;
    a.requestId = seedUuid(rng);
    a.idemKey = key;
    a.operatorName = operatorName;
    a.host = a.operatorName + QStringLiteral("-laptop");
    a.action = QString::fromUtf16(action);
    a.outcome = outcome;
    a.reason = reason;
    a.atAgo = atAgo;
    return a;
}

SeedAudit seedMark(QRandomGenerator &rng, SeedRecord &record, const QString &operatorName, RecordStatusCode to, qint64 atAgo,
                   const QString &reason, const QString &evidence)
{
    SeedAudit a = seedOperatorAudit(rng, record.idemKey, operatorName, to == Success ? audit_action::MarkSuccess : audit_action::MarkFailed,
                                    atAgo, QStringLiteral("applied"), reason);
    a.fromState = json({{QStringLiteral("status"), QStringLiteral("PROCESSING")}, {QStringLiteral("status_code"), 0}});
    a.fromUpdatedAgo = record.updatedAgo; // the state the operator saw: before this mark wrote it
    a.toState = json({{QStringLiteral("status"), recordStatusName(to)}, {QStringLiteral("status_code"), int(to)}});
    a.evidence = evidence;
    record.status = to;
    record.updatedAgo = atAgo;
    return a;
}

} // namespace triage
