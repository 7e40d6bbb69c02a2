#pragma once

#include "BizTypeConfig.h"
#include "CompensationConfig.h"
#include "SafetyPolicy.h"
#include "ConnectionProfile.h"
#include "Environment.h"
#include "SchemaSql.h"
#include "SharedFlag.h"
#include "UpstreamConfig.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace triage {


/// Everything the console needs to open a workspace: three connections, biz_type
/// settings, the operator and read-only mode. Built from the command line and/or an
/// INI config file (resources/triage.example.ini documents every key).
struct WorkspaceConfig {
    ConnectionProfile idempotency;
    ConnectionProfile intent;
    ConnectionProfile ticket;
    int defaultProcessingTimeoutS = 300;
    QMap<QString, BizTypeConfig> bizTypes; ///< by biz_type
    /// The safety settings each [biz.<biz_type>] of the INI sets (absent ones nullopt): they
    /// only make the database's policy stricter (effectiveBizPolicy(), DESIGN.md §8 "Safety
    /// policy").
    QMap<QString, BizPolicy> iniPolicy;
    /// The same settings as policy rows, name → canonical value ("biz.pay.four_eyes" →
    /// "mark_success"), in the INI's own words: what `triagectl policy show` lists beside the
    /// database's rows.
    QMap<QString, QString> iniPolicyRows;
    /// Upstream query APIs by biz_type (only biz types with upstream_query_url; see
    /// upstreamConfigFor() for the upstream_* keys of [biz.<biz_type>]).
    QMap<QString, UpstreamConfig> upstreams;
    /// Compensation actions by biz_type and action (compensation_<action>_* keys of
    /// [biz.<biz_type>]; see loadCompensationConfigs()).
    CompensationConfigs compensations;
    /// The agents' tables as they really are (DESIGN.md §10): [idempotency.map],
    /// [intent.map], [ticket.map]; the default schema's names when absent.
    SchemaMap schema = SchemaMap::defaults();
    QString operatorName;                  ///< default: the OS user
    SharedFlag readOnly = false;        ///< changes after start only by Workspace::unlockWrites()
    bool isDemo = false;
    /// biz_types whose query API starts on demand (the demo's upstream simulator, started
    /// by the console at start and by triagectl for `query`): they count as having an
    /// upstream while `upstreams` is still empty.
    QStringList upstreamsOnDemand;
    /// biz_types that move money (`money_moving = true`, DESIGN.md §8 "Policy") when no
    /// config file says: the demo's payment and refund types. A config file's
    /// [biz.<biz_type>] money_moving is read by reconcileConfigFor() instead.
    QStringList moneyMovingWithoutFile;
    /// The INI file this configuration was read from; "" without --config.
    QString sourceFile;
    /// The line of each section header of `sourceFile` ("biz.ticket_create" → 12), for messages.
    QMap<QString, int> sectionLines;
    /// `[console] environment` or `--environment NAME` (DESIGN.md §5 "Environments");
    /// None when neither is given. The demo workspace is Development.
    Environment environment = Environment::None;
    /// The profile's name (`[console] name`; default: the config file's base name without
    /// its extension, "demo" for the demo workspace): shown beside the environment and typed
    /// to switch a production workspace's writes on.
    QString profileName;
    /// True while the workspace is read-only only because it is production (the console's
    /// start rule, applyEnvironmentStart()): Workspace::unlockWrites() may switch writes on.
    /// False when read-only was asked for (--read-only, read_only = true).
    SharedFlag writesLocked = false;
    /// Read replicas by DbRole (`replica_url` of [idempotency], [intent], [ticket]; DESIGN.md
    /// §9 "Read replicas"): lists, counts, details, timelines, summaries and reports read there
    /// while the lag allows (ReplicaRoute.h). Absent: every read goes to the primary.
    QMap<int, ConnectionProfile> replicas;
    /// The replica lag above which reads go to the primary (`[console] replica_max_lag`), in s.
    int replicaMaxLagS = 5;
    /// Direct connections for the PostgreSQL push listener by DbRole (`listen_url` of
    /// [idempotency], [intent], [ticket]; DESIGN.md §9 "Push"): where `url` goes through a
    /// pooler, LISTEN needs a session of its own. Absent: the listener uses `url` and checks
    /// that it reaches the server directly.
    QMap<int, ConnectionProfile> listenProfiles;
    /// `[console] push` (DESIGN.md §9 "Push"): true (default) listens on every PostgreSQL
    /// store whose tables carry the console's NOTIFY triggers; false: polling only.
    bool push = true;
    /// `[console] push_heartbeat_ms`: the listener's heartbeat interval in ms (default 2000); a
    /// listener that misses two heartbeats counts as lost.
    int pushHeartbeatMs = 2000;

    const ConnectionProfile &profile(DbRole role) const;
    ConnectionProfile &profile(DbRole role);
    /// Settings for `bizType`, or the defaults (processing timeout from [console]).
    BizTypeConfig bizType(const QString &bizType) const;

    /// Reads an INI file (QSettings). Sections [console] (operator, read_only: true/false,
    /// yes/no, on/off or 1/0; processing_timeout), [idempotency], [intent], [ticket] (key
    /// `url`), [biz.<biz_type>] (processing_timeout, tenant_pattern); every valid key is in
    /// configKeys() (ConfigKeys.h).
    /// Returns nullopt with `*error` set when the file is missing, unreadable or not valid
    /// INI, has an unknown section or key, or a value is invalid: one line per problem,
    /// "config PATH:LINE: …" naming the section and the key, with the nearest valid key
    /// for an unknown one (configFileProblems()). Connections absent from the file stay
    /// unset (see hasProfile()).
    /// The upstream_* keys of [biz.<biz_type>] fill `upstreams` (UpstreamConfig.h); an
    /// invalid upstream key fails the whole file like any other invalid value.
    static std::optional<WorkspaceConfig> fromIniFile(const QString &path, QString *error);

    /// A workspace whose three connections all open the SQLite file `path`.
    static WorkspaceConfig sqliteWorkspace(const QString &path);

    /// The mapped tables as SQL for `dialect` (every statement on the agents' tables is
    /// built from these: SchemaSql.h).
    RecordSql records(Dialect dialect) const { return RecordSql(dialect, schema.records); }
    IntentSql intents(Dialect dialect) const { return IntentSql(dialect, schema.intents); }
    TicketSql tickets(Dialect dialect) const { return TicketSql(dialect, schema.tickets); }
    /// The dialect-dependent mapping problems for the connections as configured
    /// (schemaMapProblems()); empty when none.
    QStringList schemaProblems() const
    {
        // A connection not given yet is checked once it is (PostgreSQL accepts every mapping).
        auto d = [this](DbRole r) { return hasProfile(r) ? profile(r).dialect : Dialect::PostgreSql; };
        return schemaMapProblems(schema, d(DbRole::Idempotency), d(DbRole::Intent), d(DbRole::Ticket));
    }

    /// True once a URL was given for the role (config or command line).
    bool hasProfile(DbRole role) const { return m_set.value(int(role)); }
    void setProfile(const ConnectionProfile &p)
    {
        profile(p.role) = p;
        m_set[int(p.role)] = true;
    }

private:
    QMap<int, bool> m_set;
};

/// The console's start rule (environmentStartsReadOnly()): a production workspace that is
/// not read-only already becomes read-only with `writesLocked` set; any other is left alone.
void applyEnvironmentStart(WorkspaceConfig &config);

/// An integer setting of `config`'s file; `key` is "section/name" ("console/live_poll_seconds",
/// "biz.refund/review_sla_hours"). Its value when it reads as an integer >= `min`, else
/// `fallback` — also without a file, or when the file changed since it was checked on read
/// (ConfigKeys: ranges are enforced there, with a message).
int configFileInt(const WorkspaceConfig &config, const QString &key, int fallback, int min);

/// The OS user name ($USER, $USERNAME, $LOGNAME, the passwd entry, else "unknown").
QString osUserName();

} // namespace triage
