#pragma once

#include "KeyDetailTypes.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// The canonical ticket of one key (DESIGN.md §6 "Canonical ticket"): the ticket the
/// record's SUCCESS snapshot names (its `ticket_id`), else the earliest live (not
/// CANCELLED) ticket by (created_at, id). It is never a compensation target, and a SUCCESS
/// snapshot may come only from it.
struct CanonicalTicket {
    /// How the canonical ticket was chosen.
    enum class Basis {
        SnapshotNames, ///< the SUCCESS snapshot names it (callers were given it)
        EarliestLive,  ///< no SUCCESS snapshot names one of the tickets: the earliest live one
        None,          ///< no canonical ticket: no ticket, or every ticket CANCELLED and none named
    };
    std::optional<BusinessId> id;      ///< nullopt with Basis::None
    Basis basis = Basis::None;
    QString reason;                    ///< one line for operators ("the SUCCESS snapshot names ticket #151 …")
    /// The ticket id the SUCCESS snapshot names (its `ticket_id`, snapshotNamedTicketId()), if any.
    std::optional<BusinessId> snapshotTicketId;
    /// The SUCCESS snapshot names a ticket that is CANCELLED, or that is not among the
    /// key's tickets: callers hold a ticket that is gone. Empty when consistent; else one
    /// line with the remedy (SUCCESS is final: escalate, never re-mark).
    QString inconsistency;
    bool snapshotTicketCancelled = false; ///< the named ticket is among the tickets and CANCELLED
    bool snapshotTicketMissing = false;   ///< the named ticket is not among the key's tickets
};

/// The `ticket_id` a result snapshot names, as an opaque id (BusinessId): a JSON object's
/// `ticket_id` holding an integer literal (its exact text as written, read from the raw
/// JSON, never through a double: docs/QT-PITFALLS.md) or a non-empty string (its exact
/// value); nullopt for anything else (a fraction or exponent, no snapshot, not JSON, …).
/// A duplicated `ticket_id` member: the first one (rawjson::find()).
std::optional<BusinessId> snapshotNamedTicketId(const std::optional<QString> &snapshot);

/// Applies the canonical-ticket rule to `tickets` (any order) and the record's status and
/// snapshot (`recordStatus` as RecordDetail::statusText; only a "SUCCESS" record's snapshot
/// names the canonical ticket). A snapshot naming a CANCELLED ticket keeps it canonical
/// and flags the inconsistency; one naming a ticket that is not among `tickets` flags it and
/// falls back to the earliest live ticket. Pure; no I/O.
CanonicalTicket canonicalTicket(const QVector<TicketRow> &tickets, const QString &recordStatus,
                                const std::optional<QString> &resultSnapshot);
/// The same for a key's detail (its tickets and record; no record: no snapshot).
CanonicalTicket canonicalTicket(const KeyDetail &detail);

/// Top-level payload fields that identify or track one ticket rather than the operation
/// ("id", "ticket_id", "status", "created_at", "updated_at"): they differ between retries.
const QStringList &nonBusinessPayloadFields();

/// The business fields (top-level payload fields except nonBusinessPayloadFields()) whose
/// values differ between `tickets`, sorted; "(payload)" when a payload that is not a JSON
/// object differs from another. Non-empty means key reuse: one key was used for different
/// operations, not retried (DESIGN.md §6), so no compensation without an override. Pure.
QStringList keyReuseFields(const QVector<TicketRow> &tickets);

/// The ticket whose payload a SUCCESS snapshot is taken from, or why none may be
/// (DESIGN.md §6: a SUCCESS snapshot comes only from the canonical ticket).
struct SnapshotTicketChoice {
    std::optional<TicketRow> ticket; ///< set when allowed; its payload is not NULL
    QString refusal;                 ///< one line when refused
};

/// Chooses the snapshot ticket for a mark SUCCESS of `detail`'s key. `requested` set (the
/// operator named a ticket, e.g. `--snapshot-from-ticket`): it must carry the key, be the
/// canonical ticket and have a payload. `requested` unset (a bulk SUCCESS): the canonical
/// ticket, provided it is the key's only live ticket (a group with extras still live is
/// settled one key at a time) and has a payload. Pure.
SnapshotTicketChoice snapshotTicketFor(const KeyDetail &detail, const std::optional<BusinessId> &requested);

/// Whether `snapshot` (the text a mark SUCCESS would write, from `source`: "ticket:<id>" with
/// the id's exact text,
/// "typed", "file:…", "upstream") agrees with the canonical-ticket rule for `tickets`: a
/// ticket source must be the canonical ticket, and a snapshot naming one of the key's
/// tickets (`ticket_id`) must name the canonical one. Returns the refusal, or "" when it
/// agrees (always "" when the key has no ticket). The record is not SUCCESS when a mark
/// SUCCESS is allowed, so the canonical ticket is the earliest live one. Pure.
QString snapshotCanonicalRefusal(const QVector<TicketRow> &tickets, const std::optional<QString> &snapshot,
                                 const QString &source);

} // namespace triage
