#pragma once

#include <atomic>

namespace triage {

/// A bool that one thread may change while other threads read or copy it: a relaxed
/// atomic whose copies take its value at the time of the copy. For the WorkspaceConfig
/// flags that change after start (readOnly, writesLocked: Workspace::unlockWrites() on the
/// GUI thread while continuations on the merge pool read `config()`); nothing else is
/// ordered by it. Reads and writes look like a plain bool's.
class SharedFlag {
public:
    SharedFlag(bool value = false) : m_value(value) {} // NOLINT: implicit, like the bool it replaces
    SharedFlag(const SharedFlag &other) : m_value(other.m_value.load(std::memory_order_relaxed)) {}
    SharedFlag &operator=(const SharedFlag &other)
    {
        m_value.store(other.m_value.load(std::memory_order_relaxed), std::memory_order_relaxed);
        return *this;
    }
    SharedFlag &operator=(bool value)
    {
        m_value.store(value, std::memory_order_relaxed);
        return *this;
    }
    operator bool() const { return m_value.load(std::memory_order_relaxed); } // NOLINT: reads like a bool

private:
    std::atomic<bool> m_value;
};

} // namespace triage
