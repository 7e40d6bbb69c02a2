#include "Duplicates.h"
#include "FutureChain.h"
#include "DuplicatesSql.h"

#include "BusinessIdSql.h"
#include "ColumnText.h"
#include "JsonText.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QSet>
#include <QThreadPool>

#include <algorithm>
#include <map>

namespace triage {

QString duplicates_sql::inList(SqlBuilder &b, const QStringList &values)
{
    QStringList ps;
    for (const QString &v : values)
        ps << b.bind(v);
    return QStringLiteral("(") + ps.join(QStringLiteral(", ")) + QLatin1Char(')');
}

namespace {

using duplicates_sql::inList;

/// Keys per IN list (a full scan may find tens of thousands of groups; SQLite allows 32,766
/// bound values per statement, and long lists plan slowly everywhere).
constexpr int kInListChunk = 1000;

/// Calls `fn` with `keys` in slices of at most kInListChunk, in order (never with an empty one).
template <typename F>
void forEachChunk(const QStringList &keys, F &&fn)
{
    for (qsizetype at = 0; at < keys.size(); at += kInListChunk)
        fn(keys.mid(at, kInListChunk));
}

/// Record statuses by key for `keys` (one IN query on the mapped record table, decoded by
/// StoredRecordStatus::fromMapped(): an unknown stored value stays UNKNOWN_CODE_<value>).
/// Throws DbException.
QHash<QString, StoredRecordStatus> recordStatuses(DbSession &s, const RecordSql &r, const QStringList &keys)
{
    QHash<QString, StoredRecordStatus> out;
    forEachChunk(keys, [&](const QStringList &chunk) {
        SqlBuilder b;
        QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2 FROM %3 WHERE %1 IN %4")
                                 .arg(r.key, r.statuses.read(r.status), r.table, inList(b, chunk)),
                             b);
        while (q.next())
            out.insert(columnText(q.value(0)).value_or(QString()), StoredRecordStatus::fromMapped(q.value(1), r.map.statuses));
    });
    return out;
}

/// Condition "`column` <op> instant `t`" on a mapped ticket time column, `t` bound through
/// `b` in the column's representation. `op` is ">=", "<" or "=": an instant between two
/// values of an epoch column is rounded up to the next one, which keeps each of them exact
/// (the column's values at or after `t`, before `t`; "=" then matches nothing).
QString timeIs(SqlBuilder &b, const TimeSql &time, const QString &column, const char *op, UtcMicros t)
{
    const TimeEncoding e = time.mapping().encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis) {
        const qint64 unit = e == TimeEncoding::EpochMillis ? 1000 : 1000000;
        const qint64 rem = ((t % unit) + unit) % unit;
        if (rem != 0) {
            if (qstrcmp(op, "=") == 0)
                return QStringLiteral("1 = 0");
            t += unit - rem;
        }
    }
    return QStringLiteral("%1 %2 %3").arg(column, QLatin1String(op), time.param(b.bind(time.bind(t))));
}

/// The filter's creation window [createdFrom, createdTo) on `column`, appended to `where`.
void appendCreationWindow(QStringList &where, SqlBuilder &b, const TicketSql &t, const DuplicateFilter &f, const QString &column)
{
    if (f.createdFrom)
        where << timeIs(b, t.time, column, ">=", *f.createdFrom);
    if (f.createdTo)
        where << timeIs(b, t.time, column, "<", *f.createdTo);
}

/// Newest (`newest` true) or oldest creation time of a ticket with a key inside the filter's
/// creation window and, when `below` is set, created before it; nullopt when there is none.
/// One index probe on ticket(created_at, id).
std::optional<UtcMicros> ticketTimeBound(DbSession &s, const TicketSql &t, const DuplicateFilter &f, bool newest,
                                         std::optional<UtcMicros> below)
{
    SqlBuilder b;
    QStringList where{QStringLiteral("%1 IS NOT NULL").arg(t.key)};
    appendCreationWindow(where, b, t, f, t.createdAt);
    if (below)
        where << timeIs(b, t.time, t.createdAt, "<", *below);
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM %2 WHERE %3")
                             .arg(t.time.text(QStringLiteral("%1(%2)").arg(newest ? QStringLiteral("MAX") : QStringLiteral("MIN"), t.createdAt)),
                                  t.table, where.join(QStringLiteral(" AND "))),
                         b);
    if (!q.next() || q.value(0).isNull())
        return std::nullopt;
    return parseUtcMicros(canonicalTimeText(q.value(0)));
}

/// A creation-time window [lower, upper) of readGroupRows().
struct CreationWindow {
    UtcMicros lower = 0, upper = 0;
};

/// The groups that sort after `keyset` (newest first: (MAX(created_at), idem_key)
/// descending), at most `limit` (0: all), in that order.
/// - With `window`: the groups whose newest ticket was created in [lower, upper). The
///   window's keys come from ticket(created_at, id), each key's tickets from
///   ticket(idem_key): the cost follows the tickets in the window, not the table.
/// - Without: one GROUP BY over every ticket the filter admits — the database's own
///   aggregate plan, as fast as the whole-table GROUP BY (fetchAllDuplicateGroups()).
QVector<DuplicateGroup> readGroupRows(DbSession &s, const TicketSql &t, const DuplicateFilter &f, const std::optional<CreationWindow> &window,
                                      const std::optional<DuplicateCursor> &keyset, int limit)
{
    SqlBuilder b;
    const QString wKey = qualified(QStringLiteral("w"), t.key), wCreated = qualified(QStringLiteral("w"), t.createdAt);
    const QString tKey = qualified(QStringLiteral("t"), t.key), tCreated = qualified(QStringLiteral("t"), t.createdAt);
    const QString maxCreated = QStringLiteral("MAX(%1)").arg(tCreated);
    const QString keyColumn = window ? wKey : tKey; // where the key filters apply
    QStringList keyFilter{QStringLiteral("%1 IS NOT NULL").arg(keyColumn)};
    if (window)
        keyFilter << timeIs(b, t.time, wCreated, ">=", window->lower) << timeIs(b, t.time, wCreated, "<", window->upper);
    if (!f.keySubstring.isEmpty())
        keyFilter << QStringLiteral("%1 LIKE %2").arg(keyColumn, b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(f.keySubstring) + QLatin1Char('%')))
                         + SqlDialect::likeEscapeClause();
    QStringList where{QStringLiteral("1 = 1")};
    if (!window)
        where = keyFilter;
    appendCreationWindow(where, b, t, f, tCreated);
    // Live: not a stored spelling of CANCELLED ([ticket.map] status_cancelled). Each use binds
    // its own placeholders (some drivers mishandle repeated names).
    auto live = [&]() {
        return QStringLiteral("SUM(CASE WHEN %1 THEN 0 ELSE 1 END)")
            .arg(t.statuses.isAny(b, qualified(QStringLiteral("t"), t.status), {QStringLiteral("CANCELLED")}));
    };
    const QString liveSelect = live();
    QStringList having{QStringLiteral("COUNT(*) > 1")};
    if (window)
        having << timeIs(b, t.time, maxCreated, ">=", window->lower) << timeIs(b, t.time, maxCreated, "<", window->upper);
    if (!f.includeResolved)
        having << live() + QStringLiteral(" > 1");
    if (!f.tenant.isEmpty())
        having << (t.tenant.isEmpty() ? QStringLiteral("1 = 0") // no tenant column: no ticket has that tenant
                                      : QStringLiteral("SUM(CASE WHEN %1 = %2 THEN 1 ELSE 0 END) > 0")
                                            .arg(qualified(QStringLiteral("t"), t.tenant), b.bind(f.tenant)));
    if (keyset) {
        if (const auto k = parseUtcMicros(keyset->lastCreatedAt)) {
            const QString before = timeIs(b, t.time, maxCreated, "<", *k), same = timeIs(b, t.time, maxCreated, "=", *k);
            having << QStringLiteral("(%1 OR (%2 AND %3 < %4))").arg(before, same, tKey, b.bind(keyset->idemKey));
        }
    }
    const QString from = window ? QStringLiteral("%1 t JOIN (SELECT DISTINCT %2 FROM %1 w WHERE %3) k ON %4 = %5")
                                      .arg(t.table, wKey, keyFilter.join(QStringLiteral(" AND ")), tKey, qualified(QStringLiteral("k"), t.key))
                                : QStringLiteral("%1 t").arg(t.table);
    const QString sql =
        QStringLiteral("SELECT %1, COUNT(*), %2, %3, %4 FROM %5 WHERE %6 GROUP BY %1 HAVING %7 ORDER BY %8 DESC, %1 DESC%9")
            // One arg() call: the substituted text (SQLite's strftime formats) is never scanned again.
            .arg(tKey, liveSelect, t.time.text(QStringLiteral("MIN(%1)").arg(tCreated)), t.time.text(maxCreated), from,
                 where.join(QStringLiteral(" AND ")), having.join(QStringLiteral(" AND ")), maxCreated,
                 limit > 0 ? QStringLiteral(" LIMIT ") + b.bind(limit) : QString());
    QSqlQuery q = s.exec(sql, b);
    QVector<DuplicateGroup> out;
    while (q.next()) {
        DuplicateGroup g;
        g.idemKey = columnText(q.value(0)).value_or(QString());
        g.size = q.value(1).toInt();
        g.live = q.value(2).toInt();
        g.firstCreatedAt = canonicalTimeText(q.value(3));
        g.lastCreatedAt = canonicalTimeText(q.value(4));
        g.resolved = g.live <= 1;
        out.append(g);
    }
    return out;
}

/// Distinct tenant_id values of the groups' tickets (one IN query), sorted.
void fillTenants(DbSession &s, const TicketSql &t, QVector<DuplicateGroup> &groups)
{
    QStringList keys;
    for (const DuplicateGroup &g : std::as_const(groups))
        keys << g.idemKey;
    QHash<QString, QStringList> tenants;
    forEachChunk(keys, [&](const QStringList &chunk) {
        SqlBuilder b;
        QSqlQuery tq = s.exec(QStringLiteral("SELECT DISTINCT %1, %2 FROM %3 WHERE %1 IN %4").arg(t.key, t.tenantOrNull(), t.table, inList(b, chunk)), b);
        while (tq.next())
            tenants[columnText(tq.value(0)).value_or(QString())] << columnText(tq.value(1)).value_or(QString()); // NULL: a null QString
    });
    for (DuplicateGroup &g : groups) {
        g.tenants = tenants.value(g.idemKey);
        g.tenants.sort();
    }
}

/// The cursor's time; throws a Config DbException when it is not ISO-8601.
UtcMicros cursorTime(const DuplicateCursor &cursor)
{
    const auto at = parseUtcMicros(cursor.lastCreatedAt);
    if (!at)
        throw DbException(DbError{DbRole::Ticket, DbError::Kind::Config,
                                  QStringLiteral("ticket: duplicate-groups cursor time \"%1\" is not ISO-8601").arg(cursor.lastCreatedAt), {}});
    return *at;
}

constexpr qint64 kMinWindowMs = 1000;              // 1 s
constexpr qint64 kDefaultWindowMs = 10 * 60 * 1000; // 10 min
constexpr qint64 kMaxWindowMs = 366LL * 24 * 3600 * 1000;

/// The creation-time window scan, newest first (see fetchDuplicateGroups()).
DuplicatePage readGroups(DbSession &s, const TicketSql &t, const DuplicateFilter &f, const std::optional<DuplicateCursor> &cursor, int limit, int budgetMs,
                         int statementMs)
{
    QElapsedTimer spent;
    spent.start();
    DuplicatePage page;
    const auto newest = ticketTimeBound(s, t, f, true, std::nullopt);
    const auto oldest = ticketTimeBound(s, t, f, false, std::nullopt);
    if (!newest || !oldest)
        return page; // no ticket with a key: the end
    page.newestAt = formatUtcMicros(*newest);
    page.oldestAt = formatUtcMicros(*oldest);
    std::optional<DuplicateCursor> keyset = cursor;
    UtcMicros upper = *newest + 1;
    if (cursor) {
        upper = std::min(upper, cursorTime(*cursor) + 1);
    }
    qint64 windowMs = cursor && cursor->windowMs > 0 ? cursor->windowMs : kDefaultWindowMs;
    auto stopAt = [&](UtcMicros at, const QString &key) {
        page.next = DuplicateCursor{formatUtcMicros(at), key, windowMs};
        page.scannedTo = formatUtcMicros(at);
    };
    while (true) {
        const UtcMicros lower = std::max(*oldest, upper - windowMs * 1000);
        QElapsedTimer one;
        one.start();
        const int need = limit - int(page.groups.size());
        const QVector<DuplicateGroup> found = readGroupRows(s, t, f, CreationWindow{lower, upper}, keyset, need);
        ++page.windows;
        page.groups += found;
        if (int(page.groups.size()) >= limit) {
            const DuplicateGroup &last = page.groups.constLast();
            stopAt(*parseUtcMicros(last.lastCreatedAt), last.idemKey);
            break;
        }
        keyset.reset(); // later windows lie wholly below the cursor
        // Widen quick windows, narrow slow ones: each statement should take about statementMs.
        const qint64 ms = one.elapsed();
        if (ms < statementMs / 2)
            windowMs = std::min(kMaxWindowMs, windowMs * 2);
        else if (ms > statementMs * 2)
            windowMs = std::max(kMinWindowMs, windowMs / 2);
        // Skip stretches without tickets: the next window ends after the newest ticket below.
        const auto below = lower > *oldest ? ticketTimeBound(s, t, f, true, lower) : std::nullopt;
        if (!below) {
            page.scannedTo = page.oldestAt; // the end
            break;
        }
        upper = *below + 1;
        if (budgetMs > 0 && spent.elapsed() >= budgetMs) {
            stopAt(upper, QString()); // "every group whose newest ticket is before `upper`"
            break;
        }
    }
    fillTenants(s, t, page.groups);
    return page;
}

/// Every group after `cursor` in one statement (see fetchAllDuplicateGroups()).
DuplicatePage readAllGroups(DbSession &s, const TicketSql &t, const DuplicateFilter &f, const std::optional<DuplicateCursor> &cursor)
{
    DuplicatePage page;
    const auto newest = ticketTimeBound(s, t, f, true, std::nullopt);
    const auto oldest = ticketTimeBound(s, t, f, false, std::nullopt);
    if (!newest || !oldest)
        return page; // no ticket with a key: the end
    if (cursor)
        cursorTime(*cursor); // a malformed cursor is an error, not a silent restart
    page.newestAt = formatUtcMicros(*newest);
    page.oldestAt = formatUtcMicros(*oldest);
    page.groups = readGroupRows(s, t, f, std::nullopt, cursor, 0);
    page.scannedTo = page.oldestAt; // the end
    fillTenants(s, t, page.groups);
    return page;
}

} // namespace

QVector<PayloadFieldDiff> payloadDifferences(const QVector<TicketRow> &tickets)
{
    QStringList fields;
    QVector<QJsonObject> objects;
    bool allObjects = true;
    for (const TicketRow &t : tickets) {
        const ParsedJson p = parseJsonText(t.payload);
        if (!p.ok || !p.root.isObject()) {
            allObjects = false;
            objects.append(QJsonObject());
            continue;
        }
        objects.append(p.root.toObject());
        for (const QString &k : p.root.toObject().keys())
            if (!fields.contains(k))
                fields << k;
    }
    QVector<PayloadFieldDiff> out;
    if (!allObjects) {
        PayloadFieldDiff d;
        d.field = QStringLiteral("(payload)");
        for (const TicketRow &t : tickets)
            d.values << t.payload.value_or(QStringLiteral("NULL"));
        d.differs = QSet<QString>(d.values.begin(), d.values.end()).size() > 1;
        out.append(d);
        return out;
    }
    std::sort(fields.begin(), fields.end());
    for (const QString &f : std::as_const(fields)) {
        PayloadFieldDiff d;
        d.field = f;
        for (const QJsonObject &o : std::as_const(objects)) {
            if (!o.contains(f)) {
                d.values << QStringLiteral("(absent)");
                continue;
            }
            const QJsonValue v = o.value(f);
            if (v.isString())
                d.values << QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
            else
                d.values << QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
        }
        d.differs = QSet<QString>(d.values.begin(), d.values.end()).size() > 1;
        out.append(d);
    }
    return out;
}

std::optional<BusinessId> proposeCanonical(const QVector<TicketRow> &tickets, const std::optional<RecordDetail> &record, QString *reason)
{
    const CanonicalTicket c = record ? canonicalTicket(tickets, record->statusText, record->resultSnapshot)
                                     : canonicalTicket(tickets, QString(), std::nullopt);
    if (reason)
        *reason = c.reason;
    return c.id;
}

QString DuplicateGroup::recordText() const
{
    return record ? record->text : QStringLiteral("NONE");
}

double DuplicatePage::progress() const
{
    const auto newest = parseUtcMicros(newestAt), oldest = parseUtcMicros(oldestAt), to = parseUtcMicros(scannedTo);
    if (!next || !newest || !oldest || !to || *newest <= *oldest)
        return 1.0;
    return std::clamp(double(*newest - *to) / double(*newest - *oldest), 0.0, 1.0);
}

namespace {

/// `page` with each group's record status (one IN query per kInListChunk keys on the
/// idempotency store); a failure of either store fails the whole page.
QFuture<Outcome<DuplicatePage>> withRecordStatuses(Workspace *ws, const SchemaMap &schema, QFuture<Outcome<DuplicatePage>> page)
{
    return continueWith(page, ws->mergePool(), [ws, schema](const Outcome<DuplicatePage> &page) -> QFuture<Outcome<DuplicatePage>> {
                  if (!page.ok())
                      return QtFuture::makeReadyFuture(page);
                  QStringList keys;
                  for (const DuplicateGroup &g : page->groups)
                      keys << g.idemKey;
                  auto statuses = ws->reader(DbRole::Idempotency).run<QHash<QString, StoredRecordStatus>>([keys, schema](DbSession &s) {
                      return recordStatuses(s, RecordSql(s.dialect().kind(), schema.records), keys);
                  }, keys);
                  return continueWith(statuses, ws->mergePool(), [out = *page.value](const Outcome<QHash<QString, StoredRecordStatus>> &statuses) mutable {
                      if (!statuses.ok())
                          return Outcome<DuplicatePage>::failure(*statuses.error);
                      for (DuplicateGroup &g : out.groups)
                          if (const auto it = statuses->constFind(g.idemKey); it != statuses->constEnd())
                              g.record = *it;
                      return Outcome<DuplicatePage>::success(out);
                  });
              });
}

} // namespace

QFuture<Outcome<DuplicatePage>> fetchDuplicateGroups(Workspace &workspace, const DuplicateFilter &filter,
                                                     const std::optional<DuplicateCursor> &cursor, int limit, int budgetMs,
                                                     int statementMs)
{
    if (statementMs <= 0)
        statementMs = kWindowStatementMs;
    const SchemaMap schema = workspace.config().schema;
    return withRecordStatuses(&workspace, schema, workspace.reader(DbRole::Ticket).run<DuplicatePage>([=](DbSession &s) {
        return readGroups(s, TicketSql(s.dialect().kind(), schema.tickets), filter, cursor, std::max(1, limit), budgetMs, statementMs);
    }));
}

QFuture<Outcome<DuplicatePage>> fetchAllDuplicateGroups(Workspace &workspace, const DuplicateFilter &filter,
                                                        const std::optional<DuplicateCursor> &after)
{
    const SchemaMap schema = workspace.config().schema;
    return withRecordStatuses(&workspace, schema, workspace.reader(DbRole::Ticket).run<DuplicatePage>([=](DbSession &s) {
        return readAllGroups(s, TicketSql(s.dialect().kind(), schema.tickets), filter, after);
    }));
}

QFuture<Outcome<DuplicateGroupDetail>> loadDuplicateGroup(Workspace &workspace, const QString &idemKey)
{
    Workspace *ws = &workspace;
    auto tickets = ws->reader(DbRole::Ticket).run<QVector<TicketRow>>([idemKey, config = ws->config()](DbSession &s) {
        return detail_sql::readTickets(s, config, idemKey);
    }, {idemKey});
    return continueWith(tickets, ws->mergePool(), [ws, idemKey](const Outcome<QVector<TicketRow>> &tickets) -> QFuture<Outcome<DuplicateGroupDetail>> {
                  if (!tickets.ok())
                      return QtFuture::makeReadyFuture(Outcome<DuplicateGroupDetail>::failure(*tickets.error));
                  const WorkspaceConfig config = ws->config();
                  auto record = ws->reader(DbRole::Idempotency).run<std::optional<RecordDetail>>([config, idemKey](DbSession &s) {
                      return detail_sql::readRecord(s, config, idemKey);
                  }, {idemKey});
                  return continueWith(record, ws->mergePool(), [idemKey, rows = *tickets.value](const Outcome<std::optional<RecordDetail>> &record) {
                      if (!record.ok())
                          return Outcome<DuplicateGroupDetail>::failure(*record.error);
                      DuplicateGroupDetail d;
                      d.idemKey = idemKey;
                      d.tickets = rows;
                      d.record = *record.value;
                      d.payloadDiff = payloadDifferences(d.tickets);
                      d.canonicalTicketId = proposeCanonical(d.tickets, d.record, &d.canonicalReason);
                      d.keyReuseFields = keyReuseFields(d.tickets);
                      d.inconsistency = (d.record ? canonicalTicket(d.tickets, d.record->statusText, d.record->resultSnapshot)
                                                  : canonicalTicket(d.tickets, QString(), std::nullopt))
                                            .inconsistency;
                      return Outcome<DuplicateGroupDetail>::success(d);
                  });
              });
}

QString DuplicateGroup::tenantsText(const QString &separator) const
{
    QStringList out;
    for (const QString &t : tenants)
        out << (t.isNull() ? QStringLiteral("NULL") : t);
    return out.join(separator);
}

} // namespace triage
