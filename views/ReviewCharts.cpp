// The daily review's charts (DESIGN.md §8 "The Review view and the report").
#include "ReviewCharts.h"

#include "ReviewModel.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace triage {

namespace {

/// A "nice" axis maximum: the smallest 1, 2 or 5 × 10^k at or above `max` (at least 1),
/// with 4 or 5 whole steps.
int niceMax(int max)
{
    int step = 1;
    while (true) {
        for (int m : {1, 2, 5})
            if (m * step * 4 >= max)
                return m * step * 4;
        step *= 10;
    }
}

void clear(QChart *chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

void finish(QChart *chart, QAbstractSeries *series, const QStringList &categories, int max, bool horizontal)
{
    chart->addSeries(series);
    auto *cat = new QBarCategoryAxis;
    // Axis labels are rich text: "< 24 h" vanished as a tag.
    for (const QString &c : categories)
        cat->append(c.toHtmlEscaped());
    auto *val = new QValueAxis;
    val->setRange(0, niceMax(max));
    val->setTickCount(5);
    val->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(cat, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
    chart->addAxis(val, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
    series->attachAxis(cat);
    series->attachAxis(val);
    // "MM-dd" side by side is elided to "10…": up to 14 days turned upright. Over 14 Qt Charts
    // elided even two digits ("…", "⋮", at any angle): no labels, the title names the first and
    // last day (and the report's per-day table lists every day).
    if (!horizontal && categories.size() > 14)
        cat->setLabelsVisible(false);
    else if (!horizontal && categories.size() > 7)
        cat->setLabelsAngle(-90);
}

QChart *newChart()
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    QFont title = chart->titleFont();
    title.setPointSizeF(10);
    title.setBold(true);
    chart->setTitleFont(title);
    return chart;
}

QString zoneId(const ReviewSnapshot &s)
{
    const QString id = QString::fromUtf8(s.day.zone.id());
    return id.isEmpty() ? QStringLiteral("UTC") : id;
}

void fillTrend(QChart *chart, const ReviewSnapshot &s, int days)
{
    clear(chart);
    const QVector<ReviewTrendDay> trend = reviewTrendByDay(s, days);
    if (trend.isEmpty())
        chart->setTitle(QObject::tr("Opened vs resolved per day, last %1 days").arg(days));
    else
        chart->setTitle(QObject::tr("Opened vs resolved per day, %1 – %2 (%3)")
                            .arg(trend.first().day.toString(Qt::ISODate), trend.last().day.toString(Qt::ISODate), zoneId(s)));
    auto *opened = new QBarSet(QObject::tr("Opened"));
    auto *resolved = new QBarSet(QObject::tr("Resolved"));
    opened->setColor(QColor(0xd9, 0x30, 0x25));
    resolved->setColor(QColor(0x1e, 0x8e, 0x3e));
    QStringList categories;
    int max = 0;
    for (const ReviewTrendDay &d : trend) {
        *opened << d.opened;
        *resolved << d.resolved;
        max = std::max({max, d.opened, d.resolved});
        categories << d.day.toString(QStringLiteral("MM-dd")); // unique: at most 30 consecutive days
    }
    auto *series = new QBarSeries;
    series->append(opened);
    series->append(resolved);
    chart->legend()->setVisible(true);
    finish(chart, series, categories, max, false);
}

/// One bar set of `values` (label, count) in `color`, each bar labelled with its count.
void fillCounts(QChart *chart, const QString &title, QColor color, const QVector<std::pair<QString, int>> &values, bool horizontal)
{
    clear(chart);
    chart->setTitle(title);
    auto *set = new QBarSet(QObject::tr("Open"));
    set->setColor(color);
    QStringList categories;
    int max = 0;
    for (const auto &[label, n] : values) {
        *set << n;
        max = std::max(max, n);
        categories << label;
    }
    QAbstractBarSeries *series = horizontal ? static_cast<QAbstractBarSeries *>(new QHorizontalBarSeries) : new QBarSeries;
    series->append(set);
    series->setLabelsVisible(true);
    chart->legend()->setVisible(false);
    finish(chart, series, categories, max, horizontal);
}

void fillBuckets(QChart *chart, const ReviewSnapshot &s)
{
    QVector<std::pair<QString, int>> values;
    for (AgeBucket b : allAgeBuckets())
        values.append({ageBucketLabel(b), s.totals.openByBucket.value(int(b))});
    fillCounts(chart, QObject::tr("Open by age: %1 in all").arg(s.totals.open), QColor(0xe3, 0x74, 0x00), values, false);
}

void fillReasons(QChart *chart, const ReviewSnapshot &s)
{
    QVector<std::pair<QString, int>> values;
    for (const auto &[reason, n] : reviewOpenByReason(s))
        values.append({escalationReasonName(reason), n});
    fillCounts(chart, QObject::tr("Open by reason"), QColor(0x7b, 0x1f, 0xa2), values, true);
}

} // namespace

void refillReviewChart(QChart *chart, const ReviewSnapshot &snapshot, int kind)
{
    switch (kind) {
    case 0: fillTrend(chart, snapshot, 14); break;
    case 1: fillTrend(chart, snapshot, 30); break;
    case 2: fillBuckets(chart, snapshot); break;
    default: fillReasons(chart, snapshot); break;
    }
}

QChart *reviewChart(const ReviewSnapshot &snapshot, int kind)
{
    QChart *chart = newChart();
    refillReviewChart(chart, snapshot, kind);
    return chart;
}

} // namespace triage
