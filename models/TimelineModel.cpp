#include "TimelineModel.h"

#include "StatusTone.h"

namespace triage {

TimelineModel::TimelineModel(QObject *parent) : QAbstractTableModel(parent) {}

void TimelineModel::setEvents(const QVector<TimelineEvent> &events)
{
    beginResetModel();
    m_events = events;
    endResetModel();
}

int TimelineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_events.size());
}

int TimelineModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimelineModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TimelineEvent &e = m_events.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case roles::FullText:
        switch (index.column()) {
        case TimeColumn: return e.time;
        case LocalTimeColumn: return e.micros ? formatLocal(*e.micros) : QString();
        case SourceColumn: return e.source;
        case KindColumn: return e.kind;
        case SummaryColumn: return e.summary;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == SummaryColumn)
            return e.summary;
        if (index.column() == TimeColumn && !e.micros)
            return QStringLiteral("this time could not be read: sorted last");
        return {};
    case roles::Monospace: return index.column() == TimeColumn || index.column() == LocalTimeColumn;
    case roles::IsNull: return index.column() == TimeColumn && e.time == QLatin1String("NULL");
    case RefIdRole: return e.refId.text();
    default: return {};
    }
}

QVariant TimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn: return QStringLiteral("Time (UTC)");
    case LocalTimeColumn: return QStringLiteral("Local time");
    case SourceColumn: return QStringLiteral("Source");
    case KindColumn: return QStringLiteral("Kind");
    case SummaryColumn: return QStringLiteral("Summary");
    }
    return {};
}

} // namespace triage
