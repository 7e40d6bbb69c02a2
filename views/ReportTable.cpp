#include "ReportTable.h"

#include <QHeaderView>
#include <QTableWidget>

namespace triage {

QTableWidget *reportTable(const QStringList &headers, int rows, QWidget *parent)
{
    auto *t = new QTableWidget(rows, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

void setCell(QTableWidget *t, int row, int col, const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setToolTip(text);
    t->setItem(row, col, item);
}

} // namespace triage
