#pragma once
// The daily review's charts (DESIGN.md §8 "The Review view and the report"), shared by the
// Review tab and its report (drawn into SVG / images by ReportHtml.h): opened vs resolved per
// day, open by age bucket, open by reason. Qt Charts; data from ReviewModel.h's pure figures.

#include "Review.h"

class QChart;

namespace triage {

/// Opened vs resolved per day over the `days` days ending with the snapshot's day (two bar
/// sets, categories "MM-dd", or "dd" over more than 14 days), titled "Opened vs resolved per day,
/// <first day> – <last day> (<zone>)".
/// The caller owns the chart.
QChart *reviewTrendChart(const ReviewSnapshot &snapshot, int days);
/// Open escalations per age bucket (four bars, youngest first), titled "Open by age (as of …)".
QChart *reviewBucketChart(const ReviewSnapshot &snapshot);
/// Open escalations per reason (horizontal bars, reasons with any), titled "Open by reason".
QChart *reviewReasonChart(const ReviewSnapshot &snapshot);

/// A new chart of `kind` (0 trend 14 days, 1 trend 30 days, 2 by bucket, 3 by reason). The
/// caller owns it.
QChart *reviewChart(const ReviewSnapshot &snapshot, int kind);

/// Fills an existing chart made by one of the functions above with `snapshot` (the Review tab
/// keeps its chart views and refills them): `kind` 0 trend 14, 1 trend 30, 2 bucket, 3 reason.
void refillReviewChart(QChart *chart, const ReviewSnapshot &snapshot, int kind);

} // namespace triage
