#pragma once

#include "CompensationReply.h"

#include <QByteArray>
#include <QFuture>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

class QNetworkAccessManager;

namespace triage {

/// The network side of compensations (compensation feature): lives on a thread of its own
/// with an event loop (CompensationRunner's), owns its QNetworkAccessManager and sends one
/// request per call with a deadline of its own (`timeoutMs`, also the transfer timeout; a
/// deadline that fires is the error "timeout", never a cancel).
class CompensationHttp : public QObject {
public:
    /// Sends `method url` with `headers` and `body`. Callable from any thread; the future
    /// resolves once, on this object's thread.
    QFuture<CompensationHttpResult> send(const QByteArray &method, const QString &url,
                                         const QList<QPair<QByteArray, QByteArray>> &headers, const QByteArray &body,
                                         int timeoutMs);

private:
    QNetworkAccessManager *m_nam = nullptr;
};

} // namespace triage
