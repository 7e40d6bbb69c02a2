#include "UpstreamEngine.h"

#include "KeyDetail.h"
#include "Log.h"
#include "Queue.h"
#include "TimeText.h"
#include "WorkspaceConfig.h"

#include <QDateTime>
#include <QFutureWatcher>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#if QT_CONFIG(ssl)
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslError>
#endif

#include <algorithm>
#include <deque>
#include <map>


namespace triage {

namespace detail {

QNetworkAccessManager *UpstreamEngine::nam()
{
    if (!m_nam) {
        m_nam = new QNetworkAccessManager(this);
        // Replies are deleted by hand on every path (docs/CONVENTIONS.md).
        m_nam->setAutoDeleteReplies(false);
    }
    return m_nam;
}

void UpstreamEngine::completeUnsent(UpstreamEvidence evidence, Done done)
{
    // Never call back from inside submit(): a bulk run submitting in a loop would recurse.
    m_unsent.push_back({std::move(evidence), std::move(done)});
    if (m_unsent.size() == 1 && !m_closing)
        QTimer::singleShot(0, this, [this]() { flushUnsent(); });
}

void UpstreamEngine::flushUnsent()
{
    while (!m_unsent.empty()) {
        auto [evidence, done] = std::move(m_unsent.front());
        m_unsent.pop_front();
        done(evidence);
    }
}

quint64 UpstreamEngine::submit(const std::optional<UpstreamConfig> &config, const UpstreamQuery &query, Done done)
{
    const quint64 id = m_nextId++;
    const UpstreamConfig *cfg = config ? &*config : nullptr;
    auto found = m_upstreams.constFind(query.bizType);
    if (!cfg && found != m_upstreams.constEnd())
        cfg = &*found;
    if (!cfg) {
        completeUnsent(notConfiguredEvidence(query.idemKey, query.bizType), std::move(done));
        return id;
    }
    auto unsent = [&](UnusableKind kind, const QString &message) {
        UpstreamEvidence e;
        e.idemKey = query.idemKey;
        e.bizType = query.bizType;
        e.classification = UpstreamClass::Unusable;
        e.kind = kind;
        e.message = message;
        completeUnsent(std::move(e), std::move(done));
        return id;
    };
    if (m_closing)
        return unsent(UnusableKind::Cancelled, QStringLiteral("not sent: the upstream client is shutting down"));
    QString why;
    const auto url = cfg->buildUrl(query.idemKey, query.tenant, query.ticketId, &why);
    if (!url)
        return unsent(UnusableKind::InvalidRequest, QStringLiteral("cannot build the query URL: %1").arg(why));
    QString token;
    if (!cfg->tokenEnv.isEmpty()) {
        token = qEnvironmentVariable(cfg->tokenEnv.toLocal8Bit().constData());
        if (token.isEmpty())
            return unsent(UnusableKind::NotConfigured,
                          QStringLiteral("the token variable %1 named by upstream_token_env is not set").arg(cfg->tokenEnv));
    }
    Job job;
    job.id = id;
    job.config = *cfg;
    job.query = query;
    job.done = std::move(done);
    job.url = *url;
    job.origin = url->scheme().toLower() + QStringLiteral("://") + url->host().toLower() + QLatin1Char(':')
        + QString::number(url->port(url->scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80));
    job.token = token;
    m_jobs.emplace(id, std::move(job));
    m_queue.push_back(id);
    pump();
    return id;
}

void UpstreamEngine::pump()
{
    if (m_closing)
        return;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        auto job = m_jobs.find(*it);
        if (job == m_jobs.end()) {
            it = m_queue.erase(it);
            continue;
        }
        int &inFlight = m_perOrigin[job->second.origin];
        if (inFlight >= UpstreamClient::kMaxPerHost) {
            ++it;
            continue;
        }
        ++inFlight;
        it = m_queue.erase(it);
        start(job->second);
    }
}

void UpstreamEngine::start(Job &job)
{
    const UpstreamConfig &c = job.config;
    QNetworkRequest req(job.url);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    // Our own deadline below is authoritative; Qt's inactivity timeout is only a backstop.
    req.setTransferTimeout(c.timeoutMs + 5000);
    HttpHeaderList headers;
    headers.append(qMakePair(QByteArray("User-Agent"), QByteArray("triage-console/0.1")));
    bool hasAccept = false;
    for (const auto &h : c.headers)
        hasAccept = hasAccept || h.first.compare("accept", Qt::CaseInsensitive) == 0;
    if (!hasAccept)
        headers.append(qMakePair(QByteArray("Accept"), QByteArray("application/json")));
    headers += c.headers;
    if (c.sendIdempotencyKey)
        headers.append(qMakePair(QByteArray("X-Idempotency-Key"), job.query.idemKey.toUtf8()));
    if (!job.token.isEmpty())
        headers.append(qMakePair(QByteArray("Authorization"), QByteArray("Bearer ") + job.token.toUtf8()));
    for (const auto &h : headers)
        req.setRawHeader(h.first, h.second);
#if QT_CONFIG(ssl)
    if (!c.caFile.isEmpty() && job.url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.addCaCertificates(QSslCertificate::fromPath(c.caFile));
        req.setSslConfiguration(ssl);
    }
#endif

    job.request.method = c.method;
    QString shownUrl = QString::fromUtf8(job.url.toEncoded());
    if (!job.token.isEmpty()) {
        shownUrl.replace(job.token, QStringLiteral("<redacted>"));
        shownUrl.replace(QString::fromLatin1(QUrl::toPercentEncoding(job.token)), QStringLiteral("<redacted>"));
    }
    job.request.url = shownUrl;
    job.request.headers = redactHeaders(headers);
    job.request.sentAt = formatUtcMicros(QDateTime::currentDateTimeUtc().toMSecsSinceEpoch() * 1000);

    // Started before the request leaves: QNAM's own thread may send it, and the upstream
    // answer it, while this thread is not scheduled (tst_upstream_bulk measured 34 ms for an
    // answer held 50 ms when the clock started after post()).
    job.clock.start();
    QNetworkReply *reply = c.method == "POST" ? nam()->post(req, QByteArray()) : nam()->get(req);
    job.reply = reply;
    const quint64 id = job.id;
    job.deadline = new QTimer(this);
    job.deadline->setSingleShot(true);
    job.deadline->setTimerType(Qt::PreciseTimer);
    connect(job.deadline, &QTimer::timeout, this, [this, id]() { onDeadline(id); });
    job.deadline->start(c.timeoutMs);
    connect(reply, &QNetworkReply::finished, this, [this, id]() { onFinished(id); });
#if QT_CONFIG(ssl)
    connect(reply, &QNetworkReply::sslErrors, this, [this, id](const QList<QSslError> &errors) {
        auto it = m_jobs.find(id);
        if (it == m_jobs.end())
            return;
        for (const QSslError &e : errors)
            it->second.sslErrors.append(e.errorString());
        // Never ignoreSslErrors(): the handshake fails and the answer is tls_error.
    });
#endif
    logger("backend.upstream")->debug("query {} {} for {} (deadline {} ms)", QString::fromLatin1(c.method), shownUrl,
                                      job.query.idemKey, c.timeoutMs);
}

TransportError transportErrorOf(QNetworkReply::NetworkError error)
{
    using NE = QNetworkReply::NetworkError;
    switch (error) {
    case NE::NoError: return TransportError::None;
    case NE::ConnectionRefusedError: return TransportError::ConnectionRefused;
    case NE::RemoteHostClosedError: return TransportError::RemoteClosed;
    case NE::SslHandshakeFailedError: return TransportError::TlsHandshake;
    case NE::OperationCanceledError: return TransportError::Cancelled;
    case NE::TimeoutError: return TransportError::Timeout;
    case NE::ProtocolFailure: return TransportError::Protocol;
    default: return int(error) < 100 ? TransportError::OtherNetwork : TransportError::Other; // Qt: < 100 = network layer
    }
}

UpstreamResponseFacts UpstreamEngine::factsFrom(QNetworkReply *reply)
{
    UpstreamResponseFacts f;
    f.transportError = transportErrorOf(reply->error());
    f.errorString = reply->error() == QNetworkReply::NoError ? QString() : reply->errorString();
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (status.isValid())
        f.status = status.toInt();
    f.reasonPhrase = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
    f.headers = reply->rawHeaderPairs();
    f.body = reply->readAll();
    return f;
}

void UpstreamEngine::onFinished(quint64 id)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end() || !it->second.reply)
        return; // a late signal for a job already settled
    complete(id, factsFrom(it->second.reply));
}

void UpstreamEngine::onDeadline(quint64 id)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end() || !it->second.reply)
        return;
    QNetworkReply *reply = it->second.reply;
    // Keep what arrived (a status line and part of a body, for a stalled answer).
    UpstreamResponseFacts f = factsFrom(reply);
    f.transportError = TransportError::None;
    f.errorString.clear();
    f.timedOut = true;
    complete(id, std::move(f));
}

void UpstreamEngine::complete(quint64 id, UpstreamResponseFacts facts)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    Job job = std::move(it->second);
    m_jobs.erase(it);
    if (job.deadline) {
        job.deadline->stop();
        job.deadline->deleteLater();
    }
    if (job.reply) {
        // Whatever arrives later is ignored: nothing of ours listens any more.
        disconnect(job.reply, nullptr, this, nullptr);
        if (job.reply->isRunning())
            job.reply->abort();
        job.reply->deleteLater();
    }
    facts.sslErrors += job.sslErrors;
    UpstreamEvidence e = classifyUpstreamResponse(job.config, job.query.idemKey, facts);
    e.idemKey = job.query.idemKey;
    e.bizType = job.query.bizType;
    e.sent = true;
    e.request = job.request;
    e.elapsedMs = job.clock.elapsed();
    if (--m_perOrigin[job.origin] <= 0)
        m_perOrigin.remove(job.origin);
    logger("backend.upstream")->info("{} {}{} in {} ms", e.idemKey, upstreamClassName(e.classification),
                                     e.kind == UnusableKind::None ? QString() : QStringLiteral(" (%1)").arg(unusableKindName(e.kind)),
                                     e.elapsedMs);
    logger("backend.upstream")->debug("{}: {}", e.idemKey, e.message);
    job.done(e);
    pump();
}

void UpstreamEngine::cancel(quint64 id)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    if (it->second.reply) {
        UpstreamResponseFacts f;
        f.cancelled = true;
        complete(id, f);
        return;
    }
    Job job = std::move(it->second);
    m_jobs.erase(it);
    UpstreamEvidence e;
    e.idemKey = job.query.idemKey;
    e.bizType = job.query.bizType;
    e.classification = UpstreamClass::Unusable;
    e.kind = UnusableKind::Cancelled;
    e.message = QStringLiteral("cancelled before it was sent");
    job.done(e);
}

void UpstreamEngine::shutdown()
{
    if (m_closing)
        return;
    m_closing = true;
    const auto runs = m_runs;
    for (const QPointer<UpstreamBulkRun> &run : runs) {
        if (run)
            run->doCancel(); // aborts its requests; answers arrive synchronously
    }
    std::vector<quint64> ids;
    for (const auto &j : m_jobs)
        ids.push_back(j.first);
    for (quint64 id : ids)
        cancel(id);
    // Answers without a request (not configured, bad URL) still reach their futures.
    flushUnsent();
    for (const QPointer<UpstreamBulkRun> &run : runs) {
        if (run)
            run->moveToThread(nullptr); // outlives this thread; deleted by its owner
    }
}

} // namespace detail

} // namespace triage
