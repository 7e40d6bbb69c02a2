// The per-kind event streams of a window (DESIGN.md §7): one keyset statement per kind on
// the mapped columns (DESIGN.md §10), on the index (time, id) of its table.
#include "Window.h"
#include "WindowStream.h"

#include "BusinessId.h"
#include "BusinessIdSql.h"
#include "Catalog.h"
#include "ColumnText.h"
#include "Queue.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "TextEscape.h"

#include <QMutex>
#include <QSet>
#include <QSqlQuery>

namespace triage {

namespace {

const QString kNull = QStringLiteral("NULL");

/// Condition: text expression `column` is exactly one of `values`.
QString textIn(SqlBuilder &b, Dialect d, const QString &column, const QStringList &values)
{
    QStringList any;
    for (const QString &v : values)
        any << textIs(b, d, column, v);
    return any.isEmpty() ? QStringLiteral("1 = 0") : QLatin1Char('(') + any.join(QStringLiteral(" OR ")) + QLatin1Char(')');
}

/// Expression: the text expressions `parts` joined (CONCAT on MySQL/MariaDB, || elsewhere).
QString concatText(Dialect d, const QStringList &parts)
{
    return d == Dialect::MySql ? QStringLiteral("CONCAT(%1)").arg(parts.join(QStringLiteral(", ")))
                               : QLatin1Char('(') + parts.join(QStringLiteral(" || ")) + QLatin1Char(')');
}

/// True when the console-owned `table` exists in `session`'s database. Once seen it is
/// remembered for the process (init-schema never drops one), so a window page asks the
/// catalog only until the table exists; an absent one is asked again next time, since
/// init-schema may create it meanwhile.
bool consoleTableExists(DbSession &session, const QString &table)
{
    static QMutex mutex;
    static QSet<QString> seen; // "<database URL> <table>"
    const QString key = session.profile().displayUrl() + QLatin1Char(' ') + table;
    {
        const QMutexLocker lock(&mutex);
        if (seen.contains(key))
            return true;
    }
    if (!catalog_sql::tableExists(session, table))
        return false;
    const QMutexLocker lock(&mutex);
    seen.insert(key);
    return true;
}

/// `value` as text (bytes that are not UTF-8 escaped), or "" for NULL.
QString textOf(const QVariant &value)
{
    return decodeStoredText(value).text.value_or(QString());
}

} // namespace

namespace window_sql {

std::optional<StreamSql> streamFor(DbSession &session, const WorkspaceConfig &config, EventKind kind, const WindowQuery &query,
                                    SqlBuilder &b, QString *note, bool bounded)
{
    const Dialect d = session.dialect().kind();
    const SqlDialect &sd = session.dialect();
    const TimeSql native(d, TimeMapping{});
    const QString x = QStringLiteral("x");
    // Console status names in any case ("escalated" is ESCALATED); stored values stay exact.
    QStringList statusNames;
    for (const QString &n : query.statuses)
        statusNames << n.toUpper();
    StreamSql s{{}, {}, {}, {}, kNull, kNull, kNull, kNull, kNull, {}, {}, native, {}};
    QStringList where;
    // Filters applied through the record of the same key (streams without a biz_type):
    // possible only where the record table is in this session's database.
    bool recordsHere = false;
    switch (kind) {
    case EventKind::RecordCreated:
    case EventKind::RecordUpdated: {
        const RecordSql r = config.records(d);
        s.from = r.table + QStringLiteral(" x");
        s.id = qualified(x, r.id);
        s.key = qualified(x, r.key);
        s.time = qualified(x, kind == EventKind::RecordCreated ? r.createdAt : r.updatedAt);
        s.bizType = r.bizType(b, x);
        s.status = r.statuses.read(qualified(x, r.status));
        s.clock = r.time;
        if (!r.tenant.isEmpty())
            s.tenant = qualified(x, r.tenant);
        if (kind == EventKind::RecordUpdated)
            s.where << QStringLiteral("%1 <> %2").arg(qualified(x, r.updatedAt), qualified(x, r.createdAt));
        if (!query.bizType.isEmpty())
            where << r.bizTypeIs(b, query.bizType, x);
        if (!query.tenant.isEmpty()) {
            if (!r.tenant.isEmpty())
                where << textIs(b, d, qualified(x, r.tenant), query.tenant);
            else if (!query.bizType.isEmpty())
                where << queue_sql::tenantCondition(sd, b, s.key, config.bizType(query.bizType).tenantPattern, query.tenant);
            else
                where << queue_sql::tenantOnAnyPattern(sd, b, config, s.key, query.tenant);
        }
        if (!query.statuses.isEmpty())
            where << r.statuses.isAny(b, qualified(x, r.status), statusNames);
        break;
    }
    case EventKind::IntentAttempt: {
        const IntentSql i = config.intents(d);
        s.from = i.table + QStringLiteral(" x");
        s.id = qualified(x, i.id);
        s.key = qualified(x, i.key);
        s.time = qualified(x, i.createdAt);
        s.status = i.statuses.read(qualified(x, i.status));
        s.actor = i.actor.isEmpty() ? kNull : qualified(x, i.actor);
        s.detail = qualified(x, i.action);
        s.clock = i.time;
        recordsHere = config.intent.sameDatabase(config.idempotency);
        if (!query.statuses.isEmpty())
            where << QStringLiteral("(%1 OR %2)").arg(i.statuses.isAny(b, qualified(x, i.status), statusNames),
                                                       textIn(b, d, s.status, query.statuses));
        if (!query.tenant.isEmpty())
            where << queue_sql::tenantOnAnyPattern(sd, b, config, s.key, query.tenant);
        break;
    }
    case EventKind::TicketCreated: {
        const TicketSql t = config.tickets(d);
        s.from = t.table + QStringLiteral(" x");
        s.id = qualified(x, t.id);
        s.key = qualified(x, t.key);
        s.time = qualified(x, t.createdAt);
        s.status = t.statuses.read(qualified(x, t.status));
        s.detail = t.titleOrNull(x);
        s.tenant = t.tenantOrNull(x);
        s.idTable = t.table;
        s.idColumn = t.id;
        s.clock = t.time;
        recordsHere = config.ticket.sameDatabase(config.idempotency);
        if (!query.statuses.isEmpty())
            where << QStringLiteral("(%1 OR %2)").arg(t.statuses.isAny(b, qualified(x, t.status), statusNames),
                                                       textIn(b, d, s.status, query.statuses));
        if (!query.tenant.isEmpty())
            where << (t.tenant.isEmpty() ? queue_sql::tenantOnAnyPattern(sd, b, config, s.key, query.tenant)
                                         : textIs(b, d, qualified(x, t.tenant), query.tenant));
        break;
    }
    case EventKind::Audit:
        if (!consoleTableExists(session, QStringLiteral("triage_audit")))
            return std::nullopt;
        s.from = QStringLiteral("triage_audit x");
        s.id = QStringLiteral("x.id");
        s.key = QStringLiteral("x.idem_key");
        s.time = QStringLiteral("x.at");
        s.status = QStringLiteral("x.outcome");
        s.actor = QStringLiteral("x.operator");
        s.detail = QStringLiteral("x.action"); // to_state is the new state as JSON: the action says it
        recordsHere = true;
        break;
    case EventKind::Compensation:
    case EventKind::CompensationAttempt:
        if (!consoleTableExists(session, QStringLiteral("triage_compensation")))
            return std::nullopt;
        if (kind == EventKind::Compensation) {
            s.from = QStringLiteral("triage_compensation x");
            s.id = QStringLiteral("x.id");
            s.time = QStringLiteral("x.created_at");
            s.status = QStringLiteral("x.status");
            s.actor = QStringLiteral("x.operator");
            s.detail = concatText(d, {QStringLiteral("x.action"), QStringLiteral("' '"), QStringLiteral("x.target"),
                                  QStringLiteral("' '"), QStringLiteral("x.comp_key")});
        } else {
            s.from = QStringLiteral("triage_compensation_attempt x JOIN triage_compensation c ON c.comp_key = x.comp_key");
            s.id = QStringLiteral("x.id");
            s.time = QStringLiteral("x.at");
            s.status = QStringLiteral("x.classification");
            s.detail = concatText(d, {QStringLiteral("x.kind"), QStringLiteral("' '"), QStringLiteral("x.comp_key"),
                                  QStringLiteral("' HTTP '"), QStringLiteral("COALESCE(CAST(x.http_status AS %1), '-')")
                                                                  .arg(d == Dialect::MySql ? QStringLiteral("CHAR")
                                                                                           : QStringLiteral("TEXT"))});
        }
        s.key = kind == EventKind::Compensation ? QStringLiteral("x.source_key") : QStringLiteral("c.source_key");
        s.bizType = kind == EventKind::Compensation ? QStringLiteral("x.biz_type") : QStringLiteral("c.biz_type");
        if (!query.bizType.isEmpty())
            where << textIs(b, d, s.bizType, query.bizType);
        break;
    }
    if (kind == EventKind::Audit || kind == EventKind::Compensation || kind == EventKind::CompensationAttempt) {
        if (!query.statuses.isEmpty())
            where << textIn(b, d, s.status, query.statuses);
        if (!query.tenant.isEmpty())
            where << queue_sql::tenantOnAnyPattern(sd, b, config, s.key, query.tenant);
    }
    if (!query.bizType.isEmpty() && (kind == EventKind::IntentAttempt || kind == EventKind::TicketCreated || kind == EventKind::Audit)) {
        if (recordsHere) {
            const RecordSql r = config.records(d);
            where << QStringLiteral("EXISTS (SELECT 1 FROM %1 r WHERE %2 AND %3)")
                         .arg(r.table, textSame(d, qualified(QStringLiteral("r"), r.key), s.key), r.bizTypeIs(b, query.bizType, QStringLiteral("r")));
        } else if (note) {
            *note = QStringLiteral("biz_type filter not applied to %1 events: that store is not in the records' database")
                        .arg(eventKindName(kind));
        }
    }
    if (!query.taskId.isEmpty()) {
        // The intent log's own rows by column; every other stream through its key's attempts
        // of that task, where the intent log is in this stream's database (DESIGN.md §7).
        const IntentSql i = config.intents(d);
        if (kind == EventKind::IntentAttempt)
            where << textIs(b, d, qualified(x, i.taskId), query.taskId);
        else if (config.intent.sameDatabase(config.profile(roleOf(kind))))
            where << QStringLiteral("EXISTS (SELECT 1 FROM %1 t WHERE %2 AND %3)")
                         .arg(i.table, textSame(d, qualified(QStringLiteral("t"), i.key), s.key),
                              textIs(b, d, qualified(QStringLiteral("t"), i.taskId), query.taskId));
        else if (note)
            *note += (note->isEmpty() ? QString() : QStringLiteral("\n"))
                     + QStringLiteral("task filter not applied to %1 events: that store is not in the intent log's database")
                           .arg(eventKindName(kind));
    }
    if (!query.keySubstring.isEmpty())
        where << QStringLiteral("%1 LIKE %2%3")
                     .arg(exactText(d, s.key), b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(query.keySubstring) + QLatin1Char('%')),
                          SqlDialect::likeEscapeClause());
    // The window, then the watermark (each store's own clock: DESIGN.md §7 "late commits").
    if (!bounded) {
        s.where << where;
        return s;
    }
    where << QStringLiteral("%1 >= %2").arg(s.time, s.clock.param(b.bind(s.clock.boundAt(query.from))));
    where << QStringLiteral("%1 < %2").arg(s.time, s.clock.param(b.bind(s.clock.boundAt(query.to))));
    s.where << where;
    return s;
}

QString eventColumns(const StreamSql &s, const SqlDialect &d)
{
    // SQLite's text API turns bytes that are not UTF-8 into U+FFFD: its texts are read as
    // bytes and escaped (escapeInvalidUtf8(), DESIGN.md §4 "Odd bytes"); PostgreSQL and
    // MariaDB hold valid text only.
    auto raw = [&](const QString &e) { return d.kind() == Dialect::Sqlite && e != kNull ? d.rawText(e) : e; };
    // Where the cursor is the time's text itself (native PostgreSQL and MySQL times), it is
    // read once (tc_cursor NULL): the server formats each row's time once (to_char per row is
    // a measurable part of a page's cost: tests/bench/window_bench.cpp).
    const QString atText = s.clock.text(s.time), cursorText = s.clock.cursor(s.time);
    return QStringList{s.id,
                       raw(s.key) + QStringLiteral(" AS tc_key"),
                       s.bizType + QStringLiteral(" AS tc_biz"),
                       s.status + QStringLiteral(" AS tc_status"),
                       raw(s.actor) + QStringLiteral(" AS tc_actor"),
                       raw(s.detail) + QStringLiteral(" AS tc_detail"),
                       atText + QStringLiteral(" AS tc_at"),
                       (cursorText == atText ? kNull : cursorText) + QStringLiteral(" AS tc_cursor")}
        .join(QStringLiteral(", "));
}

QVector<WindowEvent> readStream(DbSession &session, const WorkspaceConfig &config, EventKind kind,
                                const WindowQuery &query, const StreamCursor &cursor, bool settling, int limit,
                                QStringList *cursorTexts, QString *note)
{
    const Dialect d = session.dialect().kind();
    SqlBuilder b;
    const std::optional<StreamSql> stream = streamFor(session, config, kind, query, b, note);
    if (!stream)
        return {};
    const StreamSql &s = *stream;
    QStringList where = s.where;
    where << QStringLiteral("%1 %2 %3").arg(s.time, settling ? QStringLiteral(">=") : QStringLiteral("<"),
                                           s.clock.nowMinusSeconds(b.bind(query.lookbackS)));
    if (cursor.started && !settling) {
        QVariant id = cursor.id.toLongLong();
        if (!s.idTable.isEmpty())
            id = businessIdBindValue(session, s.idTable, s.idColumn, BusinessId(cursor.id)).value_or(QVariant(cursor.id));
        where << s.clock.keysetAfter(b, s.time, s.id, s.clock.cursorValue(cursor.time), id, false);
    }
    QSqlQuery q = session.exec(selectSql(b, eventColumns(s, session.dialect()), s.from, where, s.time + QStringLiteral(", ") + s.id, limit), b);
    QVector<WindowEvent> events;
    const EventSql sql{config.records(d), config.intents(d), config.tickets(d)};
    while (q.next()) {
        events.append(eventFrom(q, sql, kind, settling));
        if (cursorTexts) // tc_cursor NULL: the cursor is tc_at (eventColumns())
            *cursorTexts << (q.isNull(7) ? q.value(6) : q.value(7)).toString();
    }
    return events;
}

std::optional<WindowEvent> readEvent(DbSession &session, const WorkspaceConfig &config, EventKind kind, const QString &id,
                                     const WindowQuery &filters)
{
    const Dialect d = session.dialect().kind();
    SqlBuilder b;
    const std::optional<StreamSql> stream = streamFor(session, config, kind, filters, b, nullptr, false);
    if (!stream)
        return std::nullopt;
    QVariant idValue;
    if (!stream->idTable.isEmpty()) {
        // An opaque business id, bound by the one rule of BusinessIdSql.h.
        const std::optional<QVariant> v = businessIdBindValue(session, stream->idTable, stream->idColumn, BusinessId(id));
        if (!v)
            return std::nullopt;
        idValue = *v;
    } else {
        bool ok = false;
        const qint64 n = id.toLongLong(&ok);
        if (!ok || QString::number(n) != id)
            return std::nullopt; // not a canonical integer: no row of an integer key has it
        idValue = n;
    }
    QStringList where = stream->where;
    where << QStringLiteral("%1 = %2").arg(stream->id, b.bind(idValue));
    QSqlQuery q = session.exec(selectSql(b, eventColumns(*stream, session.dialect()), stream->from, where, stream->id, 1), b);
    if (!q.next())
        return std::nullopt;
    return eventFrom(q, EventSql{config.records(d), config.intents(d), config.tickets(d)}, kind, false);
}

WindowEvent eventFrom(const QSqlQuery &q, const EventSql &sql, EventKind kind, bool settling)
{
    {
        WindowEvent e;
        e.kind = kind;
        e.store = storeOf(kind);
        e.id = BusinessId::fromColumn(q.value(0)).text();
        e.idemKey = textOf(q.value(1));
        e.bizType = textOf(q.value(2));
        switch (kind) {
        case EventKind::RecordCreated:
        case EventKind::RecordUpdated: {
            const StoredRecordStatus st = StoredRecordStatus::fromMapped(q.value(3), sql.records.map.statuses);
            e.statusUnmapped = !st.known();
            // The table keeps no history: the status at creation is not known (never invent
            // a state); the current one is said as such.
            if (kind == EventKind::RecordCreated) {
                e.statusNow = st.text;
                e.detail = QStringLiteral("now ") + st.text;
            } else {
                e.status = st.text;
            }
            break;
        }
        case EventKind::IntentAttempt:
            e.status = sql.intents.statusName(q.value(3));
            e.statusUnmapped = !q.isNull(3) && !sql.intents.statuses.decode(q.value(3));
            break;
        case EventKind::TicketCreated: {
            // As for a record: the ticket's current status, said as such (DESIGN.md §7 "Honesty").
            e.statusNow = sql.tickets.statusName(q.value(3)).value_or(QStringLiteral("NULL"));
            const QString title = textOf(q.value(5));
            e.detail = title.isEmpty() ? QStringLiteral("now ") + e.statusNow
                                       : QStringLiteral("%1 (now %2)").arg(title, e.statusNow);
            break;
        }
        default: e.status = textOf(q.value(3)); break;
        }
        e.actor = textOf(q.value(4));
        if (e.detail.isEmpty())
            e.detail = textOf(q.value(5));
        e.atText = canonicalTimeText(q.value(6));
        e.at = parseUtcMicros(e.atText).value_or(0);
        e.settling = settling;
        return e;
    }
}

QString serverNow(DbSession &session)
{
    const TimeSql native(session.dialect().kind(), TimeMapping{});
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1").arg(native.text(native.nowValue())));
    return q.next() ? canonicalTimeText(q.value(0)) : QString();
}

} // namespace window_sql

} // namespace triage
