#pragma once

#include "DbSession.h"
#include "TimeText.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// Where an event's row lives (DESIGN.md §7). The console's own tables (triage_audit beside
/// the records, triage_compensation* beside the intent log) form the fourth store. The
/// order of the enumerators is the window's tie order after the time.
enum class EventStore { Idempotency, Intent, Ticket, Console };

/// What one event is (DESIGN.md §7 "events"). One stream per kind; the order of the
/// enumerators breaks ties between kinds of one store.
enum class EventKind {
    RecordCreated,       ///< an idempotency record's created_at
    RecordUpdated,       ///< its updated_at, when later than created_at: "to its current status"
    IntentAttempt,       ///< one intent-log row (an attempt: its action and result)
    TicketCreated,       ///< a business row's created_at
    Audit,               ///< a triage_audit row (marks, upstream queries, overrides)
    Compensation,        ///< a triage_compensation row's created_at (started)
    CompensationAttempt, ///< a triage_compensation_attempt row (one call to the upstream)
};

/// "idempotency", "intent", "ticket", "console".
QString eventStoreName(EventStore store);
std::optional<EventStore> eventStoreFromName(const QString &name);
/// "record.created", "record.updated", "intent.attempt", "ticket.created", "audit",
/// "compensation", "compensation.attempt".
QString eventKindName(EventKind kind);
std::optional<EventKind> eventKindFromName(const QString &name);
EventStore storeOf(EventKind kind);
/// The database a kind's stream reads (the console's rows live beside the records or the intent log).
DbRole roleOf(EventKind kind);
/// Every kind, in tie order.
QVector<EventKind> allEventKinds();

/// One row-level fact with a time (DESIGN.md §7). Values are as stored: `id` is the row's
/// id as text (an opaque business id for tickets), `status` the stored status read through
/// the mapping (a record's *current* status: the table keeps no history).
struct WindowEvent {
    UtcMicros at = 0;     ///< the event's instant, µs since the epoch, UTC
    QString atText;       ///< canonical ISO UTC text of `at` ("2026-12-01T02:10:00.000000Z")
    EventStore store = EventStore::Idempotency;
    EventKind kind = EventKind::RecordCreated;
    QString id;           ///< the row's id in its table
    QString idemKey;      ///< the idempotency key (the compensation's source key); "" when NULL
    QString bizType;      ///< records and compensations; "" elsewhere
    QString status;       ///< record status name / intent status / ticket status / audit outcome / compensation status
    QString actor;        ///< intent actor, audit operator, compensation operator; "" when none
    QString detail;       ///< one line: the intent's action, the ticket's title, the audit's action and target state, …
    /// Newer than the store's watermark (its now() minus the lookback): a later commit may
    /// still add events before it, so it is re-read, never final (DESIGN.md §7).
    bool settling = false;
};

/// Which events a window holds (DESIGN.md §7). Times are UTC; `from` is included, `to`
/// excluded. Empty filters select everything.
struct WindowQuery {
    UtcMicros from = 0;
    UtcMicros to = 0;
    QString bizType;           ///< records and compensations by column; intents and tickets by their key's record when in the same database
    QString tenant;            ///< a tenant column where mapped, else the biz_type's key pattern
    QString keySubstring;      ///< case-sensitive substring of the idempotency key
    QVector<EventStore> stores; ///< empty: all four
    QVector<EventKind> kinds;   ///< empty: all
    /// Statuses: console names in any case (SUCCESS, escalated, …: the mapping's spellings),
    /// or values exactly as shown (a ticket's stored status, an audit outcome such as applied).
    /// Record events match the record's current status.
    QStringList statuses;
    /// Seconds before each store's now() within which events are still settling.
    int lookbackS = 60;
};

/// The kinds `query` reads: its kinds, within its stores.
QVector<EventKind> selectedKinds(const WindowQuery &query);

/// Where one kind's stream stands: after the row (`time` as TimeSql::cursor() reads it,
/// `id`), or not started; `done` when no final row is left.
struct StreamCursor {
    bool started = false;
    bool done = false;
    QString time;
    QString id;
};

/// The position of a paged window: one cursor per kind (indexed by EventKind).
struct WindowCursor {
    StreamCursor streams[7];
    bool atEnd() const;
};

/// One page of final events (older than every store's watermark) in window order
/// `(time, store, kind, id)`, and where the next page starts. Pages neither skip nor repeat
/// a final event; `end` when no final event is left (the settling tail is read apart).
struct WindowPage {
    QVector<WindowEvent> events;
    WindowCursor next;
    bool end = false;
    QStringList notes; ///< filters a stream could not apply ("biz_type filter not applied to …")
};

/// One store's clock against this machine's (DESIGN.md §7 "clock skew").
struct StoreClock {
    DbRole role = DbRole::Idempotency;
    qint64 offsetMs = 0;  ///< server now() minus the local clock at the round trip's middle
    qint64 roundTripMs = 0;
};

/// Window order: `a` before `b` by (at, store, kind); within one kind the stream's own order
/// (its SQL's ORDER BY time, id) decides, which callers keep by merging stably.
bool windowOrderBefore(const WindowEvent &a, const WindowEvent &b);

/// Merges per-kind streams (each in its own order, each holding up to `limit` rows after its
/// cursor; `full[k]` when stream k returned `limit` rows, so more may follow) into the next
/// page of at most `limit` events, advancing each stream's cursor over what the page took
/// (`cursorOf` gives a taken event's cursor text). Pure; unit-tested without a database.
WindowPage mergeWindowStreams(const QVector<QVector<WindowEvent>> &streams, const QVector<QStringList> &cursorTexts,
                              const QVector<EventKind> &kinds, const QVector<bool> &full, const WindowCursor &from,
                              int limit);

namespace window_sql {
/// One stream's next rows on `session` (the store `kind` lives in): final rows (older than
/// the store's now() minus query.lookbackS) after `cursor` when `settling` is false, or the
/// settling rows of the window when true; at most `limit` (0 = no limit), in (time, id)
/// order. `*cursorTexts` gets each row's cursor text. `*note` is set when a filter could
/// not be applied to this stream. Throws DbException.
QVector<WindowEvent> readStream(DbSession &session, const WorkspaceConfig &config, EventKind kind,
                                const WindowQuery &query, const StreamCursor &cursor, bool settling, int limit,
                                QStringList *cursorTexts, QString *note);
/// The session's server clock as canonical ISO UTC text (its now() at the statement).
QString serverNow(DbSession &session);
/// One now() round trip on `session` (`role`'s store) measured against this machine's clock
/// (DESIGN.md §7 "Clock skew"); `*now` gets the server's time read (canonical ISO UTC).
StoreClock measureClock(DbSession &session, DbRole role, QString *now = nullptr);
} // namespace window_sql

/// The next page of final events of `query` after `cursor` (DESIGN.md §7): each selected
/// stream reads up to `limit` rows on its store's worker, then mergeWindowStreams(). The
/// first store error fails the page.
QFuture<Outcome<WindowPage>> readWindowPage(Workspace &workspace, const WindowQuery &query, const WindowCursor &cursor,
                                            int limit);

/// The settling tail of `query` (events newer than each store's watermark, up to `limit`
/// per stream, 0 = all) in window order, each `settling`. Read again whenever shown.
QFuture<Outcome<QVector<WindowEvent>>> readSettlingTail(Workspace &workspace, const WindowQuery &query, int limit);

/// Each distinct store's clock offset against this machine (one `now()` round trip each);
/// the roles sharing one database share one measurement.
QFuture<Outcome<QVector<StoreClock>>> measureStoreClocks(Workspace &workspace);

/// Clock offsets above this (ms) make cross-store order approximate: the console warns.
constexpr qint64 kClockSkewWarnMs = 1000;

} // namespace triage
