#include "CompensationSql.h"

#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "TimeText.h"

#include <QSqlQuery>

namespace triage {

namespace {

QString columns(const SqlDialect &d)
{
    return QStringLiteral("id, comp_key, source_key, biz_type, action, target, request, status, attempts, operator, "
                          "reason, %1, %2, last_error, response")
        .arg(d.timeText(QStringLiteral("created_at")), d.timeText(QStringLiteral("updated_at")));
}

CompensationRow rowFrom(const QSqlQuery &q)
{
    CompensationRow r;
    r.id = q.value(0).toLongLong();
    r.compKey = q.value(1).toString();
    r.sourceKey = q.value(2).toString();
    r.bizType = q.value(3).toString();
    r.action = q.value(4).toString();
    r.target = q.value(5).toString();
    r.request = columnText(q.value(6)).value_or(QString());
    r.status = q.value(7).toString();
    r.attempts = q.value(8).toInt();
    r.operatorName = q.value(9).toString();
    r.reason = columnText(q.value(10)).value_or(QString());
    r.createdAt = canonicalTimeText(q.value(11));
    r.updatedAt = canonicalTimeText(q.value(12));
    r.lastError = columnText(q.value(13));
    r.response = columnText(q.value(14));
    return r;
}

QVariant nullOr(const QString &text)
{
    return text.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(text);
}

} // namespace

namespace {

CompensationAttemptRow attemptFrom(const QSqlQuery &q)
{
    CompensationAttemptRow a;
    a.id = q.value(0).toLongLong();
    a.compKey = q.value(1).toString();
    a.kind = q.value(2).toString();
    a.at = canonicalTimeText(q.value(3));
    if (!q.value(4).isNull())
        a.httpStatus = q.value(4).toInt();
    a.classification = q.value(5).toString();
    a.responsePreview = columnText(q.value(6));
    a.error = columnText(q.value(7));
    return a;
}

} // namespace

namespace compensation_sql {

QVector<CompensationRow> read(DbSession &session, const CompensationQuery &query)
{
    SqlBuilder b;
    QStringList where;
    if (query.status)
        where << QStringLiteral("status = %1").arg(b.bind(compensationStatusName(*query.status)));
    if (!query.sourceKey.isEmpty())
        where << QStringLiteral("source_key = %1").arg(b.bind(query.sourceKey));
    QSqlQuery q = session.exec(selectSql(b, columns(session.dialect()), QStringLiteral("triage_compensation"), where,
                                         QStringLiteral("created_at, id"), query.limit),
                               b);
    QVector<CompensationRow> rows;
    while (q.next())
        rows.append(rowFrom(q));
    return rows;
}

std::optional<CompensationRow> byKey(DbSession &session, const QString &compKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_compensation WHERE comp_key = %2")
                                   .arg(columns(session.dialect()), b.bind(compKey)),
                               b);
    if (!q.next())
        return std::nullopt;
    return rowFrom(q);
}

QVector<CompensationAttemptRow> attempts(DbSession &session, const QString &compKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT id, comp_key, kind, %1, http_status, classification, response_preview, error "
                                              "FROM triage_compensation_attempt WHERE comp_key = %2 ORDER BY id")
                                   .arg(session.dialect().timeText(QStringLiteral("at")), b.bind(compKey)),
                               b);
    QVector<CompensationAttemptRow> rows;
    while (q.next())
        rows.append(attemptFrom(q));
    return rows;
}

QVector<CompensationRow> readForSources(DbSession &session, const QStringList &sourceKeys)
{
    if (sourceKeys.isEmpty())
        return {};
    SqlBuilder b;
    QStringList bound;
    for (const QString &k : sourceKeys)
        bound << b.bind(k);
    QSqlQuery q = session.exec(selectSql(b, columns(session.dialect()), QStringLiteral("triage_compensation"),
                                         {QStringLiteral("source_key IN (%1)").arg(bound.join(QStringLiteral(", ")))},
                                         QStringLiteral("created_at, id"), 0),
                               b);
    QVector<CompensationRow> rows;
    while (q.next())
        rows.append(rowFrom(q));
    return rows;
}

QVector<CompensationAttemptRow> attemptsOf(DbSession &session, const QStringList &compKeys)
{
    QVector<CompensationAttemptRow> rows;
    if (compKeys.isEmpty())
        return rows;
    SqlBuilder b;
    QStringList bound;
    for (const QString &k : compKeys)
        bound << b.bind(k);
    QSqlQuery q = session.exec(QStringLiteral("SELECT id, comp_key, kind, %1, http_status, classification, response_preview, error "
                                              "FROM triage_compensation_attempt WHERE comp_key IN (%2) ORDER BY id")
                                   .arg(session.dialect().timeText(QStringLiteral("at")), bound.join(QStringLiteral(", "))),
                               b);
    while (q.next())
        rows.append(attemptFrom(q));
    return rows;
}

CompensationRow insertIntent(DbSession &s, const CompensationRow &r)
{
    requireKnownConsoleSchema(s); // DESIGN.md §10 "Schema version"
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    const QString sql =
        QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, status, "
                       "attempts, operator, reason, created_at, updated_at) VALUES (%1, %2, %3, %4, %5, %6, %7, 0, %8, %9, %10, %10)")
            .arg(b.bind(r.compKey), b.bind(r.sourceKey), b.bind(r.bizType), b.bind(r.action), b.bind(r.target),
                 b.bind(r.request), b.bind(compensationStatusName(CompensationStatus::Intent)), b.bind(r.operatorName))
            .arg(b.bind(r.reason), d.nowValue());
    s.begin();
    try {
        s.exec(sql, b);
        s.commit();
    } catch (...) {
        s.rollback();
        throw;
    }
    auto row = compensation_sql::byKey(s, r.compKey);
    if (!row)
        throw DbException({s.role(), DbError::Kind::Statement, QStringLiteral("the compensation intent vanished after its commit"), {}});
    return *row;
}

qint64 beginSend(DbSession &s, const QString &compKey, int seenAttempts)
{
    requireKnownConsoleSchema(s); // DESIGN.md §10 "Schema version"
    const SqlDialect &d = s.dialect();
    s.begin();
    try {
        SqlBuilder b;
        QSqlQuery u = s.exec(QStringLiteral("UPDATE triage_compensation SET attempts = attempts + 1, updated_at = %1 "
                                            "WHERE comp_key = %2 AND attempts = %3")
                                 .arg(d.nowValue(), b.bind(compKey), b.bind(seenAttempts)),
                             b);
        if (u.numRowsAffected() != 1) {
            s.rollback();
            return 0;
        }
        SqlBuilder a;
        const qint64 id = s.insertReturningId(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, classification) "
                                                             "VALUES (%1, %2, %3, %4)")
                                                  .arg(a.bind(compKey), a.bind(QStringLiteral("send")), d.nowValue(),
                                                       a.bind(QStringLiteral("IN_FLIGHT"))),
                                              a);
        s.commit();
        return id > 0 ? id : -1;
    } catch (...) {
        s.rollback();
        throw;
    }
}

void recordAttempt(DbSession &s, const QString &compKey, qint64 attemptId, const QString &kind,
                   const CompensationHttpResult &r, const QString &classification)
{
    requireKnownConsoleSchema(s); // DESIGN.md §10 "Schema version"
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    const QVariant status = r.gotResponse ? QVariant(r.status) : QVariant(QMetaType(QMetaType::Int));
    if (attemptId > 0) {
        s.exec(QStringLiteral("UPDATE triage_compensation_attempt SET http_status = %1, classification = %2, "
                              "response_preview = %3, error = %4 WHERE id = %5")
                   .arg(b.bind(status), b.bind(classification), b.bind(replyPreview(r.body)), b.bind(nullOr(r.error)),
                        b.bind(attemptId)),
               b);
        return;
    }
    s.exec(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, "
                          "classification, response_preview, error) VALUES (%1, %2, %3, %4, %5, %6, %7)")
               .arg(b.bind(compKey), b.bind(kind), d.nowValue(), b.bind(status), b.bind(classification),
                    b.bind(replyPreview(r.body)), b.bind(nullOr(r.error))),
           b);
}

void setStatus(DbSession &s, const QString &compKey, CompensationStatus status, const QString &lastError,
               const QByteArray &response)
{
    requireKnownConsoleSchema(s); // DESIGN.md §10 "Schema version"
    SqlBuilder b;
    const QVariant resp = response.isNull() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(QString::fromUtf8(response));
    s.exec(QStringLiteral("UPDATE triage_compensation SET status = %1, updated_at = %2, last_error = %3, "
                          "response = COALESCE(%4, response) WHERE comp_key = %5")
               .arg(b.bind(compensationStatusName(status)), s.dialect().nowValue(), b.bind(nullOr(lastError)), b.bind(resp),
                    b.bind(compKey)),
           b);
}

} // namespace compensation_sql

} // namespace triage
