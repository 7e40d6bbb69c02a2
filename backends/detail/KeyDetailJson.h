#pragma once

#include "JsonRead.h"
#include "KeyDetailTypes.h"

#include <QJsonObject>

#include <optional>

namespace triage {

/// The JSON forms of a key's detail, one serializer for `triagectl show --format json` and the
/// incident bundle (DESIGN.md §5, §7). Times stay the canonical text read from the server
/// (DESIGN.md §4); snapshots, payloads and request/response texts are JSON strings exactly as
/// stored (text that was not valid UTF-8 in its escapeInvalidUtf8() form, the column named in
/// "escaped_columns"), never parsed and re-serialised. SQL NULL is JSON null.
namespace key_json {

/// Every field of a record (plus the columns the console does not know, under
/// "other_columns": each as its text, SQL NULL as null), with "status_stored", the status
/// exactly as stored (a JSON number where the column holds a number, else the stored text;
/// null for NULL): the value `mark --expect-status` takes (DESIGN.md §5, §10).
QJsonObject record(const RecordDetail &record);
/// One ticket row.
QJsonObject ticket(const TicketRow &ticket);
/// One intent-log attempt.
QJsonObject attempt(const IntentAttempt &attempt);
/// One timeline event.
QJsonObject timelineEvent(const TimelineEvent &event);
/// One audit row (triage_audit): from/to states and evidence are the stored JSON text.
QJsonObject auditEntry(const AuditEntry &entry);
/// One compensation (triage_compensation): target is a JSON number when it is a whole
/// number (today's ticket ids), else the text; request/response are the stored texts.
QJsonObject compensation(const CompensationRow &row);
/// One attempt of a compensation (http_status, response_preview, error null when absent).
QJsonObject compensationAttempt(const CompensationAttemptRow &attempt);
/// Everything about one key: {idem_key, record|null, tickets, attempts, audit, timeline,
/// warnings, errors: {role: message}} (tickets / attempts null when their store failed).
QJsonObject keyDetail(const KeyDetail &detail);

/// keyDetail() plus what makes it lossless, for the bundle (DESIGN.md §7 "Bundles"): the
/// record's "all_columns" ([name, text] pairs in column order), "null_columns",
/// "mapped_columns", "status_stored_text", "status_stored_is_number", "has_expire_at_column",
/// "failed_evidence", "failed_evidence_max_age_s", "upstream_configured"; each row's
/// "escaped_columns" always; the ticket's "has_updated_at_column"; "compensations" (with
/// "id") and "compensation_attempts" (with "comp_key"); "store_errors" [{role, kind,
/// message, native_code}] and "kept_from_earlier". readKeyDetail() gives it back exactly.
QJsonObject keyDetailFull(const KeyDetail &detail);
/// The KeyDetail of a keyDetailFull() object read through `in` (a wrong or missing member
/// is `in`'s error, its path named).
KeyDetail readKeyDetail(const JsonIn &in);

/// "connection", "statement", "privilege", "config", "cancelled", "statement-timeout", "refused".
QString dbErrorKindName(DbError::Kind kind);
std::optional<DbError::Kind> dbErrorKindFromName(const QString &name);
/// The role whose roleName() is `name`.
std::optional<DbRole> roleFromName(const QString &name);

} // namespace key_json

} // namespace triage
