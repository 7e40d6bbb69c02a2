#pragma once

#include <QString>

namespace triage {

/// The three SQL dialects the console speaks through Qt SQL (DESIGN.md §2).
enum class Dialect { PostgreSql, MySql, Sqlite };

/// "postgresql", "mysql", "sqlite": used for resource paths and messages.
QString dialectName(Dialect d);

} // namespace triage
