#pragma once
// Column widths of the PDF report's events table (DESIGN.md §7 "Reports"): QTextDocument shares
// a table's width by its cells' words, so a long detail squeezed the key column to a few
// characters and every row wrapped onto 4-5 lines. Here each column gets the width of its
// widest cell, the key column what is left.

#include <QFont>
#include <QPageLayout>
#include <QString>
#include <QStringList>
#include <QVector>

namespace triage {

/// The PDF report's page: A4 landscape, 12 mm margins (writeBundleReportPdf()).
QPageLayout reportPdfPageLayout();

/// Widths in percent of the table's width (each at least 1, summing to 100) for columns whose
/// widest cells are `widest` (pt, padding included) in a table `tableWidth` pt wide. Every
/// column but `keyColumn` and `detailColumn` gets its widest cell (never broken). Of what is
/// left, the detail column gets its widest cell but at most 25 % of it, the key column its
/// widest cell within the rest, and the detail column whatever remains; the detail column gets
/// at least `detailMin` (its longest word, so words are not cut) up to half of what is left.
/// When the fixed columns alone are wider than the table, all columns shrink in proportion. Pure.
QVector<int> reportColumnPercents(const QVector<double> &widest, int keyColumn, int detailColumn, double tableWidth,
                                  double detailMin = 0);

/// Width in pt of `text` in `font` (its point size; bold as the font says), measured for a
/// 72 dpi device. Thread-safe for QGuiApplication's fonts.
double reportTextWidthPt(const QFont &font, const QString &text);

/// `text` (already HTML-escaped) with a zero-width space after each ':' '/' '_' '@' and
/// '.', so a key wraps at those natural points instead of inside a word.
QString breakAtNaturalPoints(const QString &text);

} // namespace triage
