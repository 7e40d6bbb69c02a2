#include "ConnectionProfile.h"
#include "Keychain.h"
#include "TypedPassword.h"

#include <QDir>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>


namespace triage {

namespace {

std::optional<int> parseMillis(const QString &text)
{
    static const QRegularExpression re(QStringLiteral(R"(^\s*(\d+)\s*(ms|s|min)?\s*$)"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const qint64 n = m.captured(1).toLongLong();
    const QString unit = m.captured(2);
    const qint64 ms = unit == QLatin1String("s") ? n * 1000 : unit == QLatin1String("min") ? n * 60000 : n;
    if (ms > std::numeric_limits<int>::max())
        return std::nullopt;
    return int(ms);
}

/// `url` for an error message: whatever follows a ':' in the user-info part (between
/// "://" and the last '@') is replaced by "***", so a password typed into a URL that does
/// not even parse never reaches a message or a log.
QString redactedUrl(const QString &url)
{
    const int start = url.indexOf(QLatin1String("://"));
    const int at = url.lastIndexOf(QLatin1Char('@'));
    if (start < 0 || at < start + 3)
        return url;
    const int colon = url.indexOf(QLatin1Char(':'), start + 3);
    if (colon < 0 || colon > at)
        return url;
    return url.left(colon + 1) + QStringLiteral("***") + url.mid(at);
}

/// The typed password of this thread (TypedPasswordScope), empty when none.
thread_local DbRole t_typedRole = DbRole::Idempotency;
thread_local QString t_typedSecret;

} // namespace

TypedPasswordScope::TypedPasswordScope(DbRole role, const QString &secret)
{
    t_typedRole = role;
    t_typedSecret = secret;
}

TypedPasswordScope::~TypedPasswordScope()
{
    t_typedSecret.fill(QLatin1Char('\0'));
    t_typedSecret.clear();
}

QString typedPasswordSource()
{
    return QStringLiteral("the password typed in the Connect dialog");
}

std::optional<ConnectionProfile> ConnectionProfile::fromUrl(const QString &url, DbRole role, QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<ConnectionProfile> {
        if (error)
            *error = QStringLiteral("%1 URL: %2").arg(roleTitle(role), why);
        return std::nullopt;
    };
    const QUrl u(url.trimmed(), QUrl::StrictMode);
    if (!u.isValid() || u.scheme().isEmpty())
        return fail(QStringLiteral("not a URL: \"%1\"").arg(redactedUrl(url)));
    if (!u.password().isEmpty())
        return fail(QStringLiteral("a password in the URL is not accepted; set %1 or TRIAGE_DB_PASSWORD")
                        .arg(passwordEnvVar(role)));
    ConnectionProfile p;
    p.role = role;
    const QString scheme = u.scheme().toLower();
    if (scheme == QLatin1String("postgresql") || scheme == QLatin1String("postgres")) {
        p.dialect = Dialect::PostgreSql;
        p.port = u.port(5432);
    } else if (scheme == QLatin1String("mysql") || scheme == QLatin1String("mariadb")) {
        p.dialect = Dialect::MySql;
        p.port = u.port(3306);
    } else if (scheme == QLatin1String("sqlite")) {
        p.dialect = Dialect::Sqlite;
    } else {
        return fail(QStringLiteral("unknown scheme \"%1\" (use postgresql://, mysql:// or sqlite:///)").arg(scheme));
    }
    if (p.dialect == Dialect::Sqlite) {
        const QString path = u.path();
        if (!u.host().isEmpty() || !QDir::isAbsolutePath(path) || path.size() < 2)
            return fail(QStringLiteral("SQLite needs an absolute path: sqlite:///absolute/path.db"));
        p.database = path;
    } else {
        p.host = u.host();
        p.user = u.userName();
        p.database = u.path().mid(1);
        if (p.host.isEmpty())
            return fail(QStringLiteral("no host"));
        if (p.database.isEmpty())
            return fail(QStringLiteral("no database name (…/dbname)"));
    }
    const QUrlQuery query(u);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        static const QStringList known = {
            QStringLiteral("sslmode"), QStringLiteral("sslrootcert"), QStringLiteral("sslcert"),
            QStringLiteral("sslkey"), QStringLiteral("ssl_ca"), QStringLiteral("ssl_cert"),
            QStringLiteral("ssl_key"), QStringLiteral("statement_timeout"), QStringLiteral("connect_timeout"),
            QStringLiteral("option_file"), QStringLiteral("option_group"),
            QStringLiteral("client_found_rows")};
        if (!known.contains(key))
            return fail(QStringLiteral("unknown parameter \"%1\"").arg(key));
        if (key == QLatin1String("statement_timeout")) {
            const auto ms = parseMillis(value);
            if (!ms)
                return fail(QStringLiteral("statement_timeout \"%1\" is not a duration (e.g. 30000, 30s)").arg(value));
            p.statementTimeoutMs = *ms;
        } else if (key == QLatin1String("connect_timeout")) {
            bool ok = false;
            p.connectTimeoutS = value.toInt(&ok);
            if (!ok || p.connectTimeoutS <= 0)
                return fail(QStringLiteral("connect_timeout \"%1\" is not a positive number of seconds").arg(value));
        }
        p.params.insert(key, value);
    }
    return p;
}

QString ConnectionProfile::displayUrl() const
{
    QUrl u;
    switch (dialect) {
    case Dialect::PostgreSql: u.setScheme(QStringLiteral("postgresql")); break;
    case Dialect::MySql: u.setScheme(QStringLiteral("mysql")); break;
    case Dialect::Sqlite: u.setScheme(QStringLiteral("sqlite")); break;
    }
    if (dialect == Dialect::Sqlite) {
        return QStringLiteral("sqlite://") + database;
    }
    u.setUserName(user);
    u.setHost(host);
    u.setPort(port);
    u.setPath(QLatin1Char('/') + database);
    QUrlQuery q;
    for (auto it = params.cbegin(); it != params.cend(); ++it)
        q.addQueryItem(it.key(), it.value());
    u.setQuery(q);
    return u.toString();
}

QString ConnectionProfile::driverName() const
{
    switch (dialect) {
    case Dialect::PostgreSql: return QStringLiteral("QPSQL");
    case Dialect::MySql: return QStringLiteral("QMYSQL");
    case Dialect::Sqlite: return QStringLiteral("QSQLITE");
    }
    return {};
}

QString ConnectionProfile::connectOptions() const
{
    QStringList opts;
    switch (dialect) {
    case Dialect::PostgreSql:
        opts << QStringLiteral("connect_timeout=%1").arg(connectTimeoutS);
        for (const char *k : {"sslmode", "sslrootcert", "sslcert", "sslkey"}) {
            const QString key = QString::fromLatin1(k);
            if (params.contains(key))
                opts << key + QLatin1Char('=') + params.value(key);
        }
        break;
    case Dialect::MySql:
        // CLIENT_FOUND_ROWS: affected rows = matched rows, as on the other drivers (docs/QT-PITFALLS.md).
        // (client_found_rows=0 turns it off; the compare-and-set stays exact because it always
        // changes the status, so changed rows = matched rows.)
        if (params.value(QStringLiteral("client_found_rows"), QStringLiteral("1")) != QLatin1String("0"))
            opts << QStringLiteral("CLIENT_FOUND_ROWS=1");
        opts << QStringLiteral("MYSQL_OPT_CONNECT_TIMEOUT=%1").arg(connectTimeoutS);
        if (params.contains(QStringLiteral("ssl_ca")))
            opts << QStringLiteral("SSL_CA=") + params.value(QStringLiteral("ssl_ca"));
        if (params.contains(QStringLiteral("ssl_cert")))
            opts << QStringLiteral("SSL_CERT=") + params.value(QStringLiteral("ssl_cert"));
        if (params.contains(QStringLiteral("ssl_key")))
            opts << QStringLiteral("SSL_KEY=") + params.value(QStringLiteral("ssl_key"));
        if (params.contains(QStringLiteral("option_file")))
            opts << QStringLiteral("MYSQL_READ_DEFAULT_FILE=") + params.value(QStringLiteral("option_file"));
        if (params.contains(QStringLiteral("option_group")))
            opts << QStringLiteral("MYSQL_READ_DEFAULT_GROUP=") + params.value(QStringLiteral("option_group"));
        break;
    case Dialect::Sqlite:
        // Several processes share the demo files (console, CLI, simulator): wait, don't fail.
        opts << QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000") << QStringLiteral("QSQLITE_ENABLE_REGEXP");
        break;
    }
    return opts.join(QLatin1Char(';'));
}

bool ConnectionProfile::sameDatabase(const ConnectionProfile &other) const
{
    return dialect == other.dialect && host == other.host && port == other.port && database == other.database;
}

QString lookupPassword(const ConnectionProfile &profile)
{
    return lookupPasswordWithSource(profile).secret;
}

PasswordLookup lookupPasswordWithSource(const ConnectionProfile &profile)
{
    if (!t_typedSecret.isEmpty() && t_typedRole == profile.role)
        return {t_typedSecret, typedPasswordSource()};
    const QString specificName = passwordEnvVar(profile.role);
    const QByteArray specific = qgetenv(specificName.toLatin1().constData());
    if (!specific.isEmpty())
        return {QString::fromUtf8(specific), QLatin1Char('$') + specificName};
    const QByteArray common = qgetenv("TRIAGE_DB_PASSWORD");
    if (!common.isEmpty())
        return {QString::fromUtf8(common), QStringLiteral("$TRIAGE_DB_PASSWORD")};
    // Optional: headless machines have no D-Bus secret service (docs/QT-PITFALLS.md); any
    // failure simply means "no password from the keychain".
    if (const std::optional<QString> stored = readKeychainPassword(profile))
        return {*stored, QStringLiteral("the system keychain")};
    const QString file = profile.params.value(QStringLiteral("option_file"));
    return {QString(), file.isEmpty() ? QStringLiteral("no password variable (libpq's ~/.pgpass or the server's defaults)")
                                      : QStringLiteral("the option file %1").arg(file)};
}

} // namespace triage
