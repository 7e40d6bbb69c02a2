#include "AuditModel.h"

namespace triage {

AuditModel::AuditModel(QObject *parent) : QAbstractTableModel(parent) {}

void AuditModel::setEntries(const QVector<AuditEntry> &entries)
{
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole)
        return {};
    const AuditEntry &a = m_entries.at(index.row());
    switch (index.column()) {
    case AtColumn: return a.at;
    case OperatorColumn: return a.operatorName;
    case ActionColumn: return a.action;
    case OutcomeColumn: return a.outcome;
    case ReasonColumn: return a.reason;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case AtColumn: return QStringLiteral("at (UTC)");
    case OperatorColumn: return QStringLiteral("operator");
    case ActionColumn: return QStringLiteral("action");
    case OutcomeColumn: return QStringLiteral("outcome");
    case ReasonColumn: return QStringLiteral("reason");
    }
    return {};
}

} // namespace triage
