#include "Environment.h"

namespace triage {

std::optional<Environment> environmentFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("production"))
        return Environment::Production;
    if (n == QLatin1String("staging"))
        return Environment::Staging;
    if (n == QLatin1String("development"))
        return Environment::Development;
    return std::nullopt;
}

QString environmentName(Environment env)
{
    switch (env) {
    case Environment::None: return {};
    case Environment::Development: return QStringLiteral("development");
    case Environment::Staging: return QStringLiteral("staging");
    case Environment::Production: return QStringLiteral("production");
    }
    return {};
}

QString environmentChoices()
{
    return QStringLiteral("production, staging or development");
}

bool environmentStartsReadOnly(Environment env)
{
    return env == Environment::Production;
}

bool writesUnlockAccepted(const QString &typed, const QString &profileName)
{
    return !profileName.isEmpty() && typed == profileName;
}

QString productionWriteRefusal(Environment env, const QString &profileName, const QString &command, bool productionFlag)
{
    if (env != Environment::Production || productionFlag)
        return {};
    return QStringLiteral("%1 writes to the databases of the production workspace \"%2\": refused without --production "
                          "(give --production to write to production)")
        .arg(command, profileName);
}

QString environmentLabel(Environment env, const QString &profileName)
{
    if (env == Environment::None)
        return {};
    return QStringLiteral("%1 — %2").arg(environmentName(env).toUpper(), profileName);
}

} // namespace triage
