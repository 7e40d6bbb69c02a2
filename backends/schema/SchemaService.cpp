#include "Schema.h"

#include "FutureChain.h"
#include "Workspace.h"

#include <QList>
#include <QVector>

#include <algorithm>

namespace triage {

namespace {

using Reports = QVector<SchemaStoreReport>;

/// Runs createSchema() on `chain[index]`, then on the next worker, … (each a continuation
/// of the one before, FutureChain.h). `done` holds the reports so far.
QFuture<Outcome<Reports>> runChain(QThreadPool *pool, QVector<DbWorker *> chain, SchemaOptions options, SchemaMap map, int index,
                                   Reports done)
{
    if (index == chain.size())
        return QtFuture::makeReadyFuture(Outcome<Reports>::success(done));
    return continueWith(chain[index]->run<SchemaStoreReport>([options, map](DbSession &s) { return createSchema(s, options, map); },
                                                             DbWorker::Retry::Never),
                        pool, [=](const Outcome<SchemaStoreReport> &o) mutable {
                            if (!o.ok())
                                return QtFuture::makeReadyFuture(Outcome<Reports>::failure(*o.error));
                            done.append(*o);
                            return runChain(pool, chain, options, map, index + 1, done);
                        });
}

} // namespace

QFuture<Outcome<SchemaReport>> initSchemaReport(Workspace &ws, const SchemaOptions &options)
{
    QVector<QVector<DbWorker *>> chains;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        auto shared = std::find_if(chains.begin(), chains.end(), [&](const QVector<DbWorker *> &chain) {
            return chain.first()->profile().sameDatabase(ws.config().profile(role));
        });
        if (shared != chains.end())
            shared->append(&ws.worker(role));
        else
            chains.append({&ws.worker(role)});
    }
    QThreadPool *pool = ws.mergePool();
    const SchemaMap map = ws.config().schema;
    QList<QFuture<Outcome<Reports>>> parts;
    QList<QFuture<void>> all;
    for (const QVector<DbWorker *> &chain : std::as_const(chains)) {
        parts << runChain(pool, chain, options, map, 0, {});
        all << QFuture<void>(parts.last());
    }
    return continueAfterAll(all, pool, [parts]() {
        SchemaReport report;
        for (const auto &f : parts) {
            const Outcome<Reports> o = f.result(); // finished
            if (!o.ok())
                return Outcome<SchemaReport>::failure(*o.error);
            report.stores += *o;
        }
        std::sort(report.stores.begin(), report.stores.end(),
                  [](const SchemaStoreReport &a, const SchemaStoreReport &b) { return int(a.role) < int(b.role); });
        return Outcome<SchemaReport>::success(report);
    });
}

QFuture<Outcome<int>> initSchema(Workspace &ws, const SchemaOptions &options)
{
    return continueWith(initSchemaReport(ws, options), ws.mergePool(), [](const Outcome<SchemaReport> &o) {
        return o.ok() ? Outcome<int>::success(o->statements()) : Outcome<int>::failure(*o.error);
    });
}

} // namespace triage
