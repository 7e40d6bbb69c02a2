#include "Queue.h"

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
    case QueueKind::Escalated: return QStringLiteral("Escalated");
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

namespace {

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
        const QString exact = b.bind(prefix);
        const QString like = b.bind(SqlDialect::likeLiteral(prefix + QLatin1Char(':')) + QLatin1Char('%'));
        prefixCond = QStringLiteral("(%1 = %2 OR %1 LIKE %3%4)").arg(keyColumn, exact, like, SqlDialect::likeEscapeClause());
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
    const QString regex = d.regexMatch(keyColumn, b.bind(re));
    // The regex implies the prefix: the prefix only lets the key index narrow the scan.
    return prefixCond.isEmpty() ? regex : QStringLiteral("(%1 AND %2)").arg(prefixCond, regex);
}

/// Filter conditions common to both sources (key substring, tenant, time windows) on the
/// columns of the table aliased `qualifier` ("" for none, "l." for the intent log's `l`).
QStringList commonConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config,
                             const QueueFilter &f, bool withBizType, const QString &qualifier = {})
{
    QStringList where;
    const QString keyColumn = qualifier + QStringLiteral("idem_key");
    if (!f.keySubstring.isEmpty()) {
        where << QStringLiteral("%1 LIKE %2%3")
                     .arg(keyColumn, b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(f.keySubstring) + QLatin1Char('%')),
                          SqlDialect::likeEscapeClause());
    }
    if (!f.tenant.isEmpty()) {
        if (withBizType && !f.bizType.isEmpty()) {
            where << tenantCondition(d, b, keyColumn, config.bizType(f.bizType).tenantPattern, f.tenant);
        } else if (withBizType) {
            QStringList alternatives;
            QStringList configured;
            for (auto it = config.bizTypes.cbegin(); it != config.bizTypes.cend(); ++it) {
                alternatives << QStringLiteral("(biz_type = %1 AND %2)")
                                    .arg(b.bind(it.key()), tenantCondition(d, b, keyColumn, it->tenantPattern, f.tenant));
                configured << b.bind(it.key());
            }
            const QString fallback = tenantCondition(d, b, keyColumn, BizTypeConfig().tenantPattern, f.tenant);
            if (configured.isEmpty())
                alternatives << fallback;
            else
                alternatives << QStringLiteral("(biz_type NOT IN (%1) AND %2)").arg(configured.join(QStringLiteral(", ")), fallback);
            where << QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')');
        } else {
            // Intent-log rows have no biz_type: any configured pattern, or the default.
            QStringList alternatives;
            QStringList patterns;
            for (const auto &bt : config.bizTypes)
                if (!patterns.contains(bt.tenantPattern))
                    patterns << bt.tenantPattern;
            if (!patterns.contains(BizTypeConfig().tenantPattern))
                patterns << BizTypeConfig().tenantPattern;
            for (const QString &p : patterns)
                alternatives << tenantCondition(d, b, keyColumn, p, f.tenant);
            where << QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')');
        }
    }
    auto window = [&](const char *col, const std::optional<UtcMicros> &from, const std::optional<UtcMicros> &to) {
        const QString column = qualifier + QLatin1String(col);
        if (from)
            where << QStringLiteral("%1 >= %2").arg(column, d.timeParam(b.bind(d.bindTime(*from))));
        if (to)
            where << QStringLiteral("%1 < %2").arg(column, d.timeParam(b.bind(d.bindTime(*to))));
    };
    window("created_at", f.createdFrom, f.createdTo);
    window("updated_at", f.updatedFrom, f.updatedTo);
    return where;
}

/// Record conditions for `req` (status, staleness against per-biz_type timeouts).
QStringList recordConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const QueueRequest &req)
{
    QStringList where;
    switch (req.kind) {
    case QueueKind::Unknown:
    case QueueKind::InFlight: {
        where << QStringLiteral("status = %1").arg(b.bind(int(Processing)));
        const QString op = req.kind == QueueKind::Unknown ? QStringLiteral("<") : QStringLiteral(">=");
        if (!req.filter.bizType.isEmpty()) {
            where << QStringLiteral("updated_at %1 %2")
                         .arg(op, d.nowMinusSeconds(b.bind(config.bizType(req.filter.bizType).processingTimeoutS)));
        } else {
            QStringList alternatives;
            QStringList configured;
            for (auto it = config.bizTypes.cbegin(); it != config.bizTypes.cend(); ++it) {
                alternatives << QStringLiteral("(biz_type = %1 AND updated_at %2 %3)")
                                    .arg(b.bind(it.key()), op, d.nowMinusSeconds(b.bind(it->processingTimeoutS)));
                configured << b.bind(it.key());
            }
            const QString fallback = QStringLiteral("updated_at %1 %2").arg(op, d.nowMinusSeconds(b.bind(config.defaultProcessingTimeoutS)));
            if (configured.isEmpty())
                alternatives << fallback;
            else
                alternatives << QStringLiteral("(biz_type NOT IN (%1) AND %2)").arg(configured.join(QStringLiteral(", ")), fallback);
            where << (alternatives.size() == 1 ? alternatives.first()
                                               : QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')'));
        }
        break;
    }
    case QueueKind::Failed:
        where << QStringLiteral("status = %1").arg(b.bind(int(Failed)));
        break;
    case QueueKind::Succeeded:
        where << QStringLiteral("status = %1").arg(b.bind(int(Success)));
        break;
    case QueueKind::Escalated:
        where << QStringLiteral("1 = 0");
        break;
    }
    if (!req.filter.bizType.isEmpty())
        where << QStringLiteral("biz_type = %1").arg(b.bind(req.filter.bizType));
    where << commonConditions(d, b, config, req.filter, true);
    return where;
}

QStringList intentStatusesFor(QueueKind kind)
{
    if (kind == QueueKind::Escalated)
        return {QStringLiteral("ESCALATED")};
    return {QStringLiteral("UNKNOWN"), QStringLiteral("RECONCILE_PENDING")};
}

/// Intent conditions: the row is the key's latest attempt and its status puts it in the queue.
QStringList intentConditions(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const QueueRequest &req)
{
    QStringList where;
    QStringList statuses;
    for (const QString &s : intentStatusesFor(req.kind))
        statuses << b.bind(s);
    where << QStringLiteral("l.status IN (%1)").arg(statuses.join(QStringLiteral(", ")));
    where << QStringLiteral("l.idem_key IS NOT NULL");
    // The key's latest attempt: one backward step on the (idem_key, created_at, id) index per
    // candidate row (a NOT EXISTS anti-join is quadratic for a key with many attempts).
    where << QStringLiteral("l.id = (SELECT n.id FROM intent_log n WHERE n.idem_key = l.idem_key "
                            "ORDER BY n.created_at DESC, n.id DESC LIMIT 1)");
    if (config.intent.sameDatabase(config.idempotency)) {
        // A step whose record an operator or the reconciler already settled is no longer
        // unknown. (Only where both tables share a database; across servers the step stays
        // listed and its detail shows the settled record.)
        where << QStringLiteral("NOT EXISTS (SELECT 1 FROM idempotency_record r WHERE r.idem_key = l.idem_key AND "
                                "r.status IN (%1, %2))")
                     .arg(b.bind(int(Success)), b.bind(int(Failed)));
    }
    where << commonConditions(d, b, config, req.filter, false, QStringLiteral("l."));
    return where;
}

QString cursorBindValue(const SqlDialect &d, const QString &time)
{
    if (d.kind() == Dialect::Sqlite)
        return time;
    const auto t = parseUtcMicros(time);
    return t ? d.bindTime(*t).toString() : time;
}

QString orderBy(const QString &prefix, bool desc)
{
    const QString dir = desc ? QStringLiteral(" DESC") : QString();
    return QStringLiteral(" ORDER BY %1updated_at%2, %1id%2").arg(prefix, dir);
}

/// Runs one page of `from` (a table, with its alias) whose columns are qualified by
/// `qualifier` ("" or "l."): rows matching `where` after `cursor` in the queue's order,
/// at most `limit`. Selects id, idem_key, `third`, status, created_at, updated_at, the age
/// in seconds, then `extra`. Throws DbException.
QSqlQuery selectPage(DbSession &session, SqlBuilder &b, QStringList where, const QString &from, const QString &qualifier,
                     const QString &third, const QStringList &extra, const QueueRequest &req, const SourceCursor &cursor,
                     int limit)
{
    const SqlDialect &d = session.dialect();
    const QString updated = qualifier + QStringLiteral("updated_at");
    if (cursor.started)
        where << d.keysetAfter(b, updated, qualifier + QStringLiteral("id"), cursorBindValue(d, cursor.time), cursor.id,
                               req.newestFirst);
    QStringList columns{qualifier + QStringLiteral("id"), qualifier + QStringLiteral("idem_key"), third,
                        qualifier + QStringLiteral("status"), d.timeText(qualifier + QStringLiteral("created_at")),
                        d.timeText(updated), d.secondsSince(updated)};
    columns << extra;
    const QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE %3%4 LIMIT %5")
                            .arg(columns.join(QStringLiteral(", ")), from, where.join(QStringLiteral(" AND ")),
                                 orderBy(qualifier, req.newestFirst), b.bind(limit));
    return session.exec(sql, b);
}

/// The columns selectPage() selects alike for both sources (id, key, times, age).
QueueRow pageRow(const QSqlQuery &q, QueueSource source)
{
    QueueRow r;
    r.source = source;
    r.id = q.value(0).toLongLong();
    r.idemKey = q.value(1).toString();
    r.createdAt = canonicalTimeText(q.value(4));
    const QVariant updated = q.value(5);
    r.cursorTime = updated.toString();
    r.updatedAt = canonicalTimeText(updated);
    r.ageSeconds = q.value(6).toDouble();
    return r;
}

} // namespace

namespace queue_sql {

QVector<QueueRow> pageRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit)
{
    SqlBuilder b;
    const QStringList where = recordConditions(session.dialect(), b, config, req);
    QSqlQuery q = selectPage(session, b, where, QStringLiteral("idempotency_record"), QString(), QStringLiteral("biz_type"),
                             {session.dialect().timeText(QStringLiteral("expire_at"))}, req, cursor, limit);
    QVector<QueueRow> rows;
    while (q.next()) {
        QueueRow r = pageRow(q, QueueSource::Record);
        r.bizType = q.value(2).toString();
        r.status = recordStatusText(q.value(3));
        r.expireAt = canonicalTimeText(q.value(7));
        rows.append(std::move(r));
    }
    return rows;
}

QVector<QueueRow> pageIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit)
{
    SqlBuilder b;
    const QStringList where = intentConditions(session.dialect(), b, config, req);
    QSqlQuery q = selectPage(session, b, where, QStringLiteral("intent_log l"), QStringLiteral("l."), QStringLiteral("l.action"),
                             {QStringLiteral("l.task_id"), QStringLiteral("l.step_id")}, req, cursor, limit);
    QVector<QueueRow> rows;
    while (q.next()) {
        QueueRow r = pageRow(q, QueueSource::Intent);
        r.action = columnText(q.value(2)).value_or(QString());
        r.status = q.value(3).toString();
        r.taskId = columnText(q.value(7)).value_or(QString());
        r.stepId = columnText(q.value(8)).value_or(QString());
        rows.append(std::move(r));
    }
    return rows;
}

qint64 countRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req)
{
    SqlBuilder b;
    const QStringList where = recordConditions(session.dialect(), b, config, req);
    QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM idempotency_record WHERE ") + where.join(QStringLiteral(" AND ")), b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

qint64 countIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req)
{
    SqlBuilder b;
    const QStringList where = intentConditions(session.dialect(), b, config, req);
    QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM intent_log l WHERE ") + where.join(QStringLiteral(" AND ")), b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace queue_sql

QueuePage mergeQueuePages(const QueueRequest &req, const QueueCursor &from, const QVector<QueueRow> &records,
                          bool recordsComplete, const QVector<QueueRow> &intents, bool intentsComplete, int limit)
{
    QueuePage page;
    page.next = from;
    auto key = [](const QueueRow &r) { return parseUtcMicros(r.updatedAt).value_or(0); };
    auto before = [&](const QueueRow &a, const QueueRow &b) {
        const UtcMicros ta = key(a), tb = key(b);
        if (ta != tb)
            return req.newestFirst ? ta > tb : ta < tb;
        return a.source == QueueSource::Record; // records first on equal times
    };
    int ri = 0, ii = 0;
    while (page.rows.size() < limit && (ri < records.size() || ii < intents.size())) {
        const bool takeRecord = ii >= intents.size() || (ri < records.size() && before(records[ri], intents[ii]));
        const QueueRow &r = takeRecord ? records[ri++] : intents[ii++];
        SourceCursor &c = takeRecord ? page.next.record : page.next.intent;
        c.started = true;
        c.time = r.cursorTime;
        c.id = r.id;
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
            other.id = noneLeftAtT == !req.newestFirst ? std::numeric_limits<qint64>::max()
                                                       : std::numeric_limits<qint64>::min() + 1;
        }
    }
    page.atEnd = page.next.record.exhausted && page.next.intent.exhausted;
    return page;
}

} // namespace triage
