#include "Doctor.h"

#include "Workspace.h"

#include <QSqlQuery>
#include <QSqlRecord>

namespace triage {

QVector<IndexNeed> indexNeeds()
{
    // The fix statements use the names init-schema gives (resources/schema/), so running
    // a fix and then init-schema never leaves two copies of one index.
    auto need = [](DbRole role, const char *table, QStringList cols, const char *indexName, QStringList indexCols,
                   const char *usedBy) {
        IndexNeed n{role, QString::fromLatin1(table), cols, QString::fromLatin1(usedBy), {}};
        n.createSql = QStringLiteral("CREATE INDEX %1 ON %2 (%3)")
                          .arg(QString::fromLatin1(indexName), n.table, indexCols.join(QStringLiteral(", ")));
        return n;
    };
    const QStringList statusUpdated = {QStringLiteral("status"), QStringLiteral("updated_at"), QStringLiteral("id")};
    const QStringList keyCreated = {QStringLiteral("idem_key"), QStringLiteral("created_at"), QStringLiteral("id")};
    return {
        need(DbRole::Idempotency, "idempotency_record", statusUpdated, "idx_idempotency_record_status_updated", statusUpdated,
             "Unknown / In flight / Failed / Succeeded queues (status filter, keyset on updated_at, id)"),
        need(DbRole::Idempotency, "idempotency_record", {QStringLiteral("idem_key")}, "idx_idempotency_record_key",
             {QStringLiteral("idem_key")}, "detail view and marks (lookup by key)"),
        need(DbRole::Idempotency, "triage_audit", {QStringLiteral("idem_key")}, "idx_triage_audit_key_at",
             {QStringLiteral("idem_key"), QStringLiteral("at"), QStringLiteral("id")}, "key timeline (operator actions)"),
        need(DbRole::Intent, "intent_log", keyCreated, "idx_intent_log_key_created", keyCreated,
             "detail view attempts and the latest-attempt test of the Unknown / Escalated queues"),
        need(DbRole::Intent, "intent_log", statusUpdated, "idx_intent_log_status_updated", statusUpdated,
             "Unknown / Escalated queues (intent steps)"),
        need(DbRole::Ticket, "ticket", {QStringLiteral("idem_key")}, "idx_ticket_idem_key", {QStringLiteral("idem_key")},
             "detail view tickets and duplicate-key groups"),
        need(DbRole::Ticket, "ticket", {QStringLiteral("created_at")}, "idx_ticket_created",
             {QStringLiteral("created_at"), QStringLiteral("id")},
             "Duplicate keys queue (creation-time window scan, newest first)"),
    };
}

namespace doctor_sql {

QVector<QPair<QString, QStringList>> indexesOf(DbSession &session, const QString &table)
{
    SqlBuilder b;
    QString sql;
    switch (session.dialect().kind()) {
    case Dialect::PostgreSql:
        sql = QStringLiteral(
                  "SELECT i.relname, string_agg(a.attname, ',' ORDER BY k.ord) FROM pg_index x "
                  "JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid "
                  "CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) "
                  "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
                  "WHERE t.relname = %1 AND t.relnamespace = to_regnamespace(current_schema()) GROUP BY i.relname")
                  .arg(b.bind(table));
        break;
    case Dialect::MySql:
        sql = QStringLiteral("SELECT INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',') "
                             "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %1 "
                             "GROUP BY INDEX_NAME")
                  .arg(b.bind(table));
        break;
    case Dialect::Sqlite:
        sql = QStringLiteral("SELECT il.name, (SELECT group_concat(name, ',') FROM (SELECT ii.name FROM "
                             "pragma_index_info(il.name) ii ORDER BY ii.seqno)) FROM pragma_index_list(%1) il")
                  .arg(b.bind(table));
        break;
    }
    QSqlQuery q = session.exec(sql, b);
    QVector<QPair<QString, QStringList>> out;
    while (q.next())
        out.append({q.value(0).toString(), q.value(1).toString().split(QLatin1Char(','), Qt::SkipEmptyParts)});
    return out;
}

QVector<IndexFinding> inspect(DbSession &session)
{
    QVector<IndexFinding> findings;
    for (const IndexNeed &need : indexNeeds()) {
        if (need.role != session.role())
            continue;
        IndexFinding f;
        f.need = need;
        f.fix = need.createSql;
        if (session.dialect().kind() == Dialect::PostgreSql && need.table == QLatin1String("idempotency_record")
            && need.columns == QStringList{QStringLiteral("idem_key")})
            f.fix = QStringLiteral("CREATE INDEX idx_idempotency_record_key_prefix ON idempotency_record (idem_key text_pattern_ops)");
        if (!session.hasTable(need.table)) {
            f.fix = QStringLiteral("table %1 does not exist: run `triagectl init-schema`").arg(need.table);
            findings.append(f);
            continue;
        }
        for (const auto &[name, cols] : indexesOf(session, need.table)) {
            if (cols.size() >= need.columns.size()) {
                bool prefix = true;
                for (int i = 0; i < need.columns.size(); ++i)
                    prefix = prefix && cols[i].compare(need.columns[i], Qt::CaseInsensitive) == 0;
                if (prefix) {
                    f.present = true;
                    f.satisfiedBy = name;
                    f.fix.clear();
                    break;
                }
            }
        }
        if (need.columns.first() == QLatin1String("status") && session.dialect().kind() != Dialect::Sqlite) {
            // What the planner does with the queue's first-page query right now.
            const QString probe = QStringLiteral("EXPLAIN SELECT id FROM %1 WHERE status = %2 ORDER BY updated_at, id LIMIT 50")
                                      .arg(need.table, need.table == QLatin1String("intent_log") ? QStringLiteral("'UNKNOWN'")
                                                                                                  : QStringLiteral("0"));
            QSqlQuery q = session.queryDirect(probe);
            QStringList lines;
            while (q.next()) {
                if (session.dialect().kind() == Dialect::PostgreSql) {
                    lines << q.value(0).toString().trimmed();
                } else {
                    const QSqlRecord r = q.record();
                    lines << QStringLiteral("type %1, key %2").arg(q.value(r.indexOf(QStringLiteral("type"))).toString(),
                                                                    q.value(r.indexOf(QStringLiteral("key"))).toString());
                }
            }
            f.plan = lines.join(QStringLiteral(" | "));
        }
        findings.append(f);
    }
    return findings;
}

} // namespace doctor_sql

QFuture<Outcome<QVector<IndexFinding>>> inspectIndexes(Workspace &workspace, DbRole role)
{
    return workspace.worker(role).run<QVector<IndexFinding>>(&doctor_sql::inspect);
}

} // namespace triage
