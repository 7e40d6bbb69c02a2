#pragma once
// The incident bundle's report (DESIGN.md §7 "Reports"): one self-contained HTML file (inline
// CSS, the histogram as inline SVG, no external resource) or a PDF of the same content.
// Presentation only: everything comes from the IncidentBundle (no database, no SQL).

#include "Bundle.h"

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QTimeZone>

#include <optional>

namespace triage {

/// How a report is written.
struct ReportOptions {
    /// The reader's zone: every absolute time is printed in UTC and in this zone.
    QTimeZone zone = QTimeZone::systemTimeZone();
};

enum class ReportFormat { Html, Pdf };

/// The format a file name asks for: ".html"/".htm" Html, ".pdf" Pdf (any case), else nullopt.
std::optional<ReportFormat> reportFormatForPath(const QString &path);
/// "html" / "pdf" (any case), else nullopt.
std::optional<ReportFormat> reportFormatFromName(const QString &name);

/// The histogram of `bundle` (its summary's per-minute counts bucketed by bucketWindow(), stacked
/// by store in theme::storeColor()) drawn by Qt Charts into QSvgGenerator: an SVG document of
/// `size` pixels (at 96 dpi). Needs a QApplication (any platform; offscreen works).
QByteArray bundleHistogramSvg(const IncidentBundle &bundle, QSize size = QSize(960, 260));

/// The self-contained HTML report (UTF-8 text): title, window and filters, the stores with
/// their failures, watermarks and clock offsets, the summary, the histogram (inline <svg>),
/// pinned events and notes, per-key outcomes, every event, the hash (checked against the
/// events: verifyBundleHash()) and the redactions. Every time in UTC and in `options.zone`;
/// every text HTML-escaped (control characters first written as escapeControlChars() does).
/// Needs a QApplication.
QString bundleReportHtml(const IncidentBundle &bundle, const ReportOptions &options = {});

/// The same content as a PDF (QTextDocument on a QPdfWriter, A4 landscape; the histogram as an
/// image; a cell over 2000 characters clipped with its length named), paginated by
/// printReportPages() (ReportPages.h): table rows whole (only one taller than a page is cut),
/// headings kept with what follows, a table's header row repeated on each page it continues
/// on, "page N of M" footers. False with `*error` set when the file cannot be written. Needs a
/// QApplication.
bool writeBundleReportPdf(const IncidentBundle &bundle, const QString &path, const ReportOptions &options, QString *error);

/// Writes the report to `path` in `format` (HTML as UTF-8); false with `*error` set
/// ("cannot write /x/r.html: Permission denied").
bool writeBundleReport(const IncidentBundle &bundle, const QString &path, ReportFormat format, const ReportOptions &options,
                       QString *error);

} // namespace triage
