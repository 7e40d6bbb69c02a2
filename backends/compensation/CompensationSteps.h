#pragma once

// Shared by the compensation service's step files (CompensationRunner.cpp,
// CompensationDrive.cpp); not a public API.

#include "Compensation.h"
#include "FutureChain.h"

#include <QFuture>
#include <QJsonValue>

namespace triage::compensation_steps {

/// A future that already holds `v`.
template <typename T>
QFuture<T> ready(T v)
{
    return QtFuture::makeReadyFuture(std::move(v));
}

/// Continues `f` with `fn` (which returns the next step's future) on `pool` (the
/// workspace's merge pool, so ~Workspace waits for it) once `f` has finished, and flattens
/// the result (FutureChain.h).
template <typename T, typename F>
auto andThen(QThreadPool *pool, QFuture<T> f, F &&fn)
{
    return continueWith(std::move(f), pool, std::forward<F>(fn));
}

/// Error: a database failed.
CompensationOutcome dbFailure(const DbError &e, const QString &compKey = {});
/// Refused: `why`; `config` when it is the configuration's fault (CLI exit 1).
CompensationOutcome refused(const QString &why, bool config = false);

} // namespace triage::compensation_steps
