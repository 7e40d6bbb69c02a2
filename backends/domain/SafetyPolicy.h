#pragma once
// The safety policy kept in the database (DESIGN.md §8 "Safety policy"): which settings it
// holds, how a value is checked, and the one rule that merges the database's value with the
// local INI's — each setting has a "stricter" direction and the INI may only move a setting
// that way (never weaker than the database).

#include "Amount.h"
#include "BizTypeConfig.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace triage {

/// The row name of the global freeze in triage_policy (value "true" or "false").
inline QString policyFreezeName()
{
    return QStringLiteral("frozen");
}

/// The per-biz_type settings the policy holds, as named in [biz.<biz_type>] of the INI, and
/// each one's stricter direction (DESIGN.md §8 "Safety policy"):
/// failed_evidence (upstream is stricter than ticket_absent), failed_evidence_max_age
/// (seconds; smaller is stricter), money_moving (true is stricter), reconcile (escalate is
/// stricter than auto), reconcile_confirm_delay (seconds; larger is stricter),
/// review_sla_hours (hours; smaller is stricter), four_eyes (the actions that need a second
/// operator, fourEyesActionNames(); more actions is stricter: the union),
/// four_eyes_amount_over (per currency, the amount above which every mark and compensation
/// needs a second operator; per currency the smaller threshold is stricter,
/// stricterAmountThresholds()).
QStringList policySettingNames();

/// The settings of triage_policy that are not per biz_type (no "biz." prefix):
/// four_eyes_db_users ("own": operators have their own database users, so an approval by the
/// proposer's database user is refused; "shared": all operators share one, so four-eyes is a
/// process control only; own is stricter) and four_eyes_policy ("on": every `policy set` is a
/// proposal another operator approves; "off", the default: it applies at once; on is
/// stricter). DESIGN.md §9 "Four-eyes".
QStringList globalPolicySettingNames();

/// The row name of the four_eyes_db_users setting.
inline QString fourEyesDbUsersName()
{
    return QStringLiteral("four_eyes_db_users");
}

/// The row name of the four_eyes_policy setting (policy changes under four-eyes).
inline QString fourEyesPolicyName()
{
    return QStringLiteral("four_eyes_policy");
}

/// The actions four-eyes can cover (bit flags of BizPolicy::fourEyes; DESIGN.md §9).
enum FourEyesAction : int {
    FourEyesMarkSuccess = 1, ///< "mark_success": a manual mark → SUCCESS
    FourEyesMarkFailed = 2,  ///< "mark_failed": a manual mark → FAILED
    FourEyesCompensate = 4,  ///< "compensate": starting a compensation (its HTTP call to the upstream)
};

/// The four_eyes value's action names in canonical order: mark_success, mark_failed, compensate.
QStringList fourEyesActionNames();

/// `flags` as the canonical four_eyes value: "none", "mark_success", "mark_success,mark_failed,compensate".
QString fourEyesText(int flags);

/// four_eyes_amount_over as read: upper-case ISO 4217 code → threshold (a canonical decimal,
/// canonicalDecimal(), ≥ 0); "*" is the threshold of every other currency and of an amount
/// without one. A currency neither listed nor covered by "*" has no threshold: any amount in
/// it needs a second operator (DESIGN.md §9 "Four-eyes").
using AmountThresholds = QMap<QString, QString>;

/// `thresholds` as the canonical four_eyes_amount_over value: currencies in order, "*" last
/// ("EUR:1000,USD:250.5,*:100"); "none" when empty.
QString amountThresholdsText(const AmountThresholds &thresholds);

/// THE merge of two four_eyes_amount_over values: per currency the smaller threshold, where a
/// currency a list does not cover (no entry, no "*") counts as threshold "always". So the
/// result never lets an amount through that either list would stop. It may be empty (no
/// currency has a threshold in both): then every amount needs a second operator.
AmountThresholds stricterAmountThresholds(const AmountThresholds &a, const AmountThresholds &b);

/// A policy row name split: "biz.payment.money_moving" → {"payment", "money_moving"}.
struct PolicyName {
    QString bizType;
    QString setting;
};

/// Parses and checks `name` ("biz.<biz_type>.<setting>", biz_type letters, digits, '_' or
/// '-'; setting one of policySettingNames(); or one of globalPolicySettingNames(), bizType
/// empty). nullopt with `*error` the exact refusal:
/// `unknown policy setting "x": use biz.<biz_type>.<setting> with setting failed_evidence,
/// …  or review_sla_hours` (the freeze is named by `policy freeze`, not `set`).
std::optional<PolicyName> parsePolicyName(const QString &name, QString *error);

/// Checks `value` for `setting` and returns it in canonical spelling ("TRUE" → "true",
/// " 60" → "60"); nullopt with `*error` the exact refusal:
/// `bad value "x" for money_moving: must be true or false`, `… must be upstream or
/// ticket_absent`, `… must be auto or escalate`, `… must be a whole number of seconds from 1
/// to 2147483647` (hours from 1 to 8760 for review_sla_hours), `… must be none or a
/// comma-separated list of mark_success, mark_failed, compensate` (four_eyes: canonical order, no
/// repeats, "none" for the empty list), `… must be own or shared` (four_eyes_db_users),
/// `… must be none or a comma-separated list of CURRENCY:AMOUNT …` (four_eyes_amount_over:
/// canonical as amountThresholdsText()), `… must be on or off` (four_eyes_policy).
std::optional<QString> checkPolicyValue(const QString &setting, const QString &value, QString *error);

/// One biz_type's policy settings from one source; an absent setting is nullopt.
struct BizPolicy {
    std::optional<FailedEvidence> failedEvidence;
    std::optional<int> failedEvidenceMaxAgeS;
    std::optional<bool> moneyMoving;
    std::optional<bool> reconcileEscalate; ///< reconcile = escalate (true) or auto (false)
    std::optional<int> reconcileConfirmDelayS;
    std::optional<int> reviewSlaHours;
    std::optional<int> fourEyes; ///< FourEyesAction flags; unset: none
    std::optional<AmountThresholds> fourEyesAmountOver; ///< four_eyes_amount_over; unset or "none": no amount rule
};

/// True when `policy` makes a manual mark to `toStatus` (Success or Failed) a proposal that a
/// second operator approves (four_eyes, DESIGN.md §9 "Four-eyes").
bool requiresFourEyes(const BizPolicy &policy, int toStatus);

/// True when `policy` makes starting a compensation a proposal that a second operator approves
/// (four_eyes lists compensate, DESIGN.md §9 "Four-eyes"): nothing is written to the intent
/// log and nothing is sent until then.
bool requiresFourEyesCompensation(const BizPolicy &policy);

/// Why four_eyes_amount_over of `policy` makes an action on a key with `amounts` (every
/// amount the console read for it: the snapshot, the record's snapshot, the business rows,
/// the intent log's requests) a proposal; empty when it does not (no amount rule, or every
/// amount at or below its currency's threshold). Fails safe: no amount at all, an amount
/// that is not a plain decimal, or a currency without a threshold needs a second operator.
/// Exact texts: "1500.00 EUR (ticket 42) is over 1000", "no amount could be read (no
/// snapshot, business row or intent request carries one)", "the amount \"1e3\" (attempt 7) is
/// not a plain decimal", "12 GBP (the snapshot): no threshold for GBP", "12 (the snapshot): no
/// threshold for an amount without a currency".
QString fourEyesAmountReason(const BizPolicy &policy, const QVector<AmountSeen> &amounts);

/// The four-eyes rule that makes an action a proposal: `setting` is its policy row name
/// ("biz.pay.four_eyes" or "biz.pay.four_eyes_amount_over"), `why` the amount rule's
/// reason; an empty setting: no second operator needed.
struct FourEyesRule {
    QString setting;
    QString why;
    bool required() const { return !setting.isEmpty(); }
    /// "biz.pay.four_eyes" or "biz.pay.four_eyes_amount_over: 1500 EUR (ticket 42) is over 1000".
    QString text() const { return why.isEmpty() ? setting : setting + QStringLiteral(": ") + why; }
};

/// The rule (if any) that makes a manual mark of a `bizType` record to `toStatus` a proposal:
/// four_eyes listing the mark's action first, then four_eyes_amount_over on `amounts`.
FourEyesRule fourEyesRuleForMark(const BizPolicy &policy, const QString &bizType, int toStatus, const QVector<AmountSeen> &amounts);

/// The rule (if any) that makes starting a compensation of a `bizType` record a proposal:
/// four_eyes listing compensate, then four_eyes_amount_over on `amounts`.
FourEyesRule fourEyesRuleForCompensation(const BizPolicy &policy, const QString &bizType, const QVector<AmountSeen> &amounts);

/// The settings of `bizType` among `rows` (triage_policy's name → canonical value; rows of
/// other biz_types and the freeze row ignored).
BizPolicy bizPolicyFromRows(const QMap<QString, QString> &rows, const QString &bizType);

/// THE merge (DESIGN.md §8 "Safety policy"): per setting, the stricter of the database's
/// value `db` and the local INI's `ini`; a setting only one source holds is that source's.
/// So the INI can make any rule stricter for its operator and none weaker. reconcile is
/// merged as each source's policy stands alone (unset but money_moving = true: escalate).
BizPolicy stricterPolicy(const BizPolicy &db, const BizPolicy &ini);

} // namespace triage
