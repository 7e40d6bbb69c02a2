#include "CompensationsModel.h"

#include "StatusTone.h"
#include "TimeText.h"
#include "WhenReady.h"

namespace triage {

CompensationsModel::CompensationsModel(CompensationRunner *runner, QObject *parent)
    : QAbstractTableModel(parent), m_runner(runner)
{
    m_query.limit = 1000;
}

void CompensationsModel::setStatusFilter(std::optional<CompensationStatus> status)
{
    m_query.status = status;
    refresh();
}

void CompensationsModel::refresh()
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    emit loadingChanged(true);
    whenReady(m_runner->list(m_query), this, [this, generation](const Outcome<QVector<CompensationRow>> &rows) {
        if (generation != m_generation)
            return; // an older filter's answer
        m_loading = false;
        if (!rows.ok()) {
            m_error = rows.error->message;
            emit loadingChanged(false);
            emit errorOccurred(m_error);
            return;
        }
        m_error.clear();
        beginResetModel();
        m_rows = *rows;
        endResetModel();
        emit loadingChanged(false);
        emit loaded(int(m_rows.size()));
    });
}

int CompensationsModel::findKey(const QString &compKey) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).compKey == compKey)
            return i;
    return -1;
}

int CompensationsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CompensationsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompensationsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CompensationRow &r = m_rows.at(index.row());
    switch (role) {
    case RowRole: return QVariant::fromValue(r);
    case CompKeyRole: return r.compKey;
    case StatusRole: return r.status;
    case Qt::DisplayRole:
        switch (index.column()) {
        case CompKeyColumn: return r.compKey;
        case StatusColumn: return r.status;
        case CallsColumn: return r.attempts;
        case ActionColumn: return r.action;
        case TargetColumn: return r.target;
        case SourceColumn: return r.sourceKey;
        case OperatorColumn: return r.operatorName;
        case UpdatedColumn: return utcToSecond(r.updatedAt);
        }
        return {};
    case roles::FullText:
        return index.column() == UpdatedColumn ? r.updatedAt : data(index, Qt::DisplayRole).toString();
    case roles::Monospace:
        return index.column() == CompKeyColumn || index.column() == SourceColumn || index.column() == UpdatedColumn;
    case roles::Tone:
        return index.column() == StatusColumn ? QVariant(int(intentStatusTone(r.status))) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == StatusColumn && r.lastError)
            return *r.lastError;
        if (index.column() == UpdatedColumn)
            return r.updatedAt;
        if (index.column() == CompKeyColumn || index.column() == SourceColumn)
            return data(index, Qt::DisplayRole);
        return {};
    }
    return {};
}

QVariant CompensationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case CompKeyColumn: return QStringLiteral("Compensation key");
    case StatusColumn: return QStringLiteral("Status");
    case CallsColumn: return QStringLiteral("Calls");
    case ActionColumn: return QStringLiteral("Action");
    case TargetColumn: return QStringLiteral("Target");
    case SourceColumn: return QStringLiteral("Source key");
    case OperatorColumn: return QStringLiteral("Operator");
    case UpdatedColumn: return QStringLiteral("Updated (UTC)");
    }
    return {};
}

} // namespace triage
