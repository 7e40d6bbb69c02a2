#pragma once

#include <QString>
#include <QByteArray>

#include <spdlog/spdlog.h>
#include <fmt/format.h>

#include <memory>

/// Lets spdlog / fmt format QString and QByteArray directly (UTF-8).
template <>
struct fmt::formatter<QString> : fmt::formatter<std::string_view> {
    auto format(const QString &s, format_context &ctx) const -> decltype(ctx.out())
    {
        const QByteArray utf8 = s.toUtf8();
        return fmt::formatter<std::string_view>::format(
            std::string_view(utf8.constData(), size_t(utf8.size())), ctx);
    }
};

namespace triage {

/// Returns the named logger of one layer ("backend.sql", "backend.upstream", "models",
/// "views", "app"), creating it on first use with the sinks of spdlog's default logger
/// (so the app's rotating file and console sinks apply to every layer). Thread-safe.
std::shared_ptr<spdlog::logger> logger(const char *name);

} // namespace triage
