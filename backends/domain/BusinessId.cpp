#include "BusinessId.h"

#include <QUuid>

namespace triage {

namespace {

/// True when `t` is a canonical decimal integer: "0", or an optional '-' and a digit 1-9
/// followed by digits (no '+', no leading zero, no spaces, not "-0").
bool isCanonicalDecimal(QStringView t)
{
    qsizetype i = 0;
    if (i < t.size() && t[i] == u'-')
        ++i;
    if (i >= t.size())
        return false;
    if (t[i] == u'0')
        return i == 0 && t.size() == 1;
    for (; i < t.size(); ++i)
        if (t[i] < u'0' || t[i] > u'9')
            return false;
    return true;
}

} // namespace

BusinessId BusinessId::fromColumn(const QVariant &value)
{
    if (!value.isValid() || value.isNull())
        return {};
    switch (value.typeId()) {
    case QMetaType::LongLong:
    case QMetaType::Int:
    case QMetaType::Short:
    case QMetaType::Long:
    case QMetaType::SChar:
        return BusinessId(QString::number(value.toLongLong()));
    case QMetaType::ULongLong:
    case QMetaType::UInt:
    case QMetaType::UShort:
    case QMetaType::ULong:
    case QMetaType::UChar:
        return BusinessId(QString::number(value.toULongLong()));
    case QMetaType::QByteArray:
        return BusinessId(QString::fromUtf8(value.toByteArray()));
    case QMetaType::QUuid:
        return BusinessId(value.toUuid().toString(QUuid::WithoutBraces));
    default:
        return BusinessId(value.toString());
    }
}

std::optional<qint64> BusinessId::toInteger() const
{
    if (!isCanonicalDecimal(m_text))
        return std::nullopt;
    bool ok = false;
    const qint64 n = m_text.toLongLong(&ok);
    return ok ? std::optional<qint64>(n) : std::nullopt;
}

std::optional<quint64> BusinessId::toUnsigned() const
{
    if (!isCanonicalDecimal(m_text) || m_text.startsWith(u'-'))
        return std::nullopt;
    bool ok = false;
    const quint64 n = m_text.toULongLong(&ok);
    return ok ? std::optional<quint64>(n) : std::nullopt;
}

QJsonValue BusinessId::toJson() const
{
    if (const auto n = toInteger())
        return QJsonValue(*n);
    return QJsonValue(m_text);
}

bool operator<(const BusinessId &a, const BusinessId &b)
{
    const bool ad = isCanonicalDecimal(a.m_text), bd = isCanonicalDecimal(b.m_text);
    if (ad && bd) {
        // Numeric order without parsing (any length): the shorter magnitude is smaller.
        const bool an = a.m_text.startsWith(u'-'), bn = b.m_text.startsWith(u'-');
        if (an != bn)
            return an;
        const qsizetype al = a.m_text.size(), bl = b.m_text.size();
        const bool magnitudeLess = al != bl ? al < bl : a.m_text < b.m_text;
        const bool magnitudeEqual = al == bl && a.m_text == b.m_text;
        return an ? (!magnitudeLess && !magnitudeEqual) : magnitudeLess;
    }
    if (ad != bd)
        return ad;
    return a.m_text < b.m_text;
}

} // namespace triage
