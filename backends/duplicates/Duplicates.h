#pragma once

#include "CanonicalTicket.h"
#include "KeyDetail.h"
#include "RecordStatus.h"
#include "TimeText.h"

#include <QFuture>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// Filters of the Duplicate keys queue (DESIGN.md §2).
struct DuplicateFilter {
    QString keySubstring;            ///< idem_key contains this (case-sensitive); empty: all
    QString tenant;                  ///< groups with a ticket of this tenant_id; empty: all
    std::optional<UtcMicros> createdFrom, createdTo; ///< ticket created_at window [from, to)
    bool includeResolved = false;    ///< also groups with at most one ticket not CANCELLED
};

/// One duplicate-key group: tickets sharing one idem_key (GROUP BY idem_key HAVING COUNT(*) > 1).
struct DuplicateGroup {
    QString idemKey;
    int size = 0;               ///< tickets with the key
    int live = 0;               ///< of which not CANCELLED
    QStringList tenants;        ///< distinct tenant_id values, sorted; a null QString for NULL (and without a tenant column)
    /// The tenants for people: joined by `separator`, NULL spelled "NULL".
    QString tenantsText(const QString &separator) const;
    QString firstCreatedAt, lastCreatedAt; ///< canonical ISO UTC
    std::optional<StoredRecordStatus> record; ///< the key's record status; nullopt: the key has no record
    bool resolved = false;      ///< live <= 1
    /// The Record column's text (console and `triagectl duplicates`): the status spelling
    /// (PROCESSING, SUCCESS, FAILED, UNKNOWN_CODE_n, NULL), or "NONE" when the key has no record.
    QString recordText() const;
};

/// Keyset position in the groups queue, newest first: the next groups are those with
/// (MAX(created_at), idem_key) < (lastCreatedAt, idemKey). After a page that stopped on its
/// time budget at a window boundary, `idemKey` is "" (every group whose newest ticket was
/// created before lastCreatedAt).
struct DuplicateCursor {
    QString lastCreatedAt;      ///< canonical ISO UTC
    QString idemKey;
    qint64 windowMs = 0;        ///< creation-time window width that last worked (ms; a hint, 0 = default)
};

/// One page of groups, newest first; `next` is unset at the end. A page stopped by its time
/// budget may hold fewer than `limit` groups (even none) without being the end.
struct DuplicatePage {
    QVector<DuplicateGroup> groups;
    std::optional<DuplicateCursor> next;
    QString newestAt, oldestAt; ///< creation times of the newest / oldest ticket with a key (filter applied); "" if none
    QString scannedTo;          ///< every group whose newest ticket was created at or after this has been returned
                                ///< (this page and the ones before it); "" when there is no ticket
    int windows = 0;            ///< window statements this page ran
    /// Share of the creation-time range [oldestAt, newestAt] scanned so far, 0..1 (1 at the end).
    double progress() const;
};

/// An inconsistency between the record and the tickets of one key.
struct DuplicateInconsistency {
    enum class Kind {
        TicketWithUnsettledRecord, ///< a ticket exists, the record is PROCESSING or FAILED
        SnapshotTicketMissing,     ///< SUCCESS snapshot names a ticket_id that does not exist or carries another key
        SnapshotPayloadDiffers,    ///< SUCCESS snapshot differs from the named ticket's payload
        SnapshotTicketCancelled,   ///< SUCCESS snapshot names a CANCELLED ticket (callers hold an undone ticket)
    };
    Kind kind = Kind::TicketWithUnsettledRecord;
    QString idemKey;
    qint64 recordId = 0;
    RecordStatusCode recordStatus = Processing; ///< only records PROCESSING, SUCCESS or FAILED are checked
    BusinessId ticketId;        ///< the ticket concerned (may not exist), as stored or as the snapshot names it
    QString detail;             ///< one line, with the remedy where there is one
};
/// "ticket_with_unsettled_record", "snapshot_ticket_missing", "snapshot_payload_differs",
/// "snapshot_ticket_cancelled".
QString inconsistencyKindName(DuplicateInconsistency::Kind k);

/// One page of inconsistencies, keyset-paged by idempotency_record.id; `nextRecordId`
/// unset at the end (a page may be empty without being the end).
struct InconsistencyPage {
    QVector<DuplicateInconsistency> rows;
    std::optional<qint64> nextRecordId;
};

/// An intent-log step (task_id, step_id) whose attempts used more than one idem_key.
struct RegeneratedKeyStep {
    QString taskId, stepId;
    QStringList keys;           ///< distinct keys, in order of first use
    int attempts = 0;
};
/// Keyset position: after (task_id, step_id).
struct RegeneratedCursor {
    QString taskId, stepId;
};
/// One page of regenerated-key steps.
struct RegeneratedPage {
    QVector<RegeneratedKeyStep> steps;
    std::optional<RegeneratedCursor> next;
};

/// One payload field across a group's tickets.
struct PayloadFieldDiff {
    QString field;
    QStringList values;         ///< one per ticket (compact JSON; "(absent)" when missing)
    bool differs = false;
};

/// A group side by side: tickets, record, field-level payload differences and the proposed
/// canonical ticket with the reason.
struct DuplicateGroupDetail {
    QString idemKey;
    QVector<TicketRow> tickets;            ///< oldest first
    std::optional<RecordDetail> record;
    QVector<PayloadFieldDiff> payloadDiff; ///< every top-level field of the payload objects
    std::optional<BusinessId> canonicalTicketId; ///< nullopt: no canonical ticket (every ticket CANCELLED)
    QString canonicalReason;
    /// Business payload fields that differ between the tickets (keyReuseFields()): non-empty
    /// means key reuse, not retries — no compensation without an override.
    QStringList keyReuseFields;
    /// The SUCCESS snapshot names a CANCELLED or missing ticket (CanonicalTicket::inconsistency); "" if not.
    QString inconsistency;
};

/// Field-level differences of the tickets' payload objects (non-object payloads count as
/// one field "(payload)").
QVector<PayloadFieldDiff> payloadDifferences(const QVector<TicketRow> &tickets);
/// The canonical ticket by canonicalTicket() (DESIGN.md §6: the one the record's SUCCESS
/// snapshot names, else the earliest live one); returns its id (nullopt: none) and sets `*reason`.
std::optional<BusinessId> proposeCanonical(const QVector<TicketRow> &tickets, const std::optional<RecordDetail> &record, QString *reason);

/// Aimed duration of one window statement (ms; see fetchDuplicateGroups()). Windows this
/// small are joined by index probes; much larger ones make PostgreSQL hash-join the whole
/// table, which costs as much per ticket (measured at 10 M tickets: ~10 µs) and shows nothing
/// for seconds.
constexpr int kWindowStatementMs = 200;
/// Time budget of an interactive page (ms): the console's first page of groups shows within
/// about this plus one statement (target: ≤ 1 s at 10 M tickets).
constexpr int kInteractivePageBudgetMs = 500;

/// The duplicate-key groups after `cursor`, newest first (by the creation time of each
/// group's newest ticket, then idem_key descending; DESIGN.md §2 Duplicate keys queue).
/// Scans tickets by creation-time window from the newest down (duplicates from retries are
/// created seconds to minutes apart): each window's keys come from ticket(created_at) and
/// their groups from ticket(idem_key), so a page costs what its windows hold, never a
/// whole-table GROUP BY. The window width adapts so that a statement takes about
/// `statementMs` (doubles below half of it, halves above twice it; 0 = kWindowStatementMs;
/// the cursor carries the width) and stretches without tickets are skipped. Stops at `limit` groups, at the oldest ticket (the end), or —
/// when `budgetMs` > 0 — once the page has spent that many milliseconds (then `next` resumes
/// at the window boundary). Record statuses come from one IN query per page on the
/// idempotency store. Errors: DbError of the ticket or idempotency store; a malformed cursor
/// time is a Config error.
QFuture<Outcome<DuplicatePage>> fetchDuplicateGroups(Workspace &workspace, const DuplicateFilter &filter,
                                                     const std::optional<DuplicateCursor> &cursor, int limit, int budgetMs = 0,
                                                     int statementMs = 0);
/// Every duplicate-key group after `after` (all of them without it), newest first like
/// fetchDuplicateGroups(), in one aggregate statement over the ticket table (the filter in
/// its WHERE and HAVING): the full scan on demand ("Scan all", `triagectl duplicates
/// --limit 0`). The database chooses its own aggregate plan, so the scan costs about what
/// the whole-table GROUP BY costs (1.08x at 1 M tickets, 1.04x at 10 M; tests/bench), not window after
/// window. It shows nothing until the statement ends: callers tag it with a CancelToken
/// (CancelScope) so Stop can cancel it (cancelWork()). Tenants and record statuses: one IN
/// query per 1,000 groups. The page's `next` is unset, `scannedTo` the oldest ticket,
/// `windows` 0. Errors: as fetchDuplicateGroups(); a cancelled statement is
/// DbError::Kind::Cancelled.
QFuture<Outcome<DuplicatePage>> fetchAllDuplicateGroups(Workspace &workspace, const DuplicateFilter &filter,
                                                        const std::optional<DuplicateCursor> &after = std::nullopt);
/// Inconsistencies among records with id > `afterRecordId` (`limit` records examined) whose
/// idem_key contains `keySubstring` (case-sensitive; empty: all): a ticket with an unsettled
/// record, and a SUCCESS snapshot naming a ticket that is missing, CANCELLED or whose
/// payload differs (DESIGN.md §6 "Canonical ticket").
QFuture<Outcome<InconsistencyPage>> fetchInconsistencies(Workspace &workspace, qint64 afterRecordId, int limit,
                                                         const QString &keySubstring = {});
/// Regenerated-key steps after `cursor` (intent-log database); with `keySubstring`, only
/// steps one of whose keys contains it (case-sensitive).
QFuture<Outcome<RegeneratedPage>> fetchRegeneratedKeys(Workspace &workspace, const std::optional<RegeneratedCursor> &cursor,
                                                       int limit, const QString &keySubstring = {});
/// One group side by side.
QFuture<Outcome<DuplicateGroupDetail>> loadDuplicateGroup(Workspace &workspace, const QString &idemKey);

} // namespace triage
