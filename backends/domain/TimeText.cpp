#include "TimeText.h"

#include <QDate>
#include <QDateTime>
#include <QTimeZone>

#include <cmath>

namespace triage {

namespace {
constexpr qint64 kMicrosPerSecond = 1000000;
constexpr qint64 kUnixEpochJulianDay = 2440588;

/// `\s` of the pattern this parser replaced (PCRE2 without UCP): ASCII whitespace only.
constexpr bool isSpace(char16_t c)
{
    return c == u' ' || (c >= u'\t' && c <= u'\r');
}

constexpr bool isDigit(char16_t c)
{
    return c >= u'0' && c <= u'9';
}

/// Reads exactly `count` ASCII digits at `at`; false when one is missing.
bool readDigits(QStringView text, qsizetype at, int count, int &out)
{
    if (at + count > text.size())
        return false;
    int v = 0;
    for (int k = 0; k < count; ++k) {
        const char16_t c = text[at + k].unicode();
        if (!isDigit(c))
            return false;
        v = v * 10 + (c - u'0');
    }
    out = v;
    return true;
}

/// The previous, arg()-based printing; kept for years outside 1..9999, whose text
/// (sign, width) the fast path below does not try to reproduce.
QString formatUtcMicrosSlow(qint64 days, qint64 rem, qint64 micros)
{
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

void putDigits(QChar *out, qint64 value, int width)
{
    for (int k = width - 1; k >= 0; --k) {
        out[k] = QChar(u'0' + char16_t(value % 10));
        value /= 10;
    }
}

/// True when `text` is laid out exactly as formatUtcMicros() prints it
/// ("2026-11-29T21:55:07.123456Z"): punctuation in place, ASCII digits everywhere else.
bool hasCanonicalLayout(QStringView text)
{
    static constexpr char16_t layout[] = u"dddd-dd-ddTdd:dd:dd.ddddddZ";
    if (text.size() != 27)
        return false;
    for (int k = 0; k < 27; ++k) {
        const char16_t c = text[k].unicode();
        if (layout[k] == u'd' ? !isDigit(c) : c != layout[k])
            return false;
    }
    return true;
}

} // namespace

// A hand-written scanner for exactly what this pattern accepted (it ran once per time
// value, and the key detail reads thousands of them):
//   ^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$
// (\s and \d are ASCII-only there: QRegularExpression does not set PCRE2_UCP by default).
std::optional<UtcMicros> parseUtcMicros(QStringView text)
{
    const qsizetype n = text.size();
    qsizetype i = 0;
    while (i < n && isSpace(text[i].unicode()))
        ++i;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (!readDigits(text, i, 4, y) || i + 4 >= n || text[i + 4] != u'-')
        return std::nullopt;
    i += 5;
    if (!readDigits(text, i, 2, mo) || i + 2 >= n || text[i + 2] != u'-')
        return std::nullopt;
    i += 3;
    if (!readDigits(text, i, 2, d) || i + 2 >= n || (text[i + 2] != u'T' && text[i + 2] != u' '))
        return std::nullopt;
    i += 3;
    if (!readDigits(text, i, 2, h) || i + 2 >= n || text[i + 2] != u':')
        return std::nullopt;
    i += 3;
    if (!readDigits(text, i, 2, mi) || i + 2 >= n || text[i + 2] != u':')
        return std::nullopt;
    i += 3;
    if (!readDigits(text, i, 2, s))
        return std::nullopt;
    i += 2;
    qint64 frac = 0;
    if (i < n && text[i] == u'.') {
        ++i;
        int digits = 0;
        while (i < n && isDigit(text[i].unicode())) {
            if (digits < 6)
                frac = frac * 10 + (text[i].unicode() - u'0');
            ++digits;
            ++i;
        }
        if (digits < 1 || digits > 9)
            return std::nullopt;
        for (int k = digits; k < 6; ++k)
            frac *= 10;
    }
    while (i < n && isSpace(text[i].unicode()))
        ++i;
    qint64 offsetSeconds = 0;
    if (i < n && text[i] == u'Z') {
        ++i;
    } else if (i < n && (text[i] == u'+' || text[i] == u'-')) {
        const int sign = text[i] == u'-' ? -1 : 1;
        ++i;
        int oh = 0, om = 0;
        if (!readDigits(text, i, 2, oh))
            return std::nullopt;
        i += 2;
        // Optional minutes, with or without a colon; an incomplete group is left unread
        // (and then fails the end-of-text check, as the pattern did).
        if (i < n && text[i] == u':' && readDigits(text, i + 1, 2, om))
            i += 3;
        else if (readDigits(text, i, 2, om))
            i += 2;
        else
            om = 0;
        if (oh > 23 || om > 59) // not a UTC offset
            return std::nullopt;
        offsetSeconds = sign * (oh * 3600 + om * 60);
    }
    while (i < n && isSpace(text[i].unicode()))
        ++i;
    if (i != n)
        return std::nullopt;
    const QDate date(y, mo, d);
    if (!date.isValid() || h > 23 || mi > 59 || s > 60)
        return std::nullopt;
    const qint64 days = date.toJulianDay() - kUnixEpochJulianDay;
    const qint64 seconds = days * 86400 + h * 3600 + mi * 60 + s - offsetSeconds;
    return seconds * kMicrosPerSecond + frac;
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
    int year = 0, month = 0, day = 0;
    QDate::fromJulianDay(days + kUnixEpochJulianDay).getDate(&year, &month, &day);
    if (year < 1 || year > 9999)
        return formatUtcMicrosSlow(days, rem, micros);
    // Written digit by digit: this runs for every time the key detail reads.
    QString out(27, Qt::Uninitialized);
    QChar *c = out.data();
    putDigits(c, year, 4);
    c[4] = u'-';
    putDigits(c + 5, month, 2);
    c[7] = u'-';
    putDigits(c + 8, day, 2);
    c[10] = u'T';
    putDigits(c + 11, rem / 3600, 2);
    c[13] = u':';
    putDigits(c + 14, (rem / 60) % 60, 2);
    c[16] = u':';
    putDigits(c + 17, rem % 60, 2);
    c[19] = u'.';
    putDigits(c + 20, micros, 6);
    c[26] = u'Z';
    return out;
}

QString formatLocal(UtcMicros t)
{
    const QDateTime utc = QDateTime::fromMSecsSinceEpoch(t / 1000, QTimeZone::utc());
    const QDateTime local = utc.toLocalTime();
    return local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss ")) + local.timeZoneAbbreviation();
}

QString utcToSecond(const QString &text)
{
    if (text.isNull())
        return {};
    const auto t = parseUtcMicros(text);
    if (!t)
        return text;
    QString s = formatUtcMicros(*t).left(19);
    s[10] = QLatin1Char(' ');
    return s;
}

QString canonicalTimeText(const QVariant &value)
{
    if (value.isNull() || !value.isValid())
        return {};
    const QString text = value.toString();
    if (const auto t = parseUtcMicros(text)) {
        // Already canonical (what timeText() selects): keep the text, no new string. A
        // leap second (":60") is re-printed as the next minute, as formatUtcMicros() does.
        if (hasCanonicalLayout(text) && !(text[17] == u'6' && text[18] == u'0'))
            return text;
        return formatUtcMicros(*t);
    }
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
