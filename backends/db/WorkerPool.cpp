#include "WorkerPool.h"

#include <QMutexLocker>

namespace triage {

WorkerPool::WorkerPool(ConnectionProfile profile, int size)
    : m_profile(std::move(profile)), m_size(std::max(size, 0)), m_workers(std::size_t(m_size))
{
}

WorkerPool::~WorkerPool() = default;

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
