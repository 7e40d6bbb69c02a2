#pragma once
// What makes a read replica's URL unusable for a store (DESIGN.md §9 "Read replicas"): one rule
// for `replica_url` in a config file or profile and `--<store>-replica` on the command line.

#include "ConnectionProfile.h"

#include <optional>

namespace triage {

/// "" when `replica` may serve `primary`'s reads (`primary` nullopt: not known yet); else why
/// not: "SQLite has no replicas; give a PostgreSQL or MariaDB URL", "the replica must be the
/// same kind of database as url (postgresql, not mysql)", or, on PostgreSQL, "names database
/// \"x\", url names \"y\": a PostgreSQL standby has the primary's databases under the same names"
/// (another name is another database, whose rows the console would show as this store's). Pure.
QString replicaUrlProblem(const std::optional<ConnectionProfile> &primary, const ConnectionProfile &replica);

} // namespace triage
