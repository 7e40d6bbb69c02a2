// continueShared() (backends/domain/SharedFuture.h): any number of readers of one future,
// where Qt 6.4's then() keeps only the last (docs/QT-PITFALLS.md "One continuation per future").
#include "SharedFuture.h"

#include <QPromise>
#include <QSemaphore>
#include <QTest>

using namespace triage;

class TestSharedFuture : public QObject {
    Q_OBJECT
private slots:
    void manyReadersOfAPendingFuture();
    void qtThenKeepsOnlyTheLast();
    void waiterRunsAQueuedSource();
};

void TestSharedFuture::manyReadersOfAPendingFuture()
{
    QThreadPool pool;
    QPromise<int> promise;
    promise.start();
    QList<QFuture<int>> readers;
    for (int i = 0; i < 5; ++i)
        readers << continueShared(promise.future(), &pool, [i](int v) { return v * 10 + i; });
    promise.addResult(4);
    promise.finish();
    for (int i = 0; i < 5; ++i)
        QCOMPARE(readers[i].result(), 40 + i);
    // A finished future: the reader runs at once all the same.
    QCOMPARE(continueShared(promise.future(), &pool, [](int v) { return v + 1; }).result(), 5);
}

void TestSharedFuture::qtThenKeepsOnlyTheLast()
{
    // The pitfall itself, as Qt 6.4 behaves: the first then() on a pending future is replaced
    // by the second and never delivers its result (it stays pending, or is cancelled when the
    // dropped continuation's promise is destroyed). If this fails, Qt changed (continueShared()
    // still holds).
    QThreadPool pool;
    QPromise<int> promise;
    promise.start();
    QFuture<int> source = promise.future();
    QFuture<int> first = source.then(&pool, [](int v) { return v; });
    QFuture<int> second = source.then(&pool, [](int v) { return v + 1; });
    promise.addResult(1);
    promise.finish();
    QCOMPARE(second.result(), 2);
    pool.waitForDone();
    QCOMPARE(first.resultCount(), 0);
    QVERIFY(!first.isFinished() || first.isCanceled());
}

void TestSharedFuture::waiterRunsAQueuedSource()
{
    // The source is queued on a pool whose only thread is busy: the reader (on another pool)
    // runs the source's job itself instead of waiting for that thread.
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
    QFuture<int> reader = continueShared(source, &readers, [](int v) { return v * 2; });
    QCOMPARE(reader.result(), 14);
    QCOMPARE(source.result(), 7);
    release.release();
    blocker.waitForFinished();
}

QTEST_GUILESS_MAIN(TestSharedFuture)
#include "tst_shared_future.moc"
