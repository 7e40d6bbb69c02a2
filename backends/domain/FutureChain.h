#pragma once

#include <QFuture>
#include <QList>
#include <QPromise>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

namespace triage {

// The one way backend code continues a future off the GUI thread (docs/QT-PITFALLS.md
// "Continuations"). Qt 6.4's own QFuture::then(), QtFuture::whenAll() and unwrap() are not
// used anywhere: QFutureInterfaceBase::setContinuation() on a future that another thread has
// just marked finished runs the continuation, then stores it back; the finishing thread's
// runContinuation() then runs it a second time, with the QPromise it already moved out, and
// crashes in QFutureInterfaceBase::reportStarted() (tests/domain/tst_future_chain.cpp
// reproduces the window with Qt's then() in a child process). A continuation here is a job on a
// pool that waits for its inputs with QFuture::waitForFinished(): that never touches the
// continuation slot, and when the awaited future is itself a pool job that has not started,
// waitForFinished() runs it on the waiting thread, so waiters cannot starve the pool of the
// job they wait for. Every wait ends at a database worker's or a network thread's future,
// which progress on their own threads.

namespace detail {

template <typename T>
struct FutureTraits
{
    static constexpr bool isFuture = false;
    using Value = T;
};
template <typename U>
struct FutureTraits<QFuture<U>>
{
    static constexpr bool isFuture = true;
    using Value = U;
};

/// True when `f` finished with something to continue with: a result (QFuture<T>), or not
/// cancelled (QFuture<void>). A cancelled input cancels the chain (Qt's then() did the same).
template <typename T>
bool delivered(const QFuture<T> &f)
{
    if constexpr (std::is_void_v<T>)
        return !f.isCanceled();
    else
        return f.resultCount() > 0;
}

template <typename T, typename F>
decltype(auto) invokeWith(const QFuture<T> &f, F &fn)
{
    if constexpr (std::is_void_v<T>)
        return fn();
    else
        return fn(f.result());
}

/// Calls `g()` and reports what it returns into `promise`; a returned future is waited for
/// and its result reported instead (what unwrap() did).
template <typename Out, typename G>
void deliver(QPromise<Out> &promise, G &g)
{
    using R = std::invoke_result_t<G &>;
    if constexpr (FutureTraits<R>::isFuture) {
        R inner = g();
        inner.waitForFinished();
        if (!delivered(inner))
            promise.future().cancel();
        else if constexpr (!std::is_void_v<Out>)
            promise.addResult(inner.result());
    } else if constexpr (std::is_void_v<R>) {
        g();
    } else {
        promise.addResult(g());
    }
}

template <typename T, typename F>
using ChainValue = typename FutureTraits<std::decay_t<decltype(invokeWith(std::declval<const QFuture<T> &>(),
                                                                         std::declval<F &>()))>>::Value;

} // namespace detail

/// Runs `fn(result)` (`fn()` for a QFuture<void>) on `pool` once `future` has finished, and
/// returns the future of what `fn` returns; when `fn` returns a QFuture<U>, the returned future
/// is a QFuture<U> that finishes with that inner future (no unwrap() needed). A cancelled
/// `future` (or inner future) cancels the returned one and `fn` is not called. Any number of
/// chains may wait on one future. `pool` must outlive the job (a workspace's mergePool() is
/// drained by ~Workspace). `fn` may be move-only state; it runs exactly once.
template <typename T, typename F>
auto continueWith(QFuture<T> future, QThreadPool *pool, F &&fn)
{
    using Out = detail::ChainValue<T, std::decay_t<F>>;
    return QtConcurrent::run(pool, [future = std::move(future), fn = std::forward<F>(fn)](QPromise<Out> &promise) mutable {
        future.waitForFinished();
        if (!detail::delivered(future)) {
            promise.future().cancel();
            return;
        }
        auto call = [&]() -> decltype(auto) { return detail::invokeWith(future, fn); };
        detail::deliver(promise, call);
    });
}

/// QFuture<void> views of futures of any result types, for continueAfterAll(): `futuresOf(a, b, c)`.
template <typename... T>
QList<QFuture<void>> futuresOf(const QFuture<T> &...futures)
{
    return QList<QFuture<void>>{QFuture<void>(futures)...};
}

/// Runs `fn()` on `pool` once every one of `futures` has finished (cancelled ones included:
/// read each one's result in `fn`, they are finished then), and returns the future of what
/// `fn` returns (unwrapped like continueWith()). An empty list runs `fn` at once. For services that
/// merge several workers' results (DESIGN.md §3).
template <typename F>
auto continueAfterAll(QList<QFuture<void>> futures, QThreadPool *pool, F &&fn)
{
    using Out = typename detail::FutureTraits<std::decay_t<std::invoke_result_t<std::decay_t<F> &>>>::Value;
    return QtConcurrent::run(pool, [futures = std::move(futures), fn = std::forward<F>(fn)](QPromise<Out> &promise) mutable {
        for (QFuture<void> &f : futures)
            f.waitForFinished();
        detail::deliver(promise, fn);
    });
}

/// The pool for chains that only reshape a value and touch no workspace (a compensation's
/// outcome, a dialog's copy): up to 64 threads, most of them parked in waitForFinished().
/// A chain that calls into a workspace uses that workspace's mergePool() instead, so that
/// ~Workspace waits for it.
QThreadPool *valueChainPool();

} // namespace triage
