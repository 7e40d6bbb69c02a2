#include "Queue.h"

#include <QHash>

#include "ColumnText.h"
#include "RecordStatus.h"

#include <QRegularExpression>
#include <QSqlRecord>

#include <algorithm>
#include <limits>

namespace triage {

QString queueName(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Unknown: return QStringLiteral("unknown");
    case QueueKind::InFlight: return QStringLiteral("inflight");
    case QueueKind::Failed: return QStringLiteral("failed");
    case QueueKind::Succeeded: return QStringLiteral("success");
    case QueueKind::Escalated: return QStringLiteral("escalated");
    }
    return {};
}

QString queueTitle(QueueKind kind)
{
    switch (kind) {
    case QueueKind::Unknown: return QStringLiteral("Unknown");
    case QueueKind::InFlight: return QStringLiteral("In flight");
    case QueueKind::Failed: return QStringLiteral("Failed");
    case QueueKind::Succeeded: return QStringLiteral("Succeeded");
    // The agents' own ESCALATED intent steps, not the reconciler's escalations (DESIGN.md §8).
    case QueueKind::Escalated: return QStringLiteral("Escalated by agents");
    }
    return {};
}

std::optional<QueueKind> queueFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    for (QueueKind k : {QueueKind::Unknown, QueueKind::InFlight, QueueKind::Failed, QueueKind::Succeeded,
                        QueueKind::Escalated}) {
        if (n == queueName(k))
            return k;
    }
    if (n == QLatin1String("succeeded") || n == QLatin1String("in-flight") || n == QLatin1String("in_flight"))
        return n == QLatin1String("succeeded") ? QueueKind::Succeeded : QueueKind::InFlight;
    return std::nullopt;
}

QString sourceName(QueueSource s)
{
    return s == QueueSource::Record ? QStringLiteral("record") : QStringLiteral("intent");
}

bool QueueFilter::isEmpty() const
{
    return bizType.isEmpty() && tenant.isEmpty() && keySubstring.isEmpty() && !createdFrom && !createdTo
        && !updatedFrom && !updatedTo;
}

bool queueUsesRecords(QueueKind kind)
{
    return kind != QueueKind::Escalated;
}

bool queueUsesIntents(QueueKind kind, const QueueFilter &filter)
{
    return (kind == QueueKind::Unknown || kind == QueueKind::Escalated) && filter.bizType.isEmpty();
}

QString tenantFromKey(const QString &key, const QString &pattern)
{
    const QStringList want = pattern.split(QLatin1Char(':'));
    const QStringList have = key.split(QLatin1Char(':'));
    if (have.size() < want.size())
        return {};
    QString tenant;
    for (int i = 0; i < want.size(); ++i) {
        if (want[i] == QLatin1String("{tenant}"))
            tenant = have[i];
        else if (want[i] != QLatin1String("*") && want[i] != have[i])
            return {};
    }
    return tenant;
}

namespace queue_sql {

/// Condition on the key column `keyColumn` (e.g. "idem_key" or "l.idem_key"): the key's
/// tenant (per `pattern`) equals `tenant`. Index-friendly LIKE prefix when the pattern starts
/// with literal fields; a regular expression where fields after {tenant} or before it are
/// not free (ANDed with the prefix when there is one, which selects the same rows).
QString tenantCondition(const SqlDialect &d, SqlBuilder &b, const QString &keyColumn, const QString &pattern,
                        const QString &tenant)
{
    const QStringList fields = pattern.split(QLatin1Char(':'));
    const int at = fields.indexOf(QStringLiteral("{tenant}"));
    bool literalPrefix = true;
    for (int i = 0; i < at; ++i)
        literalPrefix = literalPrefix && fields[i] != QLatin1String("*");
    QString prefixCond;
    if (literalPrefix) {
        QString prefix;
        for (int i = 0; i < at; ++i)
            prefix += fields[i] + QLatin1Char(':');
        prefix += tenant;
        const QString likePattern = SqlDialect::likeLiteral(prefix + QLatin1Char(':')) + QLatin1Char('%');
        prefixCond = QStringLiteral("(%1 = %2 OR %1 LIKE %3%4)")
                         .arg(keyColumn, b.bind(prefix), b.bind(likePattern), SqlDialect::likeEscapeClause());
        if (d.kind() == Dialect::MySql) // a case-insensitive collation: the prefix narrows, BINARY decides (textIs())
            prefixCond = QStringLiteral("(%1 AND (BINARY %2 = %3 OR BINARY %2 LIKE %4%5))")
                             .arg(prefixCond, keyColumn, b.bind(prefix), b.bind(likePattern), SqlDialect::likeEscapeClause());
        // Fields after {tenant} that are literal must match too: check with the regex.
        bool tailFree = true;
        for (int i = at + 1; i < fields.size(); ++i)
            tailFree = tailFree && fields[i] == QLatin1String("*");
        if (tailFree)
            return prefixCond;
    }
    QStringList parts;
    for (const QString &f : fields) {
        if (f == QLatin1String("*"))
            parts << QStringLiteral("[^:]*");
        else if (f == QLatin1String("{tenant}"))
            parts << QRegularExpression::escape(tenant);
        else
            parts << QRegularExpression::escape(f);
    }
    const QString re = QLatin1Char('^') + parts.join(QLatin1Char(':')) + QStringLiteral("(:|$)");
    const QString regex = d.regexMatch(exactText(d.kind(), keyColumn), b.bind(re));
    // The regex implies the prefix: the prefix only lets the key index narrow the scan.
    return prefixCond.isEmpty() ? regex : QStringLiteral("(%1 AND %2)").arg(prefixCond, regex);
}

QString tenantOnAnyPattern(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const QString &keyColumn,
                           const QString &tenant)
{
    QStringList alternatives;
    QStringList patterns;
    for (const auto &bt : config.bizTypes)
        if (!patterns.contains(bt.tenantPattern))
            patterns << bt.tenantPattern;
    if (!patterns.contains(BizTypeConfig().tenantPattern))
        patterns << BizTypeConfig().tenantPattern;
    for (const QString &p : patterns)
        alternatives << tenantCondition(d, b, keyColumn, p, tenant);
    return QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')');
}

} // namespace queue_sql

namespace {

using queue_sql::tenantCondition;

/// The columns of one queue source as SQL (DESIGN.md §10): the mapped record table or
/// intent log, its alias ("" or "l"), qualified column names and its time fragments.
struct Source {
    QString from;       ///< "<table>" or "<table> l"
    QString alias;      ///< "" or "l"
    QString id, key, status, createdAt, updatedAt; ///< qualified
    TimeSql time;
    StatusSql statuses;
    const RecordSql *records = nullptr; ///< the record table (biz_type, tenant column); null for the intent log
};

Source recordSource(const RecordSql &r)
{
    return {r.table, QString(), r.id, r.key, r.status, r.createdAt, r.updatedAt, r.time, r.statuses, &r};
}

Source intentSource(const IntentSql &i)
{
    const QString l = QStringLiteral("l");
    return {i.table + QStringLiteral(" l"), l, qualified(l, i.id), qualified(l, i.key), qualified(l, i.status),
            qualified(l, i.createdAt), qualified(l, i.updatedAt), i.time, i.statuses, nullptr};
}

/// Filter conditions common to both sources (key substring, tenant, time windows) on the
/// mapped columns of `src`.
QStringList commonConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const QueueFilter &f,
                             const Source &src)
{
    QStringList where;
    const QString &keyColumn = src.key;
    if (!f.keySubstring.isEmpty()) {
        // Case-sensitive on every backend (exactText(): BINARY on MySQL/MariaDB collations).
        where << QStringLiteral("%1 LIKE %2%3")
                     .arg(exactText(d.kind(), keyColumn),
                          b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(f.keySubstring) + QLatin1Char('%')),
                          SqlDialect::likeEscapeClause());
    }
    if (!f.tenant.isEmpty()) {
        const RecordSql *rs = src.records;
        if (rs && !rs->tenant.isEmpty()) {
            // A real tenant column (DESIGN.md §10): no key pattern involved.
            where << textIs(b, d.kind(), qualified(src.alias, rs->tenant), f.tenant);
        } else if (rs && !f.bizType.isEmpty()) {
            where << tenantCondition(d, b, keyColumn, config.bizType(f.bizType).tenantPattern, f.tenant);
        } else if (rs) {
            QStringList alternatives;
            for (auto it = config.bizTypes.cbegin(); it != config.bizTypes.cend(); ++it)
                alternatives << QStringLiteral("(%1 AND %2)")
                                    .arg(rs->bizTypeIs(b, it.key(), src.alias),
                                         tenantCondition(d, b, keyColumn, it->tenantPattern, f.tenant));
            const QString fallback = tenantCondition(d, b, keyColumn, BizTypeConfig().tenantPattern, f.tenant);
            if (config.bizTypes.isEmpty())
                alternatives << fallback;
            else
                alternatives << QStringLiteral("(%1 AND %2)").arg(rs->bizTypeNotIn(b, config.bizTypes.keys(), src.alias), fallback);
            where << QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')');
        } else {
            // Intent-log rows have no biz_type: any configured pattern, or the default.
            where << queue_sql::tenantOnAnyPattern(d, b, config, keyColumn, f.tenant);
        }
    }
    auto window = [&](const QString &column, const std::optional<UtcMicros> &from, const std::optional<UtcMicros> &to) {
        if (from)
            where << QStringLiteral("%1 >= %2").arg(column, src.time.param(b.bind(src.time.boundAt(*from))));
        if (to)
            where << QStringLiteral("%1 < %2").arg(column, src.time.param(b.bind(src.time.boundAt(*to))));
    };
    window(src.createdAt, f.createdFrom, f.createdTo);
    window(src.updatedAt, f.updatedFrom, f.updatedTo);
    return where;
}

/// The two record streams of the Unknown queue (DESIGN.md §2): stale PROCESSING records, and
/// records whose stored status no spelling matches (UNKNOWN_CODE_<value>, NULL), at any age.
/// Each is its own keyset stream on the (status, updated_at, id) index; an OR of the two
/// would make every page a scan of the whole table (DESIGN.md §10 "Statuses").
enum class RecordStream { Queue, UnknownStatus };

/// The text spellings of `rs`'s status column in the column's own order (StatusSql::
/// spellingOrderSql()), read once per connection; empty for integer codes, on MySQL/MariaDB,
/// or when the server cannot order them (an enum lacking a spelling: doctor says so), where
/// StatusSql::isUnknown() falls back to its exact test alone.
QStringList spellingOrder(DbSession &session, const RecordSql &rs)
{
    SqlBuilder b;
    const QString sql = rs.statuses.spellingOrderSql(b, rs.table, rs.status);
    if (sql.isEmpty())
        return {};
    const QString memoKey = QStringLiteral("queue.spelling-order:%1.%2:%3")
                                .arg(rs.table, rs.status, rs.statuses.allSpellings().join(QLatin1Char('\x1f')));
    return session
        .memo(memoKey,
              [&]() -> QVariant {
                  QStringList order;
                  try {
                      QSqlQuery q = session.exec(sql, b);
                      while (q.next())
                          order << q.value(0).toString();
                  } catch (const DbException &e) {
                      if (e.error.kind != DbError::Kind::Statement)
                          throw;
                      order.clear();
                  }
                  return order;
              })
        .toStringList();
}

/// Record conditions for `req` (status, staleness against per-biz_type timeouts); for the
/// Unknown queue those of one of its two record streams. `order`: spellingOrder().
QStringList recordConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const Source &src,
                             const QueueRequest &req, RecordStream stream = RecordStream::Queue,
                             const QStringList &order = {})
{
    const RecordSql &rs = *src.records;
    QStringList where;
    if (stream == RecordStream::UnknownStatus) {
        where << src.statuses.isUnknown(b, src.status, order);
        if (!req.filter.bizType.isEmpty())
            where << rs.bizTypeIs(b, req.filter.bizType);
        where << commonConditions(d, b, config, req.filter, src);
        return where;
    }
    switch (req.kind) {
    case QueueKind::Unknown:
    case QueueKind::InFlight: {
        where << src.statuses.isAny(b, src.status, {recordStatusName(Processing)});
        const QString op = req.kind == QueueKind::Unknown ? QStringLiteral("<") : QStringLiteral(">=");
        auto older = [&](int timeoutS) {
            return QStringLiteral("%1 %2 %3").arg(src.updatedAt, op, src.time.nowMinusSeconds(b.bind(timeoutS)));
        };
        if (!req.filter.bizType.isEmpty()) {
            where << older(config.bizType(req.filter.bizType).processingTimeoutS);
        } else {
            QStringList alternatives;
            for (auto it = config.bizTypes.cbegin(); it != config.bizTypes.cend(); ++it)
                alternatives << QStringLiteral("(%1 AND %2)").arg(rs.bizTypeIs(b, it.key()), older(it->processingTimeoutS));
            const QString fallback = older(config.defaultProcessingTimeoutS);
            if (config.bizTypes.isEmpty())
                alternatives << fallback;
            else
                alternatives << QStringLiteral("(%1 AND %2)").arg(rs.bizTypeNotIn(b, config.bizTypes.keys()), fallback);
            where << (alternatives.size() == 1 ? alternatives.first()
                                               : QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')'));
        }
        break;
    }
    case QueueKind::Failed:
        where << src.statuses.isAny(b, src.status, {recordStatusName(Failed)});
        break;
    case QueueKind::Succeeded:
        where << src.statuses.isAny(b, src.status, {recordStatusName(Success)});
        break;
    case QueueKind::Escalated:
        where << QStringLiteral("1 = 0");
        break;
    }
    if (!req.filter.bizType.isEmpty())
        where << rs.bizTypeIs(b, req.filter.bizType);
    where << commonConditions(d, b, config, req.filter, src);
    return where;
}

QStringList intentStatusesFor(QueueKind kind)
{
    if (kind == QueueKind::Escalated)
        return {QStringLiteral("ESCALATED")};
    return {QStringLiteral("UNKNOWN"), QStringLiteral("RECONCILE_PENDING")};
}

/// Intent conditions: the row is the key's latest attempt and its status puts it in the queue.
QStringList intentConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const IntentSql &is,
                             const Source &src, const QueueRequest &req)
{
    QStringList where;
    where << src.statuses.isAny(b, src.status, intentStatusesFor(req.kind));
    where << QStringLiteral("%1 IS NOT NULL").arg(src.key);
    // The key's latest attempt: one backward step on the (idem_key, created_at, id) index per
    // candidate row (a NOT EXISTS anti-join is quadratic for a key with many attempts).
    // Ordered by the stored created_at: the same order as the instant in every encoding.
    const QString n = QStringLiteral("n");
    where << QStringLiteral("%1 = (SELECT %2 FROM %3 n WHERE %4 ORDER BY %5 DESC, %2 DESC LIMIT 1)")
                 .arg(src.id, qualified(n, is.id), is.table, textSame(d.kind(), qualified(n, is.key), src.key),
                      qualified(n, is.createdAt));
    if (config.intent.sameDatabase(config.idempotency)) {
        // A step whose record an operator or the reconciler already settled is no longer
        // unknown. (Only where both tables share a database; across servers the step stays
        // listed and its detail shows the settled record.)
        const RecordSql rs = config.records(config.idempotency.dialect);
        const QString r = QStringLiteral("r");
        where << QStringLiteral("NOT EXISTS (SELECT 1 FROM %1 r WHERE %2 AND %3)")
                     .arg(rs.table, textSame(d.kind(), qualified(r, rs.key), src.key),
                          rs.statuses.isAny(b, qualified(r, rs.status), {recordStatusName(Success), recordStatusName(Failed)}));
    }
    where << commonConditions(d, b, config, req.filter, src);
    return where;
}

/// The keyset cursor value to bind for `cursor` in `src`: its own cursor text, or, for a
/// position taken from the other source's row whose cursor form differs (`otherTime`),
/// the instant in this table's form (rounded up where the id bound keeps the rows at it).
QVariant cursorBindValue(const Source &src, const TimeSql &otherTime, const SourceCursor &cursor)
{
    if (!cursor.instant.isEmpty()
        && (otherTime.dialect() != src.time.dialect() || !(otherTime.mapping() == src.time.mapping()))) {
        if (const auto t = parseUtcMicros(cursor.instant))
            return src.time.cursorValue(src.time.cursorAt(*t, cursor.id == std::numeric_limits<qint64>::min() + 1));
    }
    return src.time.cursorValue(cursor.time);
}

/// The SELECT of one page of `src`: rows matching `where` after `cursor` in the queue's
/// order, at most `limit`. Selects id, idem_key, `third`, status, created_at, updated_at
/// (ISO text), the age in seconds, the cursor text of updated_at, then `extra`, each under
/// a "tc_" alias; `withOrder` adds updated_at as stored ("tc_order", for a UNION ALL of
/// streams ordered again outside).
QString pageSelect(SqlBuilder &b, QStringList where, const Source &src, const TimeSql &otherTime, const QString &third,
                   const QStringList &extra, const QueueRequest &req, const SourceCursor &cursor, int limit,
                   bool withOrder = false)
{
    if (cursor.started)
        where << src.time.keysetAfter(b, src.updatedAt, src.id, cursorBindValue(src, otherTime, cursor), cursor.id,
                                      req.newestFirst);
    // Computed columns get aliases of their own: an unnamed CAST(updated_ms AS text) is
    // named "updated_ms", and ORDER BY resolves output names first (PostgreSQL, MySQL,
    // SQLite): the page would sort by the text, over the whole table.
    QStringList columns{src.id + QStringLiteral(" AS tc_id"), src.key + QStringLiteral(" AS tc_key"),
                        third + QStringLiteral(" AS tc_third"), src.statuses.read(src.status) + QStringLiteral(" AS tc_status"),
                        src.time.text(src.createdAt) + QStringLiteral(" AS tc_created"),
                        src.time.text(src.updatedAt) + QStringLiteral(" AS tc_updated"),
                        src.time.secondsSince(src.updatedAt) + QStringLiteral(" AS tc_age"),
                        src.time.cursor(src.updatedAt) + QStringLiteral(" AS tc_cursor")};
    columns << extra;
    if (withOrder)
        columns << src.updatedAt + QStringLiteral(" AS tc_order");
    const QString dir = req.newestFirst ? QStringLiteral(" DESC") : QString();
    return QStringLiteral("SELECT %1 FROM %2 WHERE %3 ORDER BY %4%5, %6%5 LIMIT %7")
        .arg(columns.join(QStringLiteral(", ")), src.from, where.join(QStringLiteral(" AND ")), src.updatedAt, dir, src.id,
             b.bind(limit));
}

/// Runs pageSelect(). Throws DbException.
QSqlQuery selectPage(DbSession &session, SqlBuilder &b, QStringList where, const Source &src, const TimeSql &otherTime,
                     const QString &third, const QStringList &extra, const QueueRequest &req, const SourceCursor &cursor,
                     int limit)
{
    return session.exec(pageSelect(b, std::move(where), src, otherTime, third, extra, req, cursor, limit), b);
}

/// The columns selectPage() selects alike for both sources (id, key, times, age, cursor).
QueueRow pageRow(const QSqlQuery &q, QueueSource source)
{
    QueueRow r;
    r.source = source;
    r.id = q.value(0).toLongLong();
    r.idemKey = q.value(1).toString();
    r.createdAt = canonicalTimeText(q.value(4));
    r.updatedAt = canonicalTimeText(q.value(5));
    r.ageSeconds = q.value(6).toDouble();
    r.cursorTime = q.value(7).toString();
    return r;
}

} // namespace

namespace queue_sql {

QVector<QueueRow> pageRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit)
{
    SqlBuilder b;
    const RecordSql rs = config.records(session.dialect().kind());
    const Source src = recordSource(rs);
    const TimeSql other = config.intents(config.intent.dialect).time;
    const QStringList extra{rs.expireAtText() + QStringLiteral(" AS tc_expire")};
    QString sql;
    if (req.kind == QueueKind::Unknown) {
        // Two keyset streams on the same (updated_at, id) order, each on its index, merged:
        // stale PROCESSING and unknown stored statuses (DESIGN.md §2, §10). They never share
        // a row (a PROCESSING spelling is a known one), so the first `limit` of the two
        // streams' first `limit` rows are the page.
        const QStringList order = spellingOrder(session, rs);
        const QString stale = pageSelect(b, recordConditions(session.dialect(), b, config, src, req), src, other,
                                         rs.bizType(b), extra, req, cursor, limit, true);
        const QString unknown =
            pageSelect(b, recordConditions(session.dialect(), b, config, src, req, RecordStream::UnknownStatus, order), src,
                       other, rs.bizType(b), extra, req, cursor, limit, true);
        const QString dir = req.newestFirst ? QStringLiteral(" DESC") : QString();
        sql = QStringLiteral("SELECT * FROM (%1) s UNION ALL SELECT * FROM (%2) u ORDER BY tc_order%3, tc_id%3 LIMIT %4")
                  .arg(stale, unknown, dir, b.bind(limit));
    } else {
        sql = pageSelect(b, recordConditions(session.dialect(), b, config, src, req), src, other, rs.bizType(b), extra, req,
                         cursor, limit);
    }
    QSqlQuery q = session.exec(sql, b);
    QVector<QueueRow> rows;
    while (q.next()) {
        QueueRow r = pageRow(q, QueueSource::Record);
        r.bizType = q.value(2).toString();
        r.status = StoredRecordStatus::fromMapped(q.value(3), rs.map.statuses).text;
        r.expireAt = canonicalTimeText(q.value(8));
        rows.append(std::move(r));
    }
    return rows;
}

QVector<QueueRow> pageIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit)
{
    SqlBuilder b;
    const IntentSql is = config.intents(session.dialect().kind());
    const Source src = intentSource(is);
    const QStringList where = intentConditions(session.dialect(), b, config, is, src, req);
    const TimeSql other = config.records(config.idempotency.dialect).time;
    const QString l = QStringLiteral("l");
    QSqlQuery q = selectPage(session, b, where, src, other, qualified(l, is.action),
                             {qualified(l, is.taskId), qualified(l, is.stepId)}, req, cursor, limit);
    QVector<QueueRow> rows;
    while (q.next()) {
        QueueRow r = pageRow(q, QueueSource::Intent);
        r.action = columnText(q.value(2)).value_or(QString());
        r.status = is.statusName(q.value(3));
        r.taskId = columnText(q.value(8)).value_or(QString());
        r.stepId = columnText(q.value(9)).value_or(QString());
        rows.append(std::move(r));
    }
    return rows;
}

qint64 countRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req)
{
    SqlBuilder b;
    const RecordSql rs = config.records(session.dialect().kind());
    const Source src = recordSource(rs);
    const QStringList where = recordConditions(session.dialect(), b, config, src, req);
    QString sql = QStringLiteral("SELECT COUNT(*) FROM %1 WHERE %2").arg(rs.table, where.join(QStringLiteral(" AND ")));
    if (req.kind == QueueKind::Unknown) {
        // Both record streams, each counted on its own index (see pageRecords()).
        const QStringList unknown = recordConditions(session.dialect(), b, config, src, req, RecordStream::UnknownStatus,
                                                     spellingOrder(session, rs));
        sql = QStringLiteral("SELECT (%1) + (SELECT COUNT(*) FROM %2 WHERE %3)")
                  .arg(sql, rs.table, unknown.join(QStringLiteral(" AND ")));
    }
    QSqlQuery q = session.exec(sql, b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

qint64 countIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req)
{
    SqlBuilder b;
    const IntentSql is = config.intents(session.dialect().kind());
    const Source src = intentSource(is);
    const QStringList where = intentConditions(session.dialect(), b, config, is, src, req);
    QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM %1 WHERE %2").arg(src.from, where.join(QStringLiteral(" AND "))), b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace queue_sql

QueuePage mergeQueuePages(const QueueRequest &req, const QueueCursor &from, const QVector<QueueRow> &records,
                          bool recordsComplete, const QVector<QueueRow> &intents, bool intentsComplete, int limit)
{
    QueuePage page;
    page.next = from;
    auto before = [&](const QueueRow &a, const QueueRow &b) { return queueRowBefore(req, a, b); };
    int ri = 0, ii = 0;
    while (page.rows.size() < limit && (ri < records.size() || ii < intents.size())) {
        const bool takeRecord = ii >= intents.size() || (ri < records.size() && before(records[ri], intents[ii]));
        const QueueRow &r = takeRecord ? records[ri++] : intents[ii++];
        SourceCursor &c = takeRecord ? page.next.record : page.next.intent;
        c.started = true;
        c.time = r.cursorTime;
        c.id = r.id;
        c.instant.clear();
        page.rows.append(r);
    }
    if (recordsComplete && ri >= records.size())
        page.next.record.exhausted = true;
    if (intentsComplete && ii >= intents.size())
        page.next.intent.exhausted = true;
    // The other source continues after the queue position reached, not after its own last
    // row: a source that has not started yet (or lags behind) would otherwise return rows
    // inserted since the first page at positions the listing has already passed (e.g. a new
    // record newer than every row shown, in the middle of a newest-first listing).
    if (!page.rows.isEmpty()) {
        const QueueRow &last = page.rows.constLast();
        const bool lastIsRecord = last.source == QueueSource::Record;
        SourceCursor &other = lastIsRecord ? page.next.intent : page.next.record;
        if (!other.exhausted) {
            // On equal times records come first: after an intent at time t no record at t is
            // left; after a record at t every intent at t still is. The id bound says which.
            const bool noneLeftAtT = !lastIsRecord;
            other.started = true;
            other.time = last.cursorTime;
            other.instant = last.updatedAt; // for a table that keeps time otherwise (TimeSql::cursorAt())
            other.id = noneLeftAtT == !req.newestFirst ? std::numeric_limits<qint64>::max()
                                                       : std::numeric_limits<qint64>::min() + 1;
        }
    }
    page.atEnd = page.next.record.exhausted && page.next.intent.exhausted;
    return page;
}

} // namespace triage
