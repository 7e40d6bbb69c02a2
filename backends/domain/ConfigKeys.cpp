#include "ConfigKeys.h"

#include "CompensationConfig.h"
#include "IniScan.h"
#include "UpstreamConfig.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QTimeZone>
#include <QUrl>

#include <algorithm>
#include <climits>
#include <vector>

namespace triage {

namespace {

using K = ConfigValueKind;
using S = ConfigSectionKind;

ConfigKey key(S section, const char *name, K kind)
{
    ConfigKey k;
    k.section = section;
    k.name = QString::fromLatin1(name);
    k.kind = kind;
    return k;
}

ConfigKey integer(S section, const char *name, qint64 min, qint64 max, const char *unit)
{
    ConfigKey k = key(section, name, K::Integer);
    k.min = min;
    k.max = max;
    k.unit = QString::fromLatin1(unit);
    return k;
}

ConfigKey choice(S section, const char *name, QStringList choices)
{
    ConfigKey k = key(section, name, K::Choice);
    k.choices = std::move(choices);
    return k;
}

ConfigKey compensation(ConfigKey k)
{
    k.compensationSuffix = true;
    return k;
}

const QString kCompensationPrefix = QStringLiteral("compensation_");

/// "a, b or c".
QString orList(const QStringList &items)
{
    if (items.size() <= 1)
        return items.join(QString());
    return items.mid(0, items.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + items.last();
}

/// "[console]", "[idempotency], [intent] or [ticket]", "[biz.<biz_type>]".
QString sectionsOf(S kind)
{
    switch (kind) {
    case S::Console: return QStringLiteral("[console]");
    case S::Connection: return QStringLiteral("[idempotency], [intent] or [ticket]");
    case S::Biz: return QStringLiteral("[biz.<biz_type>]");
    case S::RecordMap: return QStringLiteral("[idempotency.map]");
    case S::IntentMap: return QStringLiteral("[intent.map]");
    case S::TicketMap: return QStringLiteral("[ticket.map]");
    }
    return {};
}

/// The setting as one string: QSettings turns an unquoted "a, b" into a QStringList.
QString settingText(const QVariant &v)
{
    if (v.metaType().id() == QMetaType::QStringList)
        return v.toStringList().join(QStringLiteral(", "));
    return v.toString();
}

/// True for the kinds read from the raw line when unquoted (QSettings would cut them at
/// ';' or strip their quotes).
bool readsRawLine(K kind)
{
    return kind == K::HeaderList || kind == K::JsonTemplate;
}

/// The part of an unquoted value QSettings reads: up to the first ';' outside quotes.
QString beforeComment(const QString &v)
{
    bool inQuotes = false;
    for (qsizetype i = 0; i < v.size(); ++i) {
        const QChar c = v.at(i);
        if (c == QLatin1Char('\\'))
            ++i;
        else if (c == QLatin1Char('"'))
            inQuotes = !inQuotes;
        else if (c == QLatin1Char(';') && !inQuotes)
            return v.left(i);
    }
    return v;
}

/// The compensation key `name` split into action and suffix ("cancel_ticket", "url");
/// nullopt when it is not compensation_<action>_<known suffix>.
std::optional<std::pair<QString, QString>> splitCompensationKey(const QString &name)
{
    if (!name.startsWith(kCompensationPrefix))
        return std::nullopt;
    const QString rest = name.mid(kCompensationPrefix.size());
    // Longest suffix first: "x_confirm_url" is action x's confirm_url, not action x_confirm's url.
    QStringList suffixes;
    for (const ConfigKey &k : configKeys())
        if (k.compensationSuffix)
            suffixes << k.name;
    std::sort(suffixes.begin(), suffixes.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &suffix : std::as_const(suffixes)) {
        const QString tail = QLatin1Char('_') + suffix;
        if (rest.endsWith(tail) && rest.size() > tail.size())
            return std::make_pair(rest.left(rest.size() - tail.size()), suffix);
    }
    return std::nullopt;
}

const ConfigKey *findKey(S section, const QString &name, bool compensationSuffix)
{
    for (const ConfigKey &k : configKeys())
        if (k.section == section && k.name == name && k.compensationSuffix == compensationSuffix)
            return &k;
    return nullptr;
}

/// The valid keys of a section of `kind` that could have been meant by `typo`: the plain
/// keys, then compensation_<action>_<suffix> for the actions the section configures and
/// for the action `typo` itself seems to name.
QStringList candidateKeys(S kind, const QString &typo, const QStringList &sectionActions)
{
    QStringList plain, suffixes;
    for (const ConfigKey &k : configKeys()) {
        if (k.section != kind)
            continue;
        (k.compensationSuffix ? suffixes : plain) << k.name;
    }
    if (kind != S::Biz)
        return plain;
    QStringList actions = sectionActions;
    const QStringList parts = typo.split(QLatin1Char('_'));
    for (int drop = 1; drop <= 2; ++drop)
        if (parts.size() > drop + 1)
            actions << parts.mid(1, parts.size() - 1 - drop).join(QLatin1Char('_'));
    QStringList out = plain;
    for (const QString &action : std::as_const(actions))
        for (const QString &suffix : std::as_const(suffixes))
            out << kCompensationPrefix + action + QLatin1Char('_') + suffix;
    out.removeDuplicates();
    return out;
}

} // namespace

const QList<ConfigKey> &configKeys()
{
    static const QList<ConfigKey> keys = [] {
        QList<ConfigKey> k;
        // [console]
        ConfigKey op = key(S::Console, "operator", K::Text);
        op.max = 64; // triage_audit.operator is VARCHAR(64)
        k << op;
        k << key(S::Console, "read_only", K::Bool);
        // DESIGN.md §5 "Environments": read by WorkspaceConfig.cpp
        k << choice(S::Console, "environment", {QStringLiteral("production"), QStringLiteral("staging"), QStringLiteral("development")});
        ConfigKey profileName = key(S::Console, "name", K::Text);
        profileName.max = 64;
        k << profileName;
        k << integer(S::Console, "processing_timeout", 1, INT_MAX, "seconds");
        k << integer(S::Console, "reconcile_expected_every", 1, INT_MAX, "seconds"); // backends/reconcile/ReconcileConfig.cpp
        k << key(S::Console, "review_time_zone", K::TimeZone); // backends/reconcile/ReconcileConfig.cpp (the daily review)
        k << integer(S::Console, "live_poll_seconds", 0, 3600, "seconds"); // backends/queues/QueueService.cpp (live queues)
        k << integer(S::Console, "live_lookback_seconds", 0, 86400, "seconds"); // QueueService.cpp: the live poll's delta read
        k << integer(S::Console, "replica_max_lag", 1, 3600, "seconds"); // WorkspaceConfig.cpp: read replicas
        k << key(S::Console, "push", K::Bool);                                  // WorkspaceConfig.cpp: push (LISTEN/NOTIFY)
        k << integer(S::Console, "push_heartbeat_ms", 100, 600000, "milliseconds"); // WorkspaceConfig.cpp: push
        // [idempotency], [intent], [ticket]
        k << key(S::Connection, "url", K::ConnectionUrl);
        k << key(S::Connection, "replica_url", K::ConnectionUrl); // WorkspaceConfig.cpp: read replicas
        k << key(S::Connection, "listen_url", K::ConnectionUrl); // WorkspaceConfig.cpp: push listener
        // [biz.<biz_type>]: WorkspaceConfig.cpp
        k << integer(S::Biz, "processing_timeout", 1, INT_MAX, "seconds");
        k << key(S::Biz, "tenant_pattern", K::TenantPattern);
        k << choice(S::Biz, "failed_evidence", {QStringLiteral("upstream"), QStringLiteral("ticket_absent")});
        k << integer(S::Biz, "failed_evidence_max_age", 1, INT_MAX, "seconds");
        k << key(S::Biz, "money_moving", K::Bool);
        k << choice(S::Biz, "reconcile", {QStringLiteral("auto"), QStringLiteral("escalate")});
        k << integer(S::Biz, "reconcile_confirm_delay", 1, INT_MAX, "seconds");
        k << integer(S::Biz, "review_sla_hours", 1, 8760, "hours"); // ReconcileConfig.cpp: an escalation's SLA
        k << key(S::Biz, "four_eyes", K::Text); // WorkspaceConfig.cpp: checkPolicyValue() (SafetyPolicy.h)
        k << key(S::Biz, "four_eyes_amount_over", K::Text); // idem
        // [biz.<biz_type>]: UpstreamConfig.cpp
        k << key(S::Biz, "upstream_base_url", K::HttpUrl);
        k << key(S::Biz, "upstream_query_url", K::UrlTemplate);
        k << choice(S::Biz, "upstream_method", {QStringLiteral("GET"), QStringLiteral("POST")});
        k << key(S::Biz, "upstream_headers", K::HeaderList);
        k << key(S::Biz, "upstream_token_env", K::EnvName);
        k << integer(S::Biz, "upstream_timeout_ms", 1, 600000, "milliseconds");
        k << key(S::Biz, "upstream_ca_file", K::ReadableFile);
        k << key(S::Biz, "upstream_send_idempotency_key", K::Bool);
        k << choice(S::Biz, "upstream_not_found", {QStringLiteral("404"), QStringLiteral("empty")});
        k << key(S::Biz, "upstream_result_path", K::DotPath);
        k << key(S::Biz, "upstream_key_field", K::FieldPath);
        // [biz.<biz_type>] compensation_<action>_<suffix>: CompensationConfig.cpp
        k << compensation(key(S::Biz, "url", K::UrlTemplate));
        k << compensation(choice(S::Biz, "method", {QStringLiteral("POST"), QStringLiteral("PUT"), QStringLiteral("PATCH"),
                                                    QStringLiteral("DELETE")}));
        k << compensation(key(S::Biz, "body", K::JsonTemplate));
        k << compensation(key(S::Biz, "confirm_url", K::UrlTemplate));
        k << compensation(integer(S::Biz, "timeout_ms", 1, 600000, "milliseconds"));
        k << compensation(key(S::Biz, "honours_key", K::Bool));
        // [idempotency.map], [intent.map], [ticket.map]: SchemaMap.cpp
        const QStringList times = {QStringLiteral("native"), QStringLiteral("local"), QStringLiteral("epoch_s"),
                                   QStringLiteral("epoch_ms"), QStringLiteral("iso_text")};
        for (S map : {S::RecordMap, S::IntentMap, S::TicketMap}) {
            k << key(map, "table", K::SqlName);
            k << key(map, "id", K::SqlName);
            k << key(map, "idem_key", K::SqlName);
            k << key(map, "status", K::SqlName);
            k << key(map, "created_at", K::SqlName);
            k << key(map, "updated_at", K::SqlName);
            k << key(map, "status_ignore_case", K::Bool);
            k << choice(map, "time", times);
            k << key(map, "time_zone", K::Text);
        }
        for (const char *name : {"biz_type", "result_snapshot", "expire_at", "version", "tenant"})
            k << key(S::RecordMap, name, K::SqlName);
        k << key(S::RecordMap, "biz_type_value", K::Text);
        k << choice(S::RecordMap, "status_type", {QStringLiteral("integer"), QStringLiteral("text")});
        for (const char *name : {"status_processing", "status_success", "status_failed"})
            k << key(S::RecordMap, name, K::Spellings);
        for (const char *name : {"task_id", "step_id", "action", "request", "response", "error", "state_before",
                                 "state_after", "actor"})
            k << key(S::IntentMap, name, K::SqlName);
        for (const char *name : {"status_intent", "status_succeeded", "status_failed", "status_unknown",
                                 "status_reconcile_pending", "status_escalated", "status_compensated"})
            k << key(S::IntentMap, name, K::Spellings);
        for (const char *name : {"tenant_id", "title", "payload"})
            k << key(S::TicketMap, name, K::SqlName);
        k << key(S::TicketMap, "status_cancelled", K::Spellings);
        return k;
    }();
    return keys;
}

std::optional<ConfigSectionKind> configSectionKind(const QString &name)
{
    if (name == QLatin1String("console"))
        return S::Console;
    if (name == QLatin1String("idempotency") || name == QLatin1String("intent") || name == QLatin1String("ticket"))
        return S::Connection;
    if (name == QLatin1String("idempotency.map"))
        return S::RecordMap;
    if (name == QLatin1String("intent.map"))
        return S::IntentMap;
    if (name == QLatin1String("ticket.map"))
        return S::TicketMap;
    if (name.startsWith(QLatin1String("biz.")))
        return S::Biz;
    return std::nullopt;
}

int editDistance(const QString &a, const QString &b)
{
    const qsizetype n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(size_t(n + 1), std::vector<int>(size_t(m + 1)));
    for (qsizetype i = 0; i <= n; ++i)
        d[size_t(i)][0] = int(i);
    for (qsizetype j = 0; j <= m; ++j)
        d[0][size_t(j)] = int(j);
    for (qsizetype i = 1; i <= n; ++i) {
        for (qsizetype j = 1; j <= m; ++j) {
            const int cost = a.at(i - 1) == b.at(j - 1) ? 0 : 1;
            int v = std::min({d[size_t(i - 1)][size_t(j)] + 1, d[size_t(i)][size_t(j - 1)] + 1,
                              d[size_t(i - 1)][size_t(j - 1)] + cost});
            if (i > 1 && j > 1 && a.at(i - 1) == b.at(j - 2) && a.at(i - 2) == b.at(j - 1))
                v = std::min(v, d[size_t(i - 2)][size_t(j - 2)] + 1);
            d[size_t(i)][size_t(j)] = v;
        }
    }
    return d[size_t(n)][size_t(m)];
}

QString nearestWord(const QString &word, const QStringList &candidates)
{
    QString best;
    int bestDistance = INT_MAX;
    for (const QString &c : candidates) {
        const int dist = editDistance(word, c);
        if (dist < bestDistance) {
            best = c;
            bestDistance = dist;
        }
    }
    return best;
}

QString checkConfigValue(const ConfigKey &k, const QString &raw)
{
    const QString v = raw.trimmed();
    const QString shown = QStringLiteral(", not \"%1\"").arg(v);
    switch (k.kind) {
    case K::Text:
        if (k.max > 0 && v.size() > k.max)
            return QStringLiteral("must have at most %1 characters").arg(k.max);
        return {};
    case K::Bool: {
        static const QStringList spellings = {QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("yes"),
                                              QStringLiteral("no"), QStringLiteral("on"), QStringLiteral("off"),
                                              QStringLiteral("1"), QStringLiteral("0")};
        if (!spellings.contains(v.toLower()))
            return QStringLiteral("must be true or false") + shown;
        return {};
    }
    case K::Integer: {
        bool ok = false;
        const qint64 n = v.toLongLong(&ok);
        if (ok && n >= k.min && n <= k.max)
            return {};
        if (k.min == 1 && k.max == INT_MAX)
            return QStringLiteral("must be a positive number of %1").arg(k.unit) + shown;
        return QStringLiteral("must be a number of %1 between %2 and %3").arg(k.unit, QString::number(k.min), QString::number(k.max)) + shown;
    }
    case K::Choice:
        for (const QString &c : k.choices)
            if (c.compare(v, Qt::CaseInsensitive) == 0)
                return {};
        return QStringLiteral("must be %1").arg(orList(k.choices)) + shown;
    case K::HttpUrl: {
        if (v.isEmpty())
            return {};
        const QUrl url(v, QUrl::StrictMode);
        const QString scheme = url.scheme().toLower();
        if (!url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")) || url.host().isEmpty())
            return QStringLiteral("must be an http:// or https:// URL with a host");
        if (!url.userName().isEmpty() || !url.password().isEmpty())
            return QStringLiteral("must not carry credentials (use upstream_token_env)");
        return {};
    }
    case K::EnvName: {
        static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (!v.isEmpty() && !envName.match(v).hasMatch())
            return QStringLiteral("must be the name of an environment variable, not a token");
        return {};
    }
    case K::ReadableFile: {
        const QFileInfo info(v);
        if (!v.isEmpty() && (!info.isFile() || !info.isReadable()))
            return QStringLiteral("%1 is not a readable file").arg(v);
        return {};
    }
    case K::HeaderList: {
        QString why;
        const auto headers = parseHeaderList(v, &why);
        if (!headers)
            return why;
        for (const auto &h : *headers)
            if (h.first.compare("authorization", Qt::CaseInsensitive) == 0)
                return QStringLiteral("no Authorization header in the file: name an environment variable in upstream_token_env");
        return {};
    }
    case K::DotPath:
    case K::FieldPath: {
        if (v.isEmpty() && k.kind == K::DotPath)
            return {};
        const bool bad = v.isEmpty() || v.startsWith(QLatin1Char('.')) || v.endsWith(QLatin1Char('.'))
            || v.contains(QLatin1String("..")) || v.contains(QLatin1Char(' '));
        if (!bad)
            return {};
        return k.kind == K::DotPath ? QStringLiteral("must be dot-separated keys (\"tickets\", \"data.items\") or empty")
                                    : QStringLiteral("must be a field name or dot-separated keys (\"idem_key\", \"meta.idem_key\")");
    }
    case K::JsonTemplate: {
        if (v.isEmpty())
            return {};
        const QString filled = renderCompensationTemplate(v, QStringLiteral("1"), QStringLiteral("k"), QStringLiteral("t"), false);
        QJsonParseError error;
        QJsonDocument::fromJson(filled.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError)
            return QStringLiteral("must be JSON once {ticket_id}, {idem_key} and {tenant} are filled in (%1 at character %2)")
                .arg(error.errorString(), QString::number(error.offset + 1));
        return {};
    }
    case K::TimeZone:
        // The daily review's calendar days (DESIGN.md §8 "The daily review").
        if (v.isEmpty() || !QTimeZone::isTimeZoneIdAvailable(v.toUtf8()))
            return QStringLiteral("must be an IANA time zone name (such as Europe/Berlin) or UTC") + shown;
        return {};
    case K::UrlTemplate:
    case K::ConnectionUrl:
    case K::TenantPattern:
    case K::SqlName:
    case K::Spellings:
        return {};
    }
    return {};
}

QStringList configFileProblems(const IniScan &scan, const QSettings &settings)
{
    QList<QPair<int, QString>> found;
    for (const IniProblem &p : scan.problems)
        found.append({p.line, QStringLiteral("not a valid INI file: ") + p.message});

    // Sections.
    QSet<QString> badSections, reported;
    static const QRegularExpression bizTypeName(QStringLiteral("^[A-Za-z0-9_.:-]{1,32}$"));
    for (const IniSection &sec : scan.sections) {
        if (reported.contains(sec.name))
            continue;
        reported.insert(sec.name);
        const auto kind = configSectionKind(sec.name);
        if (!kind) {
            const qsizetype dot = sec.name.indexOf(QLatin1Char('.'));
            const QStringList candidates = {QStringLiteral("console"), QStringLiteral("idempotency"), QStringLiteral("intent"),
                                            QStringLiteral("ticket"), QStringLiteral("idempotency.map"),
                                            QStringLiteral("intent.map"), QStringLiteral("ticket.map"),
                                            QStringLiteral("biz.") + (dot >= 0 ? sec.name.mid(dot + 1) : sec.name)};
            found.append({sec.line, QStringLiteral("unknown section [%1] (did you mean [%2]?)")
                                        .arg(sec.name, nearestWord(sec.name, candidates))});
            badSections.insert(sec.name);
        } else if (*kind == S::Biz && !bizTypeName.match(sec.name.mid(4)).hasMatch()) {
            found.append({sec.line, sec.name.size() == 4
                                        ? QStringLiteral("[biz.] names no biz_type (write [biz.<biz_type>])")
                                        : QStringLiteral("[%1]: a biz_type has 1 to 32 letters, digits, \"_\", \"-\", \".\" or \":\"")
                                              .arg(sec.name)});
            badSections.insert(sec.name);
        }
    }

    // The compensation actions each section configures (those with a _url key).
    QHash<QString, QStringList> actions;
    for (const IniEntry &e : scan.entries) {
        const auto split = splitCompensationKey(e.key);
        if (split && split->second == QLatin1String("url") && !actions[e.section].contains(split->first))
            actions[e.section] << split->first;
    }

    QHash<QString, int> seen; // "section\nkey" → line
    static const QRegularExpression actionName(QStringLiteral("^[A-Za-z0-9_-]{1,32}$"));
    for (const IniEntry &e : scan.entries) {
        if (e.section.isEmpty()) {
            found.append({e.line, QStringLiteral("key \"%1\" is outside any [section]").arg(e.key)});
            continue;
        }
        if (badSections.contains(e.section))
            continue;
        const S kind = *configSectionKind(e.section);
        const QString id = e.section + QLatin1Char('\n') + e.key;
        if (seen.contains(id)) {
            found.append({e.line, QStringLiteral("[%1] %2 is set twice (first on line %3): keep one")
                                      .arg(e.section, e.key, QString::number(seen.value(id)))});
            continue;
        }
        seen.insert(id, e.line);

        const ConfigKey *spec = nullptr;
        QString problem;
        if (kind == S::Biz && e.key.startsWith(kCompensationPrefix)) {
            const auto split = splitCompensationKey(e.key);
            if (split) {
                spec = findKey(S::Biz, split->second, true);
                if (!actionName.match(split->first).hasMatch()) {
                    problem = QStringLiteral("[%1] %2: an action name has 1 to 32 letters, digits, \"_\" or \"-\"").arg(e.section, e.key);
                } else if (!actions.value(e.section).contains(split->first)) {
                    // Only the actions the section does configure are candidates here.
                    QStringList configured;
                    for (const QString &action : actions.value(e.section))
                        configured << kCompensationPrefix + action + QLatin1Char('_') + split->second;
                    const QString hint = configured.isEmpty()
                        ? QStringLiteral("add compensation_%1_url or remove the key").arg(split->first)
                        : QStringLiteral("did you mean %1?").arg(nearestWord(e.key, configured));
                    problem = QStringLiteral("unknown key \"%1\" in [%2]: no compensation_%3_url in this section configures the "
                                             "action \"%3\" (%4)")
                                  .arg(e.key, e.section, split->first, hint);
                }
            }
        } else {
            spec = findKey(kind, e.key, false);
        }
        if (!spec && problem.isEmpty()) {
            QStringList elsewhere;
            for (S other : {S::Console, S::Connection, S::Biz, S::RecordMap, S::IntentMap, S::TicketMap})
                if (other != kind && findKey(other, e.key, false))
                    elsewhere << sectionsOf(other);
            if (!elsewhere.isEmpty())
                problem = QStringLiteral("unknown key \"%1\" in [%2]: %1 belongs in %3")
                              .arg(e.key, e.section, elsewhere.join(QStringLiteral(" or ")));
            else
                problem = QStringLiteral("unknown key \"%1\" in [%2] (did you mean %3?)")
                              .arg(e.key, e.section, nearestWord(e.key, candidateKeys(kind, e.key, actions.value(e.section))));
        }
        if (!problem.isEmpty()) {
            found.append({e.line, problem});
            continue;
        }
        const bool raw = readsRawLine(spec->kind) && !e.quoted;
        if (!raw && !e.quoted && beforeComment(e.rawValue).contains(QLatin1Char('"'))) {
            found.append({e.line, QStringLiteral("[%1] %2: the INI reader drops a '\"' inside an unquoted value: quote the whole "
                                                 "value (\"...\") and write \\\" for each quote in it")
                                      .arg(e.section, e.key)});
            continue;
        }
        const QString value = raw ? e.rawValue : settingText(settings.value(e.section + QLatin1Char('/') + e.key));
        const QString why = checkConfigValue(*spec, value);
        if (!why.isEmpty())
            found.append({e.line, QStringLiteral("[%1] %2: %3").arg(e.section, e.key, why)});
    }

    std::stable_sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QStringList out;
    for (const auto &[line, message] : std::as_const(found))
        out << QStringLiteral("config %1:%2: %3").arg(scan.path, QString::number(line), message);
    return out;
}

} // namespace triage
