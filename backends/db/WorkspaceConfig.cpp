#include "WorkspaceConfig.h"
#include "ReplicaCheck.h"

#include "ConfigKeys.h"
#include "IniScan.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

#ifdef Q_OS_UNIX
#include <pwd.h>
#include <unistd.h>
#endif

namespace triage {

const ConnectionProfile &WorkspaceConfig::profile(DbRole role) const
{
    switch (role) {
    case DbRole::Idempotency: return idempotency;
    case DbRole::Intent: return intent;
    case DbRole::Ticket: return ticket;
    }
    return idempotency;
}

ConnectionProfile &WorkspaceConfig::profile(DbRole role)
{
    return const_cast<ConnectionProfile &>(std::as_const(*this).profile(role));
}

BizTypeConfig WorkspaceConfig::bizType(const QString &name) const
{
    auto it = bizTypes.constFind(name);
    if (it != bizTypes.constEnd())
        return *it;
    BizTypeConfig d;
    d.processingTimeoutS = defaultProcessingTimeoutS;
    return d;
}

void applyEnvironmentStart(WorkspaceConfig &config)
{
    if (environmentStartsReadOnly(config.environment) && !config.readOnly) {
        config.readOnly = true;
        config.writesLocked = true;
    }
}

int configFileInt(const WorkspaceConfig &config, const QString &key, int fallback, int min)
{
    if (config.sourceFile.isEmpty() || !QFileInfo::exists(config.sourceFile))
        return fallback;
    const QSettings s(config.sourceFile, QSettings::IniFormat);
    bool ok = false;
    const int v = s.value(key).toString().trimmed().toInt(&ok);
    return ok && v >= min ? v : fallback;
}

QString osUserName()
{
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = qEnvironmentVariable("USERNAME");
    if (user.isEmpty())
        user = qEnvironmentVariable("LOGNAME");
#ifdef Q_OS_UNIX
    if (user.isEmpty()) {
        if (const passwd *pw = getpwuid(getuid()))
            user = QString::fromLocal8Bit(pw->pw_name);
    }
#endif
    return user.isEmpty() ? QStringLiteral("unknown") : user;
}

std::optional<WorkspaceConfig> WorkspaceConfig::fromIniFile(const QString &path, QString *error)
{
    const IniScan scan = scanIniFile(path);
    // A parser's message starts with "[section] key": it gets that key's line (or the
    // section's) so that every message names file, line and key.
    auto fail = [&](const QString &why) -> std::optional<WorkspaceConfig> {
        static const QRegularExpression named(QStringLiteral("^\\[([^\\]]+)\\] ?([A-Za-z0-9_]*)"));
        int line = 0;
        if (const QRegularExpressionMatch m = named.match(why); m.hasMatch()) {
            const IniEntry *e = scan.find(m.captured(1), m.captured(2));
            line = e ? e->line : scan.sectionLine(m.captured(1));
        }
        if (error)
            *error = line > 0 ? QStringLiteral("config %1:%2: %3").arg(path, QString::number(line), why)
                              : QStringLiteral("config %1: %2").arg(path, why);
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.exists())
        return fail(QStringLiteral("no such file"));
    if (!info.isReadable() || !scan.readable)
        return fail(QStringLiteral("not readable"));
    QSettings s(path, QSettings::IniFormat);
    // Unknown sections and keys, lines that are not INI and values of the wrong type are
    // errors, all of them reported at once (DESIGN.md §5; the key table is ConfigKeys.cpp).
    const QStringList problems = configFileProblems(scan, s);
    if (!problems.isEmpty()) {
        constexpr int kShown = 20;
        if (error) {
            *error = problems.mid(0, kShown).join(QLatin1Char('\n'));
            if (problems.size() > kShown)
                *error += QStringLiteral("\nconfig %1: ... and %2 more problems").arg(path, QString::number(problems.size() - kShown));
        }
        return std::nullopt;
    }
    if (s.status() != QSettings::NoError)
        return fail(QStringLiteral("not a valid INI file"));

    WorkspaceConfig c;
    c.sourceFile = path;
    for (const IniSection &section : scan.sections)
        if (!c.sectionLines.contains(section.name))
            c.sectionLines.insert(section.name, section.line);
    {
        // QSettings splits an unquoted "Smith, John" into a list, whose toString() is "".
        const QVariant op = s.value(QStringLiteral("console/operator"));
        c.operatorName = op.typeId() == QMetaType::QStringList ? op.toStringList().join(QStringLiteral(", ")) : op.toString();
    }
    // QVariant::toBool() reads "no" and "off" as true: accept only clear spellings.
    for (const char *name : {"read_only", "push"}) {
        const QString key = QStringLiteral("console/") + QLatin1String(name);
        if (!s.contains(key))
            continue;
        const QString v = s.value(key).toString().trimmed().toLower();
        static const QStringList yes = {QStringLiteral("true"), QStringLiteral("yes"), QStringLiteral("on"), QStringLiteral("1")};
        static const QStringList no = {QStringLiteral("false"), QStringLiteral("no"), QStringLiteral("off"), QStringLiteral("0")};
        if (!yes.contains(v) && !no.contains(v))
            return fail(QStringLiteral("[console] %1 must be true or false, not \"%2\"").arg(QLatin1String(name), v));
        if (key.endsWith(QLatin1String("read_only")))
            c.readOnly = yes.contains(v);
        else
            c.push = yes.contains(v);
    }
    // DESIGN.md §5 "Environments": the key table checked the spelling already.
    if (s.contains(QStringLiteral("console/environment"))) {
        const QString v = s.value(QStringLiteral("console/environment")).toString();
        const std::optional<Environment> env = environmentFromName(v);
        if (!env)
            return fail(QStringLiteral("[console] environment: must be %1, not \"%2\"").arg(environmentChoices(), v.trimmed()));
        c.environment = *env;
    }
    {
        const QVariant name = s.value(QStringLiteral("console/name"));
        c.profileName = (name.typeId() == QMetaType::QStringList ? name.toStringList().join(QStringLiteral(", ")) : name.toString()).trimmed();
        if (c.profileName.isEmpty())
            c.profileName = info.completeBaseName();
    }
    if (s.contains(QStringLiteral("console/processing_timeout"))) {
        bool ok = false;
        c.defaultProcessingTimeoutS = s.value(QStringLiteral("console/processing_timeout")).toInt(&ok);
        if (!ok || c.defaultProcessingTimeoutS <= 0)
            return fail(QStringLiteral("[console] processing_timeout must be a positive number of seconds"));
    }
    // url, then replica_url (DESIGN.md §9 "Read replicas") and listen_url ("Push"), of each store.
    for (const QString &name : {QStringLiteral("url"), QStringLiteral("replica_url"), QStringLiteral("listen_url")}) {
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            const QString key = roleName(role) + QLatin1Char('/') + name;
            if (!s.contains(key))
                continue;
            QString why;
            auto p = ConnectionProfile::fromUrl(s.value(key).toString(), role, &why);
            if (!p)
                return fail(QStringLiteral("[%1] %2: %3").arg(roleName(role), name, why));
            if (name == QLatin1String("url")) {
                c.setProfile(*p);
                continue;
            }
            if (name == QLatin1String("listen_url")) {
                if (p->dialect != Dialect::PostgreSql)
                    return fail(QStringLiteral("[%1] listen_url: push (LISTEN/NOTIFY) is PostgreSQL only; give a postgresql:// URL")
                                    .arg(roleName(role)));
                if (c.hasProfile(role) && c.profile(role).dialect != Dialect::PostgreSql)
                    return fail(QStringLiteral("[%1] listen_url: url is %2, and push is PostgreSQL only")
                                    .arg(roleName(role), dialectName(c.profile(role).dialect)));
                // The listener must hear the database the store reads: the same name (the host
                // and port differ where url goes through a pooler).
                if (c.hasProfile(role) && p->database != c.profile(role).database)
                    return fail(QStringLiteral("[%1] listen_url: names database \"%2\", url names \"%3\": the listener must "
                                               "hear the database the store reads")
                                    .arg(roleName(role), p->database, c.profile(role).database));
                c.listenProfiles.insert(int(role), *p);
                continue;
            }
            if (const QString problem = replicaUrlProblem(c.hasProfile(role) ? std::optional(c.profile(role)) : std::nullopt, *p);
                !problem.isEmpty())
                return fail(QStringLiteral("[%1] replica_url: %2").arg(roleName(role), problem));
            c.replicas.insert(int(role), *p);
        }
    }
    if (s.contains(QStringLiteral("console/push_heartbeat_ms"))) {
        bool ok = false;
        c.pushHeartbeatMs = s.value(QStringLiteral("console/push_heartbeat_ms")).toInt(&ok);
        if (!ok || c.pushHeartbeatMs < 100)
            return fail(QStringLiteral("[console] push_heartbeat_ms must be a number of milliseconds, at least 100"));
    }
    if (s.contains(QStringLiteral("console/replica_max_lag"))) {
        bool ok = false;
        c.replicaMaxLagS = s.value(QStringLiteral("console/replica_max_lag")).toInt(&ok);
        if (!ok || c.replicaMaxLagS <= 0)
            return fail(QStringLiteral("[console] replica_max_lag must be a positive number of seconds"));
    }
    for (const QString &group : s.childGroups()) {
        if (!group.startsWith(QLatin1String("biz.")))
            continue;
        const QString name = group.mid(4);
        BizTypeConfig b;
        b.processingTimeoutS = c.defaultProcessingTimeoutS;
        s.beginGroup(group);
        if (s.contains(QStringLiteral("processing_timeout"))) {
            bool ok = false;
            b.processingTimeoutS = s.value(QStringLiteral("processing_timeout")).toInt(&ok);
            if (!ok || b.processingTimeoutS <= 0) {
                s.endGroup();
                return fail(QStringLiteral("[%1] processing_timeout must be a positive number of seconds").arg(group));
            }
        }
        b.tenantPattern = s.value(QStringLiteral("tenant_pattern"), b.tenantPattern).toString();
        if (b.tenantPattern.count(QStringLiteral("{tenant}")) != 1) {
            s.endGroup();
            return fail(QStringLiteral("[%1] tenant_pattern must contain {tenant} exactly once").arg(group));
        }
        if (s.contains(QStringLiteral("failed_evidence"))) {
            const QString v = s.value(QStringLiteral("failed_evidence")).toString().trimmed().toLower();
            if (v == QLatin1String("upstream"))
                b.failedEvidence = FailedEvidence::Upstream;
            else if (v == QLatin1String("ticket_absent"))
                b.failedEvidence = FailedEvidence::TicketAbsent;
            else {
                s.endGroup();
                return fail(QStringLiteral("[%1] failed_evidence must be upstream or ticket_absent, not \"%2\"").arg(group, v));
            }
        }
        if (s.contains(QStringLiteral("failed_evidence_max_age"))) {
            bool ok = false;
            b.failedEvidenceMaxAgeS = s.value(QStringLiteral("failed_evidence_max_age")).toInt(&ok);
            if (!ok || b.failedEvidenceMaxAgeS <= 0) {
                s.endGroup();
                return fail(QStringLiteral("[%1] failed_evidence_max_age must be a positive number of seconds").arg(group));
            }
        }
        // The safety settings as the INI sets them: checked by the key table already, they
        // only make the database's policy stricter (PolicySql.h effectiveBizPolicy()).
        QMap<QString, QString> iniRows;
        for (const QString &setting : policySettingNames()) {
            if (!s.contains(setting))
                continue;
            QString ignored;
            const QVariant value = s.value(setting); // QSettings reads "a,b" as a list (four_eyes)
            QString raw = (value.typeId() == QMetaType::QStringList ? value.toStringList().join(QLatin1Char(',')) : value.toString())
                              .trimmed()
                              .toLower();
            if (setting == QLatin1String("money_moving")) // the INI's Bool spellings (ConfigKeys.cpp)
                raw = QStringList{QStringLiteral("true"), QStringLiteral("yes"), QStringLiteral("on"), QStringLiteral("1")}.contains(raw)
                    ? QStringLiteral("true")
                    : QStringLiteral("false");
            if (const std::optional<QString> v = checkPolicyValue(setting, raw, &ignored))
                iniRows.insert(QStringLiteral("biz.%1.%2").arg(name, setting), *v);
            else if (setting == QLatin1String("four_eyes") || setting == QLatin1String("four_eyes_amount_over")) {
                // a list: the key table checks only its length
                s.endGroup();
                return fail(QStringLiteral("[%1] %2").arg(group, ignored));
            }
        }
        const BizPolicy ini = bizPolicyFromRows(iniRows, name);
        c.iniPolicy.insert(name, ini);
        c.iniPolicyRows.insert(iniRows);
        s.endGroup();
        c.bizTypes.insert(name, b);
    }
    // QSettings lists no empty group: an empty [biz.<biz_type>] still declares the biz_type
    // (with the defaults), for the comparison with the records (BizTypeCheck.h).
    for (const IniSection &section : scan.sections) {
        if (!section.name.startsWith(QLatin1String("biz.")) || c.bizTypes.contains(section.name.mid(4)))
            continue;
        BizTypeConfig b;
        b.processingTimeoutS = c.defaultProcessingTimeoutS;
        c.bizTypes.insert(section.name.mid(4), b);
    }
    {
        QString why;
        const std::optional<SchemaMap> schema = SchemaMap::fromSettings(s, &why);
        if (!schema)
            return fail(why);
        c.schema = *schema;
        if (const QStringList problems = c.schemaProblems(); !problems.isEmpty())
            return fail(problems.first());
    }
    {
        QString why;
        if (!loadUpstreamConfigs(s, &c.upstreams, &why))
            return fail(why);
        if (!loadCompensationConfigs(s, &c.compensations, &why))
            return fail(why);
    }
    return c;
}

WorkspaceConfig WorkspaceConfig::sqliteWorkspace(const QString &path)
{
    WorkspaceConfig c;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        ConnectionProfile p;
        p.role = role;
        p.dialect = Dialect::Sqlite;
        p.database = path;
        c.setProfile(p);
    }
    return c;
}

} // namespace triage
