#include "AsOfModel.h"

#include <QFont>

namespace triage {

// Internal ids: 0 for a part (top-level row), part index + 1 for an item under that part.

AsOfModel::AsOfModel(QObject *parent) : QAbstractItemModel(parent) {}

void AsOfModel::setState(const KeyStateAsOf &state)
{
    beginResetModel();
    m_state = state;
    endResetModel();
}

void AsOfModel::clear()
{
    setState(KeyStateAsOf{});
}

QStringList AsOfModel::lines() const
{
    QStringList out;
    for (int p = 0; p < rowCount(); ++p) {
        const QModelIndex part = index(p, 0);
        out << part.data().toString();
        for (int i = 0; i < rowCount(part); ++i)
            out << QStringLiteral("  ") + index(i, 0, part).data().toString();
    }
    return out;
}

QModelIndex AsOfModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex AsOfModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int AsOfModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_state.sections.size());
    if (parent.column() != 0 || parent.internalId() != 0)
        return 0; // items have no children
    return int(m_state.sections.at(parent.row()).items.size());
}

int AsOfModel::columnCount(const QModelIndex &) const
{
    return 1;
}

QVariant AsOfModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == 0) {
        const AsOfSection &s = m_state.sections.at(index.row());
        switch (role) {
        case Qt::DisplayRole: return QStringLiteral("%1: %2").arg(asOfPartTitle(s.part), s.summary);
        case UnknownRole: return s.unknown;
        case PartRole: return int(s.part);
        default: return {};
        }
    }
    const AsOfSection &s = m_state.sections.at(int(index.internalId() - 1));
    const AsOfItem &item = s.items.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return item.text;
    case Qt::ToolTipRole: return item.text;
    case BasisRole: return int(item.basis);
    case EstablishedRole: return item.stateAtT.has_value();
    case Qt::FontRole:
        if (item.stateAtT)
            return {};
        {
            QFont italic; // nothing established at T: said, in italics
            italic.setItalic(true);
            return italic;
        }
    case PartRole: return int(s.part);
    default: return {};
    }
}

QVariant AsOfModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section == 0)
        return m_state.idemKey.isEmpty() ? QStringLiteral("As of T") : QStringLiteral("As of %1 (UTC)").arg(m_state.atText);
    return {};
}

} // namespace triage
