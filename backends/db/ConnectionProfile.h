#pragma once

#include "SqlDialect.h"
#include "StoreRole.h"

#include <QMap>
#include <QString>

#include <optional>

namespace triage {


/// Where one store lives, parsed from a URL (DESIGN.md §5):
/// `postgresql://user@host:port/db`, `mysql://user@host:port/db` (also `mariadb://`),
/// `sqlite:///absolute/path.db`, with query parameters:
/// - `sslmode`, `sslrootcert`, `sslcert`, `sslkey` (PostgreSQL, passed to libpq);
/// - `ssl_ca`, `ssl_cert`, `ssl_key` (MySQL/MariaDB);
/// - `statement_timeout`: milliseconds, or with a unit ("30s", "500ms", "2min");
/// - `connect_timeout`: seconds;
/// - `option_file`, `option_group`: a MySQL/MariaDB option file (may hold the password);
/// - `client_found_rows`: 1 (default) or 0, MySQL/MariaDB affected-rows semantics.
/// A password in the URL is rejected: passwords come from the environment
/// (passwordEnvVar(), then TRIAGE_DB_PASSWORD), .pgpass / option files, or the keychain.
struct ConnectionProfile {
    DbRole role = DbRole::Idempotency;
    Dialect dialect = Dialect::Sqlite;
    QString host;
    int port = 0;
    QString database;       ///< database name, or the SQLite file path
    QString user;
    QMap<QString, QString> params;
    int statementTimeoutMs = 0; ///< 0 = none
    int connectTimeoutS = 10;

    /// Parses `url` for `role`. On failure returns nullopt and sets `*error` to a message
    /// naming the problem (unknown scheme, password in URL, relative SQLite path, bad
    /// parameter value). The message never contains a password, even when it quotes a URL
    /// that does not parse.
    static std::optional<ConnectionProfile> fromUrl(const QString &url, DbRole role, QString *error);

    /// The URL again, without any secret: safe for logs and the UI.
    QString displayUrl() const;
    /// The Qt SQL driver name: QPSQL, QMYSQL or QSQLITE.
    QString driverName() const;
    /// The Qt connect-options string for this profile (TLS, timeouts, option file).
    QString connectOptions() const;
    /// True when both profiles name the same database (same server and database).
    bool sameDatabase(const ConnectionProfile &other) const;
};

/// The password for `role`: a password typed in the Connect dialog for this store while a
/// TypedPasswordScope lives on the calling thread (TypedPassword.h), else
/// $TRIAGE_<ROLE>_DB_PASSWORD, else $TRIAGE_DB_PASSWORD, else the
/// system keychain (service "triage-console", key "<role>:<user>@<host>:<port>/<db>")
/// where one runs, else empty (libpq .pgpass or a MySQL option file may still supply one).
/// Never logged.
QString lookupPassword(const ConnectionProfile &profile);

/// A password and where it came from (for messages and the one-login-per-credential rule,
/// DbSession.h); `source` never contains the secret.
struct PasswordLookup {
    QString secret; ///< empty when none was found
    /// "the password typed in the Connect dialog", "$TRIAGE_INTENT_DB_PASSWORD",
    /// "$TRIAGE_DB_PASSWORD", "the system keychain",
    /// "the option file <path>" (MySQL/MariaDB `option_file`), or "no password variable
    /// (libpq's ~/.pgpass or the server's defaults)".
    QString source;
};
/// lookupPassword() with its source.
PasswordLookup lookupPasswordWithSource(const ConnectionProfile &profile);

} // namespace triage
