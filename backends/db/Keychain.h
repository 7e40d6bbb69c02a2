#pragma once
// The system keychain for connection passwords (DESIGN.md §5 "Connection profiles"):
// qtkeychain over the D-Bus secret service where one runs. lookupPassword()
// (ConnectionProfile.h) reads these entries; the Connect dialog writes them when the operator
// asks it to remember a typed password. Secrets are never logged or written anywhere else.

#include "ConnectionProfile.h"

#include <QFuture>
#include <QString>

#include <optional>

namespace triage {

/// The keychain service name of every entry: "triage-console".
QString keychainService();
/// The keychain key of `profile`'s password: "<role>:<user>@<host>:<port>/<database>", e.g.
/// "idempotency:triage@127.0.0.1:5432/orders".
QString keychainKey(const ConnectionProfile &profile);

/// Why no keychain can be used in this process, or "" when one may be (whether a secret service
/// answers shows only when a job runs): "this build has no qtkeychain" or "no D-Bus session bus
/// ($DBUS_SESSION_BUS_ADDRESS is not set)".
QString keychainUnavailableReason();

/// How long readKeychainPassword() waits for the keychain (ms): a keychain waiting for someone
/// to unlock it must not hold a database login forever.
inline constexpr int kKeychainReadTimeoutMs = 20000;

/// The password stored under `profile`'s entry, or nullopt (no keychain here, a SQLite store, no
/// entry, a keychain error, or no answer within kKeychainReadTimeoutMs). Blocks the calling
/// thread (a database worker's, at login) while the job runs on the keychain's own thread —
/// every keychain job in the process runs on that one thread. Never logs the secret.
std::optional<QString> readKeychainPassword(const ConnectionProfile &profile);

/// Stores `secret` under `profile`'s entry (keychainKey()), replacing what was there, and
/// returns a future of "" on success or one line saying why not: keychainUnavailableReason(),
/// "a SQLite store has no password", or the keychain's own error text ("The name
/// org.freedesktop.secrets was not provided by any .service files"). Asynchronous: the job
/// runs on the keychain's own thread (see readKeychainPassword()); the future finishes there
/// (deliver it with whenReady()). It never blocks. The secret is not logged.
QFuture<QString> storeKeychainPassword(const ConnectionProfile &profile, const QString &secret);

} // namespace triage
