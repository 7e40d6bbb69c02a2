#include "WindowEventSource.h"

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

class MemoryEventSource : public WindowEventSource {
public:
    explicit MemoryEventSource(QVector<WindowEvent> events) : m_events(std::move(events)) {}
    QFuture<Outcome<WindowPage>> readPage(const WindowQuery &, const WindowCursor &cursor, int limit) override
    {
        // The events are shared (implicitly) with the job: copying the vector copies no event.
        return QtConcurrent::run(&m_pool, [events = m_events, cursor, limit]() -> Outcome<WindowPage> {
            const qsizetype from = cursor.streams[0].started ? cursor.streams[0].id.toLongLong() : 0;
            const qsizetype n = qBound<qsizetype>(0, limit > 0 ? limit : events.size(), events.size() - from);
            WindowPage page;
            page.events = events.mid(from, n);
            page.next.streams[0].started = true;
            page.next.streams[0].id = QString::number(from + n);
            page.end = from + n >= events.size();
            for (StreamCursor &c : page.next.streams)
                c.done = page.end;
            page.next.streams[0].done = page.end;
            return Outcome<WindowPage>::success(std::move(page));
        });
    }
    QFuture<Outcome<QVector<WindowEvent>>> readTail(const WindowQuery &, int) override
    {
        return QtFuture::makeReadyFuture(Outcome<QVector<WindowEvent>>::success({}));
    }
    bool isLive() const override { return false; }
    QThreadPool *pool() override { return &m_pool; }

private:
    QVector<WindowEvent> m_events;
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

} // namespace triage
