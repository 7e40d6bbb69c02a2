#pragma once

#include "UpstreamConfig.h"
#include "UpstreamEvidence.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QPromise>
#include <QSet>
#include <QThread>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace triage {

struct KeyDetail;
struct WorkspaceConfig;

namespace detail {
class UpstreamEngine;
}

/// One key to look up upstream. `tenant` and `ticketId` fill the {tenant} and {ticket_id}
/// placeholders of the URL template (empty when unknown).
struct UpstreamQuery {
    QString idemKey;
    QString bizType;
    QString tenant;
    QString ticketId;
};

/// A query for `idemKey` of `bizType`, its tenant taken from the key by the biz_type's
/// tenant pattern (WorkspaceConfig::bizType()).
UpstreamQuery makeUpstreamQuery(const WorkspaceConfig &config, const QString &idemKey, const QString &bizType,
                                const QString &ticketId = {});

/// A query for the key of `detail`: biz_type from its record (empty when there is none:
/// the answer is then NOT_CONFIGURED), tenant from the key, {ticket_id} from the oldest
/// ticket row carrying the key (if any).
UpstreamQuery makeUpstreamQuery(const WorkspaceConfig &config, const KeyDetail &detail);

/// Options of UpstreamClient::queryMany().
struct UpstreamBulkOptions {
    /// Requests in flight at once, clamped to 1..UpstreamClient::kMaxPerHost (Qt 6.4 opens
    /// at most 6 connections per host and runs a queued request's clock while it waits).
    int concurrency = 6;
    /// Pause after this many consecutive UNUSABLE answers (NOT_CONFIGURED counts, cancels
    /// do not); 0 = never pause.
    int pauseAfterUnusable = 0;
    /// Optional: keeps each answer (e.g. writes its audit row) as it arrives. Called on the
    /// network thread for every answer except cancels; the future it returns resolves, on
    /// any thread, with true once the answer is kept. Until then the answer's slot stays
    /// taken (at most `concurrency` keys are between sent and kept). false ends the run at
    /// once: nothing more is sent, the requests in flight are cancelled, and the report's
    /// state is Stopped with `keepFailed` set.
    std::function<QFuture<bool>(int index, const UpstreamEvidence &evidence)> keep;
    /// Honours rate limiting (DESIGN.md §8 "Upstream protection"): an HTTP 429, or a 503
    /// with a Retry-After header, is not an answer yet — no new request is sent to anyone
    /// until the time its Retry-After names (delta-seconds or an HTTP-date; 1 s when a 429
    /// has none), capped at this many seconds, and then the same key is asked again, at most
    /// `retryAfterAttempts` times per key (the last one's answer is kept as UNUSABLE,
    /// http_429). 0 = off: the 429 is an UNUSABLE answer at once (the console's default).
    int retryAfterMaxS = 0;
    int retryAfterAttempts = 3;
};

/// The wait a rate-limited answer asks for, in milliseconds: its Retry-After header as
/// delta-seconds or an HTTP-date relative to `nowUtcMs` (never negative); nullopt when the
/// header is absent or unreadable. Pure.
std::optional<qint64> retryAfterMs(const UpstreamEvidence &evidence, qint64 nowUtcMs);

/// A bulk run's state.
enum class UpstreamBulkState {
    Running,   ///< sending
    Paused,    ///< K consecutive UNUSABLE: no new requests until resume() or stop()
    Finished,  ///< every query answered
    Stopped,   ///< stop(): the answers that were in flight arrived; the rest were never sent
    Cancelled, ///< cancel(): in-flight requests aborted (kind cancelled); the rest never sent
};

/// "running", "paused", "finished", "stopped", "cancelled".
QString upstreamBulkStateName(UpstreamBulkState s);

/// Why a bulk run paused.
struct UpstreamBulkPause {
    int consecutiveUnusable = 0;
    int done = 0;  ///< answers so far
    int total = 0;
    UpstreamEvidence last; ///< the answer that reached the threshold
};

/// What a caller's pause hook decides.
enum class UpstreamBulkDecision {
    Resume, ///< keep going (the counter restarts)
    Stop,   ///< like stop()
    Wait,   ///< stay paused until resume() / stop() / cancel() is called
};

/// The outcome of a bulk run: one evidence per query in input order (queries never sent
/// have sent == false, classification UNUSABLE, kind cancelled) and counts.
struct UpstreamBulkReport {
    UpstreamBulkState state = UpstreamBulkState::Finished;
    QVector<UpstreamEvidence> results;
    int found = 0, notFound = 0, ambiguous = 0;
    int unusable = 0;       ///< UNUSABLE and NOT_CONFIGURED answers (sent or not configured), cancels excluded
    int cancelled = 0;      ///< aborted in flight or never sent
    int timedOut = 0;       ///< subset of unusable with kind timeout
    qint64 wallMs = 0;
    bool keepFailed = false; ///< UpstreamBulkOptions::keep returned false: the run stopped there
    int retriedAfter = 0;    ///< rate-limited answers asked again after their Retry-After (UpstreamBulkOptions::retryAfterMaxS)
    qint64 heldMs = 0;       ///< total time no request was sent because of a Retry-After
    int maxInFlight = 0;     ///< the most requests this run had between sent and answered at once
};

/// A bulk query in progress (UpstreamClient::queryMany()). Lives on the client's network
/// thread; its signals are emitted there (receivers on other threads get them queued).
/// The controls are thread-safe. Keep the shared_ptr while you care about the run:
/// dropping the last reference cancels it.
class UpstreamBulkRun : public QObject {
    Q_OBJECT
public:
    ~UpstreamBulkRun() override;

    /// The number of queries in the run.
    int total() const { return m_total; }
    /// The current state (thread-safe).
    UpstreamBulkState state() const { return m_state.load(); }
    /// Resolves once the run ends (finished, stopped or cancelled), never while paused.
    QFuture<UpstreamBulkReport> report() const { return m_future; }

    /// Aborts the requests in flight (kind cancelled) and sends nothing more. Any thread.
    void cancel();
    /// Sends nothing more; the requests in flight complete. Any thread.
    void stop();
    /// Leaves the Paused state (the consecutive-UNUSABLE counter restarts). Any thread.
    void resume();

    /// Optional hook, called on the network thread when the run pauses; its decision is
    /// applied at once (Wait = stay paused). Set it before the first answer can arrive,
    /// i.e. right after queryMany() — or pass it to queryMany() (preferred).
    using PauseHook = std::function<UpstreamBulkDecision(const UpstreamBulkPause &)>;

signals:
    /// One answer (index into the input). Emitted on the network thread.
    void resultReady(int index, const triage::UpstreamEvidence &evidence);
    /// `done` of `total` answered.
    void progress(int done, int total);
    /// The run paused after `pause.consecutiveUnusable` UNUSABLE answers in a row.
    void paused(const triage::UpstreamBulkPause &pause);
    /// The run ended; same value as report().
    void finished(const triage::UpstreamBulkReport &report);

private:
    friend class UpstreamClient;
    friend class detail::UpstreamEngine;
    UpstreamBulkRun(QPointer<detail::UpstreamEngine> engine, QVector<UpstreamQuery> queries, UpstreamBulkOptions options,
                    PauseHook hook);
    void start();
    void launchMore();
    void onAnswer(int index, const UpstreamEvidence &evidence);
    void onKept(int index, bool ok);
    void doCancel();
    void doStop();
    void doResume();
    void finishIfDone();

    QPointer<detail::UpstreamEngine> m_engine;
    QVector<UpstreamQuery> m_queries;
    UpstreamBulkOptions m_options;
    PauseHook m_hook;
    int m_total = 0;
    std::atomic<UpstreamBulkState> m_state{UpstreamBulkState::Running};
    QVector<UpstreamEvidence> m_results;
    QVector<bool> m_answered;
    QMap<int, quint64> m_inFlight; ///< input index → engine job id
    QSet<int> m_keeping;           ///< answered, UpstreamBulkOptions::keep not resolved yet
    bool m_keepFailed = false;
    int m_next = 0;
    int m_done = 0;
    int m_consecutiveUnusable = 0;
    QMap<int, int> m_retries;      ///< input index → times asked again after a Retry-After
    QList<int> m_retryQueue;       ///< indexes to ask again, before m_next
    qint64 m_holdUntilMs = 0;      ///< m_wall time before which nothing is sent
    int m_retriedAfter = 0;
    qint64 m_heldMs = 0;
    int m_maxInFlight = 0;
    bool m_ended = false;
    QElapsedTimer m_wall;
    std::shared_ptr<QPromise<UpstreamBulkReport>> m_promise;
    QFuture<UpstreamBulkReport> m_future;
};

/// Queries business systems' own query APIs over HTTP (DESIGN.md §2 "Query upstream") and
/// classifies each answer as evidence (UpstreamEvidence). Owns a network thread with its
/// own QNetworkAccessManager; every public function is thread-safe and returns at once.
///
/// - Deadline: each request gets a real deadline (UpstreamConfig::timeoutMs) from a timer
///   started when it is handed to the network; on expiry it is aborted and reported as
///   kind timeout, and anything arriving later is ignored.
/// - In-flight limit: at most kMaxPerHost requests per scheme/host/port are on the wire;
///   the rest wait in this client's queue (their clocks not yet running), because Qt 6.4
///   queues more than 6 internally with their transfer timers already running.
/// - Redirects are not followed (a 3xx is UNUSABLE, kind http_other).
/// - The bearer token is read from the environment at send time, sent as
///   "Authorization: Bearer …", and appears nowhere in evidence or logs.
///
/// GUI: `whenReady(client.query(q), this, [this](UpstreamEvidence e) { … })` (WhenReady.h).
/// CLI: `UpstreamEvidence e = client.query(q).result();` (blocking the main thread is fine:
/// the work happens on the client's thread).
class UpstreamClient : public QObject {
    Q_OBJECT
public:
    /// Connections per host Qt 6.4 opens; the client never has more requests in flight per host.
    static constexpr int kMaxPerHost = 6;

    /// `upstreams` by biz_type (WorkspaceConfig::upstreams).
    explicit UpstreamClient(QMap<QString, UpstreamConfig> upstreams, QObject *parent = nullptr);
    /// Cancels everything in flight (pending futures resolve with kind cancelled) and stops
    /// the network thread.
    ~UpstreamClient() override;

    /// The configurations the client was built with, by biz_type.
    const QMap<QString, UpstreamConfig> &upstreams() const { return m_upstreams; }
    /// True when `bizType` has an upstream (a query would send a request).
    bool isConfigured(const QString &bizType) const { return m_upstreams.contains(bizType); }

    /// Queries one key with its biz_type's upstream (NOT_CONFIGURED evidence, without any
    /// request, when there is none). The future always gets exactly one result; it
    /// resolves on the network thread. Cancelling the future aborts the request (the
    /// future then has no result).
    QFuture<UpstreamEvidence> query(const UpstreamQuery &query);
    /// Same with an explicit configuration (tests, a "try this config" dialog).
    QFuture<UpstreamEvidence> query(const UpstreamConfig &config, const UpstreamQuery &query);

    /// Queries many keys, at most `options.concurrency` at a time, in input order. The
    /// returned run reports per-key results, progress, pauses and the final report.
    std::shared_ptr<UpstreamBulkRun> queryMany(QVector<UpstreamQuery> queries, UpstreamBulkOptions options = {},
                                               UpstreamBulkRun::PauseHook onPause = {});

private:
    /// Both query() forms: `config` set overrides the biz_type lookup.
    QFuture<UpstreamEvidence> submit(const std::optional<UpstreamConfig> &config, const UpstreamQuery &query);

    QMap<QString, UpstreamConfig> m_upstreams;
    QThread m_thread;
    QPointer<detail::UpstreamEngine> m_engine;
};

} // namespace triage

Q_DECLARE_METATYPE(triage::UpstreamBulkPause)
Q_DECLARE_METATYPE(triage::UpstreamBulkReport)
