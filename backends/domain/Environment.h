#pragma once

#include <QString>

#include <optional>

namespace triage {

/// The environment a workspace (today: a config file, the profile) belongs to
/// (`[console] environment`, `--environment NAME`; DESIGN.md §5 "Environments").
/// None: no environment given, nothing changes.
enum class Environment { None, Development, Staging, Production };

/// The environment spelled `name` ("production", "staging", "development"; any case, spaces
/// around ignored); nullopt for any other text (also for "").
std::optional<Environment> environmentFromName(const QString &name);
/// "production", "staging", "development"; "" for None.
QString environmentName(Environment env);
/// The accepted spellings as messages list them: "production, staging or development".
QString environmentChoices();

/// The console's start rule (DESIGN.md §5 "Environments"): a production workspace opens
/// read-only until the operator switches writes on (writesUnlockAccepted()).
bool environmentStartsReadOnly(Environment env);
/// The unlock rule: writes are switched on only when `typed` is exactly `profileName`
/// (case and spaces count; an empty name never unlocks).
bool writesUnlockAccepted(const QString &typed, const QString &profileName);

/// triagectl's rule: a writing command on a production workspace needs `--production`.
/// The refusal message for `command` on such a workspace without the flag
/// ("mark writes to the databases of the production workspace \"shop-prod\": refused without
/// --production (give --production to write to production)"), or "" when the command may run
/// (not production, or `productionFlag`).
QString productionWriteRefusal(Environment env, const QString &profileName, const QString &command, bool productionFlag);

/// The environment and profile as the console shows them in its band, its title and its
/// confirmations: "PRODUCTION — shop-prod"; "" for None.
QString environmentLabel(Environment env, const QString &profileName);

} // namespace triage
