// triagectl timeline: every event of a time window across the stores (DESIGN.md §5, §7).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "DeepLink.h"
#include "Incident.h"
#include "TextEscape.h"
#include "Window.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

/// Gaps at least this long (s) between two events are shown as one line in the table.
constexpr qint64 kIdleGapS = 300;

QStringList csvHeader()
{
    return {QStringLiteral("at"),     QStringLiteral("store"),    QStringLiteral("kind"),  QStringLiteral("id"),
            QStringLiteral("idem_key"), QStringLiteral("biz_type"), QStringLiteral("status"), QStringLiteral("actor"),
            QStringLiteral("detail"), QStringLiteral("settling")};
}

QStringList csvFields(const WindowEvent &e)
{
    return {e.atText, eventStoreName(e.store), eventKindName(e.kind), e.id, e.idemKey, e.bizType, e.status, e.actor,
            e.detail, e.settling ? QStringLiteral("true") : QStringLiteral("false")};
}

QJsonObject jsonEvent(const WindowEvent &e)
{
    QJsonObject o;
    const QStringList keys = csvHeader();
    const QStringList values = csvFields(e);
    for (int i = 0; i + 1 < keys.size(); ++i)
        o.insert(keys[i], values[i]);
    o.insert(QStringLiteral("settling"), e.settling);
    return o;
}

class TimelineCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("timeline"), QStringLiteral("timeline"),
            QStringLiteral("Every event of a time window across the stores (incident replay)."),
            QStringLiteral("timeline --from TIME --to TIME [--biz-type B] [--tenant T] [--key SUBSTR] [--store S,..] "
                           "[--kind K,..] [--status S,..] [--lookback SECONDS]  |  timeline --incident ID [--lookback SECONDS]  |  "
                           "timeline --link triage://window?... [--lookback SECONDS]"),
            QStringLiteral(
                "Every event in [--from, --to) (UTC; --from included, --to excluded) across the stores, in one\n"
                "order (time, store, kind, id): record.created, record.updated (to its CURRENT status: the\n"
                "idempotency table keeps no history), intent.attempt, ticket.created, and the console's own\n"
                "rows (audit, compensation, compensation.attempt). Stores: idempotency, intent, ticket,\n"
                "console. Events newer than each store's now() minus --lookback (default 60 s) may still be\n"
                "joined by late commits: they come last, marked settling (\"~\" in the table). A store whose\n"
                "clock is more than 1 s off this machine's is named on stderr: the order across stores is\n"
                "then approximate. Stops after --limit events; the table collapses gaps of 5 min or more.\n"
                "--summary: events and distinct keys per kind, keys with an UNKNOWN attempt, records\n"
                "created in the window still PROCESSING, keys with 2+ tickets created in the window,\n"
                "applied marks by operator, top biz_types and tenants, events per minute.\n"
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
        if (c.parser.isSet(QStringLiteral("summary"))) {
            const auto summary = summarizeWindow(workspace, m_query).result();
            if (!summary.ok())
                return c.out.dbFailure(*summary.error);
            printSummary(c, *summary);
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
        while (!end && (c.limit <= 0 || events.size() < c.limit)) {
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
        if (end && (c.limit <= 0 || events.size() < c.limit)) {
            const auto tail = readSettlingTail(workspace, m_query, c.limit <= 0 ? 0 : int(c.limit - events.size())).result();
            if (!tail.ok())
                return c.out.dbFailure(*tail.error);
            for (const WindowEvent &e : *tail)
                if (c.limit <= 0 || events.size() < c.limit)
                    events << e;
        }
        for (const QString &n : std::as_const(notes))
            c.out.message(n);
        print(c, events, end);
        return ExitOk;
    }

private:
    void print(const CommandContext &c, const QVector<WindowEvent> &events, bool end) const
    {
        switch (c.out.format()) {
        case Format::Json: {
            QByteArray out = "[";
            for (int i = 0; i < events.size(); ++i) {
                out += i == 0 ? "\n" : ",\n";
                out += QJsonDocument(jsonEvent(events[i])).toJson(QJsonDocument::Compact);
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
                    const qint64 gapS = (e.at - events[i - 1].at) / 1000000;
                    if (gapS >= kIdleGapS)
                        table.addRow({QStringLiteral("-- %1 min without events --").arg(gapS / 60), QString(), QString(),
                                      QString(), QString(), QString(), QString()});
                }
                settling += e.settling ? 1 : 0;
                table.addRow({e.atText + (e.settling ? QStringLiteral(" ~") : QString()), eventStoreName(e.store),
                              eventKindName(e.kind), e.status, escapeControlChars(e.idemKey), e.actor, escapeControlChars(e.detail)});
            }
            QByteArray out = table.render();
            out += QStringLiteral("%1%2%3\n")
                       .arg(countText(events.size(), QStringLiteral("event")),
                            settling > 0 ? QStringLiteral(" (%1 settling)").arg(settling) : QString(),
                            end ? QString() : QStringLiteral("; --limit 0 lists all"))
                       .toUtf8();
            c.out.print(out);
            break;
        }
        }
    }

    void printSummary(const CommandContext &c, const WindowSummary &s) const
    {
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
            o.insert(QStringLiteral("unknown_keys"), s.unknownKeys);
            o.insert(QStringLiteral("still_processing"), s.stillProcessing);
            o.insert(QStringLiteral("duplicate_groups"), s.duplicateGroups);
            auto array = [](const QVector<NameCount> &v) {
                QJsonArray a;
                for (const NameCount &n : v)
                    a.append(QJsonObject{{QStringLiteral("name"), n.name}, {QStringLiteral("count"), n.count}});
                return a;
            };
            o.insert(QStringLiteral("settled_by"), array(s.settledBy));
            o.insert(QStringLiteral("top_biz_types"), array(s.topBizTypes));
            o.insert(QStringLiteral("top_tenants"), array(s.topTenants));
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
            out += QStringLiteral("Keys with an UNKNOWN attempt: %1\n").arg(s.unknownKeys);
            out += QStringLiteral("Records created in the window, still PROCESSING: %1\n").arg(s.stillProcessing);
            out += QStringLiteral("Keys with 2+ tickets created in the window: %1\n").arg(s.duplicateGroups);
            const QStringList settled = names(s.settledBy), biz = names(s.topBizTypes), tenants = names(s.topTenants);
            out += QStringLiteral("Settled by operators: %1\n").arg(settled.isEmpty() ? none : settled.join(QStringLiteral(", ")));
            out += QStringLiteral("Top biz_types: %1\n").arg(biz.isEmpty() ? none : biz.join(QStringLiteral(", ")));
            out += QStringLiteral("Top tenants: %1\n").arg(tenants.isEmpty() ? none : tenants.join(QStringLiteral(", ")));
            // Events per minute, one column per store (the Incident view's stacked histogram).
            TextTable minutes({QStringLiteral("MINUTE (UTC)"), QStringLiteral("IDEMPOTENCY"), QStringLiteral("INTENT"),
                               QStringLiteral("TICKET"), QStringLiteral("CONSOLE")});
            for (int col = 1; col <= 4; ++col)
                minutes.alignRight(col);
            for (int i = 0; i < s.perMinute.size();) {
                const QString minute = s.perMinute[i].minute;
                qint64 perStore[4] = {};
                for (; i < s.perMinute.size() && s.perMinute[i].minute == minute; ++i)
                    perStore[int(storeOf(s.perMinute[i].kind))] += s.perMinute[i].events;
                minutes.addRow({minute, QString::number(perStore[0]), QString::number(perStore[1]), QString::number(perStore[2]),
                                QString::number(perStore[3])});
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
};

} // namespace

std::unique_ptr<Command> makeTimelineCommand()
{
    return std::make_unique<TimelineCommand>();
}

} // namespace triage::ctl
