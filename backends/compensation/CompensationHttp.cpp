#include "CompensationHttp.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPromise>
#include <QTimer>

#include <memory>

namespace triage {

QFuture<CompensationHttpResult> CompensationHttp::send(const QByteArray &method, const QString &url,
                                                       const QList<QPair<QByteArray, QByteArray>> &headers,
                                                       const QByteArray &body, int timeoutMs)
{
    auto promise = std::make_shared<QPromise<CompensationHttpResult>>();
    QFuture<CompensationHttpResult> future = promise->future();
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
                CompensationHttpResult r;
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

} // namespace triage
