#pragma once

// The network side of UpstreamClient (not a public API): one QNetworkAccessManager on the
// client's thread, the per-host in-flight limit, the deadlines, and the reply facts handed
// to the classification (UpstreamEvidence.h).
#include "UpstreamClient.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>

#include <deque>
#include <functional>
#include <map>

namespace triage {

/// Qt's network error as the classification sees it (UpstreamEvidence.h TransportError).
TransportError transportErrorOf(QNetworkReply::NetworkError error);

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

} // namespace detail

} // namespace triage
