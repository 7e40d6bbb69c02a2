#include "JsonRead.h"

#include <cmath>

namespace triage {

QString jsonTypeName(QJsonValue::Type type)
{
    switch (type) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("undefined");
}

JsonIn::JsonIn(QJsonObject object, QString path, std::shared_ptr<QString> error)
    : m_object(std::move(object)), m_path(std::move(path)), m_error(std::move(error))
{
}

void JsonIn::fail(const QString &message) const
{
    if (m_error->isEmpty())
        *m_error = message;
}

QString JsonIn::pathOf(const QString &name) const
{
    return m_path.isEmpty() ? name : m_path + QLatin1Char('.') + name;
}

std::optional<QJsonValue> JsonIn::member(const QString &name, QJsonValue::Type type, bool nullable) const
{
    const auto it = m_object.constFind(name);
    if (it == m_object.constEnd()) {
        fail(QStringLiteral("\"%1\" is missing").arg(pathOf(name)));
        return std::nullopt;
    }
    const QJsonValue v = *it;
    if (v.type() == type || (nullable && v.isNull()))
        return v;
    fail(QStringLiteral("\"%1\" must be %2%3, not %4")
             .arg(pathOf(name), jsonTypeName(type), nullable ? QStringLiteral(" or null") : QString(),
                  jsonTypeName(v.type())));
    return std::nullopt;
}

QString JsonIn::text(const QString &name) const
{
    const auto v = member(name, QJsonValue::String, false);
    return v ? v->toString() : QString();
}

std::optional<QString> JsonIn::nullableText(const QString &name) const
{
    const auto v = member(name, QJsonValue::String, true);
    if (!v || v->isNull())
        return std::nullopt;
    return v->toString();
}

QString JsonIn::textOrNull(const QString &name) const
{
    return nullableText(name).value_or(QString());
}

std::optional<qint64> JsonIn::nullableInteger(const QString &name) const
{
    const auto v = member(name, QJsonValue::Double, true);
    if (!v || v->isNull())
        return std::nullopt;
    const double d = v->toDouble();
    if (std::floor(d) != d) {
        fail(QStringLiteral("\"%1\" must be a whole number").arg(pathOf(name)));
        return std::nullopt;
    }
    return v->toInteger();
}

qint64 JsonIn::integer(const QString &name) const
{
    const auto v = member(name, QJsonValue::Double, false);
    if (!v)
        return 0;
    return nullableInteger(name).value_or(0);
}

std::optional<double> JsonIn::nullableReal(const QString &name) const
{
    const auto v = member(name, QJsonValue::Double, true);
    if (!v || v->isNull())
        return std::nullopt;
    return v->toDouble();
}

double JsonIn::real(const QString &name) const
{
    const auto v = member(name, QJsonValue::Double, false);
    return v ? v->toDouble() : 0;
}

bool JsonIn::boolean(const QString &name) const
{
    const auto v = member(name, QJsonValue::Bool, false);
    return v && v->toBool();
}

QStringList JsonIn::strings(const QString &name, bool optional) const
{
    QStringList out;
    const QJsonArray a = array(name, optional);
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (!a.at(i).isString()) {
            fail(QStringLiteral("\"%1[%2]\" must be a string, not %3").arg(pathOf(name)).arg(i).arg(jsonTypeName(a.at(i).type())));
            return {};
        }
        out.append(a.at(i).toString());
    }
    return out;
}

QJsonArray JsonIn::array(const QString &name, bool optional) const
{
    if (optional && !has(name))
        return {};
    const auto v = member(name, QJsonValue::Array, false);
    return v ? v->toArray() : QJsonArray();
}

JsonIn JsonIn::child(const QString &name) const
{
    const auto v = member(name, QJsonValue::Object, false);
    return JsonIn(v ? v->toObject() : QJsonObject(), pathOf(name), m_error);
}

JsonIn JsonIn::element(const QString &name, const QJsonArray &array, qsizetype index) const
{
    const QString path = QStringLiteral("%1[%2]").arg(pathOf(name)).arg(index);
    const QJsonValue v = array.at(index);
    if (!v.isObject())
        fail(QStringLiteral("\"%1\" must be an object, not %2").arg(path, jsonTypeName(v.type())));
    return JsonIn(v.toObject(), path, m_error);
}

} // namespace triage
