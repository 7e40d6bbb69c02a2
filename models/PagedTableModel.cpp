#include "PagedTableModel.h"

#include "Workspace.h"

namespace triage {

PagedTableModel::PagedTableModel(Workspace *workspace, QObject *parent) : QAbstractTableModel(parent), m_workspace(workspace) {}

void PagedTableModel::setPageSize(int rows)
{
    m_pageSize = qMax(1, rows);
}

int PagedTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : loadedRows();
}

bool PagedTableModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_started && !m_loading && !m_atEnd && !m_failed && m_workspace;
}

void PagedTableModel::fetchMore(const QModelIndex &parent)
{
    if (canFetchMore(parent))
        startPage();
}

} // namespace triage
