#include "CompensationReply.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

namespace triage {

namespace {

bool isJsonDocument(const CompensationHttpResult &r, QJsonObject *object = nullptr)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(r.body, &err);
    if (err.error != QJsonParseError::NoError || !(doc.isObject() || doc.isArray()))
        return false;
    if (object)
        *object = doc.object();
    return true;
}

} // namespace

SendClass classifySend(const CompensationHttpResult &r)
{
    if (!r.gotResponse)
        return SendClass::Unknown;
    if (r.status >= 200 && r.status < 300)
        return isJsonDocument(r) ? SendClass::Succeeded : SendClass::Unknown;
    static const QList<int> unclear{401, 403, 407, 408, 409, 425, 429};
    if (r.status >= 400 && r.status < 500 && !unclear.contains(r.status) && isJsonDocument(r))
        return SendClass::Refused;
    return SendClass::Unknown;
}

ConfirmClass classifyConfirm(const CompensationHttpResult &r)
{
    QJsonObject o;
    if (!r.gotResponse || r.status != 200 || !isJsonDocument(r, &o))
        return ConfirmClass::Unusable;
    QJsonValue status = o.value(QStringLiteral("status"));
    if (!status.isString())
        status = o.value(QStringLiteral("ticket")).toObject().value(QStringLiteral("status"));
    if (!status.isString())
        return ConfirmClass::Unusable;
    return status.toString() == QLatin1String("CANCELLED") ? ConfirmClass::Confirmed : ConfirmClass::Absent;
}

QString sendClassName(SendClass c)
{
    switch (c) {
    case SendClass::Succeeded: return QStringLiteral("SUCCEEDED");
    case SendClass::Refused: return QStringLiteral("REFUSED");
    case SendClass::Unknown: return QStringLiteral("UNKNOWN");
    }
    return QStringLiteral("UNKNOWN");
}

QString confirmClassName(ConfirmClass c)
{
    switch (c) {
    case ConfirmClass::Confirmed: return QStringLiteral("CONFIRMED");
    case ConfirmClass::Absent: return QStringLiteral("ABSENT");
    case ConfirmClass::Unusable: return QStringLiteral("UNUSABLE");
    }
    return QStringLiteral("UNUSABLE");
}

QString replyPreview(const QByteArray &body)
{
    return QString::fromUtf8(body.left(2000));
}

} // namespace triage
