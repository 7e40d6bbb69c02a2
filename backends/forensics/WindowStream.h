#pragma once
// Inside backends/forensics only: one event stream as SQL, shared by the window's pages
// (WindowSql.cpp) and its summary (WindowSummary.cpp).

#include "SchemaSql.h"
#include "Window.h"

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
/// through `b`; `*note` set when a filter cannot apply. Throws DbException.
std::optional<StreamSql> streamFor(DbSession &session, const WorkspaceConfig &config, EventKind kind,
                                   const WindowQuery &query, SqlBuilder &b, QString *note);

} // namespace triage::window_sql
