// Column widths of the PDF report's events table (DESIGN.md §7 "Reports").
#include "ReportColumns.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPageSize>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace triage {

QPageLayout reportPdfPageLayout()
{
    return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
}

QVector<int> reportColumnPercents(const QVector<double> &widest, int keyColumn, int detailColumn, double tableWidth,
                                  double detailMin)
{
    const int n = int(widest.size());
    QVector<double> w = widest;
    if (n == 0 || tableWidth <= 0)
        return {};
    double fixed = 0;
    for (int i = 0; i < n; ++i)
        if (i != keyColumn && i != detailColumn)
            fixed += w[i];
    const double left = tableWidth - fixed;
    const bool hasKey = keyColumn >= 0 && keyColumn < n, hasDetail = detailColumn >= 0 && detailColumn < n;
    if (left <= 0) {
        // Fixed columns alone too wide: everything in proportion.
    } else {
        const double detailFirst =
            hasDetail ? std::max(std::min(w[detailColumn], left * 0.25), std::min({detailMin, w[detailColumn], left * 0.5})) : 0;
        const double key = hasKey ? std::min(w[keyColumn], left - detailFirst) : 0;
        if (hasKey)
            w[keyColumn] = key;
        if (hasDetail)
            w[detailColumn] = left - key;
        else if (hasKey)
            w[keyColumn] = left;
    }
    const double total = std::accumulate(w.cbegin(), w.cend(), 0.0);
    QVector<int> out(n);
    int sum = 0;
    for (int i = 0; i < n; ++i) {
        out[i] = std::max(1, int(std::floor(w[i] * 100.0 / total)));
        sum += out[i];
    }
    // The rounding's rest to the column that gets what is left (the detail, else the key).
    const int rest = hasDetail ? detailColumn : hasKey ? keyColumn : n - 1;
    out[rest] = std::max(1, out[rest] + 100 - sum);
    return out;
}

double reportTextWidthPt(const QFont &font, const QString &text)
{
    static const QImage device = [] {
        QImage image(1, 1, QImage::Format_ARGB32);
        image.setDotsPerMeterX(2835); // 72 dpi: one pixel a point
        image.setDotsPerMeterY(2835);
        return image;
    }();
    return QFontMetricsF(font, &device).horizontalAdvance(text);
}

QString breakAtNaturalPoints(const QString &text)
{
    QString out;
    out.reserve(text.size() + text.size() / 4);
    for (const QChar c : text) {
        out += c;
        if (c == QLatin1Char(':') || c == QLatin1Char('/') || c == QLatin1Char('_') || c == QLatin1Char('@') || c == QLatin1Char('.'))
            out += QChar(0x200B);
    }
    return out;
}

} // namespace triage
