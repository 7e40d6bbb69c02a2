#pragma once

#include <QString>

#include <optional>

namespace triage {

// Compensation keys and statuses (domain: pure, no SQL or network).

/// Longest compensation key (the idempotency key columns are VARCHAR(64)).
constexpr int kMaxCompensationKeyLength = 64;

/// The deterministic compensation key (DESIGN.md §1): `comp:<action>:<ticket_id>:<source key>`.
/// A key shorter than 64 characters is used as is; a longer one (or one of exactly 64) becomes
/// its first 47 characters, ':' and the first 16 hex digits of the SHA-256 of the full text,
/// exactly 64 characters — so shortened and unshortened keys never meet, the same target
/// always gets the same key and distinct targets get distinct keys. `ticketId` is the
/// ticket's id exactly as stored (BusinessId::text(): business ids are opaque values end to
/// end, compensation keys included; DESIGN.md §4 "Business ids"), never a re-spelled number.
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
