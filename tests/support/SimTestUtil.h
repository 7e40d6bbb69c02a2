#pragma once

// Helpers shared by the upstream tests: a ticket database with rows inserted by plain SQL
// (not the console's code), the simulator process, and its control API.
#include "TestDatabases.h"

#include "Schema.h"
#include "UpstreamConfig.h"
#include "UpstreamSimulatorProcess.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>

namespace triage::test {

/// Creates the schema without the ticket backstop (duplicate keys must be insertable).
/// Returns the error text, empty on success.
inline QString createSchemaWithoutBackstop(const TestDatabase &db)
{
    Workspace ws(db.config());
    SchemaOptions o;
    o.ticketBackstop = false;
    const auto r = initSchema(ws, o).result();
    return r.ok() ? QString() : r.error->message;
}

/// Escapes a SQL string literal's quotes (test data only).
inline QString sqlText(const QString &s)
{
    QString t = s;
    t.replace(QLatin1Char('\''), QStringLiteral("''"));
    return QLatin1Char('\'') + t + QLatin1Char('\'');
}

/// Inserts a ticket row. `payload` empty = NULL. Returns the admin error text.
inline QString insertTicketRow(const TestDatabase &db, qint64 id, const QString &key, const QString &payload,
                               const QString &status = QStringLiteral("OPEN"))
{
    return db.adminExec(QStringLiteral("INSERT INTO ticket (id, idem_key, tenant_id, title, status, payload) "
                                       "VALUES (%1, %2, 'acme', 'VPN outage', %3, %4)")
                            .arg(id)
                            .arg(sqlText(key), sqlText(status), payload.isEmpty() ? QStringLiteral("NULL") : sqlText(payload)));
}

/// The simulator's control API (/_sim/*), driven synchronously from the test thread.
class SimControl {
public:
    explicit SimControl(const QUrl &base) : m_base(base) {}

    /// Sends one request and waits for the answer (test code may spin the event loop).
    QByteArray call(const QByteArray &method, const QString &path, const QByteArray &body = {}, int *status = nullptr)
    {
        QNetworkRequest req(m_base.resolved(QUrl(path)));
        req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        req.setTransferTimeout(10000);
        QNetworkReply *reply = m_nam.sendCustomRequest(req, method, body);
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(15000);
        if (status)
            *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray out = reply->readAll();
        reply->deleteLater();
        return out;
    }
    QJsonObject json(const QByteArray &method, const QString &path, const QByteArray &body = {}, int *status = nullptr)
    {
        return QJsonDocument::fromJson(call(method, path, body, status)).object();
    }
    /// Adds a fault; returns its id (0 on failure).
    int fault(const QString &route, const QString &fault, int delayMs = 0, int count = -1, const QString &method = {})
    {
        QJsonObject o{{QStringLiteral("route"), route}, {QStringLiteral("fault"), fault}};
        if (delayMs > 0)
            o.insert(QStringLiteral("delay_ms"), delayMs);
        if (count > 0)
            o.insert(QStringLiteral("count"), count);
        if (!method.isEmpty())
            o.insert(QStringLiteral("method"), method);
        return json("POST", QStringLiteral("/_sim/faults"), QJsonDocument(o).toJson()).value(QStringLiteral("id")).toInt();
    }
    void clearFaults() { call("DELETE", QStringLiteral("/_sim/faults")); }
    void reset() { call("POST", QStringLiteral("/_sim/reset")); }
    QJsonObject stats() { return json("GET", QStringLiteral("/_sim/stats")); }
    QJsonArray requests() { return json("GET", QStringLiteral("/_sim/requests")).value(QStringLiteral("requests")).toArray(); }

private:
    QUrl m_base;
    QNetworkAccessManager m_nam;
};

/// An "empty result" upstream on the simulator: GET /tickets?idem_key={idem_key}.
inline UpstreamConfig listConfig(const QUrl &base, int timeoutMs = 2000)
{
    UpstreamConfig c;
    c.bizType = QStringLiteral("ticket_create");
    c.baseUrl = base.toString();
    c.queryUrl = QStringLiteral("/tickets?idem_key={idem_key}");
    c.notFound = NotFoundSignal::EmptyResult;
    c.resultPath = QStringLiteral("tickets");
    c.timeoutMs = timeoutMs;
    return c;
}

/// A "404" upstream on the simulator: GET /tickets/{ticket_id}.
inline UpstreamConfig byIdConfig(const QUrl &base, int timeoutMs = 2000)
{
    UpstreamConfig c = listConfig(base, timeoutMs);
    c.queryUrl = QStringLiteral("/tickets/{ticket_id}");
    c.notFound = NotFoundSignal::Http404;
    c.resultPath.clear();
    return c;
}

} // namespace triage::test
