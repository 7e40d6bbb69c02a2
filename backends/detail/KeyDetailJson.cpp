#include "KeyDetailJson.h"

#include <cmath>

#include <QJsonArray>

namespace triage::key_json {

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
    // Ages are measured against server_now: without it (a bundle of format version 1 or 2) unknown.
    const bool agesKnown = !std::isnan(r.ageSeconds) && !r.serverNow.isEmpty();
    o.insert(QStringLiteral("age_seconds"), agesKnown ? QJsonValue(r.ageSeconds) : QJsonValue(QJsonValue::Null));
    o.insert(QStringLiteral("expires_in_seconds"), agesKnown ? num(r.expiresInSeconds) : QJsonValue(QJsonValue::Null));
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

QString dbErrorKindName(DbError::Kind kind)
{
    switch (kind) {
    case DbError::Kind::Connection: return QStringLiteral("connection");
    case DbError::Kind::Statement: return QStringLiteral("statement");
    case DbError::Kind::Privilege: return QStringLiteral("privilege");
    case DbError::Kind::Config: return QStringLiteral("config");
    case DbError::Kind::Cancelled: return QStringLiteral("cancelled");
    case DbError::Kind::StatementTimeout: return QStringLiteral("statement-timeout");
    case DbError::Kind::Refused: return QStringLiteral("refused");
    case DbError::Kind::Conflict: return QStringLiteral("conflict");
    }
    return QStringLiteral("statement");
}

std::optional<DbError::Kind> dbErrorKindFromName(const QString &name)
{
    for (DbError::Kind k : {DbError::Kind::Connection, DbError::Kind::Statement, DbError::Kind::Privilege,
                            DbError::Kind::Config, DbError::Kind::Cancelled, DbError::Kind::StatementTimeout,
                            DbError::Kind::Refused})
        if (dbErrorKindName(k) == name)
            return k;
    return std::nullopt;
}

std::optional<DbRole> roleFromName(const QString &name)
{
    for (DbRole r : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        if (roleName(r) == name)
            return r;
    return std::nullopt;
}

namespace {

QString failedEvidenceName(FailedEvidence f)
{
    return f == FailedEvidence::TicketAbsent ? QStringLiteral("ticket_absent") : QStringLiteral("upstream");
}

QJsonArray roleNames(const QList<DbRole> &roles)
{
    QJsonArray a;
    for (DbRole r : roles)
        a.append(roleName(r));
    return a;
}

/// A business id as BusinessId::toJson() wrote it: a number (its decimal text) or a string.
QString businessIdText(const JsonIn &in, const QString &name)
{
    const QJsonValue v = in.object().value(name);
    if (v.isDouble())
        return QString::number(in.integer(name));
    return in.text(name);
}

RecordDetail readRecord(const JsonIn &in)
{
    RecordDetail r;
    r.id = in.integer(QStringLiteral("id"));
    r.idemKey = in.text(QStringLiteral("idem_key"));
    r.bizType = in.nullableText(QStringLiteral("biz_type"));
    r.statusText = in.text(QStringLiteral("status"));
    r.statusCode = in.nullableInteger(QStringLiteral("status_code"));
    r.statusStored = in.nullableText(QStringLiteral("status_stored_text"));
    r.statusStoredIsNumber = in.boolean(QStringLiteral("status_stored_is_number"));
    r.resultSnapshot = in.nullableText(QStringLiteral("result_snapshot"));
    r.createdAt = in.textOrNull(QStringLiteral("created_at"));
    r.updatedAt = in.textOrNull(QStringLiteral("updated_at"));
    r.expireAt = in.textOrNull(QStringLiteral("expire_at"));
    r.version = in.nullableInteger(QStringLiteral("version"));
    r.hasVersionColumn = in.boolean(QStringLiteral("has_version_column"));
    r.hasExpireAtColumn = in.boolean(QStringLiteral("has_expire_at_column"));
    r.ageSeconds = in.nullableReal(QStringLiteral("age_seconds")).value_or(std::nan(""));
    r.expiresInSeconds = in.nullableReal(QStringLiteral("expires_in_seconds"));
    r.processingTimeoutS = int(in.integer(QStringLiteral("processing_timeout_s")));
    r.failedEvidence = in.text(QStringLiteral("failed_evidence")) == QLatin1String("ticket_absent")
        ? FailedEvidence::TicketAbsent
        : FailedEvidence::Upstream;
    r.failedEvidenceMaxAgeS = int(in.integer(QStringLiteral("failed_evidence_max_age_s")));
    r.upstreamConfigured = in.boolean(QStringLiteral("upstream_configured"));
    r.stale = in.boolean(QStringLiteral("stale"));
    r.tenant = in.textOrNull(QStringLiteral("tenant"));
    r.serverNow = in.textOrNull(QStringLiteral("server_now"));
    // A bundle's record: its ages were measured when the export read it (server_now); without
    // server_now they are not known (DESIGN.md §7 "Bundles").
    if (r.serverNow.isEmpty()) {
        r.ageBasis = RecordDetail::AgeBasis::Unknown;
        r.ageSeconds = std::nan("");
        r.expiresInSeconds.reset();
    } else {
        r.ageBasis = RecordDetail::AgeBasis::AtExport;
    }
    const QJsonArray columns = in.array(QStringLiteral("all_columns"));
    for (qsizetype i = 0; i < columns.size(); ++i) {
        const QJsonArray pair = columns.at(i).toArray();
        if (!columns.at(i).isArray() || pair.size() != 2 || !pair.at(0).isString() || !pair.at(1).isString()) {
            in.fail(QStringLiteral("\"%1[%2]\" must be a [name, text] pair of strings")
                        .arg(in.pathOf(QStringLiteral("all_columns")))
                        .arg(i));
            break;
        }
        r.allColumns.append({pair.at(0).toString(), pair.at(1).toString()});
    }
    r.nullColumns = in.strings(QStringLiteral("null_columns"));
    r.mappedColumns = in.strings(QStringLiteral("mapped_columns"));
    r.escapedColumns = in.strings(QStringLiteral("escaped_columns"));
    return r;
}

TicketRow readTicket(const JsonIn &in)
{
    TicketRow t;
    t.id = BusinessId(businessIdText(in, QStringLiteral("id")));
    t.idemKey = in.nullableText(QStringLiteral("idem_key"));
    t.tenantId = in.nullableText(QStringLiteral("tenant_id"));
    t.title = in.nullableText(QStringLiteral("title"));
    t.status = in.nullableText(QStringLiteral("status"));
    t.payload = in.nullableText(QStringLiteral("payload"));
    t.createdAt = in.textOrNull(QStringLiteral("created_at"));
    t.updatedAt = in.textOrNull(QStringLiteral("updated_at"));
    t.hasUpdatedAtColumn = in.boolean(QStringLiteral("has_updated_at_column"));
    t.escapedColumns = in.strings(QStringLiteral("escaped_columns"));
    return t;
}

IntentAttempt readAttempt(const JsonIn &in)
{
    IntentAttempt a;
    a.id = in.integer(QStringLiteral("id"));
    a.taskId = in.nullableText(QStringLiteral("task_id"));
    a.stepId = in.nullableText(QStringLiteral("step_id"));
    a.action = in.nullableText(QStringLiteral("action"));
    a.idemKey = in.nullableText(QStringLiteral("idem_key"));
    a.status = in.nullableText(QStringLiteral("status"));
    a.request = in.nullableText(QStringLiteral("request"));
    a.response = in.nullableText(QStringLiteral("response"));
    a.error = in.nullableText(QStringLiteral("error"));
    a.stateBefore = in.nullableText(QStringLiteral("state_before"));
    a.stateAfter = in.nullableText(QStringLiteral("state_after"));
    a.actor = in.nullableText(QStringLiteral("actor"));
    a.createdAt = in.textOrNull(QStringLiteral("created_at"));
    a.updatedAt = in.textOrNull(QStringLiteral("updated_at"));
    a.escapedColumns = in.strings(QStringLiteral("escaped_columns"));
    return a;
}

TimelineEvent readTimelineEvent(const JsonIn &in)
{
    TimelineEvent e;
    e.time = in.text(QStringLiteral("time"));
    e.micros = parseUtcMicros(e.time);
    e.source = in.text(QStringLiteral("source"));
    e.kind = in.text(QStringLiteral("kind"));
    e.summary = in.text(QStringLiteral("summary"));
    e.refId = BusinessId(businessIdText(in, QStringLiteral("ref_id")));
    return e;
}

AuditEntry readAuditEntry(const JsonIn &in)
{
    AuditEntry a;
    a.id = in.integer(QStringLiteral("id"));
    a.at = in.text(QStringLiteral("at"));
    a.operatorName = in.text(QStringLiteral("operator"));
    a.dbUser = in.textOrNull(QStringLiteral("db_user"));
    a.host = in.textOrNull(QStringLiteral("host"));
    a.action = in.text(QStringLiteral("action"));
    a.idemKey = in.text(QStringLiteral("idem_key"));
    a.fromState = in.textOrNull(QStringLiteral("from_state"));
    a.toState = in.textOrNull(QStringLiteral("to_state"));
    a.reason = in.text(QStringLiteral("reason"));
    a.evidence = in.textOrNull(QStringLiteral("evidence"));
    a.outcome = in.text(QStringLiteral("outcome"));
    a.detail = in.textOrNull(QStringLiteral("detail"));
    a.requestId = in.text(QStringLiteral("request_id"));
    return a;
}

CompensationRow readCompensation(const JsonIn &in)
{
    CompensationRow r;
    r.id = in.integer(QStringLiteral("id"));
    r.compKey = in.text(QStringLiteral("comp_key"));
    r.sourceKey = in.text(QStringLiteral("source_key"));
    r.bizType = in.text(QStringLiteral("biz_type"));
    r.action = in.text(QStringLiteral("action"));
    r.target = businessIdText(in, QStringLiteral("target"));
    r.status = in.text(QStringLiteral("status"));
    r.attempts = int(in.integer(QStringLiteral("attempts")));
    r.operatorName = in.text(QStringLiteral("operator"));
    r.reason = in.text(QStringLiteral("reason"));
    r.createdAt = in.text(QStringLiteral("created_at"));
    r.updatedAt = in.text(QStringLiteral("updated_at"));
    r.lastError = in.nullableText(QStringLiteral("last_error"));
    r.request = in.text(QStringLiteral("request"));
    r.response = in.nullableText(QStringLiteral("response"));
    return r;
}

CompensationAttemptRow readCompensationAttempt(const JsonIn &in)
{
    CompensationAttemptRow a;
    a.id = in.integer(QStringLiteral("id"));
    a.compKey = in.text(QStringLiteral("comp_key"));
    a.kind = in.text(QStringLiteral("kind"));
    a.at = in.text(QStringLiteral("at"));
    if (const auto s = in.nullableInteger(QStringLiteral("http_status")))
        a.httpStatus = int(*s);
    a.classification = in.text(QStringLiteral("classification"));
    a.responsePreview = in.nullableText(QStringLiteral("response_preview"));
    a.error = in.nullableText(QStringLiteral("error"));
    return a;
}

template <typename T, typename Read>
QVector<T> readRows(const JsonIn &in, const QString &name, Read read)
{
    QVector<T> rows;
    const QJsonValue v = in.object().value(name);
    if (v.isNull() && in.has(name))
        return rows; // a failed store's part (its error is in store_errors)
    const QJsonArray a = in.array(name);
    rows.reserve(a.size());
    for (qsizetype i = 0; i < a.size() && in.ok(); ++i)
        rows.append(read(in.element(name, a, i)));
    return rows;
}

} // namespace

QJsonObject keyDetailFull(const KeyDetail &d)
{
    // keyDetail() without the parts replaced below (the same members, built once: a key can
    // hold thousands of attempts).
    KeyDetail rest = d;
    rest.record.reset();
    rest.tickets.clear();
    rest.attempts.clear();
    QJsonObject o = keyDetail(rest);
    if (d.record) {
        const RecordDetail &r = *d.record;
        QJsonObject rec = record(r);
        QJsonArray columns;
        for (const auto &[name, text] : r.allColumns)
            columns.append(QJsonArray{name, text});
        rec.insert(QStringLiteral("all_columns"), columns);
        rec.insert(QStringLiteral("null_columns"), QJsonArray::fromStringList(r.nullColumns));
        rec.insert(QStringLiteral("mapped_columns"), QJsonArray::fromStringList(r.mappedColumns));
        rec.insert(QStringLiteral("status_stored_text"), str(r.statusStored));
        rec.insert(QStringLiteral("status_stored_is_number"), r.statusStoredIsNumber);
        rec.insert(QStringLiteral("has_expire_at_column"), r.hasExpireAtColumn);
        rec.insert(QStringLiteral("failed_evidence"), failedEvidenceName(r.failedEvidence));
        rec.insert(QStringLiteral("failed_evidence_max_age_s"), r.failedEvidenceMaxAgeS);
        rec.insert(QStringLiteral("upstream_configured"), r.upstreamConfigured);
        rec.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(r.escapedColumns));
        o.insert(QStringLiteral("record"), rec);
    }
    if (!d.errors.contains(DbRole::Ticket)) {
        QJsonArray tickets;
        for (const TicketRow &t : d.tickets) {
            QJsonObject j = ticket(t);
            j.insert(QStringLiteral("has_updated_at_column"), t.hasUpdatedAtColumn);
            j.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(t.escapedColumns));
            tickets.append(j);
        }
        o.insert(QStringLiteral("tickets"), tickets);
    }
    if (!d.errors.contains(DbRole::Intent)) {
        QJsonArray attempts;
        for (const IntentAttempt &a : d.attempts) {
            QJsonObject j = attempt(a);
            j.insert(QStringLiteral("escaped_columns"), QJsonArray::fromStringList(a.escapedColumns));
            attempts.append(j);
        }
        o.insert(QStringLiteral("attempts"), attempts);
    }
    QJsonArray comps, compAttempts, storeErrors;
    for (const CompensationRow &c : d.compensations) {
        QJsonObject j = compensation(c);
        j.insert(QStringLiteral("id"), c.id);
        comps.append(j);
    }
    for (const CompensationAttemptRow &a : d.compensationAttempts) {
        QJsonObject j = compensationAttempt(a);
        j.insert(QStringLiteral("comp_key"), a.compKey);
        compAttempts.append(j);
    }
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
        storeErrors.append(QJsonObject{{QStringLiteral("role"), roleName(it.key())},
                                       {QStringLiteral("kind"), dbErrorKindName(it->kind)},
                                       {QStringLiteral("message"), it->message},
                                       {QStringLiteral("native_code"), it->nativeCode}});
    o.insert(QStringLiteral("compensations"), comps);
    o.insert(QStringLiteral("compensation_attempts"), compAttempts);
    o.insert(QStringLiteral("store_errors"), storeErrors);
    o.insert(QStringLiteral("kept_from_earlier"), roleNames(d.keptFromEarlier));
    return o;
}

KeyDetail readKeyDetail(const JsonIn &in)
{
    KeyDetail d;
    d.idemKey = in.text(QStringLiteral("idem_key"));
    if (in.has(QStringLiteral("record")) && !in.object().value(QStringLiteral("record")).isNull())
        d.record = readRecord(in.child(QStringLiteral("record")));
    else
        in.nullableText(QStringLiteral("record")); // missing: the error
    d.tickets = readRows<TicketRow>(in, QStringLiteral("tickets"), readTicket);
    d.attempts = readRows<IntentAttempt>(in, QStringLiteral("attempts"), readAttempt);
    d.audit = readRows<AuditEntry>(in, QStringLiteral("audit"), readAuditEntry);
    d.compensations = readRows<CompensationRow>(in, QStringLiteral("compensations"), readCompensation);
    d.compensationAttempts = readRows<CompensationAttemptRow>(in, QStringLiteral("compensation_attempts"),
                                                              readCompensationAttempt);
    d.timeline = readRows<TimelineEvent>(in, QStringLiteral("timeline"), readTimelineEvent);
    d.warnings = in.strings(QStringLiteral("warnings"));
    const QJsonArray errors = in.array(QStringLiteral("store_errors"));
    for (qsizetype i = 0; i < errors.size() && in.ok(); ++i) {
        const JsonIn e = in.element(QStringLiteral("store_errors"), errors, i);
        const auto role = roleFromName(e.text(QStringLiteral("role")));
        const auto kind = dbErrorKindFromName(e.text(QStringLiteral("kind")));
        if (e.ok() && (!role || !kind)) {
            e.fail(QStringLiteral("\"%1\" names an unknown %2").arg(e.pathOf(role ? QStringLiteral("kind") : QStringLiteral("role")),
                                                                   role ? QStringLiteral("error kind") : QStringLiteral("store")));
            break;
        }
        d.errors.insert(*role, DbError{*role, *kind, e.text(QStringLiteral("message")), e.text(QStringLiteral("native_code"))});
    }
    for (const QString &name : in.strings(QStringLiteral("kept_from_earlier"))) {
        if (const auto role = roleFromName(name))
            d.keptFromEarlier.append(*role);
        else
            in.fail(QStringLiteral("\"%1\" names an unknown store \"%2\"").arg(in.pathOf(QStringLiteral("kept_from_earlier")), name));
    }
    return d;
}

} // namespace triage::key_json
