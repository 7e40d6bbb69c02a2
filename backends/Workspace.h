#pragma once

#include "DbWorker.h"
#include "DemoData.h"
#include "KeyDetail.h"
#include "Queue.h"
#include "Schema.h"
#include "WorkerPool.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QObject>
#include <QThreadPool>

#include <memory>

namespace triage {

/// Counts of what seed-demo inserted.
struct SeedReport {
    qint64 records = 0, tickets = 0, intents = 0;
};

/// The console's entry point to the three stores (DESIGN.md §2-3). Owns one DbWorker per
/// role (each with its own thread and connection) and offers every read as a QFuture,
/// so callers never run SQL on their own thread. Futures resolve on worker threads; GUI
/// code continues them with `whenReady(future, this, …)` (WhenReady.h: always from the
/// event loop, never inside the call), the CLI waits on `.result()`.
///
/// Failures never throw: each Outcome carries a DbError naming the store. A store that is
/// down does not stop the others (loadKeyDetail() returns what the live stores gave).
class Workspace : public QObject {
    Q_OBJECT
public:
    explicit Workspace(WorkspaceConfig config, QObject *parent = nullptr);
    ~Workspace() override;

    const WorkspaceConfig &config() const { return m_config; }
    DbWorker &worker(DbRole role);

    /// How many extra workers bulkWorkers() holds per store.
    static constexpr int kBulkWorkers = 4;
    /// The extra workers of `role`'s store (kBulkWorkers, beside worker(role)), for bulk runs
    /// that spread one job per record over several connections. Thread-safe.
    WorkerPool &bulkWorkers(DbRole role);

    /// Creates the tables and indexes of all three roles (idempotent). Roles sharing one
    /// database run one after the other. Returns the number of statements run.
    QFuture<Outcome<int>> initSchema(const SchemaOptions &options);

    /// Generates `options` data (see makeSeedPlan()) and inserts it into the three stores.
    QFuture<Outcome<SeedReport>> seed(const SeedOptions &options);

    /// The first `limit` rows of `request` after `cursor` (keyset pagination; for the
    /// Unknown queue a merge of records and intent steps by updated_at).
    QFuture<Outcome<QueuePage>> fetchQueuePage(const QueueRequest &request, const QueueCursor &cursor, int limit);

    /// The exact number of rows of `request` (a separate statement, so a first page never
    /// waits for a count).
    QFuture<Outcome<qint64>> countQueue(const QueueRequest &request);

    /// Everything about one key from all three stores, with the merged timeline.
    QFuture<KeyDetail> loadKeyDetail(const QString &idemKey);

    /// The pool for tasks that wait on several workers' futures (never the GUI thread).
    QThreadPool *mergePool() { return &m_mergePool; }

    /// Opens each connection (if not yet open) and reports its state via connectionEvent().
    void probeConnections();

signals:
    /// Relayed from the workers (any thread → receiver's thread by queued connection).
    void connectionEvent(triage::DbRole role, bool up, const QString &message);

private:
    WorkspaceConfig m_config;
    std::unique_ptr<DbWorker> m_workers[3];
    std::unique_ptr<WorkerPool> m_bulkWorkers[3];
    /// Merges results of several workers; its threads only wait on worker futures, so it
    /// is separate from the global pool (2 threads on a 2-core machine) to avoid starving it.
    QThreadPool m_mergePool;
};

/// The embedded demo workspace (DESIGN.md §5 `--demo`): one SQLite file under the
/// user's data directory ($XDG_DATA_HOME/triage-console/demo/demo.sqlite), with every
/// table, no ticket backstop, seeded with the demo set. Re-created when it is more than a
/// day old or on `reset`. Safe against two processes creating it at once (lock file).
class DemoWorkspace {
public:
    /// The demo database path.
    static QString path();
    /// The configuration for the demo (SQLite × 3, demo biz types).
    static WorkspaceConfig config();
    /// Creates (or re-creates) the demo if needed, synchronously on the calling thread's
    /// behalf but with all SQL on a temporary Workspace's workers. Returns an error message,
    /// or an empty string on success. Not for the GUI thread: call it before the window
    /// opens, or from a worker.
    static QString ensure(bool reset);
};

} // namespace triage
