#include "ReplicaRoute.h"

#include "Log.h"

#include <QElapsedTimer>
#include <QSqlRecord>

namespace triage {

namespace {

qint64 steadyNowMs()
{
    static QElapsedTimer clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return clock.elapsed();
}

QString seconds(qint64 ms)
{
    return QString::number(double(ms) / 1000.0, 'f', 1);
}

/// The primary's write position after a commit: what the replica must have replayed.
/// PostgreSQL: the insert position, never behind a commit record (pg_current_wal_lsn() is the
/// position written so far, which under synchronous_commit = off can still be before it).
QString writePosition(DbSession &primary)
{
    QSqlQuery q = primary.queryDirect(primary.profile().dialect == Dialect::PostgreSql
                                          ? QStringLiteral("SELECT pg_current_wal_insert_lsn()::text")
                                          : QStringLiteral("SELECT @@gtid_binlog_pos"));
    return q.next() ? q.value(0).toString() : QString();
}

} // namespace

quint64 parsePgLsn(const QString &text)
{
    const qsizetype slash = text.indexOf(QLatin1Char('/'));
    if (slash <= 0)
        return 0;
    bool okHigh = false, okLow = false;
    const quint64 high = text.left(slash).toULongLong(&okHigh, 16);
    const quint64 low = text.mid(slash + 1).toULongLong(&okLow, 16);
    return okHigh && okLow ? (high << 32) | low : 0;
}

QString ReplicaStatus::text() const
{
    switch (state) {
    case State::None:
        return {};
    case State::Unmeasured:
        return QStringLiteral("reading from the primary: replica lag not measured yet");
    case State::Usable:
        return QStringLiteral("replica lag %1 s").arg(seconds(lagMs));
    case State::Lagging:
        return QStringLiteral("reading from the primary: replica lag %1 s is above the %2 s limit%3")
            .arg(seconds(lagMs), seconds(maxLagMs), why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why));
    case State::Unknown:
        return QStringLiteral("reading from the primary: replica lag unknown (%1)").arg(why);
    }
    return {};
}

// ------------------------------------------------------------------ ReplicaState

ReplicaState::ReplicaState(Dialect dialect, qint64 maxLagMs, QString replicaUrl,
                           std::function<void(const ReplicaStatus &)> onStatus)
    : m_dialect(dialect), m_onStatus(std::move(onStatus))
{
    m_status.state = ReplicaStatus::State::Unmeasured;
    m_status.maxLagMs = maxLagMs;
    m_status.replicaUrl = std::move(replicaUrl);
}

bool ReplicaState::fallsBack(const DbError &error)
{
    using K = DbError::Kind;
    // 40001: PostgreSQL cancels a standby's query that conflicts with recovery.
    return error.kind == K::Connection || error.kind == K::Config || error.kind == K::Privilege
        || error.nativeCode == QLatin1String("40001");
}

ReplicaStatus ReplicaState::status() const
{
    std::lock_guard lock(m_mutex);
    return m_status;
}

void ReplicaState::publish(const ReplicaStatus &s)
{
    bool changed = false;
    {
        std::lock_guard lock(m_mutex);
        changed = s.state != m_status.state || s.why != m_status.why;
        m_status = s;
        m_measuredAtSteadyMs = steadyNowMs();
    }
    if (changed) {
        logger("db")->info("read replica {}: {}", s.replicaUrl.toStdString(), s.text().toStdString());
        if (m_onStatus)
            m_onStatus(s);
    }
}

bool ReplicaState::resting() const
{
    std::lock_guard lock(m_mutex);
    return m_restUntilSteadyMs >= 0 && steadyNowMs() < m_restUntilSteadyMs;
}

void ReplicaState::replicaFailed(const DbError &error)
{
    if (error.kind == DbError::Kind::Connection || error.kind == DbError::Kind::Config) {
        std::lock_guard lock(m_mutex);
        m_restUntilSteadyMs = steadyNowMs() + ReplicaRoute::kRestAfterFailureMs;
    }
    ReplicaStatus s = status();
    s.state = ReplicaStatus::State::Unknown;
    s.lagMs = -1;
    s.why = error.message;
    s.measuredAtUtc = QDateTime::currentDateTimeUtc();
    publish(s);
}

ReplicaStatus ReplicaState::measure(DbSession &replica)
{
    ReplicaStatus s = status();
    s.measuredAtUtc = QDateTime::currentDateTimeUtc();
    s.lagMs = -1;
    s.why.clear();
    auto unknown = [&](const QString &why) {
        s.state = ReplicaStatus::State::Unknown;
        s.why = why;
        publish(s);
        return s;
    };
    try {
        if (m_dialect == Dialect::PostgreSql) {
            QSqlQuery q = replica.queryDirect(QStringLiteral(
                "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END, "
                "pg_last_wal_receive_lsn()::text, pg_last_wal_replay_lsn()::text, "
                "(EXTRACT(EPOCH FROM (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000)::bigint"));
            if (!q.next())
                return unknown(QStringLiteral("the lag query returned no row"));
            if (!q.value(0).toBool())
                return unknown(QStringLiteral("not a standby: pg_is_in_recovery() is false"));
            const bool paused = q.value(1).toBool();
            const QString received = q.value(2).toString(), replayed = q.value(3).toString();
            {
                std::lock_guard lock(m_mutex);
                m_replayedLsn = parsePgLsn(replayed);
            }
            if (!paused && !received.isEmpty() && received == replayed) {
                s.lagMs = 0; // everything received is replayed (an idle primary writes no transactions)
            } else if (q.value(4).isNull()) {
                return unknown(paused ? QStringLiteral("WAL replay is paused and no transaction was replayed yet")
                                      : QStringLiteral("no transaction replayed yet"));
            } else {
                s.lagMs = qMax<qint64>(0, q.value(4).toLongLong());
            }
            if (paused)
                s.why = QStringLiteral("WAL replay is paused");
        } else if (m_dialect == Dialect::MySql) {
            QSqlQuery q = replica.queryDirect(QStringLiteral("SHOW REPLICA STATUS"));
            if (!q.next())
                return unknown(QStringLiteral("not a replica: SHOW REPLICA STATUS is empty"));
            const QVariant behind = q.value(q.record().indexOf(QStringLiteral("Seconds_Behind_Master")));
            if (behind.isNull())
                return unknown(QStringLiteral("Seconds_Behind_Master is NULL: replication is not running"));
            s.lagMs = behind.toLongLong() * 1000;
        } else {
            return unknown(QStringLiteral("SQLite has no replicas"));
        }
    } catch (const DbException &e) {
        if (e.error.kind == DbError::Kind::Connection)
            throw;
        return unknown(e.error.message); // a missing privilege (MariaDB 1227), a failed statement
    }
    s.state = s.lagMs <= s.maxLagMs ? ReplicaStatus::State::Usable : ReplicaStatus::State::Lagging;
    publish(s);
    return s;
}

bool ReplicaState::caughtUp(DbSession &replica, const PendingWrite &w)
{
    if (m_dialect == Dialect::PostgreSql) {
        std::lock_guard lock(m_mutex);
        const quint64 want = parsePgLsn(w.position);
        return want != 0 && m_replayedLsn >= want;
    }
    SqlBuilder b;
    QSqlQuery q = replica.exec(QStringLiteral("SELECT MASTER_GTID_WAIT(%1, 0)").arg(b.bind(w.position)), b);
    return q.next() && q.value(0).toInt() == 0;
}

bool ReplicaState::admit(DbSession &replica, const QStringList &keys)
{
    bool measure_ = false;
    QList<std::pair<QString, PendingWrite>> pending;
    {
        std::lock_guard lock(m_mutex);
        for (const QString &k : keys)
            if (auto it = m_pending.constFind(k); it != m_pending.constEnd())
                pending.append({k, *it});
        measure_ = !pending.isEmpty() || m_measuredAtSteadyMs < 0
            || steadyNowMs() - m_measuredAtSteadyMs >= ReplicaRoute::kMeasureEveryMs;
    }
    const ReplicaStatus s = measure_ ? measure(replica) : status();
    if (!s.usable())
        return false;
    for (const auto &[key, write] : pending) {
        if (write.position.isEmpty() || !caughtUp(replica, write))
            return false;
        std::lock_guard lock(m_mutex);
        if (auto it = m_pending.find(key); it != m_pending.end() && it->atMs == write.atMs)
            m_pending.erase(it); // replayed: the replica serves this key again
    }
    return true;
}

bool ReplicaState::keysPinnedToPrimary(const QStringList &keys)
{
    if (keys.isEmpty())
        return false;
    std::lock_guard lock(m_mutex);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const QString &k : keys) {
        auto it = m_pending.find(k);
        if (it == m_pending.end() || !it->position.isEmpty())
            continue;
        if (!it->positionAsked && now - it->atMs >= ReplicaRoute::kUnknownPositionHoldMs) {
            m_pending.erase(it); // the position never came: held long enough
            continue;
        }
        return true;
    }
    return false;
}

void ReplicaState::noteWrite(const QStringList &keys, qint64 atMs, const QString &position)
{
    std::lock_guard lock(m_mutex);
    for (const QString &k : keys)
        m_pending.insert(k, PendingWrite{atMs, position, position.isEmpty()});
}

void ReplicaState::setWritePosition(const QStringList &keys, qint64 atMs, const QString &position)
{
    std::lock_guard lock(m_mutex);
    for (const QString &k : keys) {
        auto it = m_pending.find(k);
        if (it == m_pending.end() || it->atMs != atMs)
            continue; // a later write of the key owns the entry now
        it->position = position;
        it->positionAsked = false;
    }
}

// ------------------------------------------------------------------ ReplicaRoute

ReplicaRoute::ReplicaRoute(DbWorker &primary, std::unique_ptr<DbWorker> replica, qint64 maxLagMs, QThreadPool *pool,
                           std::function<void(const ReplicaStatus &)> onStatus)
    : m_primary(primary), m_replica(std::move(replica)), m_pool(pool),
      m_state(std::make_shared<ReplicaState>(primary.profile().dialect, maxLagMs,
                                             m_replica ? m_replica->profile().displayUrl() : QString(), std::move(onStatus)))
{
}

ReplicaRoute::~ReplicaRoute() = default;

ReplicaStatus ReplicaRoute::status() const
{
    if (!m_replica)
        return {};
    return m_state->status();
}

void ReplicaRoute::noteOwnWrite(const QStringList &keys)
{
    if (!m_replica || keys.isEmpty())
        return;
    const qint64 atMs = QDateTime::currentMSecsSinceEpoch();
    m_state->noteWrite(keys, atMs, QString());
    CancelScope untagged{CancelToken()}; // the operator's Stop must not lose the position
    auto position = m_primary.run<QString>([](DbSession &s) { return writePosition(s); });
    continueWith(position, m_pool, [state = m_state, keys, atMs](const Outcome<QString> &o) {
        if (!o.ok())
            logger("db")->warn("could not read the primary's write position after an own write ({}): the keys stay "
                               "on the primary for {} s",
                               o.error->message.toStdString(), kUnknownPositionHoldMs / 1000);
        state->setWritePosition(keys, atMs, o.ok() ? *o : QString());
    });
}

QFuture<ReplicaStatus> ReplicaRoute::measureNow()
{
    if (!m_replica)
        return QtFuture::makeReadyFuture(ReplicaStatus{});
    auto state = m_state;
    auto measured = m_replica->run<ReplicaStatus>([state](DbSession &s) { return state->measure(s); });
    return continueWith(measured, m_pool, [state](const Outcome<ReplicaStatus> &o) {
        if (o.ok())
            return *o;
        state->replicaFailed(*o.error);
        return state->status();
    });
}

} // namespace triage
