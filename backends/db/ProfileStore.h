#pragma once

#include "Environment.h"
#include "SchemaMap.h"
#include "StoreRole.h"

#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <optional>

namespace triage {

/// One connection profile (DESIGN.md §5 "Connection profiles"): what a config file's
/// [console] name / environment / operator / replica_max_lag and [idempotency] / [intent] / [ticket] url and
/// replica_url keys hold. There is no password field: a profile never holds one (the URLs are refused when
/// they carry one, ConnectionProfile::fromUrl()). TLS parameters and the statement timeout
/// are query parameters of the URLs (sslmode, sslrootcert, ssl_ca, statement_timeout, …).
struct SavedProfile {
    QString name;                            ///< the file's base name and [console] name
    Environment environment = Environment::None;
    QString operatorName;                    ///< "" = the OS user
    QMap<DbRole, QString> urls;              ///< by store; absent or "" = not set
    /// Read replicas by store (`replica_url`, DESIGN.md §9 "Read replicas"); absent or "" = none.
    QMap<DbRole, QString> replicaUrls;
    /// `[console] replica_max_lag` as written (whole seconds > 0); "" = not set (the default, 5 s).
    QString replicaMaxLag;

    bool operator==(const SavedProfile &o) const = default;
};

/// The problem with `name` as a profile name, "" when it is fine: 1-64 characters, letters,
/// digits, '.', '_' and '-', not starting with '.' (it is a file name).
QString profileNameProblem(const QString &name);

/// The profiles on disk: one INI file per profile, `<dir>/<name>.ini`, in the config file's
/// format (resources/triage.example.ini; `--profile NAME` reads it exactly as `--config`),
/// and the recent list in `<dir>/../recent.ini` ([recent] profiles, most recent first).
/// Not thread-safe; file I/O only (a few small files: fine on the GUI thread).
class ProfileStore {
public:
    /// `dir` = "" uses defaultDir().
    explicit ProfileStore(QString dir = QString());

    /// <GenericConfigLocation>/triage-console/profiles ($XDG_CONFIG_HOME, else ~/.config, on
    /// Linux): the same for triage-console and triagectl.
    static QString defaultDir();
    QString dir() const { return m_dir; }
    /// The file of profile `name` (whether or not it exists).
    QString path(const QString &name) const;
    bool exists(const QString &name) const;
    /// The saved profiles' names, sorted (case-insensitive).
    QStringList names() const;

    /// Reads profile `name`. nullopt with `*error` set when it does not exist or cannot be
    /// read ("no profile \"x\""). Only the keys above are read; the file may hold more
    /// (biz sections, mappings), which save() keeps.
    std::optional<SavedProfile> load(const QString &name, QString *error) const;
    /// Writes `profile` (creating the directory): the keys above are set (empty ones
    /// removed), every other key of an existing file is kept (its comments are not: QSettings
    /// rewrites the file). Refused, with nothing written
    /// and `*error` set, when the name is invalid (profileNameProblem()), a URL does not parse
    /// or carries a password (ConnectionProfile::fromUrl()), or the file cannot be written.
    bool save(const SavedProfile &profile, QString *error);
    /// Deletes profile `name` and drops it from the recent list. False with `*error` when it
    /// does not exist or cannot be removed.
    bool remove(const QString &name, QString *error);

    /// The recent profiles, most recent first, only those that still exist (at most 10).
    QStringList recent() const;
    /// Puts `name` first in the recent list.
    void noteUsed(const QString &name);

private:
    QString recentFile() const;
    void writeRecent(const QStringList &names);

    QString m_dir;
};

/// The schema mapping of profile `name` (its [*.map] sections, read as --config would), or
/// SchemaMap::defaults() when it has none, does not exist or does not read.
SchemaMap profileMapping(const ProfileStore &store, const QString &name);

/// A store URL split into the parts the Connect dialog edits on their own (DESIGN.md §5
/// "Connection profiles"): TLS mode (PostgreSQL `sslmode`), CA file (PostgreSQL
/// `sslrootcert`, MySQL/MariaDB `ssl_ca`), `statement_timeout` (as written: "30s", "5000");
/// `url` keeps everything else (scheme, user, host, port, database, other parameters).
struct StoreUrlFields {
    QString url;
    QString tlsMode;
    QString caFile;
    QString statementTimeout;
    bool operator==(const StoreUrlFields &o) const = default;
};
/// True when `url` takes a TLS mode (postgresql://; MySQL/MariaDB use TLS when given a CA file).
bool storeUrlTakesTlsMode(const QString &url);
/// What splitStoreUrl() shows instead of a password found in a URL.
inline constexpr char16_t kMaskedPassword[] = u"*****";
/// Splits `url`; a text that is not a URL stays whole in `url`. A password in the URL (refused
/// everywhere: ConnectionProfile::fromUrl()) is never shown: it reads kMaskedPassword.
StoreUrlFields splitStoreUrl(const QString &url);
/// The URL again: `url` with the non-empty fields appended as parameters (a field also given
/// in `url` is replaced). "" when `url` is empty. TLS mode applies to postgresql:// only.
QString joinStoreUrl(const StoreUrlFields &fields);

/// The environment for a console started on a profile (File → Connect…): `base` with
/// $TRIAGE_<ROLE>_DB_PASSWORD set to each non-empty password in `typed` (by store). The only
/// way a typed password leaves the dialog's process: never on a command line, never in a file.
QProcessEnvironment profileLaunchEnvironment(QProcessEnvironment base, const QMap<DbRole, QString> &typed);

/// The error for `--profile NAME` naming no saved profile: "--profile \"x\": no such profile
/// in DIR; known profiles: a, b" (or "…; no profile is saved yet (File → Connect… saves
/// them)").
QString unknownProfileError(const ProfileStore &store, const QString &name);

} // namespace triage
