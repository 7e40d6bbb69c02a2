#include "UpstreamConfig.h"

#include "IniScan.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

namespace triage {

namespace {

const QStringList &knownPlaceholders()
{
    static const QStringList p{QStringLiteral("idem_key"), QStringLiteral("tenant"), QStringLiteral("ticket_id")};
    return p;
}

const QRegularExpression &placeholderPattern()
{
    static const QRegularExpression re(QStringLiteral("\\{([^{}]*)\\}"));
    return re;
}

/// The setting as one string: QSettings turns an unquoted "a, b" into a QStringList.
QString settingText(const QVariant &v)
{
    if (v.metaType().id() == QMetaType::QStringList)
        return v.toStringList().join(QStringLiteral(", "));
    return v.toString();
}

std::optional<bool> parseBool(const QString &text)
{
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("true") || t == QLatin1String("1") || t == QLatin1String("yes") || t == QLatin1String("on"))
        return true;
    if (t == QLatin1String("false") || t == QLatin1String("0") || t == QLatin1String("no") || t == QLatin1String("off"))
        return false;
    return std::nullopt;
}

} // namespace

QString notFoundSignalName(NotFoundSignal s)
{
    return s == NotFoundSignal::Http404 ? QStringLiteral("404") : QStringLiteral("empty");
}

std::optional<QList<QPair<QByteArray, QByteArray>>> parseHeaderList(const QString &text, QString *error)
{
    QList<QPair<QByteArray, QByteArray>> out;
    const QStringList entries = text.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    for (const QString &raw : entries) {
        const QString entry = raw.trimmed();
        if (entry.isEmpty())
            continue;
        const qsizetype colon = entry.indexOf(QLatin1Char(':'));
        if (colon <= 0) {
            if (error)
                *error = QStringLiteral("header \"%1\" is not \"Name: value\"").arg(entry);
            return std::nullopt;
        }
        const QString name = entry.left(colon).trimmed();
        static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
        if (!token.match(name).hasMatch()) {
            if (error)
                *error = QStringLiteral("header name \"%1\" is not a valid HTTP token").arg(name);
            return std::nullopt;
        }
        out.append({name.toLatin1(), entry.mid(colon + 1).trimmed().toUtf8()});
    }
    return out;
}

std::optional<QUrl> UpstreamConfig::buildUrl(const QString &idemKey, const QString &tenant, const QString &ticketId,
                                             QString *error) const
{
    auto fail = [&](const QString &why) -> std::optional<QUrl> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    QString text;
    qsizetype last = 0;
    auto it = placeholderPattern().globalMatch(queryUrl);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        text += queryUrl.mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        QString value;
        if (name == QLatin1String("idem_key"))
            value = idemKey;
        else if (name == QLatin1String("tenant"))
            value = tenant;
        else if (name == QLatin1String("ticket_id"))
            value = ticketId;
        else
            return fail(QStringLiteral("unknown placeholder {%1} in upstream_query_url").arg(name));
        if (value.isEmpty())
            return fail(QStringLiteral("upstream_query_url needs {%1}, which is not known for this key").arg(name));
        text += QString::fromLatin1(QUrl::toPercentEncoding(value));
        last = m.capturedEnd();
    }
    text += queryUrl.mid(last);

    const bool absolute = text.startsWith(QLatin1String("http://"), Qt::CaseInsensitive)
        || text.startsWith(QLatin1String("https://"), Qt::CaseInsensitive);
    if (!absolute) {
        if (baseUrl.isEmpty())
            return fail(QStringLiteral("upstream_query_url is relative and upstream_base_url is not set"));
        QString base = baseUrl;
        while (base.endsWith(QLatin1Char('/')))
            base.chop(1);
        if (!text.startsWith(QLatin1Char('/')) && !text.startsWith(QLatin1Char('?')))
            text.prepend(QLatin1Char('/'));
        text.prepend(base);
    }
    const QUrl url = QUrl::fromEncoded(text.toUtf8(), QUrl::StrictMode);
    if (!url.isValid())
        return fail(QStringLiteral("not a valid URL: %1").arg(url.errorString()));
    const QString scheme = url.scheme().toLower();
    if ((scheme != QLatin1String("http") && scheme != QLatin1String("https")) || url.host().isEmpty())
        return fail(QStringLiteral("the upstream URL must be http:// or https:// with a host"));
    return url;
}

std::optional<UpstreamConfig> upstreamConfigFor(const QSettings &s, const QString &bizType, QString *error)
{
    if (error)
        error->clear();
    const QString group = QStringLiteral("biz.") + bizType;
    auto key = [&](const char *name) { return group + QLatin1Char('/') + QLatin1String(name); };
    auto fail = [&](const char *name, const QString &why) -> std::optional<UpstreamConfig> {
        if (error)
            *error = QStringLiteral("[%1] %2: %3").arg(group, QLatin1String(name), why);
        return std::nullopt;
    };
    if (!s.contains(key("upstream_query_url")))
        return std::nullopt; // not configured

    UpstreamConfig c;
    c.bizType = bizType;
    c.queryUrl = settingText(s.value(key("upstream_query_url"))).trimmed();
    if (c.queryUrl.isEmpty())
        return fail("upstream_query_url", QStringLiteral("must not be empty"));
    c.baseUrl = settingText(s.value(key("upstream_base_url"))).trimmed();
    if (!c.baseUrl.isEmpty()) {
        const QUrl base(c.baseUrl, QUrl::StrictMode);
        const QString scheme = base.scheme().toLower();
        if (!base.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")) || base.host().isEmpty())
            return fail("upstream_base_url", QStringLiteral("must be an http:// or https:// URL with a host"));
        if (!base.password().isEmpty() || !base.userName().isEmpty())
            return fail("upstream_base_url", QStringLiteral("must not carry credentials (use upstream_token_env)"));
    }
    auto it = placeholderPattern().globalMatch(c.queryUrl);
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (!knownPlaceholders().contains(name))
            return fail("upstream_query_url", QStringLiteral("unknown placeholder {%1} (known: {idem_key}, {tenant}, {ticket_id})").arg(name));
    }
    {
        // Validate the template's shape with sample values.
        QString why;
        if (!c.buildUrl(QStringLiteral("k"), QStringLiteral("t"), QStringLiteral("1"), &why))
            return fail("upstream_query_url", why);
    }

    if (s.contains(key("upstream_method"))) {
        c.method = settingText(s.value(key("upstream_method"))).trimmed().toUpper().toLatin1();
        if (c.method != "GET" && c.method != "POST")
            return fail("upstream_method", QStringLiteral("must be GET or POST"));
    }
    if (s.contains(key("upstream_headers"))) {
        QString why;
        const QString text = rawUnquotedIniValue(s, group, QStringLiteral("upstream_headers"))
                                 .value_or(settingText(s.value(key("upstream_headers"))));
        auto headers = parseHeaderList(text, &why);
        if (!headers)
            return fail("upstream_headers", why);
        for (const auto &h : *headers) {
            if (h.first.compare("authorization", Qt::CaseInsensitive) == 0)
                return fail("upstream_headers", QStringLiteral("no Authorization header in the file: name an environment variable in upstream_token_env"));
        }
        c.headers = *headers;
    }
    c.tokenEnv = settingText(s.value(key("upstream_token_env"))).trimmed();
    static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    if (!c.tokenEnv.isEmpty() && !envName.match(c.tokenEnv).hasMatch())
        return fail("upstream_token_env", QStringLiteral("must be the name of an environment variable, not a token"));
    if (s.contains(key("upstream_timeout_ms"))) {
        bool ok = false;
        c.timeoutMs = settingText(s.value(key("upstream_timeout_ms"))).trimmed().toInt(&ok);
        if (!ok || c.timeoutMs <= 0 || c.timeoutMs > 600000)
            return fail("upstream_timeout_ms", QStringLiteral("must be a number of milliseconds between 1 and 600000"));
    }
    c.caFile = settingText(s.value(key("upstream_ca_file"))).trimmed();
    if (!c.caFile.isEmpty() && !QFileInfo(c.caFile).isReadable())
        return fail("upstream_ca_file", QStringLiteral("%1 is not a readable file").arg(c.caFile));
    if (s.contains(key("upstream_send_idempotency_key"))) {
        auto b = parseBool(settingText(s.value(key("upstream_send_idempotency_key"))));
        if (!b)
            return fail("upstream_send_idempotency_key", QStringLiteral("must be true or false"));
        c.sendIdempotencyKey = *b;
    }
    if (s.contains(key("upstream_not_found"))) {
        const QString v = settingText(s.value(key("upstream_not_found"))).trimmed().toLower();
        if (v == QLatin1String("404"))
            c.notFound = NotFoundSignal::Http404;
        else if (v == QLatin1String("empty"))
            c.notFound = NotFoundSignal::EmptyResult;
        else
            return fail("upstream_not_found", QStringLiteral("must be \"404\" or \"empty\""));
    }
    c.resultPath = settingText(s.value(key("upstream_result_path"))).trimmed();
    if (c.resultPath.startsWith(QLatin1Char('.')) || c.resultPath.endsWith(QLatin1Char('.')) || c.resultPath.contains(QLatin1String("..")))
        return fail("upstream_result_path", QStringLiteral("must be dot-separated keys (\"tickets\", \"data.items\") or empty"));
    if (s.contains(key("upstream_key_field"))) {
        c.keyField = settingText(s.value(key("upstream_key_field"))).trimmed();
        if (c.keyField.isEmpty() || c.keyField.startsWith(QLatin1Char('.')) || c.keyField.endsWith(QLatin1Char('.'))
            || c.keyField.contains(QLatin1String("..")))
            return fail("upstream_key_field",
                        QStringLiteral("must be dot-separated keys naming the field that carries the idempotency key "
                                       "(\"idem_key\", \"meta.request_key\")"));
    }
    return c;
}

std::optional<UpstreamConfig> upstreamConfigFor(const QString &iniPath, const QString &bizType, QString *error)
{
    if (!QFileInfo(iniPath).isReadable()) {
        if (error)
            *error = QStringLiteral("config %1: no such file or not readable").arg(iniPath);
        return std::nullopt;
    }
    const QSettings s(iniPath, QSettings::IniFormat);
    auto c = upstreamConfigFor(s, bizType, error);
    if (!c && error && !error->isEmpty())
        *error = QStringLiteral("config %1: %2").arg(iniPath, *error);
    return c;
}

bool loadUpstreamConfigs(const QSettings &s, QMap<QString, UpstreamConfig> *out, QString *error)
{
    for (const QString &group : s.childGroups()) {
        if (!group.startsWith(QLatin1String("biz.")))
            continue;
        const QString name = group.mid(4);
        QString why;
        auto c = upstreamConfigFor(s, name, &why);
        if (!c) {
            if (!why.isEmpty()) {
                if (error)
                    *error = why;
                return false;
            }
            continue;
        }
        if (out)
            out->insert(name, *c);
    }
    return true;
}

} // namespace triage
