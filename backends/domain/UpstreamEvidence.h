#pragma once

#include "UpstreamConfig.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace triage {

/// What the upstream's answer means for one key (DESIGN.md §6 inputs).
enum class UpstreamClass {
    Found,         ///< exactly one object: the side effect happened
    NotFound,      ///< definitive "no such object" (see NotFoundSignal)
    Ambiguous,     ///< several objects for one key: more than one side effect
    Unusable,      ///< no usable answer; `UnusableKind` says why
    NotConfigured, ///< the biz_type has no upstream (kind NotConfigured)
};

/// Why an answer is unusable. Each has a stable spelling (unusableKindName()).
enum class UnusableKind {
    None,              ///< "" (the answer is usable)
    Timeout,           ///< "timeout": no complete answer before the deadline (never a cancel or a not-found)
    ConnectionRefused, ///< "connection_refused"
    ConnectionReset,   ///< "connection_reset": closed or reset before a status line
    TlsError,          ///< "tls_error": handshake or certificate failure
    Http5xx,           ///< "http_5xx"
    Http401,           ///< "http_401"
    Http403,           ///< "http_403"
    Http429,           ///< "http_429"
    HttpOther,         ///< "http_other": any other non-2xx status (3xx, 400, 405, a 404 where 404 is not the not-found signal, …)
    HtmlBody,          ///< "html_body": an HTML page (a proxy, a login page), whatever the status
    TruncatedBody,     ///< "truncated_body": fewer bytes than announced, or JSON cut off at the end
    InvalidJson,       ///< "invalid_json": a body that is neither JSON nor HTML, or JSON with a syntax error
    UnexpectedShape,   ///< "unexpected_shape": valid JSON, but no result at the configured path / not an object, or an object without the key field (an envelope)
    OtherKey,          ///< "other_key": the result's objects carry another idempotency key (DESIGN.md §6)
    NetworkError,      ///< "network_error": any other transport failure (host not found, …)
    NotConfigured,     ///< "not_configured": no upstream for the biz_type, or its token variable is unset
    InvalidRequest,    ///< "invalid_request": the URL cannot be built for this key (e.g. no {ticket_id})
    Cancelled,         ///< "cancelled": aborted by the caller, or never sent (bulk stop / cancel)
};

/// "FOUND", "NOT_FOUND", "AMBIGUOUS", "UNUSABLE", "NOT_CONFIGURED".
QString upstreamClassName(UpstreamClass c);
/// The spellings listed on UnusableKind ("" for None).
QString unusableKindName(UnusableKind k);

/// HTTP header fields in wire order.
using HttpHeaderList = QList<QPair<QByteArray, QByteArray>>;

/// The request as it was sent, safe to show and store: the bearer token never appears
/// (Authorization and other credential headers read "<redacted>", and any occurrence of
/// the token in the URL is replaced by "<redacted>").
struct UpstreamRequestEvidence {
    QByteArray method;
    QString url;            ///< fully encoded URL, token redacted
    HttpHeaderList headers; ///< credential headers redacted
    QString sentAt;         ///< desktop clock, ISO UTC with microseconds ("…Z"); evidence only
};

/// One upstream answer as evidence (DESIGN.md §2): what was asked, what came back byte for
/// byte, and what it means. Copyable value type; crosses threads freely.
struct UpstreamEvidence {
    QString idemKey;
    QString bizType;
    bool sent = false;                 ///< false: never handed to the network (config error, bulk stop)
    UpstreamRequestEvidence request;
    std::optional<int> httpStatus;     ///< nullopt: no HTTP status line arrived
    QByteArray reasonPhrase;
    HttpHeaderList responseHeaders;    ///< as received (Set-Cookie redacted)
    QString contentType;               ///< the Content-Type header, or empty
    QByteArray rawBody;                ///< the body bytes exactly as received (partial on timeout / truncation)
    QString bodyPreview;               ///< the body's first 200 characters (UTF-8, lossy), for messages
    qint64 elapsedMs = -1;             ///< from when the request was sent to the answer / deadline; -1: not sent
    UpstreamClass classification = UpstreamClass::Unusable;
    UnusableKind kind = UnusableKind::None;
    QString message;                   ///< one line for operators ("timed out after 2000 ms")
    QString networkError;              ///< Qt's error text when the transport failed, else empty
    /// FOUND: one entry; AMBIGUOUS: one per object. Each is the object's raw JSON text
    /// sliced from `rawBody` (byte-exact: use it as a snapshot), unless `foundObjectsExact`
    /// is false (then compact re-serialised JSON, and `warnings` says so).
    QStringList foundObjects;
    bool foundObjectsExact = true;
    /// E.g. numbers a JSON parser would change (the raw text stays exact); the compact-JSON fallback.
    QStringList warnings;

    /// True for UNUSABLE and NOT_CONFIGURED (no usable answer; CLI exit code 5).
    bool isUnusable() const { return classification == UpstreamClass::Unusable || classification == UpstreamClass::NotConfigured; }
    /// A compact JSON object (UTF-8) for audit evidence and `--format json`: every field
    /// above; the raw body and the found objects are JSON *strings* (never re-parsed
    /// numbers), the body as "raw_body" when valid UTF-8, else "raw_body_base64".
    /// `maxTextBytes` ≥ 0 bounds the body and each found object (audit evidence,
    /// kAuditRowMaxBytes): a longer one is written as boundedJsonValue()'s cut object (its
    /// full length, SHA-256 and a prefix; for a non-UTF-8 body the prefix is in
    /// "prefix_base64"); "body_bytes" always gives the full length. -1: everything in full.
    QByteArray toJson(qsizetype maxTextBytes = -1) const;
};

/// How the transport of one request failed, as far as the classification needs to know
/// (the network client maps Qt's QNetworkReply::NetworkError onto it; this layer has no
/// Qt Network).
enum class TransportError {
    None,              ///< the transport reported no error
    ConnectionRefused, ///< nothing listens on the port
    RemoteClosed,      ///< the server closed the connection (before or during the answer)
    TlsHandshake,      ///< the TLS handshake failed
    Cancelled,         ///< Qt cancelled the transfer (its inactivity timeout, or an abort)
    Timeout,           ///< Qt's own connection timeout
    Protocol,          ///< the HTTP exchange broke (a malformed or cut-off answer)
    OtherNetwork,      ///< any other network-layer failure (host not found, proxy, …)
    Other,             ///< an error Qt reports at the HTTP or content level (4xx/5xx and such)
};

/// What came back from the network for one request, before interpretation.
struct UpstreamResponseFacts {
    TransportError transportError = TransportError::None;
    QString errorString;
    std::optional<int> status;     ///< nullopt: no status line
    QByteArray reasonPhrase;
    HttpHeaderList headers;
    QByteArray body;
    bool timedOut = false;         ///< our own deadline fired (not Qt's cancel)
    bool cancelled = false;        ///< the caller cancelled
    QStringList sslErrors;         ///< certificate problems reported by sslErrors()
};

/// Interprets `facts`, the answer to a query for `idemKey`, under `config` (pure; no I/O).
/// Fills key, classification, kind, message, status, headers, content type, raw body,
/// preview, found objects and warnings of the returned evidence; the caller adds the
/// request and timing. Order of checks: cancelled; timed out; no status (refused, reset,
/// TLS, other); truncated (transport error after the status line, or fewer bytes than
/// Content-Length); 401/403/429/5xx; HTML body; 404 (NOT_FOUND only with
/// NotFoundSignal::Http404 and a JSON object/array body); other non-2xx; 2xx: JSON syntax
/// (cut off at the end = truncated), result at `resultPath` (null or [] → NOT_FOUND with
/// EmptyResult; an object or an array of objects: the candidates; anything else
/// unexpected_shape). Each candidate must carry `keyField` (DESIGN.md §6: FOUND only for
/// this key's own object): a candidate without it is unexpected_shape (at the document
/// root without a result path: "set upstream_result_path", an envelope is never FOUND);
/// none equal to `idemKey` is other_key ("the upstream answered for another key"); of the
/// candidates equal to `idemKey`, 1 → FOUND, ≥ 2 → AMBIGUOUS (the others are ignored with a
/// warning). `foundObjects` are the business objects themselves, never their envelope.
UpstreamEvidence classifyUpstreamResponse(const UpstreamConfig &config, const QString &idemKey, const UpstreamResponseFacts &facts);

/// Evidence for a biz_type without an upstream (classification NotConfigured).
UpstreamEvidence notConfiguredEvidence(const QString &idemKey, const QString &bizType);

/// Replaces credentials in `headers` by "<redacted>": Authorization, Proxy-Authorization,
/// Cookie, Set-Cookie, and names containing "token", "secret", "password" or "api-key".
HttpHeaderList redactHeaders(const HttpHeaderList &headers);

} // namespace triage

Q_DECLARE_METATYPE(triage::UpstreamEvidence)
