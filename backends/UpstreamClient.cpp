#include "UpstreamClient.h"

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

UpstreamQuery makeUpstreamQuery(const WorkspaceConfig &config, const QString &idemKey, const QString &bizType,
                                const QString &ticketId)
{
    UpstreamQuery q;
    q.idemKey = idemKey;
    q.bizType = bizType;
    q.tenant = tenantFromKey(idemKey, config.bizType(bizType).tenantPattern);
    q.ticketId = ticketId;
    return q;
}

UpstreamQuery makeUpstreamQuery(const WorkspaceConfig &config, const KeyDetail &detail)
{
    const QString bizType = detail.record && detail.record->bizType ? *detail.record->bizType : QString();
    const QString ticketId = detail.tickets.isEmpty() ? QString() : QString::number(detail.tickets.first().id);
    return makeUpstreamQuery(config, detail.idemKey, bizType, ticketId);
}

QString upstreamBulkStateName(UpstreamBulkState s)
{
    switch (s) {
    case UpstreamBulkState::Running: return QStringLiteral("running");
    case UpstreamBulkState::Paused: return QStringLiteral("paused");
    case UpstreamBulkState::Finished: return QStringLiteral("finished");
    case UpstreamBulkState::Stopped: return QStringLiteral("stopped");
    case UpstreamBulkState::Cancelled: return QStringLiteral("cancelled");
    }
    return QString();
}

namespace detail {

/// The network side of UpstreamClient: lives on the client's thread, owns the
/// QNetworkAccessManager, the per-host in-flight limit and the deadlines. Not a public API.
class UpstreamEngine : public QObject {
public:
    using Done = std::function<void(const UpstreamEvidence &)>;

    explicit UpstreamEngine(QMap<QString, UpstreamConfig> upstreams) : m_upstreams(std::move(upstreams)) {}
    ~UpstreamEngine() override { shutdown(); }

    /// Queues one query; `done` is called exactly once, on this thread, never from inside
    /// submit() itself. `config` overrides the biz_type lookup when set. Returns a job id.
    quint64 submit(const std::optional<UpstreamConfig> &config, const UpstreamQuery &query, Done done);
    /// Aborts / unqueues job `id`; its `done` gets kind cancelled (synchronously).
    void cancel(quint64 id);
    /// Cancels every bulk run and job (used when the client goes away).
    void shutdown();
    void addRun(UpstreamBulkRun *run) { m_runs.append(run); }

private:
    struct Job {
        quint64 id = 0;
        UpstreamConfig config;
        UpstreamQuery query;
        Done done;
        QUrl url;
        QString origin;
        QString token; ///< never logged, never in evidence
        QNetworkReply *reply = nullptr;
        QTimer *deadline = nullptr;
        QElapsedTimer clock;
        UpstreamRequestEvidence request;
        QStringList sslErrors;
    };

    void pump();
    void start(Job &job);
    void onFinished(quint64 id);
    void onDeadline(quint64 id);
    void complete(quint64 id, UpstreamResponseFacts facts);
    void completeUnsent(UpstreamEvidence evidence, Done done);
    void flushUnsent();
    static UpstreamResponseFacts factsFrom(QNetworkReply *reply);
    QNetworkAccessManager *nam();

    QMap<QString, UpstreamConfig> m_upstreams;
    QNetworkAccessManager *m_nam = nullptr;
    std::map<quint64, Job> m_jobs;
    std::deque<quint64> m_queue;
    QMap<QString, int> m_perOrigin;
    QList<QPointer<UpstreamBulkRun>> m_runs;
    std::deque<std::pair<UpstreamEvidence, Done>> m_unsent; ///< answers without a request, delivered from the event loop
    quint64 m_nextId = 1;
    bool m_closing = false;
};

QNetworkAccessManager *UpstreamEngine::nam()
{
    if (!m_nam) {
        m_nam = new QNetworkAccessManager(this);
        // Replies are deleted by hand on every path (STYLE.md).
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

    QNetworkReply *reply = c.method == "POST" ? nam()->post(req, QByteArray()) : nam()->get(req);
    job.reply = reply;
    job.clock.start();
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

UpstreamResponseFacts UpstreamEngine::factsFrom(QNetworkReply *reply)
{
    UpstreamResponseFacts f;
    f.networkError = int(reply->error());
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
    f.networkError = QNetworkReply::NoError;
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

// ---------------------------------------------------------------------------------------

UpstreamClient::UpstreamClient(QMap<QString, UpstreamConfig> upstreams, QObject *parent)
    : QObject(parent), m_upstreams(std::move(upstreams))
{
    m_thread.setObjectName(QStringLiteral("upstream"));
    auto *engine = new detail::UpstreamEngine(m_upstreams);
    engine->moveToThread(&m_thread);
    m_engine = engine;
    m_thread.start();
}

UpstreamClient::~UpstreamClient()
{
    if (m_engine) {
        QMetaObject::invokeMethod(
            m_engine, [engine = m_engine.data()]() { delete engine; }, Qt::BlockingQueuedConnection);
    }
    m_thread.quit();
    m_thread.wait();
}

QFuture<UpstreamEvidence> UpstreamClient::query(const UpstreamQuery &q)
{
    auto promise = std::make_shared<QPromise<UpstreamEvidence>>();
    QFuture<UpstreamEvidence> future = promise->future();
    promise->start();
    QPointer<detail::UpstreamEngine> engine = m_engine;
    QMetaObject::invokeMethod(
        m_engine,
        [engine, promise, q, future]() {
            auto *watcher = new QFutureWatcher<UpstreamEvidence>(engine);
            const quint64 id = engine->submit(std::nullopt, q, [promise, watcher](const UpstreamEvidence &e) {
                promise->addResult(e);
                promise->finish();
                watcher->deleteLater();
            });
            QObject::connect(watcher, &QFutureWatcherBase::canceled, engine, [engine, id]() {
                if (engine)
                    engine->cancel(id);
            });
            watcher->setFuture(future);
            if (future.isCanceled()) // cancelled before the watcher was set
                engine->cancel(id);
        },
        Qt::QueuedConnection);
    return future;
}

QFuture<UpstreamEvidence> UpstreamClient::query(const UpstreamConfig &config, const UpstreamQuery &q)
{
    auto promise = std::make_shared<QPromise<UpstreamEvidence>>();
    QFuture<UpstreamEvidence> future = promise->future();
    promise->start();
    QPointer<detail::UpstreamEngine> engine = m_engine;
    QMetaObject::invokeMethod(
        m_engine,
        [engine, promise, config, q, future]() {
            auto *watcher = new QFutureWatcher<UpstreamEvidence>(engine);
            const quint64 id = engine->submit(config, q, [promise, watcher](const UpstreamEvidence &e) {
                promise->addResult(e);
                promise->finish();
                watcher->deleteLater();
            });
            QObject::connect(watcher, &QFutureWatcherBase::canceled, engine, [engine, id]() {
                if (engine)
                    engine->cancel(id);
            });
            watcher->setFuture(future);
            if (future.isCanceled()) // cancelled before the watcher was set
                engine->cancel(id);
        },
        Qt::QueuedConnection);
    return future;
}

std::shared_ptr<UpstreamBulkRun> UpstreamClient::queryMany(QVector<UpstreamQuery> queries, UpstreamBulkOptions options,
                                                           UpstreamBulkRun::PauseHook onPause)
{
    auto *raw = new UpstreamBulkRun(m_engine, std::move(queries), options, std::move(onPause));
    raw->moveToThread(&m_thread);
    std::shared_ptr<UpstreamBulkRun> run(raw, [](UpstreamBulkRun *r) {
        if (!r->thread())
            delete r; // its client (and thread) are gone
        else
            r->deleteLater();
    });
    QMetaObject::invokeMethod(raw, [raw]() { raw->start(); }, Qt::QueuedConnection);
    return run;
}

// ---------------------------------------------------------------------------------------

UpstreamBulkRun::UpstreamBulkRun(QPointer<detail::UpstreamEngine> engine, QVector<UpstreamQuery> queries,
                                 UpstreamBulkOptions options, PauseHook hook)
    : m_engine(std::move(engine)), m_queries(std::move(queries)), m_options(options), m_hook(std::move(hook))
{
    m_total = int(m_queries.size());
    m_options.concurrency = std::clamp(m_options.concurrency, 1, UpstreamClient::kMaxPerHost);
    m_options.pauseAfterUnusable = std::max(0, m_options.pauseAfterUnusable);
    m_results.resize(m_total);
    m_answered.fill(false, m_total);
    m_promise = std::make_shared<QPromise<UpstreamBulkReport>>();
    m_future = m_promise->future();
    m_promise->start();
}

UpstreamBulkRun::~UpstreamBulkRun()
{
    if (!m_ended) {
        m_state = int(UpstreamBulkState::Cancelled);
        const auto inFlight = m_inFlight;
        m_inFlight.clear();
        m_ended = true; // answers to the cancels below are not wanted any more
        if (m_engine) {
            for (quint64 id : inFlight)
                m_engine->cancel(id);
        }
        UpstreamBulkReport r;
        r.state = UpstreamBulkState::Cancelled;
        r.results = m_results;
        m_promise->addResult(r);
        m_promise->finish();
    }
}

void UpstreamBulkRun::start()
{
    if (m_engine)
        m_engine->addRun(this);
    m_wall.start();
    emit progress(0, m_total);
    if (!m_engine)
        m_state = int(UpstreamBulkState::Cancelled);
    launchMore();
    finishIfDone();
}

void UpstreamBulkRun::launchMore()
{
    while (state() == UpstreamBulkState::Running && m_next < m_total
           && m_inFlight.size() + m_keeping.size() < m_options.concurrency && m_engine) {
        const int index = m_next++;
        QPointer<UpstreamBulkRun> self(this);
        // Insert before submitting: the engine never answers from inside submit().
        m_inFlight.insert(index, 0);
        m_inFlight[index] = m_engine->submit(std::nullopt, m_queries.at(index), [self, index](const UpstreamEvidence &e) {
            if (self)
                self->onAnswer(index, e);
        });
    }
}

void UpstreamBulkRun::onAnswer(int index, const UpstreamEvidence &e)
{
    if (m_ended || !m_inFlight.contains(index))
        return;
    m_inFlight.remove(index);
    m_results[index] = e;
    m_answered[index] = true;
    ++m_done;
    if (e.kind == UnusableKind::Cancelled) {
        // neither resets nor advances the counter
    } else if (e.isUnusable()) {
        ++m_consecutiveUnusable;
    } else {
        m_consecutiveUnusable = 0;
    }
    emit resultReady(index, e);
    emit progress(m_done, m_total);
    if (m_options.keep && e.kind != UnusableKind::Cancelled) {
        m_keeping.insert(index);
        // Always through the event loop, also for a future that is ready already: the pause
        // check below comes first, and onKept() never runs inside this function.
        auto later = [this, index](bool ok) {
            QMetaObject::invokeMethod(this, [this, index, ok]() { onKept(index, ok); }, Qt::QueuedConnection);
        };
        m_options.keep(index, e).then(this, later).onCanceled(this, [later]() { later(false); });
    }
    if (state() == UpstreamBulkState::Running && m_options.pauseAfterUnusable > 0
        && m_consecutiveUnusable >= m_options.pauseAfterUnusable && m_next < m_total) {
        m_state = int(UpstreamBulkState::Paused);
        UpstreamBulkPause p;
        p.consecutiveUnusable = m_consecutiveUnusable;
        p.done = m_done;
        p.total = m_total;
        p.last = e;
        logger("backend.upstream")->warn("bulk query paused after {} consecutive unusable answers ({} of {} done)",
                                         p.consecutiveUnusable, p.done, p.total);
        emit paused(p);
        if (m_hook) {
            switch (m_hook(p)) {
            case UpstreamBulkDecision::Resume: doResume(); return;
            case UpstreamBulkDecision::Stop: doStop(); return;
            case UpstreamBulkDecision::Wait: break;
            }
        }
    }
    launchMore();
    finishIfDone();
}

void UpstreamBulkRun::onKept(int index, bool ok)
{
    if (!m_keeping.remove(index))
        return;
    if (!ok && !m_keepFailed) {
        m_keepFailed = true;
        logger("backend.upstream")->info("bulk query stopped: answer {} of {} could not be kept", index + 1, m_total);
        if (!m_ended && (state() == UpstreamBulkState::Running || state() == UpstreamBulkState::Paused))
            m_state = int(UpstreamBulkState::Stopped);
        const auto inFlight = m_inFlight;
        for (auto it = inFlight.cbegin(); it != inFlight.cend(); ++it) {
            if (m_engine)
                m_engine->cancel(it.value()); // answers synchronously with kind cancelled
        }
    }
    launchMore();
    finishIfDone();
}

void UpstreamBulkRun::cancel()
{
    QMetaObject::invokeMethod(this, [this]() { doCancel(); }, Qt::QueuedConnection);
}

void UpstreamBulkRun::stop()
{
    QMetaObject::invokeMethod(this, [this]() { doStop(); }, Qt::QueuedConnection);
}

void UpstreamBulkRun::resume()
{
    QMetaObject::invokeMethod(this, [this]() { doResume(); }, Qt::QueuedConnection);
}

void UpstreamBulkRun::doCancel()
{
    if (m_ended)
        return;
    m_state = int(UpstreamBulkState::Cancelled);
    const auto inFlight = m_inFlight;
    for (auto it = inFlight.cbegin(); it != inFlight.cend(); ++it) {
        if (m_engine)
            m_engine->cancel(it.value()); // answers synchronously with kind cancelled
    }
    finishIfDone();
}

void UpstreamBulkRun::doStop()
{
    if (m_ended)
        return;
    m_state = int(UpstreamBulkState::Stopped);
    finishIfDone();
}

void UpstreamBulkRun::doResume()
{
    if (m_ended || state() != UpstreamBulkState::Paused)
        return;
    m_consecutiveUnusable = 0;
    m_state = int(UpstreamBulkState::Running);
    launchMore();
    finishIfDone();
}

void UpstreamBulkRun::finishIfDone()
{
    if (m_ended || !m_inFlight.isEmpty() || !m_keeping.isEmpty())
        return;
    UpstreamBulkState s = state();
    if (s == UpstreamBulkState::Running || s == UpstreamBulkState::Paused) {
        if (m_next < m_total)
            return; // more to send (or waiting for resume)
        s = UpstreamBulkState::Finished;
    }
    m_ended = true;
    m_state = int(s);
    UpstreamBulkReport r;
    r.state = s;
    r.results = m_results;
    r.keepFailed = m_keepFailed;
    for (int i = 0; i < m_total; ++i) {
        UpstreamEvidence &e = r.results[i];
        if (!m_answered.at(i)) {
            e.idemKey = m_queries.at(i).idemKey;
            e.bizType = m_queries.at(i).bizType;
            e.classification = UpstreamClass::Unusable;
            e.kind = UnusableKind::Cancelled;
            e.message = s == UpstreamBulkState::Stopped ? QStringLiteral("not sent: the bulk query was stopped")
                                                        : QStringLiteral("not sent: the bulk query was cancelled");
        }
        switch (e.classification) {
        case UpstreamClass::Found: ++r.found; break;
        case UpstreamClass::NotFound: ++r.notFound; break;
        case UpstreamClass::Ambiguous: ++r.ambiguous; break;
        case UpstreamClass::Unusable:
        case UpstreamClass::NotConfigured:
            if (e.kind == UnusableKind::Cancelled)
                ++r.cancelled;
            else
                ++r.unusable;
            if (e.kind == UnusableKind::Timeout)
                ++r.timedOut;
            break;
        }
    }
    r.wallMs = m_wall.isValid() ? m_wall.elapsed() : 0;
    logger("backend.upstream")->info("bulk query {}: {} found, {} not found, {} ambiguous, {} unusable, {} cancelled in {} ms",
                                     upstreamBulkStateName(s), r.found, r.notFound, r.ambiguous, r.unusable, r.cancelled, r.wallMs);
    emit finished(r); // before the future resolves: a waiter then has every signal
    m_promise->addResult(r);
    m_promise->finish();
}

} // namespace triage
