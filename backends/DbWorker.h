#pragma once

#include "DbSession.h"

#include <QFuture>
#include <QObject>
#include <QPointer>
#include <QPromise>
#include <QThread>

#include <functional>
#include <memory>

namespace triage {

/// Owns one store's connection on a thread of its own (DESIGN.md §3: no SQL on the GUI
/// thread). Jobs are functions `T(DbSession&)` run in submission order on that thread;
/// each result comes back as a QFuture<Outcome<T>>.
///
/// Connection handling: the connection opens lazily on the first job. When a job fails
/// and a probe shows the connection is gone (server restart, idle timeout), the session
/// is re-opened and — for jobs submitted with Retry::OnReconnect (reads) — the job runs
/// once more; connectionEvent() reports both the loss and the re-open. Writes use
/// Retry::Never: their outcome after a drop must be re-read, never re-sent blindly.
class DbWorker : public QObject {
    Q_OBJECT
public:
    enum class Retry { OnReconnect, Never };

    explicit DbWorker(const ConnectionProfile &profile, QObject *parent = nullptr);
    ~DbWorker() override;

    const ConnectionProfile &profile() const { return m_profile; }

    /// Queues `job` on the worker thread. Thread-safe; callable from any thread.
    template <typename T>
    QFuture<Outcome<T>> run(std::function<T(DbSession &)> job, Retry retry = Retry::OnReconnect)
    {
        auto promise = std::make_shared<QPromise<Outcome<T>>>();
        QFuture<Outcome<T>> future = promise->future();
        promise->start();
        QMetaObject::invokeMethod(
            m_context,
            [this, promise, job = std::move(job), retry]() {
                promise->addResult(execute<T>(job, retry));
                promise->finish();
            },
            Qt::QueuedConnection);
        return future;
    }

signals:
    /// The store's connection changed: `up` false with the reason when it failed or
    /// dropped, true with a note when it was (re-)opened. Emitted from the worker thread.
    void connectionEvent(triage::DbRole role, bool up, const QString &message);

private:
    template <typename T>
    Outcome<T> execute(const std::function<T(DbSession &)> &job, Retry retry)
    {
        for (int attempt = 0;; ++attempt) {
            try {
                openIfNeeded(); // throws Connection when the server cannot be reached
            } catch (const DbException &e) {
                return Outcome<T>::failure(e.error);
            }
            try {
                return Outcome<T>::success(job(*m_session));
            } catch (const DbException &e) {
                if (e.error.kind == DbError::Kind::Config || m_session->alive())
                    return Outcome<T>::failure(e.error);
                // The statement failed because the connection is gone.
                noteDropped(e.error.message);
                if (retry == Retry::OnReconnect && attempt == 0)
                    continue;
                DbError lost = e.error;
                lost.kind = DbError::Kind::Connection;
                return Outcome<T>::failure(lost);
            } catch (const std::exception &e) {
                return Outcome<T>::failure({m_profile.role, DbError::Kind::Statement,
                                            QStringLiteral("%1: %2").arg(roleTitle(m_profile.role), QString::fromUtf8(e.what())),
                                            {}});
            }
        }
    }
    void openIfNeeded();
    void noteDropped(const QString &why);

    ConnectionProfile m_profile;
    QThread m_thread;
    QObject *m_context = nullptr;           ///< lives in m_thread; jobs are queued to it
    std::unique_ptr<DbSession> m_session;   ///< created, used and destroyed in m_thread
    bool m_wasOpen = false;                 ///< opened successfully at least once
    bool m_reportedDown = false;
};

} // namespace triage
