// triagectl incident: console-owned incidents — a window and its filters, pinned events and
// notes (DESIGN.md §5, §7 "Incidents").
#include "BundleCli.h"
#include "Command.h"
#include "JsonExport.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "DeepLink.h"
#include "Incident.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

const QStringList kSubcommands = {QStringLiteral("create"), QStringLiteral("list"),  QStringLiteral("show"),
                                  QStringLiteral("pin"),    QStringLiteral("unpin"), QStringLiteral("note"),
                                  QStringLiteral("close"),  QStringLiteral("reopen"), QStringLiteral("export")};

QJsonValue textOrNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

QJsonObject incidentJson(const Incident &i)
{
    QJsonObject filters = QJsonDocument::fromJson(incidentFiltersJson(i.query).toUtf8()).object();
    return {{QStringLiteral("id"), i.id},
            {QStringLiteral("title"), i.title},
            {QStringLiteral("status"), i.open ? QStringLiteral("open") : QStringLiteral("closed")},
            {QStringLiteral("from"), formatUtcMicros(i.query.from)},
            {QStringLiteral("to"), formatUtcMicros(i.query.to)},
            {QStringLiteral("filters"), filters},
            {QStringLiteral("created_by"), i.createdBy},
            {QStringLiteral("created_at"), i.createdAt},
            {QStringLiteral("closed_by"), textOrNull(i.closedBy)},
            {QStringLiteral("closed_at"), textOrNull(i.closedAt)},
            {QStringLiteral("version"), i.version},
            {QStringLiteral("pins"), i.pins},
            {QStringLiteral("notes"), i.notes}};
}

class IncidentCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("incident"), QStringLiteral("incident"),
            QStringLiteral("Incidents: a saved window with its filters, pinned events and notes."),
            QStringLiteral("incident create --title TEXT --from TIME --to TIME [timeline's filters]  |  incident list [--all]"
                           "  |  incident show ID  |  incident pin ID --kind K --event-id X [--note TEXT]"
                           "  |  incident unpin ID --kind K --event-id X  |  incident note ID --text TEXT [--kind K --event-id X]"
                           "  |  incident close ID  |  incident reopen ID"
                           "  |  incident export ID --out FILE [--no-redact] [--redact-field NAME].. [--no-record]"
                           "  |  incident export --from TIME --to TIME [timeline's filters] --out FILE [..]"),
            QStringLiteral(
                "An incident names a window [--from, --to) (UTC) and timeline's filters; `triagectl timeline\n"
                "--incident ID` and the console's Incident tab (triage-console --incident ID) read it. Pin\n"
                "events that matter (--kind and the row id that `timeline --format json` prints as \"id\"; the\n"
                "event must exist in its store) and add notes. A closed incident takes no pins or notes until\n"
                "it is reopened. Every change is audited in triage_audit in its transaction (incident.create,\n"
                "incident.pin, incident.unpin, incident.note, incident.close, incident.reopen; idem_key\n"
                "incident:ID).\n"
                "list lists the open incidents, newest first (--all: closed ones too). Limits: title 200\n"
                "characters, note 4000, a pin's note 1000. Exit 1 for bad input or an unknown incident or\n"
                "event, 3 when the incident's state wins (closing a closed one, pinning an event twice,\n"
                "changing a closed one), 4 in read-only mode.\n"
                "export writes an incident's window (or --from/--to with timeline's filters) as one JSON\n"
                "bundle (DESIGN.md §7 \"Bundles\"): every event as stored, the involved keys' details, pins,\n"
                "notes, the summary, clock offsets and a SHA-256 over the canonical event list, recorded in\n"
                "triage_incident_export with an incident.export audit row (not in read-only mode, nor with\n"
                "--no-record). Authorization and cookie headers and JSON fields named token, password,\n"
                "secret, api_key, apikey, access_token, refresh_token, authorization, cookie (and each\n"
                "--redact-field) are replaced by \"[redacted sha256:<hex>]\", and so is the value of\n"
                "NAME=value, NAME: value or NAME=\"value\" with those names in free text (notes, details;\n"
                "\"Authorization: Bearer X\" keeps Bearer); --no-redact keeps them and is audited.\n"
                "Exit 2 when a store failed during the export (the bundle is written and names it).\n"
                "`triagectl bundle verify FILE` checks a bundle later."),
            QList<QCommandLineOption>{
                option("title", QStringLiteral("create: the incident's title."), QStringLiteral("TEXT")),
                option("from", QStringLiteral("create: window start, included (ISO-8601; no zone = UTC)."), QStringLiteral("TIME")),
                option("to", QStringLiteral("create: window end, excluded."), QStringLiteral("TIME"))}
                + windowFilterOptions()
                + QList<QCommandLineOption>{
                    option("all", QStringLiteral("list: closed incidents too.")),
                    option("event-id", QStringLiteral("pin, unpin, note: the event's row id (timeline's \"id\")."), QStringLiteral("X")),
                    option("note", QStringLiteral("pin: a note on the pin."), QStringLiteral("TEXT")),
                    option("text", QStringLiteral("note: the note's text."), QStringLiteral("TEXT"))}
                + bundleExportOptions(),
            1, QString(), false, true, true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        m_action = c.args.value(0);
        if (!kSubcommands.contains(m_action))
            return c.out.usage(QStringLiteral("incident: unknown action \"%1\" (%2)").arg(m_action, kSubcommands.join(QStringLiteral(", "))));
        // export takes an ID, or --from/--to and filters instead.
        const bool takesId = m_action != QLatin1String("create") && m_action != QLatin1String("list")
            && (m_action != QLatin1String("export") || c.args.size() > 1);
        if (c.args.size() != (takesId ? 2 : 1))
            return c.out.usage(c.args.size() > (takesId ? 2 : 1)
                                   ? QStringLiteral("incident %1: unexpected argument \"%2\"").arg(m_action, c.args.value(takesId ? 2 : 1))
                                   : QStringLiteral("incident %1: missing incident ID").arg(m_action));
        if (takesId) {
            bool ok = false;
            m_id = c.args.value(1).toLongLong(&ok);
            if (!ok || m_id <= 0)
                return c.out.usage(QStringLiteral("incident %1: \"%2\" is not an incident ID").arg(m_action, c.args.value(1)));
        }
        // Options that belong to another action are mistakes, not ignored.
        static const QHash<QString, QStringList> allowed = {
            {QStringLiteral("create"), {QStringLiteral("title"), QStringLiteral("from"), QStringLiteral("to"), QStringLiteral("biz-type"),
                                        QStringLiteral("tenant"), QStringLiteral("key"), QStringLiteral("store"), QStringLiteral("kind"),
                                        QStringLiteral("status")}},
            {QStringLiteral("list"), {QStringLiteral("all")}},
            {QStringLiteral("export"), {QStringLiteral("from"), QStringLiteral("to"), QStringLiteral("biz-type"), QStringLiteral("tenant"),
                                        QStringLiteral("key"), QStringLiteral("store"), QStringLiteral("kind"), QStringLiteral("status"),
                                        QStringLiteral("out"), QStringLiteral("no-redact"), QStringLiteral("redact-field"),
                                        QStringLiteral("no-record"), QStringLiteral("lookback")}},
            {QStringLiteral("pin"), {QStringLiteral("kind"), QStringLiteral("event-id"), QStringLiteral("note")}},
            {QStringLiteral("unpin"), {QStringLiteral("kind"), QStringLiteral("event-id")}},
            {QStringLiteral("note"), {QStringLiteral("text"), QStringLiteral("kind"), QStringLiteral("event-id")}},
        };
        for (const QCommandLineOption &o : spec().options) {
            const QString n = o.names().first();
            if (c.parser.isSet(n) && !allowed.value(m_action).contains(n))
                return c.out.usage(QStringLiteral("incident %1 takes no --%2").arg(m_action, n));
        }
        if (m_action == QLatin1String("create")) {
            m_title = c.parser.value(QStringLiteral("title"));
            if (!c.parser.isSet(QStringLiteral("title")))
                return c.out.usage(QStringLiteral("incident create needs --title"));
            if (!readWindowQuery(c, QStringLiteral("incident create"), &m_query))
                return ExitUsage;
        }
        if (m_action == QLatin1String("pin") || m_action == QLatin1String("unpin")
            || (m_action == QLatin1String("note") && (c.parser.isSet(QStringLiteral("kind")) || c.parser.isSet(QStringLiteral("event-id"))))) {
            if (!c.parser.isSet(QStringLiteral("kind")) || !c.parser.isSet(QStringLiteral("event-id")))
                return c.out.usage(QStringLiteral("incident %1 needs --kind and --event-id").arg(m_action));
            m_kind = readEventKind(c, c.parser.value(QStringLiteral("kind")).trimmed());
            if (!m_kind)
                return ExitUsage;
            m_eventId = c.parser.value(QStringLiteral("event-id")).trimmed();
        }
        if (m_action == QLatin1String("export")) {
            if (!c.parser.isSet(QStringLiteral("out")) || c.parser.value(QStringLiteral("out")).isEmpty())
                return c.out.usage(QStringLiteral("incident export needs --out FILE"));
            if (takesId && (c.parser.isSet(QStringLiteral("from")) || c.parser.isSet(QStringLiteral("to")) || windowFiltersGiven(c)))
                return c.out.usage(QStringLiteral("incident export ID takes the incident's window and filters: no --from, --to or filters"));
            if (!takesId && !readWindowQuery(c, QStringLiteral("incident export"), &m_query))
                return ExitUsage;
            if (!readLookback(c, &m_query))
                return ExitUsage;
        }
        if (m_action == QLatin1String("note") && !c.parser.isSet(QStringLiteral("text")))
            return c.out.usage(QStringLiteral("incident note needs --text"));
        return ExitOk;
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        if (m_action == QLatin1String("list"))
            return list(ws, c);
        if (m_action == QLatin1String("show"))
            return show(ws, c);
        if (m_action == QLatin1String("export"))
            return runBundleExport(ws, c, m_query, m_id > 0 ? std::optional<qint64>(m_id) : std::nullopt);
        QFuture<Outcome<IncidentChange>> change;
        if (m_action == QLatin1String("create"))
            change = createIncident(ws, m_title, m_query);
        else if (m_action == QLatin1String("pin"))
            change = pinEvent(ws, m_id, *m_kind, m_eventId, c.parser.value(QStringLiteral("note")));
        else if (m_action == QLatin1String("unpin"))
            change = unpinEvent(ws, m_id, *m_kind, m_eventId);
        else if (m_action == QLatin1String("note"))
            change = addIncidentNote(ws, m_id, c.parser.value(QStringLiteral("text")), m_kind, m_eventId);
        else if (m_action == QLatin1String("close"))
            change = closeIncident(ws, m_id);
        else
            change = reopenIncident(ws, m_id);
        return report(c, change.result());
    }

private:
    int report(const CommandContext &c, const Outcome<IncidentChange> &out) const
    {
        if (!out.ok())
            return c.out.dbFailure(*out.error);
        const IncidentChange &r = *out;
        switch (r.kind) {
        case IncidentChange::Kind::Applied: break;
        case IncidentChange::Kind::Invalid:
        case IncidentChange::Kind::NotFound: c.out.message(r.message); return ExitUsage;
        case IncidentChange::Kind::Conflict: c.out.message(r.message); return ExitConflict;
        case IncidentChange::Kind::Refused: c.out.message(r.message); return ExitRefused;
        }
        if (c.out.format() == Format::Json) {
            QJsonObject o{{QStringLiteral("incident"), r.incidentId}, {QStringLiteral("outcome"), incidentChangeKindName(r.kind)},
                          {QStringLiteral("message"), r.message}};
            if (r.rowId > 0)
                o.insert(m_action == QLatin1String("pin") ? QStringLiteral("pin") : QStringLiteral("note"), r.rowId);
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
        } else {
            c.out.print((TextTable::oneLine(r.message) + QLatin1Char('\n')).toUtf8());
        }
        return ExitOk;
    }

    int list(Workspace &ws, const CommandContext &c) const
    {
        const auto rows = listIncidents(ws, c.parser.isSet(QStringLiteral("all")), c.limit).result();
        if (!rows.ok())
            return c.out.dbFailure(*rows.error);
        const QStringList header = {QStringLiteral("id"),  QStringLiteral("status"), QStringLiteral("title"),
                                    QStringLiteral("from"), QStringLiteral("to"),    QStringLiteral("pins"),
                                    QStringLiteral("notes"), QStringLiteral("created_by")};
        auto fields = [](const Incident &i) {
            return QStringList{QString::number(i.id), i.open ? QStringLiteral("open") : QStringLiteral("closed"), i.title,
                               formatUtcMicros(i.query.from), formatUtcMicros(i.query.to), QString::number(i.pins),
                               QString::number(i.notes), i.createdBy};
        };
        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray a;
            for (const Incident &i : *rows)
                a.append(incidentJson(i));
            c.out.print(QJsonDocument(a).toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record(header);
            for (const Incident &i : *rows)
                out += CsvWriter::record(fields(i));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("ID"), QStringLiteral("STATUS"), QStringLiteral("TITLE"), QStringLiteral("FROM (UTC)"),
                         QStringLiteral("TO (UTC)"), QStringLiteral("PINS"), QStringLiteral("NOTES"), QStringLiteral("CREATED_BY")});
            for (int col : {0, 5, 6})
                t.alignRight(col);
            for (const Incident &i : *rows)
                t.addRow(fields(i));
            c.out.print(t.render() + countText(rows->size(), QStringLiteral("incident")).toUtf8() + '\n');
            break;
        }
        }
        return ExitOk;
    }

    int show(Workspace &ws, const CommandContext &c) const
    {
        const auto read = readIncident(ws, m_id).result();
        if (!read.ok())
            return c.out.dbFailure(*read.error);
        if (!*read.value) {
            c.out.message(QStringLiteral("no incident %1").arg(m_id));
            return ExitUsage;
        }
        const IncidentDetail &d = read.value->value();
        if (c.out.format() == Format::Json) {
            QJsonObject o = incidentJson(d.incident);
            QJsonArray pins;
            for (const IncidentPin &p : d.pins) {
                const QJsonObject event = p.event ? json_export::windowEvent(*p.event) : QJsonObject();
                pins.append(QJsonObject{{QStringLiteral("id"), p.id},
                                        {QStringLiteral("kind"), eventKindName(p.kind)},
                                        {QStringLiteral("store"), eventStoreName(storeOf(p.kind))},
                                        {QStringLiteral("event_id"), p.eventId},
                                        {QStringLiteral("event_at"), p.eventAt},
                                        {QStringLiteral("note"), textOrNull(p.note)},
                                        {QStringLiteral("pinned_by"), p.pinnedBy},
                                        {QStringLiteral("pinned_at"), p.pinnedAt},
                                        {QStringLiteral("event"), p.event ? QJsonValue(event) : QJsonValue(QJsonValue::Null)},
                                        {QStringLiteral("line"), pinnedEventLine(p)}});
            }
            QJsonArray notes;
            for (const IncidentNote &n : d.notes)
                notes.append(QJsonObject{{QStringLiteral("id"), n.id},
                                         {QStringLiteral("operator"), n.operatorName},
                                         {QStringLiteral("at"), n.at},
                                         {QStringLiteral("text"), n.text},
                                         {QStringLiteral("event_kind"), textOrNull(n.eventKind ? eventKindName(*n.eventKind) : QString())},
                                         {QStringLiteral("event_id"), textOrNull(n.eventId)}});
            o.insert(QStringLiteral("link"), windowLink(d.incident.query)); // DESIGN.md §7 "Links"
            o.insert(QStringLiteral("pins"), pins);
            o.insert(QStringLiteral("notes"), notes);
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Indented));
            return ExitOk;
        }
        const Incident &i = d.incident;
        QString out = QStringLiteral("Incident %1: %2\nStatus: %3\nWindow: %4 .. %5 (UTC, end excluded)\nFilters: %6\nCreated: %7 at %8\n")
                          .arg(QString::number(i.id), TextTable::oneLine(i.title), i.open ? QStringLiteral("open") : QStringLiteral("closed"),
                               formatUtcMicros(i.query.from), formatUtcMicros(i.query.to), TextTable::oneLine(incidentFiltersText(i.query)),
                               i.createdBy, i.createdAt);
        if (!i.open)
            out += QStringLiteral("Closed: %1 at %2\n").arg(i.closedBy, i.closedAt);
        out += QStringLiteral("Link: %1\n").arg(windowLink(i.query)); // the window and filters, for a chat or a ticket
        out += QStringLiteral("Pins: %1\n").arg(d.pins.size());
        if (!d.pins.isEmpty()) {
            TextTable t({QStringLiteral("AT (UTC)"), QStringLiteral("KIND"), QStringLiteral("ID"), QStringLiteral("EVENT"),
                         QStringLiteral("NOTE"), QStringLiteral("PINNED_BY")});
            for (const IncidentPin &p : d.pins)
                t.addRow({p.eventAt, eventKindName(p.kind), p.eventId, pinnedEventLine(p), p.note, p.pinnedBy});
            out += QString::fromUtf8(t.render(QStringLiteral("  ")));
        }
        out += QStringLiteral("Notes: %1\n").arg(d.notes.size());
        if (!d.notes.isEmpty()) {
            TextTable t({QStringLiteral("AT (UTC)"), QStringLiteral("OPERATOR"), QStringLiteral("ABOUT"), QStringLiteral("TEXT")});
            for (const IncidentNote &n : d.notes)
                t.addRow({n.at, n.operatorName, n.eventKind ? eventKindName(*n.eventKind) + QLatin1Char(' ') + n.eventId : QString(), n.text});
            out += QString::fromUtf8(t.render(QStringLiteral("  ")));
        }
        c.out.print(out.toUtf8());
        return ExitOk;
    }

    QString m_action;
    qint64 m_id = 0;
    QString m_title;
    WindowQuery m_query;
    std::optional<EventKind> m_kind;
    QString m_eventId;
};

} // namespace

std::unique_ptr<Command> makeIncidentCommand()
{
    return std::make_unique<IncidentCommand>();
}

} // namespace triage::ctl
