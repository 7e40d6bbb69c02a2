#pragma once

#include "Environment.h"
#include "WorkspaceConfig.h"

#include <QString>

namespace triage {

/// The refusal of a write in read-only mode, one wording for every service (DESIGN.md §5
/// "Environments"): "read-only mode: <what> (<why>)". `why` names what made the workspace
/// read-only: a production workspace without `--production` (triagectl) or before writes are
/// switched on (the console), else `--read-only` / `read_only=true`.
inline QString readOnlyText(const WorkspaceConfig &config, const QString &what)
{
    const QString why = config.environment == Environment::Production
        ? QStringLiteral("the production workspace \"%1\" is read-only until writes are switched on: give triagectl "
                         "--production, or type the profile's name in the console")
              .arg(config.profileName)
        : QStringLiteral("started with --read-only or read_only=true");
    return QStringLiteral("read-only mode: %1 (%2)").arg(what, why);
}

} // namespace triage
