#include "IncidentsModel.h"

#include "TimeText.h"
#include "WhenReady.h"

namespace triage {

IncidentsModel::IncidentsModel(Workspace *workspace, QObject *parent) : QAbstractTableModel(parent), m_workspace(workspace) {}

void IncidentsModel::refresh()
{
    const quint64 generation = ++m_generation;
    whenReady(listIncidents(*m_workspace, m_all), this, [this, generation](const Outcome<QVector<Incident>> &out) {
        if (generation != m_generation)
            return; // a newer refresh() wins
        if (!out.ok()) {
            m_error = out.error->message;
            emit errorOccurred(m_error);
            return;
        }
        m_error.clear();
        beginResetModel();
        m_rows = *out;
        endResetModel();
        emit loaded();
    });
}

int IncidentsModel::rowOf(qint64 id) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return i;
    return -1;
}

int IncidentsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int IncidentsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant IncidentsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Incident &i = m_rows.at(index.row());
    switch (role) {
    case IncidentIdRole: return i.id;
    case OpenRole: return i.open;
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case IdColumn: return i.id;
        case StatusColumn: return i.open ? QStringLiteral("open") : QStringLiteral("closed");
        case TitleColumn: return i.title;
        case FromColumn: return formatUtcMicros(i.query.from);
        case ToColumn: return formatUtcMicros(i.query.to);
        case PinsColumn: return i.pins;
        case NotesColumn: return i.notes;
        }
        return {};
    case roles::Monospace: return index.column() == FromColumn || index.column() == ToColumn;
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == PinsColumn || index.column() == NotesColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QVariant IncidentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"ID", "Status", "Title", "From (UTC)", "To (UTC)", "Pins", "Notes"};
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace triage
