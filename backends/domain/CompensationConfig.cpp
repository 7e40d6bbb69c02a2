#include "CompensationConfig.h"

#include "IniScan.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>
#include <QStringList>
#include <QUrl>

namespace triage {

QString renderCompensationTemplate(const QString &tmpl, const QString &ticketId, const QString &idemKey,
                                   const QString &tenant, bool percentEncode)
{
    auto value = [&](const QString &v) {
        if (percentEncode)
            return QString::fromUtf8(QUrl::toPercentEncoding(v));
        QString e = QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
        return e.mid(2, e.size() - 4); // ["…"] → …

    };
    QString out = tmpl;
    out.replace(QLatin1String("{ticket_id}"), value(ticketId));
    out.replace(QLatin1String("{idem_key}"), value(idemKey));
    out.replace(QLatin1String("{tenant}"), value(tenant));
    return out;
}

QString resolveCompensationUrl(const QString &baseUrl, const QString &rendered, QString *error)
{
    QString text = rendered;
    if (!rendered.startsWith(QLatin1String("http://")) && !rendered.startsWith(QLatin1String("https://"))) {
        if (baseUrl.isEmpty()) {
            if (error)
                *error = QStringLiteral("relative URL \"%1\" without upstream_base_url").arg(rendered);
            return {};
        }
        QString base = baseUrl;
        while (base.endsWith(QLatin1Char('/')))
            base.chop(1);
        text = base + (rendered.startsWith(QLatin1Char('/')) ? QString() : QStringLiteral("/")) + rendered;
    }
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        if (error)
            *error = QStringLiteral("\"%1\" is not a valid http(s) URL").arg(text);
        return {};
    }
    return text;
}

bool loadCompensationConfigs(const QSettings &s, CompensationConfigs *out, QString *error)
{
    const QString prefix = QStringLiteral("compensation_");
    for (const QString &group : s.childGroups()) {
        if (!group.startsWith(QLatin1String("biz.")))
            continue;
        const QString bizType = group.mid(4);
        QStringList actions;
        const QStringList keys = s.allKeys();
        for (const QString &full : keys) {
            if (!full.startsWith(group + QLatin1Char('/')))
                continue;
            const QString k = full.mid(group.size() + 1);
            if (k.startsWith(prefix) && k.endsWith(QLatin1String("_url")) && !k.endsWith(QLatin1String("_confirm_url")))
                actions << k.mid(prefix.size(), k.size() - prefix.size() - 4);
        }
        for (const QString &action : std::as_const(actions)) {
            auto key = [&](const char *suffix) {
                return QStringLiteral("%1/compensation_%2_%3").arg(group, action, QLatin1String(suffix));
            };
            auto fail = [&](const char *suffix, const QString &why) {
                if (error)
                    *error = QStringLiteral("[%1] compensation_%2_%3: %4").arg(group, action, QLatin1String(suffix), why);
                return false;
            };
            auto text = [&](const char *suffix) {
                const QVariant v = s.value(key(suffix));
                return v.typeId() == QMetaType::QStringList ? v.toStringList().join(QLatin1Char(',')) : v.toString();
            };
            if (action.isEmpty() || action.size() > 32)
                return fail("url", QStringLiteral("the action name must have 1 to 32 characters"));
            CompensationActionConfig c;
            c.bizType = bizType;
            c.action = action;
            c.baseUrl = s.value(group + QStringLiteral("/upstream_base_url")).toString().trimmed();
            c.tokenEnv = s.value(group + QStringLiteral("/upstream_token_env")).toString().trimmed();
            c.urlTemplate = text("url").trimmed();
            // A JSON body keeps its quotes only when read from the raw line (QSettings
            // drops every '"' of an unquoted value).
            c.bodyTemplate = rawUnquotedIniValue(s, group, QStringLiteral("compensation_%1_body").arg(action)).value_or(text("body"));
            c.confirmUrlTemplate = text("confirm_url").trimmed();
            const QString method = text("method").trimmed().toUpper();
            c.method = method.isEmpty() ? QByteArray("POST") : method.toUtf8();
            if (c.method != "POST" && c.method != "PUT" && c.method != "DELETE" && c.method != "PATCH")
                return fail("method", QStringLiteral("use POST, PUT, PATCH or DELETE"));
            if (s.contains(key("timeout_ms"))) {
                bool ok = false;
                c.timeoutMs = s.value(key("timeout_ms")).toString().trimmed().toInt(&ok);
                if (!ok || c.timeoutMs < 1 || c.timeoutMs > 600000)
                    return fail("timeout_ms", QStringLiteral("give milliseconds from 1 to 600000"));
            }
            if (s.contains(key("honours_key"))) {
                const QString v = text("honours_key").trimmed().toLower();
                if (v == QLatin1String("true") || v == QLatin1String("yes") || v == QLatin1String("on") || v == QLatin1String("1"))
                    c.honoursKey = true;
                else if (v == QLatin1String("false") || v == QLatin1String("no") || v == QLatin1String("off") || v == QLatin1String("0"))
                    c.honoursKey = false;
                else
                    return fail("honours_key", QStringLiteral("use true or false"));
            }
            QString why;
            if (resolveCompensationUrl(c.baseUrl, renderCompensationTemplate(c.urlTemplate, QStringLiteral("1"),
                                                                              QStringLiteral("k"), QStringLiteral("t"), true),
                                       &why)
                    .isEmpty())
                return fail("url", why);
            if (!c.confirmUrlTemplate.isEmpty()
                && resolveCompensationUrl(c.baseUrl, renderCompensationTemplate(c.confirmUrlTemplate, QStringLiteral("1"),
                                                                                 QStringLiteral("k"), QStringLiteral("t"), true),
                                          &why)
                       .isEmpty())
                return fail("confirm_url", why);
            (*out)[bizType].insert(action, c);
        }
    }
    return true;
}

} // namespace triage
