#pragma once
// The console's NOTIFY triggers on the agents' own tables (DESIGN.md §9 "Push"): opt-in,
// PostgreSQL only, installed and removed by `triagectl notify install | uninstall`. A
// trigger sends only a hint — "<store> <id>" on channel kPushChannel, never the row
// (payloads stop at 8,000 bytes) — and a console that hears it only re-reads.

#include "DbError.h"
#include "PushFeed.h"
#include "Workspace.h"

#include <QFuture>
#include <QJsonArray>
#include <QString>
#include <QVector>

namespace triage {

class DbSession;
struct WorkspaceConfig;

/// The shortest reason `notify install | uninstall` accepts (as a policy change's).
constexpr int kPushReasonMinChars = 10;

/// One store's trigger as the catalog shows it.
struct PushTriggerState {
    DbRole role = DbRole::Idempotency;
    QString table;          ///< the mapped table as SQL ("idempotency_record", billing."Idem")
    bool postgres = false;  ///< false: MariaDB or SQLite, where the console only polls
    bool installed = false; ///< the table carries kPushTrigger
};

namespace push_sql {
/// The PostgreSQL statements that create the store's trigger function
/// (triage_console_notify_<store>, reading the row's id column directly) and the row trigger
/// kPushTrigger (AFTER INSERT OR UPDATE OR DELETE, FOR EACH ROW) on `role`'s mapped table of
/// `config`, in order. The payload is "<store> <id>" with the store's name (roleName()) and the
/// row's id as text (at most 100 characters). Names come from the mapping (identifiers only).
QStringList installStatements(const WorkspaceConfig &config, DbRole role);
/// The state of `role`'s trigger on `session` (the store's own database). Never throws for
/// a non-PostgreSQL store (postgres = false); a catalog read that fails throws DbException.
PushTriggerState state(DbSession &session, const WorkspaceConfig &config, DbRole role);
/// Installs (or re-installs) `role`'s trigger in one transaction. Throws DbException: kind
/// Config "push (LISTEN/NOTIFY) is PostgreSQL only: the <store> is MariaDB; the console
/// polls it" on another backend; the server's error (e.g. a missing privilege: only the
/// table's owner may add a trigger) otherwise.
void install(DbSession &session, const WorkspaceConfig &config, DbRole role);
/// Drops `role`'s trigger and its function. Throws as install().
void uninstall(DbSession &session, const WorkspaceConfig &config, DbRole role);
} // namespace push_sql

/// One store's line for operators: "<store>: trigger triage_console_notify on <table> <outcome>"
/// ("installed", "not installed", "removed", …), or "<store>: not PostgreSQL: polled, no trigger".
QString pushTriggerLine(const PushTriggerState &state, const QString &outcome);

/// `states` as JSON: [{"store", "table", "postgres", "installed"}, …] (triagectl notify --format
/// json, doctor's "push_triggers", the audit row's to_state).
QJsonArray pushTriggerStatesJson(const QVector<PushTriggerState> &states);

/// Every store's trigger state, in the order idempotency, intent, ticket; a store whose read
/// failed carries its error in the outcome.
QFuture<Outcome<QVector<PushTriggerState>>> readPushTriggers(Workspace &workspace);

/// What `triagectl notify install | uninstall` did.
struct PushChange {
    QVector<PushTriggerState> stores; ///< each store after the change
    QStringList lines;                ///< one line per store ("idempotency: trigger on idempotency_record installed")
};

/// Installs (`install`) or drops the triggers on every PostgreSQL store (a database shared by
/// stores is done once per table), then writes one audit row (push.install / push.uninstall,
/// idem_key "push:console", `reason`) on the idempotency store. Refused (kind Refused) while the
/// console policy is frozen (before any DDL) and for a reason under kPushReasonMinChars. Each
/// line says what was there before ("installed (replaced the one there)", "was not installed:
/// nothing removed"). A store that is not PostgreSQL is named in `lines`
/// ("intent: MariaDB: polled, no trigger"). Fails with the first store's error; stores done
/// before it stay done and are named in the message.
QFuture<Outcome<PushChange>> changePushTriggers(Workspace &workspace, bool install, const QString &reason);

} // namespace triage
