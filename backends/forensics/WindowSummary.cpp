// The window summary (DESIGN.md §7): aggregate statements over each event stream, on the
// servers; the console reads only the aggregates.
#include "WindowSummary.h"

#include "ColumnText.h"
#include "FutureChain.h"
#include "WindowStream.h"
#include "Workspace.h"

#include <QSqlQuery>

#include <functional>

namespace triage {

namespace {

using window_sql::StreamSql;

/// "SELECT <columns(stream)> FROM <stream> WHERE <stream's conditions AND extra(stream)>
/// <tail>" for `kind`'s stream of `query`, values bound through `b`; nullopt when the
/// stream's table does not exist.
std::optional<QString> streamSelect(DbSession &session, const WorkspaceConfig &config, EventKind kind, const WindowQuery &query,
                                    SqlBuilder &b, const std::function<QString(const StreamSql &)> &columns,
                                    const std::function<QStringList(const StreamSql &, SqlBuilder &)> &extra = {},
                                    const std::function<QString(const StreamSql &)> &tail = {})
{
    const auto s = window_sql::streamFor(session, config, kind, query, b, nullptr);
    if (!s)
        return std::nullopt;
    QStringList where = s->where;
    if (extra)
        where << extra(*s, b);
    QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE %3").arg(columns(*s), s->from, where.join(QStringLiteral(" AND ")));
    if (tail)
        sql += QLatin1Char(' ') + tail(*s);
    return sql;
}

/// The statement counting `kind`'s events of `query` and their distinct non-NULL keys (one row:
/// events, keys), values bound through `b`; nullopt when the stream's table does not exist.
/// On PostgreSQL a GROUP BY inside (hashed: 21 ms on 96,000 attempts where COUNT(DISTINCT),
/// which sorts, took 59 ms); elsewhere COUNT(DISTINCT).
std::optional<QString> countsSelect(DbSession &session, const WorkspaceConfig &config, EventKind kind, const WindowQuery &query,
                                    SqlBuilder &b, bool eventsToo)
{
    if (session.dialect().kind() != Dialect::PostgreSql)
        return streamSelect(session, config, kind, query, b, [eventsToo](const StreamSql &s) {
            return eventsToo ? QStringLiteral("COUNT(*), COUNT(DISTINCT %1)").arg(s.key) : QStringLiteral("COUNT(DISTINCT %1)").arg(s.key);
        });
    const auto inner = streamSelect(
        session, config, kind, query, b, [](const StreamSql &s) { return QStringLiteral("%1 AS k, COUNT(*) AS n").arg(s.key); }, {},
        [](const StreamSql &s) { return QStringLiteral("GROUP BY %1").arg(s.key); });
    if (!inner)
        return std::nullopt;
    return (eventsToo ? QStringLiteral("SELECT COALESCE(SUM(n), 0), COUNT(k) FROM (%1) g") : QStringLiteral("SELECT COUNT(k) FROM (%1) g"))
        .arg(*inner);
}

/// The per-minute statement of `kind`'s events of `query`: rows (minute "YYYY-MM-DDTHH:MM" UTC,
/// events) by minute. A PostgreSQL timestamp column is grouped by date_trunc and formatted once
/// per minute (to_char on every row made it 64 ms on 96,000 attempts, 20 ms so); other columns
/// and dialects by the canonical text's first 16 characters.
std::optional<QString> perMinuteSelect(DbSession &session, const WorkspaceConfig &config, EventKind kind, const WindowQuery &query,
                                       SqlBuilder &b)
{
    const auto native = [](const StreamSql &s) {
        return s.clock.dialect() == Dialect::PostgreSql && s.clock.mapping().encoding == TimeEncoding::Native;
    };
    // Every row of a group is in the same minute: the text of its MIN() names it.
    return streamSelect(
        session, config, kind, query, b,
        [&](const StreamSql &s) {
            return QStringLiteral("SUBSTR(%1, 1, 16), COUNT(*)").arg(s.clock.text(native(s) ? QStringLiteral("MIN(%1)").arg(s.time) : s.time));
        },
        {},
        [&](const StreamSql &s) {
            return native(s) ? QStringLiteral("GROUP BY date_trunc('minute', %1 AT TIME ZONE 'UTC') ORDER BY 1").arg(s.time)
                             : QStringLiteral("GROUP BY 1 ORDER BY 1");
        });
}

/// `expr` grouped exactly: BINARY on MySQL/MariaDB, whose collations would merge "Ticket"
/// and "ticket" (DESIGN.md §10); as it is elsewhere.
QString exactGroup(Dialect d, const QString &expr)
{
    return d == Dialect::MySql ? QStringLiteral("BINARY ") + expr : expr;
}

/// "<name>, COUNT(*)" rows, most first (ties by name), at most 5: grouped exactly by `expr`.
QVector<NameCount> topNames(DbSession &session, const WorkspaceConfig &config, EventKind kind, const WindowQuery &query,
                            const std::function<QString(const StreamSql &)> &expr,
                            const std::function<QStringList(const StreamSql &, SqlBuilder &)> &extra = {})
{
    const Dialect d = session.dialect().kind();
    SqlBuilder b;
    const auto sql = streamSelect(
        session, config, kind, query, b, [&](const StreamSql &s) { return QStringLiteral("MIN(%1), COUNT(*)").arg(expr(s)); }, extra,
        [&](const StreamSql &s) {
            return QStringLiteral("GROUP BY %1 ORDER BY 2 DESC, 1 LIMIT 5").arg(exactGroup(d, expr(s)));
        });
    QVector<NameCount> out;
    if (!sql)
        return out;
    QSqlQuery q = session.exec(*sql, b);
    while (q.next())
        out.append({columnText(q.value(0)).value_or(QStringLiteral("NULL")), q.value(1).toLongLong()});
    return out;
}

/// The first column of the one row of a COUNT statement (0 when the table is absent).
qint64 countOf(DbSession &session, const std::optional<QString> &sql, const SqlBuilder &b)
{
    if (!sql)
        return 0;
    QSqlQuery q = session.exec(*sql, b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace

namespace window_sql {

void summarize(DbSession &session, const WorkspaceConfig &config, const WindowQuery &query, const QVector<EventKind> &kinds,
               WindowSummary *summary)
{
    for (EventKind kind : kinds) {
        SqlBuilder b;
        if (const auto sql = countsSelect(session, config, kind, query, b, true)) {
            QSqlQuery q = session.exec(*sql, b);
            if (q.next()) {
                summary->events[int(kind)] = q.value(0).toLongLong();
                summary->keys[int(kind)] = q.value(1).toLongLong();
            }
        }
        // Per minute: the canonical UTC text's first 16 characters ("YYYY-MM-DDTHH:MM").
        SqlBuilder m;
        if (const auto sql = perMinuteSelect(session, config, kind, query, m)) {
            QSqlQuery q = session.exec(*sql, m);
            while (q.next())
                summary->perMinute.append({q.value(0).toString(), kind, q.value(1).toLongLong()});
        }
    }
    const auto count = [](const StreamSql &) { return QStringLiteral("COUNT(*)"); };
    const auto counted = [&](SummaryFigure f) { return summaryFigureFilteredOut(query, f).isEmpty(); };
    if (kinds.contains(EventKind::IntentAttempt) && counted(SummaryFigure::UnknownKeys)) {
        WindowQuery unknown = query;
        unknown.statuses = {QStringLiteral("UNKNOWN")};
        SqlBuilder b;
        summary->unknownKeys = countOf(session, countsSelect(session, config, EventKind::IntentAttempt, unknown, b, false), b);
    }
    if (kinds.contains(EventKind::RecordCreated)) {
        WindowQuery processing = query;
        processing.statuses = {QStringLiteral("PROCESSING")};
        SqlBuilder b;
        if (counted(SummaryFigure::StillProcessing))
            summary->stillProcessing = countOf(session, streamSelect(session, config, EventKind::RecordCreated, processing, b, count), b);
        if (config.schema.records.bizType.isEmpty()) {
            // A table without a biz_type column holds one biz_type (DESIGN.md §10).
            if (summary->events[int(EventKind::RecordCreated)] > 0)
                summary->topBizTypes = {{config.schema.records.bizTypeValue, summary->events[int(EventKind::RecordCreated)]}};
        } else {
            summary->topBizTypes = topNames(session, config, EventKind::RecordCreated, query,
                                            [](const StreamSql &s) { return s.bizType; });
        }
    }
    if (kinds.contains(EventKind::TicketCreated)) {
        SqlBuilder b;
        const auto inner = streamSelect(
            session, config, EventKind::TicketCreated, query, b, [](const StreamSql &s) { return s.key; },
            [](const StreamSql &s, SqlBuilder &) { return QStringList{s.key + QStringLiteral(" IS NOT NULL")}; },
            [&](const StreamSql &s) {
                return QStringLiteral("GROUP BY %1 HAVING COUNT(*) > 1").arg(exactGroup(session.dialect().kind(), s.key));
            });
        if (inner)
            summary->duplicateGroups = countOf(session, QStringLiteral("SELECT COUNT(*) FROM (%1) g").arg(*inner), b);
        if (!config.schema.tickets.tenant.isEmpty())
            summary->topTenants = topNames(session, config, EventKind::TicketCreated, query,
                                           [](const StreamSql &s) { return s.tenant; });
    }
    if (kinds.contains(EventKind::Audit) && counted(SummaryFigure::SettledBy)) {
        const Dialect d = session.dialect().kind();
        summary->settledBy = topNames(
            session, config, EventKind::Audit, query,
            [d](const StreamSql &) {
                // triage_audit.to_state holds the record's new state as JSON: the action names
                // the outcome ("alice mark_success").
                return d == Dialect::MySql ? QStringLiteral("CONCAT(x.operator, ' ', x.action)")
                                           : QStringLiteral("(x.operator || ' ' || x.action)");
            },
            [](const StreamSql &, SqlBuilder &b) {
                return QStringList{QStringLiteral("x.action IN (%1, %2)").arg(b.bind(QStringLiteral("mark_success")),
                                                                           b.bind(QStringLiteral("mark_failed"))),
                                   QStringLiteral("x.outcome = %1").arg(b.bind(QStringLiteral("applied")))};
            });
    }
}

} // namespace window_sql

QString summaryFigureFilteredOut(const WindowQuery &query, SummaryFigure figure)
{
    EventKind kind = EventKind::RecordCreated;
    QString status; // the status the figure counts, when a --status filter must include it
    bool exact = false; // the status is a stored value (an audit outcome), not a console name
    switch (figure) {
    case SummaryFigure::UnknownKeys: kind = EventKind::IntentAttempt; status = QStringLiteral("UNKNOWN"); break;
    case SummaryFigure::StillProcessing: kind = EventKind::RecordCreated; status = QStringLiteral("PROCESSING"); break;
    case SummaryFigure::DuplicateGroups: kind = EventKind::TicketCreated; break;
    case SummaryFigure::SettledBy: kind = EventKind::Audit; status = QStringLiteral("applied"); exact = true; break;
    case SummaryFigure::TopBizTypes: kind = EventKind::RecordCreated; break;
    case SummaryFigure::TopTenants: kind = EventKind::TicketCreated; break;
    }
    if (!query.stores.isEmpty() && !query.stores.contains(storeOf(kind)))
        return QStringLiteral("--store: %1 not selected").arg(eventKindName(kind));
    if (!selectedKinds(query).contains(kind))
        return QStringLiteral("--kind: %1 not selected").arg(eventKindName(kind));
    if (!status.isEmpty() && !query.statuses.isEmpty()
        && !query.statuses.contains(status, exact ? Qt::CaseSensitive : Qt::CaseInsensitive))
        return QStringLiteral("--status: %1 not selected").arg(status);
    return QString();
}

QFuture<Outcome<WindowSummary>> summarizeWindow(Workspace &workspace, const WindowQuery &query)
{
    const WorkspaceConfig config = workspace.config();
    QList<QFuture<Outcome<WindowSummary>>> parts;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QVector<EventKind> kinds;
        for (EventKind k : selectedKinds(query))
            if (roleOf(k) == role)
                kinds << k;
        if (kinds.isEmpty())
            continue;
        parts << workspace.reader(role).run<WindowSummary>([=](DbSession &s) {
            WindowSummary part;
            window_sql::summarize(s, config, query, kinds, &part);
            return part;
        });
    }
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, workspace.mergePool(), [parts, query]() -> Outcome<WindowSummary> {
        WindowSummary sum;
        for (int f = 0; f < kSummaryFigures; ++f)
            sum.notCounted[f] = summaryFigureFilteredOut(query, SummaryFigure(f));
        for (const auto &f : parts) {
            const Outcome<WindowSummary> o = f.result();
            if (!o.ok())
                return Outcome<WindowSummary>::failure(*o.error);
            const WindowSummary &p = *o;
            sum.perMinute << p.perMinute;
            for (int k = 0; k < 7; ++k) {
                sum.events[k] += p.events[k];
                sum.keys[k] += p.keys[k];
            }
            sum.unknownKeys += p.unknownKeys;
            sum.stillProcessing += p.stillProcessing;
            sum.duplicateGroups += p.duplicateGroups;
            sum.settledBy << p.settledBy;
            sum.topBizTypes << p.topBizTypes;
            sum.topTenants << p.topTenants;
        }
        std::stable_sort(sum.perMinute.begin(), sum.perMinute.end(), [](const MinuteCount &a, const MinuteCount &b) {
            return a.minute != b.minute ? a.minute < b.minute : a.kind < b.kind;
        });
        return Outcome<WindowSummary>::success(std::move(sum));
    });
}

} // namespace triage
