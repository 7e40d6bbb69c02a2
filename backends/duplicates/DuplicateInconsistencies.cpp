// Inconsistencies between tickets, records and snapshots, and keys regenerated per retry
// (DESIGN.md §2 "Duplicates"): the scans beside the duplicate groups (Duplicates.cpp).
#include "Duplicates.h"
#include "FutureChain.h"
#include "DuplicatesSql.h"

#include "BusinessIdSql.h"
#include "ColumnText.h"
#include "JsonText.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
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

using duplicates_sql::inList;

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
    const SchemaMap schema = ws->config().schema;
    auto records = ws->worker(DbRole::Idempotency)
                        .run<QVector<Rec>>([=](DbSession &s) {
                            const RecordSql r(s.dialect().kind(), schema.records);
                            SqlBuilder b;
                            QString where = QStringLiteral("%1 AND %2 > %3")
                                                .arg(r.statuses.isAny(b, r.status, recordStatusNames()), r.id, b.bind(afterRecordId));
                            if (!keySubstring.isEmpty())
                                where += QStringLiteral(" AND %1 LIKE %2")
                                             .arg(r.key, b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(keySubstring) + QLatin1Char('%')))
                                    + SqlDialect::likeEscapeClause();
                            QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2, %3, %4 FROM %5 WHERE %6 ORDER BY %1 LIMIT %7")
                                                     .arg(r.id, r.key, r.statuses.read(r.status), r.snapshot, r.table, where, b.bind(n)),
                                                 b);
                            QVector<Rec> out;
                            while (q.next()) {
                                // The WHERE clause keeps stored spellings of PROCESSING, SUCCESS and FAILED only.
                                const std::optional<RecordStatusCode> status
                                    = StoredRecordStatus::fromMapped(q.value(2), r.map.statuses).known();
                                if (status)
                                    out.append({q.value(0).toLongLong(), columnText(q.value(1)).value_or(QString()), *status,
                                                columnText(q.value(3))});
                            }
                            return out;
                        });
    QThreadPool *pool = workspace.mergePool();
    return continueWith(records, pool, [ws, n, pool, schema](const Outcome<QVector<Rec>> &recs) -> QFuture<Outcome<InconsistencyPage>> {
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
                               const TicketSql t(s.dialect().kind(), schema.tickets);
                               Tickets out;
                               if (!unsettledKeys.isEmpty()) {
                                   SqlBuilder b;
                                   QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2 FROM %3 WHERE %2 IN %4 ORDER BY %1")
                                                            .arg(t.id, t.key, t.table, inList(b, unsettledKeys)),
                                                        b);
                                   while (q.next())
                                       out.byUnsettledKey.append({BusinessId::fromColumn(q.value(0)), columnText(q.value(1)).value_or(QString()), {}, {}, true});
                               }
                               SqlBuilder b;
                               QStringList ps;
                               for (const BusinessId &id : namedIds)
                                   // An id no row of the column can hold is left out: it does not exist.
                                   if (const auto v = businessIdBindValue(s, t.table, t.id, id))
                                       ps << b.bind(*v);
                               if (!ps.isEmpty()) {
                                   QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2, %3, %4 FROM %5 WHERE %1 IN (%6)")
                                                            .arg(t.id, t.key, t.payload, t.statuses.read(t.status), t.table,
                                                                 ps.join(QStringLiteral(", "))),
                                                        b);
                                   // The status as TicketSql::statusName(): "CANCELLED" for a mapped cancelled spelling.
                                   while (q.next())
                                       out.named.append({BusinessId::fromColumn(q.value(0)), columnText(q.value(1)).value_or(QString()), columnText(q.value(2)).value_or(QString()), t.statusName(q.value(3)).value_or(QString()),
                                                         q.value(2).isNull()});
                               }
                               return out;
                           });
        // Comparing snapshots with payloads parses JSON: on the merge pool, not a worker thread.
        return continueWith(tickets, pool, [recs, n](const Outcome<Tickets> &tickets) {
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
    });
}

QFuture<Outcome<RegeneratedPage>> fetchRegeneratedKeys(Workspace &workspace, const std::optional<RegeneratedCursor> &cursor,
                                                       int limit, const QString &keySubstring)
{
    const int n = std::max(1, limit);
    const IntentTableMap map = workspace.config().schema.intents;
    return workspace.worker(DbRole::Intent).run<RegeneratedPage>([cursor, n, keySubstring, map](DbSession &s) {
        const IntentSql i(s.dialect().kind(), map);
        SqlBuilder b;
        QString where = QStringLiteral("%1 IS NOT NULL AND %2 IS NOT NULL AND %3 IS NOT NULL").arg(i.taskId, i.stepId, i.key);
        if (cursor)
            where += QStringLiteral(" AND (%1 > %2 OR (%1 = %3 AND %4 > %5))")
                         .arg(i.taskId, b.bind(cursor->taskId), b.bind(cursor->taskId), i.stepId, b.bind(cursor->stepId));
        QString having = QStringLiteral("COUNT(DISTINCT %1) > 1").arg(i.key);
        if (!keySubstring.isEmpty())
            having += QStringLiteral(" AND SUM(CASE WHEN %1 LIKE %2%3 THEN 1 ELSE 0 END) > 0")
                          .arg(i.key, b.bind(QLatin1Char('%') + SqlDialect::likeLiteral(keySubstring) + QLatin1Char('%')),
                               SqlDialect::likeEscapeClause());
        QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2, COUNT(*) FROM %3 WHERE %4 GROUP BY %1, %2 "
                                            "HAVING %5 ORDER BY %1, %2 LIMIT %6")
                                 .arg(i.taskId, i.stepId, i.table, where, having, b.bind(n + 1)),
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
        QSqlQuery kq = s.exec(QStringLiteral("SELECT %1, %2, %3 FROM %4 WHERE %1 IN %5 ORDER BY %6, %7")
                                  .arg(i.taskId, i.stepId, i.key, i.table, inList(k, tasks), i.createdAt, i.id),
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

} // namespace triage
