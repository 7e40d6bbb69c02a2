#include "IndexNeeds.h"

#include "SchemaSql.h"

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

} // namespace

QVector<IndexNeed> indexNeeds(const SchemaMap &map, Dialect dialect)
{
    const bool pg = dialect == Dialect::PostgreSql;
    auto need = [&](DbRole role, const QString &table, const QStringList &columns, const QString &purpose,
                    const QStringList &indexColumns, const char *usedBy, bool agents = true) {
        QStringList cols;
        for (const QString &c : indexColumns)
            cols << sqlName(dialect, c);
        IndexNeed n{role, table, columns, QString::fromLatin1(usedBy), {}, agents};
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
    return {
        need(DbRole::Idempotency, r.table, recStatus, QStringLiteral("status_updated"), recStatus,
             "Unknown / In flight / Failed / Succeeded queues (status filter, keyset on updated_at, id)"),
        recordKey,
        need(DbRole::Idempotency, QStringLiteral("triage_audit"), {QStringLiteral("idem_key")}, QStringLiteral("key_at"), auditKey,
             "key timeline (operator actions)", false),
        need(DbRole::Intent, i.table, intentKey, QStringLiteral("key_created"), intentKey,
             "detail view attempts and the latest-attempt test of the Unknown / Escalated queues"),
        need(DbRole::Intent, i.table, intentStatus, QStringLiteral("status_updated"), intentStatus,
             "Unknown / Escalated queues (intent steps)"),
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
