#pragma once

#include "CompensationRow.h"
#include "KeyDetail.h"
#include "Mark.h"
#include "Queue.h"
#include "Window.h"

#include <QJsonObject>
#include <QStringList>

namespace triage::ctl {

/// Machine-readable forms of backend values for triagectl (JSON and CSV). Times stay the
/// canonical text the backend read from the server (DESIGN.md §4); snapshots, payloads
/// and request/response texts are emitted as JSON strings exactly as stored, never parsed
/// and re-serialised (docs/QT-PITFALLS.md: QJsonDocument rewrites numbers). SQL NULL is JSON null.
namespace json_export {

/// One queue row: idem_key, source, biz_type, action, status, created_at, updated_at,
/// expire_at, age_seconds, id, task_id, step_id (null where a source has no such field).
QJsonObject queueRow(const QueueRow &row);

/// The CSV columns of a queue row, in order (same names as the JSON keys).
const QStringList &queueCsvHeader();
/// One queue row as CSV fields (NULL → empty field), in queueCsvHeader() order.
QStringList queueCsvFields(const QueueRow &row);

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

/// One window event (timeline, incident show's pins): at, store, kind, id, idem_key,
/// biz_type, status, status_now, status_unmapped, actor, detail, settling. A null text
/// (SQL NULL, or no such value for the kind) is null, a stored empty string "" (DESIGN.md §7).
QJsonObject windowEvent(const WindowEvent &event);

/// One audit row (triage_audit): from/to states and evidence are the stored JSON text.
QJsonObject auditEntry(const AuditEntry &entry);
/// The outcome of one mark: idem_key, outcome (applied|conflict|refused|error|dry-run),
/// message, request_id, audit_id, warnings, current (the record now, or null), changed_by.
QJsonObject markResult(const MarkResult &result);

/// One compensation (triage_compensation): target is a JSON number when it is a whole
/// number (today's ticket ids), else the text; request/response are the stored texts.
QJsonObject compensation(const CompensationRow &row);
/// One attempt of a compensation (http_status, response_preview, error null when absent).
QJsonObject compensationAttempt(const CompensationAttemptRow &attempt);

/// Everything about one key: {idem_key, record|null, tickets, attempts, audit, timeline,
/// warnings, errors: {role: message}}.
QJsonObject keyDetail(const KeyDetail &detail);

} // namespace json_export

} // namespace triage::ctl
