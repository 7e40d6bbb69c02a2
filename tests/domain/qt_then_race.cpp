// Not a test: shows the Qt 6.4.2 race that FutureChain.h avoids (docs/QT-PITFALLS.md
// "Continuations"). QFuture::then(pool, fn) attached while another thread finishes the future:
// setContinuation() sees "finished", runs the continuation and stores it back; the finishing
// thread's runContinuation() runs it again with the QPromise already moved out, and the
// process crashes in QFutureInterfaceBase::reportStarted(). `qt_then_race 200000` crashed in
// 1 of 3 runs on a 2-core Debian 12 machine; it prints the run count when it survives.
#include <QCoreApplication>
#include <QFuture>
#include <QPromise>
#include <QThreadPool>

#include <atomic>
#include <cstdio>
#include <thread>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 200000;
    QThreadPool pool;
    std::atomic<int> runs{0}, go{0}, finished{0};
    QPromise<int> *current = nullptr;
    std::thread finisher([&] {
        for (int i = 1; i <= rounds; ++i) {
            while (go.load() != i) {
            }
            for (int k = 0; k < (i * 7) % 200; ++k)
                std::atomic_signal_fence(std::memory_order_seq_cst);
            current->addResult(1);
            current->finish();
            finished.store(i);
        }
    });
    for (int i = 1; i <= rounds; ++i) {
        QPromise<int> promise;
        promise.start();
        current = &promise;
        go.store(i);
        for (int k = 0; k < (i * 13) % 200; ++k)
            std::atomic_signal_fence(std::memory_order_seq_cst);
        QFuture<int> next = promise.future().then(&pool, [&runs](int v) {
            runs.fetch_add(1);
            return v;
        });
        while (finished.load() != i) {
        }
        next.waitForFinished();
    }
    finisher.join();
    pool.waitForDone();
    std::printf("rounds %d, continuation runs %d\n", rounds, runs.load());
    return runs.load() == rounds ? 0 : 1;
}
