#include "WorkerPool.h"

#include <QMutexLocker>

namespace triage {

WorkerPool::WorkerPool(ConnectionProfile profile, int size)
    : m_profile(std::move(profile)), m_size(std::max(size, 0)), m_workers(std::size_t(m_size))
{
}

WorkerPool::~WorkerPool() = default;

quint64 WorkerPool::submittedJobs()
{
    QMutexLocker lock(&m_mutex);
    quint64 n = 0;
    for (const auto &w : m_workers)
        if (w)
            n += w->submittedJobs();
    return n;
}

void WorkerPool::waitForQueuedJobs()
{
    std::vector<DbWorker *> created; // workers live as long as the pool: wait outside the lock
    {
        QMutexLocker lock(&m_mutex);
        for (const auto &w : m_workers)
            if (w)
                created.push_back(w.get());
    }
    for (DbWorker *w : created)
        w->waitForQueuedJobs();
}

DbWorker &WorkerPool::at(int i)
{
    Q_ASSERT(i >= 0 && i < m_size);
    QMutexLocker lock(&m_mutex);
    auto &w = m_workers[std::size_t(i)];
    if (!w) {
        w = std::make_unique<DbWorker>(m_profile);
        if (m_openCheck)
            w->setOpenCheck(m_openCheck);
    }
    return *w;
}

void WorkerPool::setOpenCheck(std::shared_ptr<OpenCheck> check)
{
    QMutexLocker lock(&m_mutex);
    m_openCheck = check;
    for (auto &w : m_workers)
        if (w)
            w->setOpenCheck(check);
}

} // namespace triage
