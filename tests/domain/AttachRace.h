#pragma once
// The race of docs/QT-PITFALLS.md "Continuations", shared by tst_future_chain and qt_then_race.

#include <QFuture>
#include <QPromise>

#include <atomic>
#include <thread>

namespace triage::test {

/// Finishes `count` promises on a thread of its own while the caller attaches to each: the
/// two meet with a different small skew each round (the window Qt's then() loses).
template <typename Attach>
int raceAttachAgainstFinish(int count, Attach attach)
{
    std::atomic<int> go{0};
    std::atomic<int> finished{0};
    QPromise<int> *current = nullptr;
    std::thread finisher([&] {
        for (int i = 1; i <= count; ++i) {
            while (go.load() != i) {
            }
            for (int k = 0; k < (i * 7) % 200; ++k)
                std::atomic_signal_fence(std::memory_order_seq_cst);
            current->addResult(1);
            current->finish();
            finished.store(i);
        }
    });
    int delivered = 0;
    for (int i = 1; i <= count; ++i) {
        QPromise<int> promise;
        promise.start();
        current = &promise;
        go.store(i);
        for (int k = 0; k < (i * 13) % 200; ++k)
            std::atomic_signal_fence(std::memory_order_seq_cst);
        QFuture<int> next = attach(promise.future());
        while (finished.load() != i) {
        }
        delivered += next.result();
    }
    finisher.join();
    return delivered;
}
} // namespace triage::test
