// The incident service (DESIGN.md §7 "Incidents"): checks, the filters' JSON form, and the
// futures over the workers. The SQL is in IncidentSql.cpp, the pinned events' reads in
// WindowSql.cpp (window_sql::readEvent()).
#include "Incident.h"
#include "ReadOnlyText.h"
#include "IncidentSql.h"
#include "WindowStream.h"

#include "FutureChain.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHash>

namespace triage {

namespace {

QString operatorOf(const Workspace &ws, const QString &given)
{
    if (!given.isEmpty())
        return given;
    return ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
}

QFuture<Outcome<IncidentChange>> ready(IncidentChange::Kind kind, qint64 id, const QString &message)
{
    IncidentChange c;
    c.kind = kind;
    c.incidentId = id;
    c.message = message;
    return QtFuture::makeReadyFuture(Outcome<IncidentChange>::success(c));
}

/// Read-only mode changes nothing (DESIGN.md §5): the refusal, or nullopt when writable.
std::optional<QFuture<Outcome<IncidentChange>>> readOnlyRefusal(const Workspace &ws, qint64 id)
{
    if (!ws.config().readOnly)
        return std::nullopt;
    return ready(IncidentChange::Kind::Refused, id,
                 readOnlyText(ws.config(), QStringLiteral("incidents cannot be changed")));
}

/// Runs one writer on the idempotency worker (never re-sent after a dropped connection).
QFuture<Outcome<IncidentChange>> write(Workspace &ws, std::function<IncidentChange(DbSession &)> job)
{
    return ws.worker(DbRole::Idempotency).run<IncidentChange>(std::move(job), DbWorker::Retry::Never);
}

QJsonArray names(const QStringList &list)
{
    QJsonArray a;
    for (const QString &s : list)
        a.append(s);
    return a;
}

} // namespace

QString incidentChangeKindName(IncidentChange::Kind kind)
{
    switch (kind) {
    case IncidentChange::Kind::Applied: return QStringLiteral("applied");
    case IncidentChange::Kind::Invalid: return QStringLiteral("invalid");
    case IncidentChange::Kind::NotFound: return QStringLiteral("not-found");
    case IncidentChange::Kind::Conflict: return QStringLiteral("conflict");
    case IncidentChange::Kind::Refused: return QStringLiteral("refused");
    }
    return {};
}

QString incidentFiltersJson(const WindowQuery &query)
{
    QStringList stores, kinds;
    for (EventStore s : query.stores)
        stores << eventStoreName(s);
    for (EventKind k : query.kinds)
        kinds << eventKindName(k);
    // Written by hand to keep the keys in one documented order (QJsonObject sorts them).
    auto str = [](const QString &s) { return QString::fromUtf8(QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact)).mid(1).chopped(1); };
    auto arr = [](const QStringList &l) { return QString::fromUtf8(QJsonDocument(names(l)).toJson(QJsonDocument::Compact)); };
    return QStringLiteral("{\"biz_type\":%1,\"tenant\":%2,\"key\":%3,\"task\":%4,\"stores\":%5,\"kinds\":%6,\"statuses\":%7}")
        .arg(str(query.bizType), str(query.tenant), str(query.keySubstring), str(query.taskId), arr(stores), arr(kinds),
             arr(query.statuses));
}

bool readIncidentFiltersJson(const QString &json, WindowQuery *query, QString *error)
{
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8(), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("the incident's filters are not a JSON object");
        return false;
    }
    const QJsonObject o = doc.object();
    WindowQuery q = *query;
    q.bizType = o.value(QStringLiteral("biz_type")).toString();
    q.tenant = o.value(QStringLiteral("tenant")).toString();
    q.keySubstring = o.value(QStringLiteral("key")).toString();
    q.taskId = o.value(QStringLiteral("task")).toString(); // absent in incidents saved before the task filter
    q.stores.clear();
    q.kinds.clear();
    q.statuses.clear();
    for (const QJsonValue &v : o.value(QStringLiteral("stores")).toArray()) {
        const auto s = eventStoreFromName(v.toString());
        if (!s) {
            *error = QStringLiteral("unknown store \"%1\" in the incident's filters").arg(v.toString());
            return false;
        }
        q.stores << *s;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("kinds")).toArray()) {
        const auto k = eventKindFromName(v.toString());
        if (!k) {
            *error = QStringLiteral("unknown kind \"%1\" in the incident's filters").arg(v.toString());
            return false;
        }
        q.kinds << *k;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("statuses")).toArray())
        q.statuses << v.toString();
    *query = q;
    return true;
}

QString incidentFiltersText(const WindowQuery &q)
{
    QStringList parts;
    if (!q.bizType.isEmpty())
        parts << QStringLiteral("biz_type %1").arg(q.bizType);
    if (!q.tenant.isEmpty())
        parts << QStringLiteral("tenant %1").arg(q.tenant);
    if (!q.keySubstring.isEmpty())
        parts << QStringLiteral("key contains \"%1\"").arg(q.keySubstring);
    if (!q.taskId.isEmpty())
        parts << QStringLiteral("task %1").arg(q.taskId);
    QStringList names;
    for (EventStore s : q.stores)
        names << eventStoreName(s);
    if (!names.isEmpty())
        parts << QStringLiteral("stores %1").arg(names.join(QStringLiteral(", ")));
    names.clear();
    for (EventKind k : q.kinds)
        names << eventKindName(k);
    if (!names.isEmpty())
        parts << QStringLiteral("kinds %1").arg(names.join(QStringLiteral(", ")));
    if (!q.statuses.isEmpty())
        parts << QStringLiteral("statuses %1").arg(q.statuses.join(QStringLiteral(", ")));
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral("; "));
}

QString pinnedEventLine(const IncidentPin &p)
{
    if (!p.event)
        return QStringLiteral("(no longer in the %1 store)").arg(eventStoreName(storeOf(p.kind)));
    const WindowEvent &e = *p.event;
    QStringList parts;
    for (const QString &s : {e.status, e.idemKey, e.detail})
        if (!s.isEmpty())
            parts << s;
    if (!e.actor.isEmpty())
        parts << QStringLiteral("by ") + e.actor;
    return parts.join(QLatin1Char(' '));
}

QString checkIncidentDraft(const QString &title, const WindowQuery &query)
{
    if (title.trimmed().isEmpty())
        return QStringLiteral("the title is empty");
    if (title.size() > kIncidentTitleMaxChars)
        return QStringLiteral("the title is longer than %1 characters (%2)").arg(kIncidentTitleMaxChars).arg(title.size());
    if (query.from >= query.to)
        return QStringLiteral("the window's start must be before its end");
    return {};
}

QString checkIncidentNote(const QString &text, int limit)
{
    const QString what = limit == kIncidentPinNoteMaxChars ? QStringLiteral("the pin's note") : QStringLiteral("the note");
    if (text.trimmed().isEmpty())
        return QStringLiteral("%1 is empty").arg(what);
    if (text.size() > limit)
        return QStringLiteral("%1 is longer than %2 characters (%3)").arg(what).arg(limit).arg(text.size());
    return {};
}

QFuture<Outcome<IncidentChange>> createIncident(Workspace &workspace, const QString &title, const WindowQuery &query,
                                                const QString &operatorName)
{
    if (const QString bad = checkIncidentDraft(title, query); !bad.isEmpty())
        return ready(IncidentChange::Kind::Invalid, 0, bad);
    if (auto refused = readOnlyRefusal(workspace, 0))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    const QString t = title.trimmed();
    return write(workspace, [=](DbSession &s) { return incident_sql::create(s, t, query, op); });
}

QFuture<Outcome<QVector<Incident>>> listIncidents(Workspace &workspace, bool all, int limit)
{
    return workspace.worker(DbRole::Idempotency).run<QVector<Incident>>([=](DbSession &s) { return incident_sql::list(s, all, limit); });
}

QFuture<Outcome<std::optional<IncidentDetail>>> readIncident(Workspace &workspace, qint64 id)
{
    using Result = Outcome<std::optional<IncidentDetail>>;
    Workspace *ws = &workspace;
    QThreadPool *pool = workspace.mergePool();
    return continueWith(workspace.worker(DbRole::Idempotency)
        .run<std::optional<IncidentDetail>>([id](DbSession &s) { return incident_sql::read(s, id); }), pool, [ws, pool](Result read) -> QFuture<Result> {
            if (!read.ok() || !*read.value || read.value->value().pins.isEmpty())
                return QtFuture::makeReadyFuture(read);
            // Each pin's event again from its own store: one job per database role.
            IncidentDetail detail = **read.value;
            const WorkspaceConfig config = ws->config();
            QHash<int, QVector<int>> byRole;
            for (int i = 0; i < detail.pins.size(); ++i)
                byRole[int(roleOf(detail.pins[i].kind))] << i;
            QList<QFuture<Outcome<QVector<std::optional<WindowEvent>>>>> parts;
            QVector<QVector<int>> indexes;
            for (auto it = byRole.cbegin(); it != byRole.cend(); ++it) {
                QVector<IncidentPin> pins;
                for (int i : it.value())
                    pins << detail.pins[i];
                indexes << it.value();
                parts << ws->worker(DbRole(it.key())).run<QVector<std::optional<WindowEvent>>>([config, pins](DbSession &s) {
                    QVector<std::optional<WindowEvent>> events;
                    for (const IncidentPin &p : pins)
                        events << window_sql::readEvent(s, config, p.kind, p.eventId);
                    return events;
                });
            }
            QList<QFuture<void>> all;
            for (const auto &f : std::as_const(parts))
                all << QFuture<void>(f);
            return continueAfterAll(all, pool, [detail, parts, indexes]() mutable -> Result {
                for (int p = 0; p < parts.size(); ++p) {
                    const auto o = parts[p].result();
                    if (!o.ok())
                        return Result::failure(*o.error);
                    for (int j = 0; j < indexes[p].size(); ++j)
                        detail.pins[indexes[p][j]].event = o->at(j);
                }
                return Result::success(detail);
            });
        });
}

QString pinOutsideIncident(qint64 incidentId, const WindowQuery &query, const WindowEvent &event, bool passesFilters)
{
    const QString name = QStringLiteral("%1 %2").arg(eventKindName(event.kind), event.id);
    if (!selectedKinds(query).contains(event.kind)) {
        QStringList kinds;
        for (EventKind k : selectedKinds(query))
            kinds << eventKindName(k);
        return QStringLiteral("incident %1 covers no %2 events (its kinds: %3): %4 not pinned")
            .arg(incidentId)
            .arg(eventKindName(event.kind), kinds.join(QStringLiteral(", ")), name);
    }
    if (event.at < query.from || event.at >= query.to)
        return QStringLiteral("%1 at %2 is outside incident %3's window [%4, %5): not pinned")
            .arg(name, event.atText)
            .arg(incidentId)
            .arg(formatUtcMicros(query.from), formatUtcMicros(query.to));
    if (!passesFilters)
        return QStringLiteral("%1 does not pass incident %2's filters (%3): not pinned").arg(name).arg(incidentId).arg(incidentFiltersText(query));
    return QString();
}

QFuture<Outcome<IncidentChange>> pinEvent(Workspace &workspace, qint64 incidentId, EventKind kind, const QString &eventId,
                                          const QString &note, const QString &operatorName)
{
    if (eventId.trimmed().isEmpty())
        return ready(IncidentChange::Kind::Invalid, incidentId, QStringLiteral("the event id is empty"));
    if (!note.isEmpty())
        if (const QString bad = checkIncidentNote(note, kIncidentPinNoteMaxChars); !bad.isEmpty())
            return ready(IncidentChange::Kind::Invalid, incidentId, bad);
    if (auto refused = readOnlyRefusal(workspace, incidentId))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    const WorkspaceConfig config = workspace.config();
    Workspace *ws = &workspace;
    QThreadPool *pool = workspace.mergePool();
    using Event = std::optional<WindowEvent>;
    // The incident's window first (no such incident: the write says so), then the event from
    // its own store, as it is and through the incident's filters: a pin names a row that
    // exists, in the incident's window, kinds and filters (DESIGN.md §7 "Incidents").
    return continueWith(workspace.worker(DbRole::Idempotency)
        .run<std::optional<IncidentDetail>>([incidentId](DbSession &s) { return incident_sql::read(s, incidentId); }), pool, [=](Outcome<std::optional<IncidentDetail>> incident) -> QFuture<Outcome<IncidentChange>> {
            if (!incident.ok())
                return QtFuture::makeReadyFuture(Outcome<IncidentChange>::failure(*incident.error));
            const std::optional<WindowQuery> query =
                *incident.value ? std::optional<WindowQuery>(incident.value->value().incident.query) : std::nullopt;
            return continueWith(ws->worker(roleOf(kind))
                .run<std::pair<Event, Event>>([=](DbSession &s) {
                    Event plain = window_sql::readEvent(s, config, kind, eventId);
                    Event filtered = plain && query ? window_sql::readEvent(s, config, kind, eventId, *query) : plain;
                    return std::make_pair(plain, filtered);
                }), pool, [=](Outcome<std::pair<Event, Event>> event) -> QFuture<Outcome<IncidentChange>> {
                    if (!event.ok())
                        return QtFuture::makeReadyFuture(Outcome<IncidentChange>::failure(*event.error));
                    if (!event.value->first)
                        return ready(IncidentChange::Kind::NotFound, incidentId,
                                     QStringLiteral("no %1 event with id %2").arg(eventKindName(kind), eventId));
                    const WindowEvent e = *event.value->first;
                    if (query) {
                        const QString refused = pinOutsideIncident(incidentId, *query, e, event.value->second.has_value());
                        if (!refused.isEmpty())
                            return ready(IncidentChange::Kind::Invalid, incidentId, refused);
                    }
                    return write(*ws, [=](DbSession &s) { return incident_sql::pin(s, incidentId, e, note, op); });
                });
        });
}

QFuture<Outcome<IncidentChange>> unpinEvent(Workspace &workspace, qint64 incidentId, EventKind kind, const QString &eventId,
                                            const QString &operatorName)
{
    if (auto refused = readOnlyRefusal(workspace, incidentId))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    return write(workspace, [=](DbSession &s) { return incident_sql::unpin(s, incidentId, kind, eventId, op); });
}

QFuture<Outcome<IncidentChange>> addIncidentNote(Workspace &workspace, qint64 incidentId, const QString &text,
                                                 std::optional<EventKind> eventKind, const QString &eventId,
                                                 const QString &operatorName)
{
    if (const QString bad = checkIncidentNote(text); !bad.isEmpty())
        return ready(IncidentChange::Kind::Invalid, incidentId, bad);
    if (eventKind && eventId.trimmed().isEmpty())
        return ready(IncidentChange::Kind::Invalid, incidentId, QStringLiteral("the event id is empty"));
    if (auto refused = readOnlyRefusal(workspace, incidentId))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    return write(workspace, [=](DbSession &s) { return incident_sql::note(s, incidentId, text, eventKind, eventId, op); });
}

QFuture<Outcome<IncidentChange>> closeIncident(Workspace &workspace, qint64 incidentId, const QString &operatorName)
{
    if (auto refused = readOnlyRefusal(workspace, incidentId))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    return write(workspace, [=](DbSession &s) { return incident_sql::setOpen(s, incidentId, false, op); });
}

QFuture<Outcome<IncidentChange>> reopenIncident(Workspace &workspace, qint64 incidentId, const QString &operatorName)
{
    if (auto refused = readOnlyRefusal(workspace, incidentId))
        return *refused;
    const QString op = operatorOf(workspace, operatorName);
    return write(workspace, [=](DbSession &s) { return incident_sql::setOpen(s, incidentId, true, op); });
}

} // namespace triage
