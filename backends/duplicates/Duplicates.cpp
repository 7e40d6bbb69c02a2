#include "Duplicates.h"

#include "BusinessIdSql.h"
#include "ColumnText.h"
#include "JsonText.h"
#include "RecordStatus.h"
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

QString inconsistencyKindName(DuplicateInconsistency::Kind k)
{
    switch (k) {
    case DuplicateInconsistency::Kind::TicketWithUnsettledRecord: return QStringLiteral("ticket_with_unsettled_record");
    case DuplicateInconsistency::Kind::SnapshotTicketMissing: return QStringLiteral("snapshot_ticket_missing");
    case DuplicateInconsistency::Kind::SnapshotPayloadDiffers: return QStringLiteral("snapshot_payload_differs");
    case DuplicateInconsistency::Kind::SnapshotTicketCancelled: return QStringLiteral("snapshot_ticket_cancelled");
    }
    return {};
}

namespace {

/// "IN (:p0, :p1, …)" for `values`.
QString inList(SqlBuilder &b, const QStringList &values)
{
    QStringList ps;
    for (const QString &v : values)
        ps << b.bind(v);
    return QStringLiteral("(") + ps.join(QStringLiteral(", ")) + QLatin1Char(')');
}

/// Record statuses by key for `keys` (one IN query). Throws DbException.
QHash<QString, StoredRecordStatus> recordStatuses(DbSession &s, const QStringList &keys)
{
    QHash<QString, StoredRecordStatus> out;
    if (keys.isEmpty())
        return out;
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT idem_key, status FROM idempotency_record WHERE idem_key IN %1").arg(inList(b, keys)), b);
    while (q.next())
        out.insert(columnText(q.value(0)).value_or(QString()), StoredRecordStatus::fromColumn(q.value(1)));
    return out;
}

/// The filter's creation window [createdFrom, createdTo) on `column`, appended to `where`.
void appendCreationWindow(QStringList &where, SqlBuilder &b, const SqlDialect &d, const DuplicateFilter &f, const QString &column)
{
    if (f.createdFrom)
        where << QStringLiteral("%1 >= %2").arg(column, d.timeParam(b.bind(d.bindTime(*f.createdFrom))));
    if (f.createdTo)
        where << QStringLiteral("%1 < %2").arg(column, d.timeParam(b.bind(d.bindTime(*f.createdTo))));
}

/// Newest (`newest` true) or oldest creation time of a ticket with a key inside the filter's
/// creation window and, when `below` is set, created before it; nullopt when there is none.
/// One index probe on ticket(created_at, id).
std::optional<UtcMicros> ticketTimeBound(DbSession &s, const DuplicateFilter &f, bool newest, std::optional<UtcMicros> below)
{
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    QStringList where{QStringLiteral("idem_key IS NOT NULL")};
    appendCreationWindow(where, b, d, f, QStringLiteral("created_at"));
    if (below)
        where << QStringLiteral("created_at < %1").arg(d.timeParam(b.bind(d.bindTime(*below))));
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM ticket WHERE %2")
                             .arg(d.timeText(newest ? QStringLiteral("MAX(created_at)") : QStringLiteral("MIN(created_at)")),
                                  where.join(QStringLiteral(" AND "))),
                         b);
    if (!q.next() || q.value(0).isNull())
        return std::nullopt;
    return parseUtcMicros(canonicalTimeText(q.value(0)));
}

/// The groups whose newest ticket was created in [lower, upper) and that sort after
/// `keyset` (newest first: (MAX(created_at), idem_key) descending), at most `limit`.
/// The window's keys come from ticket(created_at, id); each key's tickets from
/// ticket(idem_key): the cost follows the tickets in the window, not the table.
QVector<DuplicateGroup> readWindow(DbSession &s, const DuplicateFilter &f, UtcMicros lower, UtcMicros upper,
                                   const std::optional<DuplicateCursor> &keyset, int limit)
{
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    auto time = [&](UtcMicros t) { return d.timeParam(b.bind(d.bindTime(t))); };
    QStringList inner{QStringLiteral("w.idem_key IS NOT NULL"), QStringLiteral("w.created_at >= ") + time(lower),
                      QStringLiteral("w.created_at < ") + time(upper)};
    if (!f.keySubstring.isEmpty())
        inner << QStringLiteral("w.idem_key LIKE %1").arg(b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(f.keySubstring) + QLatin1Char('%')))
                     + SqlDialect::likeEscapeClause();
    QStringList where{QStringLiteral("1 = 1")};
    appendCreationWindow(where, b, d, f, QStringLiteral("t.created_at"));
    // Each use binds its own placeholder (some drivers mishandle repeated names).
    auto live = [&b]() { return QStringLiteral("SUM(CASE WHEN t.status = %1 THEN 0 ELSE 1 END)").arg(b.bind(QStringLiteral("CANCELLED"))); };
    const QString liveSelect = live();
    QStringList having{QStringLiteral("COUNT(*) > 1"), QStringLiteral("MAX(t.created_at) >= ") + time(lower),
                       QStringLiteral("MAX(t.created_at) < ") + time(upper)};
    if (!f.includeResolved)
        having << live() + QStringLiteral(" > 1");
    if (!f.tenant.isEmpty())
        having << QStringLiteral("SUM(CASE WHEN t.tenant_id = %1 THEN 1 ELSE 0 END) > 0").arg(b.bind(f.tenant));
    if (keyset) {
        if (const auto t = parseUtcMicros(keyset->lastCreatedAt)) {
            const QString p1 = time(*t), p2 = time(*t);
            having << QStringLiteral("(MAX(t.created_at) < %1 OR (MAX(t.created_at) = %2 AND t.idem_key < %3))").arg(p1, p2, b.bind(keyset->idemKey));
        }
    }
    const QString sql =
        QStringLiteral("SELECT t.idem_key, COUNT(*), %1, %2, %3 FROM ticket t "
                       "JOIN (SELECT DISTINCT w.idem_key FROM ticket w WHERE %4) k ON t.idem_key = k.idem_key "
                       "WHERE %5 GROUP BY t.idem_key HAVING %6 ORDER BY MAX(t.created_at) DESC, t.idem_key DESC LIMIT %7")
            .arg(liveSelect, d.timeText(QStringLiteral("MIN(t.created_at)")), d.timeText(QStringLiteral("MAX(t.created_at)")),
                 inner.join(QStringLiteral(" AND ")), where.join(QStringLiteral(" AND ")), having.join(QStringLiteral(" AND ")),
                 b.bind(limit));
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
void fillTenants(DbSession &s, QVector<DuplicateGroup> &groups)
{
    QStringList keys;
    for (const DuplicateGroup &g : std::as_const(groups))
        keys << g.idemKey;
    if (keys.isEmpty())
        return;
    SqlBuilder t;
    QSqlQuery tq = s.exec(QStringLiteral("SELECT DISTINCT idem_key, tenant_id FROM ticket WHERE idem_key IN %1").arg(inList(t, keys)), t);
    QHash<QString, QStringList> tenants;
    while (tq.next())
        tenants[columnText(tq.value(0)).value_or(QString())] << columnText(tq.value(1)).value_or(QStringLiteral("NULL"));
    for (DuplicateGroup &g : groups) {
        g.tenants = tenants.value(g.idemKey);
        g.tenants.sort();
    }
}

constexpr qint64 kMinWindowMs = 1000;              // 1 s
constexpr qint64 kDefaultWindowMs = 10 * 60 * 1000; // 10 min
constexpr qint64 kMaxWindowMs = 366LL * 24 * 3600 * 1000;

/// The creation-time window scan, newest first (see fetchDuplicateGroups()).
DuplicatePage readGroups(DbSession &s, const DuplicateFilter &f, const std::optional<DuplicateCursor> &cursor, int limit, int budgetMs,
                         int statementMs)
{
    QElapsedTimer spent;
    spent.start();
    DuplicatePage page;
    const auto newest = ticketTimeBound(s, f, true, std::nullopt);
    const auto oldest = ticketTimeBound(s, f, false, std::nullopt);
    if (!newest || !oldest)
        return page; // no ticket with a key: the end
    page.newestAt = formatUtcMicros(*newest);
    page.oldestAt = formatUtcMicros(*oldest);
    std::optional<DuplicateCursor> keyset = cursor;
    UtcMicros upper = *newest + 1;
    if (cursor) {
        const auto t = parseUtcMicros(cursor->lastCreatedAt);
        if (!t)
            throw DbException(DbError{DbRole::Ticket, DbError::Kind::Config,
                                      QStringLiteral("ticket: duplicate-groups cursor time \"%1\" is not ISO-8601").arg(cursor->lastCreatedAt), {}});
        upper = std::min(upper, *t + 1);
    }
    qint64 windowMs = cursor && cursor->windowMs > 0 ? cursor->windowMs : kDefaultWindowMs;
    auto stopAt = [&](UtcMicros t, const QString &key) {
        page.next = DuplicateCursor{formatUtcMicros(t), key, windowMs};
        page.scannedTo = formatUtcMicros(t);
    };
    while (true) {
        const UtcMicros lower = std::max(*oldest, upper - windowMs * 1000);
        QElapsedTimer one;
        one.start();
        const int need = limit - int(page.groups.size());
        const QVector<DuplicateGroup> found = readWindow(s, f, lower, upper, keyset, need);
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
        const auto below = lower > *oldest ? ticketTimeBound(s, f, true, lower) : std::nullopt;
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
    fillTenants(s, page.groups);
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

QFuture<Outcome<DuplicatePage>> fetchDuplicateGroups(Workspace &workspace, const DuplicateFilter &filter,
                                                     const std::optional<DuplicateCursor> &cursor, int limit, int budgetMs,
                                                     int statementMs)
{
    Workspace *ws = &workspace;
    if (statementMs <= 0)
        statementMs = kWindowStatementMs;
    auto page = ws->worker(DbRole::Ticket).run<DuplicatePage>([=](DbSession &s) {
        return readGroups(s, filter, cursor, std::max(1, limit), budgetMs, statementMs);
    });
    return page
        .then(QtFuture::Launch::Sync,
              [ws](const Outcome<DuplicatePage> &page) -> QFuture<Outcome<DuplicatePage>> {
                  if (!page.ok())
                      return QtFuture::makeReadyFuture(page);
                  QStringList keys;
                  for (const DuplicateGroup &g : page->groups)
                      keys << g.idemKey;
                  auto statuses = ws->worker(DbRole::Idempotency).run<QHash<QString, StoredRecordStatus>>([keys](DbSession &s) {
                      return recordStatuses(s, keys);
                  });
                  return statuses.then(QtFuture::Launch::Sync, [out = *page.value](const Outcome<QHash<QString, StoredRecordStatus>> &statuses) mutable {
                      if (!statuses.ok())
                          return Outcome<DuplicatePage>::failure(*statuses.error);
                      for (DuplicateGroup &g : out.groups)
                          if (const auto it = statuses->constFind(g.idemKey); it != statuses->constEnd())
                              g.record = *it;
                      return Outcome<DuplicatePage>::success(out);
                  });
              })
        .unwrap();
}

QFuture<Outcome<InconsistencyPage>> fetchInconsistencies(Workspace &workspace, qint64 afterRecordId, int limit,
                                                         const QString &keySubstring)
{
    Workspace *ws = &workspace;
    struct Rec {
        qint64 id;
        QString key;
        RecordStatusCode status;
        NullableText snapshot;
    };
    const int n = std::max(1, limit);
    auto records = ws->worker(DbRole::Idempotency)
                        .run<QVector<Rec>>([=](DbSession &s) {
                            SqlBuilder b;
                            QString where = QStringLiteral("status IN (%1, %2, %3) AND id > %4")
                                                .arg(b.bind(0), b.bind(1), b.bind(2), b.bind(afterRecordId));
                            if (!keySubstring.isEmpty())
                                where += QStringLiteral(" AND idem_key LIKE %1")
                                             .arg(b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(keySubstring) + QLatin1Char('%')))
                                    + SqlDialect::likeEscapeClause();
                            QSqlQuery q = s.exec(QStringLiteral("SELECT id, idem_key, status, result_snapshot FROM idempotency_record "
                                                                "WHERE %1 ORDER BY id LIMIT %2")
                                                     .arg(where, b.bind(n)),
                                                 b);
                            QVector<Rec> out;
                            while (q.next()) {
                                // The WHERE clause keeps codes 0, 1, 2 only.
                                const std::optional<RecordStatusCode> status = StoredRecordStatus::fromColumn(q.value(2)).known();
                                if (status)
                                    out.append({q.value(0).toLongLong(), columnText(q.value(1)).value_or(QString()), *status,
                                                columnText(q.value(3))});
                            }
                            return out;
                        });
    QThreadPool *pool = workspace.mergePool();
    return records.then(QtFuture::Launch::Sync, [ws, n, pool](const Outcome<QVector<Rec>> &recs) -> QFuture<Outcome<InconsistencyPage>> {
        if (!recs.ok())
            return QtFuture::makeReadyFuture(Outcome<InconsistencyPage>::failure(*recs.error));
        QStringList unsettledKeys;
        QVector<BusinessId> namedIds;
        for (const Rec &r : *recs.value) {
            if (r.status == Success) {
                if (const auto id = snapshotNamedTicketId(r.snapshot); id && !namedIds.contains(*id))
                    namedIds << *id;
            } else {
                unsettledKeys << r.key;
            }
        }
        struct T {
            BusinessId id;
            QString key, payload, status;
            bool payloadNull = true;
        };
        struct Tickets {
            QVector<T> byUnsettledKey, named;
        };
        auto tickets = ws->worker(DbRole::Ticket)
                           .run<Tickets>([=](DbSession &s) {
                               Tickets out;
                               if (!unsettledKeys.isEmpty()) {
                                   SqlBuilder b;
                                   QSqlQuery q = s.exec(QStringLiteral("SELECT id, idem_key FROM ticket WHERE idem_key IN %1 ORDER BY id")
                                                            .arg(inList(b, unsettledKeys)),
                                                        b);
                                   while (q.next())
                                       out.byUnsettledKey.append({BusinessId::fromColumn(q.value(0)), columnText(q.value(1)).value_or(QString()), {}, {}, true});
                               }
                               SqlBuilder b;
                               QStringList ps;
                               for (const BusinessId &id : namedIds)
                                   // An id no row of the column can hold is left out: it does not exist.
                                   if (const auto v = businessIdBindValue(s, QStringLiteral("ticket"), QStringLiteral("id"), id))
                                       ps << b.bind(*v);
                               if (!ps.isEmpty()) {
                                   QSqlQuery q = s.exec(QStringLiteral("SELECT id, idem_key, payload, status FROM ticket WHERE id IN (%1)")
                                                            .arg(ps.join(QStringLiteral(", "))),
                                                        b);
                                   while (q.next())
                                       out.named.append({BusinessId::fromColumn(q.value(0)), columnText(q.value(1)).value_or(QString()), columnText(q.value(2)).value_or(QString()), columnText(q.value(3)).value_or(QString()),
                                                         q.value(2).isNull()});
                               }
                               return out;
                           });
        // Comparing snapshots with payloads parses JSON: on the merge pool, not a worker thread.
        return tickets.then(pool, [recs, n](const Outcome<Tickets> &tickets) {
        if (!tickets.ok())
            return Outcome<InconsistencyPage>::failure(*tickets.error);
        QHash<QString, QVector<BusinessId>> byKey;
        QHash<BusinessId, T> byId;
        for (const T &t : tickets->byUnsettledKey)
            byKey[t.key] << t.id;
        for (const T &t : tickets->named)
            byId.insert(t.id, t);
        InconsistencyPage page;
        using K = DuplicateInconsistency::Kind;
        const QString remedy = QStringLiteral("SUCCESS is final: escalate; never re-mark the record");
        for (const Rec &r : *recs.value) {
            if (r.status != Success) {
                for (const BusinessId &id : byKey.value(r.key))
                    page.rows.append({K::TicketWithUnsettledRecord, r.key, r.id, r.status, id,
                                      QStringLiteral("ticket %1 exists but the record is %2").arg(id.text()).arg(recordStatusName(r.status))});
                continue;
            }
            const auto named = snapshotNamedTicketId(r.snapshot);
            if (!named)
                continue;
            const BusinessId id = *named;
            if (!byId.contains(id)) {
                page.rows.append({K::SnapshotTicketMissing, r.key, r.id, r.status, id,
                                  QStringLiteral("the snapshot names ticket %1, which does not exist (%2)").arg(id.text()).arg(remedy)});
                continue;
            }
            const T &t = byId[id];
            if (t.key != r.key) {
                page.rows.append({K::SnapshotTicketMissing, r.key, r.id, r.status, id,
                                  QStringLiteral("the snapshot names ticket %1, which carries another key (%2)").arg(id.text()).arg(remedy)});
                continue;
            }
            if (t.status.trimmed().compare(QLatin1String("CANCELLED"), Qt::CaseInsensitive) == 0) {
                page.rows.append({K::SnapshotTicketCancelled, r.key, r.id, r.status, id,
                                  QStringLiteral("the snapshot names ticket %1, which is CANCELLED: callers hold an undone ticket (%2)")
                                      .arg(id.text())
                                      .arg(remedy)});
                continue;
            }
            const ParsedJson a = parseJsonText(r.snapshot);
            const ParsedJson p = parseJsonText(t.payloadNull ? NullableText() : NullableText(t.payload));
            if (!p.ok || a.root != p.root)
                page.rows.append({K::SnapshotPayloadDiffers, r.key, r.id, r.status, id,
                                  QStringLiteral("the snapshot differs from ticket %1's payload").arg(id.text())});
        }
        if (recs->size() == n)
            page.nextRecordId = recs->constLast().id;
        return Outcome<InconsistencyPage>::success(page);
        });
    }).unwrap();
}

QFuture<Outcome<RegeneratedPage>> fetchRegeneratedKeys(Workspace &workspace, const std::optional<RegeneratedCursor> &cursor,
                                                       int limit, const QString &keySubstring)
{
    const int n = std::max(1, limit);
    return workspace.worker(DbRole::Intent).run<RegeneratedPage>([cursor, n, keySubstring](DbSession &s) {
        SqlBuilder b;
        QString where = QStringLiteral("task_id IS NOT NULL AND step_id IS NOT NULL AND idem_key IS NOT NULL");
        if (cursor)
            where += QStringLiteral(" AND (task_id > %1 OR (task_id = %2 AND step_id > %3))")
                         .arg(b.bind(cursor->taskId), b.bind(cursor->taskId), b.bind(cursor->stepId));
        QString having = QStringLiteral("COUNT(DISTINCT idem_key) > 1");
        if (!keySubstring.isEmpty())
            having += QStringLiteral(" AND SUM(CASE WHEN idem_key LIKE %1%2 THEN 1 ELSE 0 END) > 0")
                          .arg(b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(keySubstring) + QLatin1Char('%')),
                               SqlDialect::likeEscapeClause());
        QSqlQuery q = s.exec(QStringLiteral("SELECT task_id, step_id, COUNT(*) FROM intent_log WHERE %1 GROUP BY task_id, step_id "
                                            "HAVING %2 ORDER BY task_id, step_id LIMIT %3")
                                 .arg(where, having, b.bind(n + 1)),
                             b);
        RegeneratedPage page;
        while (q.next()) {
            if (page.steps.size() == n) {
                page.next = RegeneratedCursor{page.steps.constLast().taskId, page.steps.constLast().stepId};
                break;
            }
            RegeneratedKeyStep st;
            st.taskId = columnText(q.value(0)).value_or(QString());
            st.stepId = columnText(q.value(1)).value_or(QString());
            st.attempts = q.value(2).toInt();
            page.steps.append(st);
        }
        if (page.steps.isEmpty())
            return page;
        QStringList tasks;
        for (const RegeneratedKeyStep &st : std::as_const(page.steps))
            if (!tasks.contains(st.taskId))
                tasks << st.taskId;
        SqlBuilder k;
        QSqlQuery kq = s.exec(QStringLiteral("SELECT task_id, step_id, idem_key FROM intent_log WHERE task_id IN %1 "
                                             "ORDER BY created_at, id")
                                  .arg(inList(k, tasks)),
                              k);
        std::map<std::pair<QString, QString>, QStringList> keys;
        while (kq.next()) {
            QStringList &l = keys[{columnText(kq.value(0)).value_or(QString()), columnText(kq.value(1)).value_or(QString())}];
            const QString key = columnText(kq.value(2)).value_or(QString());
            if (!kq.value(2).isNull() && !l.contains(key))
                l << key;
        }
        for (RegeneratedKeyStep &st : page.steps)
            st.keys = keys[{st.taskId, st.stepId}];
        return page;
    });
}

QFuture<Outcome<DuplicateGroupDetail>> loadDuplicateGroup(Workspace &workspace, const QString &idemKey)
{
    Workspace *ws = &workspace;
    auto tickets = ws->worker(DbRole::Ticket).run<QVector<TicketRow>>([idemKey](DbSession &s) {
        return detail_sql::readTickets(s, idemKey);
    });
    return tickets
        .then(QtFuture::Launch::Sync,
              [ws, idemKey](const Outcome<QVector<TicketRow>> &tickets) -> QFuture<Outcome<DuplicateGroupDetail>> {
                  if (!tickets.ok())
                      return QtFuture::makeReadyFuture(Outcome<DuplicateGroupDetail>::failure(*tickets.error));
                  const WorkspaceConfig config = ws->config();
                  auto record = ws->worker(DbRole::Idempotency).run<std::optional<RecordDetail>>([config, idemKey](DbSession &s) {
                      return detail_sql::readRecord(s, config, idemKey);
                  });
                  return record.then(QtFuture::Launch::Sync, [idemKey, rows = *tickets.value](const Outcome<std::optional<RecordDetail>> &record) {
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
              })
        .unwrap();
}

} // namespace triage
