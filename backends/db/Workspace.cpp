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
    }
}

Workspace::~Workspace() = default;

DbWorker &Workspace::worker(DbRole role)
{
    return *m_workers[int(role)];
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
