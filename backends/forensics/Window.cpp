// A time window across every store (DESIGN.md §7): names, the merge of per-kind streams,
// and the services that run the streams on the stores' workers.
#include "Window.h"

#include "FutureChain.h"
#include "Workspace.h"

#include <QDateTime>

#include <algorithm>

namespace triage {

namespace {

struct KindInfo {
    EventKind kind;
    EventStore store;
    DbRole role; ///< the database the stream reads
    const char *name;
};

constexpr KindInfo kKinds[] = {
    {EventKind::RecordCreated, EventStore::Idempotency, DbRole::Idempotency, "record.created"},
    {EventKind::RecordUpdated, EventStore::Idempotency, DbRole::Idempotency, "record.updated"},
    {EventKind::IntentAttempt, EventStore::Intent, DbRole::Intent, "intent.attempt"},
    {EventKind::TicketCreated, EventStore::Ticket, DbRole::Ticket, "ticket.created"},
    {EventKind::Audit, EventStore::Console, DbRole::Idempotency, "audit"},
    {EventKind::Compensation, EventStore::Console, DbRole::Intent, "compensation"},
    {EventKind::CompensationAttempt, EventStore::Console, DbRole::Intent, "compensation.attempt"},
};

const KindInfo &info(EventKind kind)
{
    return kKinds[int(kind)];
}

} // namespace

QString eventStoreName(EventStore store)
{
    switch (store) {
    case EventStore::Idempotency: return QStringLiteral("idempotency");
    case EventStore::Intent: return QStringLiteral("intent");
    case EventStore::Ticket: return QStringLiteral("ticket");
    case EventStore::Console: return QStringLiteral("console");
    }
    return {};
}

std::optional<EventStore> eventStoreFromName(const QString &name)
{
    for (EventStore s : {EventStore::Idempotency, EventStore::Intent, EventStore::Ticket, EventStore::Console})
        if (eventStoreName(s).compare(name.trimmed(), Qt::CaseInsensitive) == 0)
            return s;
    return std::nullopt;
}

QString eventKindName(EventKind kind)
{
    return QLatin1String(info(kind).name);
}

std::optional<EventKind> eventKindFromName(const QString &name)
{
    for (const KindInfo &k : kKinds)
        if (QLatin1String(k.name).compare(name.trimmed(), Qt::CaseInsensitive) == 0)
            return k.kind;
    return std::nullopt;
}

EventStore storeOf(EventKind kind)
{
    return info(kind).store;
}

DbRole roleOf(EventKind kind)
{
    return info(kind).role;
}

QVector<EventKind> allEventKinds()
{
    QVector<EventKind> all;
    for (const KindInfo &k : kKinds)
        all << k.kind;
    return all;
}

QVector<EventKind> selectedKinds(const WindowQuery &query)
{
    QVector<EventKind> kinds;
    for (EventKind k : allEventKinds())
        if ((query.kinds.isEmpty() || query.kinds.contains(k)) && (query.stores.isEmpty() || query.stores.contains(storeOf(k))))
            kinds << k;
    return kinds;
}

bool WindowCursor::atEnd() const
{
    for (const StreamCursor &s : streams)
        if (!s.done)
            return false;
    return true;
}

bool windowOrderBefore(const WindowEvent &a, const WindowEvent &b)
{
    if (a.at != b.at)
        return a.at < b.at;
    if (a.store != b.store)
        return a.store < b.store;
    return a.kind < b.kind;
}

WindowPage mergeWindowStreams(const QVector<QVector<WindowEvent>> &streams, const QVector<QStringList> &cursorTexts,
                              const QVector<EventKind> &kinds, const QVector<bool> &full, const WindowCursor &from,
                              int limit)
{
    WindowPage page;
    page.next = from;
    QVector<int> taken(streams.size(), 0);
    // A k-way merge over the heads: each stream is in its own (time, id) order already.
    while (limit <= 0 || page.events.size() < limit) {
        int best = -1;
        for (int i = 0; i < streams.size(); ++i) {
            if (taken[i] >= streams[i].size())
                continue;
            if (best < 0 || windowOrderBefore(streams[i][taken[i]], streams[best][taken[best]]))
                best = i;
        }
        if (best < 0)
            break;
        // A stream that returned a full page and has been used up may hold rows before the
        // other heads: the page must stop here (its next rows come with the next page).
        page.events << streams[best][taken[best]];
        ++taken[best];
        if (taken[best] == streams[best].size() && full[best])
            break;
    }
    for (int i = 0; i < streams.size(); ++i) {
        StreamCursor &c = page.next.streams[int(kinds[i])];
        if (taken[i] > 0) {
            c.started = true;
            c.time = cursorTexts[i][taken[i] - 1];
            c.id = streams[i][taken[i] - 1].id;
        }
        c.done = !full[i] && taken[i] == streams[i].size();
    }
    page.end = page.next.atEnd();
    return page;
}

QFuture<Outcome<WindowPage>> readWindowPage(Workspace &workspace, const WindowQuery &query, const WindowCursor &cursor,
                                            int limit)
{
    struct Part {
        QVector<WindowEvent> events;
        QStringList cursors;
        QString note;
    };
    const WorkspaceConfig config = workspace.config();
    QVector<EventKind> kinds;
    QList<QFuture<Outcome<Part>>> parts;
    WindowCursor from = cursor;
    const QVector<EventKind> selected = selectedKinds(query);
    for (EventKind k : allEventKinds())
        if (!selected.contains(k))
            from.streams[int(k)].done = true;
    for (EventKind k : selected) {
        const StreamCursor c = from.streams[int(k)];
        if (c.done)
            continue;
        kinds << k;
        parts << workspace.reader(info(k).role).run<Part>([=](DbSession &s) {
            Part p;
            p.events = window_sql::readStream(s, config, k, query, c, false, limit, &p.cursors, &p.note);
            return p;
        });
    }
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, workspace.mergePool(), [=]() -> Outcome<WindowPage> {
        QVector<QVector<WindowEvent>> streams;
        QVector<QStringList> cursors;
        QVector<bool> full;
        QStringList notes;
        for (const auto &f : parts) {
            const Outcome<Part> o = f.result(); // finished
            if (!o.ok())
                return Outcome<WindowPage>::failure(*o.error);
            streams << o->events;
            cursors << o->cursors;
            full << (limit > 0 && o->events.size() >= limit);
            if (!o->note.isEmpty())
                notes << o->note;
        }
        WindowPage page = mergeWindowStreams(streams, cursors, kinds, full, from, limit);
        page.notes = notes;
        return Outcome<WindowPage>::success(std::move(page));
    });
}

QFuture<Outcome<QVector<WindowEvent>>> readSettlingTail(Workspace &workspace, const WindowQuery &query, int limit)
{
    const WorkspaceConfig config = workspace.config();
    QList<QFuture<Outcome<QVector<WindowEvent>>>> parts;
    for (EventKind k : selectedKinds(query))
        parts << workspace.reader(info(k).role).run<QVector<WindowEvent>>([=](DbSession &s) {
            return window_sql::readStream(s, config, k, query, StreamCursor{}, true, limit, nullptr, nullptr);
        });
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, workspace.mergePool(), [=]() -> Outcome<QVector<WindowEvent>> {
        QVector<WindowEvent> events;
        for (const auto &f : parts) {
            const auto o = f.result();
            if (!o.ok())
                return Outcome<QVector<WindowEvent>>::failure(*o.error);
            events << *o;
        }
        // Each stream is in order; a stable sort keeps a stream's own order within ties.
        std::stable_sort(events.begin(), events.end(), windowOrderBefore);
        return Outcome<QVector<WindowEvent>>::success(std::move(events));
    });
}

namespace window_sql {
StoreClock measureClock(DbSession &session, DbRole role, QString *now)
{
    StoreClock c;
    c.role = role;
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    const QString serverTime = serverNow(session);
    const qint64 after = QDateTime::currentMSecsSinceEpoch();
    c.roundTripMs = after - before;
    const auto server = parseUtcMicros(serverTime);
    c.offsetMs = server ? *server / 1000 - (before + after) / 2 : 0;
    if (now)
        *now = serverTime;
    return c;
}
} // namespace window_sql

QFuture<Outcome<QVector<StoreClock>>> measureStoreClocks(Workspace &workspace)
{
    const WorkspaceConfig config = workspace.config();
    QList<QFuture<Outcome<StoreClock>>> parts;
    QVector<DbRole> measured;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        bool shared = false;
        for (DbRole m : measured)
            shared = shared || config.profile(role).sameDatabase(config.profile(m));
        if (shared)
            continue;
        measured << role;
        parts << workspace.worker(role).run<StoreClock>([role](DbSession &s) { return window_sql::measureClock(s, role); });
    }
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, workspace.mergePool(), [=]() -> Outcome<QVector<StoreClock>> {
        QVector<StoreClock> clocks;
        for (const auto &f : parts) {
            const auto o = f.result();
            if (!o.ok())
                return Outcome<QVector<StoreClock>>::failure(*o.error);
            clocks << *o;
        }
        return Outcome<QVector<StoreClock>>::success(std::move(clocks));
    });
}

} // namespace triage
