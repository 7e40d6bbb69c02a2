#include "ProfileStore.h"

#include "ConnectionProfile.h"
#include "WorkspaceConfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>
#include <QUrlQuery>

namespace triage {

namespace {

constexpr int kRecentMax = 10;
const DbRole kRoles[] = {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};

} // namespace

QString profileNameProblem(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"));
    if (name.isEmpty())
        return QStringLiteral("a profile needs a name");
    if (!re.match(name).hasMatch())
        return QStringLiteral("profile name \"%1\": use 1-64 letters, digits, '.', '_' or '-' (not starting with '.')").arg(name);
    return {};
}

ProfileStore::ProfileStore(QString dir) : m_dir(dir.isEmpty() ? defaultDir() : std::move(dir)) {}

QString ProfileStore::defaultDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/triage-console/profiles");
}

QString ProfileStore::path(const QString &name) const
{
    return QDir(m_dir).filePath(name + QStringLiteral(".ini"));
}

bool ProfileStore::exists(const QString &name) const
{
    return profileNameProblem(name).isEmpty() && QFileInfo(path(name)).isFile();
}

QStringList ProfileStore::names() const
{
    QStringList out;
    for (const QFileInfo &f : QDir(m_dir).entryInfoList({QStringLiteral("*.ini")}, QDir::Files))
        if (profileNameProblem(f.completeBaseName()).isEmpty())
            out << f.completeBaseName();
    std::sort(out.begin(), out.end(), [](const QString &a, const QString &b) {
        const int c = a.compare(b, Qt::CaseInsensitive);
        return c != 0 ? c < 0 : a < b;
    });
    return out;
}

std::optional<SavedProfile> ProfileStore::load(const QString &name, QString *error) const
{
    if (!exists(name)) {
        *error = QStringLiteral("no profile \"%1\" in %2").arg(name, m_dir);
        return std::nullopt;
    }
    QSettings ini(path(name), QSettings::IniFormat);
    if (ini.status() != QSettings::NoError) {
        *error = QStringLiteral("profile %1: not a readable INI file").arg(path(name));
        return std::nullopt;
    }
    SavedProfile p;
    p.name = name;
    const QString env = ini.value(QStringLiteral("console/environment")).toString();
    if (!env.isEmpty()) {
        const auto e = environmentFromName(env);
        if (!e) {
            *error = QStringLiteral("profile %1: [console] environment \"%2\": use %3").arg(path(name), env, environmentChoices());
            return std::nullopt;
        }
        p.environment = *e;
    }
    p.operatorName = ini.value(QStringLiteral("console/operator")).toString();
    p.replicaMaxLag = ini.value(QStringLiteral("console/replica_max_lag")).toString();
    for (DbRole role : kRoles) {
        const QString url = ini.value(roleName(role) + QStringLiteral("/url")).toString();
        if (!url.isEmpty())
            p.urls.insert(role, url);
        const QString replica = ini.value(roleName(role) + QStringLiteral("/replica_url")).toString();
        if (!replica.isEmpty())
            p.replicaUrls.insert(role, replica);
    }
    return p;
}

bool ProfileStore::save(const SavedProfile &profile, QString *error)
{
    if (const QString why = profileNameProblem(profile.name); !why.isEmpty()) {
        *error = why;
        return false;
    }
    if (const QString lag = profile.replicaMaxLag.trimmed(); !lag.isEmpty()) {
        bool ok = false;
        const int seconds = lag.toInt(&ok);
        if (!ok || seconds <= 0) { // the rule WorkspaceConfig applies when the profile is read
            *error = QStringLiteral("replica_max_lag \"%1\": give a positive whole number of seconds (or leave it empty: 5 s)").arg(lag);
            return false;
        }
    }
    // Every URL is checked before anything is written: a password in one refuses the save.
    for (const QMap<DbRole, QString> *urls : {&profile.urls, &profile.replicaUrls})
        for (auto it = urls->cbegin(); it != urls->cend(); ++it) {
            if (it.value().trimmed().isEmpty())
                continue;
            QString why;
            const auto p = ConnectionProfile::fromUrl(it.value().trimmed(), it.key(), &why);
            if (!p) {
                *error = urls == &profile.replicaUrls ? QStringLiteral("%1 replica: %2").arg(roleName(it.key()), why) : why;
                return false;
            }
            if (urls == &profile.replicaUrls && p->dialect == Dialect::Sqlite) {
                *error = QStringLiteral("%1 replica: SQLite has no replicas; give a PostgreSQL or MariaDB URL").arg(roleName(it.key()));
                return false;
            }
        }
    if (!QDir().mkpath(m_dir)) {
        *error = QStringLiteral("cannot create the profile directory %1").arg(m_dir);
        return false;
    }
    QSettings ini(path(profile.name), QSettings::IniFormat);
    auto put = [&ini](const QString &key, const QString &value) {
        if (value.isEmpty())
            ini.remove(key);
        else
            ini.setValue(key, value);
    };
    put(QStringLiteral("console/name"), profile.name);
    put(QStringLiteral("console/environment"), environmentName(profile.environment));
    put(QStringLiteral("console/operator"), profile.operatorName.trimmed());
    put(QStringLiteral("console/replica_max_lag"), profile.replicaMaxLag.trimmed());
    for (DbRole role : kRoles) {
        put(roleName(role) + QStringLiteral("/url"), profile.urls.value(role).trimmed());
        put(roleName(role) + QStringLiteral("/replica_url"), profile.replicaUrls.value(role).trimmed());
    }
    ini.sync();
    if (ini.status() != QSettings::NoError) {
        *error = QStringLiteral("cannot write the profile file %1").arg(path(profile.name));
        return false;
    }
    return true;
}

bool ProfileStore::remove(const QString &name, QString *error)
{
    if (!exists(name)) {
        *error = QStringLiteral("no profile \"%1\" in %2").arg(name, m_dir);
        return false;
    }
    if (!QFile::remove(path(name))) {
        *error = QStringLiteral("cannot delete %1").arg(path(name));
        return false;
    }
    QStringList names = recent();
    names.removeAll(name);
    writeRecent(names);
    return true;
}

QString ProfileStore::recentFile() const
{
    return QDir(m_dir).absoluteFilePath(QStringLiteral("../recent.ini"));
}

QStringList ProfileStore::recent() const
{
    const QSettings ini(recentFile(), QSettings::IniFormat);
    QStringList out;
    for (const QString &n : ini.value(QStringLiteral("recent/profiles")).toStringList())
        if (exists(n) && !out.contains(n) && out.size() < kRecentMax)
            out << n;
    return out;
}

void ProfileStore::noteUsed(const QString &name)
{
    QStringList names = recent();
    names.removeAll(name);
    names.prepend(name);
    writeRecent(names.mid(0, kRecentMax));
}

void ProfileStore::writeRecent(const QStringList &names)
{
    QDir().mkpath(QFileInfo(recentFile()).absolutePath());
    QSettings ini(recentFile(), QSettings::IniFormat);
    ini.setValue(QStringLiteral("recent/profiles"), names);
    ini.sync();
}

SchemaMap profileMapping(const ProfileStore &store, const QString &name)
{
    if (!store.exists(name))
        return SchemaMap::defaults();
    QString error;
    const auto config = WorkspaceConfig::fromIniFile(store.path(name), &error);
    return config ? config->schema : SchemaMap::defaults();
}

namespace {

/// The CA parameter of `scheme`'s URLs: sslrootcert (PostgreSQL) or ssl_ca (MySQL/MariaDB); "" else.
QString caParam(const QString &scheme)
{
    const QString s = scheme.toLower();
    if (s == QLatin1String("postgresql") || s == QLatin1String("postgres"))
        return QStringLiteral("sslrootcert");
    if (s == QLatin1String("mysql") || s == QLatin1String("mariadb"))
        return QStringLiteral("ssl_ca");
    return {};
}

bool isPostgres(const QString &scheme)
{
    return scheme.compare(QLatin1String("postgresql"), Qt::CaseInsensitive) == 0
        || scheme.compare(QLatin1String("postgres"), Qt::CaseInsensitive) == 0;
}

} // namespace

bool storeUrlTakesTlsMode(const QString &url)
{
    return isPostgres(QUrl(url.trimmed()).scheme());
}

StoreUrlFields splitStoreUrl(const QString &url)
{
    StoreUrlFields f;
    QUrl u(url.trimmed(), QUrl::StrictMode);
    if (u.isValid() && !u.password().isEmpty()) // never shown: masked (and refused when saved)
        u.setPassword(QString::fromUtf16(kMaskedPassword));
    if (!u.isValid() || u.scheme().isEmpty() || !u.hasQuery()) {
        f.url = u.isValid() && !u.scheme().isEmpty() ? u.toString() : url.trimmed();
        return f;
    }
    QUrlQuery q(u);
    const QString ca = caParam(u.scheme());
    auto take = [&q](const QString &key) {
        const QString v = q.queryItemValue(key, QUrl::FullyDecoded);
        q.removeAllQueryItems(key);
        return v;
    };
    if (isPostgres(u.scheme()))
        f.tlsMode = take(QStringLiteral("sslmode"));
    if (!ca.isEmpty())
        f.caFile = take(ca);
    f.statementTimeout = take(QStringLiteral("statement_timeout"));
    u.setQuery(q.isEmpty() ? QString() : q.query(QUrl::FullyEncoded), QUrl::StrictMode);
    f.url = u.toString();
    return f;
}

QString joinStoreUrl(const StoreUrlFields &fields)
{
    const QString base = fields.url.trimmed();
    if (base.isEmpty())
        return {};
    if (fields.tlsMode.trimmed().isEmpty() && fields.caFile.trimmed().isEmpty() && fields.statementTimeout.trimmed().isEmpty())
        return base; // nothing to add: the URL exactly as typed
    QUrl u(base, QUrl::StrictMode);
    if (!u.isValid() || u.scheme().isEmpty())
        return base;
    QUrlQuery q(u);
    auto put = [&q](const QString &key, const QString &value) {
        if (value.trimmed().isEmpty())
            return;
        q.removeAllQueryItems(key);
        q.addQueryItem(key, value.trimmed());
    };
    if (isPostgres(u.scheme()))
        put(QStringLiteral("sslmode"), fields.tlsMode);
    if (const QString ca = caParam(u.scheme()); !ca.isEmpty())
        put(ca, fields.caFile);
    put(QStringLiteral("statement_timeout"), fields.statementTimeout);
    u.setQuery(q.isEmpty() ? QString() : q.query(QUrl::FullyEncoded), QUrl::StrictMode);
    return u.toString();
}

QProcessEnvironment profileLaunchEnvironment(QProcessEnvironment base, const QMap<DbRole, QString> &typed)
{
    for (auto it = typed.cbegin(); it != typed.cend(); ++it)
        if (!it.value().isEmpty())
            base.insert(passwordEnvVar(it.key()), it.value());
    return base;
}

QString unknownProfileError(const ProfileStore &store, const QString &name)
{
    const QStringList known = store.names();
    return QStringLiteral("--profile \"%1\": no such profile in %2; %3")
        .arg(name, store.dir(),
             known.isEmpty() ? QStringLiteral("no profile is saved yet (File → Connect… saves them)")
                             : QStringLiteral("known profiles: ") + known.join(QStringLiteral(", ")));
}

} // namespace triage
