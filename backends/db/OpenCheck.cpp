#include "OpenCheck.h"

#include "DbSession.h"
#include "Log.h"

#include <QElapsedTimer>
#include <QMutexLocker>

namespace triage {

OpenCheck::OpenCheck(DbRole role, Problems problems) : m_role(role), m_problems(std::move(problems)) {}

DbError OpenCheck::refusal(DbRole role, const QStringList &problems)
{
    return {role, DbError::Kind::Config,
            QStringLiteral("%1: the mapping does not match the database: %2; run `triagectl doctor`")
                .arg(roleTitle(role), problems.join(QStringLiteral("; "))),
            {}};
}

void OpenCheck::require(DbSession &session)
{
    // Held while the first check runs: a bulk worker of the same store waits for its verdict
    // instead of checking again (a few catalog reads, once per workspace).
    QMutexLocker lock(&m_mutex);
    if (!m_checked) {
        QElapsedTimer timer;
        timer.start();
        const QStringList problems = m_problems(session); // throws: nothing kept, checked again next time
        m_checked = true;
        if (!problems.isEmpty())
            m_verdict = refusal(m_role, problems);
        logger("backend.sql")->debug("mapping check of the {}: {} problem(s) in {} ms", roleTitle(m_role).toStdString(),
                                     problems.size(), timer.elapsed());
    }
    if (m_verdict)
        throw DbException(*m_verdict);
}

} // namespace triage
