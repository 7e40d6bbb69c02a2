#pragma once

#include "BusinessId.h"
#include "DbWorker.h"
#include "WorkspaceConfig.h"

#include <QAbstractHttpServer>
#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QPointer>
#include <QTcpSocket>
#include <QUrlQuery>
#include <QVector>

#include <memory>
#include <optional>

class QHttpServerResponder;

namespace triage::sim {

/// The upstream simulator's HTTP side (app/upstream-sim, `triage-upstream-sim`): a ticket query
/// API over a ticket database, compensation endpoints, a request log and fault injection.
/// Subclasses QAbstractHttpServer directly (QHttpServer 6.4 is a technical preview) and
/// dispatches every request itself. SQL runs on a DbWorker thread; replies are written
/// from the server's thread once the worker's future resolves.
///
/// API (JSON bodies, UTF-8):
/// - GET  /tickets?idem_key=K      → 200 {"tickets":[…]} (empty array when none)
/// - GET  /tickets/{id}            → 200 {ticket} or 404 {"error":"not_found"}
/// - POST /tickets/{id}/cancel     → 200 {"ticket":{…},"previous_status":"OPEN"} (status
///   set to CANCELLED); 404 when no such ticket. X-Idempotency-Key: the same key replays
///   the stored reply with no second side effect (header Idempotent-Replayed: true); a
///   key reused for another ticket → 422; a key still being processed → 409.
/// Control (never faulted, never recorded):
/// - GET /_sim/requests, POST /_sim/reset, GET /_sim/stats,
/// - POST /_sim/faults {"route","fault","delay_ms","count","method"} → 201 {"id":n},
///   DELETE /_sim/faults, POST /_sim/release → {"released":n} (answers every call held by
///   the "hold" fault; GET /_sim/stats counts them as "held").
/// Faults besides the HTTP ones: "other_key" answers GET /tickets?idem_key=K with one
/// ticket of key "K-SOMEONE-ELSE" (an upstream answering for another key); "hold" keeps
/// the call unanswered until POST /_sim/release (a test's synchronisation point).
/// A ticket object is {"id","idem_key","tenant_id","title","status","payload",
/// "created_at","updated_at"}; `payload` is embedded as raw JSON text when it is JSON (so
/// big numbers travel byte-exact), else as a string.
class UpstreamSim : public QAbstractHttpServer {
    Q_OBJECT
public:
    /// `tickets` must outlive the server. `idempotency` false = --no-idempotency. The
    /// ticket table has the default schema's names.
    UpstreamSim(DbWorker *tickets, bool idempotency, QObject *parent = nullptr);
    /// Same, over the ticket table `schema.tickets` describes (its [ticket.map], DESIGN.md
    /// §10): names, status spellings (a cancel writes the first CANCELLED spelling; statuses
    /// are served in the console's spelling), time encoding.
    UpstreamSim(DbWorker *tickets, bool idempotency, const SchemaMap &schema, QObject *parent = nullptr);

    /// Fault names accepted by POST /_sim/faults.
    static const QStringList &faultNames();

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Fault {
        int id = 0;
        QString route;      ///< "/tickets", "/tickets/{id}", "/tickets/*/cancel", or "*"
        QByteArray method;  ///< empty: any
        QString kind;
        int delayMs = 0;
        int remaining = -1; ///< -1: unlimited
    };
    struct Call {
        quint64 seq = 0;
        QByteArray method;
        QString path;
        QUrlQuery query;
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray body;
        std::optional<Fault> fault;
        std::shared_ptr<QHttpServerResponder> responder;
        QPointer<QTcpSocket> socket;
        bool done = false;
        QMetaObject::Connection socketGone;
    };
    using CallPtr = std::shared_ptr<Call>;
    struct StoredReply {
        QString target;
        bool inProgress = true;
        int status = 0;
        QByteArray body;
    };

    void handleControl(const CallPtr &call);
    void dispatch(const CallPtr &call);
    void route(const CallPtr &call);
    void cancelTicket(const CallPtr &call, const BusinessId &id);
    /// Writes a complete reply, or applies the call's truncated / commit_then_drop fault.
    void respond(const CallPtr &call, int status, const QByteArray &contentType, const QByteArray &body,
                 const QList<QPair<QByteArray, QByteArray>> &extra = {});
    void respondJson(const CallPtr &call, int status, const QByteArray &json,
                     const QList<QPair<QByteArray, QByteArray>> &extra = {})
    {
        respond(call, status, "application/json", json, extra);
    }
    void drop(const CallPtr &call);
    void finish(const CallPtr &call);
    bool writable(const CallPtr &call) const;
    /// Finishes calls whose client left. QAbstractHttpServer 6.4 may drop our signal
    /// connections on a socket (it calls QObject::disconnect() on parse failures), so the
    /// QPointer is checked instead of relying on `disconnected`.
    void sweep();
    std::optional<Fault> takeFault(const QByteArray &method, const QString &path);

    DbWorker *m_tickets;
    bool m_idempotency;
    WorkspaceConfig m_config; ///< only its schema mapping is used
    quint64 m_seq = 0;
    int m_inFlight = 0;
    int m_peakInFlight = 0;
    QVector<QJsonObject> m_requests;
    QList<CallPtr> m_pending; ///< API calls not yet answered (kept alive until finished)
    QList<CallPtr> m_held;    ///< calls held by the "hold" fault until POST /_sim/release
    QVector<Fault> m_faults;
    int m_nextFaultId = 1;
    QHash<QString, StoredReply> m_replies;  ///< by X-Idempotency-Key
    QMap<QString, int> m_sideEffects;       ///< ticket id → cancels executed
};

} // namespace triage::sim
