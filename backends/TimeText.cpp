#include "TimeText.h"

#include <QDate>
#include <QDateTime>
#include <QRegularExpression>
#include <QTimeZone>

#include <cmath>

namespace triage {

namespace {
constexpr qint64 kMicrosPerSecond = 1000000;
constexpr qint64 kUnixEpochJulianDay = 2440588;
} // namespace

std::optional<UtcMicros> parseUtcMicros(QStringView text)
{
    static const QRegularExpression re(QStringLiteral(
        R"(^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$)"));
    const auto m = re.match(text.toString());
    if (!m.hasMatch())
        return std::nullopt;
    const QDate date(m.capturedView(1).toInt(), m.capturedView(2).toInt(), m.capturedView(3).toInt());
    const int h = m.capturedView(4).toInt();
    const int mi = m.capturedView(5).toInt();
    const int s = m.capturedView(6).toInt();
    if (!date.isValid() || h > 23 || mi > 59 || s > 60)
        return std::nullopt;
    QString frac = m.captured(7);
    frac = frac.left(6).leftJustified(6, QLatin1Char('0'));
    qint64 offsetSeconds = 0;
    const QStringView zone = m.capturedView(8);
    if (!zone.isEmpty() && zone != u"Z") {
        const int sign = zone.front() == u'-' ? -1 : 1;
        QString digits = zone.mid(1).toString().remove(QLatin1Char(':'));
        const int oh = digits.left(2).toInt();
        const int om = digits.size() >= 4 ? digits.mid(2, 2).toInt() : 0;
        if (oh > 23 || om > 59) // not a UTC offset
            return std::nullopt;
        offsetSeconds = sign * (oh * 3600 + om * 60);
    }
    const qint64 days = date.toJulianDay() - kUnixEpochJulianDay;
    const qint64 seconds = days * 86400 + h * 3600 + mi * 60 + s - offsetSeconds;
    return seconds * kMicrosPerSecond + frac.toLongLong();
}

QString formatUtcMicros(UtcMicros t)
{
    qint64 seconds = t / kMicrosPerSecond;
    qint64 micros = t % kMicrosPerSecond;
    if (micros < 0) {
        micros += kMicrosPerSecond;
        --seconds;
    }
    qint64 days = seconds / 86400;
    qint64 rem = seconds % 86400;
    if (rem < 0) {
        rem += 86400;
        --days;
    }
    const QDate date = QDate::fromJulianDay(days + kUnixEpochJulianDay);
    return QStringLiteral("%1-%2-%3T%4:%5:%6.%7Z")
        .arg(date.year(), 4, 10, QLatin1Char('0'))
        .arg(date.month(), 2, 10, QLatin1Char('0'))
        .arg(date.day(), 2, 10, QLatin1Char('0'))
        .arg(rem / 3600, 2, 10, QLatin1Char('0'))
        .arg((rem / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(rem % 60, 2, 10, QLatin1Char('0'))
        .arg(micros, 6, 10, QLatin1Char('0'));
}

QString formatLocal(UtcMicros t)
{
    const QDateTime utc = QDateTime::fromMSecsSinceEpoch(t / 1000, QTimeZone::utc());
    const QDateTime local = utc.toLocalTime();
    return local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss ")) + local.timeZoneAbbreviation();
}

QString canonicalTimeText(const QVariant &value)
{
    if (value.isNull() || !value.isValid())
        return {};
    const QString text = value.toString();
    if (const auto t = parseUtcMicros(text))
        return formatUtcMicros(*t);
    return text;
}

QString humanDuration(double seconds)
{
    if (std::isnan(seconds))
        return QStringLiteral("?");
    const QString sign = seconds < 0 ? QStringLiteral("-") : QString();
    double a = std::fabs(seconds);
    if (a < 1.0)
        return sign + QStringLiteral("%1ms").arg(qint64(a * 1000));
    const qint64 s = qint64(a);
    const qint64 d = s / 86400, h = (s / 3600) % 24, m = (s / 60) % 60, sec = s % 60;
    if (d > 0)
        return sign + QStringLiteral("%1d %2h").arg(d).arg(h);
    if (h > 0)
        return sign + QStringLiteral("%1h %2m").arg(h).arg(m);
    if (m > 0)
        return sign + QStringLiteral("%1m %2s").arg(m).arg(sec);
    return sign + QStringLiteral("%1s").arg(sec);
}

} // namespace triage
