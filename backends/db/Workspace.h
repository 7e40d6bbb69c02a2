#pragma once

#include "DbWorker.h"
#include "ReplicaRoute.h"
#include "WorkerPool.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QObject>
#include <QThreadPool>

#include <memory>

namespace triage {

/// The console's connection to the three stores (DESIGN.md §3): it owns the configuration,
/// one DbWorker per store (its own thread and connection), a WorkerPool of extra workers
/// per store, and the pool continuations run on — nothing else. The features' services
/// take a Workspace& and return QFutures (initSchema(), fetchQueuePage(), countQueue(),
/// loadKeyDetail(), markRecord(), checkUpstream(), …), so callers never run SQL on their
/// own thread. Futures resolve on worker or pool threads; GUI code continues them with
/// `whenReady(future, this, …)` (WhenReady.h: always from the event loop, never inside
/// the call), the CLI waits on `.result()`. Failures never throw: each Outcome carries a
/// DbError naming the store.
class Workspace : public QObject {
    Q_OBJECT
public:
    explicit Workspace(WorkspaceConfig config, QObject *parent = nullptr);
    /// Returns once no job queued on its workers and no continuation on its merge pool is
    /// left (each may queue the other: drained in rounds until a round queues no new job),
    /// then stops them. From the thread that owns the workspace, never from a job.
    ~Workspace() override;

    const WorkspaceConfig &config() const { return m_config; }
    /// The store's primary worker: every write, and every read that a compare-and-set or a
    /// safety rule depends on (DESIGN.md §9 "Read replicas").
    DbWorker &worker(DbRole role);
    /// Where the store's plain reads go (lists, counts, details, timelines, summaries,
    /// reports): the replica while its lag allows, else the primary (ReplicaRoute.h). Without a
    /// replica_url it runs every job on worker(role). Thread-safe.
    ReplicaRoute &reader(DbRole role);
    /// The workers a read of `role` may be running on (the primary, and the replica when one
    /// is configured): for cancelling a routed read (cancelWork()).
    QList<DbWorker *> readWorkers(DbRole role);
    /// The operator's own write changed `keys`: on every store with a replica, their reads go
    /// to the primary until the replica has replayed it (ReplicaRoute::noteOwnWrite()). Call
    /// after the write committed, before its outcome reaches the caller.
    void noteOwnWrite(const QStringList &keys);
    /// ReplicaRoute::setKeyReadsOnPrimary() on every store (triagectl).
    void setKeyReadsOnPrimary(bool on);

    /// What unlockWrites() did.
    enum class Unlock {
        Unlocked,  ///< writes are on from now on (logged: environment, profile, operator)
        WrongName, ///< the typed text is not the profile's name exactly: still read-only
        NotLocked, ///< nothing to unlock (not a production lock: writes already on, or --read-only)
    };
    /// Switches a production workspace's writes on (DESIGN.md §5 "Environments") when
    /// `typedName` is exactly the profile's name (writesUnlockAccepted()) and the workspace
    /// is read-only only because of the environment (WorkspaceConfig::writesLocked). Every
    /// attempt is logged (logger "db"; never the typed text).
    /// From the thread that owns the workspace, with no write in flight (the console's GUI
    /// thread: writes are off until this returns Unlocked). Reads in flight on other threads
    /// see the flags before or after, never torn (SharedFlag).
    Unlock unlockWrites(const QString &typedName);

    /// How many extra workers bulkWorkers() holds per store.
    static constexpr int kBulkWorkers = 4;
    /// The extra workers of `role`'s store (kBulkWorkers, beside worker(role)), for bulk runs
    /// that spread one job per record over several connections. Thread-safe.
    WorkerPool &bulkWorkers(DbRole role);

    /// The pool the services' continuations run on (merging several workers' results; never
    /// the GUI thread): continueWith()/continueAfterAll() jobs (FutureChain.h), drained by
    /// ~Workspace. 16 threads; a job waiting for a queued job of a pool runs it itself.
    QThreadPool *mergePool() { return &m_mergePool; }

    /// Opens each connection (if not yet open) and reports its state via connectionEvent().
    void probeConnections();

    /// Installs a check each store must pass before its first job (OpenCheck.h, DESIGN.md
    /// §10 "Checked at open"): one OpenCheck per store over `problems`, shared by the
    /// store's worker and its bulk workers, so it runs once per store for the life of the
    /// workspace. From then on a store that fails it fails every job with
    /// OpenCheck::refusal() (kind Config: CLI exit 1) and reports it once by
    /// connectionEvent(role, false, message). Call right after construction, before any job;
    /// installMappingCheck() (Doctor.h) installs the mapping check. Without it (the default,
    /// and for doctor, init-schema and map --suggest) nothing is checked.
    void setOpenCheck(const OpenCheck::Problems &problems);

signals:
    /// Relayed from the workers (any thread → receiver's thread by queued connection).
    void connectionEvent(triage::DbRole role, bool up, const QString &message);
    /// A store's read replica changed state (ReplicaStatus::text(): "replica lag 0.3 s",
    /// "reading from the primary: …"); `usable` true while reads go to the replica. Emitted
    /// from a worker thread (queued to receivers in other threads).
    void replicaEvent(triage::DbRole role, bool usable, const QString &text);

private:
    /// Jobs queued on every worker so far (Workspace's destructor: drained until none is new).
    quint64 submittedJobs();

    WorkspaceConfig m_config;
    std::unique_ptr<DbWorker> m_workers[3];
    std::unique_ptr<WorkerPool> m_bulkWorkers[3];
    std::unique_ptr<ReplicaRoute> m_routes[3];
    /// Continuations of the services; separate from the global pool (2 threads on a 2-core
    /// machine), which QtConcurrent callers elsewhere may fill.
    QThreadPool m_mergePool;
};

} // namespace triage
