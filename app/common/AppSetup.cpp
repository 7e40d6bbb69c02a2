#include "AppSetup.h"
#include "ReplicaCheck.h"
#include "Proposal.h"

#include "Log.h"
#include "ProfileStore.h"
#include "Workspace.h"
#include "DemoWorkspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace triage::app {

namespace {

void qtMessageToSpdlog(QtMsgType type, const QMessageLogContext &, const QString &message)
{
    static const auto qt = triage::logger("qt");
    switch (type) {
    case QtDebugMsg: qt->debug("{}", message); break;
    case QtInfoMsg: qt->info("{}", message); break;
    case QtWarningMsg: qt->warn("{}", message); break;
    case QtCriticalMsg: qt->error("{}", message); break;
    case QtFatalMsg: qt->critical("{}", message); qt->flush(); abort();
    }
}

} // namespace

void setupLogging(const QString &appName, bool verbose)
{
    std::vector<spdlog::sink_ptr> sinks;
    auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
    sinks.push_back(console);
    QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (!dir.isEmpty()) {
        dir += QStringLiteral("/triage-console/logs");
        if (QDir().mkpath(dir)) {
            try {
                auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
                    QDir(dir).filePath(appName + QStringLiteral(".log")).toStdString(), 5 * 1024 * 1024, 5);
                file->set_level(spdlog::level::debug);
                sinks.push_back(file);
            } catch (const spdlog::spdlog_ex &) {
                // A read-only home must not stop the console; stderr still logs.
            }
        }
    }
    auto root = std::make_shared<spdlog::logger>(appName.toStdString(), sinks.begin(), sinks.end());
    root->set_level(spdlog::level::debug);
    root->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %^%l%$ [%n] %v", spdlog::pattern_time_type::utc);
    root->flush_on(spdlog::level::warn);
    spdlog::drop_all();
    spdlog::set_default_logger(root);
    qInstallMessageHandler(qtMessageToSpdlog);
}

QList<QCommandLineOption> workspaceOptions()
{
    return {
        {QStringLiteral("config"), QStringLiteral("INI configuration file (see resources/triage.example.ini)."), QStringLiteral("FILE")},
        {QStringLiteral("profile"),
         QStringLiteral("Saved connection profile NAME (File → Connect…), read as --config of its file."),
         QStringLiteral("NAME")},
        {QStringLiteral("demo"), QStringLiteral("Open the embedded SQLite demo workspace (created on first use).")},
        {QStringLiteral("demo-reset"), QStringLiteral("Re-create the demo workspace with fresh data (implies --demo).")},
        {QStringLiteral("idempotency-db"), QStringLiteral("Idempotency-record database URL."), QStringLiteral("URL")},
        {QStringLiteral("intent-db"), QStringLiteral("Intent-log database URL."), QStringLiteral("URL")},
        {QStringLiteral("ticket-db"), QStringLiteral("Ticket (business) database URL."), QStringLiteral("URL")},
        {QStringLiteral("replica"),
         QStringLiteral("A store's read replica, as its replica_url: idempotency=URL, intent=URL or ticket=URL (repeatable)."),
         QStringLiteral("STORE=URL")},
        {QStringLiteral("operator"), QStringLiteral("Operator name recorded on audit rows (default: the OS user)."), QStringLiteral("NAME")},
        {QStringLiteral("read-only"), QStringLiteral("Disable every write action.")},
        {QStringLiteral("environment"),
         QStringLiteral("production, staging or development (overrides [console] environment)."),
         QStringLiteral("NAME")},
        {QStringLiteral("verbose"), QStringLiteral("Log debug messages to stderr.")},
    };
}

void addWorkspaceOptions(QCommandLineParser &parser)
{
    parser.addOptions(workspaceOptions());
}

namespace {
thread_local QStringList t_notices; ///< setupNotices()
} // namespace

QStringList setupNotices()
{
    return t_notices;
}

std::optional<WorkspaceConfig> workspaceFromOptions(const QCommandLineParser &parser, bool demoByDefault, QString *error,
                                                    bool *dbError)
{
    t_notices.clear();
    if (dbError)
        *dbError = false;
    const bool anyUrl = parser.isSet(QStringLiteral("idempotency-db")) || parser.isSet(QStringLiteral("intent-db"))
        || parser.isSet(QStringLiteral("ticket-db"));
    const bool profile = parser.isSet(QStringLiteral("profile"));
    if (profile && parser.isSet(QStringLiteral("config"))) {
        *error = QStringLiteral("--profile cannot be combined with --config (a profile is a config file)");
        return std::nullopt;
    }
    const bool fileGiven = parser.isSet(QStringLiteral("config")) || profile;
    const bool demo = parser.isSet(QStringLiteral("demo")) || parser.isSet(QStringLiteral("demo-reset"))
        || (demoByDefault && !anyUrl && !fileGiven);
    if (demo && (anyUrl || fileGiven)) {
        *error = QStringLiteral("--demo cannot be combined with --config, --profile or --*-db");
        return std::nullopt;
    }
    if (demo && parser.isSet(QStringLiteral("replica"))) {
        *error = QStringLiteral("--demo has no read replicas (a SQLite file): leave out --replica");
        return std::nullopt;
    }
    WorkspaceConfig config;
    if (demo) {
        const QString why = DemoWorkspace::ensure(parser.isSet(QStringLiteral("demo-reset")));
        if (!why.isEmpty()) {
            *error = QStringLiteral("cannot create the demo workspace: ") + why;
            if (dbError)
                *dbError = true;
            return std::nullopt;
        }
        config = DemoWorkspace::config();
    } else {
        QString file = parser.value(QStringLiteral("config"));
        if (profile) {
            // DESIGN.md §5 "Connection profiles": a profile is read exactly as --config of its file.
            const ProfileStore store;
            const QString name = parser.value(QStringLiteral("profile"));
            if (!store.exists(name)) {
                *error = unknownProfileError(store, name);
                return std::nullopt;
            }
            file = store.path(name);
        }
        if (fileGiven) {
            auto fromFile = WorkspaceConfig::fromIniFile(file, error);
            if (!fromFile)
                return std::nullopt;
            config = *fromFile;
        }
        const std::pair<const char *, DbRole> urls[] = {
            {"idempotency-db", DbRole::Idempotency}, {"intent-db", DbRole::Intent}, {"ticket-db", DbRole::Ticket}};
        for (const auto &[option, role] : urls) {
            const QString name = QString::fromLatin1(option);
            if (!parser.isSet(name))
                continue;
            auto p = ConnectionProfile::fromUrl(parser.value(name), role, error);
            if (!p)
                return std::nullopt;
            // The file's replica belongs to the file's database: a store moved elsewhere on the
            // command line reads from its new primary only (DESIGN.md §9 "Read replicas").
            if (config.replicas.contains(int(role)) && !config.profile(role).sameDatabase(*p)) {
                t_notices << QStringLiteral("--%1 names another database than the config file: its [%2] replica_url is "
                                            "not used; every read of that store goes to %3")
                                 .arg(name, roleName(role), p->displayUrl());
                logger("app")->warn("{}", t_notices.last().toStdString());
                config.replicas.remove(int(role));
            }
            if (config.listenProfiles.contains(int(role)) && !config.profile(role).sameDatabase(*p)) {
                t_notices << QStringLiteral("--%1 names another database than the config file: its [%2] listen_url is "
                                            "not used; push listens on %3 itself, if it reaches the server directly")
                                 .arg(name, roleName(role), p->displayUrl());
                logger("app")->warn("{}", t_notices.last().toStdString());
                config.listenProfiles.remove(int(role));
            }
            config.setProfile(*p);
        }
        // Read replicas named on the command line (DESIGN.md §9 "Read replicas"): the same rule
        // as replica_url, checked against the store's URL as given (file or option).
        for (const QString &given : parser.values(QStringLiteral("replica"))) {
            const qsizetype eq = given.indexOf(QLatin1Char('='));
            std::optional<DbRole> role;
            for (DbRole r : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
                if (eq > 0 && given.left(eq).trimmed() == roleName(r))
                    role = r;
            if (!role) {
                *error = QStringLiteral("--replica %1: give STORE=URL, STORE being idempotency, intent or ticket").arg(given.left(40));
                return std::nullopt;
            }
            const QString store = roleName(*role);
            QString why;
            auto p = ConnectionProfile::fromUrl(given.mid(eq + 1).trimmed(), *role, &why);
            if (!p) {
                *error = QStringLiteral("--replica %1=…: %2").arg(store, why);
                return std::nullopt;
            }
            if (const QString problem = replicaUrlProblem(config.hasProfile(*role) ? std::optional(config.profile(*role)) : std::nullopt, *p);
                !problem.isEmpty()) {
                *error = QStringLiteral("--replica %1=…: %2").arg(store, problem);
                return std::nullopt;
            }
            config.replicas.insert(int(*role), *p);
        }
        QStringList missing;
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
            if (!config.hasProfile(role))
                missing << QStringLiteral("--%1-db").arg(roleName(role));
        if (!missing.isEmpty()) {
            *error = QStringLiteral("no database configured for: %1 (use --config FILE, --profile NAME, the --*-db URLs, or --demo)")
                         .arg(missing.join(QStringLiteral(", ")));
            return std::nullopt;
        }
        // A URL given on the command line may change a store's dialect after the file's check.
        if (const QStringList problems = config.schemaProblems(); !problems.isEmpty()) {
            *error = QStringLiteral("schema mapping: ") + problems.first();
            return std::nullopt;
        }
    }
    if (parser.isSet(QStringLiteral("operator")))
        config.operatorName = parser.value(QStringLiteral("operator"));
    if (config.operatorName.isEmpty())
        config.operatorName = osUserName();
    // Audit rows and four-eyes name a person: a name of only spaces, marks or invisible
    // characters names nobody (DESIGN.md §9 "Four-eyes", operatorKey()).
    if (operatorKey(config.operatorName).isEmpty()) {
        *error = QStringLiteral("operator name \"%1\" names nobody: give a name with at least one letter or digit (--operator NAME "
                                "or [console] operator)")
                     .arg(config.operatorName);
        return std::nullopt;
    }
    if (parser.isSet(QStringLiteral("read-only")))
        config.readOnly = true;
    if (parser.isSet(QStringLiteral("environment"))) {
        const QString v = parser.value(QStringLiteral("environment"));
        const std::optional<Environment> env = environmentFromName(v);
        if (!env) {
            *error = QStringLiteral("--environment \"%1\": use %2").arg(v, environmentChoices());
            return std::nullopt;
        }
        // Lowering a production profile is allowed (the option wins) but never silent.
        if (config.environment == Environment::Production && *env != Environment::Production) {
            t_notices << QStringLiteral("--environment %1 overrides the production environment of profile \"%2\": its writes "
                                        "are not guarded as production")
                             .arg(environmentName(*env), config.profileName);
            logger("app")->warn("{}", t_notices.last().toStdString());
        }
        config.environment = *env;
    }
    // Without a config file (only --*-db URLs) the profile is named after the ticket
    // database (DESIGN.md §5 "Environments").
    if (config.profileName.isEmpty())
        config.profileName = QFileInfo(config.ticket.database).completeBaseName();
    return config;
}

} // namespace triage::app
