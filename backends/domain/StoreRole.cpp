#include "StoreRole.h"

namespace triage {

QString roleName(DbRole role)
{
    switch (role) {
    case DbRole::Idempotency: return QStringLiteral("idempotency");
    case DbRole::Intent: return QStringLiteral("intent");
    case DbRole::Ticket: return QStringLiteral("ticket");
    }
    return {};
}

QString roleTitle(DbRole role)
{
    switch (role) {
    case DbRole::Idempotency: return QStringLiteral("idempotency database");
    case DbRole::Intent: return QStringLiteral("intent-log database");
    case DbRole::Ticket: return QStringLiteral("ticket database");
    }
    return {};
}

QString storeFailureText(DbRole role, const QString &message)
{
    if (message.contains(roleTitle(role)))
        return message;
    return QStringLiteral("%1 failed: %2").arg(roleTitle(role), message);
}

QString passwordEnvVar(DbRole role)
{
    return QStringLiteral("TRIAGE_%1_DB_PASSWORD").arg(roleName(role).toUpper());
}

} // namespace triage
