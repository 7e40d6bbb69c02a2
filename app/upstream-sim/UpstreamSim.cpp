#include "UpstreamSim.h"

#include "BusinessIdSql.h"
#include "KeyDetail.h"
#include "SqlBuilder.h"
#include "TimeText.h"
#include "WhenReady.h"

#include <QDateTime>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSqlQuery>
#include <QTimer>

namespace triage::sim {

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

QByteArray methodName(QHttpServerRequest::Method m)
{
    switch (m) {
    case QHttpServerRequest::Method::Get: return "GET";
    case QHttpServerRequest::Method::Put: return "PUT";
    case QHttpServerRequest::Method::Delete: return "DELETE";
    case QHttpServerRequest::Method::Post: return "POST";
    case QHttpServerRequest::Method::Head: return "HEAD";
    case QHttpServerRequest::Method::Options: return "OPTIONS";
    case QHttpServerRequest::Method::Patch: return "PATCH";
    case QHttpServerRequest::Method::Connect: return "CONNECT";
    case QHttpServerRequest::Method::Trace: return "TRACE";
    default: return "UNKNOWN";
    }
}

/// A JSON string literal for `s` (exact: strings are never altered by the writer).
QByteArray jsonString(const QString &s)
{
    const QByteArray a = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    return a.mid(1, a.size() - 2);
}

QByteArray jsonText(const std::optional<QString> &s)
{
    return s ? jsonString(*s) : QByteArray("null");
}

/// The payload as raw JSON when it is a JSON object or array (byte-exact), else a string.
QByteArray payloadJson(const std::optional<QString> &p)
{
    if (!p)
        return "null";
    const QByteArray utf8 = p->toUtf8().trimmed();
    QJsonParseError err{};
    const QJsonDocument d = QJsonDocument::fromJson(utf8, &err);
    if (err.error == QJsonParseError::NoError && (d.isObject() || d.isArray()))
        return utf8;
    return jsonString(*p);
}

QByteArray ticketJson(const TicketRow &t)
{
    // The id as every output spells it (BusinessId::toJson()): a number for an integer id.
    QByteArray out = "{\"id\":" + QJsonDocument(QJsonArray{t.id.toJson()}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    out += ",\"idem_key\":" + jsonText(t.idemKey);
    out += ",\"tenant_id\":" + jsonText(t.tenantId);
    out += ",\"title\":" + jsonText(t.title);
    out += ",\"status\":" + jsonText(t.status);
    out += ",\"payload\":" + payloadJson(t.payload);
    out += ",\"created_at\":" + jsonString(t.createdAt);
    out += ",\"updated_at\":" + jsonString(t.updatedAt);
    out += '}';
    return out;
}

QByteArray errorJson(const QString &code, const QString &message = {})
{
    QByteArray out = "{\"error\":" + jsonString(code);
    if (!message.isEmpty())
        out += ",\"message\":" + jsonString(message);
    return out + '}';
}

std::optional<QString> textOf(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    if (v.metaType().id() == QMetaType::QByteArray)
        return QString::fromUtf8(v.toByteArray());
    return v.toString();
}

/// The ticket with business id `id`, read through the mapping (as detail_sql::readTickets()).
std::optional<TicketRow> readTicketById(DbSession &session, const WorkspaceConfig &config, const BusinessId &id)
{
    const TicketSql ts = config.tickets(session.dialect().kind());
    const auto value = businessIdBindValue(session, ts.table, ts.id, id);
    if (!value)
        return std::nullopt; // no row of the id column can hold this id
    SqlBuilder b;
    const QStringList columns{ts.idText(), ts.key, ts.tenantOrNull(), ts.titleOrNull(), ts.statuses.read(ts.status), ts.payload,
                              ts.time.text(ts.createdAt), ts.updatedAtTextOrNull()};
    QSqlQuery q = session.exec(
        QStringLiteral("SELECT %1 FROM %2 WHERE %3 = %4").arg(columns.join(QStringLiteral(", ")), ts.table, ts.id, b.bind(*value)), b);
    if (!q.next())
        return std::nullopt;
    TicketRow t;
    t.id = BusinessId::fromColumn(q.value(0));
    t.idemKey = textOf(q.value(1));
    t.tenantId = textOf(q.value(2));
    t.title = textOf(q.value(3));
    t.status = ts.statusName(q.value(4));
    t.payload = textOf(q.value(5));
    t.createdAt = canonicalTimeText(q.value(6));
    t.updatedAt = canonicalTimeText(q.value(7));
    return t;
}

struct CancelResult {
    bool found = false;
    QString previousStatus;
    TicketRow after;
};

CancelResult cancelInDb(DbSession &session, const WorkspaceConfig &config, const BusinessId &id)
{
    const TicketSql ts = config.tickets(session.dialect().kind());
    CancelResult r;
    session.begin();
    try {
        const auto before = readTicketById(session, config, id);
        if (!before) {
            session.rollback();
            return r;
        }
        SqlBuilder b;
        QString set = QStringLiteral("%1 = %2").arg(ts.status, ts.statuses.write(b, QStringLiteral("CANCELLED")));
        if (!ts.updatedAt.isEmpty())
            set += QStringLiteral(", %1 = %2").arg(ts.updatedAt, ts.time.nowValue());
        session.exec(QStringLiteral("UPDATE %1 SET %2 WHERE %3 = %4")
                         .arg(ts.table, set, ts.id, b.bind(*businessIdBindValue(session, ts.table, ts.id, id))),
                     b);
        session.commit();
        r.found = true;
        r.previousStatus = before->status.value_or(QStringLiteral("NULL"));
    } catch (...) {
        session.rollback();
        throw;
    }
    if (auto after = readTicketById(session, config, id))
        r.after = *after;
    return r;
}

bool routeMatches(const QString &pattern, const QString &path)
{
    if (pattern == QLatin1String("*"))
        return true;
    const QStringList ps = pattern.split(QLatin1Char('/'));
    const QStringList xs = path.split(QLatin1Char('/'));
    if (ps.size() != xs.size())
        return false;
    for (qsizetype i = 0; i < ps.size(); ++i) {
        const QString &p = ps.at(i);
        if (p == QLatin1String("*") || (p.startsWith(QLatin1Char('{')) && p.endsWith(QLatin1Char('}'))))
            continue;
        if (p != xs.at(i))
            return false;
    }
    return true;
}

QByteArray header(const Headers &headers, const QByteArray &name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

QString nowText()
{
    return formatUtcMicros(QDateTime::currentDateTimeUtc().toMSecsSinceEpoch() * 1000);
}

} // namespace

const QStringList &UpstreamSim::faultNames()
{
    static const QStringList names{
        QStringLiteral("delay"),    QStringLiteral("stall_after_headers"), QStringLiteral("drop"),
        QStringLiteral("http_500"), QStringLiteral("http_503"),            QStringLiteral("http_401"),
        QStringLiteral("http_403"), QStringLiteral("http_429"),            QStringLiteral("html"),
        QStringLiteral("html_404"), QStringLiteral("truncated"),           QStringLiteral("invalid_json"),
        QStringLiteral("commit_then_drop"), QStringLiteral("http_422"),      QStringLiteral("other_key"),
        QStringLiteral("hold"),
    };
    return names;
}

UpstreamSim::UpstreamSim(DbWorker *tickets, bool idempotency, QObject *parent)
    : UpstreamSim(tickets, idempotency, SchemaMap::defaults(), parent)
{
}

UpstreamSim::UpstreamSim(DbWorker *tickets, bool idempotency, const SchemaMap &schema, QObject *parent)
    : QAbstractHttpServer(parent), m_tickets(tickets), m_idempotency(idempotency)
{
    m_config.schema = schema;
}

void UpstreamSim::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    QHttpServerResponder r = makeResponder(request, socket);
    r.write(errorJson(QStringLiteral("no_route")), "application/json", QHttpServerResponder::StatusCode::NotFound);
}

bool UpstreamSim::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    auto call = std::make_shared<Call>();
    call->method = methodName(request.method());
    call->path = request.url().path();
    call->query = request.query();
    call->headers = request.headers();
    call->body = request.body();
    call->responder = std::make_shared<QHttpServerResponder>(makeResponder(request, socket));
    call->socket = socket;

    if (call->path == QLatin1String("/_sim") || call->path.startsWith(QLatin1String("/_sim/"))) {
        call->done = true; // control requests are not counted in flight
        handleControl(call);
        return true;
    }

    call->seq = ++m_seq;
    call->fault = takeFault(call->method, call->path);
    QJsonObject rec;
    rec.insert(QStringLiteral("seq"), qint64(call->seq));
    rec.insert(QStringLiteral("method"), QString::fromLatin1(call->method));
    rec.insert(QStringLiteral("path"), call->path);
    rec.insert(QStringLiteral("query"), call->query.toString(QUrl::FullyEncoded));
    QJsonArray headers;
    for (const auto &h : call->headers)
        headers.append(QJsonArray{QString::fromLatin1(h.first), QString::fromUtf8(h.second)});
    rec.insert(QStringLiteral("headers"), headers);
    rec.insert(QStringLiteral("body"), QString::fromUtf8(call->body));
    rec.insert(QStringLiteral("time"), nowText());
    rec.insert(QStringLiteral("fault"), call->fault ? QJsonValue(call->fault->kind) : QJsonValue());
    m_requests.append(rec);

    sweep();
    ++m_inFlight;
    m_peakInFlight = std::max(m_peakInFlight, m_inFlight);
    m_pending.append(call);
    std::weak_ptr<Call> weak = call;
    call->socketGone = connect(socket, &QAbstractSocket::disconnected, this, [this, weak]() {
        if (auto c = weak.lock())
            finish(c);
    });

    const int delay = call->fault ? call->fault->delayMs : 0;
    if (call->fault && call->fault->kind == QLatin1String("hold"))
        m_held.append(call); // answered after POST /_sim/release
    else if (delay > 0)
        QTimer::singleShot(delay, this, [this, call]() { dispatch(call); });
    else
        dispatch(call);
    return true;
}

std::optional<UpstreamSim::Fault> UpstreamSim::takeFault(const QByteArray &method, const QString &path)
{
    for (qsizetype i = 0; i < m_faults.size(); ++i) {
        Fault &f = m_faults[i];
        if (!f.method.isEmpty() && f.method != method)
            continue;
        if (!routeMatches(f.route, path))
            continue;
        Fault taken = f;
        if (f.remaining > 0 && --f.remaining == 0)
            m_faults.removeAt(i);
        return taken;
    }
    return std::nullopt;
}

bool UpstreamSim::writable(const CallPtr &call) const
{
    return call->socket && call->socket->state() == QAbstractSocket::ConnectedState;
}

void UpstreamSim::sweep()
{
    for (qsizetype i = m_pending.size() - 1; i >= 0; --i) {
        const CallPtr c = m_pending.at(i);
        if (!c->done && writable(c))
            continue;
        finish(c);
        m_pending.removeAt(i);
    }
}

void UpstreamSim::finish(const CallPtr &call)
{
    if (call->done)
        return;
    call->done = true;
    disconnect(call->socketGone);
    --m_inFlight;
}

void UpstreamSim::drop(const CallPtr &call)
{
    if (call->socket)
        call->socket->abort();
    finish(call);
}

void UpstreamSim::respond(const CallPtr &call, int status, const QByteArray &contentType, const QByteArray &body,
                          const Headers &extra)
{
    if (!writable(call)) {
        // The client left (e.g. its deadline passed): a late write would hit a dead socket.
        finish(call);
        return;
    }
    const QString fault = call->fault ? call->fault->kind : QString();
    if (fault == QLatin1String("commit_then_drop")) {
        drop(call); // the work is done; the answer is lost
        return;
    }
    QHttpServerResponder &r = *call->responder;
    r.writeStatusLine(QHttpServerResponder::StatusCode(status));
    r.writeHeader("Content-Type", contentType);
    r.writeHeader("Content-Length", QByteArray::number(body.size()));
    for (const auto &h : extra)
        r.writeHeader(h.first, h.second);
    if (fault == QLatin1String("truncated")) {
        r.writeBody(body.left(body.size() / 2));
        call->socket->flush();
        call->socket->disconnectFromHost();
        finish(call);
        return;
    }
    r.writeBody(body);
    finish(call);
}

void UpstreamSim::dispatch(const CallPtr &call)
{
    if (!writable(call)) {
        finish(call);
        return;
    }
    const QString fault = call->fault ? call->fault->kind : QString();
    if (fault.isEmpty() || fault == QLatin1String("delay") || fault == QLatin1String("truncated")
        || fault == QLatin1String("commit_then_drop") || fault == QLatin1String("hold")) {
        route(call);
    } else if (fault == QLatin1String("other_key")) {
        // An upstream that answers for another key (a filter it ignores, a wrong mapping).
        const QString key = call->query.queryItemValue(QStringLiteral("idem_key"), QUrl::FullyDecoded);
        respondJson(call, 200,
                    "{\"tickets\":[{\"id\":777,\"idem_key\":" + jsonText(key + QStringLiteral("-SOMEONE-ELSE")) + "}]}");
    } else if (fault == QLatin1String("drop")) {
        drop(call);
    } else if (fault == QLatin1String("stall_after_headers")) {
        // A status line and headers announcing a body that never comes; the call stays in
        // flight until the client gives up and closes the connection.
        QHttpServerResponder &r = *call->responder;
        r.writeStatusLine(QHttpServerResponder::StatusCode::Ok);
        r.writeHeader("Content-Type", "application/json");
        r.writeHeader("Content-Length", "4096");
        r.writeBody("");
        call->socket->flush();
    } else if (fault == QLatin1String("http_500")) {
        respondJson(call, 500, errorJson(QStringLiteral("internal_error")));
    } else if (fault == QLatin1String("http_503")) {
        respondJson(call, 503, errorJson(QStringLiteral("service_unavailable")), {{"Retry-After", "1"}});
    } else if (fault == QLatin1String("http_401")) {
        respondJson(call, 401, errorJson(QStringLiteral("unauthorized")));
    } else if (fault == QLatin1String("http_403")) {
        respondJson(call, 403, errorJson(QStringLiteral("forbidden")));
    } else if (fault == QLatin1String("http_429")) {
        respondJson(call, 429, errorJson(QStringLiteral("rate_limited")), {{"Retry-After", "2"}});
    } else if (fault == QLatin1String("http_422")) {
        // An explicit business refusal with no side effect (the upstream's own JSON).
        respondJson(call, 422, errorJson(QStringLiteral("not_cancellable"), QStringLiteral("refused by business rule")));
    } else if (fault == QLatin1String("html")) {
        respond(call, 200, "text/html; charset=utf-8",
                "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><h1>Single sign-on</h1>"
                "<p>Your session has expired. Please sign in again to continue to the ticket service.</p>"
                "<form method=\"post\" action=\"/login\"><input name=\"user\"><input type=\"password\" name=\"pw\"></form>"
                "</body></html>\n");
    } else if (fault == QLatin1String("html_404")) {
        respond(call, 404, "text/html",
                "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n"
                "<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n");
    } else if (fault == QLatin1String("invalid_json")) {
        respondJson(call, 200, "{\"tickets\": [ {\"id\": 1, \"idem_key\": 'not json' } ] }");
    } else {
        respondJson(call, 500, errorJson(QStringLiteral("unknown_fault"), fault));
    }
}

void UpstreamSim::route(const CallPtr &call)
{
    const QStringList parts = call->path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (parts.value(0) != QLatin1String("tickets")) {
        respondJson(call, 404, errorJson(QStringLiteral("no_route")));
        return;
    }
    if (parts.size() == 1) {
        if (call->method != "GET") {
            respondJson(call, 405, errorJson(QStringLiteral("method_not_allowed")));
            return;
        }
        if (!call->query.hasQueryItem(QStringLiteral("idem_key"))) {
            respondJson(call, 400, errorJson(QStringLiteral("bad_request"), QStringLiteral("idem_key is required")));
            return;
        }
        const QString key = call->query.queryItemValue(QStringLiteral("idem_key"), QUrl::FullyDecoded);
        whenReady(m_tickets->run<QVector<TicketRow>>([key, config = m_config](DbSession &s) { return detail_sql::readTickets(s, config, key); }),
            this, [this, call](const Outcome<QVector<TicketRow>> &o) {
                if (!o.ok()) {
                    respondJson(call, 503, errorJson(QStringLiteral("ticket_store_unavailable"), o.error->message));
                    return;
                }
                QByteArray body = "{\"tickets\":[";
                for (qsizetype i = 0; i < o->size(); ++i) {
                    if (i)
                        body += ',';
                    body += ticketJson(o->at(i));
                }
                body += "]}";
                respondJson(call, 200, body);
            });
        return;
    }
    const BusinessId id(parts.at(1)); // opaque: the path segment as given
    if (id.isEmpty()) {
        respondJson(call, 404, errorJson(QStringLiteral("not_found")));
        return;
    }
    if (parts.size() == 2) {
        if (call->method != "GET") {
            respondJson(call, 405, errorJson(QStringLiteral("method_not_allowed")));
            return;
        }
        whenReady(m_tickets->run<std::optional<TicketRow>>([id, config = m_config](DbSession &s) { return readTicketById(s, config, id); }),
            this, [this, call](const Outcome<std::optional<TicketRow>> &o) {
                if (!o.ok())
                    respondJson(call, 503, errorJson(QStringLiteral("ticket_store_unavailable"), o.error->message));
                else if (!*o.value)
                    respondJson(call, 404, errorJson(QStringLiteral("not_found")));
                else
                    respondJson(call, 200, ticketJson(**o.value));
            });
        return;
    }
    if (parts.size() == 3 && parts.at(2) == QLatin1String("cancel")) {
        if (call->method != "POST") {
            respondJson(call, 405, errorJson(QStringLiteral("method_not_allowed")));
            return;
        }
        cancelTicket(call, id);
        return;
    }
    respondJson(call, 404, errorJson(QStringLiteral("no_route")));
}

void UpstreamSim::cancelTicket(const CallPtr &call, const BusinessId &id)
{
    const QString target = id.text();
    const QString key = m_idempotency ? QString::fromUtf8(header(call->headers, "x-idempotency-key")).trimmed() : QString();
    if (!key.isEmpty()) {
        auto it = m_replies.find(key);
        if (it != m_replies.end()) {
            if (it->target != target)
                respondJson(call, 422, errorJson(QStringLiteral("idempotency_key_reused"),
                                                 QStringLiteral("key was used for ticket %1").arg(it->target)));
            else if (it->inProgress)
                respondJson(call, 409, errorJson(QStringLiteral("request_in_progress")));
            else
                respondJson(call, it->status, it->body, {{"Idempotent-Replayed", "true"}});
            return;
        }
        m_replies.insert(key, StoredReply{target, true, 0, {}});
    }
    whenReady(m_tickets->run<CancelResult>([id, config = m_config](DbSession &s) { return cancelInDb(s, config, id); }, DbWorker::Retry::Never),
        this, [this, call, key, target](const Outcome<CancelResult> &o) {
            if (!o.ok()) {
                m_replies.remove(key);
                respondJson(call, 503, errorJson(QStringLiteral("ticket_store_unavailable"), o.error->message));
                return;
            }
            int status = 404;
            QByteArray body = errorJson(QStringLiteral("not_found"));
            if (o->found) {
                ++m_sideEffects[target];
                status = 200;
                body = "{\"ticket\":" + ticketJson(o->after) + ",\"previous_status\":" + jsonString(o->previousStatus) + '}';
            }
            if (!key.isEmpty()) {
                StoredReply &r = m_replies[key];
                r.inProgress = false;
                r.status = status;
                r.body = body;
            }
            respondJson(call, status, body);
        });
}

void UpstreamSim::handleControl(const CallPtr &call)
{
    const QString what = call->path.mid(QStringLiteral("/_sim/").size());
    auto json = [](const QJsonObject &o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); };
    if (what == QLatin1String("requests") && call->method == "GET") {
        QJsonArray a;
        for (const QJsonObject &r : std::as_const(m_requests))
            a.append(r);
        respondJson(call, 200, json(QJsonObject{{QStringLiteral("requests"), a}}));
    } else if (what == QLatin1String("reset") && call->method == "POST") {
        m_requests.clear();
        m_faults.clear();
        m_replies.clear();
        m_sideEffects.clear();
        m_held.clear();
        sweep();
        m_peakInFlight = m_inFlight;
        respondJson(call, 200, json(QJsonObject{{QStringLiteral("ok"), true}}));
    } else if (what == QLatin1String("stats") && call->method == "GET") {
        sweep();
        QJsonObject effects;
        for (auto it = m_sideEffects.cbegin(); it != m_sideEffects.cend(); ++it)
            effects.insert(it.key(), it.value());
        QJsonArray faults;
        for (const Fault &f : std::as_const(m_faults))
            faults.append(QJsonObject{{QStringLiteral("id"), f.id},
                                      {QStringLiteral("route"), f.route},
                                      {QStringLiteral("method"), QString::fromLatin1(f.method)},
                                      {QStringLiteral("fault"), f.kind},
                                      {QStringLiteral("delay_ms"), f.delayMs},
                                      {QStringLiteral("remaining"), f.remaining}});
        respondJson(call, 200,
                    json(QJsonObject{{QStringLiteral("requests"), qint64(m_requests.size())},
                                     {QStringLiteral("in_flight"), m_inFlight},
                                     {QStringLiteral("peak_in_flight"), m_peakInFlight},
                                     {QStringLiteral("side_effects"), effects},
                                     {QStringLiteral("faults"), faults},
                                     {QStringLiteral("held"), qint64(m_held.size())},
                                     {QStringLiteral("idempotency"), m_idempotency}}));
    } else if (what == QLatin1String("faults") && call->method == "POST") {
        QJsonParseError err{};
        const QJsonDocument d = QJsonDocument::fromJson(call->body, &err);
        const QJsonObject o = d.object();
        Fault f;
        f.route = o.value(QStringLiteral("route")).toString();
        f.kind = o.value(QStringLiteral("fault")).toString();
        f.method = o.value(QStringLiteral("method")).toString().toUpper().toLatin1();
        f.delayMs = o.value(QStringLiteral("delay_ms")).toInt(0);
        f.remaining = o.contains(QStringLiteral("count")) ? o.value(QStringLiteral("count")).toInt(-1) : -1;
        QString problem;
        if (err.error != QJsonParseError::NoError || !d.isObject())
            problem = QStringLiteral("body must be a JSON object");
        else if (f.route.isEmpty() || (f.route != QLatin1String("*") && !f.route.startsWith(QLatin1Char('/'))))
            problem = QStringLiteral("route must be a path (\"/tickets\", \"/tickets/{id}\") or \"*\"");
        else if (!faultNames().contains(f.kind))
            problem = QStringLiteral("fault must be one of: ") + faultNames().join(QStringLiteral(", "));
        else if (f.delayMs < 0 || (f.kind == QLatin1String("delay") && f.delayMs == 0))
            problem = QStringLiteral("delay_ms must be a positive number of milliseconds");
        else if (f.remaining == 0 || f.remaining < -1)
            problem = QStringLiteral("count must be a positive number (omit it for unlimited)");
        if (!problem.isEmpty()) {
            respondJson(call, 400, errorJson(QStringLiteral("bad_fault"), problem));
            return;
        }
        f.id = m_nextFaultId++;
        m_faults.append(f);
        respondJson(call, 201, json(QJsonObject{{QStringLiteral("id"), f.id}}));
    } else if (what == QLatin1String("release") && call->method == "POST") {
        const QList<CallPtr> held = std::exchange(m_held, {});
        for (const CallPtr &c : held)
            dispatch(c);
        respondJson(call, 200, json(QJsonObject{{QStringLiteral("released"), qint64(held.size())}}));
    } else if (what == QLatin1String("faults") && call->method == "DELETE") {
        const qsizetype n = m_faults.size();
        m_faults.clear();
        respondJson(call, 200, json(QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("removed"), qint64(n)}}));
    } else {
        respondJson(call, 404, errorJson(QStringLiteral("no_route")));
    }
}

} // namespace triage::sim
