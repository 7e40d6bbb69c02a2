#pragma once

#include "CompensationConfig.h"
#include "RecordStatus.h"
#include "DbSession.h"
#include "WorkspaceConfig.h"

#include <QRandomGenerator>
#include <QSet>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// What `seed-demo` generates. Times are offsets before the target database's own now()
/// in microseconds (negative = in the future), so each store is seeded on its own clock.
struct SeedRecord {
    QString idemKey, bizType, tenant;
    int status = 0; ///< 0..2 a console status (RecordStatus), any other value an unknown code
    /// The stored value to write instead of the code (an unknown code on a text status column,
    /// see seed_sql::unknownStatusFit()); nullopt: the code's spelling, or the code itself.
    std::optional<QString> storedStatus;
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
/// A console-owned audit row (triage_audit, beside the records): an operator's action.
struct SeedAudit {
    QString requestId, idemKey, operatorName, host, action, fromState, toState, reason, evidence, outcome, detail;
    qint64 atAgo = 0;
    std::optional<qint64> ticketId; ///< the ticket the action is about: left out when that ticket was refused
    /// A mark's from-state updated_at (ago, as the records' times): insertAudits() adds it to
    /// fromState as "updated_at" (with "version": null), as the mark service writes it, so the
    /// demo's as-of view can show seen_by_mark (DESIGN.md §7 "As of T").
    std::optional<qint64> fromUpdatedAgo;
};
/// A console-owned compensation (triage_compensation beside the intent log) and its attempts.
struct SeedCompensation {
    struct Attempt {
        QString kind, classification, preview;
        int httpStatus = 0;
        qint64 atAgo = 0;
    };
    QString compKey, sourceKey, bizType, action, target, request, status, operatorName, reason, response;
    qint64 ticketId = 0; ///< the seeded ticket `target` names
    qint64 createdAgo = 0, updatedAgo = 0;
    QVector<Attempt> attempts;
};
struct SeedPlan {
    QVector<SeedRecord> records;
    QVector<SeedTicket> tickets;
    QVector<SeedIntent> intents;
    QVector<SeedAudit> audits;
    QVector<SeedCompensation> compensations;
};

/// The demo set's outage of the ticket service (DESIGN.md §7, "the demo's outage"): from
/// this long before each database's now() (µs) ...
constexpr qint64 kDemoOutageStartAgo = 55LL * 60 * 1000000;
/// ... to this long before it; the operators settle part of it in the 20 minutes after.
constexpr qint64 kDemoOutageEndAgo = 25LL * 60 * 1000000;

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
/// malformed snapshot and records about to expire (demo set), and the outage of the ticket
/// service (kDemoOutageStartAgo .. kDemoOutageEndAgo): a burst of calls that went UNKNOWN,
/// retries that created duplicate tickets (same key, and keys regenerated per retry), marks
/// by named operators afterwards (audit rows, one conflict), one compensated duplicate, and
/// part of it still open.
SeedPlan makeSeedPlan(const SeedOptions &options);

/// A random (version 4 shaped) UUID from `rng`, for deterministic keys and request ids.
QString seedUuid(QRandomGenerator &rng);

/// An operator's audit row at `atAgo` (request id from `rng`, host "<operator>-laptop").
SeedAudit seedOperatorAudit(QRandomGenerator &rng, const QString &key, const QString &operatorName, const char16_t *action,
                            qint64 atAgo, const QString &outcome, const QString &reason);

/// An operator's mark of the PROCESSING `record` as the mark service audits it (states as it
/// writes them, DESIGN.md §2; `applied`), and the record changed to `to` at `atAgo`.
SeedAudit seedMark(QRandomGenerator &rng, SeedRecord &record, const QString &operatorName, RecordStatusCode to, qint64 atAgo,
                   const QString &reason, const QString &evidence);

/// Keeps only the records of biz_type `bizType` in `plan`, with the tickets and intent-log
/// rows of their keys (a mapped record table without a biz_type column holds one biz_type:
/// `biz_type_value`, DESIGN.md §10). Returns the number of records left out.
qint64 keepBizType(SeedPlan &plan, const QString &bizType);

/// Removes the records whose key is in `keys`, and the tickets, intent-log rows, audit rows
/// and compensations of those keys.
void dropKeys(SeedPlan &plan, const QSet<QString> &keys);

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
/// `*now` (when given) gets the server time the records' ages were taken from.
qint64 insertRecords(DbSession &session, const WorkspaceConfig &config, const QVector<SeedRecord> &rows,
                     UtcMicros *now = nullptr);
/// Tickets: a key's extra tickets are inserted one by one, and those a UNIQUE(idem_key)
/// backstop refuses are left out (their ids added to `*refused` when given).
qint64 insertTickets(DbSession &session, const WorkspaceConfig &config, const QVector<SeedTicket> &rows,
                     QSet<qint64> *refused = nullptr);
qint64 insertIntents(DbSession &session, const WorkspaceConfig &config, const QVector<SeedIntent> &rows);
/// Inserts into the console's triage_audit (idempotency database) at the given times, leaving
/// out the rows about a ticket in `refusedTickets`; ages are taken from `now` (the records'
/// server time, so a mark's audit row and its record's updated_at agree), else the server's
/// now(). Returns the row count. Throws DbException.
qint64 insertAudits(DbSession &session, const QVector<SeedAudit> &rows, const QSet<qint64> &refusedTickets,
                    std::optional<UtcMicros> now = std::nullopt);
/// Inserts into triage_compensation and triage_compensation_attempt (intent-log database),
/// leaving out compensations of a ticket in `refusedTickets`. Returns the compensations
/// inserted. Throws DbException.
qint64 insertCompensations(DbSession &session, const QVector<SeedCompensation> &rows, const QSet<qint64> &refusedTickets);
/// The next free ticket id: max(id) + 1 (or 1) for an integer id column; for any other
/// column count + 1 with text ids (seedTicketIdText()).
SeedTicketIds nextTicketIds(DbSession &session, const WorkspaceConfig &config);

/// How the demo's record with an unknown status code is stored in the mapped status column
/// (DESIGN.md §10: it must read back as UNKNOWN_CODE_<value>, never as a known status).
struct UnknownStatusFit {
    /// The value written: the code itself (or the next integer no status is mapped to) on an
    /// integer column; "UNMAPPED" on a free-text column; an enum label no status is mapped
    /// to on an enum column. nullopt: the row is left out (an enum whose every label is a
    /// mapped spelling cannot hold an unknown value).
    std::optional<QString> stored;
    QString why; ///< one sentence for seed-demo's output ("" for the default integer code)
};
/// Decides UnknownStatusFit for `code` on the record table of `config` (reads the live
/// catalog for a text mapping: an enum's labels). Throws DbException.
UnknownStatusFit unknownStatusFit(DbSession &session, const WorkspaceConfig &config, int code);
} // namespace seed_sql

} // namespace triage
