#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QUrl>

#include <optional>

class QSettings;

namespace triage {

/// How an upstream says "there is no such object" — the only answer the console treats as
/// a definitive NOT_FOUND (DESIGN.md §6). The other signal is then *not* definitive: with
/// Http404, a 2xx with an empty result is UNUSABLE (unexpected shape); with EmptyResult, a
/// 404 is UNUSABLE (the route, a proxy, …), whatever its body.
enum class NotFoundSignal {
    Http404,     ///< "404": a 404 whose body is the upstream's own JSON (an object or array)
    EmptyResult, ///< "empty": a 2xx whose result (see resultPath) is an empty array or null
};

/// "404" / "empty" (the config spellings).
QString notFoundSignalName(NotFoundSignal s);

/// One biz_type's upstream query API (DESIGN.md §2 "Query upstream"), read from the
/// `upstream_*` keys of the INI section [biz.<biz_type>] (see upstreamConfigFor()).
/// Holds no secret: the bearer token is read from the environment variable `tokenEnv`
/// when a request is sent, and is never stored, printed or logged.
struct UpstreamConfig {
    QString bizType;
    /// Prefix of relative query URLs ("https://tickets.example.internal/api"); may be
    /// empty when `queryUrl` is absolute.
    QString baseUrl;
    /// URL template, absolute or relative to `baseUrl` ("/tickets?idem_key={idem_key}").
    /// Placeholders {idem_key}, {tenant}, {ticket_id} are replaced by the percent-encoded
    /// value (every reserved character encoded, so a ':' in a key travels as %3A).
    QString queryUrl;
    QByteArray method = "GET";                   ///< "GET" or "POST" (POST sends an empty body)
    QList<QPair<QByteArray, QByteArray>> headers; ///< extra request headers, in file order
    QString tokenEnv;                             ///< env var with a bearer token; empty: none
    int timeoutMs = 5000;                         ///< deadline per request (ms), from when it is sent
    QString caFile;                               ///< PEM CA file added to the system CAs; empty: system only
    bool sendIdempotencyKey = false;              ///< send "X-Idempotency-Key: <idem_key>"
    NotFoundSignal notFound = NotFoundSignal::Http404;
    /// Dot-separated object keys leading to the result array or object in a 2xx body
    /// ("tickets", "data.items"); empty: the document root.
    QString resultPath;
    /// Dot-separated path, inside each result object, of the field that carries the queried
    /// idempotency key ("idem_key", "meta.request_key"). An object counts as FOUND only when
    /// this field equals the queried key (DESIGN.md §6); never empty.
    QString keyField = QStringLiteral("idem_key");

    /// The request URL for one key: `queryUrl` (joined to `baseUrl` when relative) with
    /// its placeholders replaced. Returns nullopt and sets `*error` when the template needs
    /// a {ticket_id} or {tenant} that is empty, or the result is not a valid http(s) URL.
    std::optional<QUrl> buildUrl(const QString &idemKey, const QString &tenant, const QString &ticketId,
                                 QString *error) const;
};

/// Reads the upstream settings of biz_type `bizType` from `settings` (an INI QSettings),
/// group [biz.<bizType>], keys:
/// - `upstream_base_url`, `upstream_query_url` (template, required to configure an upstream);
/// - `upstream_method` (GET default, or POST);
/// - `upstream_headers`: "Name: value; Name2: value2". QSettings cuts an unquoted value at
///   ';' (comment) and splits it at ','; for a settings object backed by an INI file the
///   unquoted line is re-read from the file as written, so both spellings work;
/// - `upstream_token_env`: the *name* of an environment variable holding a bearer token;
/// - `upstream_timeout_ms` (default 5000; 1..600000);
/// - `upstream_ca_file`: PEM file (must exist);
/// - `upstream_send_idempotency_key` (bool, default false);
/// - `upstream_not_found`: "404" (default) or "empty";
/// - `upstream_result_path`: dot path of the result, "" = root;
/// - `upstream_key_field`: dot path of the key inside each result object (default idem_key).
/// Returns nullopt with `*error` cleared when the section has no upstream_query_url (not
/// configured), nullopt with `*error` naming the section and key when a value is invalid.
/// A header named Authorization is rejected (use upstream_token_env: no secret in files).
std::optional<UpstreamConfig> upstreamConfigFor(const QSettings &settings, const QString &bizType, QString *error);

/// Same, opening the INI file `iniPath` (error when it does not exist).
std::optional<UpstreamConfig> upstreamConfigFor(const QString &iniPath, const QString &bizType, QString *error);

/// Every configured upstream of `settings` (each [biz.*] section with upstream_query_url),
/// by biz_type. Returns false and sets `*error` on the first invalid section.
bool loadUpstreamConfigs(const QSettings &settings, QMap<QString, UpstreamConfig> *out, QString *error);

/// Parses "Name: value; Name2: value2" into header pairs (names and values trimmed).
/// Returns nullopt and sets `*error` for an entry without ':' or with an empty name.
std::optional<QList<QPair<QByteArray, QByteArray>>> parseHeaderList(const QString &text, QString *error);

} // namespace triage
