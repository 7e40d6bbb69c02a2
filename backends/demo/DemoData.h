#pragma once

#include "CompensationConfig.h"
#include "DbSession.h"
#include "WorkspaceConfig.h"

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// What `seed-demo` generates. Times are offsets before the target database's own now()
/// in microseconds (negative = in the future), so each store is seeded on its own clock.
struct SeedRecord {
    QString idemKey, bizType, tenant;
    int status = 0;
    std::optional<QString> snapshot;
    qint64 createdAgo = 0, updatedAgo = 0, expireAgo = 0;
};
struct SeedTicket {
    qint64 id = 0;
    QString idemKey, tenant, title, status, payload;
    qint64 createdAgo = 0, updatedAgo = 0;
};
struct SeedIntent {
    QString taskId, stepId, action, idemKey, status;
    std::optional<QString> request, response, error, stateBefore, stateAfter, actor;
    qint64 createdAgo = 0, updatedAgo = 0;
};
struct SeedPlan {
    QVector<SeedRecord> records;
    QVector<SeedTicket> tickets;
    QVector<SeedIntent> intents;
};

/// Options for the generator.
struct SeedOptions {
    /// 0: the demo workspace's hand-shaped set (every case of DESIGN.md, ~250 records).
    /// N > 0: N records at production-like proportions (2 % stale PROCESSING, 1 % in
    /// flight, 0.1 % duplicate tickets) for scale tests.
    int records = 0;
    quint32 seed = 20261129; ///< same seed, same data (keys, payloads, ages)
    qint64 firstTicketId = 1; ///< ticket ids are explicit (snapshots name them)
    /// Ticket ids as UUID-shaped text (seedTicketIdText()) instead of numbers: for a mapped
    /// business table whose id column is not an integer (DESIGN.md §10).
    bool textTicketIds = false;
};

/// Generates realistic data (pure: no I/O). Covers fresh and stale PROCESSING, SUCCESS,
/// FAILED, duplicate tickets for one key, tickets whose record is still PROCESSING,
/// intent steps in every status with several attempts for one step, regenerated keys,
/// before/after snapshots, NULL columns, non-ASCII text, an unknown status code, a
/// malformed snapshot and records about to expire (demo set).
SeedPlan makeSeedPlan(const SeedOptions &options);

/// The biz_type settings the demo data is made for (processing timeouts, tenant patterns).
QMap<QString, BizTypeConfig> demoBizTypes();

/// The demo's compensations: `cancel_ticket` for every demo biz_type against the upstream
/// simulator at `base` (POST /tickets/{ticket_id}/cancel, confirmed by GET /tickets/{ticket_id}).
CompensationConfigs demoCompensations(const QString &base);

/// The text id of seeded ticket `n` where the business table's ids are not integers:
/// "00000000-0000-4000-8000-000000000042" (a valid UUID, ordered like n).
QString seedTicketIdText(qint64 n);

/// Where seeded ticket ids start, and whether they are text (SeedOptions).
struct SeedTicketIds {
    qint64 first = 1;
    bool text = false;
};

/// Every statement writes the mapped tables (`config`'s [*.map], DESIGN.md §10): names,
/// the status spellings the console writes (an unknown record code is written as its own
/// number or text), the time encodings; optional columns the table lacks are left out.
namespace seed_sql {
/// Inserts in batched multi-row INSERTs, one transaction per 5,000 rows. Returns the row
/// count. Throws DbException.
qint64 insertRecords(DbSession &session, const WorkspaceConfig &config, const QVector<SeedRecord> &rows);
qint64 insertTickets(DbSession &session, const WorkspaceConfig &config, const QVector<SeedTicket> &rows);
qint64 insertIntents(DbSession &session, const WorkspaceConfig &config, const QVector<SeedIntent> &rows);
/// The next free ticket id: max(id) + 1 (or 1) for an integer id column; for any other
/// column count + 1 with text ids (seedTicketIdText()).
SeedTicketIds nextTicketIds(DbSession &session, const WorkspaceConfig &config);
} // namespace seed_sql

} // namespace triage
