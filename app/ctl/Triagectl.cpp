#include "Triagectl.h"

#include "AppSetup.h"

#include "BizTypeCheck.h"
#include "Doctor.h"
#include "Log.h"
#include "Workspace.h"

#include <QSet>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace triage::ctl {

namespace {

/// Only the console's stderr sink is lowered: the log file still gets every warning.
void quietConsoleLog()
{
    for (const auto &sink : spdlog::default_logger()->sinks()) {
        if (std::dynamic_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(sink))
            sink->set_level(spdlog::level::err);
    }
}

QList<QCommandLineOption> globalOptions()
{
    QList<QCommandLineOption> options = app::workspaceOptions();
    options << QCommandLineOption(QStringLiteral("format"), QStringLiteral("Output format: table (default), json or csv."),
                                  QStringLiteral("FORMAT"), QStringLiteral("table"))
            << QCommandLineOption(QStringLiteral("limit"),
                                  QStringLiteral("At most N rows (default 100; reconcile: all; 0 = no limit)."),
                                  QStringLiteral("N"), QStringLiteral("100"))
            << QCommandLineOption(QStringLiteral("production"),
                                  QStringLiteral("Allow writing commands on a production workspace."));
    return options;
}

/// "  --name VALUE   description" lines, names padded to one column; hidden options left out.
QString renderOptions(const QList<QCommandLineOption> &options)
{
    QStringList names;
    QStringList descriptions;
    for (const QCommandLineOption &o : options) {
        if (o.flags() & QCommandLineOption::HiddenFromHelp)
            continue;
        QStringList spelled;
        for (const QString &n : o.names())
            spelled << (n.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + n;
        QString left = spelled.join(QStringLiteral(", "));
        if (!o.valueName().isEmpty())
            left += QLatin1Char(' ') + o.valueName();
        names << left;
        descriptions << o.description();
    }
    qsizetype width = 0;
    for (const QString &n : std::as_const(names))
        width = qMax(width, n.size());
    QString text;
    for (int i = 0; i < names.size(); ++i)
        text += QStringLiteral("  %1  %2\n").arg(names[i].leftJustified(width), descriptions[i]);
    return text;
}

/// --help and --version (QCommandLineParser's own), for the help text only.
QList<QCommandLineOption> helpOptions()
{
    return {QCommandLineOption({QStringLiteral("h"), QStringLiteral("help")},
                               QStringLiteral("This help; after a COMMAND, that command's help.")),
            QCommandLineOption({QStringLiteral("v"), QStringLiteral("version")}, QStringLiteral("The version."))};
}

} // namespace

const std::vector<CommandFactory> &commandTable()
{
    static const std::vector<CommandFactory> table = {
        &makeInitSchemaCommand, &makeSeedDemoCommand, &makeListCommand,       &makeShowCommand,
        &makeMarkCommand,       &makeQueryCommand,    &makeDuplicatesCommand, &makeCompensateCommand,
        &makeCompensationsCommand, &makeAuditCommand, &makeDoctorCommand, &makeMapCommand,
        &makeTimelineCommand, &makeIncidentCommand, &makeBundleCommand, &makeReportCommand,
        &makeEscalationsCommand, &makeClaimCommand, &makeReleaseCommand, &makeClaimsCommand,
        &makeReconcileCommand, &makeReviewCommand, &makePolicyCommand, &makeProposalsCommand,
        &makeApproveCommand, &makeRejectCommand, &makeNotifyCommand,
    };
    return table;
}

Triagectl::Triagectl(FILE *out, FILE *err) : m_output(out, err), m_globalOptions(globalOptions())
{
    for (CommandFactory make : commandTable())
        m_commands.push_back(make());
    m_parser.setApplicationDescription(QStringLiteral(
        "Triage Console for scripts: read the idempotency records, the agents' intent log\n"
        "and the ticket table, and list what needs a human."));
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    m_parser.addOptions(m_globalOptions);
    // Every command's options, so that one given to the wrong command is named as such;
    // an option several commands share is registered once.
    QSet<QString> known;
    for (const auto &c : m_commands)
        for (const QCommandLineOption &o : c->spec().options)
            if (!known.contains(o.names().first())) {
                known.insert(o.names().first());
                m_parser.addOption(o);
            }
    m_parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("The command."), QStringLiteral("<command> [args]"));
}

Triagectl::~Triagectl() = default;

const Command *Triagectl::find(const QString &name) const
{
    for (const auto &c : m_commands)
        if (c->spec().name == name)
            return c.get();
    return nullptr;
}

Command *Triagectl::find(const QString &name)
{
    return const_cast<Command *>(std::as_const(*this).find(name));
}

QString Triagectl::helpText() const
{
    QString text = QStringLiteral("Usage: triagectl [global options] COMMAND [arguments and command options]\n%1\n\nCommands:\n")
                       .arg(m_parser.applicationDescription());
    qsizetype width = 0;
    for (const auto &c : m_commands)
        width = qMax(width, c->spec().brief.size());
    for (const auto &c : m_commands)
        text += QStringLiteral("  %1  %2\n").arg(c->spec().brief.leftJustified(width), c->spec().summary);
    text += QStringLiteral("Run \"triagectl COMMAND --help\" for a command's arguments and options.\n"
                           "\nGlobal options (before or after the command):\n");
    text += renderOptions(helpOptions() + m_globalOptions);
    text += QStringLiteral(
        "\nDatabases:\n"
        "  --config FILE (INI; see resources/triage.example.ini) and/or --idempotency-db,\n"
        "  --intent-db, --ticket-db URLs (all three required): postgresql://user@host:port/db,\n"
        "  mysql://user@host:port/db, sqlite:///absolute/path.db; query parameters sslmode,\n"
        "  sslrootcert, sslcert, sslkey (PostgreSQL), ssl_ca, ssl_cert, ssl_key, option_file,\n"
        "  option_group (MySQL/MariaDB), statement_timeout (ms or \"30s\"), connect_timeout (s).\n"
        "  --profile NAME reads a saved connection profile (File → Connect…) as --config.\n"
        "  --demo uses the embedded SQLite demo workspace instead.\n"
        "\nPasswords (never in a URL, never printed):\n"
        "  TRIAGE_IDEMPOTENCY_DB_PASSWORD, TRIAGE_INTENT_DB_PASSWORD, TRIAGE_TICKET_DB_PASSWORD,\n"
        "  each falling back to TRIAGE_DB_PASSWORD; else libpq's ~/.pgpass or a MySQL option file.\n"
        "\nOutput:\n"
        "  json: list prints an array of objects (one per line), show one object. Times are\n"
        "  ISO-8601 UTC with six fractional digits and Z, as the database holds them; SQL NULL\n"
        "  is null; snapshots and payloads are strings exactly as stored.\n"
        "  csv: RFC 4180 (header row, quoted fields where needed, CRLF line ends; NULL is an\n"
        "  empty field). show has no csv form.\n"
        "\nExit codes:\n"
        "  0  ok\n"
        "  1  usage or configuration error (bad option, URL, time or queue; a [*.map] mapping that\n"
        "     does not match the database, checked when a store is first used; show: key found nowhere)\n"
        "  2  connection or database error, including missing privileges (the message names the store)\n"
        "  3  conflict: someone else's change wins (a compare-and-set matched no row, or the\n"
        "     compensation already exists)\n"
        "  4  refused by a safety rule, including --read-only for every writing command, a writing\n"
        "     command on a production workspace without --production, and a\n"
        "     database whose console schema is newer than this build's;\n"
        "     doctor: an index the queues need is missing (1: the mapping does not match)\n"
        "  5  upstream unusable or timed out (query), or a compensation left UNKNOWN\n"
        "  6  proposed: four-eyes made the mark a proposal; nothing is applied until another\n"
        "     operator approves it (triagectl approve ID --reason TEXT)\n");
    return text;
}

QString Triagectl::commandHelpText(const QString &name) const
{
    const Command *command = find(name);
    if (!command)
        return {};
    const CommandSpec &s = command->spec();
    QString text;
    const QStringList forms = s.synopsis.split(QStringLiteral("  |  "));
    for (int i = 0; i < forms.size(); ++i)
        text += (i == 0 ? QStringLiteral("Usage: ") : QStringLiteral("       ")) + QStringLiteral("triagectl [global options] ")
            + forms[i] + QLatin1Char('\n');
    text += QLatin1Char('\n') + s.description + QLatin1Char('\n');
    const QString own = renderOptions(s.options);
    if (!own.isEmpty())
        text += QStringLiteral("\nOptions:\n") + own;
    text += QStringLiteral("\nGlobal options:\n") + renderOptions(helpOptions() + m_globalOptions);
    text += QStringLiteral("\nDatabases, passwords, output formats and exit codes: triagectl --help\n");
    return text;
}

int Triagectl::checkShape(const Command &command, const QStringList &args)
{
    const CommandSpec &s = command.spec();
    if (s.arguments < 0) {
        // mark, query: exactly one of KEY or --queue; compensate: KEY or --resume.
        if (args.size() > 1)
            return m_output.usage(QStringLiteral("%1: unexpected argument \"%2\"").arg(s.name, args.value(1)));
        if (args.isEmpty() == !m_parser.isSet(s.alternative))
            return m_output.usage(
                QStringLiteral("%1: give either a KEY or --%2 (usage: triagectl %3)").arg(s.name, s.alternative, s.synopsis));
    } else if (s.variadic ? args.size() < s.arguments : args.size() != s.arguments) {
        return m_output.usage(args.size() < s.arguments
                                  ? QStringLiteral("%1: missing argument (usage: triagectl %2)").arg(s.name, s.synopsis)
                                  : QStringLiteral("%1: unexpected argument \"%2\"").arg(s.name, args.value(s.arguments)));
    }
    // A command's options belong to it (and to the siblings that share them).
    QSet<QString> mine;
    for (const QCommandLineOption &o : s.options)
        mine.insert(o.names().first());
    for (const auto &other : m_commands) {
        if (other.get() == &command)
            continue;
        for (const QCommandLineOption &o : other->spec().options) {
            const QString n = o.names().first();
            if (m_parser.isSet(n) && !mine.contains(n))
                return m_output.usage(QStringLiteral("--%1 is an option of %2, not of %3").arg(n, other->spec().name, s.name));
        }
    }
    return ExitOk;
}

bool Triagectl::needsGui(const QStringList &arguments)
{
    if (!m_parser.parse(arguments) || m_parser.isSet(QStringLiteral("help")) || m_parser.isSet(QStringLiteral("version")))
        return false;
    const Command *command = find(m_parser.positionalArguments().value(0));
    return command && command->spec().needsGui;
}

int Triagectl::run(const QStringList &arguments)
{
    static const QString commandNames =
        QStringLiteral("init-schema, seed-demo, list, show, mark, query, duplicates, compensate, compensations, audit, doctor, map, timeline, incident, bundle, report, escalations, claim, release, claims, reconcile, review, policy, proposals, approve, reject or notify");
    if (!m_parser.parse(arguments))
        return m_output.usage(m_parser.errorText());
    const QStringList positional = m_parser.positionalArguments();
    if (m_parser.isSet(QStringLiteral("help")) || m_parser.isSet(QStringLiteral("help-all"))) {
        const QString commandHelp = commandHelpText(positional.value(0));
        m_output.print((commandHelp.isEmpty() ? helpText() : commandHelp).toUtf8());
        return ExitOk;
    }
    if (m_parser.isSet(QStringLiteral("version"))) {
        m_output.print(QStringLiteral("triagectl %1\n").arg(QStringLiteral(TRIAGE_VERSION)).toUtf8());
        return ExitOk;
    }
    if (positional.isEmpty())
        return m_output.usage(QStringLiteral("no command given (%1)").arg(commandNames));
    Command *command = find(positional.first());
    if (!command)
        return m_output.usage(QStringLiteral("unknown command \"%1\" (%2)").arg(positional.first(), commandNames));
    const QStringList args = positional.mid(1);
    if (const int code = checkShape(*command, args); code != ExitOk)
        return code;

    const auto format = command->spec().ownsFormat ? std::optional(Format::Table) : formatFromText(m_parser.value(QStringLiteral("format")));
    if (!format)
        return m_output.usage(QStringLiteral("--format \"%1\": use table, json or csv").arg(m_parser.value(QStringLiteral("format"))));
    m_output.setFormat(*format);
    bool ok = false;
    const int limit = m_parser.value(QStringLiteral("limit")).trimmed().toInt(&ok);
    if (!ok || limit < 0)
        return m_output.usage(
            QStringLiteral("--limit \"%1\": give a number of rows, 0 for no limit").arg(m_parser.value(QStringLiteral("limit"))));
    const CommandContext context{m_parser, m_output, args, limit};
    if (const int code = command->prepare(context); code != ExitOk)
        return code;
    if (!command->needsDatabase(context))
        return command->runOffline(context);

    app::setupLogging(QStringLiteral("triagectl"), m_parser.isSet(QStringLiteral("verbose")));
    if (!m_parser.isSet(QStringLiteral("verbose")))
        quietConsoleLog(); // this command reports its own errors; the log file keeps the rest

    QString error;
    bool demoFailed = false;
    auto config = app::workspaceFromOptions(m_parser, false, &error, &demoFailed);
    if (!config) {
        if (demoFailed) {
            m_output.message(error);
            return ExitDatabase;
        }
        return m_output.usage(error);
    }
    for (const QString &notice : app::setupNotices())
        m_output.message(QStringLiteral("warning: ") + notice);
    // A dry run writes nothing, so read-only mode allows it (the backend decides the rest
    // and writes no row).
    if (command->spec().writes && config->readOnly && !command->dryRun(m_parser)) {
        m_output.message(QStringLiteral("%1 writes to the databases: refused in read-only mode (--read-only or read_only=true)")
                             .arg(command->spec().name));
        return ExitRefused;
    }
    // DESIGN.md §5 "Environments": writing to production is stated on the command line.
    if (command->spec().writes && !command->dryRun(m_parser)) {
        const QString refusal = productionWriteRefusal(config->environment, config->profileName, command->spec().name,
                                                       m_parser.isSet(QStringLiteral("production")));
        if (!refusal.isEmpty()) {
            m_output.message(refusal);
            return ExitRefused;
        }
    }
    // Without --production a production workspace is read-only for every command, not only
    // those whose spec writes: incident create, review signoff and note, escalations resolve
    // and the query's audit row write as a side of a command that mostly reads.
    if (config->environment == Environment::Production && !m_parser.isSet(QStringLiteral("production")))
        config->readOnly = true;

    Workspace workspace(*config);
    // A triagectl run cannot know what an earlier run wrote (`mark`, then `show`): one key's
    // reads go to the primary; lists, counts and reports to the replicas (DESIGN.md §9).
    workspace.setKeyReadsOnPrimary(true);
    if (command->spec().checksMapping)
        installMappingCheck(workspace);
    const int code = command->run(workspace, context);
    // Reads that went to the primary instead of a replica are said, never silent (doctor says
    // it in its own words).
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        if (command->spec().name == QLatin1String("doctor"))
            break;
        const ReplicaStatus r = workspace.reader(role).status();
        if (r.state != ReplicaStatus::State::None && !r.usable() && r.measuredAtUtc.isValid())
            m_output.message(QStringLiteral("note: %1 store: %2").arg(roleName(role), r.text()));
    }
    // After the command, so that it never adds a login of its own to a store that just
    // failed, and init-schema / seed-demo are compared with what they created.
    if (code != ExitDatabase) {
        const Outcome<QStringList> warnings = checkBizTypeSections(workspace).result();
        if (!warnings.ok())
            logger("ctl")->warn("could not compare the [biz.*] sections with the records: {}", warnings.error->message.toStdString());
        else
            for (const QString &w : *warnings)
                m_output.message(QStringLiteral("warning: ") + w);
    }
    return code;
}

} // namespace triage::ctl
