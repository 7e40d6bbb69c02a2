#include "EventTableView.h"

#include <QHeaderView>

namespace triage {

EventTableView::EventTableView(QWidget *parent) : QTableView(parent)
{
    // QTableView connects its vertical header's sectionCountChanged to rowCountChanged(), which
    // schedules a full layout and repaint; this one decides itself.
    // (Qt 6.4 makes that connection by signature: it is undone the same way.)
    const bool undone = disconnect(verticalHeader(), SIGNAL(sectionCountChanged(int,int)), this, SLOT(rowCountChanged(int,int)))
        || disconnect(verticalHeader(), &QHeaderView::sectionCountChanged, this, &EventTableView::rowCountChanged);
    if (!undone)
        qWarning("EventTableView: QTableView's row-count connection was not found; every insert repaints");
    connect(verticalHeader(), &QHeaderView::sectionCountChanged, this, &EventTableView::onRowCountChanged);
}

void EventTableView::onRowCountChanged(int oldCount, int newCount)
{
    if (newCount > oldCount && oldCount > 0) {
        // Appended: visible only when the old last row is at or above the viewport's bottom.
        const int lastVisible = rowAt(viewport()->height() - 1);
        if (lastVisible >= 0 && lastVisible < oldCount - 1) {
            updateGeometries(); // the scroll bar's range; nothing shown moves
            return;
        }
    }
    ++m_repaints;
    rowCountChanged(oldCount, newCount); // QTableView's own: layout and repaint
}

} // namespace triage
