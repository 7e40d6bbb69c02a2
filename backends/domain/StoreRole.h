#pragma once

#include <QString>

namespace triage {

/// The three stores the console reads (DESIGN.md §2). Each may be its own server.
enum class DbRole { Idempotency, Intent, Ticket };

/// "idempotency", "intent", "ticket": config section names and messages.
QString roleName(DbRole role);
/// "idempotency database", "intent-log database", "ticket database": for operators.
QString roleTitle(DbRole role);
/// The environment variable holding this role's password ("TRIAGE_INTENT_DB_PASSWORD").
QString passwordEnvVar(DbRole role);

} // namespace triage
