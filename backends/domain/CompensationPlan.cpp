#include "CompensationPlan.h"

#include "CanonicalTicket.h"
#include "MarkRules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

CompensationTargetDecision compensationTargetRule(const QVector<TicketRow> &tickets, const QString &recordStatus,
                                                  const std::optional<QString> &resultSnapshot, const QString &target,
                                                  bool override, const QString &reason)
{
    CompensationTargetDecision d;
    const TicketRow *t = nullptr;
    int live = 0;
    for (const TicketRow &x : tickets) {
        if (x.id == BusinessId(target)) // the exact text, as stored (DESIGN.md §4 "Business ids")
            t = &x;
        live += x.status.value_or(QString()) != QLatin1String("CANCELLED");
    }
    if (!t) {
        d.refusal = QStringLiteral("ticket %1 does not carry the key").arg(target);
        return d;
    }
    if (t->status.value_or(QString()) == QLatin1String("CANCELLED")) {
        d.refusal = QStringLiteral("ticket %1 is already CANCELLED").arg(target);
        return d;
    }
    const CanonicalTicket canon = canonicalTicket(tickets, recordStatus, resultSnapshot);
    if (canon.id == t->id) {
        d.refusal = QStringLiteral("ticket %1 is the canonical ticket of this key (%2): it is never a compensation target "
                                   "(DESIGN.md §6); compensate the extras instead")
                        .arg(target, canon.reason);
        return d;
    }
    if (live <= 1) {
        d.refusal = QStringLiteral("ticket %1 is the key's only ticket that is not CANCELLED: keep the canonical ticket").arg(target);
        return d;
    }
    QStringList uncertain;
    if (const QStringList fields = keyReuseFields(tickets); !fields.isEmpty())
        uncertain << QStringLiteral("key reuse: the tickets' business payloads differ (%1), so they are different operations "
                                    "under one key, not retries")
                         .arg(fields.join(QStringLiteral(", ")));
    if (!canon.inconsistency.isEmpty())
        uncertain << canon.inconsistency;
    if (!uncertain.isEmpty()) {
        d.overridable = true;
        if (!override) {
            d.refusal = QStringLiteral("%1; compensate only with --override and a reason of at least %2 characters if you are sure")
                            .arg(uncertain.join(QStringLiteral("; ")))
                            .arg(kOverrideReasonMinLength);
            return d;
        }
        if (reason.trimmed().size() < kOverrideReasonMinLength) {
            d.refusal = QStringLiteral("--override needs a reason of at least %1 characters").arg(kOverrideReasonMinLength);
            return d;
        }
        d.overridden = uncertain.join(QStringLiteral("; "));
    }
    return d;
}

QByteArray CompensationHttpRequest::toJson() const
{
    QJsonArray hs;
    for (const auto &h : headers)
        hs.append(QJsonArray{QString::fromUtf8(h.first), QString::fromUtf8(h.second)});
    const QJsonObject o{{QStringLiteral("method"), QString::fromUtf8(method)},
                        {QStringLiteral("url"), url},
                        {QStringLiteral("headers"), hs},
                        {QStringLiteral("body"), QString::fromUtf8(body)},
                        {QStringLiteral("confirm_url"), confirmUrl},
                        {QStringLiteral("timeout_ms"), timeoutMs},
                        {QStringLiteral("honours_key"), honoursKey},
                        {QStringLiteral("token_env"), tokenEnv}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<CompensationHttpRequest> CompensationHttpRequest::fromJson(const QByteArray &json)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    CompensationHttpRequest r;
    r.method = o.value(QStringLiteral("method")).toString().toUtf8();
    r.url = o.value(QStringLiteral("url")).toString();
    for (const QJsonValue &h : o.value(QStringLiteral("headers")).toArray())
        r.headers.append({h.toArray().at(0).toString().toUtf8(), h.toArray().at(1).toString().toUtf8()});
    r.body = o.value(QStringLiteral("body")).toString().toUtf8();
    r.confirmUrl = o.value(QStringLiteral("confirm_url")).toString();
    r.timeoutMs = o.value(QStringLiteral("timeout_ms")).toInt(5000);
    r.honoursKey = o.value(QStringLiteral("honours_key")).toBool(true);
    r.tokenEnv = o.value(QStringLiteral("token_env")).toString();
    if (r.method.isEmpty() || r.url.isEmpty())
        return std::nullopt;
    return r;
}

std::optional<CompensationHttpRequest> renderCompensationRequest(const CompensationActionConfig &cfg, const QString &target,
                                                                 const QString &sourceKey, const QString &tenant,
                                                                 const QString &compKey, QString *error)
{
    CompensationHttpRequest req;
    req.method = cfg.method;
    QString why;
    req.url = resolveCompensationUrl(cfg.baseUrl, renderCompensationTemplate(cfg.urlTemplate, target, sourceKey, tenant, true), &why);
    if (req.url.isEmpty()) {
        *error = QStringLiteral("url: %1").arg(why);
        return std::nullopt;
    }
    if (!cfg.confirmUrlTemplate.isEmpty()) {
        req.confirmUrl = resolveCompensationUrl(
            cfg.baseUrl, renderCompensationTemplate(cfg.confirmUrlTemplate, target, sourceKey, tenant, true), &why);
        if (req.confirmUrl.isEmpty()) {
            *error = QStringLiteral("confirm_url: %1").arg(why);
            return std::nullopt;
        }
    }
    req.body = renderCompensationTemplate(cfg.bodyTemplate, target, sourceKey, tenant, false).toUtf8();
    req.headers.append(qMakePair(QByteArray("X-Idempotency-Key"), compKey.toUtf8()));
    if (!req.body.isEmpty())
        req.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    req.timeoutMs = cfg.timeoutMs;
    req.honoursKey = cfg.honoursKey;
    req.tokenEnv = cfg.tokenEnv;
    return req;
}

QString canonicalTargetRefusal(const QVector<TicketRow> &tickets, const QString &recordStatus,
                               const std::optional<QString> &resultSnapshot, const QString &compKey,
                               const QString &target, const QString &sourceKey)
{
    const CanonicalTicket canon = canonicalTicket(tickets, recordStatus, resultSnapshot);
    if (!canon.id || *canon.id != BusinessId(target))
        return {};
    return QStringLiteral("compensation %1 targets ticket %2, the canonical ticket of key \"%3\" "
                          "(%4): it is never a compensation target (DESIGN.md §6); nothing sent")
        .arg(compKey, target, sourceKey, canon.reason);
}

} // namespace triage
