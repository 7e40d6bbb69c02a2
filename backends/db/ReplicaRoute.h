#pragma once

#include "DbWorker.h"
#include "FutureChain.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <atomic>
#include <mutex>
#include <optional>

namespace triage {

/// Where a plain read may go (DESIGN.md §9 "Read replicas").
enum class ReadFrom {
    Routed,  ///< the replica while its lag allows, else the primary (lists, details, reports)
    Primary, ///< the primary: the read feeds a compare-and-set or a safety rule (mark --queue)
};

/// What a store's read replica looks like right now (DESIGN.md §9 "Read replicas").
struct ReplicaStatus {
    enum class State {
        None,       ///< no replica_url: every read goes to the primary
        Unmeasured, ///< configured, lag not measured yet (reads go to the primary)
        Usable,     ///< lag known and at most the limit: reads go to the replica
        Lagging,    ///< lag above the limit: reads go to the primary
        Unknown,    ///< lag unknown (not a standby, replication stopped, no privilege, down): primary
    };
    State state = State::None;
    qint64 lagMs = -1;         ///< the measured lag in ms; -1 when unknown
    qint64 maxLagMs = 5000;    ///< the limit (`[console] replica_max_lag`, seconds × 1000)
    QString why;               ///< Lagging/Unknown/Unmeasured: one line naming the cause
    QDateTime measuredAtUtc;   ///< when the lag was measured (UTC); invalid before the first
    QString replicaUrl;        ///< the replica's displayUrl() (no secret)

    /// True when reads may go to the replica.
    bool usable() const { return state == State::Usable; }
    /// One line for the status bar and doctor, e.g. "replica lag 0.3 s" or "reading from the
    /// primary: replica lag 7.2 s is above the 5 s limit" or "reading from the primary: replica
    /// lag unknown (not a standby: pg_is_in_recovery() is false)"; "" for None.
    QString text() const;
};

/// The shared state behind one ReplicaRoute: the last measurement and the own writes
/// pending (thread-safe: one mutex).
class ReplicaState {
public:
    ReplicaState(Dialect dialect, qint64 maxLagMs, QString replicaUrl, std::function<void(const ReplicaStatus &)> onStatus);

    /// On the replica's thread: measures the lag when due (or when `keys` have own writes
    /// pending) and says whether this read may run on the replica. Throws DbException only
    /// for a failure of the connection itself (then the read falls back).
    bool admit(DbSession &replica, const QStringList &keys);
    /// True when one of `keys` has an own write whose position is not known yet (no replica
    /// measurement could clear it): the read goes straight to the primary.
    bool keysPinnedToPrimary(const QStringList &keys);
    /// The replica failed a read: lag unknown with the error's message. A connection failure
    /// also rests the replica for ReplicaRoute::kRestAfterFailureMs (see resting()).
    void replicaFailed(const DbError &error);
    /// True for kRestAfterFailureMs after the replica could not be reached: reads go straight
    /// to the primary instead of each waiting for a connect attempt (up to connect_timeout).
    bool resting() const;
    /// Records own writes of `keys` at `atMs` (UTC ms) with the position to wait for (empty:
    /// not known yet).
    void noteWrite(const QStringList &keys, qint64 atMs, const QString &position);
    /// Sets the position of the writes noted at `atMs` (empty: it could not be read).
    void setWritePosition(const QStringList &keys, qint64 atMs, const QString &position);
    /// Measures on `replica` (its thread) and stores the result.
    ReplicaStatus measure(DbSession &replica);
    ReplicaStatus status() const;
    /// True for a replica failure that sends the read to the primary.
    static bool fallsBack(const DbError &error);
    Dialect dialect() const { return m_dialect; }

private:
    struct PendingWrite {
        qint64 atMs = 0;
        QString position; ///< PostgreSQL LSN "16/B374D848" or MariaDB GTID list; "" unknown
        bool positionAsked = true;
    };
    /// True when `replica` has replayed `w` (called with m_mutex released).
    bool caughtUp(DbSession &replica, const PendingWrite &w);
    void publish(const ReplicaStatus &s); ///< stores and reports a change (m_mutex held by caller: no)

    mutable std::mutex m_mutex;
    Dialect m_dialect;
    ReplicaStatus m_status;
    qint64 m_measuredAtSteadyMs = -1;
    qint64 m_restUntilSteadyMs = -1; ///< resting() until then
    quint64 m_replayedLsn = 0; ///< PostgreSQL: pg_last_wal_replay_lsn() at the last measurement
    QHash<QString, PendingWrite> m_pending;
    std::function<void(const ReplicaStatus &)> m_onStatus;
};

/// Where the reads of one store go (DESIGN.md §9 "Read replicas"): its primary worker and,
/// when `replica_url` is set, a worker on the replica. run() sends a read to the replica
/// while its lag is known and at most the limit, and to the primary otherwise; a read of a
/// key the operator wrote in this workspace (noteOwnWrite()) goes to the primary until the
/// replica has replayed that write (PostgreSQL: pg_last_wal_replay_lsn() ≥ the primary's
/// pg_current_wal_insert_lsn() read after the write; MariaDB: MASTER_GTID_WAIT(@@gtid_binlog_pos, 0)).
/// Writes and every read that a compare-and-set or a safety rule depends on never come
/// here: they use Workspace::worker() (the primary) directly.
///
/// The lag is measured on the replica's own connection, inside the routed job, when the
/// last measurement is older than kMeasureEveryMs (and for every read of a key with an own
/// write pending), so a decision is never older than that. A replica that cannot be reached
/// (kind Connection or Config) or that cancels a read for a conflict with recovery
/// (SQLSTATE 40001) sends the read to the primary and makes the lag unknown until the next
/// measurement. Thread-safe.
class ReplicaRoute {
public:
    /// How old a lag measurement may be before a read measures again, in ms.
    static constexpr qint64 kMeasureEveryMs = 1000;
    /// How long an own write whose position could not be read keeps its key on the primary, in ms.
    static constexpr qint64 kUnknownPositionHoldMs = 60000;
    /// How long reads skip a replica that could not be reached, in ms (then one read tries again).
    static constexpr qint64 kRestAfterFailureMs = 15000;

    /// `primary` must outlive the route; `replica` may be null (no replica_url); `pool` runs
    /// the fallback continuations (the workspace's merge pool). `onStatus` (may be empty) is
    /// called from a worker thread whenever the status's state or text changes.
    ReplicaRoute(DbWorker &primary, std::unique_ptr<DbWorker> replica, qint64 maxLagMs, QThreadPool *pool,
                 std::function<void(const ReplicaStatus &)> onStatus = {});
    ~ReplicaRoute();

    /// Runs the read `job` on the replica when it may (see the class comment), else on the
    /// primary; `keys` are the idempotency keys the read is about (empty for lists, counts,
    /// summaries); `from` Primary skips the replica. Same contract as DbWorker::run(): never throws, an Outcome with a DbError
    /// naming the store; the caller's CancelToken::current() tags the job wherever it runs.
    template <typename T>
    QFuture<Outcome<T>> run(std::function<T(DbSession &)> job, const QStringList &keys = {},
                            DbWorker::Retry retry = DbWorker::Retry::OnReconnect, ReadFrom from = ReadFrom::Routed)
    {
        if (!m_replica || from == ReadFrom::Primary || (!keys.isEmpty() && m_keyReadsOnPrimary.load()) || m_state->resting()
            || m_state->keysPinnedToPrimary(keys))
            return m_primary.run<T>(std::move(job), retry);
        const CancelToken token = CancelToken::current();
        auto state = m_state;
        QFuture<Outcome<std::optional<T>>> onReplica = m_replica->run<std::optional<T>>(
            [state, job, keys](DbSession &s) -> std::optional<T> {
                if (!state->admit(s, keys))
                    return std::nullopt;
                return job(s);
            },
            retry);
        DbWorker *primary = &m_primary;
        return continueWith(onReplica, m_pool, [state, primary, job, token, retry](const Outcome<std::optional<T>> &o) {
            if (o.ok() && o.value->has_value())
                return QtFuture::makeReadyFuture(Outcome<T>::success(**o.value));
            if (!o.ok() && !ReplicaState::fallsBack(*o.error)) {
                DbError e = *o.error; // the store's message, but it happened on the replica: say so
                e.message += QStringLiteral(" (on the read replica %1)").arg(state->status().replicaUrl);
                return QtFuture::makeReadyFuture(Outcome<T>::failure(e));
            }
            if (!o.ok())
                state->replicaFailed(*o.error);
            CancelScope scope(token);
            return primary->run<T>(job, retry);
        });
    }

    /// Records that the operator's own write changed `keys` (UTC now): their key-specific
    /// reads go to the primary until the replica has replayed it. Reads the primary's write
    /// position on the primary worker (after the write committed, so the position covers it);
    /// until that answer arrives, or for kUnknownPositionHoldMs when it fails, the keys stay on
    /// the primary. Does nothing without a replica.
    void noteOwnWrite(const QStringList &keys);

    /// The status as last measured.
    ReplicaStatus status() const;
    /// `on`: every read about keys goes to the primary, only lists, counts and reports to the
    /// replica (triagectl: a separate process cannot know what an earlier one wrote). Thread-safe.
    void setKeyReadsOnPrimary(bool on) { m_keyReadsOnPrimary.store(on); }
    /// The replica's worker, or null (for cancels: a routed read may run there).
    DbWorker *replicaWorker() const { return m_replica.get(); }
    /// Measures the lag now on the replica's connection (for doctor, the console's status and
    /// tests) and returns the status, also stored; a replica that cannot be reached gives
    /// State::Unknown with the error. A route without a replica gives State::None at once.
    QFuture<ReplicaStatus> measureNow();

    /// Jobs queued on the replica worker so far (for Workspace's drain).
    quint64 submittedJobs() const { return m_replica ? m_replica->submittedJobs() : 0; }
    /// DbWorker::waitForQueuedJobs() on the replica worker.
    void waitForQueuedJobs()
    {
        if (m_replica)
            m_replica->waitForQueuedJobs();
    }

private:
    DbWorker &m_primary;
    std::unique_ptr<DbWorker> m_replica;
    QThreadPool *m_pool;
    std::shared_ptr<ReplicaState> m_state;
    std::atomic<bool> m_keyReadsOnPrimary{false};
};

/// "16/B374D848" → 0x16B374D848; 0 for text that is not an LSN.
quint64 parsePgLsn(const QString &text);

} // namespace triage
