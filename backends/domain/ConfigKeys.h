#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class QSettings;

namespace triage {

struct IniScan;

/// The kinds of section of a config file (resources/triage.example.ini documents them).
enum class ConfigSectionKind {
    Console,    ///< [console]
    Connection, ///< [idempotency], [intent], [ticket]
    Biz,        ///< [biz.<biz_type>]
    RecordMap,  ///< [idempotency.map] (SchemaMap.h)
    IntentMap,  ///< [intent.map]
    TicketMap,  ///< [ticket.map]
};

/// What a value must be. checkConfigValue() checks the kinds marked "checked here"; the
/// others need their section's other keys and are checked by the parser that reads them
/// (WorkspaceConfig.cpp, UpstreamConfig.cpp, CompensationConfig.cpp, ConnectionProfile.cpp).
enum class ConfigValueKind {
    Text,          ///< checked here: any text of at most `max` characters (0: no limit)
    Bool,          ///< checked here: true/false, yes/no, on/off, 1/0 (any case)
    Integer,       ///< checked here: a whole number from `min` to `max`, in `unit`
    Choice,        ///< checked here: one of `choices` (any case)
    HttpUrl,       ///< checked here: empty, or an http(s) URL with a host and no user or password
    EnvName,       ///< checked here: empty, or the name of an environment variable
    ReadableFile,  ///< checked here: empty, or a readable file
    HeaderList,    ///< checked here: "Name: value; Name2: value2", read from the raw line
    DotPath,       ///< checked here: empty, or dot-separated keys ("tickets", "data.items")
    FieldPath,     ///< checked here: a field name or dot-separated keys, not empty
    JsonTemplate,  ///< checked here: empty, or JSON once {placeholders} are filled; raw line
    UrlTemplate,   ///< by its parser: placeholders, and relative URLs need upstream_base_url
    ConnectionUrl, ///< by ConnectionProfile::fromUrl()
    TenantPattern, ///< by WorkspaceConfig: "{tenant}" exactly once
    SqlName,       ///< by SchemaMap: a table or column name (isMappableName()), or "" for none
    Spellings,     ///< by SchemaMap: stored status spellings, comma-separated
    TimeZone,      ///< checked here: an IANA time zone name known to this machine, or UTC
};

/// One valid key of the config file: the section kind it belongs to and what its value
/// must be. For the compensation pattern keys `compensation_<action>_<suffix>` of
/// [biz.<biz_type>], `name` is the suffix ("url", "timeout_ms") and `compensationSuffix`
/// is true.
struct ConfigKey {
    ConfigSectionKind section = ConfigSectionKind::Biz;
    QString name;
    ConfigValueKind kind = ConfigValueKind::Text;
    qint64 min = 0;
    qint64 max = 0;       ///< Integer: the largest value; Text: the most characters (0: any)
    QString unit;         ///< Integer: "seconds", "milliseconds"
    QStringList choices;  ///< Choice: the accepted spellings, in the order messages list them
    bool compensationSuffix = false;
};

/// Every valid key of the config file: the one list. A new key is added here (with its
/// section kind and value type) and read by its parser; resources/triage.example.ini
/// documents every key in this list (tests/config checks that it does).
const QList<ConfigKey> &configKeys();

/// The kind of the section named `name` ("console", "biz.ticket_create"); nullopt for an
/// unknown name. A "biz." name counts whatever follows (see configFileProblems()).
std::optional<ConfigSectionKind> configSectionKind(const QString &name);

/// Why `value` is not a valid value of `key`, or "" when it is (or when its kind is checked
/// by the parser, see ConfigValueKind). Messages quote the value only where it cannot be
/// a secret (booleans, numbers, choices, file names): "must be true or false, not \"maybe\"".
QString checkConfigValue(const ConfigKey &key, const QString &value);

/// Every problem of a config file against the key table, as complete message lines
/// "config PATH:LINE: …", in line order:
/// - the lines scanIniFile() found not to be INI ("not a valid INI file: …");
/// - a key before any section; an unknown section ("unknown section [consol] (did you mean
///   [console]?)"); a [biz.<biz_type>] whose biz_type is empty or not 1-32 characters of
///   letters, digits, "_", "-", "." or ":";
/// - an unknown key, with the nearest valid key of that section ("unknown key \"read_onyl\"
///   in [console] (did you mean read_only?)"), or the sections it belongs in; a
///   compensation key with an unknown suffix, or whose action has no
///   compensation_<action>_url in its section;
/// - a key set twice in one section;
/// - a '"' inside an unquoted value that QSettings would drop (except the raw-line kinds);
/// - every value checkConfigValue() rejects ("[console] read_only: must be true or false,
///   not \"maybe\"").
/// `settings` is the same file read by QSettings: values are checked as the parsers will
/// read them (the raw line for HeaderList and JsonTemplate).
QStringList configFileProblems(const IniScan &scan, const QSettings &settings);

/// Optimal-string-alignment edit distance between `a` and `b` (insertions, deletions,
/// substitutions and transpositions of neighbours each count 1).
int editDistance(const QString &a, const QString &b);

/// The candidate closest to `word` by editDistance() (the earliest on a tie); "" when
/// `candidates` is empty.
QString nearestWord(const QString &word, const QStringList &candidates);

} // namespace triage
