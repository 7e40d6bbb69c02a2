// The daily review's pure rules (DESIGN.md §8 "The daily review"): the reviewed day's
// window, the age buckets, exact decimal money sums.
#include "Review.h"

#include "ReviewRecord.h"

#include <QMap>
#include <QRegularExpression>

namespace triage {

QString ageBucketLabel(AgeBucket b)
{
    switch (b) {
    case AgeBucket::Under1Day: return QStringLiteral("< 24 h");
    case AgeBucket::OneToThreeDays: return QStringLiteral("1–3 d");
    case AgeBucket::ThreeToSevenDays: return QStringLiteral("3–7 d");
    case AgeBucket::OverSevenDays: return QStringLiteral("> 7 d");
    }
    return {};
}

QString ageBucketKey(AgeBucket b)
{
    switch (b) {
    case AgeBucket::Under1Day: return QStringLiteral("lt_24h");
    case AgeBucket::OneToThreeDays: return QStringLiteral("1_3d");
    case AgeBucket::ThreeToSevenDays: return QStringLiteral("3_7d");
    case AgeBucket::OverSevenDays: return QStringLiteral("gt_7d");
    }
    return {};
}

QVector<AgeBucket> allAgeBuckets()
{
    return {AgeBucket::Under1Day, AgeBucket::OneToThreeDays, AgeBucket::ThreeToSevenDays, AgeBucket::OverSevenDays};
}

std::array<qint64, 3> ageBucketBoundariesMicros(qint64 asOfUs, const QTimeZone &zone)
{
    // Calendar days in the zone: asOf's wall-clock time 1, 3 and 7 days earlier (QDateTime
    // is exact to the millisecond; the sub-millisecond part is carried over).
    const qint64 ms = asOfUs >= 0 ? asOfUs / 1000 : -((-asOfUs + 999) / 1000);
    const qint64 rest = asOfUs - ms * 1000;
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(ms, zone.isValid() ? zone : QTimeZone::utc());
    auto boundary = [&](int days) { return local.addDays(-days).toMSecsSinceEpoch() * 1000 + rest; };
    return {boundary(1), boundary(3), boundary(7)};
}

AgeBucket ageBucketOfMicros(qint64 firstUs, qint64 asOfUs, const QTimeZone &zone)
{
    // On a boundary: the older bucket.
    const std::array<qint64, 3> b = ageBucketBoundariesMicros(asOfUs, zone);
    if (firstUs <= b[2])
        return AgeBucket::OverSevenDays;
    if (firstUs <= b[1])
        return AgeBucket::ThreeToSevenDays;
    if (firstUs <= b[0])
        return AgeBucket::OneToThreeDays;
    return AgeBucket::Under1Day;
}

AgeBucket ageBucketOf(const QDateTime &firstEscalated, const QDateTime &asOf, const QTimeZone &zone)
{
    return ageBucketOfMicros(firstEscalated.toMSecsSinceEpoch() * 1000, asOf.toMSecsSinceEpoch() * 1000, zone);
}

ReviewDay ReviewDay::of(QDate day, const QTimeZone &zone)
{
    ReviewDay d;
    d.day = day;
    d.zone = zone.isValid() ? zone : QTimeZone::utc();
    const auto [from, to] = reviewDayWindow(day, d.zone);
    d.from = QDateTime::fromMSecsSinceEpoch(from / 1000, QTimeZone::utc());
    d.to = QDateTime::fromMSecsSinceEpoch(to / 1000, QTimeZone::utc());
    d.asOf = d.to;
    return d;
}

ReviewDay ReviewDay::containing(const QDateTime &instant, const QTimeZone &zone)
{
    const QTimeZone z = zone.isValid() ? zone : QTimeZone::utc();
    return of(instant.toTimeZone(z).date(), z);
}

namespace {

using Int128 = __int128;
constexpr int kScale = 18;

Int128 pow10(int n)
{
    Int128 v = 1;
    for (int i = 0; i < n; ++i)
        v *= 10;
    return v;
}

/// `text` as a count of 10^-18 units and its fraction digits; nullopt when it does not read.
std::optional<std::pair<Int128, int>> readDecimal(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^([+-]?)([0-9]{1,20})(?:\\.([0-9]{1,18}))?$"));
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    Int128 v = 0;
    for (QChar c : m.captured(2))
        v = v * 10 + (c.unicode() - '0');
    const QString frac = m.captured(3);
    Int128 f = 0;
    for (QChar c : frac)
        f = f * 10 + (c.unicode() - '0');
    v = v * pow10(kScale) + f * pow10(kScale - int(frac.size()));
    if (m.captured(1) == QLatin1String("-"))
        v = -v;
    return std::make_pair(v, int(frac.size()));
}

QString formatDecimal(Int128 v, int fraction)
{
    const bool negative = v < 0;
    if (negative)
        v = -v;
    v /= pow10(kScale - fraction);
    QString digits;
    do {
        digits.prepend(QChar('0' + int(v % 10)));
        v /= 10;
    } while (v > 0);
    while (digits.size() <= fraction)
        digits.prepend(QLatin1Char('0'));
    QString out = fraction > 0 ? digits.left(digits.size() - fraction) + QLatin1Char('.') + digits.right(fraction) : digits;
    if (negative && out.contains(QRegularExpression(QStringLiteral("[1-9]"))))
        out.prepend(QLatin1Char('-'));
    return out;
}

} // namespace

QVector<MoneyTotal> sumMoney(const QVector<std::pair<QString, std::optional<QString>>> &currencyAmounts)
{
    struct Acc {
        Int128 sum = 0;
        int fraction = 0, count = 0, unknown = 0;
    };
    QMap<QString, Acc> by;
    for (const auto &[currency, amount] : currencyAmounts) {
        Acc &a = by[currency];
        const std::optional<std::pair<Int128, int>> v = amount ? readDecimal(*amount) : std::nullopt;
        Int128 next = 0;
        if (!v || __builtin_add_overflow(a.sum, v->first, &next)) {
            ++a.unknown;
            continue;
        }
        a.sum = next;
        a.fraction = std::max(a.fraction, v->second);
        ++a.count;
    }
    QVector<MoneyTotal> out;
    for (auto it = by.cbegin(); it != by.cend(); ++it) {
        MoneyTotal t;
        t.currency = it.key();
        t.sum = formatDecimal(it->sum, it->fraction);
        t.count = it->count;
        t.unknown = it->unknown;
        out << t;
    }
    return out;
}

} // namespace triage
