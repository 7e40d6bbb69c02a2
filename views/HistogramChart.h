#pragma once
// The window histogram chart shared by the Incident view and the bundle report (DESIGN.md §7):
// events per bucket stacked by store, one QBarSet per store in theme::storeColor().

#include "WindowHistogram.h"

#include <QFont>

class QChart;
class QStackedBarSeries;

namespace triage {

/// A new chart with one stacked bar series of four bar sets (EventStore order, store names,
/// theme colours), a category axis below and a value axis on the left, the legend on top in
/// `legendFont`. `*series` gets the series. The caller owns the chart.
QChart *createHistogramChart(QStackedBarSeries **series, const QFont &legendFont);

/// Fills `chart` (made by createHistogramChart()) with `histogram` of the window [from, to)
/// (µs UTC): bar i is bucket i; about 7 labels "HH:mm" (UTC), "MM-dd HH'h'" when the window
/// spans more than a day; the value axis in four whole steps of 1, 2 or 5 × 10^k events; the
/// title "Events per <bucket> (UTC), by store".
void fillHistogramChart(QChart *chart, QStackedBarSeries *series, const WindowHistogram &histogram, UtcMicros from, UtcMicros to);

} // namespace triage
