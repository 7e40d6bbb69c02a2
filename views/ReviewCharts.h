#pragma once
// The daily review's charts (DESIGN.md §8 "The Review view and the report"), shared by the
// Review tab and its report (drawn into SVG / images by ReportHtml.h): opened vs resolved per
// day, open by age bucket, open by reason. Qt Charts; data from ReviewModel.h's pure figures.

#include "Review.h"

class QChart;

namespace triage {

/// The four charts, by `kind`:
///  0, 1: opened vs resolved per day over the 14 / 30 days ending with the snapshot's day (two
///        bar sets; categories "MM-dd", shown up to 14 days), titled "Opened vs resolved per
///        day, <first day> – <last day> (<zone>)";
///  2:    open escalations per age bucket (four bars, youngest first), "Open by age: N in all";
///  3:    open escalations per reason (horizontal bars, reasons with any), "Open by reason".
/// A new chart of `kind`; the caller owns it.
QChart *reviewChart(const ReviewSnapshot &snapshot, int kind);

/// Refills a chart made by reviewChart() with `snapshot` as chart `kind` (the Review tab keeps
/// its chart views and refills them).
void refillReviewChart(QChart *chart, const ReviewSnapshot &snapshot, int kind);

} // namespace triage
