// Not a test: shows the Qt 6.4.2 race that FutureChain.h avoids (docs/QT-PITFALLS.md
// "Continuations"). QFuture::then(pool, fn) attached while another thread finishes the future:
// setContinuation() sees "finished", runs the continuation and stores it back; the finishing
// thread's runContinuation() runs it again with the QPromise already moved out, and the
// process crashes in QFutureInterfaceBase::reportStarted(). `qt_then_race 200000` crashed in
// 1 of 3 runs on a 2-core Debian 12 machine; it prints the run count when it survives.
#include "AttachRace.h"

#include <QCoreApplication>
#include <QFuture>
#include <QPromise>
#include <QThreadPool>

#include <atomic>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 200000;
    QThreadPool pool;
    std::atomic<int> runs{0};
    const int delivered = triage::test::raceAttachAgainstFinish(rounds, [&](QFuture<int> f) {
        return f.then(&pool, [&runs](int v) {
            runs.fetch_add(1);
            return v;
        });
    });
    pool.waitForDone();
    std::printf("rounds %d, continuation runs %d, results %d\n", rounds, runs.load(), delivered);
    return runs.load() == rounds ? 0 : 1;
}
