#pragma once

#include <QString>

#include <optional>

namespace triage {

// Compensation keys and statuses (domain: pure, no SQL or network).

/// Longest compensation key (the idempotency key columns are VARCHAR(64)).
constexpr int kMaxCompensationKeyLength = 64;

/// Fewest hex digits of the SHA-256 a shortened key keeps after the whole ticket id.
constexpr int kMinCompensationKeyHashDigits = 8;

/// The deterministic compensation key (DESIGN.md §1): `comp:<action>:<ticket_id>:<source key>`.
/// A key shorter than 64 characters is used as is. A longer one (or one of exactly 64) is
/// shortened to exactly 64 characters with the SHA-256 (hex) of the full text, so shortened
/// and unshortened keys never meet, the same target always gets the same key and distinct
/// targets get distinct keys; the limit is real (triage_compensation.comp_key and the
/// agents' idempotency key columns are VARCHAR(64)). The ticket id is never cut (business ids
/// are opaque values end to end, compensation keys included; DESIGN.md §10 "Business ids"):
/// - when `comp:<action>:<ticket_id>:` fits in 47 characters: its first 47 characters, ':'
///   and the first 16 hex digits (the layout of earlier releases, so existing compensations
///   keep their keys);
/// - else when it leaves room for kMinCompensationKeyHashDigits: `comp:<action>:<ticket_id>:`
///   then hex digits up to 64 (the source key is then only in the hash: a ticket carries one
///   key, so action and id already tell targets apart; e.g. a UUID id with cancel_ticket);
/// - else `comp:sha256:` and the first 52 hex digits (the id is then only in the hash).
/// `ticketId` is the ticket's id exactly as stored (BusinessId::text()), never a re-spelled number.
QString compensationKey(const QString &action, const QString &ticketId, const QString &sourceKey);

/// Compensation statuses (DESIGN.md §4 spelling).
enum class CompensationStatus { Intent, Succeeded, Failed, Unknown };
/// "INTENT", "SUCCEEDED", "FAILED", "UNKNOWN": the one mapping to the stored text.
QString compensationStatusName(CompensationStatus s);
/// Parses a status name (case-insensitive); nullopt when unknown.
std::optional<CompensationStatus> compensationStatusFromName(const QString &name);
/// True for SUCCEEDED and FAILED: nothing is sent for such a compensation again.
inline bool isFinal(CompensationStatus s)
{
    return s == CompensationStatus::Succeeded || s == CompensationStatus::Failed;
}

} // namespace triage
