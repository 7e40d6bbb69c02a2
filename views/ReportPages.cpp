// The PDF report's pagination (DESIGN.md §7 "Reports"): cut between blocks and table rows,
// headings kept with what follows, table headers repeated, a row moved whole to the next page.
#include "ReportPages.h"

#include <QAbstractTextDocumentLayout>
#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QPagedPaintDevice>
#include <QPainter>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

#include <algorithm>
#include <limits>
#include <utility>

namespace triage {

namespace {

/// Positions closer than this (layout units) are the same: float sums of row heights.
constexpr double kEpsilon = 0.01;

/// The first (`first`) or last block's rect of each cell of `row` of `table`: the highest top,
/// or the lowest bottom, of the row's contents.
double rowContentEdge(const QAbstractTextDocumentLayout *layout, QTextTable *table, int row, bool top)
{
    double edge = top ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    for (int c = 0; c < table->columns(); ++c) {
        const QTextTableCell cell = table->cellAt(row, c);
        if (!cell.isValid() || cell.row() != row || cell.column() != c)
            continue;
        if (top) {
            edge = qMin(edge, layout->blockBoundingRect(cell.firstCursorPosition().block()).top());
        } else {
            const QTextBlock last = cell.lastCursorPosition().block();
            edge = qMax(edge, layout->blockBoundingRect(last).bottom());
        }
    }
    return edge;
}

/// The pieces of the laid-out `document` and its tables' headers (see ReportAtom).
void readAtoms(QTextDocument &document, QVector<ReportAtom> *atoms, QVector<ReportTableHead> *heads)
{
    const QAbstractTextDocumentLayout *layout = document.documentLayout();
    // The kinds of the pieces just read, for the intro-line rule below.
    enum class Kind { Block, Heading, TableHead, TableRow };
    QVector<Kind> kinds;
    for (QTextFrame::iterator it = document.rootFrame()->begin(); !it.atEnd(); ++it) {
        if (QTextFrame *frame = it.currentFrame()) {
            const QRectF rect = layout->frameBoundingRect(frame);
            auto *table = qobject_cast<QTextTable *>(frame);
            if (!table || table->rows() < 2) { // no body to repeat a header over
                atoms->append({rect.top(), rect.bottom(), false, -1});
                kinds << Kind::Block;
                continue;
            }
            // Rows meet halfway between one row's lowest content and the next one's highest:
            // inside the padding and borders between them, whatever their widths.
            const int headerRows = qBound(1, table->format().headerRowCount(), table->rows() - 1);
            QVector<double> cuts{rect.top()};
            for (int r = 1; r < table->rows(); ++r)
                cuts << (rowContentEdge(layout, table, r - 1, false) + rowContentEdge(layout, table, r, true)) / 2;
            // The table ends a row's gap (padding and borders) below its last row's contents:
            // its frame's rect reaches further (its margin), where Qt lays out what follows.
            const double gap = rowContentEdge(layout, table, 1, true) - rowContentEdge(layout, table, 0, false);
            cuts << qMin(rect.bottom(), rowContentEdge(layout, table, table->rows() - 1, false) + qMax(0.0, gap));
            const int index = int(heads->size());
            heads->append({cuts[0], cuts[headerRows]});
            atoms->append({cuts[0], cuts[headerRows], true, -1});
            kinds << Kind::TableHead;
            for (int r = headerRows; r < table->rows(); ++r) {
                atoms->append({cuts[r], cuts[r + 1], false, index});
                kinds << Kind::TableRow;
            }
        } else {
            const QTextBlock block = it.currentBlock();
            const QRectF rect = layout->blockBoundingRect(block);
            const bool heading = block.blockFormat().headingLevel() > 0;
            atoms->append({rect.top(), rect.bottom(), heading, -1});
            kinds << (heading ? Kind::Heading : Kind::Block);
        }
    }
    // An intro line between a heading and its table ("In window order …") goes with the table.
    for (int i = 1; i + 1 < kinds.size(); ++i)
        if (kinds[i] == Kind::Block && kinds[i - 1] == Kind::Heading && kinds[i + 1] == Kind::TableHead)
            (*atoms)[i].keepWithNext = true;
}

} // namespace

QVector<ReportPage> paginateReport(const QVector<ReportAtom> &atoms, const QVector<ReportTableHead> &heads, double pageHeight)
{
    QVector<ReportPage> pages;
    const int n = int(atoms.size());
    int i = 0;
    double start = n > 0 ? atoms[0].top : 0;
    while (i < n) {
        // A body row whose table's header is on an earlier page: the header comes first.
        int head = -1;
        const int t = atoms[i].table;
        if (t >= 0 && t < heads.size() && heads[t].bottom <= start + kEpsilon)
            head = t;
        const double room = pageHeight - (head >= 0 ? heads[head].bottom - heads[head].top : 0);
        const double limit = start + qMax(room, pageHeight / 4); // a header never takes the whole page
        int j = i - 1;
        while (j + 1 < n && atoms[j + 1].bottom <= limit + kEpsilon)
            ++j;
        if (j < i) {
            // Taller than a whole page (it starts this page): sliced at the page's end.
            pages.append({start, limit, head});
            start = limit;
            continue;
        }
        // A heading (or a table's header row) is not left last on a page: it moves on with what
        // follows, unless everything on the page is such a chain.
        int k = j;
        while (k > i && k + 1 < n && atoms[k].keepWithNext)
            --k;
        if (k + 1 < n && atoms[k].keepWithNext)
            k = j;
        pages.append({start, atoms[k].bottom, head});
        i = k + 1;
        if (i < n)
            start = atoms[i].top;
    }
    return pages;
}

int printReportPages(QTextDocument &document, QPagedPaintDevice &device, const QString &footer)
{
    QPainter painter;
    // Laid out for the device (fonts in points, lengths in its pixels) as one page of its width.
    document.documentLayout()->setPaintDevice(&device);
    document.setDocumentMargin(0);
    document.setTextWidth(device.width());
    (void)document.documentLayout()->documentSize(); // the whole layout, now

    QFont footerFont = document.defaultFont();
    footerFont.setPointSizeF(7);
    const QFontMetricsF footerMetrics(footerFont, &device);
    const double footerHeight = footerMetrics.height() * 2;

    QVector<ReportAtom> atoms;
    QVector<ReportTableHead> heads;
    readAtoms(document, &atoms, &heads);
    const QVector<ReportPage> pages = paginateReport(atoms, heads, device.height() - footerHeight);
    if (!painter.begin(&device))
        return 0;
    const double width = device.width();
    auto slice = [&](double top, double bottom, double at) {
        painter.save();
        painter.translate(0, at - top);
        document.drawContents(&painter, QRectF(0, top, width, bottom - top));
        painter.restore();
    };
    // A piece may begin inside the one before (Qt lays a block out within the bottom margin of
    // the table before it): a page drawn to its last piece's bottom would hold the next piece's
    // first line (clipped from sight, but still text in the PDF), and one drawn from its first
    // piece's top the previous table's bottom border. Each page is drawn from where the piece
    // before its first ends to where the piece after its last begins, when they overlap.
    auto visible = [&](const ReportPage &page) {
        double top = page.top, bottom = page.bottom;
        for (int i = 0; i < atoms.size(); ++i) {
            // (One device pixel off each edge: Qt draws a block whose rect touches the clip.)
            if (i > 0 && atoms[i].top == page.top)
                top = qMin(qMax(top, atoms[i - 1].bottom + 1), page.bottom);
            if (i + 1 < atoms.size() && atoms[i].bottom == page.bottom)
                bottom = qMax(qMin(bottom, atoms[i + 1].top - 1), top);
        }
        return std::pair(top, bottom);
    };
    for (int p = 0; p < pages.size(); ++p) {
        if (p > 0)
            device.newPage();
        const ReportPage &page = pages[p];
        double y = 0;
        if (page.head >= 0) {
            slice(heads[page.head].top, heads[page.head].bottom, 0);
            y = heads[page.head].bottom - heads[page.head].top;
        }
        const auto [top, bottom] = visible(page);
        slice(top, bottom, y + top - page.top);
        painter.save();
        painter.setFont(footerFont);
        painter.setPen(QColor(0x5f, 0x63, 0x68));
        const QRectF footerRect(0, device.height() - footerMetrics.height(), width, footerMetrics.height());
        painter.drawText(footerRect, Qt::AlignLeft | Qt::AlignVCenter,
                         footerMetrics.elidedText(footer, Qt::ElideRight, width * 0.75));
        painter.drawText(footerRect, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("page %1 of %2").arg(p + 1).arg(pages.size()));
        painter.restore();
    }
    painter.end();
    return int(pages.size());
}

} // namespace triage
