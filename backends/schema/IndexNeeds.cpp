#include "IndexNeeds.h"

#include "SchemaSql.h"

#include <QRegularExpression>

namespace triage {

namespace {

/// "idx_<table>_<purpose>", the table without its schema and lower-case, cut so the whole
/// name fits PostgreSQL's and MySQL's 63/64-character limit.
QString indexName(const QString &table, const QString &purpose)
{
    const QString base = table.section(QLatin1Char('.'), -1).toLower();
    const int room = 63 - 4 - 1 - int(purpose.size());
    return QStringLiteral("idx_%1_%2").arg(base.left(room), purpose);
}

/// An index key as compared by servingIndex(): lower case, `CAST(x AS text)` and `x::text`
/// reduced to x, `btrim(x)` and `TRIM(BOTH FROM x)` (PostgreSQL's deparsed TRIM) to trim(x),
/// then without spaces, quotes and parentheses. "UPPER(TRIM(CAST(state AS text)))" and
/// PostgreSQL 15's deparsed "upper(TRIM(BOTH FROM state::text))" both become "uppertrimstate".
QString comparableKey(const QString &key)
{
    static const QRegularExpression cast(
        QStringLiteral("cast\\s*\\(\\s*(.+?)\\s+as\\s+(?:text|char|varchar|character varying)\\s*\\)"));
    static const QRegularExpression colonCast(QStringLiteral("::\\s*(?:text|character varying|varchar|char)\\b"));
    static const QRegularExpression btrim(QStringLiteral("\\bbtrim\\b"));
    static const QRegularExpression both(QStringLiteral("\\btrim\\s*\\(\\s*both\\s+from\\s+"));
    static const QRegularExpression noise(QStringLiteral("[\\s\"`()]"));
    QString s = key.toLower();
    QString before;
    while (before != s) { // nested casts
        before = s;
        s.replace(cast, QStringLiteral("\\1"));
    }
    s.remove(colonCast);
    s.replace(btrim, QStringLiteral("trim"));
    s.replace(both, QStringLiteral("trim("));
    s.remove(noise);
    return s;
}

} // namespace

QStringList IndexNeed::shownColumns() const
{
    QStringList shown = columns;
    if (!leadingExpression.isEmpty() && !shown.isEmpty())
        shown.first() = leadingExpression;
    return shown;
}

const CatalogIndex *servingIndex(const QVector<CatalogIndex> &indexes, const IndexNeed &need)
{
    if (!need.unservable.isEmpty())
        return nullptr;
    for (const CatalogIndex &index : indexes) {
        if (index.columns.size() < need.columns.size())
            continue;
        bool prefix = true;
        for (int i = 0; i < need.columns.size() && prefix; ++i) {
            if (i == 0 && !need.leadingExpression.isEmpty())
                prefix = comparableKey(index.columns[0]) == comparableKey(need.leadingExpression);
            else
                prefix = index.columns[i].compare(need.columns[i], Qt::CaseInsensitive) == 0;
        }
        if (prefix)
            return &index;
    }
    return nullptr;
}

QVector<IndexNeed> indexNeeds(const SchemaMap &map, Dialect dialect)
{
    const bool pg = dialect == Dialect::PostgreSql;
    auto need = [&](DbRole role, const QString &table, const QStringList &columns, const QString &purpose,
                    const QStringList &indexColumns, const char *usedBy, bool agents = true) {
        QStringList cols;
        for (const QString &c : indexColumns)
            cols << sqlName(dialect, c);
        IndexNeed n{role, table, columns, QString::fromLatin1(usedBy), {}, agents, {}, {}};
        n.createSql = QStringLiteral("CREATE INDEX %1%2 ON %3 (%4)")
                          .arg(pg ? QStringLiteral("CONCURRENTLY ") : QString(), sqlName(dialect, indexName(table, purpose)),
                               sqlName(dialect, table), cols.join(QStringLiteral(", ")));
        return n;
    };
    const RecordTableMap &r = map.records;
    const IntentTableMap &i = map.intents;
    const TicketTableMap &t = map.tickets;
    const QStringList recStatus = {r.status, r.updatedAt, r.id};
    const QStringList intentKey = {i.key, i.createdAt, i.id};
    const QStringList intentStatus = {i.status, i.updatedAt, i.id};
    const QStringList auditKey = {QStringLiteral("idem_key"), QStringLiteral("at"), QStringLiteral("id")};
    IndexNeed recordKey = need(DbRole::Idempotency, r.table, {r.key}, pg ? QStringLiteral("key_prefix") : QStringLiteral("key"),
                               {r.key}, "detail view and marks (lookup by key)");
    if (pg)
        recordKey.createSql.replace(QLatin1Char('(') + sqlName(dialect, r.key) + QLatin1Char(')'),
                                    QLatin1Char('(') + sqlName(dialect, r.key) + QStringLiteral(" text_pattern_ops)"));
    // A status queue's index starts with what its statements filter on (StatusSql::compared()):
    // with status_ignore_case UPPER(TRIM(…)), an index on that expression (PostgreSQL, SQLite);
    // MySQL/MariaDB get none (MariaDB indexes no expression) and are told so.
    auto statusNeed = [&](DbRole role, const QString &table, const QStringList &columns, const StatusMapping &statuses,
                          const char *usedBy) {
        IndexNeed n = need(role, table, columns, QStringLiteral("status_updated"), columns, usedBy);
        const QString status = sqlName(dialect, columns.first());
        const QString compared = StatusSql(dialect, statuses).compared(status);
        if (compared == status)
            return n;
        n.leadingExpression = compared;
        if (dialect == Dialect::MySql) {
            n.unservable = QStringLiteral("with status_ignore_case = true the queues compare %1, and MySQL/MariaDB cannot use an "
                                          "index for that: normalise the stored spellings (one case, no spaces) and set "
                                          "status_ignore_case = false")
                               .arg(compared);
            n.createSql = QStringLiteral("-- no index can serve %1(%2) on MySQL/MariaDB: normalise the stored status "
                                         "spellings and set status_ignore_case = false")
                              .arg(table, n.shownColumns().join(QStringLiteral(", ")));
            return n;
        }
        QStringList cols = {QLatin1Char('(') + compared + QLatin1Char(')')};
        for (int i = 1; i < columns.size(); ++i)
            cols << sqlName(dialect, columns[i]);
        n.createSql = QStringLiteral("CREATE INDEX %1%2 ON %3 (%4)")
                          .arg(pg ? QStringLiteral("CONCURRENTLY ") : QString(),
                               sqlName(dialect, indexName(table, QStringLiteral("status_updated"))), sqlName(dialect, table),
                               cols.join(QStringLiteral(", ")));
        return n;
    };
    return {
        statusNeed(DbRole::Idempotency, r.table, recStatus, r.statuses,
                   "Unknown / In flight / Failed / Succeeded queues (status filter, keyset on updated_at, id)"),
        recordKey,
        need(DbRole::Idempotency, QStringLiteral("triage_audit"), {QStringLiteral("idem_key")}, QStringLiteral("key_at"), auditKey,
             "key timeline (operator actions)", false),
        need(DbRole::Intent, i.table, intentKey, QStringLiteral("key_created"), intentKey,
             "detail view attempts and the latest-attempt test of the Unknown / Escalated queues"),
        statusNeed(DbRole::Intent, i.table, intentStatus, i.statuses, "Unknown / Escalated queues (intent steps)"),
        need(DbRole::Ticket, t.table, {t.key}, QStringLiteral("idem_key"), {t.key}, "detail view tickets and duplicate-key groups"),
        need(DbRole::Ticket, t.table, {t.createdAt}, QStringLiteral("created"), {t.createdAt, t.id},
             "Duplicate keys queue (creation-time window scan, newest first) and incident window (ticket.created)"),
        // The incident window (DESIGN.md §7): each event stream is a keyset range on (time, id).
        need(DbRole::Idempotency, r.table, {r.createdAt}, QStringLiteral("created"), {r.createdAt, r.id},
             "incident window (record.created events)"),
        need(DbRole::Idempotency, r.table, {r.updatedAt}, QStringLiteral("updated"), {r.updatedAt, r.id},
             "incident window (record.updated events)"),
        need(DbRole::Intent, i.table, {i.createdAt}, QStringLiteral("created"), {i.createdAt, i.id},
             "incident window (intent attempts)"),
    };
}

QVector<IndexNeed> indexNeeds(const SchemaMap &map, Dialect dialect, DbRole role)
{
    QVector<IndexNeed> out;
    for (const IndexNeed &n : indexNeeds(map, dialect))
        if (n.role == role)
            out << n;
    return out;
}

} // namespace triage
