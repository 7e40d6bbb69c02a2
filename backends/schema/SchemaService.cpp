#include "Schema.h"

#include "WhenReady.h"
#include "Workspace.h"

#include <QList>
#include <QVector>

#include <algorithm>

namespace triage {

namespace {

/// Runs createSchema() on `chain[index]`, then on the next worker, … (each a continuation
/// of the one before: no pool thread waits). `total` counts the statements so far.
QFuture<Outcome<int>> runChain(QThreadPool *pool, QVector<DbWorker *> chain, SchemaOptions options, int index, int total)
{
    if (index == chain.size())
        return QtFuture::makeReadyFuture(Outcome<int>::success(total));
    return chain[index]
        ->run<int>([options](DbSession &s) { return int(createSchema(s, options).size()); }, DbWorker::Retry::Never)
        .then(pool,
              [=](const Outcome<int> &o) {
                  if (!o.ok())
                      return QtFuture::makeReadyFuture(o);
                  return runChain(pool, chain, options, index + 1, total + *o);
              })
        .unwrap();
}

} // namespace

QFuture<Outcome<int>> initSchema(Workspace &ws, const SchemaOptions &options)
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
    QList<QFuture<Outcome<int>>> parts;
    QList<QFuture<void>> all;
    for (const QVector<DbWorker *> &chain : std::as_const(chains)) {
        parts << runChain(pool, chain, options, 0, 0);
        all << QFuture<void>(parts.last());
    }
    return whenAllFinished(all).then(pool, [parts]() {
        int total = 0;
        for (const auto &f : parts) {
            const Outcome<int> o = f.result(); // finished
            if (!o.ok())
                return o;
            total += *o;
        }
        return Outcome<int>::success(total);
    });
}

} // namespace triage
