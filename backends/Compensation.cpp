#include "Compensation.h"

#include "Audit.h"
#include "CanonicalTicket.h"
#include "DemoData.h"
#include "Log.h"
#include "Workspace.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QPromise>
#include <QTimer>
#include <QUuid>
#include <QtConcurrent/QtConcurrentRun>

#include <csignal>

namespace triage {

QString compensationKey(const QString &action, const QString &ticketId, const QString &sourceKey)
{
    const QString full = QStringLiteral("comp:%1:%2:%3").arg(action, ticketId, sourceKey);
    if (full.size() < kMaxCompensationKeyLength)
        return full;
    const QByteArray hash = QCryptographicHash::hash(full.toUtf8(), QCryptographicHash::Sha256).toHex();
    qsizetype prefix = 47;
    if (full.at(prefix - 1).isHighSurrogate())
        --prefix; // never cut a character in two; the hash fills the difference
    return full.left(prefix) + QLatin1Char(':')
        + QString::fromLatin1(hash.left(kMaxCompensationKeyLength - 1 - prefix));
}

QString compensationStatusName(CompensationStatus s)
{
    switch (s) {
    case CompensationStatus::Intent: return QStringLiteral("INTENT");
    case CompensationStatus::Succeeded: return QStringLiteral("SUCCEEDED");
    case CompensationStatus::Failed: return QStringLiteral("FAILED");
    case CompensationStatus::Unknown: return QStringLiteral("UNKNOWN");
    }
    return QStringLiteral("UNKNOWN");
}

std::optional<CompensationStatus> compensationStatusFromName(const QString &name)
{
    for (auto s : {CompensationStatus::Intent, CompensationStatus::Succeeded, CompensationStatus::Failed,
                   CompensationStatus::Unknown})
        if (name.trimmed().compare(compensationStatusName(s), Qt::CaseInsensitive) == 0)
            return s;
    return std::nullopt;
}

QString compensationOutcomeName(CompensationOutcome::Kind k)
{
    using K = CompensationOutcome::Kind;
    switch (k) {
    case K::Planned: return QStringLiteral("planned");
    case K::Succeeded: return QStringLiteral("succeeded");
    case K::Failed: return QStringLiteral("failed");
    case K::Unknown: return QStringLiteral("unknown");
    case K::Existing: return QStringLiteral("existing");
    case K::Refused: return QStringLiteral("refused");
    case K::Error: return QStringLiteral("error");
    case K::NotFound: return QStringLiteral("not_found");
    }
    return QStringLiteral("error");
}

namespace {

/// A ticket id in audit JSON: a number when it is a whole number (as in every other output).
QJsonValue ticketIdJson(const QString &id)
{
    bool ok = false;
    const qint64 n = id.trimmed().toLongLong(&ok);
    return ok ? QJsonValue(n) : QJsonValue(id);
}

} // namespace

CompensationTargetDecision compensationTargetRule(const QVector<TicketRow> &tickets, const QString &recordStatus,
                                                  const std::optional<QString> &resultSnapshot, const QString &target,
                                                  bool override, const QString &reason)
{
    CompensationTargetDecision d;
    const TicketRow *t = nullptr;
    int live = 0;
    for (const TicketRow &x : tickets) {
        if (QString::number(x.id) == target.trimmed())
            t = &x;
        live += x.status.value_or(QString()) != QLatin1String("CANCELLED");
    }
    if (!t) {
        d.refusal = QStringLiteral("ticket %1 does not carry the key").arg(target);
        return d;
    }
    if (t->status.value_or(QString()) == QLatin1String("CANCELLED")) {
        d.refusal = QStringLiteral("ticket %1 is already CANCELLED").arg(target);
        return d;
    }
    const CanonicalTicket canon = canonicalTicket(tickets, recordStatus, resultSnapshot);
    if (canon.id == t->id) {
        d.refusal = QStringLiteral("ticket %1 is the canonical ticket of this key (%2): it is never a compensation target "
                                   "(DESIGN.md §6); compensate the extras instead")
                        .arg(target, canon.reason);
        return d;
    }
    if (live <= 1) {
        d.refusal = QStringLiteral("ticket %1 is the key's only ticket that is not CANCELLED: keep the canonical ticket").arg(target);
        return d;
    }
    QStringList uncertain;
    if (const QStringList fields = keyReuseFields(tickets); !fields.isEmpty())
        uncertain << QStringLiteral("key reuse: the tickets' business payloads differ (%1), so they are different operations "
                                    "under one key, not retries")
                         .arg(fields.join(QStringLiteral(", ")));
    if (!canon.inconsistency.isEmpty())
        uncertain << canon.inconsistency;
    if (!uncertain.isEmpty()) {
        d.overridable = true;
        if (!override) {
            d.refusal = QStringLiteral("%1; compensate only with --override and a reason of at least %2 characters if you are sure")
                            .arg(uncertain.join(QStringLiteral("; ")))
                            .arg(kOverrideReasonMinLength);
            return d;
        }
        if (reason.trimmed().size() < kOverrideReasonMinLength) {
            d.refusal = QStringLiteral("--override needs a reason of at least %1 characters").arg(kOverrideReasonMinLength);
            return d;
        }
        d.overridden = uncertain.join(QStringLiteral("; "));
    }
    return d;
}

QByteArray CompensationHttpRequest::toJson() const
{
    QJsonArray hs;
    for (const auto &h : headers)
        hs.append(QJsonArray{QString::fromUtf8(h.first), QString::fromUtf8(h.second)});
    const QJsonObject o{{QStringLiteral("method"), QString::fromUtf8(method)},
                        {QStringLiteral("url"), url},
                        {QStringLiteral("headers"), hs},
                        {QStringLiteral("body"), QString::fromUtf8(body)},
                        {QStringLiteral("confirm_url"), confirmUrl},
                        {QStringLiteral("timeout_ms"), timeoutMs},
                        {QStringLiteral("honours_key"), honoursKey},
                        {QStringLiteral("token_env"), tokenEnv}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<CompensationHttpRequest> CompensationHttpRequest::fromJson(const QByteArray &json)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    CompensationHttpRequest r;
    r.method = o.value(QStringLiteral("method")).toString().toUtf8();
    r.url = o.value(QStringLiteral("url")).toString();
    for (const QJsonValue &h : o.value(QStringLiteral("headers")).toArray())
        r.headers.append({h.toArray().at(0).toString().toUtf8(), h.toArray().at(1).toString().toUtf8()});
    r.body = o.value(QStringLiteral("body")).toString().toUtf8();
    r.confirmUrl = o.value(QStringLiteral("confirm_url")).toString();
    r.timeoutMs = o.value(QStringLiteral("timeout_ms")).toInt(5000);
    r.honoursKey = o.value(QStringLiteral("honours_key")).toBool(true);
    r.tokenEnv = o.value(QStringLiteral("token_env")).toString();
    if (r.method.isEmpty() || r.url.isEmpty())
        return std::nullopt;
    return r;
}

namespace {

NullableText nullableText(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    return v.typeId() == QMetaType::QByteArray ? QString::fromUtf8(v.toByteArray()) : v.toString();
}

QString columns(const SqlDialect &d)
{
    return QStringLiteral("id, comp_key, source_key, biz_type, action, target, request, status, attempts, operator, "
                          "reason, %1, %2, last_error, response")
        .arg(d.timeText(QStringLiteral("created_at")), d.timeText(QStringLiteral("updated_at")));
}

CompensationRow rowFrom(const QSqlQuery &q)
{
    CompensationRow r;
    r.id = q.value(0).toLongLong();
    r.compKey = q.value(1).toString();
    r.sourceKey = q.value(2).toString();
    r.bizType = q.value(3).toString();
    r.action = q.value(4).toString();
    r.target = q.value(5).toString();
    r.request = nullableText(q.value(6)).value_or(QString());
    r.status = q.value(7).toString();
    r.attempts = q.value(8).toInt();
    r.operatorName = q.value(9).toString();
    r.reason = nullableText(q.value(10)).value_or(QString());
    r.createdAt = canonicalTimeText(q.value(11));
    r.updatedAt = canonicalTimeText(q.value(12));
    r.lastError = nullableText(q.value(13));
    r.response = nullableText(q.value(14));
    return r;
}

bool isUniqueViolation(const DbError &e)
{
    return e.nativeCode == QLatin1String("23505") || e.nativeCode == QLatin1String("1062")
        || e.nativeCode == QLatin1String("2067") || e.nativeCode == QLatin1String("1555");
}

/// Inserts the intent row in its own transaction. Throws DbException.
CompensationRow insertIntent(DbSession &s, const CompensationRow &r)
{
    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    const QString sql =
        QStringLiteral("INSERT INTO triage_compensation (comp_key, source_key, biz_type, action, target, request, status, "
                       "attempts, operator, reason, created_at, updated_at) VALUES (%1, %2, %3, %4, %5, %6, %7, 0, %8, %9, %10, %10)")
            .arg(b.bind(r.compKey), b.bind(r.sourceKey), b.bind(r.bizType), b.bind(r.action), b.bind(r.target),
                 b.bind(r.request), b.bind(QStringLiteral("INTENT")), b.bind(r.operatorName))
            .arg(b.bind(r.reason), d.nowValue());
    s.begin();
    try {
        s.exec(sql, b);
        s.commit();
    } catch (...) {
        s.rollback();
        throw;
    }
    auto row = compensation_sql::byKey(s, r.compKey);
    if (!row)
        throw DbException({s.role(), DbError::Kind::Statement, QStringLiteral("the compensation intent vanished after its commit"), {}});
    return *row;
}

/// Claims the next call by compare-and-set on the attempt counter (another console that
/// sent meanwhile makes it match no row: returns 0) and writes its IN_FLIGHT attempt row, in
/// one transaction, before the call is sent. Returns the attempt row's id. Throws DbException.
qint64 beginSend(DbSession &s, const QString &compKey, int seenAttempts)
{
    const SqlDialect &d = s.dialect();
    s.begin();
    try {
        SqlBuilder b;
        QSqlQuery u = s.exec(QStringLiteral("UPDATE triage_compensation SET attempts = attempts + 1, updated_at = %1 "
                                            "WHERE comp_key = %2 AND attempts = %3")
                                 .arg(d.nowValue(), b.bind(compKey), b.bind(seenAttempts)),
                             b);
        if (u.numRowsAffected() != 1) {
            s.rollback();
            return 0;
        }
        SqlBuilder a;
        const qint64 id = s.insertReturningId(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, classification) "
                                                             "VALUES (%1, %2, %3, %4)")
                                                  .arg(a.bind(compKey), a.bind(QStringLiteral("send")), d.nowValue(),
                                                       a.bind(QStringLiteral("IN_FLIGHT"))),
                                              a);
        s.commit();
        return id > 0 ? id : -1;
    } catch (...) {
        s.rollback();
        throw;
    }
}

/// Result of one HTTP exchange.
struct HttpResult {
    bool gotResponse = false;  ///< a status line arrived
    int status = 0;
    QByteArray body;
    QByteArray contentType;
    QString error;             ///< network error text, "timeout", …
};

QString preview(const QByteArray &body)
{
    return QString::fromUtf8(body.left(2000));
}

bool isJsonDocument(const HttpResult &r, QJsonObject *object = nullptr)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(r.body, &err);
    if (err.error != QJsonParseError::NoError || !(doc.isObject() || doc.isArray()))
        return false;
    if (object)
        *object = doc.object();
    return true;
}

/// "SUCCEEDED", "REFUSED" (explicit 4xx business refusal with the upstream's JSON) or
/// "UNKNOWN" (no reply, timeout, reset, 5xx, HTML, unusable body, 401/403/408/409/429…).
QString classifySend(const HttpResult &r)
{
    if (!r.gotResponse)
        return QStringLiteral("UNKNOWN");
    if (r.status >= 200 && r.status < 300)
        return isJsonDocument(r) ? QStringLiteral("SUCCEEDED") : QStringLiteral("UNKNOWN");
    static const QList<int> unclear{401, 403, 407, 408, 409, 425, 429};
    if (r.status >= 400 && r.status < 500 && !unclear.contains(r.status) && isJsonDocument(r))
        return QStringLiteral("REFUSED");
    return QStringLiteral("UNKNOWN");
}

/// "CONFIRMED" (the ticket's status is CANCELLED), "ABSENT" (the upstream's ticket with
/// another status) or "UNUSABLE".
QString classifyConfirm(const HttpResult &r)
{
    QJsonObject o;
    if (!r.gotResponse || r.status != 200 || !isJsonDocument(r, &o))
        return QStringLiteral("UNUSABLE");
    QJsonValue status = o.value(QStringLiteral("status"));
    if (!status.isString())
        status = o.value(QStringLiteral("ticket")).toObject().value(QStringLiteral("status"));
    if (!status.isString())
        return QStringLiteral("UNUSABLE");
    return status.toString() == QLatin1String("CANCELLED") ? QStringLiteral("CONFIRMED") : QStringLiteral("ABSENT");
}

} // namespace

namespace compensation_sql {

QVector<CompensationRow> read(DbSession &session, const CompensationQuery &query)
{
    SqlBuilder b;
    QStringList where;
    if (query.status)
        where << QStringLiteral("status = %1").arg(b.bind(compensationStatusName(*query.status)));
    if (!query.sourceKey.isEmpty())
        where << QStringLiteral("source_key = %1").arg(b.bind(query.sourceKey));
    QString sql = QStringLiteral("SELECT %1 FROM triage_compensation").arg(columns(session.dialect()));
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY created_at, id");
    if (query.limit > 0)
        sql += QStringLiteral(" LIMIT %1").arg(b.bind(query.limit));
    QSqlQuery q = session.exec(sql, b);
    QVector<CompensationRow> rows;
    while (q.next())
        rows.append(rowFrom(q));
    return rows;
}

std::optional<CompensationRow> byKey(DbSession &session, const QString &compKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_compensation WHERE comp_key = %2")
                                   .arg(columns(session.dialect()), b.bind(compKey)),
                               b);
    if (!q.next())
        return std::nullopt;
    return rowFrom(q);
}

QVector<CompensationAttemptRow> attempts(DbSession &session, const QString &compKey)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT id, comp_key, kind, %1, http_status, classification, response_preview, error "
                                              "FROM triage_compensation_attempt WHERE comp_key = %2 ORDER BY id")
                                   .arg(session.dialect().timeText(QStringLiteral("at")), b.bind(compKey)),
                               b);
    QVector<CompensationAttemptRow> rows;
    while (q.next()) {
        CompensationAttemptRow a;
        a.id = q.value(0).toLongLong();
        a.compKey = q.value(1).toString();
        a.kind = q.value(2).toString();
        a.at = canonicalTimeText(q.value(3));
        if (!q.value(4).isNull())
            a.httpStatus = q.value(4).toInt();
        a.classification = q.value(5).toString();
        a.responsePreview = nullableText(q.value(6));
        a.error = nullableText(q.value(7));
        rows.append(a);
    }
    return rows;
}

} // namespace compensation_sql

CompensationConfigs demoCompensations(const QString &base)
{
    CompensationConfigs out;
    for (const QString &bizType : demoBizTypes().keys()) {
        CompensationActionConfig c;
        c.bizType = bizType;
        c.action = QStringLiteral("cancel_ticket");
        c.baseUrl = base;
        c.urlTemplate = QStringLiteral("/tickets/{ticket_id}/cancel");
        c.bodyTemplate = QStringLiteral("{\"reason\":\"duplicate of {idem_key}\"}");
        c.confirmUrlTemplate = QStringLiteral("/tickets/{ticket_id}");
        c.timeoutMs = 5000;
        out[bizType].insert(c.action, c);
    }
    return out;
}

namespace detail {

/// The network side of CompensationRunner: lives on the runner's thread, owns its
/// QNetworkAccessManager and sends one request per call with a deadline of its own.
class CompensationHttp : public QObject {
public:
    /// Sends `method url` with `headers` and `body`; the future resolves once, on this thread.
    QFuture<HttpResult> send(const QByteArray &method, const QString &url,
                             const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body, int timeoutMs)
    {
        auto promise = std::make_shared<QPromise<HttpResult>>();
        QFuture<HttpResult> future = promise->future();
        promise->start();
        QMetaObject::invokeMethod(
            this,
            [this, promise, method, url, headers, body, timeoutMs]() {
                if (!m_nam)
                    m_nam = new QNetworkAccessManager(this);
                QNetworkRequest req{QUrl(url)};
                req.setTransferTimeout(timeoutMs);
                req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
                for (const auto &h : headers)
                    req.setRawHeader(h.first, h.second);
                QNetworkReply *reply = m_nam->sendCustomRequest(req, method, body);
                auto timedOut = std::make_shared<bool>(false);
                auto *deadline = new QTimer(reply);
                deadline->setSingleShot(true);
                connect(deadline, &QTimer::timeout, reply, [reply, timedOut]() {
                    *timedOut = true;
                    reply->abort();
                });
                deadline->start(timeoutMs);
                connect(reply, &QNetworkReply::finished, this, [reply, promise, timedOut]() {
                    HttpResult r;
                    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
                    r.gotResponse = status.isValid();
                    r.status = status.toInt();
                    r.body = reply->readAll();
                    r.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
                    if (reply->error() == QNetworkReply::OperationCanceledError || *timedOut) {
                        r.error = QStringLiteral("timeout");
                        r.gotResponse = r.gotResponse && !*timedOut;
                    } else if (!r.gotResponse) {
                        r.error = reply->errorString();
                    }
                    promise->addResult(r);
                    promise->finish();
                    reply->deleteLater();
                });
            },
            Qt::QueuedConnection);
        return future;
    }

private:
    QNetworkAccessManager *m_nam = nullptr;
};

} // namespace detail

CompensationRunner::CompensationRunner(Workspace &workspace)
    : CompensationRunner(workspace, workspace.config().compensations)
{
}

CompensationRunner::CompensationRunner(Workspace &workspace, CompensationConfigs configs)
    : m_workspace(workspace), m_configs(std::move(configs))
{
    m_thread.setObjectName(QStringLiteral("compensation-http"));
    m_http = new detail::CompensationHttp;
    m_http->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_http, &QObject::deleteLater);
    m_thread.start();
}

CompensationRunner::~CompensationRunner()
{
    m_thread.quit();
    m_thread.wait();
}

QFuture<CompensationOutcome> CompensationRunner::start(const CompensationRequest &request)
{
    return QtConcurrent::run(m_workspace.mergePool(), [this, request]() {
        CompensationOutcome o = runStart(request);
        // Every real outcome is audited; the other kinds write their own rows.
        if (o.kind == CompensationOutcome::Kind::Refused && !request.dryRun && !request.reason.trimmed().isEmpty())
            if (const QString e = auditRefusal(o, QStringLiteral("compensate"), request.sourceKey, request.target,
                                               request.operatorName, request.reason);
                !e.isEmpty())
                o.message += QStringLiteral(" (this refusal is not recorded in the audit trail: %1)").arg(e);
        return o;
    });
}

QFuture<CompensationOutcome> CompensationRunner::resume(const QString &compKey, const QString &operatorName)
{
    return QtConcurrent::run(m_workspace.mergePool(), [this, compKey, operatorName]() {
        CompensationOutcome o = runResume(compKey, operatorName);
        if (o.kind == CompensationOutcome::Kind::Refused && o.row)
            if (const QString e = auditRefusal(o, QStringLiteral("compensate_resume"), o.row->sourceKey, o.row->target, operatorName,
                                               o.row->reason);
                !e.isEmpty())
                o.message += QStringLiteral(" (this refusal is not recorded in the audit trail: %1)").arg(e);
        return o;
    });
}

QString CompensationRunner::auditRefusal(const CompensationOutcome &out, const QString &action, const QString &sourceKey,
                                      const QString &target, const QString &operatorName, const QString &reason)
{
    AuditEntry a;
    a.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    a.operatorName = operatorName.left(64);
    a.host = auditHostName();
    a.action = action;
    a.idemKey = sourceKey;
    QJsonObject from{{QStringLiteral("comp_key"), out.compKey}};
    if (out.row)
        from.insert(QStringLiteral("status"), out.row->status);
    a.fromState = QString::fromUtf8(QJsonDocument(from).toJson(QJsonDocument::Compact));
    a.reason = reason.trimmed().isEmpty() ? QStringLiteral("compensation") : reason.left(1000);
    a.evidence = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), out.compKey},
                                                             {QStringLiteral("target"), ticketIdJson(target)},
                                                             {QStringLiteral("refusal"), out.message}})
                                       .toJson(QJsonDocument::Compact));
    a.outcome = QStringLiteral("refused");
    a.detail = out.message;
    auto audited = m_workspace.worker(DbRole::Idempotency)
                       .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never)
                       .result();
    if (audited.ok())
        return {};
    logger("backend.compensation")->warn("compensation {}: audit row of a refusal not written: {}", out.compKey.toStdString(),
                                         audited.error->message.toStdString());
    return audited.error->message;
}

QFuture<Outcome<QVector<CompensationRow>>> CompensationRunner::list(const CompensationQuery &query)
{
    return m_workspace.worker(DbRole::Intent).run<QVector<CompensationRow>>(
        [query](DbSession &s) { return compensation_sql::read(s, query); });
}

QFuture<Outcome<QVector<CompensationAttemptRow>>> CompensationRunner::history(const QString &compKey)
{
    return m_workspace.worker(DbRole::Intent).run<QVector<CompensationAttemptRow>>(
        [compKey](DbSession &s) { return compensation_sql::attempts(s, compKey); });
}

namespace {

CompensationOutcome dbFailure(const DbError &e, const QString &compKey = {})
{
    CompensationOutcome o;
    o.kind = CompensationOutcome::Kind::Error;
    o.message = e.message;
    o.dbError = e;
    o.compKey = compKey;
    return o;
}

CompensationOutcome refused(const QString &why, bool config = false)
{
    CompensationOutcome o;
    o.kind = CompensationOutcome::Kind::Refused;
    o.message = why;
    o.configError = config;
    return o;
}

} // namespace

CompensationOutcome CompensationRunner::existingOutcome(CompensationOutcome out, const CompensationRow &row,
                                                        const CompensationRequest &request)
{
    out.kind = CompensationOutcome::Kind::Existing;
    out.row = row;
    if (const auto stored = CompensationHttpRequest::fromJson(row.request.toUtf8()))
        out.request = *stored; // what was sent, not what would be rendered now
    const bool open = row.status != QLatin1String("SUCCEEDED") && row.status != QLatin1String("FAILED");
    out.message = QStringLiteral("compensation %1 already exists (%2, started by %3)%4")
                      .arg(row.compKey, row.status, row.operatorName,
                           open ? QStringLiteral(": continue it with --resume %1").arg(row.compKey) : QString());
    AuditEntry a;
    a.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    a.operatorName = request.operatorName.left(64);
    a.host = auditHostName();
    a.action = QString::fromUtf16(audit_action::Compensate);
    a.idemKey = request.sourceKey;
    a.reason = request.reason.left(1000);
    a.evidence = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), row.compKey},
                                                             {QStringLiteral("existing_status"), row.status}})
                                       .toJson(QJsonDocument::Compact));
    a.outcome = QStringLiteral("conflict");
    a.detail = out.message;
    auto audited = m_workspace.worker(DbRole::Idempotency)
                       .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never)
                       .result();
    if (!audited.ok())
        logger("backend.compensation")->warn("compensation {}: audit row not written: {}", row.compKey.toStdString(),
                                             audited.error->message.toStdString());
    return out;
}

CompensationOutcome CompensationRunner::runStart(const CompensationRequest &request)
{
    const WorkspaceConfig &config = m_workspace.config();
    if (request.reason.trimmed().isEmpty())
        return refused(QStringLiteral("a reason is required (it is audited)"), true);
    const QString key = request.sourceKey;
    auto record = m_workspace.worker(DbRole::Idempotency)
                      .run<std::optional<RecordDetail>>([&config, key](DbSession &s) { return detail_sql::readRecord(s, config, key); })
                      .result();
    if (!record.ok())
        return dbFailure(*record.error);
    if (!*record.value || !(*record.value)->bizType)
        return refused(QStringLiteral("no idempotency record with a biz_type for \"%1\": the compensation endpoint is unknown").arg(key));
    const QString bizType = *(*record.value)->bizType;
    const QMap<QString, CompensationActionConfig> actions = m_configs.value(bizType);
    const auto actionIt = actions.constFind(request.action);
    if (actionIt == actions.constEnd())
        return refused(QStringLiteral("no compensation \"%1\" configured for biz_type %2 (compensation_%1_url in [biz.%2])")
                           .arg(request.action, bizType),
                       true);
    const CompensationActionConfig cfg = *actionIt;

    auto tickets = m_workspace.worker(DbRole::Ticket)
                       .run<QVector<TicketRow>>([key](DbSession &s) { return detail_sql::readTickets(s, key); })
                       .result();
    if (!tickets.ok())
        return dbFailure(*tickets.error);
    const TicketRow *target = nullptr;
    for (const TicketRow &t : *tickets.value)
        if (QString::number(t.id) == request.target)
            target = &t;
    if (!target)
        return refused(QStringLiteral("ticket %1 does not carry the key \"%2\"").arg(request.target, key));

    CompensationOutcome out;
    out.compKey = compensationKey(request.action, request.target, key);
    const QString tenant = target->tenantId.value_or(QString());
    CompensationHttpRequest req;
    req.method = cfg.method;
    QString why;
    req.url = resolveCompensationUrl(cfg.baseUrl, renderCompensationTemplate(cfg.urlTemplate, request.target, key, tenant, true), &why);
    if (req.url.isEmpty())
        return refused(QStringLiteral("[biz.%1] compensation_%2_url: %3").arg(bizType, request.action, why), true);
    if (!cfg.confirmUrlTemplate.isEmpty()) {
        req.confirmUrl = resolveCompensationUrl(
            cfg.baseUrl, renderCompensationTemplate(cfg.confirmUrlTemplate, request.target, key, tenant, true), &why);
        if (req.confirmUrl.isEmpty())
            return refused(QStringLiteral("[biz.%1] compensation_%2_confirm_url: %3").arg(bizType, request.action, why), true);
    }
    req.body = renderCompensationTemplate(cfg.bodyTemplate, request.target, key, tenant, false).toUtf8();
    req.headers.append(qMakePair(QByteArray("X-Idempotency-Key"), out.compKey.toUtf8()));
    if (!req.body.isEmpty())
        req.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    req.timeoutMs = cfg.timeoutMs;
    req.honoursKey = cfg.honoursKey;
    req.tokenEnv = cfg.tokenEnv;
    out.request = req;

    // A second click, operator or console finds the existing compensation first.
    const QString compKey = out.compKey;
    auto existing = m_workspace.worker(DbRole::Intent)
                        .run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); })
                        .result();
    if (!existing.ok())
        return dbFailure(*existing.error, compKey);
    if (*existing.value)
        return existingOutcome(out, **existing.value, request);
    // The safety checks hold for a dry run too: the plan must be what a real run would do.
    const RecordDetail &rec = **record.value;
    const CompensationTargetDecision rule = compensationTargetRule(*tickets.value, rec.statusText, rec.resultSnapshot,
                                                                   request.target, request.override, request.reason);
    if (!rule.refusal.isEmpty()) {
        CompensationOutcome o = refused(rule.refusal);
        o.overridable = rule.overridable;
        o.compKey = compKey;
        o.request = req;
        return o;
    }
    if (request.dryRun) {
        out.kind = CompensationOutcome::Kind::Planned;
        out.message = QStringLiteral("would send %1 %2 with X-Idempotency-Key %3").arg(QString::fromUtf8(req.method), req.url, compKey);
        if (!rule.overridden.isEmpty())
            out.message += QStringLiteral(" (override: %1)").arg(rule.overridden);
        return out;
    }

    CompensationRow intent;
    intent.compKey = compKey;
    intent.sourceKey = key;
    intent.bizType = bizType;
    intent.action = request.action;
    intent.target = request.target;
    intent.request = QString::fromUtf8(req.toJson());
    intent.operatorName = request.operatorName;
    intent.reason = request.reason;
    auto inserted = m_workspace.worker(DbRole::Intent)
                        .run<CompensationRow>([intent](DbSession &s) { return insertIntent(s, intent); }, DbWorker::Retry::Never)
                        .result();
    if (!inserted.ok()) {
        // A unique violation (or a commit whose reply was lost): whoever holds the key wins.
        auto again = m_workspace.worker(DbRole::Intent)
                         .run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); })
                         .result();
        if (isUniqueViolation(*inserted.error) && again.ok() && *again.value)
            return existingOutcome(out, **again.value, request);
        return dbFailure(*inserted.error, compKey);
    }
    logger("backend.compensation")->info("compensation {} intent written ({} ticket {})", compKey.toStdString(),
                                         request.action.toStdString(), request.target.toStdString());
    if (qEnvironmentVariableIntValue("TRIAGE_TEST_CRASH_AFTER_INTENT") == 1)
        ::raise(SIGKILL); // test hook: a console killed between the intent and the call
    return drive(*inserted.value, req, false, request.operatorName, rule.overridden);
}

CompensationOutcome CompensationRunner::runResume(const QString &compKey, const QString &operatorName)
{
    auto row = m_workspace.worker(DbRole::Intent)
                   .run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); })
                   .result();
    if (!row.ok())
        return dbFailure(*row.error, compKey);
    if (!*row.value) {
        CompensationOutcome o;
        o.kind = CompensationOutcome::Kind::NotFound;
        o.message = QStringLiteral("unknown compensation key \"%1\": no compensation has it (list them with "
                                   "`triagectl compensations`)")
                        .arg(compKey);
        o.compKey = compKey;
        return o;
    }
    const CompensationRow &r = **row.value;
    const auto req = CompensationHttpRequest::fromJson(r.request.toUtf8());
    if (!req) {
        CompensationOutcome o = refused(QStringLiteral("compensation %1: its stored request is unreadable").arg(compKey));
        o.compKey = compKey;
        o.row = r;
        return o;
    }
    if (r.status != QLatin1String("SUCCEEDED") && r.status != QLatin1String("FAILED")) {
        // The canonical ticket is never a target, whenever the intent was planned: check the
        // key's tickets as they are now before anything is sent.
        const WorkspaceConfig &config = m_workspace.config();
        const QString key = r.sourceKey;
        auto record = m_workspace.worker(DbRole::Idempotency)
                          .run<std::optional<RecordDetail>>([&config, key](DbSession &s) { return detail_sql::readRecord(s, config, key); })
                          .result();
        if (!record.ok())
            return dbFailure(*record.error, compKey);
        auto tickets = m_workspace.worker(DbRole::Ticket)
                           .run<QVector<TicketRow>>([key](DbSession &s) { return detail_sql::readTickets(s, key); })
                           .result();
        if (!tickets.ok())
            return dbFailure(*tickets.error, compKey);
        const QString status = *record.value ? (*record.value)->statusText : QString();
        const NullableText snapshot = *record.value ? (*record.value)->resultSnapshot : NullableText();
        const CanonicalTicket canon = canonicalTicket(*tickets.value, status, snapshot);
        if (canon.id && QString::number(*canon.id) == r.target.trimmed()) {
            CompensationOutcome o = refused(QStringLiteral("compensation %1 targets ticket %2, the canonical ticket of key \"%3\" "
                                                           "(%4): it is never a compensation target (DESIGN.md §6); nothing sent")
                                                .arg(compKey, r.target, key, canon.reason));
            o.compKey = compKey;
            o.row = r;
            o.request = *req;
            return o;
        }
    }
    return drive(r, *req, true, operatorName);
}

CompensationOutcome CompensationRunner::drive(CompensationRow row, const CompensationHttpRequest &req, bool resumed,
                                              const QString &operatorName, const QString &overridden)
{
    using K = CompensationOutcome::Kind;
    DbWorker &intentDb = m_workspace.worker(DbRole::Intent);
    const QString compKey = row.compKey;
    CompensationOutcome out;
    out.compKey = compKey;
    out.request = req;
    QStringList notes;

    auto recordAttempt = [&](qint64 attemptId, const QString &kind, const HttpResult &r, const QString &cls) {
        return intentDb
            .run<Done>(
                [=](DbSession &s) {
                    const SqlDialect &d = s.dialect();
                    SqlBuilder b;
                    const QVariant status = r.gotResponse ? QVariant(r.status) : QVariant(QMetaType(QMetaType::Int));
                    const QVariant err = r.error.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(r.error);
                    if (attemptId > 0) {
                        s.exec(QStringLiteral("UPDATE triage_compensation_attempt SET http_status = %1, classification = %2, "
                                              "response_preview = %3, error = %4 WHERE id = %5")
                                   .arg(b.bind(status), b.bind(cls), b.bind(preview(r.body)), b.bind(err), b.bind(attemptId)),
                               b);
                    } else {
                        s.exec(QStringLiteral("INSERT INTO triage_compensation_attempt (comp_key, kind, at, http_status, "
                                              "classification, response_preview, error) VALUES (%1, %2, %3, %4, %5, %6, %7)")
                                   .arg(b.bind(compKey), b.bind(kind), d.nowValue(), b.bind(status), b.bind(cls),
                                        b.bind(preview(r.body)), b.bind(err)),
                               b);
                    }
                    return Done{};
                },
                DbWorker::Retry::Never)
            .result();
    };
    auto setStatus = [&](const QString &status, const QString &lastError, const QByteArray &response) {
        return intentDb
            .run<Done>(
                [=](DbSession &s) {
                    SqlBuilder b;
                    const QVariant err = lastError.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(lastError);
                    const QVariant resp = response.isNull() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(QString::fromUtf8(response));
                    s.exec(QStringLiteral("UPDATE triage_compensation SET status = %1, updated_at = %2, last_error = %3, "
                                          "response = COALESCE(%4, response) WHERE comp_key = %5")
                               .arg(b.bind(status), s.dialect().nowValue(), b.bind(err), b.bind(resp), b.bind(compKey)),
                           b);
                    return Done{};
                },
                DbWorker::Retry::Never)
            .result();
    };
    // The bearer token is read from the environment per call and never stored or logged.
    QList<QPair<QByteArray, QByteArray>> auth;
    if (!req.tokenEnv.isEmpty() && qEnvironmentVariableIsSet(req.tokenEnv.toUtf8().constData()))
        auth.append(qMakePair(QByteArray("Authorization"), "Bearer " + qgetenv(req.tokenEnv.toUtf8().constData())));
    auto confirm = [&]() -> QString {
        if (req.confirmUrl.isEmpty())
            return QStringLiteral("UNUSABLE");
        const HttpResult r = m_http->send("GET", req.confirmUrl, QList<QPair<QByteArray, QByteArray>>{{"Accept", "application/json"}} + auth,
                                          {}, req.timeoutMs)
                                 .result();
        const QString cls = classifyConfirm(r);
        recordAttempt(0, QStringLiteral("confirm"), r, cls);
        notes << QStringLiteral("confirmation query: %1%2").arg(cls, r.gotResponse ? QStringLiteral(" (HTTP %1)").arg(r.status) : QString());
        return cls;
    };

    QString final = row.status;
    QString lastError;
    QByteArray response;
    bool send = true;
    if (row.status == QLatin1String("SUCCEEDED") || row.status == QLatin1String("FAILED")) {
        send = false;
        notes << QStringLiteral("already %1: nothing to do").arg(row.status);
    } else if (resumed && row.attempts > 0) {
        // An earlier run sent a call (the counter is bumped before every call), which may have
        // reached the upstream (UNKNOWN, or killed while INTENT): ask first. Re-send only with
        // the same key to an upstream that honours it, or when the confirmation says the
        // effect is absent.
        const QString c = confirm();
        if (c == QLatin1String("CONFIRMED")) {
            final = QStringLiteral("SUCCEEDED");
            send = false;
        } else if (c == QLatin1String("UNUSABLE") && !req.honoursKey) {
            final = QStringLiteral("UNKNOWN");
            lastError = QStringLiteral("confirmation unusable; not re-sending to an upstream that does not honour the key");
            send = false;
        }
    }
    if (send) {
        const bool earlierCalls = row.attempts > 0;
        const int seen = row.attempts;
        auto begun = intentDb.run<qint64>([compKey, seen](DbSession &s) { return beginSend(s, compKey, seen); }, DbWorker::Retry::Never)
                         .result();
        if (!begun.ok())
            return dbFailure(*begun.error, compKey);
        if (*begun.value == 0) {
            // Another console sent a call for this compensation since we read it: leave it
            // to that run (one call at a time per key).
            out.kind = K::Existing;
            out.message = QStringLiteral("compensation %1: another run sent a call meanwhile; look again with "
                                         "`triagectl compensations --key %2`").arg(compKey, row.sourceKey);
            auto now = intentDb.run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); })
                           .result();
            if (now.ok() && *now.value)
                out.row = **now.value;
            return out;
        }
        const HttpResult r = m_http->send(req.method, req.url, req.headers + auth, req.body, req.timeoutMs).result();
        QString cls = classifySend(r);
        recordAttempt(std::max<qint64>(*begun.value, 0), QStringLiteral("send"), r, cls);
        notes << QStringLiteral("call: %1%2").arg(cls, r.gotResponse ? QStringLiteral(" (HTTP %1)").arg(r.status)
                                                                      : QStringLiteral(" (%1)").arg(r.error));
        if (cls == QLatin1String("SUCCEEDED")) {
            final = cls;
            response = r.body;
        } else if (cls == QLatin1String("REFUSED") && !earlierCalls) {
            final = QStringLiteral("FAILED");
            response = r.body;
            lastError = QStringLiteral("refused by the upstream (HTTP %1)").arg(r.status);
        } else {
            // Timeout, reset, 5xx, HTML, or a refusal after an earlier call that may have
            // worked: the side effect may exist. Never FAILED; ask the upstream.
            final = QStringLiteral("UNKNOWN");
            lastError = r.gotResponse ? QStringLiteral("HTTP %1: %2").arg(r.status).arg(preview(r.body).left(200)) : r.error;
            if (confirm() == QLatin1String("CONFIRMED")) {
                final = QStringLiteral("SUCCEEDED");
                lastError.clear();
            }
        }
    }
    if (final != row.status || send) {
        auto st = setStatus(final, lastError, response);
        if (!st.ok())
            return dbFailure(*st.error, compKey);
    }
    auto reread = intentDb
                      .run<std::optional<CompensationRow>>([compKey](DbSession &s) { return compensation_sql::byKey(s, compKey); })
                      .result();
    if (reread.ok() && *reread.value)
        out.row = **reread.value;
    auto hist = intentDb.run<QVector<CompensationAttemptRow>>([compKey](DbSession &s) { return compensation_sql::attempts(s, compKey); })
                    .result();
    if (hist.ok())
        out.history = *hist.value;

    if (final == QLatin1String("SUCCEEDED")) {
        out.kind = K::Succeeded;
        bool ok = false;
        const qint64 id = row.target.toLongLong(&ok);
        const QString source = row.sourceKey;
        auto tickets = m_workspace.worker(DbRole::Ticket)
                           .run<QVector<TicketRow>>([source](DbSession &s) { return detail_sql::readTickets(s, source); })
                           .result();
        if (tickets.ok())
            for (const TicketRow &t : *tickets.value)
                if (ok && t.id == id)
                    out.ticketAfter = t;
    } else if (final == QLatin1String("FAILED")) {
        out.kind = K::Failed;
    } else {
        out.kind = K::Unknown;
    }
    out.message = QStringLiteral("compensation %1: %2 (%3)").arg(compKey, final, notes.join(QStringLiteral("; ")));

    // Audit (idempotency database). A failure here does not undo the compensation.
    AuditEntry a;
    a.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    a.operatorName = operatorName.left(64);
    a.host = auditHostName();
    a.action = QString::fromUtf16(resumed ? audit_action::CompensateResume : audit_action::Compensate);
    a.idemKey = row.sourceKey;
    a.fromState = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), compKey},
                                                              {QStringLiteral("status"), row.status}})
                                        .toJson(QJsonDocument::Compact));
    a.toState = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("comp_key"), compKey},
                                                            {QStringLiteral("status"), final},
                                                            {QStringLiteral("target"), ticketIdJson(row.target)},
                                                            {QStringLiteral("action"), row.action}})
                                      .toJson(QJsonDocument::Compact));
    a.reason = row.reason.isEmpty() ? QStringLiteral("compensation") : row.reason.left(1000);
    QJsonObject evidence{{QStringLiteral("comp_key"), compKey},
                         {QStringLiteral("attempts"), out.row ? out.row->attempts : row.attempts},
                         {QStringLiteral("notes"), QJsonArray::fromStringList(notes)}};
    if (!overridden.isEmpty())
        evidence.insert(QStringLiteral("override"), overridden);
    a.evidence = QString::fromUtf8(QJsonDocument(evidence).toJson(QJsonDocument::Compact));
    a.outcome = final == QLatin1String("SUCCEEDED") ? QStringLiteral("applied")
        : final == QLatin1String("FAILED")          ? QStringLiteral("refused")
                                                    : QStringLiteral("error");
    a.detail = out.message;
    auto audited = m_workspace.worker(DbRole::Idempotency)
                       .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never)
                       .result();
    if (!audited.ok())
        logger("backend.compensation")->warn("compensation {}: audit row not written: {}", compKey.toStdString(),
                                             audited.error->message.toStdString());
    return out;
}

} // namespace triage
