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
const QString kFourEyesAmountOver = QStringLiteral("four_eyes_amount_over");
const QString kAnyCurrency = QStringLiteral("*");

/// four_eyes_amount_over's text as thresholds; nullopt when it is not one (checkPolicyValue()),
/// with `*repeated` the currency listed twice when that is why.
std::optional<AmountThresholds> parseAmountThresholds(const QString &value, QString *repeated = nullptr)
{
    AmountThresholds t;
    if (value.trimmed().compare(QLatin1String("none"), Qt::CaseInsensitive) == 0)
        return t;
    static const QRegularExpression code(QStringLiteral("^(?:[A-Z]{3}|\\*)$"));
    for (const QString &part : value.split(QLatin1Char(','))) {
        const qsizetype colon = part.indexOf(QLatin1Char(':'));
        if (colon < 0)
            return std::nullopt;
        const QString currency = part.left(colon).trimmed().toUpper();
        const QString amount = canonicalDecimal(part.mid(colon + 1));
        if (!code.match(currency).hasMatch() || amount.isEmpty() || amount.startsWith(QLatin1Char('-')))
            return std::nullopt;
        if (t.contains(currency)) {
            if (repeated)
                *repeated = currency;
            return std::nullopt;
        }
        t.insert(currency, amount);
    }
    return t;
}

/// The threshold of `currency` in `t`: its own, else "*"'s; nullopt: none (any amount needs a
/// second operator).
std::optional<QString> thresholdOf(const AmountThresholds &t, const QString &currency)
{
    if (!currency.isEmpty() && t.contains(currency))
        return t.value(currency);
    if (t.contains(kAnyCurrency))
        return t.value(kAnyCurrency);
    return std::nullopt;
}

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
    return {kFailedEvidence, kFailedEvidenceMaxAge, kMoneyMoving, kReconcile, kConfirmDelay, kSlaHours, kFourEyes, kFourEyesAmountOver};
}

QStringList globalPolicySettingNames()
{
    return {fourEyesDbUsersName(), fourEyesPolicyName()};
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

QString amountThresholdsText(const AmountThresholds &thresholds)
{
    QStringList parts;
    for (auto it = thresholds.cbegin(); it != thresholds.cend(); ++it)
        if (it.key() != kAnyCurrency)
            parts << it.key() + QLatin1Char(':') + it.value();
    if (thresholds.contains(kAnyCurrency))
        parts << kAnyCurrency + QLatin1Char(':') + thresholds.value(kAnyCurrency);
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QLatin1Char(','));
}

AmountThresholds stricterAmountThresholds(const AmountThresholds &a, const AmountThresholds &b)
{
    // A currency stays only where both lists have a threshold for it (its own or "*"): a
    // currency either list leaves uncovered stays uncovered, so it still needs a second operator.
    // The result may be empty: then no amount passes without one.
    AmountThresholds out;
    QStringList currencies = a.keys() + b.keys();
    for (const QString &c : currencies) {
        const std::optional<QString> ta = thresholdOf(a, c == kAnyCurrency ? QString() : c);
        const std::optional<QString> tb = thresholdOf(b, c == kAnyCurrency ? QString() : c);
        if (c == kAnyCurrency && !(a.contains(kAnyCurrency) && b.contains(kAnyCurrency)))
            continue;
        if (ta && tb)
            out.insert(c, compareDecimalMagnitude(*ta, *tb) <= 0 ? *ta : *tb);
    }
    return out;
}

QString fourEyesAmountReason(const BizPolicy &policy, const QVector<AmountSeen> &amounts)
{
    if (!policy.fourEyesAmountOver) // set but empty: a merge left no currency a threshold
        return {};
    if (amounts.isEmpty())
        return QStringLiteral("no amount could be read (no snapshot, business row or intent request carries one)");
    for (const AmountSeen &a : amounts) {
        const QString value = canonicalDecimal(a.amount);
        if (value.isEmpty())
            return QStringLiteral("the amount \"%1\" (%2) is not a plain decimal").arg(a.amount, a.source);
        const QString currency = a.currency.trimmed().toUpper();
        const QString shown = currency.isEmpty() ? a.amount : a.amount + QLatin1Char(' ') + a.currency;
        const std::optional<QString> threshold = thresholdOf(*policy.fourEyesAmountOver, currency);
        if (!threshold)
            return QStringLiteral("%1 (%2): no threshold for %3")
                .arg(shown, a.source, currency.isEmpty() ? QStringLiteral("an amount without a currency") : currency);
        if (compareDecimalMagnitude(value, *threshold) > 0)
            return QStringLiteral("%1 (%2) is over %3").arg(shown, a.source, *threshold);
    }
    return {};
}

namespace {

FourEyesRule ruleFor(const BizPolicy &policy, const QString &bizType, bool listed, const QVector<AmountSeen> &amounts)
{
    const QString prefix = QStringLiteral("biz.") + bizType + QLatin1Char('.');
    if (listed)
        return {prefix + kFourEyes, {}};
    if (const QString why = fourEyesAmountReason(policy, amounts); !why.isEmpty())
        return {prefix + kFourEyesAmountOver, why};
    return {};
}

} // namespace

FourEyesRule fourEyesRuleForMark(const BizPolicy &policy, const QString &bizType, int toStatus, const QVector<AmountSeen> &amounts)
{
    if (toStatus != 1 && toStatus != 2) // Success, Failed (RecordStatus.h): nothing else is marked
        return {};
    return ruleFor(policy, bizType, requiresFourEyes(policy, toStatus), amounts);
}

FourEyesRule fourEyesRuleForCompensation(const BizPolicy &policy, const QString &bizType, const QVector<AmountSeen> &amounts)
{
    return ruleFor(policy, bizType, requiresFourEyesCompensation(policy), amounts);
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
                      globalPolicySettingNames().join(QStringLiteral(" or ")));
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
    if (setting == fourEyesPolicyName()) {
        if (lower == QLatin1String("on") || lower == QLatin1String("off"))
            return lower;
        return bad(QStringLiteral("on or off"));
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
    if (setting == kFourEyesAmountOver) {
        QString repeated;
        if (const std::optional<AmountThresholds> t = parseAmountThresholds(v, &repeated))
            return amountThresholdsText(*t);
        if (!repeated.isEmpty()) {
            *error = QStringLiteral("bad value \"%1\" for %2: %3 is listed twice").arg(value, setting, repeated);
            return std::nullopt;
        }
        return bad(QStringLiteral("none or a comma-separated list of CURRENCY:AMOUNT (a three-letter code, or * for every other "
                                  "currency and amounts without one; a plain decimal of at least 0), e.g. EUR:1000,USD:1000"));
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
        } else if (setting == kFourEyesAmountOver) {
            if (const auto t = parseAmountThresholds(*v); t && !t->isEmpty())
                p.fourEyesAmountOver = *t;
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
    p.fourEyesAmountOver = merge(db.fourEyesAmountOver, ini.fourEyesAmountOver, stricterAmountThresholds);
    return p;
}

} // namespace triage
