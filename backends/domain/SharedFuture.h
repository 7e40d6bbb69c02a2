#pragma once

#include <QFuture>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace triage {

/// Runs `fn(result)` on `pool` once `future` has finished and returns the future of its
/// result. Any number of these may wait on one future, which `future.then(pool, fn)` does not
/// allow: Qt 6.4 keeps ONE continuation per future, and a second then() on a future that has
/// not finished yet silently replaces the first (QFutureInterfaceBase::setContinuation), whose
/// future then never finishes — a hang that depends on timing (docs/QT-PITFALLS.md). Use this
/// for a future several readers share (a bundle being read whole: its pages, its keys' details,
/// its hash); keep then() for a future nobody else continues.
///
/// The job waits on a thread of `pool` (QFuture::waitForFinished(), which runs `future`'s own
/// job on this thread when that job has not started yet, so a pool full of waiters cannot
/// starve it). `fn` takes the result by const reference or value; `future` must carry a result
/// and must not be cancelled (the workers' futures never are).
template <typename T, typename F>
auto continueShared(QFuture<T> future, QThreadPool *pool, F &&fn)
{
    return QtConcurrent::run(pool, [future = std::move(future), fn = std::forward<F>(fn)]() mutable {
        future.waitForFinished();
        return fn(future.result());
    });
}

} // namespace triage
