#include "ReplicaCheck.h"

namespace triage {

QString replicaUrlProblem(const std::optional<ConnectionProfile> &primary, const ConnectionProfile &replica)
{
    if (replica.dialect == Dialect::Sqlite)
        return QStringLiteral("SQLite has no replicas; give a PostgreSQL or MariaDB URL");
    if (primary && primary->dialect != replica.dialect)
        return QStringLiteral("the replica must be the same kind of database as url (%1, not %2)")
            .arg(dialectName(primary->dialect), dialectName(replica.dialect));
    // A PostgreSQL standby is a copy of the whole cluster: the same database name.
    if (primary && replica.dialect == Dialect::PostgreSql && replica.database != primary->database)
        return QStringLiteral("names database \"%1\", url names \"%2\": a PostgreSQL standby has the primary's databases under "
                              "the same names")
            .arg(replica.database, primary->database);
    return {};
}

} // namespace triage
