#include "Workspace.h"

#include "Log.h"
#include "WhenReady.h"

namespace triage {

Workspace::Workspace(WorkspaceConfig config, QObject *parent) : QObject(parent), m_config(std::move(config))
{
    qRegisterMetaType<triage::DbRole>("triage::DbRole");
    m_mergePool.setMaxThreadCount(16);
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        auto &w = m_workers[int(role)];
        w = std::make_unique<DbWorker>(m_config.profile(role));
        connect(w.get(), &DbWorker::connectionEvent, this, &Workspace::connectionEvent, Qt::QueuedConnection);
        m_bulkWorkers[int(role)] = std::make_unique<WorkerPool>(m_config.profile(role), kBulkWorkers);
        // The replica's worker reports through the route's status, not connectionEvent(): a
        // replica that is down is a reason to read from the primary, not a store that is down.
        std::unique_ptr<DbWorker> replica;
        if (m_config.replicas.contains(int(role)))
            replica = std::make_unique<DbWorker>(m_config.replicas.value(int(role)));
        m_routes[int(role)] = std::make_unique<ReplicaRoute>(
            *w, std::move(replica), qint64(m_config.replicaMaxLagS) * 1000, &m_mergePool,
            [this, role](const ReplicaStatus &st) { emit replicaEvent(role, st.usable(), st.text()); });
    }
}

Workspace::Unlock Workspace::unlockWrites(const QString &typedName)
{
    if (!m_config.writesLocked)
        return Unlock::NotLocked;
    const auto log = logger("db");
    if (!writesUnlockAccepted(typedName, m_config.profileName)) {
        log->warn("writes stay off on the {} workspace \"{}\": the name typed by {} is not the profile's name",
                  environmentName(m_config.environment).toStdString(), m_config.profileName.toStdString(),
                  m_config.operatorName.toStdString());
        return Unlock::WrongName;
    }
    m_config.writesLocked = false;
    m_config.readOnly = false;
    log->warn("writes switched on for the {} workspace \"{}\" by {}", environmentName(m_config.environment).toStdString(),
              m_config.profileName.toStdString(), m_config.operatorName.toStdString());
    return Unlock::Unlocked;
}

Workspace::~Workspace()
{
    // Nothing may outlive what it uses (DESIGN.md §3). Members are destroyed in
    // reverse order: the merge pool first, then the workers, whose destructors still run the
    // jobs queued on them. A continuation on the destroyed pool (continueWith(mergePool(), …):
    // queue pages, key details, marks) would be a use after free (it corrupted the heap once in
    // tst_views_display). So drain first: each worker's queued jobs, then the pool (its
    // continuations wait for those jobs and may queue further jobs), until a round queues no
    // new job.
    for (;;) {
        const quint64 before = submittedJobs();
        for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
            m_workers[int(role)]->waitForQueuedJobs();
            m_bulkWorkers[int(role)]->waitForQueuedJobs();
            m_routes[int(role)]->waitForQueuedJobs();
        }
        m_mergePool.waitForDone();
        if (submittedJobs() == before)
            break;
    }
}

quint64 Workspace::submittedJobs()
{
    quint64 n = 0;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        n += m_workers[int(role)]->submittedJobs() + m_bulkWorkers[int(role)]->submittedJobs()
            + m_routes[int(role)]->submittedJobs();
    return n;
}

DbWorker &Workspace::worker(DbRole role)
{
    return *m_workers[int(role)];
}

ReplicaRoute &Workspace::reader(DbRole role)
{
    return *m_routes[int(role)];
}

QList<DbWorker *> Workspace::readWorkers(DbRole role)
{
    QList<DbWorker *> out{&worker(role)};
    if (DbWorker *r = reader(role).replicaWorker())
        out << r;
    return out;
}

void Workspace::noteOwnWrite(const QStringList &keys)
{
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        m_routes[int(role)]->noteOwnWrite(keys);
}

void Workspace::setKeyReadsOnPrimary(bool on)
{
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        m_routes[int(role)]->setKeyReadsOnPrimary(on);
}

WorkerPool &Workspace::bulkWorkers(DbRole role)
{
    return *m_bulkWorkers[int(role)];
}

void Workspace::setOpenCheck(const OpenCheck::Problems &problems)
{
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        auto check = std::make_shared<OpenCheck>(role, problems);
        worker(role).setOpenCheck(check);
        bulkWorkers(role).setOpenCheck(check);
        if (DbWorker *r = reader(role).replicaWorker())
            r->setOpenCheck(check);
    }
}

void Workspace::probeConnections()
{
    // The worker reports opens and failures as they happen; a connection that was already
    // open (or already reported down) says nothing, so report the probe's outcome too:
    // a window attached later still learns every store's state.
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        whenReady(worker(role).run<Done>([](DbSession &) { return Done{}; }), this, [this, role](const Outcome<Done> &o) {
            if (o.ok())
                emit connectionEvent(role, true, QStringLiteral("connected to the %1").arg(roleTitle(role)));
            else
                emit connectionEvent(role, false, o.error->message);
        });
}

} // namespace triage
