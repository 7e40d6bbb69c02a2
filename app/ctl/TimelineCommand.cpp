// triagectl timeline: every event of a time window across the stores (DESIGN.md §5, §7).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "DeepLink.h"
#include "Incident.h"
#include "Retention.h"
#include "TextEscape.h"
#include "Window.h"
#include "WindowGap.h"
#include "WindowNotes.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

/// Said after a listing cut short by --limit while the window holds more.
const QString kMoreInWindow = QStringLiteral("more in the window (--limit 0 for all)");

QStringList csvHeader()
{
    return {QStringLiteral("at"),       QStringLiteral("store"),      QStringLiteral("kind"),   QStringLiteral("id"),
            QStringLiteral("idem_key"), QStringLiteral("biz_type"),   QStringLiteral("status"), QStringLiteral("actor"),
            QStringLiteral("detail"),   QStringLiteral("settling"),   QStringLiteral("status_now"),
            QStringLiteral("status_unmapped")};
}

/// CSV has no NULL: a null text and "" are both an empty field.
QStringList csvFields(const WindowEvent &e)
{
    auto flag = [](bool b) { return b ? QStringLiteral("true") : QStringLiteral("false"); };
    return {e.atText, eventStoreName(e.store), eventKindName(e.kind), e.id,           e.idemKey,     e.bizType,
            e.status, e.actor,                 e.detail,              flag(e.settling), e.statusNow, flag(e.statusUnmapped)};
}

/// The status column of the table: the status, marked where the console cannot map it.
QString statusCell(const WindowEvent &e)
{
    return e.statusUnmapped && !e.status.isNull() && !e.status.startsWith(QLatin1String("UNKNOWN_CODE_"))
        ? e.status + QStringLiteral(" (unmapped)")
        : e.status;
}

class TimelineCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("timeline"), QStringLiteral("timeline"),
            QStringLiteral("Every event of a time window across the stores (incident replay)."),
            QStringLiteral("timeline --from TIME --to TIME [--biz-type B] [--tenant T] [--key SUBSTR] [--task ID] "
                           "[--store S,..] "
                           "[--kind K,..] [--status S,..] [--lookback SECONDS]  |  timeline --incident ID [--lookback SECONDS]  |  "
                           "timeline --link triage://window?... [--lookback SECONDS]"),
            QStringLiteral(
                "Every event in [--from, --to) (UTC; --from included, --to excluded) across the stores, in one\n"
                "order (time, store, kind, id): record.created, record.updated (to its CURRENT status: the\n"
                "idempotency table keeps no history), intent.attempt, ticket.created (its status \"now …\"), and the console's own\n"
                "rows (audit, compensation, compensation.attempt). Stores: idempotency, intent, ticket,\n"
                "console. Events newer than each store's now() minus --lookback (default 60 s) may still be\n"
                "joined by late commits: they come last, marked settling (\"~\" in the table). A store whose\n"
                "clock is more than 1 s off this machine's is named on stderr: the order across stores is\n"
                "then approximate. Stops after --limit events and says when the window holds more; the table\n"
                "collapses gaps of 5 min or more. Times: ISO-8601 UTC, to the second or minute, or a date.\n"
                "--summary: events and distinct keys per kind, keys with an UNKNOWN attempt, records\n"
                "created in the window still PROCESSING, keys with 2+ tickets created in the window,\n"
                "applied marks by operator, top biz_types and tenants, events per minute; a figure a filter\n"
                "leaves out is \"not counted\" (JSON null), never 0.\n"
                "--incident ID reads the window and filters saved with that incident (triagectl incident).\n"
                "--link reads them from a window link (triage://window?from=…&to=…&…, DESIGN.md \u00a77 \"Links\"):\n"
                "the same output as the same --from, --to and filters; its selected event is ignored here."),
            QList<QCommandLineOption>{option("from", QStringLiteral("Window start, included (ISO-8601; no zone = UTC)."),
                                             QStringLiteral("TIME")),
                                      option("to", QStringLiteral("Window end, excluded."), QStringLiteral("TIME"))}
                + windowFilterOptions()
                + QList<QCommandLineOption>{
             option("incident", QStringLiteral("The window and filters of incident ID (instead of --from, --to and filters)."),
                    QStringLiteral("ID")),
             option("lookback", QStringLiteral("Seconds before now() in which events still settle (default 60)."),
                    QStringLiteral("SECONDS")),
             linkOption(),
             option("summary", QStringLiteral("Print the window's summary (aggregates on the servers) instead of its events.")),
             pageSizeOption()},
            0, QString(), false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (!readPageSize(c, &m_pageSize))
            return ExitUsage;
        if (c.parser.isSet(QStringLiteral("incident")) && c.parser.isSet(QStringLiteral("link")))
            return c.out.usage(QStringLiteral("give either --incident or --link, not both"));
        if (c.parser.isSet(QStringLiteral("incident"))) {
            bool ok = false;
            m_incident = c.parser.value(QStringLiteral("incident")).trimmed().toLongLong(&ok);
            if (!ok || m_incident <= 0)
                return c.out.usage(
                    QStringLiteral("--incident \"%1\": give an incident id").arg(c.parser.value(QStringLiteral("incident"))));
            if (c.parser.isSet(QStringLiteral("from")) || c.parser.isSet(QStringLiteral("to")) || windowFiltersGiven(c))
                return c.out.usage(QStringLiteral("--incident takes the window and filters from the incident: leave out --from, "
                                                  "--to and the filters"));
        } else if (c.parser.isSet(QStringLiteral("link"))) {
            if (c.parser.isSet(QStringLiteral("from")) || c.parser.isSet(QStringLiteral("to")) || windowFiltersGiven(c))
                return c.out.usage(QStringLiteral("--link takes the window and filters from the link: leave out --from, --to and "
                                                  "the filters"));
            QString error;
            const auto link = parseDeepLink(c.parser.value(QStringLiteral("link")), &error);
            if (!link)
                return c.out.usage(QStringLiteral("--link: ") + error);
            if (link->kind != DeepLink::Kind::Window)
                return c.out.usage(QStringLiteral("--link: timeline takes a window link (triage://window?from=…&to=…); open a key "
                                                  "link with triagectl show --link"));
            m_query = link->query;
            m_fromLink = true;
            m_linkEvent = link->event;
        } else if (!readWindowQuery(c, QStringLiteral("timeline"), &m_query)) {
            return ExitUsage;
        }
        return readLookback(c, &m_query) ? ExitOk : ExitUsage;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        if (m_incident > 0) {
            // The incident's window and filters (DESIGN.md §7 "Incidents"); the lookback stays ours.
            const auto incident = readIncident(workspace, m_incident).result();
            if (!incident.ok())
                return c.out.dbFailure(*incident.error);
            if (!*incident.value) {
                c.out.message(QStringLiteral("no incident %1").arg(m_incident));
                return ExitUsage;
            }
            const int lookback = m_query.lookbackS;
            m_query = incident.value->value().incident.query;
            m_query.lookbackS = lookback;
        }
        if (m_fromLink) {
            // As the console opens a link (DESIGN.md §7 "Links"): a window reaching back past what
            // the stores still hold is said; the event a link names is for the console to select.
            const auto purged = checkWindowRetention(workspace, m_query).result();
            if (!purged.ok())
                return c.out.dbFailure(*purged.error);
            if (!purged->isEmpty())
                c.out.message(QStringLiteral("note: ") + *purged);
            if (m_linkEvent)
                c.out.message(QStringLiteral("note: the link names the event %1 %2; timeline lists the whole window "
                                             "(triage-console --open LINK selects it)")
                                  .arg(eventKindName(m_linkEvent->first), escapeControlChars(m_linkEvent->second)));
        }
        if (c.parser.isSet(QStringLiteral("summary"))) {
            const auto summary = summarizeWindow(workspace, m_query).result();
            if (!summary.ok())
                return c.out.dbFailure(*summary.error);
            printSummary(c, *summary, windowStatusNotes(workspace.config(), m_query));
            return ExitOk;
        }
        const auto clocks = measureStoreClocks(workspace).result();
        if (!clocks.ok())
            return c.out.dbFailure(*clocks.error);
        for (const StoreClock &clock : *clocks)
            if (qAbs(clock.offsetMs) > kClockSkewWarnMs)
                c.out.message(QStringLiteral("warning: the %1 store's clock is %2 ms %3 this machine's: the order across "
                                             "stores is approximate")
                                  .arg(roleName(clock.role))
                                  .arg(qAbs(clock.offsetMs))
                                  .arg(clock.offsetMs > 0 ? QStringLiteral("ahead of") : QStringLiteral("behind")));
        QVector<WindowEvent> events;
        WindowCursor cursor;
        QStringList notes;
        bool end = false;
        const auto full = [&] { return c.limit > 0 && events.size() >= c.limit; };
        while (!end && !full()) {
            const int want = c.limit <= 0 ? m_pageSize : qMin(m_pageSize, int(c.limit - events.size()));
            const auto page = readWindowPage(workspace, m_query, cursor, want).result();
            if (!page.ok())
                return c.out.dbFailure(*page.error);
            events << page->events;
            for (const QString &n : page->notes)
                if (!notes.contains(n))
                    notes << n;
            cursor = page->next;
            end = page->end;
        }
        // More in the window after --limit: a final event after the cursor, or a settling one
        // not shown (one more row read, never a count: the window may still change).
        bool more = false;
        if (!end) {
            const auto next = readWindowPage(workspace, m_query, cursor, 1).result();
            if (!next.ok())
                return c.out.dbFailure(*next.error);
            more = !next->events.isEmpty();
            end = next->end && !more;
        }
        if (end) {
            const int room = c.limit <= 0 ? 0 : int(c.limit - events.size());
            if (c.limit > 0 && room == 0) {
                const auto tail = readSettlingTail(workspace, m_query, 1).result();
                if (!tail.ok())
                    return c.out.dbFailure(*tail.error);
                more = !tail->isEmpty();
            } else {
                // One row more per stream than there is room for: a row left over means more.
                const auto tail = readSettlingTail(workspace, m_query, room == 0 ? 0 : room + 1).result();
                if (!tail.ok())
                    return c.out.dbFailure(*tail.error);
                for (const WindowEvent &e : *tail) {
                    if (full()) {
                        more = true;
                        break;
                    }
                    events << e;
                }
            }
        }
        for (const QString &n : std::as_const(notes))
            c.out.message(n);
        for (const QString &n : windowStatusNotes(workspace.config(), m_query))
            c.out.message(QStringLiteral("note: ") + n);
        print(c, events, more);
        return ExitOk;
    }

private:
    void print(const CommandContext &c, const QVector<WindowEvent> &events, bool more) const
    {
        // JSON and CSV stay lists of events; the truncation is said on stderr.
        if (more && c.out.format() != Format::Table)
            c.out.message(QStringLiteral("%1 shown; %2").arg(countText(events.size(), QStringLiteral("event")), kMoreInWindow));
        switch (c.out.format()) {
        case Format::Json: {
            QByteArray out = "[";
            for (int i = 0; i < events.size(); ++i) {
                out += i == 0 ? "\n" : ",\n";
                out += QJsonDocument(json_export::windowEvent(events[i])).toJson(QJsonDocument::Compact);
            }
            out += events.isEmpty() ? "]\n" : "\n]\n";
            c.out.print(out);
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record(csvHeader());
            for (const WindowEvent &e : events)
                out += CsvWriter::record(csvFields(e));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable table({QStringLiteral("AT (UTC)"), QStringLiteral("STORE"), QStringLiteral("KIND"),
                             QStringLiteral("STATUS"), QStringLiteral("IDEM_KEY"), QStringLiteral("ACTOR"),
                             QStringLiteral("DETAIL")});
            int settling = 0;
            for (int i = 0; i < events.size(); ++i) {
                const WindowEvent &e = events[i];
                if (i > 0) {
                    // The same line as the Incident tab's gap rows (DESIGN.md §7).
                    const qint64 gap = e.at - events[i - 1].at;
                    if (gap >= kWindowGapMicros)
                        table.addRow({windowGapText(gap), QString(), QString(), QString(), QString(), QString(), QString()});
                }
                settling += e.settling ? 1 : 0;
                table.addRow({e.atText + (e.settling ? QStringLiteral(" ~") : QString()), eventStoreName(e.store),
                              eventKindName(e.kind), statusCell(e), escapeControlChars(e.idemKey), e.actor, escapeControlChars(e.detail)});
            }
            QByteArray out = table.render();
            out += QStringLiteral("%1%2%3\n")
                       .arg(countText(events.size(), QStringLiteral("event")),
                            settling > 0 ? QStringLiteral(" (%1 settling)").arg(settling) : QString(),
                            more ? QStringLiteral(" shown; ") + kMoreInWindow : QString())
                       .toUtf8();
            c.out.print(out);
            break;
        }
        }
    }

    /// The summary; `notes` (windowStatusNotes()) go into JSON's "notes", else to stderr.
    void printSummary(const CommandContext &c, const WindowSummary &s, const QStringList &notes) const
    {
        if (c.out.format() != Format::Json)
            for (const QString &n : notes)
                c.out.message(QStringLiteral("note: ") + n);
        const QVector<EventKind> kinds = selectedKinds(m_query);
        auto names = [](const QVector<NameCount> &v) {
            QStringList out;
            for (const NameCount &n : v)
                out << QStringLiteral("%1 %2").arg(n.name).arg(n.count);
            return out;
        };
        switch (c.out.format()) {
        case Format::Json: {
            QJsonObject o;
            o.insert(QStringLiteral("from"), formatUtcMicros(m_query.from));
            o.insert(QStringLiteral("to"), formatUtcMicros(m_query.to));
            QJsonObject perKind;
            for (EventKind k : kinds)
                perKind.insert(eventKindName(k), QJsonObject{{QStringLiteral("events"), s.events[int(k)]},
                                                             {QStringLiteral("keys"), s.keys[int(k)]}});
            o.insert(QStringLiteral("kinds"), perKind);
            // A figure a filter leaves out is null, never 0; "not_counted" says why (DESIGN.md §7).
            QJsonObject notCounted;
            auto figure = [&](const char *name, SummaryFigure f, const QJsonValue &value) {
                o.insert(QLatin1String(name), s.counted(f) ? value : QJsonValue());
                if (!s.counted(f))
                    notCounted.insert(QLatin1String(name), s.notCounted[int(f)]);
            };
            auto array = [](const QVector<NameCount> &v) {
                QJsonArray a;
                for (const NameCount &n : v)
                    a.append(QJsonObject{{QStringLiteral("name"), n.name}, {QStringLiteral("count"), n.count}});
                return a;
            };
            figure("unknown_keys", SummaryFigure::UnknownKeys, s.unknownKeys);
            figure("still_processing", SummaryFigure::StillProcessing, s.stillProcessing);
            figure("duplicate_groups", SummaryFigure::DuplicateGroups, s.duplicateGroups);
            figure("settled_by", SummaryFigure::SettledBy, array(s.settledBy));
            figure("top_biz_types", SummaryFigure::TopBizTypes, array(s.topBizTypes));
            figure("top_tenants", SummaryFigure::TopTenants, array(s.topTenants));
            o.insert(QStringLiteral("not_counted"), notCounted);
            o.insert(QStringLiteral("notes"), QJsonArray::fromStringList(notes));
            QJsonArray minutes;
            for (const MinuteCount &m : s.perMinute)
                minutes.append(QJsonObject{{QStringLiteral("minute"), m.minute},
                                           {QStringLiteral("kind"), eventKindName(m.kind)},
                                           {QStringLiteral("events"), m.events}});
            o.insert(QStringLiteral("per_minute"), minutes);
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("minute"), QStringLiteral("kind"), QStringLiteral("events")});
            for (const MinuteCount &m : s.perMinute)
                out += CsvWriter::record({m.minute, eventKindName(m.kind), QString::number(m.events)});
            c.out.print(out);
            // One table per file: the figures (per kind, UNKNOWN keys, PROCESSING, duplicates,
            // settled by, top names) do not fit its rows; say so rather than drop them quietly.
            c.out.message(QStringLiteral("note: the CSV summary holds the per-minute counts only; "
                                         "--format json or table for the other figures"));
            break;
        }
        case Format::Table: {
            QString out = QStringLiteral("Window %1 .. %2 (UTC, end excluded)\n")
                              .arg(formatUtcMicros(m_query.from), formatUtcMicros(m_query.to));
            TextTable perKind({QStringLiteral("KIND"), QStringLiteral("EVENTS"), QStringLiteral("KEYS")});
            perKind.alignRight(1);
            perKind.alignRight(2);
            for (EventKind k : kinds)
                perKind.addRow({eventKindName(k), QString::number(s.events[int(k)]), QString::number(s.keys[int(k)])});
            out += QString::fromUtf8(perKind.render());
            const QString none = QStringLiteral("none");
            // A figure a filter leaves out says so: 0 or "none" would read as "nothing happened".
            auto figure = [&](const QString &title, SummaryFigure f, const QString &value) {
                out += QStringLiteral("%1: %2\n").arg(title, s.counted(f) ? value
                                                                         : QStringLiteral("not counted (filtered out by %1)")
                                                                               .arg(s.notCounted[int(f)]));
            };
            const QStringList settled = names(s.settledBy), biz = names(s.topBizTypes), tenants = names(s.topTenants);
            figure(QStringLiteral("Keys with an UNKNOWN attempt"), SummaryFigure::UnknownKeys, QString::number(s.unknownKeys));
            figure(QStringLiteral("Records created in the window, still PROCESSING"), SummaryFigure::StillProcessing,
                   QString::number(s.stillProcessing));
            figure(QStringLiteral("Keys with 2+ tickets created in the window"), SummaryFigure::DuplicateGroups,
                   QString::number(s.duplicateGroups));
            figure(QStringLiteral("Settled by operators"), SummaryFigure::SettledBy,
                   settled.isEmpty() ? none : settled.join(QStringLiteral(", ")));
            figure(QStringLiteral("Top biz_types"), SummaryFigure::TopBizTypes, biz.isEmpty() ? none : biz.join(QStringLiteral(", ")));
            figure(QStringLiteral("Top tenants"), SummaryFigure::TopTenants,
                   tenants.isEmpty() ? none : tenants.join(QStringLiteral(", ")));
            // Events per minute, one column per store (the Incident view's stacked histogram).
            TextTable minutes({QStringLiteral("MINUTE (UTC)"), QStringLiteral("IDEMPOTENCY"), QStringLiteral("INTENT"),
                               QStringLiteral("TICKET"), QStringLiteral("CONSOLE")});
            for (int col = 1; col <= 4; ++col)
                minutes.alignRight(col);
            bool storeCounted[4] = {};
            for (EventKind k : kinds)
                storeCounted[int(storeOf(k))] = true;
            for (int i = 0; i < s.perMinute.size();) {
                const QString minute = s.perMinute[i].minute;
                qint64 perStore[4] = {};
                for (; i < s.perMinute.size() && s.perMinute[i].minute == minute; ++i)
                    perStore[int(storeOf(s.perMinute[i].kind))] += s.perMinute[i].events;
                // A store none of whose kinds is selected: "-" (not counted), never 0.
                QStringList row{minute};
                for (int st = 0; st < 4; ++st)
                    row << (storeCounted[st] ? QString::number(perStore[st]) : QStringLiteral("-"));
                minutes.addRow(row);
            }
            out += QString::fromUtf8(minutes.render());
            c.out.print(out.toUtf8());
            break;
        }
        }
    }

    int m_pageSize = kDefaultPageSize;
    WindowQuery m_query;
    qint64 m_incident = 0; ///< --incident ID: the window and filters of that incident
    bool m_fromLink = false; ///< --link: the window and filters of a link
    std::optional<std::pair<EventKind, QString>> m_linkEvent; ///< the event the link names
};

} // namespace

std::unique_ptr<Command> makeTimelineCommand()
{
    return std::make_unique<TimelineCommand>();
}

} // namespace triage::ctl
