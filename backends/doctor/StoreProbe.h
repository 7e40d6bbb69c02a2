#pragma once

#include "ConnectionProfile.h"
#include "SchemaMap.h"

#include <QFuture>
#include <QString>

namespace triage {

/// What "Test" found for one store (File → Connect…, DESIGN.md §5 "Connection profiles").
struct StoreProbeResult {
    bool ok = false;
    /// ok: "connected as USER to HOST:PORT/DB; table T readable" (SQLite: "opened PATH; table
    /// T readable"), plus "; mapping: <problem>; …" — then ok is false — when the mapped columns
    /// do not match the live catalog (doctor_sql::mappingProblems()).
    /// Not ok: the store's error exactly as the console reports it (DbSession::ensureOpen()'s
    /// "cannot connect to the <store> (<url>): …" for a wrong port, a wrong password, TLS; the
    /// statement's error for a missing table or a missing privilege). Never holds a password.
    QString message;
};

/// Opens `profile`'s store on a thread of the global QThreadPool (never the caller's), reads
/// its mapped table of `map` (`SELECT <id> FROM <table> WHERE 1 = 0`: no row is read, but the
/// server checks the table and the SELECT privilege), checks the mapping against the catalog,
/// and closes the connection. `typedPassword`, when not empty, is the password for this one
/// login (TypedPasswordScope: memory only); else the usual sources (lookupPasswordWithSource()).
/// One login attempt per call; a credential the server refused earlier in this process is not
/// tried again (DbSession::ensureOpen()'s rule) and says so.
QFuture<StoreProbeResult> probeStore(const ConnectionProfile &profile, const SchemaMap &map,
                                     const QString &typedPassword = QString());

/// probeStore() for a read replica (`replica_url`, DESIGN.md §9 "Read replicas"), then the
/// console's lag measurement on the same connection (ReplicaState::measure()): ok adds
/// "; replica lag 0.3 s"; a server that is not a standby / replica, or whose lag cannot be read,
/// is not ok: "; not usable as a read replica: not a standby: pg_is_in_recovery() is false".
QFuture<StoreProbeResult> probeReplica(const ConnectionProfile &profile, const SchemaMap &map,
                                       const QString &typedPassword = QString());
/// True when nothing supplies a password for `profile`'s login, so the Connect dialog must ask
/// for one: a server store (not SQLite) with no $TRIAGE_<ROLE>_DB_PASSWORD or
/// $TRIAGE_DB_PASSWORD, no keychain entry, no MySQL option_file, and on PostgreSQL no libpq
/// password file ($PGPASSFILE, else ~/.pgpass). Runs the keychain lookup: call off the GUI
/// thread (passwordPromptsNeeded() does).
bool needsTypedPassword(const ConnectionProfile &profile);

/// What a store's login needs from the Connect dialog.
enum class PasswordNeed {
    NoLogin,  ///< SQLite: a file, no login
    Supplied, ///< a source supplies it, or a MySQL option_file / libpq password file may
    Needed,   ///< nothing does: needsTypedPassword()
};
/// PasswordNeed of `profile` (the rule of needsTypedPassword()). Runs the keychain lookup.
PasswordNeed passwordNeed(const ConnectionProfile &profile);
/// passwordNeed() of each profile, on a thread of the global QThreadPool.
QFuture<QList<PasswordNeed>> passwordNeeds(const QList<ConnectionProfile> &profiles);

/// needsTypedPassword() of each profile, on a thread of the global QThreadPool.
QFuture<QList<bool>> passwordPromptsNeeded(const QList<ConnectionProfile> &profiles);

} // namespace triage
