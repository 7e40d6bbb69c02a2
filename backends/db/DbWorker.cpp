#include "DbWorker.h"

#include "Log.h"
#include "ThreadExit.h"

#include <QAtomicInt>

namespace triage {

namespace {
QAtomicInt s_connectionCounter;
}

DbWorker::DbWorker(const ConnectionProfile &profile, QObject *parent)
    : QObject(parent), m_profile(profile)
{
    qRegisterMetaType<triage::DbRole>("triage::DbRole");
    m_thread.setObjectName(QStringLiteral("db-%1").arg(roleName(profile.role)));
    m_context = new QObject; // no parent: moved to the worker thread, deleted there
    m_context->moveToThread(&m_thread);
    m_thread.start();
    const QString name = QStringLiteral("triage-%1-%2").arg(roleName(profile.role)).arg(s_connectionCounter.fetchAndAddRelaxed(1));
    QMetaObject::invokeMethod(
        m_context, [this, name]() { m_session = std::make_unique<DbSession>(m_profile, name, m_activity); }, Qt::QueuedConnection);
}

DbWorker::~DbWorker()
{
    // Close the connection on the thread that opened it, then stop the thread.
    // (The context object is deleted here, once its thread has finished, not inside its
    // own event handler.)
    QMetaObject::invokeMethod(
        m_context,
        [this]() {
            m_session.reset();
            releaseThreadLibraryState(); // before the thread ends: ThreadExit.h
            m_thread.quit();
        },
        Qt::QueuedConnection);
    m_thread.wait();
    delete m_context;
    m_context = nullptr;
}

void DbWorker::openIfNeeded()
{
    if (m_session->db().isOpen())
        return;
    try {
        m_session->ensureOpen();
    } catch (const DbException &e) {
        if (!m_reportedDown) {
            m_reportedDown = true;
            logger("backend.sql")->warn("{}", e.error.message);
            emit connectionEvent(m_profile.role, false, e.error.message);
        }
        throw;
    }
    if (m_reportedDown || m_wasOpen) {
        const QString note = m_wasOpen ? QStringLiteral("re-opened the connection to the %1").arg(roleTitle(m_profile.role))
                                       : QStringLiteral("connected to the %1").arg(roleTitle(m_profile.role));
        logger("backend.sql")->info("{}", note);
        emit connectionEvent(m_profile.role, true, note);
    } else {
        emit connectionEvent(m_profile.role, true, QStringLiteral("connected to the %1").arg(roleTitle(m_profile.role)));
    }
    m_reportedDown = false;
    m_wasOpen = true;
}

void DbWorker::waitForQueuedJobs()
{
    // Queued behind every job submitted so far (one FIFO queue): when it runs, they have all
    // run and finished their promises, which started their continuations.
    QMetaObject::invokeMethod(m_context, [] {}, Qt::BlockingQueuedConnection);
}

void DbWorker::setOpenCheck(std::shared_ptr<OpenCheck> check)
{
    // Queued like a job, so it holds for every job submitted after this call.
    QMetaObject::invokeMethod(
        m_context, [this, check = std::move(check)]() { m_openCheck = check; }, Qt::QueuedConnection);
}

void DbWorker::requireOpenCheck()
{
    try {
        m_openCheck->require(*m_session);
    } catch (const DbException &e) {
        if (e.error.kind == DbError::Kind::Config && !m_reportedCheck) {
            m_reportedCheck = true;
            logger("backend.sql")->warn("{}", e.error.message.toStdString());
            emit connectionEvent(m_profile.role, false, e.error.message);
        }
        throw;
    }
}

void DbWorker::noteDropped(const QString &why)
{
    m_session->close();
    logger("backend.sql")->warn("connection to the {} dropped: {}", roleTitle(m_profile.role), why);
    emit connectionEvent(m_profile.role, false,
                         QStringLiteral("the connection to the %1 dropped; it is re-opened on next use").arg(roleTitle(m_profile.role)));
}

} // namespace triage
