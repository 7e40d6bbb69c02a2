// continueWith() / continueAfterAll() (backends/domain/FutureChain.h): the only way backend
// code continues a future. Qt 6.4's then() runs a continuation twice when it is attached
// while another thread finishes the future (docs/QT-PITFALLS.md "Continuations";
// tests/domain/qt_then_race.cpp shows it): these tests race attach against finish the same
// way and count every run exactly.
#include "AttachRace.h"
#include "FutureChain.h"

#include <QPromise>
#include <QSemaphore>
#include <QTest>

#include <atomic>

using namespace triage;
using namespace triage::test;

class TestFutureChain : public QObject {
    Q_OBJECT
private slots:
    void manyReadersOfAPendingFuture();
    void attachRacingFinishRunsOnce();
    void afterAllRacingFinishRunsOnce();
    void cancelledInputCancelsTheChain();
    void returnedFutureIsFlattened();
    void waiterRunsAQueuedSource();
    void nestedChainsOnOneThread();
};

void TestFutureChain::manyReadersOfAPendingFuture()
{
    QThreadPool pool;
    QPromise<int> promise;
    promise.start();
    QList<QFuture<int>> readers;
    for (int i = 0; i < 5; ++i)
        readers << continueWith(promise.future(), &pool, [i](int v) { return v * 10 + i; });
    promise.addResult(4);
    promise.finish();
    for (int i = 0; i < 5; ++i)
        QCOMPARE(readers[i].result(), 40 + i);
    // A finished future: the reader runs at once all the same.
    QCOMPARE(continueWith(promise.future(), &pool, [](int v) { return v + 1; }).result(), 5);
}


void TestFutureChain::attachRacingFinishRunsOnce()
{
    // 20000 rounds (~1 s); Qt's then() crashed within 200000 rounds in 1 of 3 runs here.
    constexpr int kRounds = 20000;
    QThreadPool pool;
    std::atomic<int> runs{0};
    const int delivered = raceAttachAgainstFinish(kRounds, [&](QFuture<int> f) {
        return continueWith(f, &pool, [&runs](int v) {
            runs.fetch_add(1);
            return v;
        });
    });
    pool.waitForDone();
    QCOMPARE(delivered, kRounds);
    QCOMPARE(runs.load(), kRounds);
}

void TestFutureChain::afterAllRacingFinishRunsOnce()
{
    constexpr int kRounds = 20000;
    QThreadPool pool;
    std::atomic<int> runs{0};
    QPromise<int> other; // finished before: a mix of pending and finished inputs
    other.start();
    other.addResult(2);
    other.finish();
    const QFuture<int> otherFuture = other.future();
    const int delivered = raceAttachAgainstFinish(kRounds, [&](QFuture<int> f) {
        return continueAfterAll(futuresOf(f, otherFuture), &pool, [&runs, f, otherFuture]() {
            runs.fetch_add(1);
            return f.result() * otherFuture.result() - 1;
        });
    });
    pool.waitForDone();
    QCOMPARE(delivered, kRounds);
    QCOMPARE(runs.load(), kRounds);
}

void TestFutureChain::cancelledInputCancelsTheChain()
{
    QThreadPool pool;
    bool called = false;
    QFuture<int> next;
    {
        QPromise<int> promise; // destroyed unfinished: its future is cancelled
        promise.start();
        next = continueWith(promise.future(), &pool, [&called](int v) {
            called = true;
            return v;
        });
    }
    next.waitForFinished();
    QVERIFY(next.isCanceled());
    QCOMPARE(next.resultCount(), 0);
    QCOMPARE(called, false);
    // continueAfterAll() still runs: it reads what each input holds.
    QPromise<int> gone;
    gone.start();
    QFuture<int> goneFuture = gone.future();
    gone.future().cancel();
    gone.finish();
    QFuture<int> counted = continueAfterAll(futuresOf(goneFuture), &pool, [goneFuture]() { return int(goneFuture.resultCount()); });
    QCOMPARE(counted.result(), 0);
}

void TestFutureChain::returnedFutureIsFlattened()
{
    QThreadPool pool;
    QFuture<QString> text = continueWith(QtFuture::makeReadyFuture(20), &pool, [&pool](int v) {
        return continueWith(QtFuture::makeReadyFuture(v + 1), &pool, [](int w) { return QString::number(w); });
    });
    QCOMPARE(text.result(), QStringLiteral("21"));
    // A void step in between.
    std::atomic<int> seen{0};
    QFuture<void> done = continueWith(QtFuture::makeReadyFuture(3), &pool, [&](int v) {
        seen = v;
        return QtConcurrent::run(&pool, [&seen] { seen = seen * 2; });
    });
    done.waitForFinished();
    QCOMPARE(seen.load(), 6);
}

void TestFutureChain::waiterRunsAQueuedSource()
{
    // The source is queued on a pool whose only thread is busy: the continuation (on another
    // pool) runs the source's job itself instead of waiting for that thread.
    QThreadPool busy;
    busy.setMaxThreadCount(1);
    QSemaphore started, release;
    QFuture<void> blocker = QtConcurrent::run(&busy, [&] {
        started.release();
        release.acquire();
    });
    started.acquire();
    QFuture<int> source = QtConcurrent::run(&busy, [] { return 7; });
    QThreadPool readers;
    QFuture<int> reader = continueWith(source, &readers, [](int v) { return v * 2; });
    QCOMPARE(reader.result(), 14);
    QCOMPARE(source.result(), 7);
    release.release();
    blocker.waitForFinished();
}

void TestFutureChain::nestedChainsOnOneThread()
{
    // Five steps, each returning the next step's future, on a pool of ONE thread: each waiter
    // runs the queued step it waits for, so the chain cannot starve itself.
    QThreadPool pool;
    pool.setMaxThreadCount(1);
    std::function<QFuture<int>(int)> step = [&](int depth) -> QFuture<int> {
        if (depth == 5)
            return QtFuture::makeReadyFuture(depth);
        return continueWith(QtFuture::makeReadyFuture(depth), &pool, [&step](int d) { return step(d + 1); });
    };
    QCOMPARE(step(0).result(), 5);
}

QTEST_GUILESS_MAIN(TestFutureChain)
#include "tst_future_chain.moc"
