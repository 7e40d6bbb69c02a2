// seed-demo's SQL part: writes a SeedPlan into the mapped tables (DESIGN.md §10).
#include "DemoData.h"

#include "Audit.h"
#include "BusinessIdSql.h"
#include "Catalog.h"
#include "ConsoleSchema.h"
#include "Log.h"
#include "RecordStatus.h"
#include "SchemaMap.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSqlQuery>

#include <functional>

namespace triage {

namespace {

/// Runs `insertBatch(first, count)` in transactions of 5,000 rows, `perStatement` rows a statement.
template <typename Row>
qint64 batched(DbSession &session, const QVector<Row> &rows, int perStatement,
               const std::function<void(const Row *, int)> &insertBatch)
{
    constexpr int perTransaction = 5000;
    for (int start = 0; start < rows.size(); start += perTransaction) {
        const int end = qMin<int>(rows.size(), start + perTransaction);
        session.begin();
        try {
            for (int i = start; i < end; i += perStatement)
                insertBatch(rows.constData() + i, qMin(perStatement, end - i));
            session.commit();
        } catch (...) {
            session.rollback();
            throw;
        }
    }
    return rows.size();
}

QString serverNow(DbSession &session)
{
    QSqlQuery q = session.exec(QStringLiteral("SELECT ") + session.dialect().nowText());
    q.next();
    return q.value(0).toString();
}

QVariant textOrNull(const QString &s)
{
    return s.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(s);
}

QVariant opt(const std::optional<QString> &s)
{
    return s ? QVariant(*s) : QVariant(QMetaType(QMetaType::QString));
}


} // namespace

QString seedTicketIdText(qint64 n)
{
    return QStringLiteral("00000000-0000-4000-8000-%1").arg(n, 12, 10, QLatin1Char('0'));
}


namespace seed_sql {

SeedTicketIds nextTicketIds(DbSession &session, const WorkspaceConfig &config)
{
    const TicketSql t = config.tickets(session.dialect().kind());
    SeedTicketIds ids;
    ids.text = !isIntegerColumn(session, t.table, t.id);
    QSqlQuery q = session.exec(ids.text ? QStringLiteral("SELECT COUNT(*) FROM %1").arg(t.table)
                                        : QStringLiteral("SELECT MAX(%1) FROM %2").arg(t.id, t.table));
    if (q.next() && !q.value(0).isNull())
        ids.first = q.value(0).toLongLong() + 1;
    return ids;
}

UnknownStatusFit unknownStatusFit(DbSession &session, const WorkspaceConfig &config, int code)
{
    const RecordTableMap &map = config.schema.records;
    const StatusMapping &statuses = map.statuses;
    UnknownStatusFit fit;
    if (!statuses.text) {
        int value = code;
        while (statuses.decode(QString::number(value)))
            ++value;
        fit.stored = QString::number(value);
        if (value != code)
            fit.why = QStringLiteral("code %1 is a mapped status, so the record with an unknown status holds %2").arg(code).arg(value);
        return fit;
    }
    std::optional<CatalogColumn> column;
    if (const auto columns = catalog_sql::columnsOf(session, map.table)) {
        for (const CatalogColumn &c : *columns)
            if (c.name.compare(map.status, Qt::CaseInsensitive) == 0)
                column = c;
    }
    if (column && column->kind == ColumnKind::Enum) {
        for (const QString &label : column->labels) {
            if (!statuses.decode(label)) {
                fit.stored = label;
                fit.why = QStringLiteral("the record with an unknown status holds \"%1\", a label of the enum column %2 no status "
                                         "is mapped to")
                              .arg(label, map.status);
                return fit;
            }
        }
        fit.why = QStringLiteral("the record with an unknown status is left out: every label of the enum column %1 (%2) is a "
                                 "mapped status")
                      .arg(map.status, column->labels.join(QStringLiteral(", ")));
        return fit;
    }
    QString value = QStringLiteral("UNMAPPED");
    for (int n = 2; statuses.decode(value); ++n)
        value = QStringLiteral("UNMAPPED_%1").arg(n);
    fit.stored = value;
    fit.why = QStringLiteral("the record with an unknown status holds \"%1\" (no status is mapped to it)").arg(value);
    return fit;
}

qint64 insertRecords(DbSession &session, const WorkspaceConfig &config, const QVector<SeedRecord> &rows, UtcMicros *nowOut)
{
    const RecordSql m = config.records(session.dialect().kind());
    const UtcMicros now = parseUtcMicros(serverNow(session)).value_or(0);
    if (nowOut)
        *nowOut = now;
    QStringList columns{m.key, m.status, m.snapshot, m.createdAt, m.updatedAt};
    if (!m.bizTypeColumn.isEmpty())
        columns << m.bizTypeColumn;
    if (!m.expireAt.isEmpty())
        columns << m.expireAt;
    if (!m.tenant.isEmpty())
        columns << m.tenant;
    const QString head = QStringLiteral("INSERT INTO %1 (%2) VALUES ").arg(m.table, columns.join(QStringLiteral(", ")));
    return batched<SeedRecord>(session, rows, 200, [&](const SeedRecord *r, int n) {
        SqlBuilder b;
        QStringList values;
        for (int i = 0; i < n; ++i, ++r) {
            // A known code is written in the mapping's spelling; the demo's unknown code as itself.
            const QString name = r->status >= 0 && r->status <= 2 ? recordStatusNames().at(r->status) : QString();
            const QString status = r->storedStatus ? b.bind(*r->storedStatus)
                : !name.isEmpty() && !m.map.statuses.written(name).isEmpty()
                ? m.statuses.write(b, name)
                : (m.map.statuses.text ? b.bind(QString::number(r->status)) : b.bind(r->status));
            QStringList v{b.bind(r->idemKey), status, b.bind(opt(r->snapshot)),
                          m.time.param(b.bind(m.time.bind(now - r->createdAgo))),
                          m.time.param(b.bind(m.time.bind(now - r->updatedAgo)))};
            if (!m.bizTypeColumn.isEmpty())
                v << b.bind(r->bizType);
            if (!m.expireAt.isEmpty())
                v << m.time.param(b.bind(m.time.bind(now - r->expireAgo)));
            if (!m.tenant.isEmpty())
                v << b.bind(r->tenant);
            values << QLatin1Char('(') + v.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
        session.exec(head + values.join(QStringLiteral(", ")), b);
    });
}

qint64 insertTickets(DbSession &session, const WorkspaceConfig &config, const QVector<SeedTicket> &rows, QSet<qint64> *refusedIds)
{
    const Dialect d = session.dialect().kind();
    const TicketSql m = config.tickets(d);
    const UtcMicros now = parseUtcMicros(serverNow(session)).value_or(0);
    const bool textIds = !isIntegerColumn(session, m.table, m.id);
    // First tickets of each key go in batches; extra tickets of a key go one by one, so a
    // database with the UNIQUE(idem_key) backstop simply refuses them.
    QVector<SeedTicket> firsts, extras;
    QSet<QString> seen;
    for (const SeedTicket &t : rows)
        (seen.contains(t.idemKey) ? extras : firsts).append(t), seen.insert(t.idemKey);
    QStringList columns{m.id, m.key, m.status, m.payload, m.createdAt};
    for (const QString &optional : {m.tenant, m.title, m.updatedAt})
        if (!optional.isEmpty())
            columns << optional;
    // A JSON/JSONB payload column takes the text as JSON (PostgreSQL has no implicit cast).
    const bool pgJson = d == Dialect::PostgreSql
        && session.memo(QStringLiteral("seed.payloadIsJson"), [&]() -> QVariant {
               SqlBuilder b;
               const QString schema = m.map.table.contains(QLatin1Char('.')) ? m.map.table.section(QLatin1Char('.'), 0, 0) : QString();
               QSqlQuery q = session.exec(
                   QStringLiteral("SELECT data_type FROM information_schema.columns WHERE table_name = %1 AND column_name = %2 "
                                  "AND table_schema = %3")
                       .arg(b.bind(m.map.table.section(QLatin1Char('.'), -1)), b.bind(m.map.payload),
                            schema.isEmpty() ? QStringLiteral("current_schema()") : b.bind(schema)),
                   b);
               return q.next() && q.value(0).toString().startsWith(QLatin1String("json"));
           }).toBool();
    auto valuesOf = [&](SqlBuilder &b, const SeedTicket &t) {
        const QString status = t.status == QLatin1String("CANCELLED") ? m.statuses.write(b, QStringLiteral("CANCELLED")) : b.bind(t.status);
        QStringList v{textIds ? b.bind(seedTicketIdText(t.id)) : b.bind(t.id), b.bind(t.idemKey), status,
                      pgJson ? QStringLiteral("CAST(%1 AS jsonb)").arg(b.bind(t.payload)) : b.bind(t.payload),
                      m.time.param(b.bind(m.time.bind(now - t.createdAgo)))};
        if (!m.tenant.isEmpty())
            v << b.bind(t.tenant);
        if (!m.title.isEmpty())
            v << b.bind(t.title);
        if (!m.updatedAt.isEmpty())
            v << m.time.param(b.bind(m.time.bind(now - t.updatedAgo)));
        return QLatin1Char('(') + v.join(QStringLiteral(", ")) + QLatin1Char(')');
    };
    const QString insert = QStringLiteral("INSERT INTO %1 (%2) VALUES ").arg(m.table, columns.join(QStringLiteral(", ")));
    qint64 inserted = batched<SeedTicket>(session, firsts, 200, [&](const SeedTicket *t, int n) {
        SqlBuilder b;
        QStringList values;
        for (int i = 0; i < n; ++i)
            values << valuesOf(b, t[i]);
        session.exec(insert + values.join(QStringLiteral(", ")), b);
    });
    qint64 refused = 0;
    for (const SeedTicket &t : extras) {
        SqlBuilder b;
        const QString sql = insert + valuesOf(b, t);
        try {
            session.exec(sql, b);
            ++inserted;
        } catch (const DbException &e) {
            const QString c = e.error.nativeCode;
            if (c != QLatin1String("23505") && c != QLatin1String("1062") && c != QLatin1String("2067"))
                throw;
            ++refused;
            if (refusedIds)
                refusedIds->insert(t.id);
        }
    }
    if (refused)
        logger("backend.sql")->info("{} duplicate tickets refused by the UNIQUE(idem_key) backstop", refused);
    if (d == Dialect::PostgreSql && !textIds) {
        // Keep a serial id column's sequence ahead of the explicit ids (none: nothing to do).
        SqlBuilder b;
        session.exec(QStringLiteral("SELECT setval(s, (SELECT MAX(%1) FROM %2)) FROM (SELECT pg_get_serial_sequence(%3, %4) AS s) q "
                                    "WHERE s IS NOT NULL")
                         .arg(m.id, m.table, b.bind(m.map.table), b.bind(m.map.id)),
                     b);
    }
    return inserted;
}

qint64 insertIntents(DbSession &session, const WorkspaceConfig &config, const QVector<SeedIntent> &rows)
{
    const IntentSql m = config.intents(session.dialect().kind());
    const UtcMicros now = parseUtcMicros(serverNow(session)).value_or(0);
    const QStringList all{m.taskId, m.stepId, m.action, m.key, m.status, m.request, m.response,
                          m.error, m.stateBefore, m.stateAfter, m.actor, m.createdAt, m.updatedAt};
    // A log mapped without state snapshots or actor ("") gets none of them.
    QStringList columns;
    for (const QString &c : all)
        if (!c.isEmpty())
            columns << c;
    const QString head = QStringLiteral("INSERT INTO %1 (%2) VALUES ").arg(m.table, columns.join(QStringLiteral(", ")));
    return batched<SeedIntent>(session, rows, 100, [&](const SeedIntent *a, int n) {
        SqlBuilder b;
        QStringList values;
        for (int i = 0; i < n; ++i, ++a) {
            const QString spelled = m.map.statuses.written(a->status);
            // Bound only for the columns the log has (no placeholder without its column).
            const std::function<QString()> valueOf[] = {
                [&] { return b.bind(a->taskId); }, [&] { return b.bind(a->stepId); }, [&] { return b.bind(a->action); },
                [&] { return b.bind(a->idemKey); }, [&] { return b.bind(spelled.isEmpty() ? a->status : spelled); },
                [&] { return b.bind(opt(a->request)); }, [&] { return b.bind(opt(a->response)); },
                [&] { return b.bind(opt(a->error)); }, [&] { return b.bind(opt(a->stateBefore)); },
                [&] { return b.bind(opt(a->stateAfter)); }, [&] { return b.bind(opt(a->actor)); },
                [&] { return m.time.param(b.bind(m.time.bind(now - a->createdAgo))); },
                [&] { return m.time.param(b.bind(m.time.bind(now - a->updatedAgo))); }};
            QStringList v;
            for (int c = 0; c < all.size(); ++c)
                if (!all[c].isEmpty())
                    v << valueOf[c]();
            values << QLatin1Char('(') + v.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
        session.exec(head + values.join(QStringLiteral(", ")), b);
    });
}

qint64 insertAudits(DbSession &session, const QVector<SeedAudit> &rows, const QSet<qint64> &refusedTickets,
                    std::optional<UtcMicros> recordsNow)
{
    requireKnownConsoleSchema(session);
    const SqlDialect &d = session.dialect();
    const UtcMicros now = recordsNow ? *recordsNow : parseUtcMicros(serverNow(session)).value_or(0);
    const auto fromState = [&](const SeedAudit &a) {
        if (!a.fromUpdatedAgo)
            return a.fromState;
        QJsonObject o = QJsonDocument::fromJson(a.fromState.toUtf8()).object();
        o.insert(QStringLiteral("updated_at"), formatUtcMicros(now - *a.fromUpdatedAgo));
        o.insert(QStringLiteral("version"), QJsonValue());
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    };
    const QString dbUser = auditDbUser(session.profile());
    QVector<SeedAudit> kept;
    for (const SeedAudit &a : rows)
        if (!a.ticketId || !refusedTickets.contains(*a.ticketId))
            kept << a;
    return batched<SeedAudit>(session, kept, 100, [&](const SeedAudit *a, int n) {
        SqlBuilder b;
        QStringList values;
        for (int i = 0; i < n; ++i, ++a)
            values << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13)")
                          .arg(b.bind(a->requestId), d.timeParam(b.bind(d.bindTime(now - a->atAgo))), b.bind(a->operatorName),
                               b.bind(textOrNull(dbUser)), b.bind(a->host), b.bind(a->action), b.bind(a->idemKey),
                               b.bind(textOrNull(fromState(*a))), b.bind(textOrNull(a->toState)))
                          .arg(b.bind(a->reason), b.bind(textOrNull(a->evidence)), b.bind(a->outcome), b.bind(textOrNull(a->detail)));
        session.exec(QStringLiteral("INSERT INTO triage_audit (request_id, at, operator, db_user, host, action, idem_key, from_state, "
                                    "to_state, reason, evidence, outcome, detail) VALUES ")
                         + values.join(QStringLiteral(", ")),
                     b);
    });
}

qint64 insertCompensations(DbSession &session, const QVector<SeedCompensation> &rows, const QSet<qint64> &refusedTickets)
{
    requireKnownConsoleSchema(session);
    const SqlDialect &d = session.dialect();
    const UtcMicros now = parseUtcMicros(serverNow(session)).value_or(0);
    auto time = [&](SqlBuilder &b, qint64 ago) { return d.timeParam(b.bind(d.bindTime(now - ago))); };
    QVector<SeedCompensation> kept;
    for (const SeedCompensation &c : rows)
        if (!refusedTickets.contains(c.ticketId))
            kept << c;
    return batched<SeedCompensation>(session, kept, 1, [&](const SeedCompensation *c, int) {
        SqlBuilder b;
        session.exec(QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, status, "
                                    "attempts, operator, reason, created_at, updated_at, response) VALUES "
                                    "(%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13)")
                         .arg(b.bind(c->compKey), b.bind(c->sourceKey), b.bind(c->bizType), b.bind(c->action), b.bind(c->target),
                              b.bind(c->request), b.bind(c->status), b.bind(int(c->attempts.size())), b.bind(c->operatorName))
                         .arg(b.bind(c->reason), time(b, c->createdAgo), time(b, c->updatedAgo), b.bind(textOrNull(c->response))),
                     b);
        for (const SeedCompensation::Attempt &a : c->attempts) {
            SqlBuilder ab;
            session.exec(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, classification, "
                                        "response_preview) VALUES (%1, %2, %3, %4, %5, %6)")
                             .arg(ab.bind(c->compKey), ab.bind(a.kind), time(ab, a.atAgo), ab.bind(a.httpStatus), ab.bind(a.classification),
                                  ab.bind(a.preview)),
                         ab);
        }
    });
}

} // namespace seed_sql

} // namespace triage
