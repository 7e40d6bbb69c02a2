#include "Queue.h"


#include "FutureChain.h"
#include "Workspace.h"

namespace triage {

int livePollSeconds(const WorkspaceConfig &config)
{
    return configFileInt(config, QStringLiteral("console/live_poll_seconds"), 5, 0);
}

int liveLookbackSeconds(const WorkspaceConfig &config)
{
    return configFileInt(config, QStringLiteral("console/live_lookback_seconds"), 60, 0);
}

QFuture<Outcome<QueuePage>> fetchQueuePage(Workspace &ws, const QueueRequest &request, const QueueCursor &cursor, int limit,
                                           ReadFrom from)
{
    const bool useRecords = queueUsesRecords(request.kind) && !cursor.record.exhausted;
    const bool useIntents = queueUsesIntents(request.kind, request.filter) && !cursor.intent.exhausted;
    const WorkspaceConfig config = ws.config();
    QFuture<Outcome<QVector<QueueRow>>> recordRows, intentRows;
    QList<QFuture<void>> all;
    if (useRecords) {
        recordRows = ws.reader(DbRole::Idempotency).run<QVector<QueueRow>>([=](DbSession &s) {
            return queue_sql::pageRecords(s, config, request, cursor.record, limit);
        }, {}, DbWorker::Retry::OnReconnect, from);
        all << QFuture<void>(recordRows);
    }
    if (useIntents) {
        intentRows = ws.reader(DbRole::Intent).run<QVector<QueueRow>>([=](DbSession &s) {
            return queue_sql::pageIntents(s, config, request, cursor.intent, limit);
        }, {}, DbWorker::Retry::OnReconnect, from);
        all << QFuture<void>(intentRows);
    }
    return continueAfterAll(all, ws.mergePool(), [=]() -> Outcome<QueuePage> {
        QVector<QueueRow> recs, ints;
        if (useRecords) {
            const auto o = recordRows.result(); // finished
            if (!o.ok())
                return Outcome<QueuePage>::failure(*o.error);
            recs = *o;
        }
        if (useIntents) {
            const auto o = intentRows.result();
            if (!o.ok())
                return Outcome<QueuePage>::failure(*o.error);
            ints = *o;
        }
        QueueCursor from = cursor;
        if (!queueUsesRecords(request.kind))
            from.record.exhausted = true;
        if (!queueUsesIntents(request.kind, request.filter))
            from.intent.exhausted = true;
        return Outcome<QueuePage>::success(mergeQueuePages(request, from, recs, !useRecords || recs.size() < limit, ints,
                                                           !useIntents || ints.size() < limit, limit));
    });
}

QFuture<Outcome<qint64>> countQueue(Workspace &ws, const QueueRequest &request)
{
    const WorkspaceConfig config = ws.config();
    QList<QFuture<Outcome<qint64>>> parts;
    if (queueUsesRecords(request.kind))
        parts << ws.reader(DbRole::Idempotency).run<qint64>([=](DbSession &s) { return queue_sql::countRecords(s, config, request); });
    if (queueUsesIntents(request.kind, request.filter))
        parts << ws.reader(DbRole::Intent).run<qint64>([=](DbSession &s) { return queue_sql::countIntents(s, config, request); });
    QList<QFuture<void>> all;
    for (const auto &f : std::as_const(parts))
        all << QFuture<void>(f);
    return continueAfterAll(all, ws.mergePool(), [parts]() -> Outcome<qint64> {
        qint64 total = 0;
        for (const auto &f : parts) {
            const auto o = f.result(); // finished
            if (!o.ok())
                return o;
            total += *o;
        }
        return Outcome<qint64>::success(total);
    });
}

} // namespace triage
