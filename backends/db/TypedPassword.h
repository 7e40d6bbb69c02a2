#pragma once

#include "StoreRole.h"

#include <QString>

namespace triage {

/// A password the operator typed (File → Connect…, DESIGN.md §5 "Connection profiles") for
/// one store, used by lookupPasswordWithSource() before any other source — on the calling
/// thread only, and only while this guard lives (the Connect dialog's "Test" runs on a
/// worker thread of its own). The secret lives in memory only: never logged or written;
/// its source reads "the password typed in the Connect dialog". An empty secret changes
/// nothing. Not nestable per thread (the inner guard wins until it ends, then none).
class TypedPasswordScope {
public:
    TypedPasswordScope(DbRole role, const QString &secret);
    ~TypedPasswordScope();
    TypedPasswordScope(const TypedPasswordScope &) = delete;
    TypedPasswordScope &operator=(const TypedPasswordScope &) = delete;
};

/// What lookupPasswordWithSource() reports as the source of a typed password.
QString typedPasswordSource();

} // namespace triage
