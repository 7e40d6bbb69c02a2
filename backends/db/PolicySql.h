#pragma once
// Reading the safety policy (triage_policy, DESIGN.md §8 "Safety policy") and the freeze
// check every write makes (requireNotFrozen(), called by requireKnownConsoleSchema()).

#include "DbSession.h"
#include "SafetyPolicy.h"

#include <QMap>
#include <QVector>

#include <optional>

namespace triage {

struct WorkspaceConfig;

/// One row of triage_policy.
struct PolicyRow {
    QString name;       ///< "biz.payment.money_moving", or "frozen"
    QString value;      ///< canonical ("true", "escalate", "60")
    QString setBy;      ///< the operator who wrote it last
    QString setAt;      ///< server time, canonical ISO UTC
    QString reason;     ///< why (≥ 10 characters)
    int schemaVersion = 0; ///< the console schema version of the build that wrote it
    qint64 version = 0;    ///< compare-and-set counter: 1 on insert, +1 per change
};

/// "Frozen by alice at 2026-12-03 08:14:07 UTC: incident 42, nobody touches payments — every
/// write is refused": the one refusal every write gets while `freeze` (the "frozen" row, value
/// true) holds, also the console's red bar (DESIGN.md §8 "Safety policy").
QString freezeMessage(const PolicyRow &freeze);

namespace policy_sql {
/// True when `session`'s database has triage_policy (console schema version 6; checked once
/// per connection).
bool hasPolicyTable(DbSession &session);
/// Every row, by name; empty without the table. Throws DbException.
QVector<PolicyRow> rows(DbSession &session);
/// The row `name`, if any. With `lockShared` (inside a transaction) the row is read with a
/// shared lock (PostgreSQL FOR SHARE, MySQL/MariaDB LOCK IN SHARE MODE; SQLite's BEGIN
/// IMMEDIATE already holds the database's write lock), so a concurrent change waits for this
/// transaction, or this read waits for it to commit and sees its value. Throws DbException.
std::optional<PolicyRow> row(DbSession &session, const QString &name, bool lockShared = false);
/// name → value of every row (for bizPolicyFromRows()); empty without the table.
QMap<QString, QString> values(DbSession &session);
/// The freeze row when the freeze is on (value "true"), locked shared; nullopt otherwise or
/// without the table. Throws DbException.
std::optional<PolicyRow> activeFreeze(DbSession &session);
/// Makes sure the freeze row exists (value false, set_by "init-schema"), so every writer has
/// a row to lock shared: without one a freeze inserted concurrently would not wait for the
/// writers that read "no row". Run by init-schema (console schema version 6). Throws DbException.
void ensureFreezeRow(DbSession &session);
} // namespace policy_sql

/// Throws DbException of kind Refused (exit 4) with freezeMessage() while the freeze is on in
/// `session`'s database. Run inside the writing transaction, so a write either commits before
/// a freeze does or sees it (policy_sql::activeFreeze() locks the row shared). Databases
/// without triage_policy (the intent log's, an older schema) are never frozen.
void requireNotFrozen(DbSession &session);

/// The effective policy of `bizType` (DESIGN.md §8 "Safety policy"): the database's rows
/// `dbValues` (policy_sql::values()) made stricter by the local INI's [biz.<bizType>]
/// settings (WorkspaceConfig::iniPolicy; the demo's money-moving types without a file) by
/// stricterPolicy(). The one place the two sources meet.
BizPolicy effectiveBizPolicy(const WorkspaceConfig &config, const QMap<QString, QString> &dbValues, const QString &bizType);

} // namespace triage
