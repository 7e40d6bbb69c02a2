#pragma once

#include "CompensationRow.h"
#include "KeyDetail.h"
#include "KeyDetailJson.h"
#include "Mark.h"
#include "Queue.h"

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

// The key-detail forms live in the backends (KeyDetailJson.h), shared with the incident bundle.
using key_json::attempt;
using key_json::auditEntry;
using key_json::compensation;
using key_json::compensationAttempt;
using key_json::keyDetail;
using key_json::record;
using key_json::ticket;
using key_json::timelineEvent;

/// The outcome of one mark: idem_key, outcome (applied|conflict|refused|error|dry-run),
/// message, request_id, audit_id, warnings, current (the record now, or null), changed_by.
QJsonObject markResult(const MarkResult &result);

} // namespace json_export

} // namespace triage::ctl
