#pragma once

// Shared by the compensation service's step files (CompensationRunner.cpp,
// CompensationDrive.cpp); not a public API.

#include "Compensation.h"

#include <QFuture>
#include <QJsonValue>

namespace triage::compensation_steps {

/// A future that already holds `v`.
template <typename T>
QFuture<T> ready(T v)
{
    return QtFuture::makeReadyFuture(std::move(v));
}

/// Continues `f` with `fn` (which returns the next step's future) where `f` finishes, and
/// flattens the result: the next step is submitted, never waited for.
template <typename T, typename F>
auto andThen(QFuture<T> f, F &&fn)
{
    return f.then(QtFuture::Launch::Sync, std::forward<F>(fn)).unwrap();
}

/// Error: a database failed.
CompensationOutcome dbFailure(const DbError &e, const QString &compKey = {});
/// Refused: `why`; `config` when it is the configuration's fault (CLI exit 1).
CompensationOutcome refused(const QString &why, bool config = false);

} // namespace triage::compensation_steps
