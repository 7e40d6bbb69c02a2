#include "Keychain.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QPromise>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>

#ifdef TRIAGE_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace triage {

QString keychainService()
{
    return QStringLiteral("triage-console");
}

QString keychainKey(const ConnectionProfile &profile)
{
    return QStringLiteral("%1:%2@%3:%4/%5").arg(roleName(profile.role), profile.user, profile.host).arg(profile.port).arg(profile.database);
}

QString keychainUnavailableReason()
{
#ifdef TRIAGE_HAVE_KEYCHAIN
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return QStringLiteral("no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set)");
    return {};
#else
    return QStringLiteral("this build has no qtkeychain");
#endif
}

#ifdef TRIAGE_HAVE_KEYCHAIN
namespace {

/// The one thread every keychain job runs on. qtkeychain queues its jobs on an executor that
/// lives in the thread of the first job; jobs started from the database workers' threads (each
/// with a local event loop) and from the GUI thread raced on it and crashed in a posted
/// disconnect. Here every job is created, run and deleted on this thread's event loop.
class KeychainThread {
public:
    /// True once the application is ending: no job starts, and readers stop waiting.
    static bool stopping() { return s_stopping.load(); }

    static QObject *context()
    {
        static KeychainThread *instance = [] {
            auto *t = new KeychainThread; // lives until the application ends (a post routine stops it)
            qAddPostRoutine([] { instance->stop(); });
            return t;
        }();
        return instance->m_context;
    }

private:
    KeychainThread()
    {
        m_thread.setObjectName(QStringLiteral("keychain"));
        m_thread.start();
        m_context = new QObject;
        m_context->moveToThread(&m_thread);
    }
    void stop()
    {
        s_stopping = true; // readers still waiting (a worker's login) give up now, not after their timeout
        QMetaObject::invokeMethod(m_context, [c = m_context] { delete c; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    static inline std::atomic<bool> s_stopping{false};
    QThread m_thread;
    QObject *m_context = nullptr;
};

/// Creates a job with `makeJob` on the keychain thread and runs it there; the future gives "" or
/// the job's error text, and a read's secret goes to `secret` (set before the future finishes).
QFuture<QString> runOnKeychainThread(std::function<QKeychain::Job *()> makeJob, std::shared_ptr<QString> secret = {})
{
    auto promise = std::make_shared<QPromise<QString>>();
    QFuture<QString> future = promise->future();
    promise->start();
    if (KeychainThread::stopping()) {
        promise->addResult(QStringLiteral("the application is ending"));
        promise->finish();
        return future;
    }
    // A call dropped unrun (the application ending) destroys the promise unfinished: the
    // future is then cancelled, which callers treat as "no answer".
    QMetaObject::invokeMethod(KeychainThread::context(), [promise, makeJob = std::move(makeJob), secret] {
        if (KeychainThread::stopping()) {
            promise->addResult(QStringLiteral("the application is ending"));
            promise->finish();
            return;
        }
        QKeychain::Job *job = makeJob(); // deletes itself once finished (autoDelete)
        QObject::connect(job, &QKeychain::Job::finished, job, [promise, secret](QKeychain::Job *done) {
            if (secret && done->error() == QKeychain::NoError)
                if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(done))
                    *secret = read->textData();
            promise->addResult(done->error() == QKeychain::NoError ? QString() : done->errorString());
            promise->finish();
        });
        job->start();
    });
    return future;
}

} // namespace
#endif

std::optional<QString> readKeychainPassword(const ConnectionProfile &profile)
{
#ifdef TRIAGE_HAVE_KEYCHAIN
    if (profile.dialect == Dialect::Sqlite || !keychainUnavailableReason().isEmpty())
        return std::nullopt;
    const QString key = keychainKey(profile);
    auto secret = std::make_shared<QString>();
    QFuture<QString> done = runOnKeychainThread(
        [key] {
            auto *job = new QKeychain::ReadPasswordJob(keychainService());
            job->setKey(key);
            return job;
        },
        secret);
    // Bounded: a keychain that waits for someone to unlock it must not hold a login forever.
    QDeadlineTimer deadline(kKeychainReadTimeoutMs);
    while (!done.isFinished() && !deadline.hasExpired() && !KeychainThread::stopping())
        QThread::msleep(5);
    if (!done.isFinished() || done.isCanceled() || done.resultCount() == 0 || !done.result().isEmpty())
        return std::nullopt;
    return *secret;
#else
    Q_UNUSED(profile);
    return std::nullopt;
#endif
}

QFuture<QString> storeKeychainPassword(const ConnectionProfile &profile, const QString &secret)
{
    QString refusal = keychainUnavailableReason();
    if (refusal.isEmpty() && profile.dialect == Dialect::Sqlite)
        refusal = QStringLiteral("a SQLite store has no password");
    if (refusal.isEmpty() && secret.isEmpty())
        refusal = QStringLiteral("no password typed");
    if (!refusal.isEmpty())
        return QtFuture::makeReadyFuture(refusal);
#ifdef TRIAGE_HAVE_KEYCHAIN
    const QString key = keychainKey(profile);
    return runOnKeychainThread([key, secret] {
        auto *job = new QKeychain::WritePasswordJob(keychainService());
        job->setKey(key);
        job->setTextData(secret);
        return job;
    });
#else
    return QtFuture::makeReadyFuture(QStringLiteral("this build has no qtkeychain"));
#endif
}

} // namespace triage
