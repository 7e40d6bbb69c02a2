#pragma once
// The pieces every HTML/PDF report shares (DESIGN.md §7 "Reports", §8 "The Review view and the
// report"): escaping, tables, rows, the stylesheet, times in UTC and the reader's zone, an
// inline SVG, and a QTextDocument printed to an A4-landscape PDF through ReportPages.h. Used by
// the bundle report (BundleReport.cpp) and the daily review's report (ReviewReport.cpp).

#include "TimeText.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTimeZone>
#include <QVector>

#include <functional>

class QChart;
class QTextDocument;

namespace triage {

/// Where a report is read: a browser (inline SVG, CSS in px) or QTextDocument for the PDF
/// (charts as image resources, sizes in pt).
enum class ReportTarget { Browser, Pdf };

/// Text for HTML: control characters escaped for one line (TextEscape.h), then <, >, &, " and '.
QString reportEsc(const QString &text);

/// The reports' stylesheet for `target` (the same classes in both: mono, local, muted, bad,
/// good, num, key, chart, …).
QString reportCss(ReportTarget target);

/// A table; with `percents` (one per header) its columns get those widths and it spans the
/// page. `headers` and `rows` are HTML already.
QString reportHtmlTable(const QStringList &headers, const QStringList &rows, const QString &cls = QString(),
                        const QVector<int> &percents = {});

/// One <tr> of `cells`: a cell already starting with "<td" is kept, any other is wrapped in <td>.
QString reportHtmlRow(const QStringList &cells, const QString &cls = QString());

/// `svg` (a QSvgGenerator document) for inlining in HTML5: from "<svg" on, without the XML
/// prolog and the namespace declarations (nothing that looks like a URL).
QString inlineSvg(const QByteArray &svg);

/// Times in UTC and in the reader's zone.
class ReportClock {
public:
    explicit ReportClock(QTimeZone zone);
    /// The zone's IANA id ("local" when it has none).
    QString zoneName() const;
    /// "2026-12-01 10:10:00 +08:00" (to the second, with the offset then in force).
    QString local(UtcMicros t) const;
    /// "2026-12-01 02:10:00 UTC (2026-12-01 10:10:00 +08:00 Asia/Shanghai)" as HTML for canonical
    /// text; text that is not a time is shown escaped as it is ("—" when empty).
    QString both(const QString &iso) const;

private:
    QTimeZone m_zone;
};

/// `chart` (taken over: deleted here) laid out at `size` px on a white scene and painted into
/// QSvgGenerator at 96 dpi: an SVG document titled `title`. Qt Charts' layout needs the event
/// loop's polish pass, run here once. Needs a QApplication (offscreen works).
QByteArray reportChartSvg(QChart *chart, QSize size, const QString &title);
/// `chart` (taken over) laid out at `shown` px and painted into an image `scale` times that
/// size (sharp when printed), for the PDF.
QImage reportChartImage(QChart *chart, QSize shown, int scale = 3);

/// Writes `html` (Target Pdf) as an A4-landscape PDF to `path` (reportPdfPageLayout()),
/// paginated by printReportPages() with `title` in the footer; `images` are added to the
/// document as image resources by name first. False with `*error` "cannot write <path>: <why>".
bool writeReportPdf(const QString &path, const QString &title, const QString &creator, const QString &html,
                    const QVector<std::pair<QString, QImage>> &images, QString *error);

} // namespace triage
