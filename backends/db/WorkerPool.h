#pragma once

#include "ConnectionProfile.h"
#include "DbWorker.h"

#include <QMutex>

#include <memory>
#include <vector>

namespace triage {

/// Extra workers for one store (db layer), beside the Workspace's own worker of that role:
/// `size()` DbWorkers with the store's profile, each with its own thread and connection,
/// for work that spreads many independent jobs over several connections (a bulk mark of
/// 200 records or more). A worker is created on its first use and its connection opens on
/// its first job (DbWorker); both live as long as the pool. Thread-safe.
class WorkerPool {
public:
    WorkerPool(ConnectionProfile profile, int size);
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    /// How many workers the pool has (fixed at construction).
    int size() const { return m_size; }
    /// Worker `i`, 0 <= i < size(); created on the first call for `i`.
    DbWorker &at(int i);
    /// DbWorker::submittedJobs() summed over the workers created so far. Thread-safe.
    quint64 submittedJobs();
    /// DbWorker::waitForQueuedJobs() on each worker created so far.
    void waitForQueuedJobs();
    /// Installs `check` on every worker, those created later included (DbWorker::setOpenCheck()).
    void setOpenCheck(std::shared_ptr<OpenCheck> check);

private:
    const ConnectionProfile m_profile;
    const int m_size;
    QMutex m_mutex;
    std::vector<std::unique_ptr<DbWorker>> m_workers; ///< size() entries, null until used
    std::shared_ptr<OpenCheck> m_openCheck;           ///< given to each worker (guarded by m_mutex)
};

} // namespace triage
