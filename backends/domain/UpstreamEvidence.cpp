#include "UpstreamEvidence.h"

#include "JsonText.h"
#include "RawJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QStringDecoder>

#include <limits>

namespace triage {

QString upstreamClassName(UpstreamClass c)
{
    switch (c) {
    case UpstreamClass::Found: return QStringLiteral("FOUND");
    case UpstreamClass::NotFound: return QStringLiteral("NOT_FOUND");
    case UpstreamClass::Ambiguous: return QStringLiteral("AMBIGUOUS");
    case UpstreamClass::Unusable: return QStringLiteral("UNUSABLE");
    case UpstreamClass::NotConfigured: return QStringLiteral("NOT_CONFIGURED");
    }
    return QStringLiteral("UNUSABLE");
}

QString unusableKindName(UnusableKind k)
{
    switch (k) {
    case UnusableKind::None: return QString();
    case UnusableKind::Timeout: return QStringLiteral("timeout");
    case UnusableKind::ConnectionRefused: return QStringLiteral("connection_refused");
    case UnusableKind::ConnectionReset: return QStringLiteral("connection_reset");
    case UnusableKind::TlsError: return QStringLiteral("tls_error");
    case UnusableKind::Http5xx: return QStringLiteral("http_5xx");
    case UnusableKind::Http401: return QStringLiteral("http_401");
    case UnusableKind::Http403: return QStringLiteral("http_403");
    case UnusableKind::Http429: return QStringLiteral("http_429");
    case UnusableKind::HttpOther: return QStringLiteral("http_other");
    case UnusableKind::HtmlBody: return QStringLiteral("html_body");
    case UnusableKind::TruncatedBody: return QStringLiteral("truncated_body");
    case UnusableKind::InvalidJson: return QStringLiteral("invalid_json");
    case UnusableKind::UnexpectedShape: return QStringLiteral("unexpected_shape");
    case UnusableKind::OtherKey: return QStringLiteral("other_key");
    case UnusableKind::NetworkError: return QStringLiteral("network_error");
    case UnusableKind::NotConfigured: return QStringLiteral("not_configured");
    case UnusableKind::InvalidRequest: return QStringLiteral("invalid_request");
    case UnusableKind::Cancelled: return QStringLiteral("cancelled");
    }
    return QString();
}

HttpHeaderList redactHeaders(const HttpHeaderList &headers)
{
    HttpHeaderList out;
    out.reserve(headers.size());
    for (const auto &h : headers) {
        const QByteArray name = h.first.toLower();
        const bool secret = name == "authorization" || name == "proxy-authorization" || name == "cookie"
            || name == "set-cookie" || name.contains("token") || name.contains("secret") || name.contains("password")
            || name.contains("api-key") || name.contains("apikey") || name.contains("api_key");
        out.append({h.first, secret ? QByteArray("<redacted>") : h.second});
    }
    return out;
}

namespace {

QByteArray headerValue(const HttpHeaderList &headers, const QByteArray &name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

bool looksLikeHtml(const QString &contentType, const QByteArray &body)
{
    if (contentType.contains(QLatin1String("html"), Qt::CaseInsensitive))
        return true;
    const QByteArray head = body.left(512).trimmed().toLower();
    return head.startsWith("<!doctype") || head.startsWith("<html") || head.startsWith("<head") || head.startsWith("<body")
        || head.startsWith("<?xml") || (head.startsWith('<') && head.contains('>'));
}

QString statusText(const UpstreamResponseFacts &f)
{
    QString s = QStringLiteral("HTTP %1").arg(*f.status);
    if (!f.reasonPhrase.isEmpty())
        s += QLatin1Char(' ') + QString::fromLatin1(f.reasonPhrase);
    return s;
}

QString pathText(const QString &path)
{
    return path.isEmpty() ? QStringLiteral("the document root") : QStringLiteral("\"%1\"").arg(path);
}

UpstreamEvidence &unusable(UpstreamEvidence &e, UnusableKind kind, const QString &message)
{
    e.classification = UpstreamClass::Unusable;
    e.kind = kind;
    e.message = message;
    return e;
}

/// True when a parse error sits at the very end of the body: the text was cut off.
bool cutOffAtEnd(const QByteArray &body, const QJsonParseError &err)
{
    const QByteArray trimmed = body.trimmed();
    if (trimmed.isEmpty())
        return false;
    switch (err.error) {
    case QJsonParseError::UnterminatedObject:
    case QJsonParseError::UnterminatedArray:
    case QJsonParseError::UnterminatedString:
    case QJsonParseError::MissingNameSeparator:
    case QJsonParseError::MissingValueSeparator:
    case QJsonParseError::IllegalValue:
    case QJsonParseError::IllegalNumber:
    case QJsonParseError::IllegalEscapeSequence:
    case QJsonParseError::IllegalUTF8String:
        break;
    default:
        return false;
    }
    // A cut-off document starts like JSON, does not end with its closing bracket, and
    // the parser stops within a few bytes of the end (it reads ahead one token).
    const char first = trimmed.front();
    const char last = trimmed.back();
    return (first == '{' || first == '[') && last != '}' && last != ']'
        && err.offset + 8 >= trimmed.size();
}

} // namespace

UpstreamEvidence notConfiguredEvidence(const QString &idemKey, const QString &bizType)
{
    UpstreamEvidence e;
    e.idemKey = idemKey;
    e.bizType = bizType;
    e.classification = UpstreamClass::NotConfigured;
    e.kind = UnusableKind::NotConfigured;
    e.message = bizType.isEmpty()
        ? QStringLiteral("no upstream: the key's biz_type is unknown (no idempotency record)")
        : QStringLiteral("no upstream configured for biz_type %1 (upstream_query_url in [biz.%1])").arg(bizType);
    return e;
}

UpstreamEvidence classifyUpstreamResponse(const UpstreamConfig &config, const QString &idemKey, const UpstreamResponseFacts &f)
{
    UpstreamEvidence e;
    e.idemKey = idemKey;
    e.bizType = config.bizType;
    e.httpStatus = f.status;
    e.reasonPhrase = f.reasonPhrase;
    e.responseHeaders = redactHeaders(f.headers);
    e.contentType = QString::fromLatin1(headerValue(f.headers, "content-type"));
    e.rawBody = f.body;
    e.bodyPreview = QString::fromUtf8(f.body.left(800)).left(200);
    if (f.transportError != TransportError::None)
        e.networkError = f.errorString;

    if (f.cancelled)
        return unusable(e, UnusableKind::Cancelled, QStringLiteral("cancelled before an answer"));
    if (f.timedOut) {
        QString m = QStringLiteral("timed out after %1 ms").arg(config.timeoutMs);
        if (f.status)
            m += QStringLiteral(" (%1 arrived, %2 body bytes, the rest never came)").arg(statusText(f)).arg(f.body.size());
        else
            m += QStringLiteral(" (no answer; a late answer is ignored)");
        return unusable(e, UnusableKind::Timeout, m);
    }

    using NE = TransportError;
    const NE err = f.transportError;
    if (!f.status) {
        switch (err) {
        case NE::ConnectionRefused:
            return unusable(e, UnusableKind::ConnectionRefused, QStringLiteral("connection refused: %1").arg(f.errorString));
        case NE::RemoteClosed:
            return unusable(e, UnusableKind::ConnectionReset,
                            QStringLiteral("connection closed before an answer: %1").arg(f.errorString));
        case NE::TlsHandshake: {
            QString m = QStringLiteral("TLS failure: %1").arg(f.errorString);
            if (!f.sslErrors.isEmpty())
                m += QStringLiteral(" (%1)").arg(f.sslErrors.join(QStringLiteral("; ")));
            return unusable(e, UnusableKind::TlsError, m);
        }
        case NE::Cancelled:
        case NE::Timeout:
            // Qt's own transfer (inactivity) timeout: a timeout, never a cancel.
            return unusable(e, UnusableKind::Timeout, QStringLiteral("timed out: %1").arg(f.errorString));
        case NE::None:
            return unusable(e, UnusableKind::NetworkError, QStringLiteral("no HTTP status in the answer"));
        default:
            if (!f.sslErrors.isEmpty())
                return unusable(e, UnusableKind::TlsError, QStringLiteral("TLS failure: %1").arg(f.sslErrors.join(QStringLiteral("; "))));
            return unusable(e, UnusableKind::NetworkError, QStringLiteral("network error: %1").arg(f.errorString));
        }
    }

    const int status = *f.status;
    const QString st = statusText(f);
    // A transport failure after the status line, or fewer bytes than announced: cut off.
    const bool transportFailed = err != NE::None && err != NE::Other;
    bool lengthOk = true;
    const qint64 announced = headerValue(f.headers, "content-length").trimmed().toLongLong(&lengthOk);
    if (transportFailed || (lengthOk && !headerValue(f.headers, "content-length").isEmpty() && announced > f.body.size()))
        return unusable(e, UnusableKind::TruncatedBody,
                        QStringLiteral("%1, body cut off after %2 bytes%3%4")
                            .arg(st)
                            .arg(f.body.size())
                            .arg(lengthOk && announced > 0 ? QStringLiteral(" of %1 announced").arg(announced) : QString(),
                                 f.errorString.isEmpty() || err == NE::None ? QString() : QStringLiteral(" (%1)").arg(f.errorString)));

    if (status == 401)
        return unusable(e, UnusableKind::Http401, QStringLiteral("%1: the upstream refused the credentials").arg(st));
    if (status == 403)
        return unusable(e, UnusableKind::Http403, QStringLiteral("%1: the credentials may not read this").arg(st));
    if (status == 429) {
        const QByteArray retry = headerValue(f.headers, "retry-after");
        return unusable(e, UnusableKind::Http429,
                        QStringLiteral("%1: rate limited%2").arg(st, retry.isEmpty() ? QString() : QStringLiteral(" (Retry-After: %1)").arg(QString::fromLatin1(retry))));
    }
    if (status >= 500 && status <= 599)
        return unusable(e, UnusableKind::Http5xx, QStringLiteral("%1: upstream server error").arg(st));

    const bool html = looksLikeHtml(e.contentType, f.body);
    if (html)
        return unusable(e, UnusableKind::HtmlBody,
                        QStringLiteral("%1 with an HTML body (Content-Type %2), not the upstream's JSON: \"%3\"")
                            .arg(st, e.contentType.isEmpty() ? QStringLiteral("none") : e.contentType,
                                 e.bodyPreview.simplified().left(120)));

    QJsonParseError perr{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.body, &perr);
    const bool jsonOk = perr.error == QJsonParseError::NoError && (doc.isObject() || doc.isArray());

    if (status == 404) {
        if (config.notFound == NotFoundSignal::Http404 && jsonOk) {
            e.classification = UpstreamClass::NotFound;
            e.message = QStringLiteral("NOT_FOUND: %1 with the upstream's JSON body").arg(st);
            e.warnings += rawjson::lossyNumbers(f.body);
            return e;
        }
        if (config.notFound == NotFoundSignal::EmptyResult)
            return unusable(e, UnusableKind::HttpOther,
                            QStringLiteral("%1, but this upstream signals \"not found\" with an empty result (upstream_not_found=empty)").arg(st));
        return unusable(e, UnusableKind::InvalidJson,
                        QStringLiteral("%1 whose body is not the upstream's JSON (%2): \"%3\"")
                            .arg(st, f.body.isEmpty() ? QStringLiteral("empty") : perr.errorString(), e.bodyPreview.simplified().left(120)));
    }
    if (status < 200 || status > 299) {
        QString m = QStringLiteral("%1: not an answer to a query").arg(st);
        const QByteArray location = headerValue(f.headers, "location");
        if (!location.isEmpty())
            m += QStringLiteral(" (redirect to %1, not followed)").arg(QString::fromUtf8(location));
        return unusable(e, UnusableKind::HttpOther, m);
    }

    // 2xx.
    if (perr.error != QJsonParseError::NoError) {
        if (cutOffAtEnd(f.body, perr))
            return unusable(e, UnusableKind::TruncatedBody,
                            QStringLiteral("%1, JSON cut off at the end after %2 bytes (%3)").arg(st).arg(f.body.size()).arg(perr.errorString()));
        return unusable(e, UnusableKind::InvalidJson,
                        QStringLiteral("%1 with invalid JSON: %2 at offset %3").arg(st, f.body.trimmed().isEmpty() ? QStringLiteral("empty body") : perr.errorString()).arg(perr.offset));
    }
    if (!jsonOk)
        return unusable(e, UnusableKind::InvalidJson, QStringLiteral("%1 with a bare JSON scalar, not an object or array").arg(st));

    e.warnings += rawjson::lossyNumbers(f.body);
    if (!e.warnings.isEmpty())
        e.warnings.prepend(QStringLiteral("the answer has numbers a JSON parser changes; the raw text below is exact, parsed views are not"));

    const QStringList path = config.resultPath.isEmpty() ? QStringList() : config.resultPath.split(QLatin1Char('.'));
    // Navigate the parsed document (the authority on validity), then slice the raw text.
    QJsonValue v = doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
    for (const QString &k : path) {
        if (!v.isObject() || !v.toObject().contains(k))
            return unusable(e, UnusableKind::UnexpectedShape,
                            QStringLiteral("%1, but the JSON has no result at %2").arg(st, pathText(config.resultPath)));
        v = v.toObject().value(k);
    }
    const auto span = rawjson::find(f.body, path);

    if (v.isNull() || (v.isArray() && v.toArray().isEmpty())) {
        if (config.notFound == NotFoundSignal::EmptyResult) {
            e.classification = UpstreamClass::NotFound;
            e.message = QStringLiteral("NOT_FOUND: %1 with an empty result at %2").arg(st, pathText(config.resultPath));
            return e;
        }
        return unusable(e, UnusableKind::UnexpectedShape,
                        QStringLiteral("%1 with an empty result at %2, but this upstream signals \"not found\" with 404 (upstream_not_found=404)")
                            .arg(st, pathText(config.resultPath)));
    }
    if (!v.isObject() && !v.isArray())
        return unusable(e, UnusableKind::UnexpectedShape,
                        QStringLiteral("%1, but the result at %2 is neither an object nor an array").arg(st, pathText(config.resultPath)));

    // The candidate objects with their raw spans (empty when the raw text cannot be cut).
    QVector<QJsonObject> objects;
    QVector<RawSpan> spans;
    if (v.isObject()) {
        objects.append(v.toObject());
        if (span && rawjson::kind(f.body, *span) == '{')
            spans.append(*span);
    } else {
        for (const QJsonValue &x : v.toArray()) {
            if (!x.isObject())
                return unusable(e, UnusableKind::UnexpectedShape,
                                QStringLiteral("%1, but the result at %2 holds something other than objects").arg(st, pathText(config.resultPath)));
            objects.append(x.toObject());
        }
        if (span)
            spans = rawjson::arrayElements(f.body, *span);
    }
    const bool spansExact = spans.size() == objects.size();

    // Which key does each object answer for (DESIGN.md §6: FOUND only for this key's own object)?
    const QStringList keyPath = config.keyField.split(QLatin1Char('.'));
    const QString keyField = QStringLiteral("\"%1\"").arg(config.keyField);
    QVector<qsizetype> mine;
    qsizetype withoutKey = 0;
    QString otherKey; // the first other key, as text
    for (qsizetype i = 0; i < objects.size(); ++i) {
        QJsonValue k = objects.at(i);
        bool present = true;
        for (const QString &part : keyPath) {
            if (!k.isObject() || !k.toObject().contains(part)) {
                present = false;
                break;
            }
            k = k.toObject().value(part);
        }
        if (!present) {
            ++withoutKey;
        } else if (k.isString() && k.toString() == idemKey) {
            mine.append(i);
        } else if (otherKey.isNull()) {
            otherKey = k.isString() ? QStringLiteral("\"%1\"").arg(k.toString())
                                    : QString::fromUtf8(QJsonDocument(QJsonArray{k}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
        }
    }
    if (withoutKey > 0) {
        if (v.isObject() && path.isEmpty())
            return unusable(e, UnusableKind::UnexpectedShape,
                            QStringLiteral("%1, but the object at the document root has no %2 field: an envelope, not the "
                                           "business object (set upstream_result_path)")
                                .arg(st, keyField));
        const QString which = objects.size() == 1 ? QStringLiteral("the object at %1 has").arg(pathText(config.resultPath))
                                           : QStringLiteral("%1 of %2 objects at %3 have").arg(withoutKey).arg(objects.size()).arg(pathText(config.resultPath));
        return unusable(e, UnusableKind::UnexpectedShape,
                        QStringLiteral("%1, but %2 no %3 field: cannot tell which key %4 for (set upstream_key_field)")
                            .arg(st, which, keyField, objects.size() == 1 ? QStringLiteral("it answers") : QStringLiteral("they answer")));
    }
    if (mine.isEmpty()) {
        const QString which = objects.size() == 1
            ? QStringLiteral("the object at %1 has %2 = %3").arg(pathText(config.resultPath), config.keyField, otherKey)
            : QStringLiteral("none of the %1 objects at %2 has this key (the first has %3 = %4)")
                  .arg(objects.size())
                  .arg(pathText(config.resultPath), config.keyField, otherKey);
        return unusable(e, UnusableKind::OtherKey, QStringLiteral("%1, but the upstream answered for another key: %2").arg(st, which));
    }

    for (qsizetype i : std::as_const(mine)) {
        if (spansExact)
            e.foundObjects.append(QString::fromUtf8(spans.at(i).slice(f.body)));
        else
            e.foundObjects.append(QString::fromUtf8(QJsonDocument(objects.at(i)).toJson(QJsonDocument::Compact)));
    }
    if (!spansExact) {
        e.foundObjectsExact = false;
        e.warnings.append(QStringLiteral("the found objects could not be cut from the raw text: they are shown re-serialised (numbers may differ); use the raw body"));
    }
    const qsizetype others = objects.size() - mine.size();
    if (others > 0)
        e.warnings.append(QStringLiteral("the answer also held %1 object(s) at %2 for other keys (the first has %3 = %4): "
                                         "not this key's, ignored")
                              .arg(others)
                              .arg(pathText(config.resultPath), config.keyField, otherKey));
    if (mine.size() == 1) {
        e.classification = UpstreamClass::Found;
        e.message = QStringLiteral("FOUND: one object at %1 (%2)").arg(pathText(config.resultPath), st);
    } else {
        e.classification = UpstreamClass::Ambiguous;
        e.message = QStringLiteral("AMBIGUOUS: %1 objects at %2 for one key (%3)").arg(mine.size()).arg(pathText(config.resultPath), st);
    }
    return e;
}

QByteArray UpstreamEvidence::toJson(qsizetype maxTextBytes) const
{
    auto headersJson = [](const HttpHeaderList &h) {
        QJsonArray a;
        for (const auto &p : h)
            a.append(QJsonArray{QString::fromLatin1(p.first), QString::fromUtf8(p.second)});
        return a;
    };
    QJsonObject o;
    o.insert(QStringLiteral("idem_key"), idemKey);
    o.insert(QStringLiteral("biz_type"), bizType);
    o.insert(QStringLiteral("classification"), upstreamClassName(classification));
    o.insert(QStringLiteral("kind"), unusableKindName(kind));
    o.insert(QStringLiteral("message"), message);
    o.insert(QStringLiteral("sent"), sent);
    QJsonObject req;
    req.insert(QStringLiteral("method"), QString::fromLatin1(request.method));
    req.insert(QStringLiteral("url"), request.url);
    req.insert(QStringLiteral("headers"), headersJson(request.headers));
    req.insert(QStringLiteral("sent_at"), request.sentAt);
    o.insert(QStringLiteral("request"), req);
    o.insert(QStringLiteral("http_status"), httpStatus ? QJsonValue(*httpStatus) : QJsonValue());
    o.insert(QStringLiteral("reason_phrase"), QString::fromLatin1(reasonPhrase));
    o.insert(QStringLiteral("response_headers"), headersJson(responseHeaders));
    o.insert(QStringLiteral("content_type"), contentType);
    const qsizetype limit = maxTextBytes < 0 ? std::numeric_limits<qsizetype>::max() : maxTextBytes;
    auto toUtf8 = QStringDecoder(QStringDecoder::Utf8);
    const QString body = toUtf8(rawBody);
    if (!toUtf8.hasError()) {
        o.insert(QStringLiteral("raw_body"), rawBody.size() <= limit ? QJsonValue(body) : boundedJsonValue(rawBody, limit));
    } else if (rawBody.size() <= limit) {
        o.insert(QStringLiteral("raw_body_base64"), QString::fromLatin1(rawBody.toBase64()));
    } else {
        QJsonObject cut = boundedJsonValue(rawBody, limit).toObject();
        cut.insert(QStringLiteral("prefix"), QString()); // not UTF-8: the prefix as base64 instead
        cut.insert(QStringLiteral("prefix_base64"), QString::fromLatin1(rawBody.left(limit * 3 / 4 - 200).toBase64()));
        o.insert(QStringLiteral("raw_body_base64"), cut);
    }
    o.insert(QStringLiteral("body_bytes"), rawBody.size());
    o.insert(QStringLiteral("elapsed_ms"), elapsedMs);
    o.insert(QStringLiteral("network_error"), networkError);
    QJsonArray objects;
    for (const QString &f : foundObjects)
        objects.append(boundedJsonValue(f.toUtf8(), limit));
    o.insert(QStringLiteral("found_objects"), objects);
    o.insert(QStringLiteral("found_objects_exact"), foundObjectsExact);
    o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace triage
