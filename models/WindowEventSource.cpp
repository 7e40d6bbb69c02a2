#include "WindowEventSource.h"

#include "FutureChain.h"

#include "Workspace.h"

#include <QtConcurrent/QtConcurrentRun>

namespace triage {

namespace {

class StoreEventSource : public WindowEventSource {
public:
    explicit StoreEventSource(Workspace *workspace) : m_workspace(workspace) {}
    QFuture<Outcome<WindowPage>> readPage(const WindowQuery &query, const WindowCursor &cursor, int limit) override
    {
        return readWindowPage(*m_workspace, query, cursor, limit);
    }
    QFuture<Outcome<QVector<WindowEvent>>> readTail(const WindowQuery &query, int limit) override
    {
        return readSettlingTail(*m_workspace, query, limit);
    }
    bool isLive() const override { return true; }
    QThreadPool *pool() override { return m_workspace->mergePool(); }

private:
    Workspace *m_workspace;
};

/// The page of `events` (the whole list, or its first part when `total` says more follow) at
/// the position the cursor holds.
WindowPage cutPage(const QVector<WindowEvent> &events, qint64 total, const WindowCursor &cursor, int limit)
{
    const qsizetype from = cursor.streams[0].started ? cursor.streams[0].id.toLongLong() : 0;
    const qsizetype n = qBound<qsizetype>(0, limit > 0 ? limit : total, qMin<qsizetype>(total, events.size()) - from);
    WindowPage page;
    page.events = events.mid(from, n);
    page.next.streams[0].started = true;
    page.next.streams[0].id = QString::number(from + n);
    page.end = from + n >= total;
    for (StreamCursor &c : page.next.streams)
        c.done = page.end;
    page.next.streams[0].done = page.end;
    return page;
}

class MemoryEventSource : public WindowEventSource {
public:
    explicit MemoryEventSource(QVector<WindowEvent> events)
        : m_first(std::move(events)), m_total(m_first.size())
    {
    }
    MemoryEventSource(QVector<WindowEvent> first, qint64 total, QFuture<Outcome<QVector<WindowEvent>>> all)
        : m_first(std::move(first)), m_total(total), m_all(std::move(all)), m_pending(true)
    {
    }
    ~MemoryEventSource() override { m_pool.waitForDone(); }
    QFuture<Outcome<WindowPage>> readPage(const WindowQuery &, const WindowCursor &cursor, int limit) override
    {
        const qsizetype from = cursor.streams[0].started ? cursor.streams[0].id.toLongLong() : 0;
        const qint64 wanted = qMin<qint64>(m_total, from + (limit > 0 ? limit : m_total));
        const qint64 total = m_total;
        if (!m_pending || wanted <= m_first.size()) {
            // The events are shared (implicitly) with the job: copying the vector copies no event.
            return QtConcurrent::run(&m_pool, [events = m_first, total, cursor, limit]() {
                return Outcome<WindowPage>::success(cutPage(events, total, cursor, limit));
            });
        }
        // Past the first events: the page waits for the whole list (read on another thread).
        // Every page past the first events waits on the one shared future: continueWith()
        // allows any number of waiters (FutureChain.h).
        return continueWith(m_all, &m_pool, [total, cursor, limit](const Outcome<QVector<WindowEvent>> &all) {
            if (!all.ok())
                return Outcome<WindowPage>::failure(*all.error);
            return Outcome<WindowPage>::success(cutPage(*all, total, cursor, limit));
        });
    }
    QFuture<Outcome<QVector<WindowEvent>>> readTail(const WindowQuery &, int) override
    {
        return QtFuture::makeReadyFuture(Outcome<QVector<WindowEvent>>::success({}));
    }
    bool isLive() const override { return false; }
    QThreadPool *pool() override { return &m_pool; }

private:
    QVector<WindowEvent> m_first; ///< every event, or the first ones while m_pending
    qint64 m_total = 0;
    QFuture<Outcome<QVector<WindowEvent>>> m_all;
    bool m_pending = false;
    QThreadPool m_pool;
};

} // namespace

std::unique_ptr<WindowEventSource> storeEventSource(Workspace *workspace)
{
    return std::make_unique<StoreEventSource>(workspace);
}

std::unique_ptr<WindowEventSource> memoryEventSource(QVector<WindowEvent> events)
{
    return std::make_unique<MemoryEventSource>(std::move(events));
}

std::unique_ptr<WindowEventSource> memoryEventSource(QVector<WindowEvent> first, qint64 total,
                                                     QFuture<Outcome<QVector<WindowEvent>>> all)
{
    return std::make_unique<MemoryEventSource>(std::move(first), total, std::move(all));
}

} // namespace triage
