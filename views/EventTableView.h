#pragma once

#include <QTableView>

namespace triage {

/// The Incident view's event list (DESIGN.md §7): a QTableView that does not repaint its
/// viewport when rows are appended below what it shows. QTableView relays out and repaints its
/// whole viewport after every change of the row count (~8 ms a page on a loaded machine, the
/// longest work the GUI thread did while a large window loaded); rows appended past the last
/// visible one change only the scroll bar, so here the geometry (scroll bar range) is updated
/// and the viewport repainted only when the new rows are within the visible part, or rows went
/// away. Everything else is QTableView's.
class EventTableView : public QTableView {
    Q_OBJECT
public:
    explicit EventTableView(QWidget *parent = nullptr);

    /// Viewport repaints asked for by row-count changes since construction (for the bench).
    int rowCountRepaints() const { return m_repaints; }

private:
    void onRowCountChanged(int oldCount, int newCount);
    int m_repaints = 0;
};

} // namespace triage
