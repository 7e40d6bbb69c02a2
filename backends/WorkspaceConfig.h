#pragma once

#include "CompensationConfig.h"
#include "ConnectionProfile.h"
#include "UpstreamConfig.h"

#include <QMap>
#include <QString>

#include <optional>

namespace triage {

/// What counts as evidence that a key's side effect did not happen (DESIGN.md §6 "FAILED
/// needs positive evidence of absence").
enum class FailedEvidence {
    /// Default: a recorded definitive upstream NOT_FOUND, obtained after updated_at +
    /// processing_timeout and after the key's latest intent attempt, younger than
    /// failed_evidence_max_age. Config spelling "upstream".
    Upstream,
    /// The side effect *is* the ticket row and tickets always carry the key: stale and no
    /// ticket is enough (the seeds' reconciliation rule). Config spelling "ticket_absent".
    TicketAbsent,
};

/// Per-biz_type settings (DESIGN.md §4): the processing timeout and where the tenant
/// sits in the idempotency key.
struct BizTypeConfig {
    /// Seconds after which a PROCESSING record is stale (outcome UNKNOWN). Must exceed
    /// the operation's P99. Default 300 s.
    int processingTimeoutS = 300;
    /// Tenant pattern: "{tenant}" marks the tenant field, "*" one ':'-free field, anything
    /// else is literal; fields are ':'-separated. Default "*:*:{tenant}" (third field).
    QString tenantPattern = QStringLiteral("*:*:{tenant}");
    /// `failed_evidence = upstream | ticket_absent` (default upstream).
    FailedEvidence failedEvidence = FailedEvidence::Upstream;
    /// `failed_evidence_max_age` in seconds: how old a NOT_FOUND may be and still prove
    /// absence (default 900 s = 15 min).
    int failedEvidenceMaxAgeS = 900;
};

/// Everything the console needs to open a workspace: three connections, biz_type
/// settings, the operator and read-only mode. Built from the command line and/or an
/// INI config file (resources/triage.example.ini documents every key).
struct WorkspaceConfig {
    ConnectionProfile idempotency;
    ConnectionProfile intent;
    ConnectionProfile ticket;
    int defaultProcessingTimeoutS = 300;
    QMap<QString, BizTypeConfig> bizTypes; ///< by biz_type
    /// Upstream query APIs by biz_type (only biz types with upstream_query_url; see
    /// upstreamConfigFor() for the upstream_* keys of [biz.<biz_type>]).
    QMap<QString, UpstreamConfig> upstreams;
    /// Compensation actions by biz_type and action (compensation_<action>_* keys of
    /// [biz.<biz_type>]; see loadCompensationConfigs()).
    CompensationConfigs compensations;
    QString operatorName;                  ///< default: the OS user
    bool readOnly = false;
    bool isDemo = false;
    /// The INI file this configuration was read from; "" without --config.
    QString sourceFile;
    /// The line of each section header of `sourceFile` ("biz.ticket_create" → 12), for messages.
    QMap<QString, int> sectionLines;

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

/// The OS user name ($USER, $USERNAME, $LOGNAME, the passwd entry, else "unknown").
QString osUserName();

} // namespace triage
