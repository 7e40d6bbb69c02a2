#pragma once
// The per-biz_type reconcile settings (DESIGN.md §8 "Reconciliation"): `money_moving`,
// `reconcile = auto | escalate`, `reconcile_confirm_delay`, in the config file's
// [biz.<biz_type>] sections. The keys are in the one key table (ConfigKeys.cpp), so an
// unknown key or a bad value is refused when the file is read (exit 1); their values are read
// here from the workspace's config file (WorkspaceConfig::sourceFile).

#include "SafetyPolicy.h"

#include <QMap>
#include <QString>
#include <QTimeZone>

#include <optional>

namespace triage {

struct WorkspaceConfig;

/// What the reconciler may do on its own for a biz_type. It governs automatic FAILED only:
/// SUCCESS verdicts are applied under both.
enum class ReconcilePolicy {
    Auto,     ///< "auto": FAILED where every rule allows it (two NOT_FOUND answers, §6 evidence)
    Escalate, ///< "escalate": a FAILED verdict becomes a POLICY escalation
};

/// "auto", "escalate".
QString reconcilePolicyName(ReconcilePolicy policy);

/// One biz_type's reconcile settings.
struct ReconcileBizConfig {
    /// `money_moving = true`: the side effect moves money (pay, refund); makes escalate the
    /// default policy. Default false.
    bool moneyMoving = false;
    /// `reconcile = auto | escalate`; nullopt: not set (policy() then defaults by moneyMoving).
    std::optional<ReconcilePolicy> reconcile;
    /// `reconcile_confirm_delay` (s): how far apart the two NOT_FOUND answers behind an
    /// automatic FAILED must be (query APIs are often eventually consistent). Default 300.
    int confirmDelayS = 300;

    /// The policy in force: `reconcile` when set, else escalate when money_moving, else auto.
    ReconcilePolicy policy() const
    {
        return reconcile ? *reconcile : (moneyMoving ? ReconcilePolicy::Escalate : ReconcilePolicy::Auto);
    }
};

/// The reconcile settings of `bizType` in `config`'s file (defaults without a file, a
/// section or a key). The file was checked when the config was read; a value that does not
/// read here keeps its default.
ReconcileBizConfig reconcileConfigFor(const WorkspaceConfig &config, const QString &bizType);

/// `[console] reconcile_expected_every` (s) of `config`'s file: doctor warns when no reconcile
/// run has finished for longer (DESIGN.md §8). Default 3600.
int reconcileExpectedEveryS(const WorkspaceConfig &config);

/// `[console] review_time_zone` of `config`'s file: the zone whose calendar days the daily
/// review covers (DESIGN.md §8 "The daily review"). Default UTC; the value was checked when
/// the file was read (ConfigKeys: an IANA name this machine knows), so an unknown one here
/// (the file changed since) falls back to UTC.
QTimeZone reviewTimeZone(const WorkspaceConfig &config);

/// `[biz.<bizType>] review_sla_hours` of `config`'s file: hours from an escalation's first
/// escalation to its SLA due time (DESIGN.md §8). Default 24.
int reviewSlaHours(const WorkspaceConfig &config, const QString &bizType);

/// The reconcile settings of an effective safety policy (effectiveBizPolicy(): the database's
/// triage_policy made stricter by the INI, DESIGN.md §8 "Safety policy"); unset ones default.
ReconcileBizConfig reconcileConfigOf(const BizPolicy &policy);

/// The same from an INI file's [biz.<bizType>] section ("" path: the defaults).
ReconcileBizConfig reconcileConfigFromFile(const QString &path, const QString &bizType);

} // namespace triage
