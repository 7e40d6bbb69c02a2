#include "Audit.h"
#include "AuditBulk.h"

#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "SqlChunks.h"

#include <QSet>
#include <QSqlQuery>

#include <functional>

namespace triage {

namespace {

QVariant textOrNull(const QString &s)
{
    return s.isNull() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(s);
}

QString columns(const SqlDialect &d)
{
    return QStringLiteral("id, request_id, %1, operator, db_user, host, action, idem_key, from_state, to_state, reason, "
                          "evidence, outcome, detail")
        .arg(d.timeText(QStringLiteral("at")));
}

AuditEntry fromQuery(const QSqlQuery &q)
{
    AuditEntry e;
    e.id = q.value(0).toLongLong();
    e.requestId = q.value(1).toString();
    e.at = canonicalTimeText(q.value(2));
    e.operatorName = q.value(3).toString();
    e.dbUser = columnText(q.value(4)).value_or(QString());
    e.host = columnText(q.value(5)).value_or(QString());
    e.action = canonicalAuditAction(q.value(6).toString());
    e.idemKey = q.value(7).toString();
    e.fromState = columnText(q.value(8)).value_or(QString());
    e.toState = columnText(q.value(9)).value_or(QString());
    e.reason = q.value(10).toString();
    e.evidence = columnText(q.value(11)).value_or(QString());
    e.outcome = q.value(12).toString();
    e.detail = columnText(q.value(13)).value_or(QString());
    return e;
}

} // namespace

QString auditDbUser(const ConnectionProfile &profile)
{
    return profile.dialect == Dialect::Sqlite ? QString() : profile.user;
}

namespace audit_sql {

qint64 insert(DbSession &session, const AuditEntry &entry)
{
    // Every operator action is audited here: a console older than the database's console
    // schema writes nothing (DESIGN.md §10 "Schema version"), nor does any while frozen (§8).
    requireKnownConsoleSchema(session);
    return insertThroughFreeze(session, entry);
}

qint64 insertThroughFreeze(DbSession &session, const AuditEntry &entry)
{
    requireKnownConsoleSchemaOnly(session);
    const AuditEntry e = boundedAuditEntry(entry);
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    const QString sql = QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, db_user, host, action, idem_key, "
                                       "from_state, to_state, reason, evidence, outcome, detail) VALUES "
                                       "(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13)")
                            .arg(b.bind(e.requestId), d.nowValue(), b.bind(e.operatorName), b.bind(textOrNull(e.dbUser)),
                                 b.bind(textOrNull(e.host)), b.bind(e.action), b.bind(e.idemKey), b.bind(textOrNull(e.fromState)),
                                 b.bind(textOrNull(e.toState)))
                            .arg(b.bind(e.reason), b.bind(textOrNull(e.evidence)), b.bind(e.outcome), b.bind(textOrNull(e.detail)));
    return session.insertReturningId(sql, b);
}

QVector<AuditEntry> read(DbSession &session, const AuditQuery &query)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    QStringList where;
    if (!query.idemKey.isEmpty())
        where << QStringLiteral("idem_key = %1").arg(b.bind(query.idemKey));
    if (query.since)
        where << QStringLiteral("at >= %1").arg(d.timeParam(b.bind(d.bindTime(*query.since))));
    QSqlQuery q = session.exec(selectSql(b, columns(d), QStringLiteral("triage_audit"), where, QStringLiteral("at, id"), query.limit), b);
    QVector<AuditEntry> rows;
    while (q.next())
        rows.append(fromQuery(q));
    return rows;
}

QVector<AuditEntry> readForKeys(DbSession &session, const QStringList &keys)
{
    if (keys.isEmpty())
        return {};
    SqlBuilder b;
    QStringList bound;
    for (const QString &k : keys)
        bound << b.bind(k);
    QSqlQuery q = session.exec(selectSql(b, columns(session.dialect()), QStringLiteral("triage_audit"),
                                         {QStringLiteral("idem_key IN (%1)").arg(bound.join(QStringLiteral(", ")))},
                                         QStringLiteral("at, id"), 0),
                               b);
    QVector<AuditEntry> rows;
    while (q.next())
        rows.append(fromQuery(q));
    return rows;
}

std::optional<AuditEntry> byRequestId(DbSession &session, const QString &requestId)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_audit WHERE request_id = %2 ORDER BY id DESC LIMIT 1")
                                   .arg(columns(session.dialect()), b.bind(requestId)),
                               b);
    if (q.next())
        return fromQuery(q);
    return std::nullopt;
}

std::optional<AuditEntry> lastApplied(DbSession &session, const QString &idemKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_audit WHERE idem_key = %2 AND outcome = %3 "
                                              "ORDER BY at DESC, id DESC LIMIT 1")
                                   .arg(columns(session.dialect()), b.bind(idemKey), b.bind(QStringLiteral("applied"))),
                               b);
    if (q.next())
        return fromQuery(q);
    return std::nullopt;
}

std::optional<AuditEntry> latestUpstreamQuery(DbSession &session, const QString &idemKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_audit WHERE idem_key = %2 AND action = %3 "
                                              "ORDER BY at DESC, id DESC LIMIT 1")
                                   .arg(columns(session.dialect()), b.bind(idemKey),
                                        b.bind(QString::fromUtf16(audit_action::QueryUpstream))),
                               b);
    if (q.next())
        return fromQuery(q);
    return std::nullopt;
}

} // namespace audit_sql

namespace {

/// The newest row per exact value of column `keyColumn` (request_id or idem_key) among `values`,
/// restricted by `extra` (a condition with its values bound through the chunk's builder).
QHash<QString, AuditEntry> newestPer(DbSession &session, const QString &keyColumn, const QStringList &values,
                                     const std::function<QString(SqlBuilder &)> &extra)
{
    QHash<QString, AuditEntry> out;
    const QSet<QString> wanted(values.cbegin(), values.cend());
    const QString cols = columns(session.dialect());
    const int keyAt = keyColumn == QLatin1String("request_id") ? 1 : 7;
    forEachInListChunk(
        session, values,
        [&](SqlBuilder &b, const QString &in) {
            const QString more = extra ? QStringLiteral(" AND ") + extra(b) : QString();
            return QStringLiteral("SELECT %1 FROM triage_audit WHERE %2 IN (%3)%4 ORDER BY at, id").arg(cols, keyColumn, in, more);
        },
        [&](const QSqlQuery &q) {
            // Later rows win (ordered by at, then id); an exact key only (MySQL's collations
            // match case-insensitively).
            const QString key = q.value(keyAt).toString();
            if (wanted.contains(key))
                out.insert(key, fromQuery(q));
        });
    return out;
}

} // namespace

namespace audit_sql {

QHash<QString, AuditEntry> byRequestIds(DbSession &session, const QStringList &requestIds)
{
    // byRequestId() takes the highest id; request ids are written once, so at/id order agrees.
    return newestPer(session, QStringLiteral("request_id"), requestIds, {});
}

QHash<QString, AuditEntry> latestUpstreamQueries(DbSession &session, const QStringList &keys)
{
    return newestPer(session, QStringLiteral("idem_key"), keys, [](SqlBuilder &b) {
        return QStringLiteral("action = %1").arg(b.bind(QString::fromUtf16(audit_action::QueryUpstream)));
    });
}

QHash<QString, AuditEntry> lastAppliedFor(DbSession &session, const QStringList &keys)
{
    return newestPer(session, QStringLiteral("idem_key"), keys,
                     [](SqlBuilder &b) { return QStringLiteral("outcome = %1").arg(b.bind(QStringLiteral("applied"))); });
}

QHash<QString, qint64> insertMany(DbSession &session, const QVector<AuditEntry> &entries)
{
    QHash<QString, qint64> ids;
    if (entries.isEmpty())
        return ids;
    requireKnownConsoleSchema(session); // the freeze check, once, inside the writer's transaction
    const SqlDialect &d = session.dialect();
    constexpr int kRowsPerInsert = kInListChunk; // 13 values a row: 6,500 bound values at most
    QStringList requestIds;
    for (qsizetype from = 0; from < entries.size(); from += kRowsPerInsert) {
        SqlBuilder b;
        QStringList rows;
        for (const AuditEntry &entry : entries.mid(from, kRowsPerInsert)) {
            const AuditEntry e = boundedAuditEntry(entry);
            requestIds << e.requestId;
            rows << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13)")
                        .arg(b.bind(e.requestId), d.nowValue(), b.bind(e.operatorName), b.bind(textOrNull(e.dbUser)),
                             b.bind(textOrNull(e.host)), b.bind(e.action), b.bind(e.idemKey), b.bind(textOrNull(e.fromState)),
                             b.bind(textOrNull(e.toState)))
                        .arg(b.bind(e.reason), b.bind(textOrNull(e.evidence)), b.bind(e.outcome), b.bind(textOrNull(e.detail)));
        }
        const QString insert = QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, db_user, host, action, idem_key, "
                                              "from_state, to_state, reason, evidence, outcome, detail) VALUES ")
            + rows.join(QStringLiteral(", "));
        if (d.kind() == Dialect::PostgreSql) { // the new ids come back with the rows
            QSqlQuery q = session.exec(insert + QStringLiteral(" RETURNING request_id, id"), b);
            while (q.next())
                ids.insert(q.value(0).toString(), q.value(1).toLongLong());
        } else {
            session.exec(insert, b);
        }
    }
    if (d.kind() == Dialect::PostgreSql)
        return ids;
    forEachInListChunk(
        session, requestIds,
        [](SqlBuilder &, const QString &in) { return QStringLiteral("SELECT request_id, id FROM triage_audit WHERE request_id IN (%1)").arg(in); },
        [&ids](const QSqlQuery &q) { ids.insert(q.value(0).toString(), q.value(1).toLongLong()); });
    return ids;
}

} // namespace audit_sql

} // namespace triage
