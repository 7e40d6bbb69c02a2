// The escalation store (DESIGN.md §8 "Escalations"): triage_escalation in the idempotency
// database beside triage_audit, every change and its audit row in one transaction. One OPEN
// row per (idem_key, reason): open_slot is 1 while open, NULL once resolved, under a UNIQUE
// (idem_key, reason, open_slot); a raise is one upsert on it, so concurrent raises end with
// one open row.
#include "Escalation.h"
#include "ReconcileSqlUtil.h"

#include "Audit.h"
#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "SqlChunks.h"

#include <QJsonObject>
#include <QSqlQuery>

namespace triage {

using reconcile_sql::compactJson;
using reconcile_sql::textValue;

namespace {

QString escalationColumns(const SqlDialect &d)
{
    return QStringLiteral("e.id, e.idem_key, e.biz_type, e.tenant, e.reason, e.facts, e.amount, e.currency, e.source_ref, "
                          "%1, %2, e.run_id, %3, e.resolution, %4, e.resolved_by, e.version, %5, "
                          "CASE WHEN e.open_slot = 1 AND e.sla_due_at IS NOT NULL AND e.sla_due_at < %6 THEN 1 ELSE 0 END")
        .arg(d.timeText(QStringLiteral("e.first_escalated_at")), d.timeText(QStringLiteral("e.last_seen_at")),
             d.timeText(QStringLiteral("e.sla_due_at")), d.timeText(QStringLiteral("e.resolved_at")),
             d.secondsSince(QStringLiteral("e.first_escalated_at")), d.nowValue());
}

/// The row at `q`'s position; nullopt for a reason this build does not know (none can be
/// stored at console schema version 4: the column's CHECK lists the 11 names).
std::optional<Escalation> escalationFrom(const QSqlQuery &q)
{
    const std::optional<EscalationReason> reason = escalationReasonFromName(columnText(q.value(4)).value_or(QString()));
    if (!reason)
        return std::nullopt;
    Escalation e;
    e.id = q.value(0).toLongLong();
    e.idemKey = columnText(q.value(1)).value_or(QString());
    e.bizType = columnText(q.value(2)).value_or(QString());
    e.tenant = columnText(q.value(3)).value_or(QString());
    e.reason = *reason;
    e.facts = columnText(q.value(5)).value_or(QString());
    e.amount = columnText(q.value(6));
    e.currency = columnText(q.value(7)).value_or(QString());
    e.sourceRef = columnText(q.value(8)).value_or(QString());
    e.firstEscalatedAt = canonicalTimeText(q.value(9));
    e.lastSeenAt = canonicalTimeText(q.value(10));
    e.runId = q.value(11).toLongLong();
    e.slaDueAt = q.value(12).isNull() ? QString() : canonicalTimeText(q.value(12));
    e.resolution = columnText(q.value(13)).value_or(QString());
    e.resolvedAt = q.value(14).isNull() ? QString() : canonicalTimeText(q.value(14));
    e.resolvedBy = columnText(q.value(15)).value_or(QString());
    e.version = q.value(16).toLongLong();
    e.ageS = q.value(17).isNull() ? -1 : qint64(q.value(17).toDouble());
    e.overdue = q.value(18).toInt() == 1;
    return e;
}

QVector<Escalation> readEscalations(DbSession &s, const QString &sql, const SqlBuilder &b)
{
    QSqlQuery q = s.exec(sql, b);
    QVector<Escalation> rows;
    while (q.next())
        if (std::optional<Escalation> e = escalationFrom(q))
            rows << *e;
    return rows;
}

/// The escalation's state for audit rows: {"id","reason","state","version"[,"resolution"]}.
QJsonObject stateJson(const Escalation &e)
{
    QJsonObject o{{QStringLiteral("id"), e.id},
                  {QStringLiteral("reason"), escalationReasonName(e.reason)},
                  {QStringLiteral("state"), e.isOpen() ? QStringLiteral("open") : QStringLiteral("resolved")},
                  {QStringLiteral("version"), e.version}};
    if (!e.isOpen()) {
        o.insert(QStringLiteral("resolution"), e.resolution);
        o.insert(QStringLiteral("resolved_by"), e.resolvedBy);
        o.insert(QStringLiteral("resolved_at"), e.resolvedAt);
    }
    return o;
}

QVariant textOrNull(const std::optional<QString> &s)
{
    return s ? QVariant(*s) : QVariant(QMetaType(QMetaType::QString));
}

/// The INSERT … ON CONFLICT / ON DUPLICATE KEY statement of raise(): creates the open row
/// (first_escalated_at = last_seen_at = the server's now, sla_due_at = that + slaHours) or
/// updates the open one's facts, amount, currency, biz_type, tenant and source_ref (the
/// last four only when given), last_seen_at and run_id, bumping its version.
/// sla_due_at of a created row: n.t + slaHours, or the earlier of that and dueBy (EXPIRING: the
/// record's expire_at; DESIGN.md §8), never before n.t. Binds in text order.
QString slaDueSql(const SqlDialect &d, SqlBuilder &b, const EscalationRaise &r)
{
    if (!r.dueBy)
        return reconcile_sql::plusHours(d, QStringLiteral("n.t"), b.bind(r.slaHours));
    // A bound already past (the record expired before anyone looked) is due at once, never
    // before the escalation existed.
    const QString past = d.timeParam(b.bind(d.bindTime(*r.dueBy)));
    const QString bound = d.timeParam(b.bind(d.bindTime(*r.dueBy)));
    const QString due = reconcile_sql::plusHours(d, QStringLiteral("n.t"), b.bind(r.slaHours));
    const QString then = d.timeParam(b.bind(d.bindTime(*r.dueBy)));
    const QString otherwise = reconcile_sql::plusHours(d, QStringLiteral("n.t"), b.bind(r.slaHours));
    return QStringLiteral("CASE WHEN %1 < n.t THEN n.t WHEN %2 < %3 THEN %4 ELSE %5 END").arg(past, bound, due, then, otherwise);
}

QString upsertSql(const SqlDialect &d, SqlBuilder &b, const EscalationRaise &r)
{
    const QString values = QStringLiteral("%1, %2, %3, %4, %5, %6, %7, %8, n.t, n.t, %9, %10, 1, 1")
                               .arg(b.bind(textValue(r.idemKey)), b.bind(textValue(r.bizType)), b.bind(textValue(r.tenant)),
                                    b.bind(escalationReasonName(r.reason)), b.bind(r.facts.isEmpty() ? QStringLiteral("{}") : r.facts),
                                    b.bind(textOrNull(r.amount)), b.bind(textValue(r.currency)), b.bind(textValue(r.sourceRef)),
                                    b.bind(r.runId))
                               .arg(slaDueSql(d, b, r));
    const QString insert = QStringLiteral(
        "INSERT INTO triage_escalation (idem_key, biz_type, tenant, reason, facts, amount, currency, source_ref, "
        "first_escalated_at, last_seen_at, run_id, sla_due_at, version, open_slot) SELECT %1 FROM (SELECT %2 AS t) n");
    if (d.kind() == Dialect::MySql) {
        // Assignments run left to right on the stored row; LAST_INSERT_ID(id) hands the updated
        // row's id to the driver as if inserted.
        return insert.arg(values, d.nowValue())
            + QStringLiteral(" ON DUPLICATE KEY UPDATE facts = VALUES(facts), amount = COALESCE(VALUES(amount), amount), "
                             "currency = IF(VALUES(currency) = '', currency, VALUES(currency)), "
                             "biz_type = IF(VALUES(biz_type) = '', biz_type, VALUES(biz_type)), "
                             "tenant = IF(VALUES(tenant) = '', tenant, VALUES(tenant)), "
                             "source_ref = IF(VALUES(source_ref) = '', source_ref, VALUES(source_ref)), "
                             "last_seen_at = VALUES(last_seen_at), run_id = VALUES(run_id), version = version + 1, "
                             "id = LAST_INSERT_ID(id)");
    }
    // PostgreSQL and SQLite: the same upsert (SQLite needs a WHERE on an INSERT … SELECT
    // before ON CONFLICT, or it reads ON as a join).
    auto keep = [](const char *column) {
        return QStringLiteral("%1 = CASE WHEN excluded.%1 = '' THEN triage_escalation.%1 ELSE excluded.%1 END")
            .arg(QLatin1String(column));
    };
    return insert.arg(values, d.nowValue())
        + QStringLiteral(" WHERE 1 = 1 ON CONFLICT (idem_key, reason, open_slot) DO UPDATE SET facts = excluded.facts, "
                         "amount = COALESCE(excluded.amount, triage_escalation.amount), %1, %2, %3, %4, "
                         "last_seen_at = excluded.last_seen_at, run_id = excluded.run_id, "
                         "version = triage_escalation.version + 1 RETURNING id")
              .arg(keep("currency"), keep("biz_type"), keep("tenant"), keep("source_ref"));
}

escalation_sql::EscalationResolveResult resolveResult(escalation_sql::EscalationResolveResult::Kind kind,
                                                      std::optional<Escalation> current, const QString &message)
{
    escalation_sql::EscalationResolveResult r;
    r.kind = kind;
    r.current = std::move(current);
    r.message = message;
    return r;
}

QString resolvedText(const Escalation &e)
{
    return QStringLiteral("resolved by %1 at %2: %3").arg(e.resolvedBy, e.resolvedAt, e.resolution);
}

} // namespace

void requireReconcileTables(DbSession &session)
{
    auto present = [&] {
        return session.hasTable(QStringLiteral("triage_escalation")) && session.hasTable(QStringLiteral("triage_claim"))
            && session.hasTable(QStringLiteral("triage_reconcile_run"));
    };
    // Checked once per connection while they exist (a run raises thousands); a database
    // without them is looked at again each time, so init-schema on the same connection counts.
    if (session.memo(QStringLiteral("reconcile tables"), [&] { return QVariant(present()); }).toBool() || present())
        return;
    throw DbException({session.role(), DbError::Kind::Config,
                       QStringLiteral("the %1 has no escalation tables (console schema version %2; escalations and claims need "
                                      "version 4): run `triagectl init-schema`")
                           .arg(roleTitle(session.role()))
                           .arg(storedConsoleSchemaVersion(session)),
                       {}});
}

namespace escalation_sql {

QString resolveKindName(EscalationResolveResult::Kind kind)
{
    switch (kind) {
    case EscalationResolveResult::Kind::Resolved: return QStringLiteral("resolved");
    case EscalationResolveResult::Kind::Conflict: return QStringLiteral("conflict");
    case EscalationResolveResult::Kind::NotFound: return QStringLiteral("not-found");
    case EscalationResolveResult::Kind::Refused: return QStringLiteral("refused");
    }
    return {};
}

std::optional<Escalation> byId(DbSession &session, qint64 id)
{
    requireReconcileTables(session);
    SqlBuilder b;
    const QVector<Escalation> rows = readEscalations(
        session, QStringLiteral("SELECT %1 FROM triage_escalation e WHERE e.id = %2").arg(escalationColumns(session.dialect()), b.bind(id)), b);
    if (rows.isEmpty())
        return std::nullopt;
    return rows.first();
}

EscalationRaiseResult raise(DbSession &session, const EscalationRaise &r)
{
    // A console older than the database's console schema writes nothing (DESIGN.md §10).
    requireKnownConsoleSchema(session);
    requireReconcileTables(session);
    const SqlDialect &d = session.dialect();
    EscalationRaiseResult result;
    if (r.reason == EscalationReason::External && !r.sourceRef.isEmpty()) {
        // The same intent row never reopens an EXTERNAL escalation an operator resolved.
        SqlBuilder b;
        const QVector<Escalation> resolved = readEscalations(
            session,
            selectSql(b, escalationColumns(d), QStringLiteral("triage_escalation e"),
                      {QStringLiteral("e.idem_key = %1").arg(b.bind(r.idemKey)),
                       QStringLiteral("e.reason = %1").arg(b.bind(escalationReasonName(r.reason))),
                       QStringLiteral("e.source_ref = %1").arg(b.bind(r.sourceRef)), QStringLiteral("e.open_slot IS NULL")},
                      QStringLiteral("e.id DESC"), 1),
            b);
        if (!resolved.isEmpty()) {
            result.kind = EscalationRaiseResult::Kind::NotReopened;
            result.escalation = resolved.first();
            return result;
        }
    }
    SqlBuilder b;
    QSqlQuery q = session.exec(upsertSql(d, b, r), b);
    qint64 id = 0;
    if (d.kind() == Dialect::MySql)
        id = q.lastInsertId().toLongLong();
    else if (q.next())
        id = q.value(0).toLongLong();
    const std::optional<Escalation> row = id > 0 ? byId(session, id) : std::nullopt;
    if (!row)
        throw DbException({session.role(), DbError::Kind::Statement,
                           QStringLiteral("%1: the escalation of %2 (%3) was written but cannot be read back")
                               .arg(roleTitle(session.role()), r.idemKey, escalationReasonName(r.reason)),
                           {}});
    result.escalation = *row;
    // Only the creation is audited: a rerun that still sees it updates facts and last_seen_at
    // (kept in the row), which would otherwise add an audit row per open escalation per run.
    result.kind = row->version == 1 ? EscalationRaiseResult::Kind::Created : EscalationRaiseResult::Kind::Updated;
    if (result.kind == EscalationRaiseResult::Kind::Created) {
        AuditEntry a = auditStamp(audit_action::EscalationRaise, r.idemKey,
                                  r.operatorName.isEmpty() ? reconcilerOperator() : r.operatorName, auditDbUser(session.profile()));
        a.toState = compactJson(stateJson(*row));
        a.reason = QStringLiteral("escalated: %1").arg(escalationReasonName(r.reason));
        a.evidence = row->facts;
        a.detail = r.runId > 0 ? QStringLiteral("reconcile run %1").arg(r.runId) : QString();
        a.outcome = QStringLiteral("applied");
        audit_sql::insert(session, a);
    }
    return result;
}

EscalationResolveResult resolve(DbSession &session, qint64 id, const QString &resolution, const QString &operatorName,
                                std::optional<qint64> expectedVersion)
{
    requireKnownConsoleSchema(session);
    requireReconcileTables(session);
    const std::optional<Escalation> before = byId(session, id);
    if (!before)
        return resolveResult(EscalationResolveResult::Kind::NotFound, std::nullopt, QStringLiteral("no escalation %1").arg(id));
    const QString text = resolution.trimmed();
    AuditEntry a = auditStamp(audit_action::EscalationResolve, before->idemKey, operatorName, auditDbUser(session.profile()));
    a.fromState = compactJson(stateJson(*before));
    a.reason = text.left(1000);
    auto refuse = [&](const QString &why) {
        a.outcome = QStringLiteral("refused");
        a.detail = why;
        if (a.reason.isEmpty())
            a.reason = why.left(1000);
        audit_sql::insert(session, a);
        return resolveResult(EscalationResolveResult::Kind::Refused, before, why);
    };
    const QString name = QStringLiteral("escalation %1 (%2)").arg(id).arg(escalationReasonName(before->reason));
    if (operatorName == reconcilerOperator()) {
        if (escalationNeedsOperator(before->reason))
            return refuse(QStringLiteral("%1 is resolved by an operator only, with a reason").arg(name));
        if (text.isEmpty())
            return refuse(QStringLiteral("%1: an automatic resolution names its rule").arg(name));
    } else if (text.size() < kOperatorReasonMinChars) {
        return refuse(QStringLiteral("resolving an escalation needs a reason of at least %1 characters (got %2)")
                          .arg(kOperatorReasonMinChars)
                          .arg(text.size()));
    }
    if (text.size() > 1000)
        return refuse(QStringLiteral("a resolution is at most 1000 characters (got %1)").arg(text.size()));

    const SqlDialect &d = session.dialect();
    session.begin();
    try {
        SqlBuilder b;
        QString sql = QStringLiteral("UPDATE triage_escalation SET resolution = %1, resolved_at = %2, resolved_by = %3, open_slot = NULL, "
                                     "version = version + 1 WHERE id = %4 AND open_slot = 1")
                          .arg(b.bind(text), d.nowValue(), b.bind(textValue(operatorName)), b.bind(id));
        if (expectedVersion)
            sql += QStringLiteral(" AND version = %1").arg(b.bind(*expectedVersion));
        QSqlQuery q = session.exec(sql, b);
        if (q.numRowsAffected() == 1) {
            const std::optional<Escalation> after = byId(session, id);
            a.toState = compactJson(stateJson(*after));
            a.outcome = QStringLiteral("applied");
            // A resolved escalation is nobody's work any more: its claim goes with it, in the
            // same transaction, named in the audit row's detail (DESIGN.md §8 "Claims stop others").
            SqlBuilder cb;
            QSqlQuery held = session.exec(QStringLiteral("SELECT holder FROM triage_claim WHERE scope = %1 AND subject = %2")
                                              .arg(cb.bind(QStringLiteral("escalation")), cb.bind(QString::number(id))),
                                          cb);
            if (held.next()) {
                const QString holder = columnText(held.value(0)).value_or(QString());
                held.finish();
                SqlBuilder db;
                session.exec(QStringLiteral("DELETE FROM triage_claim WHERE scope = %1 AND subject = %2")
                                 .arg(db.bind(QStringLiteral("escalation")), db.bind(QString::number(id))),
                             db);
                a.detail = QStringLiteral("the claim of %1 on escalation %2 was released with it").arg(holder).arg(id);
            }
            audit_sql::insert(session, a);
            session.commit();
            return resolveResult(EscalationResolveResult::Kind::Resolved, after,
                                 QStringLiteral("%1 of %2 resolved").arg(name, before->idemKey));
        }
    } catch (const DbException &) {
        session.rollback();
        throw;
    }
    // The compare-and-set matched no row: someone resolved it, or a run updated it since it
    // was read. Nothing written but the conflict's audit row.
    session.rollback();
    const std::optional<Escalation> now = byId(session, id);
    QString why;
    if (!now)
        why = QStringLiteral("no escalation %1").arg(id);
    else if (!now->isOpen())
        why = QStringLiteral("%1 is already %2").arg(name, resolvedText(*now));
    else
        why = QStringLiteral("%1 changed since it was read (version %2 now, %3 expected)")
                  .arg(name)
                  .arg(now->version)
                  .arg(expectedVersion.value_or(before->version));
    if (!now)
        return resolveResult(EscalationResolveResult::Kind::NotFound, std::nullopt, why);
    a.toState = compactJson(stateJson(*now));
    a.outcome = QStringLiteral("conflict");
    a.detail = why;
    audit_sql::insert(session, a);
    return resolveResult(EscalationResolveResult::Kind::Conflict, now, why);
}

namespace {
/// The WHERE terms of an EscalationQuery (list() and count()).
QStringList queryWhere(SqlBuilder &b, const EscalationQuery &query)
{
    QStringList where;
    if (query.openOnly)
        where << QStringLiteral("e.open_slot = 1");
    if (!query.idemKey.isEmpty())
        where << QStringLiteral("e.idem_key = %1").arg(b.bind(query.idemKey));
    if (!query.bizType.isEmpty())
        where << QStringLiteral("e.biz_type = %1").arg(b.bind(query.bizType));
    if (!query.tenant.isEmpty())
        where << QStringLiteral("e.tenant = %1").arg(b.bind(query.tenant));
    if (query.reason)
        where << QStringLiteral("e.reason = %1").arg(b.bind(escalationReasonName(*query.reason)));
    return where;
}
} // namespace

qint64 count(DbSession &session, const EscalationQuery &query)
{
    requireReconcileTables(session);
    SqlBuilder b;
    const QStringList where = queryWhere(b, query);
    QSqlQuery q = session.exec(QStringLiteral("SELECT COUNT(*) FROM triage_escalation e%1")
                                   .arg(where.isEmpty() ? QString() : QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "))),
                               b);
    return q.next() ? q.value(0).toLongLong() : 0;
}

QVector<Escalation> list(DbSession &session, const EscalationQuery &query)
{
    requireReconcileTables(session);
    SqlBuilder b;
    const QStringList where = queryWhere(b, query);
    return readEscalations(session,
                           selectSql(b, escalationColumns(session.dialect()), QStringLiteral("triage_escalation e"), where,
                                     QStringLiteral("e.first_escalated_at, e.id"), query.limit),
                           b);
}

QVector<Escalation> openForKeys(DbSession &session, const QStringList &keys)
{
    requireReconcileTables(session);
    QVector<Escalation> rows;
    forEachInListChunk(
        session, keys,
        [&session](SqlBuilder &, const QString &in) {
            return QStringLiteral("SELECT %1 FROM triage_escalation e WHERE e.open_slot = 1 AND e.idem_key IN (%2) "
                                  "ORDER BY e.idem_key, e.first_escalated_at, e.id")
                .arg(escalationColumns(session.dialect()), in);
        },
        [&rows](const QSqlQuery &q) {
            if (std::optional<Escalation> e = escalationFrom(q))
                rows << *e;
        });
    return rows;
}

QVector<Escalation> select(DbSession &session, SqlBuilder &b, const QStringList &where, const QString &orderBy, int limit)
{
    requireReconcileTables(session);
    return readEscalations(session, selectSql(b, escalationColumns(session.dialect()), QStringLiteral("triage_escalation e"), where, orderBy, limit),
                           b);
}

QSet<QString> resolvedExternalRefs(DbSession &session, const QStringList &keys)
{
    requireReconcileTables(session);
    QSet<QString> refs;
    forEachInListChunk(
        session, keys,
        [](SqlBuilder &b, const QString &in) {
            return QStringLiteral("SELECT e.idem_key, e.source_ref FROM triage_escalation e WHERE e.reason = %1 AND "
                                  "e.open_slot IS NULL AND e.idem_key IN (%2)")
                .arg(b.bind(escalationReasonName(EscalationReason::External)), in);
        },
        [&refs](const QSqlQuery &q) {
            const QString ref = q.value(1).toString();
            if (!ref.isEmpty())
                refs.insert(q.value(0).toString() + QLatin1Char('\n') + ref);
        });
    return refs;
}

} // namespace escalation_sql

} // namespace triage
