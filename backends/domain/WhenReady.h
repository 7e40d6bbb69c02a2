#pragma once

#include <QFuture>
#include <QList>
#include <QFutureWatcher>
#include <QObject>

#include <utility>

namespace triage {

/// Delivers `future`'s result to `context`: calls `fn(result)` on `context`'s thread, from
/// its event loop, always *after* this call has returned — also when `future` has already
/// finished (a fast worker, a busy caller thread) — and never after `context` is destroyed.
///
/// This is the one way GUI-side code (models, views) continues a worker's future. Qt 6.4's
/// `future.then(context, fn)` runs `fn` synchronously inside `then()` when the future has
/// already finished, on the context's own thread: a result then arrives in the middle of
/// the call that asked for it (a model's setRequest() inside a window's constructor),
/// before anyone connected to the model's signals, and is lost for them.
///
/// Must be called on `context`'s thread (it creates a QFutureWatcher child of `context`;
/// QFutureWatcher posts its finished notification as an event even when the future had
/// finished before setFuture()). `fn` takes the result by value or const reference.
/// The future must carry a result (not QFuture<void>) and must not be cancelled (the
/// workers' futures never are); a cancelled future calls nothing.
template <typename T, typename F>
void whenReady(const QFuture<T> &future, QObject *context, F &&fn)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, fn = std::forward<F>(fn)]() mutable {
                         watcher->deleteLater();
                         if (watcher->isCanceled() || watcher->future().resultCount() == 0)
                             return;
                         fn(watcher->result());
                     });
    watcher->setFuture(future);
}

} // namespace triage
