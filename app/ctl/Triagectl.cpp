#include "Triagectl.h"

#include "AppSetup.h"
#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "BizTypeCheck.h"
#include "CanonicalTicket.h"
#include "DemoData.h"
#include "Doctor.h"
#include "Log.h"
#include "RecordStatus.h"
#include "TextEscape.h"
#include "TimeText.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace triage::ctl {

namespace {

/// Rows per fetchQueuePage() round trip by default: large pages, few round trips.
constexpr int kDefaultPageSize = 1000;

QString opt(const char *name)
{
    return QString::fromLatin1(name);
}

/// ISO-8601 text as parseUtcMicros() reads it, or a bare date (midnight UTC).
std::optional<UtcMicros> parseTimeOption(const QString &text)
{
    if (auto t = parseUtcMicros(text))
        return t;
    static const QRegularExpression dateOnly(QStringLiteral(R"(^\s*\d{4}-\d{2}-\d{2}\s*$)"));
    if (dateOnly.match(text).hasMatch())
        return parseUtcMicros(text.trimmed() + QStringLiteral("T00:00:00Z"));
    return std::nullopt;
}

/// Characters of a result_snapshot that `show` prints in the table format without --full.
constexpr int kSnapshotPreviewChars = 2000;

/// "the ticket database and the intent-log database": the stores that failed.
QString failedStoreNames(const KeyDetail &d)
{
    QStringList names;
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
        names << roleTitle(it.key());
    return names.join(QStringLiteral(" and "));
}

/// "NULL" for a null string (the table format's spelling of SQL NULL).
QString orNull(const QString &s)
{
    return s.isNull() ? QStringLiteral("NULL") : s;
}

QString orNull(const NullableText &s)
{
    return s ? *s : QStringLiteral("NULL");
}

/// A canonical UTC time with the operator's local time beside it (DESIGN.md §4).
QString withLocal(const QString &utc)
{
    if (utc.isNull())
        return QStringLiteral("NULL");
    const auto t = parseUtcMicros(utc);
    return t ? QStringLiteral("%1  (local %2)").arg(utc, formatLocal(*t)) : utc;
}

/// Only the console's stderr sink is lowered: the log file still gets every warning.
void quietConsoleLog()
{
    for (const auto &sink : spdlog::default_logger()->sinks()) {
        if (std::dynamic_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(sink))
            sink->set_level(spdlog::level::err);
    }
}

} // namespace

/// One command: its name, synopsis, description, the options only it takes, and how many
/// positional arguments follow it.
struct Triagectl::Command {
    QString name;
    QString synopsis;
    QString description;
    QStringList options;
    int arguments = 0;
    bool writes = false;
};

const QVector<Triagectl::Command> &Triagectl::commands()
{
    static const QVector<Command> list = {
        {QStringLiteral("init-schema"), QStringLiteral("init-schema [--without-backstop]"),
         QStringLiteral("Create the tables and indexes in the three databases (idempotent:\n"
                        "CREATE ... IF NOT EXISTS, nothing is dropped). --without-backstop omits\n"
                        "UNIQUE(ticket.idem_key), for test and demo databases that must\n"
                        "reproduce a breached defence."),
         {opt("without-backstop")}, 0, true},
        {QStringLiteral("seed-demo"), QStringLiteral("seed-demo [--rows N] [--seed S]"),
         QStringLiteral("Insert generated data: without --rows (or --rows 0) the demo set covering\n"
                        "every case; N > 0 gives N records at production-like proportions\n"
                        "(2 % stale PROCESSING, 1 % in flight, 0.1 % duplicate tickets), batched.\n"
                        "Times are relative to each database's clock. Prints counts and time."),
         {opt("rows"), opt("seed")}, 0, true},
        {QStringLiteral("list"), QStringLiteral("list QUEUE [filters]"),
         QStringLiteral("List a work queue, oldest updated_at first. QUEUE (case-insensitive):\n"
                        "  unknown    stale PROCESSING records and keys whose latest intent\n"
                        "             attempt is UNKNOWN / RECONCILE_PENDING\n"
                        "  inflight   PROCESSING records younger than their processing timeout\n"
                        "  failed     FAILED records\n"
                        "  success    SUCCESS records\n"
                        "  escalated  keys whose latest intent attempt is ESCALATED\n"
                        "Stops after --limit rows. The table format ends with \"N rows (of M)\"."),
         {opt("biz-type"), opt("tenant"), opt("key"), opt("created-from"), opt("created-to"), opt("updated-from"),
          opt("updated-to"), opt("newest-first"), opt("page-size")},
         1, false},
        {QStringLiteral("show"), QStringLiteral("show KEY [--full]"),
         QStringLiteral("Everything about one idempotency key: the record (every field), warnings,\n"
                        "tickets, intent-log attempts and the merged timeline (table or json).\n"
                        "The table format previews a result_snapshot over 2000 characters\n"
                        "(--full prints all of it). A key found in no store exits 1; a store\n"
                        "that fails is shown as unknown, the others still shown, and exits 2."),
         {opt("full")}, 1, false},
        {QStringLiteral("mark"), QStringLiteral("mark KEY --to success|failed --reason TEXT [options]  |  mark --queue QUEUE [filters] --to …"),
         QStringLiteral("Settle a record by compare-and-set (DESIGN.md §2): PROCESSING→SUCCESS, PROCESSING→FAILED,\n"
                        "FAILED→SUCCESS. SUCCESS is final. SUCCESS needs a JSON-object snapshot: --snapshot FILE\n"
                        "(- = stdin; kept byte-exact) or --snapshot-from-ticket ID (a ticket carrying KEY). Every\n"
                        "mark needs a reason of >= 10 characters. FAILED needs positive evidence of absence\n"
                        "(DESIGN.md §6): stale, no ticket, no SUCCEEDED or ESCALATED attempt, and a recorded upstream\n"
                        "NOT_FOUND (`query KEY`) obtained after updated_at + processing_timeout and after the latest\n"
                        "attempt, younger than failed_evidence_max_age (or failed_evidence = ticket_absent).\n"
                        "--override (reason >= 20 characters, audited) sets aside only missing or aged evidence and\n"
                        "an ESCALATED attempt, never a ticket, a SUCCEEDED attempt, an upstream FOUND or a record\n"
                        "that is not stale. Without --expect-* the current state is read first and used; with\n"
                        "--expect-status and --expect-updated-at (as `show --format json` prints them;\n"
                        "--expect-version where the table has one) exactly that state must still hold. --dry-run\n"
                        "decides and writes nothing (allowed in read-only mode). Every real outcome is audited\n"
                        "(triage_audit), refusals included. With --queue instead of KEY: every record row of the\n"
                        "queue (filters and --limit as for list; --limit 0 = all), one transaction per record, each\n"
                        "decided on its own evidence (no override in bulk); SUCCESS takes the snapshot of the key's\n"
                        "canonical ticket when it is its only live one. A SUCCESS snapshot comes only from the\n"
                        "canonical ticket (DESIGN.md §6). Exit: 0 applied, 3 conflict, 4 refused, 2 error."),
         {opt("to"), opt("reason"), opt("snapshot"), opt("snapshot-from-ticket"), opt("expect-status"),
          opt("expect-updated-at"), opt("expect-version"), opt("override"), opt("dry-run"), opt("queue"),
          opt("biz-type"), opt("tenant"), opt("key"), opt("created-from"), opt("created-to"), opt("updated-from"),
          opt("updated-to"), opt("newest-first")},
         -1, true},
        {QStringLiteral("query"), QStringLiteral("query KEY  |  query --queue QUEUE [filters] [--concurrency N] [--pause-after K]"),
         QStringLiteral("Ask the business system's own query API (per biz_type upstream_* settings; the demo starts\n"
                        "its upstream simulator) what happened, print the evidence and the suggested verdict with\n"
                        "its reason (DESIGN.md §6), and record the query in triage_audit (the key's timeline).\n"
                        "With --queue: every key of the queue, at most N requests in flight (default 6), stopping\n"
                        "after K consecutive unusable answers (default 10; 0 = never). Exit 5 when an answer was\n"
                        "unusable (timeout, 5xx, HTML, not configured, …)."),
         {opt("queue"), opt("concurrency"), opt("pause-after"), opt("biz-type"), opt("tenant"), opt("key"),
          opt("created-from"), opt("created-to"), opt("updated-from"), opt("updated-to"), opt("newest-first")},
         -1, false},
        {QStringLiteral("duplicates"), QStringLiteral("duplicates [--key SUBSTR] [--tenant T] [--created-from T] [--created-to T] [--all]"),
         QStringLiteral("The Duplicate keys queue: ticket groups sharing one idem_key (unresolved ones, i.e. with more\n"
                        "than one ticket not CANCELLED, unless --all) with size, tenants, first/last creation and\n"
                        "the record's status; tickets whose record is PROCESSING or FAILED; SUCCESS snapshots naming\n"
                        "a missing or CANCELLED ticket or differing from its payload; intent-log steps whose attempts\n"
                        "used more than one key. --key filters all three; at most --limit rows of each."),
         {opt("key"), opt("tenant"), opt("created-from"), opt("created-to"), opt("all"), opt("page-size")}, 0, false},
        {QStringLiteral("compensate"), QStringLiteral("compensate KEY --action A --target TICKET_ID --reason TEXT [--dry-run] [--override]  |  compensate --resume COMP_KEY"),
         QStringLiteral("Compensate one side effect of KEY (e.g. cancel_ticket of an extra ticket of a duplicate group)\n"
                        "through the biz_type's compensation_<action>_* endpoint, with the deterministic key\n"
                        "comp:<action>:<ticket>:<KEY> (hashed to 64 characters) as X-Idempotency-Key. The intent is\n"
                        "written to triage_compensation before the call; a timeout or unclear reply leaves it UNKNOWN\n"
                        "(exit 5), confirmed by the confirmation query; --resume re-sends the stored request with the\n"
                        "same key. The canonical ticket (the one the SUCCESS snapshot names, else the earliest live\n"
                        "one; DESIGN.md §6) is never a target, also on --resume; a group whose tickets' business\n"
                        "payloads differ (key reuse) or whose SUCCESS snapshot names a CANCELLED or missing ticket\n"
                        "needs --override with a reason of >= 20 characters. Every outcome, refusals included, is\n"
                        "audited. Exit: 0 succeeded, 1 unknown COMP_KEY, 3 the compensation already exists,\n"
                        "4 refused, 5 UNKNOWN."),
         {opt("action"), opt("target"), opt("reason"), opt("dry-run"), opt("resume"), opt("override")}, -1, true},
        {QStringLiteral("compensations"), QStringLiteral("compensations [--status S] [--key KEY]"),
         QStringLiteral("Compensations (INTENT, SUCCEEDED, FAILED, UNKNOWN), oldest first; json adds every attempt."),
         {opt("status"), opt("key")}, 0, false},
        {QStringLiteral("audit"), QStringLiteral("audit [--key KEY] [--since TIME]"),
         QStringLiteral("The audit trail of operator actions (triage_audit), oldest first, at most --limit rows."),
         {opt("key"), opt("since")}, 0, false},
        {QStringLiteral("doctor"), QStringLiteral("doctor"),
         QStringLiteral("Inspect the live databases: for every index the queues and views need, say whether it\n"
                        "exists, which statement creates it if not, and (PostgreSQL, MySQL) the plan the queue's\n"
                        "first-page query gets now. Exit 0 when all are present, 4 when one is missing."),
         {}, 0, false},
    };
    return list;
}

const Triagectl::Command *Triagectl::findCommand(const QString &name)
{
    for (const Command &c : commands())
        if (c.name == name)
            return &c;
    return nullptr;
}

Triagectl::Triagectl(FILE *out, FILE *err) : m_out(out), m_err(err)
{
    m_parser.setApplicationDescription(QStringLiteral(
        "Triage Console for scripts: read the idempotency records, the agents' intent log\n"
        "and the ticket table, and list what needs a human."));
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    app::addWorkspaceOptions(m_parser);
    m_parser.addOptions({
        {opt("format"), QStringLiteral("Output format: table (default), json or csv."), QStringLiteral("FORMAT"),
         QStringLiteral("table")},
        {opt("limit"), QStringLiteral("list: at most N rows (default 100; 0 = no limit)."), QStringLiteral("N"),
         QStringLiteral("100")},
        {opt("without-backstop"), QStringLiteral("init-schema: omit UNIQUE(ticket.idem_key).")},
        {opt("rows"), QStringLiteral("seed-demo: N records at production-like proportions (0 = the demo set)."),
         QStringLiteral("N")},
        {opt("seed"), QStringLiteral("seed-demo: random seed (same seed, same data; default %1).")
                          .arg(SeedOptions().seed),
         QStringLiteral("S")},
        {opt("biz-type"), QStringLiteral("list: only this biz_type (leaves intent-log rows out)."), QStringLiteral("T")},
        {opt("tenant"), QStringLiteral("list: only keys of this tenant (per biz_type tenant pattern)."),
         QStringLiteral("T")},
        {opt("key"), QStringLiteral("list: only keys containing this text (case-sensitive)."), QStringLiteral("SUBSTR")},
        {opt("created-from"), QStringLiteral("list: created_at >= TIME (ISO-8601; no zone = UTC)."), QStringLiteral("TIME")},
        {opt("created-to"), QStringLiteral("list: created_at < TIME."), QStringLiteral("TIME")},
        {opt("updated-from"), QStringLiteral("list: updated_at >= TIME."), QStringLiteral("TIME")},
        {opt("updated-to"), QStringLiteral("list: updated_at < TIME."), QStringLiteral("TIME")},
        {opt("newest-first"), QStringLiteral("list: newest updated_at first.")},
        {opt("to"), QStringLiteral("mark: the new status, success or failed."), QStringLiteral("STATUS")},
        {opt("reason"), QStringLiteral("mark: why (required; audited)."), QStringLiteral("TEXT")},
        {opt("snapshot"), QStringLiteral("mark: result snapshot file for SUCCESS (- = stdin)."), QStringLiteral("FILE")},
        {opt("snapshot-from-ticket"), QStringLiteral("mark: take the snapshot from this ticket's payload."), QStringLiteral("ID")},
        {opt("expect-status"), QStringLiteral("mark: the status the record must still have."), QStringLiteral("S")},
        {opt("expect-updated-at"), QStringLiteral("mark: the updated_at it must still have (as show prints it)."), QStringLiteral("T")},
        {opt("expect-version"), QStringLiteral("mark: the version it must still have."), QStringLiteral("V")},
        {opt("override"), QStringLiteral("mark: set aside missing FAILED evidence or an open escalation; compensate: the key-reuse and inconsistent-snapshot rules (reason >= 20 characters; audited).")},
        {opt("dry-run"), QStringLiteral("mark: show what would be applied; write nothing.")},
        {opt("queue"), QStringLiteral("mark: every record row of this queue instead of one KEY."), QStringLiteral("QUEUE")},
        {opt("since"), QStringLiteral("audit: rows at or after TIME."), QStringLiteral("TIME")},
        {opt("full"), QStringLiteral("show: print a large result_snapshot in full (table format).")},
        {opt("all"), QStringLiteral("duplicates: also resolved groups.")},
        {opt("action"), QStringLiteral("compensate: the action (compensation_<action>_url)."), QStringLiteral("A")},
        {opt("target"), QStringLiteral("compensate: the ticket id to compensate."), QStringLiteral("ID")},
        {opt("resume"), QStringLiteral("compensate: continue this compensation."), QStringLiteral("COMP_KEY")},
        {opt("status"), QStringLiteral("compensations: only this status."), QStringLiteral("S")},
        {opt("concurrency"), QStringLiteral("query --queue: requests in flight (1..6, default 6)."), QStringLiteral("N"), QStringLiteral("6")},
        {opt("pause-after"), QStringLiteral("query --queue: stop after K consecutive unusable answers (default 10; 0 = never)."),
         QStringLiteral("K"), QStringLiteral("10")},
    });
    // Tests use small pages to exercise keyset paging across many round trips.
    QCommandLineOption pageSize(opt("page-size"), QStringLiteral("list: rows per round trip (default %1).").arg(kDefaultPageSize),
                                QStringLiteral("N"), QString::number(kDefaultPageSize));
    pageSize.setFlags(QCommandLineOption::HiddenFromHelp);
    m_parser.addOption(pageSize);
    m_parser.addPositionalArgument(QStringLiteral("command"),
                                   QStringLiteral("init-schema, seed-demo, list, show, mark, query, duplicates, compensate, compensations, audit or doctor."),
                                   QStringLiteral("<command> [args]"));
}

QString Triagectl::helpText() const
{
    QString text = m_parser.helpText();
    // QCommandLineParser names the program by its full path; scripts know it as triagectl.
    static const QRegularExpression usageLine(QStringLiteral(R"(^Usage: \S+)"));
    text.replace(usageLine, QStringLiteral("Usage: triagectl"));
    text += QStringLiteral("\nCommands:\n");
    for (const Command &c : commands()) {
        text += QStringLiteral("  %1\n").arg(c.synopsis);
        for (const QString &line : c.description.split(QLatin1Char('\n')))
            text += QStringLiteral("      %1\n").arg(line);
    }
    text += QStringLiteral(
        "\nDatabases:\n"
        "  --config FILE (INI; see resources/triage.example.ini) and/or --idempotency-db,\n"
        "  --intent-db, --ticket-db URLs (all three required): postgresql://user@host:port/db,\n"
        "  mysql://user@host:port/db, sqlite:///absolute/path.db; query parameters sslmode,\n"
        "  sslrootcert, sslcert, sslkey (PostgreSQL), ssl_ca, ssl_cert, ssl_key, option_file,\n"
        "  option_group (MySQL/MariaDB), statement_timeout (ms or \"30s\"), connect_timeout (s).\n"
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
        "  1  usage or configuration error (bad option, URL, time or queue; show: key found nowhere)\n"
        "  2  connection or database error, including missing privileges (the message names the store)\n"
        "  3  conflict: someone else's change wins (a compare-and-set matched no row, or the\n"
        "     compensation already exists)\n"
        "  4  refused by a safety rule, including --read-only for every writing command;\n"
        "     doctor: an index the queues need is missing\n"
        "  5  upstream unusable or timed out (query), or a compensation left UNKNOWN\n");
    return text;
}

void Triagectl::print(const QByteArray &bytes)
{
    fwrite(bytes.constData(), 1, size_t(bytes.size()), m_out);
}

void Triagectl::message(const QString &text)
{
    QString lines;
    for (const QString &line : text.split(QLatin1Char('\n')))
        lines += QStringLiteral("triagectl: ") + line + QLatin1Char('\n');
    const QByteArray bytes = lines.toUtf8();
    fwrite(bytes.constData(), 1, size_t(bytes.size()), m_err);
    fflush(m_err);
}

int Triagectl::usage(const QString &text)
{
    message(text);
    message(QStringLiteral("run \"triagectl --help\" for usage"));
    return ExitUsage;
}

int Triagectl::dbFailure(const DbError &error, const QString &hint)
{
    message(error.message);
    if (!hint.isEmpty())
        message(QStringLiteral("hint: ") + hint);
    return error.kind == DbError::Kind::Config ? ExitUsage : ExitDatabase;
}

int Triagectl::run(const QStringList &arguments)
{
    if (!m_parser.parse(arguments))
        return usage(m_parser.errorText());
    if (m_parser.isSet(QStringLiteral("help")) || m_parser.isSet(QStringLiteral("help-all"))) {
        print(helpText().toUtf8());
        return ExitOk;
    }
    if (m_parser.isSet(QStringLiteral("version"))) {
        print(QStringLiteral("triagectl %1\n").arg(QStringLiteral(TRIAGE_VERSION)).toUtf8());
        return ExitOk;
    }
    const QStringList positional = m_parser.positionalArguments();
    if (positional.isEmpty())
        return usage(QStringLiteral("no command given (init-schema, seed-demo, list, show, mark, query, duplicates, compensate, compensations, audit or doctor)"));
    const Command *command = findCommand(positional.first());
    if (!command)
        return usage(QStringLiteral("unknown command \"%1\" (init-schema, seed-demo, list, show, mark, query, duplicates, compensate, compensations, audit or doctor)").arg(positional.first()));
    const QStringList args = positional.mid(1);
    if (command->arguments < 0) {
        // mark, query: exactly one of KEY or --queue; compensate: KEY or --resume.
        const bool compensate = command->name == QLatin1String("compensate");
        const QString alternative = compensate ? QStringLiteral("resume") : QStringLiteral("queue");
        if (args.size() > 1)
            return usage(QStringLiteral("%1: unexpected argument \"%2\"").arg(command->name, args.value(1)));
        if (args.isEmpty() == !m_parser.isSet(alternative))
            return usage(QStringLiteral("%1: give either a KEY or --%2 (usage: triagectl %3)").arg(command->name, alternative, command->synopsis));
    } else if (args.size() != command->arguments) {
        return usage(args.size() < command->arguments
                         ? QStringLiteral("%1: missing argument (usage: triagectl %2)").arg(command->name, command->synopsis)
                         : QStringLiteral("%1: unexpected argument \"%2\"").arg(command->name, args.value(command->arguments)));
    }
    // Command-specific options belong to one command.
    for (const Command &other : commands()) {
        if (&other == command)
            continue;
        for (const QString &o : other.options)
            if (m_parser.isSet(o) && !command->options.contains(o))
                return usage(QStringLiteral("--%1 is an option of %2, not of %3").arg(o, other.name, command->name));
    }

    const QString format = m_parser.value(QStringLiteral("format")).trimmed().toLower();
    if (format == QLatin1String("table"))
        m_format = Format::Table;
    else if (format == QLatin1String("json"))
        m_format = Format::Json;
    else if (format == QLatin1String("csv"))
        m_format = Format::Csv;
    else
        return usage(QStringLiteral("--format \"%1\": use table, json or csv").arg(m_parser.value(QStringLiteral("format"))));
    if (m_format == Format::Csv && command->name == QLatin1String("show"))
        return usage(QStringLiteral("show has no csv form: use --format table or json"));
    bool ok = false;
    m_limit = m_parser.value(QStringLiteral("limit")).trimmed().toInt(&ok);
    if (!ok || m_limit < 0)
        return usage(QStringLiteral("--limit \"%1\": give a number of rows, 0 for no limit").arg(m_parser.value(QStringLiteral("limit"))));
    m_pageSize = m_parser.value(QStringLiteral("page-size")).trimmed().toInt(&ok);
    if (!ok || m_pageSize < 1 || m_pageSize > 100000)
        return usage(QStringLiteral("--page-size \"%1\": give a number from 1 to 100000").arg(m_parser.value(QStringLiteral("page-size"))));
    if (m_parser.isSet(QStringLiteral("rows"))) {
        m_rows = m_parser.value(QStringLiteral("rows")).trimmed().toInt(&ok);
        if (!ok || m_rows < 0 || m_rows > 5000000)
            return usage(QStringLiteral("--rows \"%1\": give a number of records from 0 to 5000000").arg(m_parser.value(QStringLiteral("rows"))));
    }
    m_seed = SeedOptions().seed;
    if (m_parser.isSet(QStringLiteral("seed"))) {
        m_seed = m_parser.value(QStringLiteral("seed")).trimmed().toUInt(&ok);
        if (!ok)
            return usage(QStringLiteral("--seed \"%1\": give a number from 0 to 4294967295").arg(m_parser.value(QStringLiteral("seed"))));
    }
    std::optional<QueueRequest> request;
    if (command->name == QLatin1String("query")) {
        m_concurrency = m_parser.value(QStringLiteral("concurrency")).trimmed().toInt(&ok);
        if (!ok || m_concurrency < 1 || m_concurrency > 6)
            return usage(QStringLiteral("--concurrency: a number from 1 to 6 (Qt opens at most 6 connections per host)"));
        m_pauseAfter = m_parser.value(QStringLiteral("pause-after")).trimmed().toInt(&ok);
        if (!ok || m_pauseAfter < 0)
            return usage(QStringLiteral("--pause-after: a number of answers, 0 for never"));
    }
    if (command->name == QLatin1String("list")
        || ((command->name == QLatin1String("mark") || command->name == QLatin1String("query")) && args.isEmpty())) {
        request = queueRequest(args.isEmpty() ? m_parser.value(QStringLiteral("queue")) : args.first());
        if (!request)
            return ExitUsage;
    }
    if (command->name == QLatin1String("show") && args.first().isEmpty())
        return usage(QStringLiteral("show: the key is empty"));

    app::setupLogging(QStringLiteral("triagectl"), m_parser.isSet(QStringLiteral("verbose")));
    if (!m_parser.isSet(QStringLiteral("verbose")))
        quietConsoleLog(); // this command reports its own errors; the log file keeps the rest

    QString error;
    bool demoFailed = false;
    const auto config = app::workspaceFromOptions(m_parser, false, &error, &demoFailed);
    if (!config) {
        if (demoFailed) {
            message(error);
            return ExitDatabase;
        }
        return usage(error);
    }
    // A dry run writes nothing, so read-only mode allows it for the commands that honour
    // --dry-run (the backend decides the rest and writes no row).
    const bool dryRun = (command->name == QLatin1String("mark") || command->name == QLatin1String("compensate"))
        && m_parser.isSet(QStringLiteral("dry-run"));
    if (command->writes && config->readOnly && !dryRun) {
        message(QStringLiteral("%1 writes to the databases: refused in read-only mode (--read-only or read_only=true)")
                    .arg(command->name));
        return ExitRefused;
    }

    Workspace workspace(*config);
    const int code = runCommand(*command, workspace, args, request);
    // After the command, so that it never adds a login of its own to a store that just
    // failed, and init-schema / seed-demo are compared with what they created.
    if (code != ExitDatabase)
        warnAboutBizTypeSections(workspace);
    return code;
}

int Triagectl::runCommand(const Command &c, Workspace &workspace, const QStringList &args,
                          const std::optional<QueueRequest> &request)
{
    const Command *command = &c;
    if (command->name == QLatin1String("init-schema"))
        return initSchema(workspace);
    if (command->name == QLatin1String("seed-demo"))
        return seedDemo(workspace);
    if (command->name == QLatin1String("list"))
        return list(workspace, *request);
    if (command->name == QLatin1String("mark")) {
        m_queue = request;
        return mark(workspace, args.value(0));
    }
    if (command->name == QLatin1String("query")) {
        m_queue = request;
        return query(workspace, args.value(0));
    }
    if (command->name == QLatin1String("duplicates"))
        return duplicates(workspace);
    if (command->name == QLatin1String("compensate"))
        return compensate(workspace, args.value(0));
    if (command->name == QLatin1String("compensations"))
        return compensations(workspace);
    if (command->name == QLatin1String("audit"))
        return audit(workspace);
    if (command->name == QLatin1String("doctor"))
        return doctor(workspace);
    return show(workspace, args.first());
}

void Triagectl::warnAboutBizTypeSections(Workspace &workspace)
{
    const Outcome<QStringList> warnings = checkBizTypeSections(workspace).result();
    if (!warnings.ok()) {
        logger("ctl")->warn("could not compare the [biz.*] sections with the records: {}",
                            warnings.error->message.toStdString());
        return;
    }
    for (const QString &w : *warnings)
        message(QStringLiteral("warning: ") + w);
}

std::optional<QueueRequest> Triagectl::queueRequest(const QString &queue)
{
    QueueRequest req;
    const auto kind = queueFromName(queue);
    if (!kind) {
        usage(QStringLiteral("unknown queue \"%1\" (unknown, inflight, failed, success or escalated)").arg(queue));
        return std::nullopt;
    }
    req.kind = *kind;
    req.filter.bizType = m_parser.value(QStringLiteral("biz-type"));
    req.filter.tenant = m_parser.value(QStringLiteral("tenant"));
    req.filter.keySubstring = m_parser.value(QStringLiteral("key"));
    req.newestFirst = m_parser.isSet(QStringLiteral("newest-first"));
    const std::pair<const char *, std::optional<UtcMicros> *> windows[] = {
        {"created-from", &req.filter.createdFrom},
        {"created-to", &req.filter.createdTo},
        {"updated-from", &req.filter.updatedFrom},
        {"updated-to", &req.filter.updatedTo},
    };
    for (const auto &[name, target] : windows) {
        const QString option = QString::fromLatin1(name);
        if (!m_parser.isSet(option))
            continue;
        const QString text = m_parser.value(option);
        *target = parseTimeOption(text);
        if (!*target) {
            usage(QStringLiteral("--%1 \"%2\" is not an ISO-8601 time (e.g. 2026-11-29T21:55:07Z, "
                                 "2026-11-29T21:55:07.123456+01:00 or 2026-11-29; no zone means UTC)")
                      .arg(option, text));
            return std::nullopt;
        }
    }
    return req;
}

void Triagectl::printSummary(const QStringList &keys, const QVariantList &values, const QString &sentence)
{
    switch (m_format) {
    case Format::Table:
        print((sentence + QLatin1Char('\n')).toUtf8());
        break;
    case Format::Json: {
        QJsonObject o;
        for (int i = 0; i < keys.size(); ++i)
            o.insert(keys[i], QJsonValue::fromVariant(values.value(i)));
        print(QJsonDocument(o).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QStringList fields;
        for (const QVariant &v : values)
            fields << v.toString();
        print(CsvWriter::record(keys));
        print(CsvWriter::record(fields));
        break;
    }
    }
}

int Triagectl::initSchema(Workspace &workspace)
{
    SchemaOptions options;
    options.ticketBackstop = !m_parser.isSet(QStringLiteral("without-backstop"));
    QElapsedTimer timer;
    timer.start();
    const Outcome<int> outcome = workspace.initSchema(options).result();
    if (!outcome.ok()) {
        const DbError &e = *outcome.error;
        return dbFailure(e, e.role == DbRole::Ticket && options.ticketBackstop && isUniqueViolation(e)
                                ? QStringLiteral("ticket rows already share an idem_key (duplicate-key groups), so the "
                                                 "UNIQUE(ticket.idem_key) backstop cannot be created; settle the duplicates "
                                                 "first, or use --without-backstop")
                                : QString());
    }
    QStringList stores;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        stores << QStringLiteral("  %1: %2").arg(roleTitle(role), workspace.config().profile(role).displayUrl());
    const QString backstop = options.ticketBackstop
        ? QStringLiteral("UNIQUE(ticket.idem_key) backstop: created if missing")
        : QStringLiteral("UNIQUE(ticket.idem_key) backstop: omitted (--without-backstop; an existing one is not dropped)");
    printSummary({QStringLiteral("statements"), QStringLiteral("ticket_backstop"), QStringLiteral("elapsed_seconds")},
                 {*outcome, options.ticketBackstop, timer.elapsed() / 1000.0},
                 QStringLiteral("schema ready: %1 CREATE ... IF NOT EXISTS statements run (nothing dropped) in %2 s on\n%3\n%4")
                     .arg(*outcome)
                     .arg(timer.elapsed() / 1000.0, 0, 'f', 2)
                     .arg(stores.join(QLatin1Char('\n')), backstop));
    return ExitOk;
}

int Triagectl::seedDemo(Workspace &workspace)
{
    SeedOptions options;
    options.records = m_rows;
    options.seed = m_seed;
    QElapsedTimer timer;
    timer.start();
    const Outcome<SeedReport> outcome = workspace.seed(options).result();
    if (!outcome.ok()) {
        return dbFailure(*outcome.error, isUniqueViolation(*outcome.error)
                                             ? QStringLiteral("keys of this seed are already in the database: seed an "
                                                              "empty database, or pass another --seed")
                                             : QString());
    }
    const double elapsed = timer.elapsed() / 1000.0;
    const QString what = m_rows > 0 ? QStringLiteral("%1 records at production-like proportions").arg(m_rows)
                                    : QStringLiteral("the demo set");
    printSummary({QStringLiteral("records"), QStringLiteral("tickets"), QStringLiteral("intents"), QStringLiteral("seed"),
                  QStringLiteral("elapsed_seconds")},
                 {outcome->records, outcome->tickets, outcome->intents, m_seed, elapsed},
                 QStringLiteral("seeded %1 (seed %2): %3 records, %4 tickets, %5 intent-log rows in %6 s")
                     .arg(what)
                     .arg(m_seed)
                     .arg(outcome->records)
                     .arg(outcome->tickets)
                     .arg(outcome->intents)
                     .arg(elapsed, 0, 'f', 2));
    return ExitOk;
}

std::optional<DbError> Triagectl::fetchRows(Workspace &workspace, const QueueRequest &request, QVector<QueueRow> *rows)
{
    QueueCursor cursor;
    for (;;) {
        const int want = m_limit == 0 ? m_pageSize : qMin(m_pageSize, m_limit - int(rows->size()));
        if (want <= 0)
            return std::nullopt;
        const Outcome<QueuePage> page = workspace.fetchQueuePage(request, cursor, want).result();
        if (!page.ok())
            return page.error;
        *rows += page->rows;
        cursor = page->next;
        if (page->atEnd || page->rows.isEmpty())
            return std::nullopt;
    }
}

int Triagectl::list(Workspace &workspace, const QueueRequest &request)
{
    // The exact count only for humans: json and csv stay one pass over the pages.
    QFuture<Outcome<qint64>> count;
    if (m_format == Format::Table)
        count = workspace.countQueue(request);
    QVector<QueueRow> rows;
    if (const auto error = fetchRows(workspace, request, &rows))
        return dbFailure(*error);

    switch (m_format) {
    case Format::Json: {
        QByteArray out = "[";
        for (int i = 0; i < rows.size(); ++i) {
            out += i == 0 ? "\n" : ",\n";
            out += QJsonDocument(json_export::queueRow(rows[i])).toJson(QJsonDocument::Compact);
        }
        out += rows.isEmpty() ? "]\n" : "\n]\n";
        print(out);
        break;
    }
    case Format::Csv: {
        QByteArray out = CsvWriter::record(json_export::queueCsvHeader());
        for (const QueueRow &r : rows)
            out += CsvWriter::record(json_export::queueCsvFields(r));
        print(out);
        break;
    }
    case Format::Table: {
        const Outcome<qint64> total = count.result();
        if (!total.ok())
            return dbFailure(*total.error);
        TextTable table({QStringLiteral("SOURCE"), QStringLiteral("STATUS"), QStringLiteral("BIZ_TYPE/ACTION"),
                         QStringLiteral("UPDATED_AT (UTC)"), QStringLiteral("AGE"), QStringLiteral("IDEM_KEY")});
        table.alignRight(4);
        for (const QueueRow &r : rows) {
            table.addRow({sourceName(r.source), r.status,
                          orNull(r.source == QueueSource::Record ? r.bizType : r.action), orNull(r.updatedAt),
                          humanDuration(r.ageSeconds), r.idemKey});
        }
        QByteArray out = table.render();
        out += QStringLiteral("%1 %2 (of %3)%4\n")
                   .arg(rows.size())
                   .arg(rows.size() == 1 ? QStringLiteral("row") : QStringLiteral("rows"))
                   .arg(*total)
                   .arg(rows.size() < *total && m_limit > 0 && rows.size() >= m_limit
                            ? QStringLiteral("; --limit 0 lists all")
                            : QString())
                   .toUtf8();
        print(out);
        break;
    }
    }
    return ExitOk;
}

int Triagectl::show(Workspace &workspace, const QString &key)
{
    const KeyDetail detail = workspace.loadKeyDetail(key).result();
    const bool found = detail.record || !detail.tickets.isEmpty() || !detail.attempts.isEmpty();
    if (!found && detail.errors.isEmpty()) {
        message(QStringLiteral("no record, ticket or intent-log entry has key \"%1\"").arg(key));
        return ExitUsage;
    }
    if (m_format == Format::Json)
        print(QJsonDocument(json_export::keyDetail(detail)).toJson(QJsonDocument::Indented));
    else
        printShowTable(detail);
    if (detail.errors.isEmpty())
        return ExitOk;
    int code = ExitOk;
    for (const DbError &e : detail.errors) {
        message(e.message);
        const int c = e.kind == DbError::Kind::Config ? ExitUsage : ExitDatabase;
        code = code == ExitDatabase ? code : c;
    }
    return code;
}

void Triagectl::printShowTable(const KeyDetail &d)
{
    QByteArray out;
    auto line = [&](const QString &s) { out += (s + QLatin1Char('\n')).toUtf8(); };
    auto failedStore = [&](DbRole role) {
        return QStringLiteral("%1 failed: %2").arg(roleTitle(role), escapeControlChars(d.errors.value(role).message));
    };
    line(QStringLiteral("idem_key: %1").arg(d.idemKey));
    line(QString());
    if (d.record) {
        const RecordDetail &r = *d.record;
        line(QStringLiteral("Record (idempotency_record)"));
        TextTable fields({QStringLiteral("FIELD"), QStringLiteral("VALUE")});
        QString status = r.statusText;
        if (r.statusCode)
            status += QStringLiteral(" (code %1)").arg(*r.statusCode);
        if (r.stale)
            status += QStringLiteral(": stale, outcome UNKNOWN");
        fields.addRow({QStringLiteral("id"), QString::number(r.id)});
        fields.addRow({QStringLiteral("idem_key"), r.idemKey});
        fields.addRow({QStringLiteral("biz_type"), orNull(r.bizType)});
        fields.addRow({QStringLiteral("status"), status});
        fields.addRow({QStringLiteral("created_at"), withLocal(r.createdAt)});
        fields.addRow({QStringLiteral("updated_at"), withLocal(r.updatedAt)});
        fields.addRow({QStringLiteral("expire_at"), withLocal(r.expireAt)});
        fields.addRow({QStringLiteral("version"), r.hasVersionColumn ? (r.version ? QString::number(*r.version) : QStringLiteral("NULL"))
                                                                    : QStringLiteral("(no version column)")});
        fields.addRow({QStringLiteral("age"), QStringLiteral("%1 (%2 s; processing timeout %3 s)")
                                                  .arg(humanDuration(r.ageSeconds))
                                                  .arg(r.ageSeconds, 0, 'f', 3)
                                                  .arg(r.processingTimeoutS)});
        fields.addRow({QStringLiteral("expires in"), r.expiresInSeconds ? humanDuration(*r.expiresInSeconds) : QStringLiteral("NULL")});
        fields.addRow({QStringLiteral("tenant"), r.tenant.isEmpty() ? QStringLiteral("(none)") : r.tenant});
        for (const auto &[name, text] : r.allColumns) {
            static const QStringList shown = {
                QStringLiteral("id"),         QStringLiteral("idem_key"),  QStringLiteral("biz_type"),
                QStringLiteral("status"),     QStringLiteral("created_at"), QStringLiteral("updated_at"),
                QStringLiteral("expire_at"),  QStringLiteral("version"),   QStringLiteral("result_snapshot"),
            };
            if (!shown.contains(name))
                fields.addRow({name, text});
        }
        out += fields.render(QStringLiteral("  "));
        if (r.resultSnapshot) {
            const QString &snap = *r.resultSnapshot;
            const bool preview = snap.size() > kSnapshotPreviewChars && !m_parser.isSet(QStringLiteral("full"));
            if (preview)
                line(QStringLiteral("  result_snapshot (%1, as stored; the first %2 shown, --full prints all):")
                         .arg(countText(snap.size(), QStringLiteral("character")))
                         .arg(kSnapshotPreviewChars));
            else
                line(QStringLiteral("  result_snapshot (%1, as stored):").arg(countText(snap.size(), QStringLiteral("character"))));
            line(QStringLiteral("    ") + escapeControlChars(preview ? snap.left(kSnapshotPreviewChars) + QChar(0x2026) : snap));
        } else {
            line(QStringLiteral("  result_snapshot: NULL"));
        }
    } else if (!d.errors.contains(DbRole::Idempotency)) {
        line(QStringLiteral("Record: none (no idempotency_record has this key)"));
    } else {
        line(QStringLiteral("Record: unknown (%1)").arg(failedStore(DbRole::Idempotency)));
    }
    line(QString());
    if (!d.warnings.isEmpty()) {
        line(QStringLiteral("Warnings"));
        for (const QString &w : d.warnings)
            line(QStringLiteral("  ! ") + escapeControlChars(w));
        line(QString());
    }
    if (d.errors.contains(DbRole::Ticket))
        line(QStringLiteral("Tickets: unknown (%1)").arg(failedStore(DbRole::Ticket)));
    else
        line(QStringLiteral("Tickets (%1)").arg(d.tickets.size()));
    if (!d.tickets.isEmpty()) {
        TextTable t({QStringLiteral("ID"), QStringLiteral("STATUS"), QStringLiteral("TENANT"), QStringLiteral("CREATED_AT"),
                     QStringLiteral("UPDATED_AT"), QStringLiteral("TITLE"), QStringLiteral("PAYLOAD")});
        t.alignRight(0);
        for (const TicketRow &r : d.tickets)
            t.addRow({QString::number(r.id), orNull(r.status), orNull(r.tenantId), orNull(r.createdAt), orNull(r.updatedAt),
                      orNull(r.title), orNull(r.payload)});
        out += t.render(QStringLiteral("  "));
    }
    line(QString());
    if (d.errors.contains(DbRole::Intent))
        line(QStringLiteral("Intent-log attempts: unknown (%1)").arg(failedStore(DbRole::Intent)));
    else
        line(QStringLiteral("Intent-log attempts (%1)").arg(d.attempts.size()));
    if (!d.attempts.isEmpty()) {
        TextTable t({QStringLiteral("ID"), QStringLiteral("TASK"), QStringLiteral("STEP"), QStringLiteral("ACTION"),
                     QStringLiteral("STATUS"), QStringLiteral("ACTOR"), QStringLiteral("CREATED_AT"), QStringLiteral("UPDATED_AT"),
                     QStringLiteral("ERROR")});
        t.alignRight(0);
        for (const IntentAttempt &a : d.attempts)
            t.addRow({QString::number(a.id), orNull(a.taskId), orNull(a.stepId), orNull(a.action), orNull(a.status),
                      orNull(a.actor), orNull(a.createdAt), orNull(a.updatedAt), orNull(a.error)});
        out += t.render(QStringLiteral("  "));
        line(QStringLiteral("  (requests, responses and before/after snapshots: --format json)"));
    }
    line(QString());
    if (d.errors.isEmpty())
        line(QStringLiteral("Timeline (%1)").arg(countText(d.timeline.size(), QStringLiteral("event"))));
    else
        line(QStringLiteral("Timeline (%1; incomplete: %2 failed)")
                 .arg(countText(d.timeline.size(), QStringLiteral("event")), failedStoreNames(d)));
    if (!d.timeline.isEmpty()) {
        TextTable t({QStringLiteral("TIME (UTC)"), QStringLiteral("SOURCE"), QStringLiteral("KIND"), QStringLiteral("EVENT")});
        for (const TimelineEvent &e : d.timeline)
            t.addRow({e.time, e.source, e.kind, e.summary});
        out += t.render(QStringLiteral("  "));
    }
    if (!d.errors.isEmpty()) {
        line(QString());
        line(QStringLiteral("Errors (these stores could not be read; what they hold is missing above)"));
        for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
            line(QStringLiteral("  %1: %2").arg(roleName(it.key()), it->message));
    }
    print(out);
}

} // namespace triage::ctl

namespace triage::ctl {

namespace {

/// Exit code of one mark outcome (DESIGN.md §5).
int markExitCode(const Outcome<MarkResult> &o)
{
    if (!o.ok())
        return o.error->kind == DbError::Kind::Config ? ExitUsage : ExitDatabase;
    switch (o->kind) {
    case MarkResult::Kind::Applied:
    case MarkResult::Kind::DryRun: return ExitOk;
    case MarkResult::Kind::Conflict: return ExitConflict;
    case MarkResult::Kind::Refused: return ExitRefused;
    case MarkResult::Kind::Error: return ExitDatabase;
    }
    return ExitDatabase;
}

/// Reads a snapshot file exactly as stored ("-" = standard input); nullopt on failure.
std::optional<QString> readSnapshotFile(const QString &path, QString *error)
{
    QFile f;
    const bool ok = path == QLatin1String("-") ? f.open(stdin, QIODevice::ReadOnly) : (f.setFileName(path), f.open(QIODevice::ReadOnly));
    if (!ok) {
        *error = QStringLiteral("--snapshot %1: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = f.readAll();
    QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes) {
        *error = QStringLiteral("--snapshot %1: not valid UTF-8").arg(path);
        return std::nullopt;
    }
    return text;
}

} // namespace

int Triagectl::mark(Workspace &workspace, const QString &key)
{
    const std::optional<int> to = recordStatusFromText(m_parser.value(QStringLiteral("to")));
    if (!to || *to == Processing)
        return usage(QStringLiteral("mark: --to must be success or failed"));
    const QString reason = m_parser.value(QStringLiteral("reason"));
    if (reason.trimmed().isEmpty())
        return usage(QStringLiteral("mark: --reason is required (it is audited)"));
    const bool bulk = key.isEmpty();
    const bool anyExpect = m_parser.isSet(QStringLiteral("expect-status")) || m_parser.isSet(QStringLiteral("expect-updated-at"))
        || m_parser.isSet(QStringLiteral("expect-version"));
    if (bulk && (anyExpect || m_parser.isSet(QStringLiteral("snapshot")) || m_parser.isSet(QStringLiteral("snapshot-from-ticket"))))
        return usage(QStringLiteral("mark --queue: --expect-*, --snapshot and --snapshot-from-ticket name one record; give a KEY"));
    if (bulk && m_parser.isSet(QStringLiteral("override")))
        return usage(QStringLiteral("mark --queue: --override sets a rule aside for one key at a time, never in bulk (DESIGN.md §6)"));
    if (*to == Failed && (m_parser.isSet(QStringLiteral("snapshot")) || m_parser.isSet(QStringLiteral("snapshot-from-ticket"))))
        return usage(QStringLiteral("mark: a snapshot goes with --to success only"));

    MarkRequest base;
    base.toStatus = *to;
    base.reason = reason;
    base.override = m_parser.isSet(QStringLiteral("override"));
    base.dryRun = m_parser.isSet(QStringLiteral("dry-run"));
    base.operatorName = workspace.config().operatorName;

    if (!bulk) {
        MarkRequest r = base;
        r.idemKey = key;
        if (anyExpect) {
            if (!m_parser.isSet(QStringLiteral("expect-status")) || !m_parser.isSet(QStringLiteral("expect-updated-at")))
                return usage(QStringLiteral("mark: --expect-status and --expect-updated-at go together"));
            ExpectedState e;
            const QString st = m_parser.value(QStringLiteral("expect-status"));
            bool isNumber = false;
            const qint64 code = st.trimmed().toLongLong(&isNumber);
            if (isNumber)
                e.status = code;
            else if (const auto s = recordStatusFromText(st))
                e.status = *s;
            else if (st.trimmed().compare(QLatin1String("null"), Qt::CaseInsensitive) != 0)
                return usage(QStringLiteral("--expect-status \"%1\": PROCESSING, SUCCESS, FAILED or a status code").arg(st));
            const QString at = m_parser.value(QStringLiteral("expect-updated-at")).trimmed();
            const auto micros = parseUtcMicros(at);
            if (!micros)
                return usage(QStringLiteral("--expect-updated-at \"%1\": ISO-8601 UTC as show prints it "
                                            "(2026-11-29T21:55:07.123456Z)").arg(at));
            e.updatedAt = formatUtcMicros(*micros);
            if (m_parser.isSet(QStringLiteral("expect-version"))) {
                bool ok = false;
                e.version = m_parser.value(QStringLiteral("expect-version")).trimmed().toLongLong(&ok);
                if (!ok)
                    return usage(QStringLiteral("--expect-version: a whole number"));
            }
            r.expect = e;
        }
        if (m_parser.isSet(QStringLiteral("snapshot"))) {
            QString error;
            r.snapshot = readSnapshotFile(m_parser.value(QStringLiteral("snapshot")), &error);
            if (!r.snapshot)
                return usage(error);
            r.snapshotSource = QStringLiteral("file:") + m_parser.value(QStringLiteral("snapshot"));
        } else if (m_parser.isSet(QStringLiteral("snapshot-from-ticket"))) {
            bool ok = false;
            const qint64 id = m_parser.value(QStringLiteral("snapshot-from-ticket")).trimmed().toLongLong(&ok);
            if (!ok)
                return usage(QStringLiteral("--snapshot-from-ticket: a ticket id"));
            r.snapshotFromTicket = id; // read and checked by markRecord() (a wrong ticket is an audited refusal)
        }
        return reportMarks({markRecord(workspace, r).result()});
    }

    // Bulk: every record row of the queue (as list would print it), one transaction each.
    QVector<QueueRow> rows;
    if (const auto error = fetchRows(workspace, *m_queue, &rows))
        return dbFailure(*error);
    QStringList keys;
    for (const QueueRow &row : rows)
        if (row.source == QueueSource::Record && !keys.contains(row.idemKey))
            keys << row.idemKey;
    QVector<MarkRequest> requests;
    if (*to == Success) {
        // SUCCESS takes the snapshot of the key's canonical ticket when it is its only live one.
        QVector<QFuture<KeyDetail>> details;
        for (const QString &k : keys)
            details << workspace.loadKeyDetail(k);
        for (int i = 0; i < keys.size(); ++i) {
            const KeyDetail d = details[i].result();
            MarkRequest r = base;
            r.idemKey = keys[i];
            setSnapshotFrom(r, snapshotTicketFor(d, std::nullopt));
            requests << r;
        }
    } else {
        for (const QString &k : keys) {
            MarkRequest r = base;
            r.idemKey = k;
            requests << r;
        }
    }
    if (requests.isEmpty()) {
        message(QStringLiteral("mark --queue %1: no record rows match").arg(queueName(m_queue->kind)));
        return reportMarks({});
    }
    return reportMarks(markRecords(workspace, requests).result());
}

int Triagectl::reportMarks(const QVector<Outcome<MarkResult>> &results)
{
    auto name = [](const Outcome<MarkResult> &o) { return o.ok() ? markKindName(o->kind) : QStringLiteral("error"); };
    auto text = [](const Outcome<MarkResult> &o) { return o.ok() ? o->message : o.error->message; };
    const bool single = results.size() == 1;
    switch (m_format) {
    case Format::Json: {
        QJsonArray rows;
        for (const auto &o : results) {
            if (o.ok()) {
                rows.append(json_export::markResult(*o));
            } else {
                QJsonObject e;
                e.insert(QStringLiteral("outcome"), QStringLiteral("error"));
                e.insert(QStringLiteral("message"), o.error->message);
                rows.append(e);
            }
        }
        print(single ? QJsonDocument(rows.first().toObject()).toJson(QJsonDocument::Indented)
                     : QJsonDocument(rows).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QByteArray out = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("message"),
                                            QStringLiteral("audit_id")});
        for (const auto &o : results)
            out += CsvWriter::record({o.ok() ? o->idemKey : QString(), name(o), text(o),
                                      o.ok() && o->auditId ? QString::number(o->auditId) : QString()});
        print(out);
        break;
    }
    case Format::Table: {
        TextTable table({QStringLiteral("OUTCOME"), QStringLiteral("IDEM_KEY"), QStringLiteral("MESSAGE")});
        QMap<QString, int> tally;
        for (const auto &o : results) {
            table.addRow({name(o), o.ok() ? o->idemKey : QString(), text(o)});
            ++tally[name(o)];
        }
        QByteArray out = table.render();
        if (single && results[0].ok() && results[0]->current) {
            const RecordDetail &c = *results[0]->current;
            out += QStringLiteral("record now: status %1, updated_at %2%3\n")
                       .arg(c.statusText, c.updatedAt,
                            c.version ? QStringLiteral(", version %1").arg(*c.version) : QString())
                       .toUtf8();
        }
        QStringList parts;
        for (auto it = tally.cbegin(); it != tally.cend(); ++it)
            parts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
        out += results.isEmpty() ? QByteArray("nothing to mark\n")
                                 : QStringLiteral("%1 record(s): %2\n").arg(results.size()).arg(parts.join(QStringLiteral(", "))).toUtf8();
        print(out);
        break;
    }
    }
    for (const auto &o : results)
        if (o.ok())
            for (const QString &w : o->warnings)
                message(QStringLiteral("warning: ") + w);
    if (single)
        return markExitCode(results[0]);
    QSet<int> codes;
    for (const auto &o : results)
        codes.insert(markExitCode(o));
    for (int c : {int(ExitDatabase), int(ExitUpstream), int(ExitRefused), int(ExitConflict)})
        if (codes.contains(c))
            return c;
    return ExitOk;
}

int Triagectl::audit(Workspace &workspace)
{
    AuditQuery q;
    q.idemKey = m_parser.value(QStringLiteral("key"));
    q.limit = m_limit;
    if (m_parser.isSet(QStringLiteral("since"))) {
        q.since = parseTimeOption(m_parser.value(QStringLiteral("since")));
        if (!q.since)
            return usage(QStringLiteral("--since \"%1\": ISO-8601 UTC (2026-11-29T21:55:07Z) or a date").arg(m_parser.value(QStringLiteral("since"))));
    }
    const auto rows = readAudit(workspace, q).result();
    if (!rows.ok())
        return dbFailure(*rows.error);
    switch (m_format) {
    case Format::Json: {
        QJsonArray a;
        for (const AuditEntry &e : *rows)
            a.append(json_export::auditEntry(e));
        print(QJsonDocument(a).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        const QStringList header = {QStringLiteral("id"), QStringLiteral("at"), QStringLiteral("operator"), QStringLiteral("action"),
                                    QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("from_state"),
                                    QStringLiteral("to_state"), QStringLiteral("reason"), QStringLiteral("evidence"),
                                    QStringLiteral("detail")};
        QByteArray out = CsvWriter::record(header);
        for (const AuditEntry &e : *rows)
            out += CsvWriter::record({QString::number(e.id), e.at, e.operatorName, e.action, e.idemKey, e.outcome, e.fromState,
                                      e.toState, e.reason, e.evidence, e.detail});
        print(out);
        break;
    }
    case Format::Table: {
        TextTable table({QStringLiteral("AT (UTC)"), QStringLiteral("OPERATOR"), QStringLiteral("ACTION"), QStringLiteral("OUTCOME"),
                         QStringLiteral("IDEM_KEY"), QStringLiteral("REASON")});
        for (const AuditEntry &e : *rows)
            table.addRow({e.at, e.operatorName, e.action, e.outcome, e.idemKey, e.reason});
        QByteArray out = table.render();
        out += QStringLiteral("%1 audit row(s)\n").arg(rows->size()).toUtf8();
        print(out);
        break;
    }
    }
    return ExitOk;
}

int Triagectl::doctor(Workspace &workspace)
{
    QVector<IndexFinding> all;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        const auto o = workspace.worker(role).run<QVector<IndexFinding>>(&doctor_sql::inspect).result();
        if (!o.ok())
            return dbFailure(*o.error);
        all += *o;
    }
    bool missing = false;
    for (const IndexFinding &f : all)
        missing = missing || !f.present;
    switch (m_format) {
    case Format::Json: {
        QJsonArray a;
        for (const IndexFinding &f : all) {
            QJsonObject o;
            o.insert(QStringLiteral("store"), roleName(f.need.role));
            o.insert(QStringLiteral("table"), f.need.table);
            o.insert(QStringLiteral("columns"), QJsonArray::fromStringList(f.need.columns));
            o.insert(QStringLiteral("used_by"), f.need.usedBy);
            o.insert(QStringLiteral("present"), f.present);
            o.insert(QStringLiteral("index"), f.present ? QJsonValue(f.satisfiedBy) : QJsonValue(QJsonValue::Null));
            o.insert(QStringLiteral("fix"), f.fix.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(f.fix));
            o.insert(QStringLiteral("plan"), f.plan.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(f.plan));
            a.append(o);
        }
        QJsonObject doc;
        doc.insert(QStringLiteral("ok"), !missing);
        doc.insert(QStringLiteral("indexes"), a);
        print(QJsonDocument(doc).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv:
    case Format::Table: {
        QByteArray out;
        for (const IndexFinding &f : all) {
            const QString where = QStringLiteral("%1(%2)").arg(f.need.table, f.need.columns.join(QStringLiteral(", ")));
            if (f.present)
                out += QStringLiteral("ok       %1 %2 — index %3\n").arg(roleName(f.need.role), where, f.satisfiedBy).toUtf8();
            else
                out += QStringLiteral("MISSING  %1 %2 — %3 would scan the whole table\n         fix: %4\n")
                           .arg(roleName(f.need.role), where, f.need.usedBy, f.fix)
                           .toUtf8();
            if (!f.plan.isEmpty())
                out += QStringLiteral("         plan now: %1\n").arg(f.plan).toUtf8();
        }
        out += missing ? "some indexes are missing: run the fix statements (or `triagectl init-schema`)\n"
                       : "every index the queues need is present\n";
        print(out);
        break;
    }
    }
    return missing ? ExitRefused : ExitOk;
}

} // namespace triage::ctl
