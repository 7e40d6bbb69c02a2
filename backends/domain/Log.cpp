#include "Log.h"

#include <mutex>

namespace triage {

std::shared_ptr<spdlog::logger> logger(const char *name)
{
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (auto existing = spdlog::get(name))
        return existing;
    auto created = spdlog::default_logger()->clone(name);
    spdlog::register_logger(created);
    return created;
}

} // namespace triage
