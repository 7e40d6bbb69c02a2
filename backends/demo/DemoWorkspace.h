#pragma once

#include "DemoData.h"
#include "UpstreamConfig.h"
#include "Workspace.h"

#include <QFuture>
#include <QMap>
#include <QString>
#include <QUrl>

namespace triage {

/// Counts of what seed-demo inserted.
struct SeedReport {
    qint64 records = 0, tickets = 0, intents = 0;
    qint64 audits = 0, compensations = 0; ///< console-owned rows: the demo outage's operator actions
    UtcMicros recordsNow = 0; ///< the idempotency store's now() the records' (and audit rows') ages were taken from
    /// A record table without a biz_type column holds one biz_type (`biz_type_value`,
    /// DESIGN.md §10): that value, and the generated records of other biz_types left out
    /// (with their tickets and intent-log rows). "" and 0 with a biz_type column.
    QString bizTypeValue;
    qint64 otherBizTypeRecords = 0;
    /// The generated records with an unknown status code (1 in the demo set, 0 with --rows or
    /// when its biz_type was left out), how they were stored (seed_sql::UnknownStatusFit:
    /// nullopt = left out, with their tickets and intent-log rows) and why ("" for the plain code).
    /// Duplicate tickets of the demo's duplicate cases that the ticket table's UNIQUE(idem_key)
    /// backstop refused (0 without it), with the audit rows and compensations about them.
    qint64 backstopRefusedTickets = 0;
    qint64 unknownStatusRows = 0;
    std::optional<QString> unknownStatusStored;
    QString unknownStatusNote;
};

/// Generates `options` data (see makeSeedPlan()) and inserts it into the three stores of
/// `workspace`: records first (when they fail, typically because this seed's keys are
/// there already, nothing is left behind in the other stores), then tickets and intent
/// rows — one after the other when the two stores share one database (one SQLite file
/// takes one writer at a time), else at the same time. Returns what was inserted, or the
/// first failure.
QFuture<Outcome<SeedReport>> seedWorkspace(Workspace &workspace, const SeedOptions &options);

/// The embedded demo workspace (DESIGN.md §5 `--demo`): one SQLite file under the
/// user's data directory ($XDG_DATA_HOME/triage-console/demo/demo.sqlite), with every
/// table, no ticket backstop, seeded with the demo set, 14 days of reconciliation history
/// (DemoHistory.h) and today's reconcile pass against its upstream simulator (DESIGN.md §8
/// "The demo's reconcile pass and history"). Re-created when it is more than a day old or on
/// `reset`. Safe against two processes creating it at once (lock file).
class DemoWorkspace {
public:
    /// The demo database path.
    static QString path();
    /// The configuration for the demo (SQLite × 3, demo biz types).
    static WorkspaceConfig config();
    /// Creates (or re-creates) the demo if needed, synchronously on the calling thread's
    /// behalf but with all SQL on a temporary Workspace's workers: the schema, the demo set
    /// (while the upstream simulator starts), the history, then one reconcile pass
    /// (runReconcile(), default options) against the simulator, which is stopped again. When
    /// the simulator cannot start, the pass is left out with a logged warning. Logs the time
    /// each step took. Returns an error message, or an empty string on success. Not for the
    /// GUI thread or a pool thread: call it before the window opens (it blocks until done).
    static QString ensure(bool reset);
    /// The window the console's Incident tab opens on for the demo (DESIGN.md §7 "the demo's
    /// outage"): from 5 minutes before the outage (kDemoOutageStartAgo before the demo was
    /// seeded) to 5 minutes before the seeding (the operators' actions are in, the in-flight
    /// calls of the last minutes are not), in whole UTC minutes [from, to), µs since the
    /// epoch; read from the demo's creation stamp (this machine's clock, the demo's database
    /// clock too). nullopt when there is no stamp (no demo yet).
    static std::optional<std::pair<UtcMicros, UtcMicros>> incidentWindow();
};

/// The upstream settings for the demo workspace's biz types, pointing at the upstream
/// simulator at `base` (GET /tickets?idem_key=…, an empty list means NOT_FOUND).
QMap<QString, UpstreamConfig> demoUpstreams(const QUrl &base);

} // namespace triage
