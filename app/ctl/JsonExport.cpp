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

QJsonObject markResult(const MarkResult &r)
{
    QJsonObject o;
    o.insert(QStringLiteral("idem_key"), r.idemKey);
    o.insert(QStringLiteral("outcome"), markKindName(r.kind));
    o.insert(QStringLiteral("message"), r.message);
    o.insert(QStringLiteral("request_id"), r.requestId);
    o.insert(QStringLiteral("audit_id"), r.auditId ? QJsonValue(double(r.auditId)) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("proposal_id"), r.proposalId ? QJsonValue(double(r.proposalId)) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(r.warnings));
    o.insert(QStringLiteral("current"), r.current ? QJsonValue(record(*r.current)) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("changed_by"), r.changedBy ? QJsonValue(auditEntry(*r.changedBy)) : QJsonValue(QJsonValue::Null));
    return o;
}

} // namespace triage::ctl::json_export
