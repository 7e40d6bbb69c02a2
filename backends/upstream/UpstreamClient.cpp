#include "UpstreamClient.h"

#include "KeyDetail.h"
#include "Log.h"
#include "Queue.h"
#include "ThreadExit.h"
#include "UpstreamEngine.h"
#include "WorkspaceConfig.h"

#include <QDateTime>
#include <QFutureWatcher>
#include <QTimer>

#include <chrono>

#include <algorithm>

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
    const QString ticketId = detail.tickets.isEmpty() ? QString() : detail.tickets.first().id.text();
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
            m_engine,
            [engine = m_engine.data()]() {
                delete engine;
                releaseThreadLibraryState(); // HTTPS used OpenSSL on this thread: ThreadExit.h
            },
            Qt::BlockingQueuedConnection);
    }
    m_thread.quit();
    m_thread.wait();
}

QFuture<UpstreamEvidence> UpstreamClient::query(const UpstreamQuery &q)
{
    return submit(std::nullopt, q);
}

QFuture<UpstreamEvidence> UpstreamClient::query(const UpstreamConfig &config, const UpstreamQuery &q)
{
    return submit(config, q);
}

QFuture<UpstreamEvidence> UpstreamClient::submit(const std::optional<UpstreamConfig> &config, const UpstreamQuery &q)
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
        m_state = UpstreamBulkState::Cancelled;
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
        m_state = UpstreamBulkState::Cancelled;
    launchMore();
    finishIfDone();
}

std::optional<qint64> retryAfterMs(const UpstreamEvidence &evidence, qint64 nowUtcMs)
{
    for (const auto &h : evidence.responseHeaders) {
        if (h.first.compare("retry-after", Qt::CaseInsensitive) != 0)
            continue;
        const QByteArray v = h.second.trimmed();
        bool ok = false;
        const qint64 seconds = v.toLongLong(&ok);
        if (ok)
            return seconds < 0 ? std::nullopt : std::optional<qint64>(seconds * 1000);
        // An HTTP-date (IMF-fixdate, "Tue, 01 Dec 2026 12:00:30 GMT"): Qt 6.4's RFC 2822
        // parser wants the zone as an offset.
        QString text = QString::fromLatin1(v);
        if (text.endsWith(QLatin1String(" GMT")))
            text = text.chopped(4) + QStringLiteral(" +0000");
        const QDateTime at = QDateTime::fromString(text, Qt::RFC2822Date);
        if (!at.isValid())
            return std::nullopt;
        return std::max<qint64>(0, at.toMSecsSinceEpoch() - nowUtcMs);
    }
    return std::nullopt;
}

void UpstreamBulkRun::launchMore()
{
    if (m_holdUntilMs > 0 && m_wall.isValid() && m_wall.elapsed() < m_holdUntilMs)
        return; // a Retry-After holds every new request (its timer calls again)
    while (state() == UpstreamBulkState::Running && (!m_retryQueue.isEmpty() || m_next < m_total)
           && m_inFlight.size() + m_keeping.size() < m_options.concurrency && m_engine) {
        const int index = m_retryQueue.isEmpty() ? m_next++ : m_retryQueue.takeFirst();
        QPointer<UpstreamBulkRun> self(this);
        // Insert before submitting: the engine never answers from inside submit().
        m_inFlight.insert(index, 0);
        m_inFlight[index] = m_engine->submit(std::nullopt, m_queries.at(index), [self, index](const UpstreamEvidence &e) {
            if (self)
                self->onAnswer(index, e);
        });
        m_maxInFlight = std::max(m_maxInFlight, int(m_inFlight.size()));
    }
}

void UpstreamBulkRun::onAnswer(int index, const UpstreamEvidence &e)
{
    if (m_ended || !m_inFlight.contains(index))
        return;
    m_inFlight.remove(index);
    const bool rateLimited = e.httpStatus == 429 || (e.httpStatus == 503 && retryAfterMs(e, 0));
    if (m_options.retryAfterMaxS > 0 && rateLimited && state() == UpstreamBulkState::Running
        && m_retries.value(index) < m_options.retryAfterAttempts) {
        // Not an answer yet: hold every new request for the Retry-After, then ask again.
        m_retries[index] += 1;
        ++m_retriedAfter;
        const qint64 waitMs = std::min<qint64>(retryAfterMs(e, QDateTime::currentMSecsSinceEpoch()).value_or(1000),
                                               qint64(m_options.retryAfterMaxS) * 1000);
        const qint64 until = m_wall.elapsed() + waitMs;
        if (until > m_holdUntilMs) {
            m_heldMs += until - std::max(m_holdUntilMs, m_wall.elapsed());
            m_holdUntilMs = until;
        }
        m_retryQueue.append(index);
        logger("backend.upstream")->info("{}: HTTP {}, asking again after {} ms (Retry-After)", e.idemKey, *e.httpStatus, waitMs);
        QTimer::singleShot(std::chrono::milliseconds(waitMs), Qt::PreciseTimer, this, [this]() {
            launchMore();
            finishIfDone();
        });
        return;
    }
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
        // Always through the event loop, also for a future that is ready already (a
        // QFutureWatcher posts its finished notification): the pause check below comes
        // first, and onKept() never runs inside this function. Not Qt 6.4's
        // future.then(context, …), whose continuation can run twice (docs/QT-PITFALLS.md).
        // A cancelled keep (or one without a result) counts as not kept.
        auto *watcher = new QFutureWatcher<bool>(this);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, index]() {
            watcher->deleteLater();
            const bool ok = !watcher->isCanceled() && watcher->future().resultCount() > 0 && watcher->result();
            onKept(index, ok);
        });
        watcher->setFuture(m_options.keep(index, e));
    }
    if (state() == UpstreamBulkState::Running && m_options.pauseAfterUnusable > 0
        && m_consecutiveUnusable >= m_options.pauseAfterUnusable && (m_next < m_total || !m_retryQueue.isEmpty())) {
        m_state = UpstreamBulkState::Paused;
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
            m_state = UpstreamBulkState::Stopped;
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
    m_state = UpstreamBulkState::Cancelled;
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
    m_state = UpstreamBulkState::Stopped;
    finishIfDone();
}

void UpstreamBulkRun::doResume()
{
    if (m_ended || state() != UpstreamBulkState::Paused)
        return;
    m_consecutiveUnusable = 0;
    m_state = UpstreamBulkState::Running;
    launchMore();
    finishIfDone();
}

void UpstreamBulkRun::finishIfDone()
{
    if (m_ended || !m_inFlight.isEmpty() || !m_keeping.isEmpty())
        return;
    UpstreamBulkState s = state();
    if (s == UpstreamBulkState::Running || s == UpstreamBulkState::Paused) {
        if (m_next < m_total || !m_retryQueue.isEmpty())
            return; // more to send (or waiting for resume / a Retry-After)
        s = UpstreamBulkState::Finished;
    }
    m_ended = true;
    m_state = s;
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
    r.retriedAfter = m_retriedAfter;
    r.heldMs = m_heldMs;
    r.maxInFlight = m_maxInFlight;
    logger("backend.upstream")->info("bulk query {}: {} found, {} not found, {} ambiguous, {} unusable, {} cancelled in {} ms",
                                     upstreamBulkStateName(s), r.found, r.notFound, r.ambiguous, r.unusable, r.cancelled, r.wallMs);
    emit finished(r); // before the future resolves: a waiter then has every signal
    m_promise->addResult(r);
    m_promise->finish();
}

} // namespace triage
