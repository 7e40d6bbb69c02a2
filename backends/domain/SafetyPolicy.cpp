#include "SafetyPolicy.h"

#include <QRegularExpression>

#include <algorithm>
#include <climits>

namespace triage {

namespace {

const QString kFailedEvidence = QStringLiteral("failed_evidence");
const QString kFailedEvidenceMaxAge = QStringLiteral("failed_evidence_max_age");
const QString kMoneyMoving = QStringLiteral("money_moving");
const QString kReconcile = QStringLiteral("reconcile");
const QString kConfirmDelay = QStringLiteral("reconcile_confirm_delay");
const QString kSlaHours = QStringLiteral("review_sla_hours");
const QString kFourEyes = QStringLiteral("four_eyes");

std::optional<int> intOf(const QString &v)
{
    bool ok = false;
    const int n = v.toInt(&ok);
    return ok ? std::optional<int>(n) : std::nullopt;
}

/// The stricter of two optionals by `pick` (both set), else whichever is set.
template <typename T, typename Pick>
std::optional<T> merge(const std::optional<T> &a, const std::optional<T> &b, Pick pick)
{
    if (a && b)
        return pick(*a, *b);
    return a ? a : b;
}

} // namespace

QStringList policySettingNames()
{
    return {kFailedEvidence, kFailedEvidenceMaxAge, kMoneyMoving, kReconcile, kConfirmDelay, kSlaHours, kFourEyes};
}

QStringList globalPolicySettingNames()
{
    return {fourEyesDbUsersName()};
}

QStringList fourEyesActionNames()
{
    return {QStringLiteral("mark_success"), QStringLiteral("mark_failed"), QStringLiteral("compensate")};
}

QString fourEyesText(int flags)
{
    QStringList names;
    const QStringList all = fourEyesActionNames();
    for (int i = 0; i < all.size(); ++i)
        if (flags & (1 << i))
            names << all.at(i);
    return names.isEmpty() ? QStringLiteral("none") : names.join(QLatin1Char(','));
}

bool requiresFourEyes(const BizPolicy &policy, int toStatus)
{
    const int flags = policy.fourEyes.value_or(0);
    if (toStatus == 1) // Success (RecordStatus.h)
        return flags & FourEyesMarkSuccess;
    if (toStatus == 2) // Failed
        return flags & FourEyesMarkFailed;
    return false;
}

bool requiresFourEyesCompensation(const BizPolicy &policy)
{
    return policy.fourEyes.value_or(0) & FourEyesCompensate;
}

std::optional<PolicyName> parsePolicyName(const QString &name, QString *error)
{
    static const QRegularExpression shape(QStringLiteral("^biz\\.([A-Za-z0-9_-]+)\\.([a-z_]+)$"));
    const QRegularExpressionMatch m = shape.match(name);
    if (m.hasMatch() && policySettingNames().contains(m.captured(2)))
        return PolicyName{m.captured(1), m.captured(2)};
    if (globalPolicySettingNames().contains(name))
        return PolicyName{QString(), name};
    const QStringList names = policySettingNames();
    *error = QStringLiteral("unknown policy setting \"%1\": use biz.<biz_type>.<setting> with setting %2 or %3, or %4")
                 .arg(name, names.mid(0, names.size() - 1).join(QStringLiteral(", ")), names.last(),
                      globalPolicySettingNames().join(QStringLiteral(", ")));
    if (name == policyFreezeName())
        *error = QStringLiteral("\"frozen\" is changed by triagectl policy freeze / unfreeze, not policy set");
    return std::nullopt;
}

std::optional<QString> checkPolicyValue(const QString &setting, const QString &value, QString *error)
{
    const QString v = value.trimmed();
    const QString lower = v.toLower();
    auto bad = [&](const QString &must) {
        *error = QStringLiteral("bad value \"%1\" for %2: must be %3").arg(value, setting, must);
        return std::nullopt;
    };
    if (setting == kMoneyMoving) {
        if (lower == QLatin1String("true") || lower == QLatin1String("false"))
            return lower;
        return bad(QStringLiteral("true or false"));
    }
    if (setting == kFailedEvidence) {
        if (lower == QLatin1String("upstream") || lower == QLatin1String("ticket_absent"))
            return lower;
        return bad(QStringLiteral("upstream or ticket_absent"));
    }
    if (setting == fourEyesDbUsersName()) {
        if (lower == QLatin1String("own") || lower == QLatin1String("shared"))
            return lower;
        return bad(QStringLiteral("own or shared"));
    }
    if (setting == kFourEyes) {
        const QStringList all = fourEyesActionNames();
        if (lower == QLatin1String("none"))
            return lower;
        int flags = 0;
        for (const QString &part : lower.split(QLatin1Char(','))) {
            const int i = all.indexOf(part.trimmed());
            if (i < 0)
                return bad(QStringLiteral("none or a comma-separated list of %1").arg(all.join(QStringLiteral(", "))));
            flags |= 1 << i;
        }
        return fourEyesText(flags);
    }
    if (setting == kReconcile) {
        if (lower == QLatin1String("auto") || lower == QLatin1String("escalate"))
            return lower;
        return bad(QStringLiteral("auto or escalate"));
    }
    const bool hours = setting == kSlaHours;
    const int max = hours ? 8760 : INT_MAX;
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,10}$"));
    const std::optional<int> n = digits.match(v).hasMatch() ? intOf(v) : std::nullopt;
    if (n && *n >= 1 && *n <= max)
        return QString::number(*n);
    return bad(QStringLiteral("a whole number of %1 from 1 to %2").arg(hours ? QStringLiteral("hours") : QStringLiteral("seconds")).arg(max));
}

BizPolicy bizPolicyFromRows(const QMap<QString, QString> &rows, const QString &bizType)
{
    BizPolicy p;
    const QString prefix = QStringLiteral("biz.") + bizType + QLatin1Char('.');
    for (auto it = rows.cbegin(); it != rows.cend(); ++it) {
        if (!it.key().startsWith(prefix))
            continue;
        const QString setting = it.key().mid(prefix.size());
        QString why;
        const std::optional<QString> v = checkPolicyValue(setting, it.value(), &why);
        if (!v)
            continue; // a row this build cannot read (written by hand or a newer build): ignored
        if (setting == kFailedEvidence)
            p.failedEvidence = *v == QLatin1String("upstream") ? FailedEvidence::Upstream : FailedEvidence::TicketAbsent;
        else if (setting == kFailedEvidenceMaxAge)
            p.failedEvidenceMaxAgeS = v->toInt();
        else if (setting == kMoneyMoving)
            p.moneyMoving = *v == QLatin1String("true");
        else if (setting == kReconcile)
            p.reconcileEscalate = *v == QLatin1String("escalate");
        else if (setting == kConfirmDelay)
            p.reconcileConfirmDelayS = v->toInt();
        else if (setting == kSlaHours)
            p.reviewSlaHours = v->toInt();
        else if (setting == kFourEyes) {
            int flags = 0;
            const QStringList all = fourEyesActionNames();
            for (const QString &part : v->split(QLatin1Char(',')))
                if (const int i = all.indexOf(part); i >= 0)
                    flags |= 1 << i;
            p.fourEyes = flags;
        }
    }
    return p;
}

BizPolicy stricterPolicy(const BizPolicy &db, const BizPolicy &ini)
{
    BizPolicy p;
    // upstream (a recorded NOT_FOUND) is stricter than ticket_absent (DESIGN.md §6).
    p.failedEvidence = merge(db.failedEvidence, ini.failedEvidence, [](FailedEvidence a, FailedEvidence b) {
        return a == FailedEvidence::Upstream || b == FailedEvidence::Upstream ? FailedEvidence::Upstream : FailedEvidence::TicketAbsent;
    });
    p.failedEvidenceMaxAgeS = merge(db.failedEvidenceMaxAgeS, ini.failedEvidenceMaxAgeS, [](int a, int b) { return std::min(a, b); });
    p.moneyMoving = merge(db.moneyMoving, ini.moneyMoving, [](bool a, bool b) { return a || b; });
    // Each source's reconcile policy as it stands alone (unset: escalate when it says
    // money_moving = true), so an INI's "auto" cannot undo the database's money-moving default.
    auto reconcileOf = [](const BizPolicy &s) -> std::optional<bool> {
        if (s.reconcileEscalate)
            return s.reconcileEscalate;
        return s.moneyMoving.value_or(false) ? std::optional<bool>(true) : std::nullopt;
    };
    p.reconcileEscalate = merge(reconcileOf(db), reconcileOf(ini), [](bool a, bool b) { return a || b; });
    p.reconcileConfirmDelayS = merge(db.reconcileConfirmDelayS, ini.reconcileConfirmDelayS, [](int a, int b) { return std::max(a, b); });
    p.reviewSlaHours = merge(db.reviewSlaHours, ini.reviewSlaHours, [](int a, int b) { return std::min(a, b); });
    // More actions under four-eyes is stricter: the union (DESIGN.md §9 "Four-eyes").
    p.fourEyes = merge(db.fourEyes, ini.fourEyes, [](int a, int b) { return a | b; });
    return p;
}

} // namespace triage
