#include "ReconcileConfig.h"

#include "WorkspaceConfig.h"

#include <QFileInfo>
#include <QSettings>
#include <QStringList>

namespace triage {

QString reconcilePolicyName(ReconcilePolicy policy)
{
    return policy == ReconcilePolicy::Auto ? QStringLiteral("auto") : QStringLiteral("escalate");
}

ReconcileBizConfig reconcileConfigFromFile(const QString &path, const QString &bizType)
{
    ReconcileBizConfig c;
    if (path.isEmpty() || !QFileInfo::exists(path))
        return c;
    QSettings s(path, QSettings::IniFormat);
    s.beginGroup(QStringLiteral("biz.") + bizType);
    const QString money = s.value(QStringLiteral("money_moving")).toString().trimmed().toLower();
    // QVariant::toBool() reads "no" and "off" as true: only the spellings ConfigKeys accepts.
    c.moneyMoving = money == QLatin1String("true") || money == QLatin1String("yes") || money == QLatin1String("on")
        || money == QLatin1String("1");
    const QString policy = s.value(QStringLiteral("reconcile")).toString().trimmed().toLower();
    if (policy == QLatin1String("auto"))
        c.reconcile = ReconcilePolicy::Auto;
    else if (policy == QLatin1String("escalate"))
        c.reconcile = ReconcilePolicy::Escalate;
    bool ok = false;
    const int delay = s.value(QStringLiteral("reconcile_confirm_delay")).toString().trimmed().toInt(&ok);
    if (ok && delay > 0)
        c.confirmDelayS = delay;
    s.endGroup();
    return c;
}

int reconcileExpectedEveryS(const WorkspaceConfig &config)
{
    return configFileInt(config, QStringLiteral("console/reconcile_expected_every"), 3600, 1);
}

QTimeZone reviewTimeZone(const WorkspaceConfig &config)
{
    if (config.sourceFile.isEmpty() || !QFileInfo::exists(config.sourceFile))
        return QTimeZone::utc();
    QSettings s(config.sourceFile, QSettings::IniFormat);
    const QByteArray name = s.value(QStringLiteral("console/review_time_zone")).toString().trimmed().toUtf8();
    if (name.isEmpty() || name == "UTC")
        return QTimeZone::utc();
    const QTimeZone zone(name);
    return zone.isValid() ? zone : QTimeZone::utc();
}

int reviewSlaHours(const WorkspaceConfig &config, const QString &bizType)
{
    return configFileInt(config, QStringLiteral("biz.%1/review_sla_hours").arg(bizType), 24, 1);
}

ReconcileBizConfig reconcileConfigOf(const BizPolicy &policy)
{
    ReconcileBizConfig c;
    c.moneyMoving = policy.moneyMoving.value_or(false);
    if (policy.reconcileEscalate)
        c.reconcile = *policy.reconcileEscalate ? ReconcilePolicy::Escalate : ReconcilePolicy::Auto;
    c.confirmDelayS = policy.reconcileConfirmDelayS.value_or(c.confirmDelayS);
    return c;
}

ReconcileBizConfig reconcileConfigFor(const WorkspaceConfig &config, const QString &bizType)
{
    if (config.sourceFile.isEmpty()) {
        ReconcileBizConfig c;
        c.moneyMoving = config.moneyMovingWithoutFile.contains(bizType);
        return c;
    }
    return reconcileConfigFromFile(config.sourceFile, bizType);
}

} // namespace triage
