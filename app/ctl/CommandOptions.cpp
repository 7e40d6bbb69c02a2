#include "CommandOptions.h"

#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"
#include "DemoWorkspace.h"
#include "Queue.h"

#include <QRegularExpression>

namespace triage::ctl {

QCommandLineOption option(const char *name, const QString &description, const QString &valueName, const QString &defaultValue)
{
    return QCommandLineOption(QString::fromLatin1(name), description, valueName, defaultValue);
}

QList<QCommandLineOption> queueFilterOptions()
{
    return {
        option("biz-type", QStringLiteral("Only this biz_type (leaves intent-log rows out)."), QStringLiteral("T")),
        option("tenant", QStringLiteral("Only keys of this tenant (per biz_type tenant pattern)."), QStringLiteral("T")),
        option("key", QStringLiteral("Only keys containing this text (case-sensitive)."), QStringLiteral("SUBSTR")),
        option("created-from", QStringLiteral("created_at >= TIME (ISO-8601; no zone = UTC)."), QStringLiteral("TIME")),
        option("created-to", QStringLiteral("created_at < TIME."), QStringLiteral("TIME")),
        option("updated-from", QStringLiteral("updated_at >= TIME."), QStringLiteral("TIME")),
        option("updated-to", QStringLiteral("updated_at < TIME."), QStringLiteral("TIME")),
        option("newest-first", QStringLiteral("Newest updated_at first.")),
    };
}

QList<QCommandLineOption> windowFilterOptions()
{
    return {
        option("biz-type", QStringLiteral("Only this biz_type (intent and ticket events through their key's record)."),
               QStringLiteral("B")),
        option("tenant", QStringLiteral("Only keys of this tenant (tenant column or key pattern)."), QStringLiteral("T")),
        option("key", QStringLiteral("Only keys containing this text (case-sensitive)."), QStringLiteral("SUBSTR")),
        option("task",
               QStringLiteral("Only this agent task (intent log task_id; other events through their key's attempts of it)."),
               QStringLiteral("ID")),
        option("store", QStringLiteral("Only these stores (comma-separated)."), QStringLiteral("S")),
        option("kind", QStringLiteral("Only these event kinds (comma-separated)."), QStringLiteral("K")),
        option("status",
               QStringLiteral("Only events with these statuses (comma-separated): console names in any case, other values as shown."),
               QStringLiteral("S")),
    };
}

namespace {
/// A comma-separated option's values, trimmed, empty ones dropped.
QStringList listOption(const CommandContext &c, const QString &name)
{
    QStringList values;
    for (const QString &v : c.parser.values(name))
        for (const QString &part : v.split(QLatin1Char(',')))
            if (!part.trimmed().isEmpty())
                values << part.trimmed();
    return values;
}
} // namespace

QCommandLineOption linkOption()
{
    return option("link", QStringLiteral("A triage:// link: show takes triage://key/KEY, timeline triage://window?from=…&to=…&…."),
                  QStringLiteral("LINK"));
}

bool windowFiltersGiven(const CommandContext &context)
{
    for (const QCommandLineOption &o : windowFilterOptions())
        if (context.parser.isSet(o.names().first()))
            return true;
    return false;
}

std::optional<EventKind> readEventKind(const CommandContext &context, const QString &name)
{
    if (const auto k = eventKindFromName(name))
        return k;
    QStringList names;
    for (EventKind kind : allEventKinds())
        names << eventKindName(kind);
    context.out.usage(QStringLiteral("--kind \"%1\": one of %2").arg(name, names.join(QStringLiteral(", "))));
    return std::nullopt;
}

bool readLookback(const CommandContext &c, WindowQuery *query)
{
    if (!c.parser.isSet(QStringLiteral("lookback")))
        return true;
    bool ok = false;
    const int seconds = c.parser.value(QStringLiteral("lookback")).trimmed().toInt(&ok);
    if (!ok || seconds < 0 || seconds > 86400) {
        c.out.usage(QStringLiteral("--lookback: seconds from 0 to 86400"));
        return false;
    }
    query->lookbackS = seconds;
    return true;
}

bool readWindowQuery(const CommandContext &c, const QString &command, WindowQuery *query)
{
    const QString fromName = QStringLiteral("from"), toName = QStringLiteral("to");
    if (!c.parser.isSet(fromName) || !c.parser.isSet(toName)) {
        c.out.usage(QStringLiteral("%1 needs --from and --to, UTC times (e.g. 2026-12-01T02:10:00Z)").arg(command));
        return false;
    }
    std::optional<UtcMicros> from, to;
    if (!readTimeOption(c, fromName, &from) || !readTimeOption(c, toName, &to))
        return false;
    if (*from >= *to) {
        c.out.usage(QStringLiteral("--from %1 is not before --to %2: the window is empty")
                        .arg(formatUtcMicros(*from), formatUtcMicros(*to)));
        return false;
    }
    query->from = *from;
    query->to = *to;
    query->bizType = c.parser.value(QStringLiteral("biz-type"));
    query->tenant = c.parser.value(QStringLiteral("tenant"));
    query->keySubstring = c.parser.value(QStringLiteral("key"));
    query->taskId = c.parser.value(QStringLiteral("task"));
    query->statuses = listOption(c, QStringLiteral("status"));
    for (const QString &name : listOption(c, QStringLiteral("store"))) {
        const auto s = eventStoreFromName(name);
        if (!s) {
            c.out.usage(QStringLiteral("--store \"%1\": idempotency, intent, ticket or console").arg(name));
            return false;
        }
        query->stores << *s;
    }
    for (const QString &name : listOption(c, QStringLiteral("kind"))) {
        const auto k = readEventKind(c, name);
        if (!k)
            return false;
        query->kinds << *k;
    }
    // Filters that together select no stream: an empty answer would read as "nothing happened".
    if (selectedKinds(*query).isEmpty()) {
        QStringList kinds, stores;
        for (EventKind k : std::as_const(query->kinds))
            kinds << eventKindName(k);
        for (EventStore st : std::as_const(query->stores))
            stores << eventStoreName(st);
        c.out.usage(QStringLiteral("--kind %1 and --store %2 select no event stream: %3 in %4")
                        .arg(kinds.join(QLatin1Char(',')), stores.join(QLatin1Char(',')),
                             kinds.size() == 1 ? QStringLiteral("that kind is not") : QStringLiteral("none of those kinds is"),
                             stores.size() == 1 ? QStringLiteral("that store") : QStringLiteral("those stores")));
        return false;
    }
    return true;
}

QCommandLineOption pageSizeOption()
{
    QCommandLineOption pageSize = option("page-size", QStringLiteral("Rows per round trip (default %1).").arg(kDefaultPageSize),
                                         QStringLiteral("N"), QString::number(kDefaultPageSize));
    pageSize.setFlags(QCommandLineOption::HiddenFromHelp);
    return pageSize;
}

bool readPageSize(const CommandContext &context, int *pageSize)
{
    const QString text = context.parser.value(QStringLiteral("page-size"));
    bool ok = false;
    const int n = text.isEmpty() ? kDefaultPageSize : text.trimmed().toInt(&ok);
    if (!text.isEmpty() && (!ok || n < 1 || n > 100000)) {
        context.out.usage(QStringLiteral("--page-size \"%1\": give a number from 1 to 100000").arg(text));
        return false;
    }
    *pageSize = n;
    return true;
}

std::optional<UtcMicros> parseTimeOption(const QString &text)
{
    if (auto t = parseUtcMicros(text))
        return t;
    static const QRegularExpression dateOnly(QStringLiteral(R"(^\s*\d{4}-\d{2}-\d{2}\s*$)"));
    if (dateOnly.match(text).hasMatch())
        return parseUtcMicros(text.trimmed() + QStringLiteral("T00:00:00Z"));
    // Minute precision ("2026-12-01T02:10Z", "2026-12-01 02:10"): the minute's first second.
    static const QRegularExpression minute(QStringLiteral(R"(^\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})(\S*)\s*$)"));
    if (const QRegularExpressionMatch m = minute.match(text); m.hasMatch() && !m.captured(2).startsWith(QLatin1Char(':')))
        return parseUtcMicros(m.captured(1) + QStringLiteral(":00") + m.captured(2));
    return std::nullopt;
}

bool readTimeOption(const CommandContext &context, const QString &name, std::optional<UtcMicros> *time)
{
    if (!context.parser.isSet(name))
        return true;
    const QString text = context.parser.value(name);
    *time = parseTimeOption(text);
    if (*time)
        return true;
    context.out.usage(QStringLiteral("--%1: cannot read \"%2\" as a UTC time (expected e.g. 2026-12-01T02:10:00Z, "
                                     "2026-12-01T02:10Z or 2026-12-01; no zone means UTC)")
                          .arg(name, text));
    return false;
}

std::optional<QueueRequest> readQueueRequest(const CommandContext &context, const QString &queue)
{
    const QCommandLineParser &p = context.parser;
    QueueRequest req;
    const auto kind = queueFromName(queue);
    if (!kind) {
        context.out.usage(QStringLiteral("unknown queue \"%1\" (unknown, inflight, failed, success or escalated)").arg(queue));
        return std::nullopt;
    }
    req.kind = *kind;
    req.filter.bizType = p.value(QStringLiteral("biz-type"));
    req.filter.tenant = p.value(QStringLiteral("tenant"));
    req.filter.keySubstring = p.value(QStringLiteral("key"));
    req.newestFirst = p.isSet(QStringLiteral("newest-first"));
    const std::pair<const char *, std::optional<UtcMicros> *> windows[] = {
        {"created-from", &req.filter.createdFrom},
        {"created-to", &req.filter.createdTo},
        {"updated-from", &req.filter.updatedFrom},
        {"updated-to", &req.filter.updatedTo},
    };
    for (const auto &[name, target] : windows) {
        const QString option = QString::fromLatin1(name);
        if (!p.isSet(option))
            continue;
        if (!readTimeOption(context, option, target))
            return std::nullopt;
    }
    return req;
}

std::optional<DbError> fetchQueueRows(Workspace &workspace, const QueueRequest &request, int limit, int pageSize,
                                      QVector<QueueRow> *rows, ReadFrom from)
{
    QueueCursor cursor;
    for (;;) {
        const int want = limit == 0 ? pageSize : qMin(pageSize, limit - int(rows->size()));
        if (want <= 0)
            return std::nullopt;
        const Outcome<QueuePage> page = fetchQueuePage(workspace, request, cursor, want, from).result();
        if (!page.ok())
            return page.error;
        *rows += page->rows;
        cursor = page->next;
        if (page->atEnd || page->rows.isEmpty())
            return std::nullopt;
    }
}

QString orNull(const QString &s)
{
    return s.isNull() ? QStringLiteral("NULL") : s;
}

QString orNull(const NullableText &s)
{
    return s ? *s : QStringLiteral("NULL");
}

std::unique_ptr<UpstreamSimulatorProcess> startDemoSimulator(Output &out)
{
    auto simulator = std::make_unique<UpstreamSimulatorProcess>();
    QString error;
    if (!simulator->start(QStringLiteral("sqlite://") + DemoWorkspace::path(), &error)) {
        out.message(QStringLiteral("cannot start the demo's upstream simulator: ") + error);
        return nullptr;
    }
    return simulator;
}

bool keyArgumentOk(const CommandContext &context, const QString &command, bool queueInstead)
{
    if (context.args.isEmpty())
        return true;
    const QString key = context.args.value(0);
    if (!key.trimmed().isEmpty() && key.size() <= 255)
        return true;
    context.out.usage(QStringLiteral("%1: a KEY of 1 to 255 characters%2")
                          .arg(command, queueInstead ? QStringLiteral(" (an empty KEY is not a queue: name one with --queue)") : QString()));
    return false;
}


} // namespace triage::ctl
