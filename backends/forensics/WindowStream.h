#pragma once
// Inside backends/forensics only: one event stream as SQL, shared by the window's pages
// (WindowSql.cpp) and its summary (WindowSummary.cpp).

#include "SchemaSql.h"
#include "Window.h"

#include <QSqlQuery>

#include <optional>

namespace triage::window_sql {

/// One stream as SQL: its table (with alias), columns and time fragments. Columns are
/// qualified; `status` etc. are expressions selected as they are.
struct StreamSql {
    QString from;      ///< "<table> x" (with a join for compensation attempts)
    QString id, key, time, bizType, status, actor, detail; ///< expressions ("NULL" when none)
    QString tenant = QStringLiteral("NULL"); ///< a tenant column (records, tickets) where mapped
    QString idTable, idColumn; ///< for an opaque id's bind value (tickets)
    TimeSql clock;
    QStringList where; ///< the stream's own conditions (record updates: later than created)
};

/// One kind's stream as SQL with the query's filters and the window's bounds in `where`
/// (no watermark, no cursor), columns aliased "x" (and "c" for a compensation attempt's
/// compensation); nullopt when the console table it reads does not exist. Values bound
/// through `b`; `*note` set when a filter cannot apply. `bounded` false leaves the window's
/// bounds out (one event read by its id, readEvent()). Throws DbException.
std::optional<StreamSql> streamFor(DbSession &session, const WorkspaceConfig &config, EventKind kind,
                                   const WindowQuery &query, SqlBuilder &b, QString *note, bool bounded = true);

/// The select list of a stream's events: id, key, biz_type, status, actor, detail, the
/// time's canonical text and its cursor text, in that order (on SQLite key, actor and detail
/// as bytes, for textOf() to escape what is not UTF-8).
QString eventColumns(const StreamSql &s, const SqlDialect &dialect);
/// The event a row selected with eventColumns() describes (statuses read through the
/// mapping; a record.created event's current status in its detail, DESIGN.md §7 "Honesty").
/// `sql`: the three agents' tables as mapped, built once per statement.
struct EventSql {
    RecordSql records;
    IntentSql intents;
    TicketSql tickets;
};
WindowEvent eventFrom(const QSqlQuery &q, const EventSql &sql, EventKind kind, bool settling);

/// The event of `kind` whose row id is `id` (its text as WindowEvent::id gives it: an opaque
/// business id for tickets, a decimal integer elsewhere), as a window would list it, whatever
/// its time; nullopt when no such row (or, for record.updated, when the record was never
/// updated), or when the console table of `kind` does not exist. With `filters`, also nullopt
/// when the row does not pass their biz_type, tenant, key and status filters (their window
/// and kinds are not applied: an incident's pin check, Incident.cpp). Throws DbException.
std::optional<WindowEvent> readEvent(DbSession &session, const WorkspaceConfig &config, EventKind kind, const QString &id,
                                     const WindowQuery &filters = WindowQuery{});

} // namespace triage::window_sql
