#pragma once

#include "DbError.h"

#include <QMutex>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace triage {

class DbSession;

/// A check one store's connection must pass before any job runs on it (DESIGN.md §10
/// "Checked at open"): the workspace's mapping against the live catalog. The db layer only
/// runs it; what it checks comes from above (doctor's mappingProblems(), installed by
/// installMappingCheck(), Doctor.h), because db may not depend on the schema and doctor
/// layers (DESIGN.md §3).
///
/// One OpenCheck per store and Workspace, shared by the store's DbWorker and its bulk
/// workers: the check runs once, on the first job of whichever connection comes first, and
/// its verdict is kept for the life of the workspace (never per statement). Thread-safe.
class OpenCheck {
public:
    /// The problems `session`'s store has (one "[<section>] <key>: …" line each), none when
    /// it passes. May throw DbException (a failed catalog read): then nothing is kept and the
    /// next job checks again.
    using Problems = std::function<QStringList(DbSession &session)>;

    OpenCheck(DbRole role, Problems problems);

    /// Runs the check on `session` unless it already ran, then throws DbException with
    /// refusal() when it found problems; returns when the store passed. Called on a worker
    /// thread before each job (the verdict is cached, so only the first one costs).
    void require(DbSession &session);

    /// The error every job of a store whose mapping does not match fails with: kind Config
    /// (CLI exit 1), message "<store>: the mapping does not match the database: <problem>;
    /// <problem>; run `triagectl doctor`" (store = roleTitle(role)).
    static DbError refusal(DbRole role, const QStringList &problems);

private:
    const DbRole m_role;
    const Problems m_problems;
    QMutex m_mutex;
    bool m_checked = false;           ///< guarded by m_mutex
    std::optional<DbError> m_verdict; ///< the refusal, when the check found problems
};

} // namespace triage
