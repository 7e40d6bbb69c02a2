#include "Amount.h"

#include "RawJson.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace triage {

std::optional<QString> amountOf(const std::optional<QString> &jsonObject, QString *currency)
{
    if (currency)
        currency->clear();
    if (!jsonObject)
        return std::nullopt;
    const QByteArray bytes = jsonObject->toUtf8();
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt; // rawjson reads only what QJsonDocument accepted
    auto member = [&](const QString &name) -> std::optional<QString> {
        const auto span = rawjson::find(bytes, {name});
        if (!span)
            return std::nullopt;
        const char k = rawjson::kind(bytes, *span);
        if (k == '"')
            return doc.object().value(name).toString();
        if (k == '-' || (k >= '0' && k <= '9'))
            return QString::fromUtf8(span->slice(bytes)); // the literal as written, never through a double
        return std::nullopt;
    };
    if (currency)
        *currency = member(QStringLiteral("currency")).value_or(QString());
    return member(QStringLiteral("amount"));
}

QString canonicalDecimal(const QString &text)
{
    // ASCII digits only: \d would also take other scripts' digits.
    static const QRegularExpression re(QStringLiteral("^([+-]?)([0-9]*)(?:\\.([0-9]*))?$"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch() || (m.captured(2).isEmpty() && m.captured(3).isEmpty()))
        return {};
    QString whole = m.captured(2);
    QString frac = m.captured(3);
    while (whole.size() > 1 && whole.startsWith(QLatin1Char('0')))
        whole.remove(0, 1);
    if (whole.isEmpty())
        whole = QStringLiteral("0");
    while (frac.endsWith(QLatin1Char('0')))
        frac.chop(1);
    QString sign = m.captured(1) == QLatin1String("-") ? QStringLiteral("-") : QString();
    if (whole == QLatin1String("0") && frac.isEmpty())
        sign.clear();
    return sign + whole + (frac.isEmpty() ? QString() : QLatin1Char('.') + frac);
}

bool sameAmount(const QString &a, const QString &b)
{
    const QString ca = canonicalDecimal(a), cb = canonicalDecimal(b);
    if (!ca.isEmpty() && !cb.isEmpty())
        return ca == cb;
    return a == b;
}

int compareDecimalMagnitude(const QString &a, const QString &b)
{
    auto parts = [](QString t) {
        if (t.startsWith(QLatin1Char('-')) || t.startsWith(QLatin1Char('+')))
            t.remove(0, 1);
        const qsizetype dot = t.indexOf(QLatin1Char('.'));
        return std::pair<QString, QString>(dot < 0 ? t : t.left(dot), dot < 0 ? QString() : t.mid(dot + 1));
    };
    const auto [wa, fa] = parts(a);
    const auto [wb, fb] = parts(b);
    if (wa.size() != wb.size()) // canonical: no leading zeros, so more digits is more
        return wa.size() < wb.size() ? -1 : 1;
    if (const int c = wa.compare(wb); c != 0)
        return c < 0 ? -1 : 1;
    const qsizetype n = std::max(fa.size(), fb.size());
    const int c = QString(fa).leftJustified(n, QLatin1Char('0')).compare(QString(fb).leftJustified(n, QLatin1Char('0')));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

void collectAmount(QVector<AmountSeen> &out, const QString &source, const std::optional<QString> &jsonObject)
{
    QString currency;
    if (const std::optional<QString> amount = amountOf(jsonObject, &currency))
        out << AmountSeen{source, *amount, currency};
}

} // namespace triage
