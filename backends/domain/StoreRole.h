#pragma once

#include <QString>

namespace triage {

/// The three stores the console reads (DESIGN.md §2). Each may be its own server.
enum class DbRole { Idempotency, Intent, Ticket };

/// "idempotency", "intent", "ticket": config section names and messages.
QString roleName(DbRole role);
/// "idempotency database", "intent-log database", "ticket database": for operators.
QString roleTitle(DbRole role);
/// A store's failure for operators, its name said once: `message` as it is when it already
/// names the store (the store errors do: "cannot connect to the ticket database (…)"), else
/// "<roleTitle> failed: <message>".
QString storeFailureText(DbRole role, const QString &message);
/// The environment variable holding this role's password ("TRIAGE_INTENT_DB_PASSWORD").
QString passwordEnvVar(DbRole role);

} // namespace triage
