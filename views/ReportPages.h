#pragma once
// The PDF report's pages (DESIGN.md §7 "Reports"): where the laid-out report is cut into pages,
// and the printing of those pages. QTextDocument's own pagination splits a table row at the
// page's end and may leave a heading last on a page; here the document is laid out once as one
// long page and cut only between blocks and between table rows.

#include <QString>
#include <QVector>

class QPagedPaintDevice;
class QTextDocument;

namespace triage {

/// One piece the pages are cut between: a top-level block (paragraph, heading, image line) or
/// one row of a top-level table, [top, bottom) in the document's layout units (top-down,
/// in document order).
struct ReportAtom {
    double top = 0;
    double bottom = 0;
    /// Never the last piece of a page when another follows (a heading, a table's header row,
    /// an intro line between a heading and its table): moved to the next page with it.
    bool keepWithNext = false;
    /// The index of the table (into the heads of paginateReport()) whose body row this is; -1
    /// for a block or a header row.
    int table = -1;
};

/// A table's header row(s), [top, bottom): repeated at the top of every page the table's body
/// continues on.
struct ReportTableHead {
    double top = 0;
    double bottom = 0;
};

/// One page: the document's [top, bottom) shown below the header of table `head` (-1: none).
struct ReportPage {
    double top = 0;
    double bottom = 0;
    int head = -1;

    bool operator==(const ReportPage &o) const { return top == o.top && bottom == o.bottom && head == o.head; }
};

/// Cuts `atoms` into pages of `pageHeight` units: each page holds as many whole pieces as fit
/// (a repeated table header taking its height first) and starts at a piece's top; a piece
/// that does not fit what is left of a page starts the next one; a keep-with-next piece moves
/// with the piece after it unless the chain fills the page; a piece taller than a whole page
/// is sliced at the page's end and continues on the next (the only case where one is split).
/// A body row's page repeats its table's header unless the header itself is on that page.
/// Pure. Empty for no atoms.
QVector<ReportPage> paginateReport(const QVector<ReportAtom> &atoms, const QVector<ReportTableHead> &heads, double pageHeight);

/// Lays `document` (its HTML set) out on `device` as one long page of the device's paint width,
/// reads its blocks and top-level tables' rows (headings kept with what follows), cuts it with
/// paginateReport() (the page's height less a footer line) and paints every page: the repeated
/// table header, the page's slice, and the footer "`footer` · page N of M". Returns the number
/// of pages. `device` must be a QPagedPaintDevice a QPainter can open (a QPdfWriter); 0 when
/// it cannot be painted on.
int printReportPages(QTextDocument &document, QPagedPaintDevice &device, const QString &footer);

} // namespace triage
