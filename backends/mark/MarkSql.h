#pragma once

#include "Mark.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <QVector>

namespace triage::mark_sql {

/// The ticket store's part of the mark evidence for many keys (DESIGN.md §6 inputs).
struct TicketEvidence {
    QHash<QString, QVector<BusinessId>> ids;    ///< key → ids of the tickets carrying it (as stored), in the database's id order
    QHash<QString, QVector<TicketRow>> rows;    ///< for the row keys only: id, status, created_at (no payload)
    QHash<QString, QVector<AmountSeen>> amounts; ///< for the row keys only: their tickets' payload amounts ("ticket 42")
};

/// The intent log's part of the mark evidence for many keys (DESIGN.md §6 inputs).
struct AttemptEvidence {
    QHash<QString, QVector<qint64>> succeeded, escalated; ///< key → attempt ids with that status
    QHash<QString, UtcMicros> latest;                     ///< key → latest created_at / updated_at of its attempts
    QSet<QString> unreadable;                             ///< keys with an attempt time that cannot be parsed
    QHash<QString, QVector<AmountSeen>> amounts;          ///< amount keys → the amounts of their attempts' requests
};

/// Reads, on the ticket database, the ticket ids of `keys` and, for `rowKeys` (the keys
/// of SUCCESS marks, for the canonical-ticket rule), their ticket rows (status as
/// TicketSql::statusName(): "CANCELLED" for a mapped cancelled spelling, else as stored) and
/// the amounts of their payloads (four_eyes_amount_over);
/// one statement per chunk of at most 500 keys, every key bound, on the table and columns of
/// `config`'s [ticket.map] (DESIGN.md §10). Throws DbException.
TicketEvidence readTicketEvidence(DbSession &session, const WorkspaceConfig &config, const QStringList &keys,
                                  const QStringList &rowKeys);

/// Reads, on the intent database, the SUCCEEDED / ESCALATED attempts (the [intent.map]
/// spellings of those statuses) and the latest attempt time of `keys` (created_at /
/// updated_at in the mapped time encoding; chunked like readTicketEvidence()) and, for
/// `amountKeys` (for four_eyes_amount_over: the marks' keys), the amounts of their
/// attempts' requests ("attempt 7", in id order). Throws DbException.
AttemptEvidence readAttemptEvidence(DbSession &session, const WorkspaceConfig &config, const QStringList &keys,
                                    const QStringList &amountKeys = {});

/// Applies a batch of bulk marks (markRecords(); DESIGN.md §9 "Bulk marks") on the
/// idempotency database, with the results of apply() record by record — the same decisions,
/// messages, outcomes and audit rows — in a few statements per kInListChunk records: the
/// request ids' prior rows, the records and their latest upstream answers are read in bulk;
/// each record is decided on its own facts (planMark()); refusals are audited in one insert;
/// the allowed ones, per target status in key order, lock their rows (FOR UPDATE), compare
/// each row with its own expected state, update those that still match in one UPDATE and
/// audit them in one insert, one transaction per chunk; the rest are conflicts, audited with
/// the state now and who changed it. A COMMIT whose reply is lost is verified by request id,
/// never re-sent. Dry runs, approvals, four-eyes proposals and a key that repeats in the batch
/// go through apply() one by one after the batch. `evidence` is keyed by idempotency key.
/// Results in request order. Throws DbException for a failure that leaves a chunk unapplied
/// (what committed before it is found by request id when the batch is retried).
QVector<MarkResult> applyBatch(DbSession &session, const WorkspaceConfig &config, const QVector<MarkRequest> &requests,
                               const QHash<QString, MarkEvidence> &evidence);

// Four-eyes inside apply() (MarkProposeSql.cpp; DESIGN.md §9 "Four-eyes").

/// Why a mark is not proposed again: "proposal 12 (mark_success on this record state) was
/// rejected by bob at …: <reason>; not proposed again until the record changes".
QString rejectedAgainText(const ProposalRow &rejected);
/// `res` as the conflict of a mark whose key and action already have open proposal `open`.
MarkResult openProposalConflict(MarkResult res, const ProposalRow &open);
/// Voids the proposal `req` approves (if any) after its mark was refused by a rule or lost
/// its compare-and-set; appends " — proposal N is void" to res.message when it was open.
void voidApproved(DbSession &session, const MarkRequest &req, MarkResult &res);
/// Reports and audits (proposal.approve, refused) an approval the approving statement
/// refused with `refusal`; an edited proposal is voided, the others stay as they are.
MarkResult approvalRefused(DbSession &session, const MarkRequest &req, MarkResult res, AuditEntry a, const QString &refusal);
/// Makes the allowed, non-dry-run mark `req` of `current` a proposal (triage_proposal row and
/// audit row `a` with outcome "recorded", one transaction; the message names `rule`), or a
/// conflict (audited) when the key already has an open one for the action. Throws DbException.
MarkResult propose(DbSession &session, const MarkRequest &req, MarkResult res, const ExpectedState &expected,
                   const RecordDetail &current, AuditEntry a, const FourEyesRule &rule);

} // namespace triage::mark_sql
