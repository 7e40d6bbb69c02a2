#pragma once

#include "Window.h"

#include <QFuture>
#include <QString>
#include <QVector>

namespace triage {

/// Events of one kind in one minute of a window (UTC).
struct MinuteCount {
    QString minute; ///< "2026-12-01T02:10" (UTC; the minute's start)
    EventKind kind = EventKind::RecordCreated;
    qint64 events = 0;
};

/// A name and how many rows carry it (biz_types, tenants, operators).
struct NameCount {
    QString name;
    qint64 count = 0;
};

/// The figures of a summary that depend on one kind (and, for some, one status) being in the
/// window: a filter can leave them out, and then they are not counted, never 0 (DESIGN.md §7
/// "summary").
enum class SummaryFigure {
    UnknownKeys,     ///< needs intent.attempt and, under --status, UNKNOWN
    StillProcessing, ///< needs record.created and, under --status, PROCESSING
    DuplicateGroups, ///< needs ticket.created
    SettledBy,       ///< needs audit and, under --status, applied
    TopBizTypes,     ///< needs record.created
    TopTenants,      ///< needs ticket.created
};
constexpr int kSummaryFigures = 6;

/// Why `query` leaves `figure` out of its summary: "" when it is counted, else the filter and
/// what it leaves out ("--kind: intent.attempt not selected", "--store: record.created not
/// selected", "--status: UNKNOWN not selected"). Pure.
QString summaryFigureFilteredOut(const WindowQuery &query, SummaryFigure figure);

/// What a window holds, computed by aggregate SQL on each store (DESIGN.md §7 "summary"):
/// never by reading the window's rows into the console. Every figure obeys the query's
/// filters and covers [from, to) whole (final and settling events alike).
struct WindowSummary {
    QVector<MinuteCount> perMinute;   ///< by minute, then kind; minutes without events are absent
    qint64 events[7] = {};            ///< per EventKind
    qint64 keys[7] = {};              ///< distinct idempotency keys per EventKind (NULL keys not counted)
    qint64 unknownKeys = 0;           ///< distinct keys with an intent attempt UNKNOWN in the window
    qint64 stillProcessing = 0;       ///< records created in the window whose current status is PROCESSING
    qint64 duplicateGroups = 0;       ///< keys with two or more tickets created in the window
    QVector<NameCount> settledBy;     ///< applied marks in the window by "<operator> <action>" ("alice mark_success"), most first
    QVector<NameCount> topBizTypes;   ///< records created in the window by biz_type, most first (at most 5)
    QVector<NameCount> topTenants;    ///< tickets created in the window by tenant column, most first (at most 5; empty without one)
    /// Per SummaryFigure: "" when counted, else why not (summaryFigureFilteredOut()); a figure
    /// not counted holds 0 or nothing, which must not be shown as a count.
    QString notCounted[kSummaryFigures];
    bool counted(SummaryFigure figure) const { return notCounted[int(figure)].isEmpty(); }
};

namespace window_sql {
/// Adds the aggregates of the kinds of `query` that live in `session`'s database to
/// `*summary`. Throws DbException.
void summarize(DbSession &session, const WorkspaceConfig &config, const WindowQuery &query, const QVector<EventKind> &kinds,
               WindowSummary *summary);
} // namespace window_sql

/// The summary of `query`'s window: window_sql::summarize() on each store's worker, merged.
/// The first store error fails it.
QFuture<Outcome<WindowSummary>> summarizeWindow(Workspace &workspace, const WindowQuery &query);

} // namespace triage
