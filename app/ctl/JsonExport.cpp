#include "JsonExport.h"
#include "Queue.h"

#include <QJsonArray>

namespace triage::ctl::json_export {

namespace {

/// A string, or null for a null QString (SQL NULL).
QJsonValue str(const QString &s)
{
    return s.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

QJsonValue str(const NullableText &s)
{
    return s ? QJsonValue(*s) : QJsonValue(QJsonValue::Null);
}

QJsonValue num(const std::optional<qint64> &n)
{
    return n ? QJsonValue(*n) : QJsonValue(QJsonValue::Null);
}

QJsonValue num(const std::optional<double> &n)
{
    return n ? QJsonValue(*n) : QJsonValue(QJsonValue::Null);
}

} // namespace

QJsonObject queueRow(const QueueRow &row)
{
    const bool record = row.source == QueueSource::Record;
    QJsonObject o;
    o.insert(QStringLiteral("idem_key"), row.idemKey);
    o.insert(QStringLiteral("source"), sourceName(row.source));
    o.insert(QStringLiteral("biz_type"), record ? str(row.bizType) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("action"), record ? QJsonValue(QJsonValue::Null) : str(row.action));
    o.insert(QStringLiteral("status"), row.status);
    o.insert(QStringLiteral("created_at"), str(row.createdAt));
    o.insert(QStringLiteral("updated_at"), str(row.updatedAt));
    o.insert(QStringLiteral("expire_at"), str(row.expireAt));
    o.insert(QStringLiteral("age_seconds"), row.ageSeconds);
    o.insert(QStringLiteral("id"), row.id);
    o.insert(QStringLiteral("task_id"), record ? QJsonValue(QJsonValue::Null) : str(row.taskId));
    o.insert(QStringLiteral("step_id"), record ? QJsonValue(QJsonValue::Null) : str(row.stepId));
    return o;
}

QJsonObject windowEvent(const WindowEvent &e)
{
    return {{QStringLiteral("at"), e.atText},
            {QStringLiteral("store"), eventStoreName(e.store)},
            {QStringLiteral("kind"), eventKindName(e.kind)},
            {QStringLiteral("id"), e.id},
            {QStringLiteral("idem_key"), str(e.idemKey)},
            {QStringLiteral("biz_type"), str(e.bizType)},
            {QStringLiteral("status"), str(e.status)},
            {QStringLiteral("status_now"), str(e.statusNow)},
            {QStringLiteral("status_unmapped"), e.statusUnmapped},
            {QStringLiteral("actor"), str(e.actor)},
            {QStringLiteral("detail"), str(e.detail)},
            {QStringLiteral("settling"), e.settling}};
}

const QStringList &queueCsvHeader()
{
    static const QStringList header = {
        QStringLiteral("idem_key"),   QStringLiteral("source"),     QStringLiteral("biz_type"),
        QStringLiteral("action"),     QStringLiteral("status"),     QStringLiteral("created_at"),
        QStringLiteral("updated_at"), QStringLiteral("expire_at"),  QStringLiteral("age_seconds"),
        QStringLiteral("id"),         QStringLiteral("task_id"),    QStringLiteral("step_id"),
    };
    return header;
}

QStringList queueCsvFields(const QueueRow &row)
{
    const bool record = row.source == QueueSource::Record;
    return {
        row.idemKey,
        sourceName(row.source),
        record ? row.bizType : QString(),
        record ? QString() : row.action,
        row.status,
        row.createdAt,
        row.updatedAt,
        row.expireAt,
        QString::number(row.ageSeconds, 'f', 3),
        QString::number(row.id),
        record ? QString() : row.taskId,
        record ? QString() : row.stepId,
    };
}

QJsonObject record(const RecordDetail &r)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), r.id);
    o.insert(QStringLiteral("idem_key"), r.idemKey);
    o.insert(QStringLiteral("biz_type"), str(r.bizType));
    o.insert(QStringLiteral("status"), r.statusText);
    o.insert(QStringLiteral("status_code"), num(r.statusCode));
    // The exact raw stored value (what --expect-status and a compare-and-set compare): a
    // number where the database holds one, else the text as stored (DESIGN.md §10).
    QJsonValue stored(QJsonValue::Null);
    if (r.statusStored) {
        bool isInteger = false;
        const qint64 n = r.statusStored->toLongLong(&isInteger);
        bool isReal = false;
        const double d = r.statusStored->toDouble(&isReal);
        stored = !r.statusStoredIsNumber ? QJsonValue(*r.statusStored)
            : isInteger                  ? QJsonValue(n)
            : isReal                     ? QJsonValue(d)
                                         : QJsonValue(*r.statusStored);
    }
    o.insert(QStringLiteral("status_stored"), stored);
    o.insert(QStringLiteral("result_snapshot"), str(r.resultSnapshot));
    o.insert(QStringLiteral("created_at"), str(r.createdAt));
    o.insert(QStringLiteral("updated_at"), str(r.updatedAt));
    o.insert(QStringLiteral("expire_at"), str(r.expireAt));
    o.insert(QStringLiteral("version"), num(r.version));
    o.insert(QStringLiteral("has_version_column"), r.hasVersionColumn);
    o.insert(QStringLiteral("age_seconds"), r.ageSeconds);
    o.insert(QStringLiteral("expires_in_seconds"), num(r.expiresInSeconds));
    o.insert(QStringLiteral("stale"), r.stale);
    o.insert(QStringLiteral("processing_timeout_s"), r.processingTimeoutS);
    o.insert(QStringLiteral("tenant"), r.tenant.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.tenant));
    o.insert(QStringLiteral("server_now"), str(r.serverNow));
    QJsonObject other;
    for (const auto &[name, text] : r.allColumns)
        if (!r.isMappedColumn(name)) // the columns the mapping leaves out (DESIGN.md §10)
            other.insert(name, r.nullColumns.contains(name) ? QJsonValue(QJsonValue::Null) : QJsonValue(text));
    o.insert(QStringLiteral("other_columns"), other);
    if (!r.escapedColumns.isEmpty())
        o.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(r.escapedColumns));
    return o;
}

QJsonObject ticket(const TicketRow &t)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), t.id.toJson());
    o.insert(QStringLiteral("idem_key"), str(t.idemKey));
    o.insert(QStringLiteral("tenant_id"), str(t.tenantId));
    o.insert(QStringLiteral("title"), str(t.title));
    o.insert(QStringLiteral("status"), str(t.status));
    o.insert(QStringLiteral("payload"), str(t.payload));
    o.insert(QStringLiteral("created_at"), str(t.createdAt));
    o.insert(QStringLiteral("updated_at"), str(t.updatedAt));
    if (!t.escapedColumns.isEmpty())
        o.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(t.escapedColumns));
    return o;
}

QJsonObject attempt(const IntentAttempt &a)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), a.id);
    o.insert(QStringLiteral("task_id"), str(a.taskId));
    o.insert(QStringLiteral("step_id"), str(a.stepId));
    o.insert(QStringLiteral("action"), str(a.action));
    o.insert(QStringLiteral("idem_key"), str(a.idemKey));
    o.insert(QStringLiteral("status"), str(a.status));
    o.insert(QStringLiteral("request"), str(a.request));
    o.insert(QStringLiteral("response"), str(a.response));
    o.insert(QStringLiteral("error"), str(a.error));
    o.insert(QStringLiteral("state_before"), str(a.stateBefore));
    o.insert(QStringLiteral("state_after"), str(a.stateAfter));
    o.insert(QStringLiteral("actor"), str(a.actor));
    o.insert(QStringLiteral("created_at"), str(a.createdAt));
    o.insert(QStringLiteral("updated_at"), str(a.updatedAt));
    if (!a.escapedColumns.isEmpty())
        o.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(a.escapedColumns));
    return o;
}

QJsonObject timelineEvent(const TimelineEvent &e)
{
    QJsonObject o;
    o.insert(QStringLiteral("time"), e.time);
    o.insert(QStringLiteral("source"), e.source);
    o.insert(QStringLiteral("kind"), e.kind);
    o.insert(QStringLiteral("summary"), e.summary);
    o.insert(QStringLiteral("ref_id"), e.refId.toJson());
    return o;
}

QJsonObject auditEntry(const AuditEntry &a)
{
    auto text = [](const QString &s) { return s.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(s); };
    QJsonObject o;
    o.insert(QStringLiteral("id"), double(a.id));
    o.insert(QStringLiteral("at"), a.at);
    o.insert(QStringLiteral("operator"), a.operatorName);
    o.insert(QStringLiteral("db_user"), text(a.dbUser));
    o.insert(QStringLiteral("host"), text(a.host));
    o.insert(QStringLiteral("action"), a.action);
    o.insert(QStringLiteral("idem_key"), a.idemKey);
    o.insert(QStringLiteral("from_state"), text(a.fromState));
    o.insert(QStringLiteral("to_state"), text(a.toState));
    o.insert(QStringLiteral("reason"), a.reason);
    o.insert(QStringLiteral("evidence"), text(a.evidence));
    o.insert(QStringLiteral("outcome"), a.outcome);
    o.insert(QStringLiteral("detail"), text(a.detail));
    o.insert(QStringLiteral("request_id"), a.requestId);
    return o;
}

QJsonObject markResult(const MarkResult &r)
{
    QJsonObject o;
    o.insert(QStringLiteral("idem_key"), r.idemKey);
    o.insert(QStringLiteral("outcome"), markKindName(r.kind));
    o.insert(QStringLiteral("message"), r.message);
    o.insert(QStringLiteral("request_id"), r.requestId);
    o.insert(QStringLiteral("audit_id"), r.auditId ? QJsonValue(double(r.auditId)) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(r.warnings));
    o.insert(QStringLiteral("current"), r.current ? QJsonValue(record(*r.current)) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("changed_by"), r.changedBy ? QJsonValue(auditEntry(*r.changedBy)) : QJsonValue(QJsonValue::Null));
    return o;
}

QJsonObject keyDetail(const KeyDetail &d)
{
    QJsonObject o;
    o.insert(QStringLiteral("idem_key"), d.idemKey);
    o.insert(QStringLiteral("record"), d.record ? QJsonValue(record(*d.record)) : QJsonValue(QJsonValue::Null));
    QJsonArray tickets, attempts, timeline;
    for (const TicketRow &t : d.tickets)
        tickets.append(ticket(t));
    for (const IntentAttempt &a : d.attempts)
        attempts.append(attempt(a));
    for (const TimelineEvent &e : d.timeline)
        timeline.append(timelineEvent(e));
    QJsonArray audit;
    for (const AuditEntry &a : d.audit)
        audit.append(auditEntry(a));
    // A store that failed gives null, not an empty list: its rows are unknown.
    o.insert(QStringLiteral("tickets"), d.errors.contains(DbRole::Ticket) ? QJsonValue(QJsonValue::Null) : QJsonValue(tickets));
    o.insert(QStringLiteral("attempts"), d.errors.contains(DbRole::Intent) ? QJsonValue(QJsonValue::Null) : QJsonValue(attempts));
    o.insert(QStringLiteral("audit"), audit);
    o.insert(QStringLiteral("timeline"), timeline);
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(d.warnings));
    QJsonObject errors;
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
        errors.insert(roleName(it.key()), it->message);
    o.insert(QStringLiteral("errors"), errors);
    return o;
}

QJsonObject compensation(const CompensationRow &r)
{
    return QJsonObject{{QStringLiteral("comp_key"), r.compKey},
                       {QStringLiteral("source_key"), r.sourceKey},
                       {QStringLiteral("biz_type"), r.bizType},
                       {QStringLiteral("action"), r.action},
                       {QStringLiteral("target"), BusinessId(r.target).toJson()},
                       {QStringLiteral("status"), r.status},
                       {QStringLiteral("attempts"), r.attempts},
                       {QStringLiteral("operator"), r.operatorName},
                       {QStringLiteral("reason"), r.reason},
                       {QStringLiteral("created_at"), r.createdAt},
                       {QStringLiteral("updated_at"), r.updatedAt},
                       {QStringLiteral("last_error"), str(r.lastError)},
                       {QStringLiteral("request"), r.request},
                       {QStringLiteral("response"), str(r.response)}};
}

QJsonObject compensationAttempt(const CompensationAttemptRow &a)
{
    return QJsonObject{{QStringLiteral("id"), a.id},
                       {QStringLiteral("kind"), a.kind},
                       {QStringLiteral("at"), a.at},
                       {QStringLiteral("http_status"), a.httpStatus ? QJsonValue(*a.httpStatus) : QJsonValue(QJsonValue::Null)},
                       {QStringLiteral("classification"), a.classification},
                       {QStringLiteral("response_preview"), str(a.responsePreview)},
                       {QStringLiteral("error"), str(a.error)}};
}

} // namespace triage::ctl::json_export
