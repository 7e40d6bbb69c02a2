#pragma once
// The daily review's report (DESIGN.md §8 "The Review view and the report", issue 16): one
// ReviewSnapshot as a self-contained HTML file (inline CSS, the charts as inline SVG, no
// external resource) or an A4-landscape PDF of the same content and the same totals.
// Presentation only: everything comes from the snapshot (no database, no SQL).

#include "Review.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace triage {

/// The HTML report (UTF-8 bytes): the day, the review time zone, the absolute window [from, to)
/// in UTC and in the zone, "as of", the totals, open by age bucket with the visible check that
/// the buckets add up to the open total, the groups (bucket × reason × biz_type: escalations,
/// keys, breached, money per currency), SLA per biz_type, the items new or changed since the
/// last sign-off, every open item with its absolute deep link (reviewKeyLink()), the trends
/// (opened vs resolved per day over 14 and 30 days as charts and a table, open by bucket, by
/// reason; the 14- and 30-day medians as the snapshot holds them and each day's per-row
/// medians, never averaged), the last sign-off. Every text HTML-escaped. Deterministic: the
/// same snapshot gives the same bytes (signOffReview() records their SHA-256). Needs a
/// QApplication (charts).
QByteArray reviewHtml(const ReviewSnapshot &snapshot);

/// Several days' reviews (`triagectl report --from --to`) as one HTML document: each day's
/// sections in order, its own title as the heading; empty bytes for no day.
QByteArray reviewHtml(const QVector<ReviewSnapshot> &days);

/// The same content as a PDF (A4 landscape, charts as images, paginated by printReportPages():
/// rows whole, headings kept with what follows, table headers repeated, "page N of M"). False
/// with `*error` "cannot write <path>: <why>". Needs a QApplication.
bool writeReviewPdf(const ReviewSnapshot &snapshot, const QString &path, QString *error);

/// Several days' reviews as one PDF (the days one after the other); false with `*error`
/// "cannot write <path>: …" (also for no day).
bool writeReviewPdf(const QVector<ReviewSnapshot> &days, const QString &path, QString *error);

/// The absolute deep link of `key` for the report: keyLink() (DeepLink.h,
/// "triage://key/<percent-encoded key>"), its "triage://" replaced by `snapshot.deepLinkBase`
/// when that is set to another base ending in "/" (e.g. "triage://" — the default — or a
/// handler URL of the operator's choosing).
QString reviewKeyLink(const ReviewSnapshot &snapshot, const QString &key);

/// "Daily review 2026-12-02 (Europe/Berlin)": the report's title and the PDF's footer.
QString reviewReportTitle(const ReviewSnapshot &snapshot);

} // namespace triage
