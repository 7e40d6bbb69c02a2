#pragma once
// Read-your-writes after the operator's own writes (DESIGN.md §9 "Read replicas"): every
// service that writes on idempotency keys passes its future through afterOwnWrite().

#include "FutureChain.h"
#include "Workspace.h"

#include <QStringList>

namespace triage {

/// `write` — the future of a write this workspace's operator made — followed, once it has
/// ended and before its result reaches the caller, by ws.noteOwnWrite(keysOf(result)): those
/// keys' reads (key detail: record, audit, intent log, compensations) then go to the primary
/// until every replica has replayed the write. `keysOf` returns the idempotency keys written
/// (empty: none, e.g. a refusal that wrote nothing); it runs on the workspace's merge pool. No
/// replica configured: `write` itself, untouched. `ws` must outlive the future.
template <typename T, typename KeysOf>
QFuture<T> afterOwnWrite(Workspace &ws, QFuture<T> write, KeysOf keysOf)
{
    if (ws.config().replicas.isEmpty())
        return write;
    Workspace *w = &ws;
    return continueWith(std::move(write), ws.mergePool(), [w, keysOf = std::move(keysOf)](T result) {
        if (const QStringList keys = keysOf(result); !keys.isEmpty())
            w->noteOwnWrite(keys);
        return result;
    });
}

} // namespace triage
