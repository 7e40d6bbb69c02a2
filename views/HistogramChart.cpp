#include "HistogramChart.h"

#include "Theme.h"

#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QDateTime>
#include <QStackedBarSeries>
#include <QValueAxis>

namespace triage {

QChart *createHistogramChart(QStackedBarSeries **series, const QFont &legendFont)
{
    auto *bars = new QStackedBarSeries;
    bars->setBarWidth(0.9);
    for (int s = 0; s < 4; ++s) {
        auto *set = new QBarSet(eventStoreName(EventStore(s)));
        set->setColor(theme::storeColor(s));
        set->setBorderColor(theme::storeColor(s).darker(115));
        bars->append(set);
    }
    auto *chart = new QChart;
    chart->addSeries(bars);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->legend()->setFont(legendFont);
    chart->setMargins(QMargins(4, 2, 4, 2));
    chart->setBackgroundRoundness(0);
    auto *xAxis = new QCategoryAxis;
    xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    xAxis->setGridLineVisible(false);
    auto *yAxis = new QValueAxis;
    yAxis->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    bars->attachAxis(xAxis);
    bars->attachAxis(yAxis);
    *series = bars;
    return chart;
}

void fillHistogramChart(QChart *chart, QStackedBarSeries *series, const WindowHistogram &histogram, UtcMicros from, UtcMicros to)
{
    const int n = int(histogram.starts.size());
    QVector<qint64> stacked(n, 0);
    for (int s = 0; s < 4; ++s) {
        QBarSet *set = series->barSets().at(s);
        set->remove(0, set->count());
        QList<qreal> values;
        values.reserve(n);
        for (int i = 0; i < n; ++i) {
            values << qreal(histogram.counts[s].at(i));
            stacked[i] += histogram.counts[s].at(i);
        }
        set->append(values);
    }
    auto utcOf = [](UtcMicros t) { return QDateTime::fromMSecsSinceEpoch(t / 1000, Qt::UTC); };
    // X: bucket i at i; labels on about 8 buckets, with the date when the window spans days.
    if (auto *xAxis = qobject_cast<QCategoryAxis *>(chart->axes(Qt::Horizontal).value(0))) {
        for (const QString &label : xAxis->categoriesLabels())
            xAxis->remove(label);
        const bool days = to - from > 24LL * 3600 * 1000000;
        const int step = qMax(1, n / 6);
        for (int i = 0; i < n; i += step)
            xAxis->append(utcOf(histogram.starts.at(i)).toString(days ? QStringLiteral("MM-dd HH'h'") : QStringLiteral("HH:mm")), i);
        xAxis->setStartValue(-0.5);
        xAxis->setRange(-0.5, qMax(0.5, n - 0.5));
    }
    qint64 top = 0;
    for (qint64 v : stacked)
        top = qMax(top, v);
    if (auto *yAxis = qobject_cast<QValueAxis *>(chart->axes(Qt::Vertical).value(0))) {
        // Whole-number ticks: four steps of 1, 2 or 5 × 10^k events.
        qint64 step = 1;
        for (qint64 unit = 1; step * 4 < top; unit *= 10)
            for (qint64 m : {1, 2, 5})
                if (step * 4 < top)
                    step = m * unit;
        yAxis->setRange(0, qreal(step * 4));
        yAxis->setTickCount(5);
        yAxis->setLabelFormat(QStringLiteral("%d"));
    }
    chart->setTitle(QStringLiteral("Events per %1 (UTC), by store")
                        .arg(histogram.bucketMinutes == 1    ? QStringLiteral("minute")
                             : histogram.bucketMinutes < 60 ? QStringLiteral("%1 min").arg(histogram.bucketMinutes)
                                                            : QStringLiteral("%1 h").arg(histogram.bucketMinutes / 60)));
}

} // namespace triage
