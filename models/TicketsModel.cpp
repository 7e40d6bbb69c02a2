#include "TicketsModel.h"

#include "StatusTone.h"

namespace triage {

namespace {
constexpr int kPreviewChars = 120;
}

TicketsModel::TicketsModel(QObject *parent) : QAbstractTableModel(parent) {}

void TicketsModel::setTickets(const QVector<TicketRow> &tickets)
{
    beginResetModel();
    m_tickets = tickets;
    endResetModel();
}

int TicketsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_tickets.size());
}

int TicketsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TicketsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TicketRow &t = m_tickets.at(index.row());
    const NullableText *text = nullptr;
    QString plain;
    switch (index.column()) {
    case IdColumn: plain = t.id.text(); break;
    case StatusColumn: text = &t.status; break;
    case TenantColumn: text = &t.tenantId; break;
    case TitleColumn: text = &t.title; break;
    case CreatedColumn: plain = t.createdAt.isNull() ? QStringLiteral("NULL") : t.createdAt; break;
    case UpdatedColumn: plain = t.updatedAt.isNull() ? QStringLiteral("NULL") : t.updatedAt; break;
    case PayloadColumn: text = &t.payload; break;
    }
    const bool isNull = text ? !text->has_value() : plain == QLatin1String("NULL");
    const QString full = text ? text->value_or(QStringLiteral("NULL")) : plain;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        if (index.column() == PayloadColumn && !isNull) {
            QString s = full.simplified();
            return s.size() > kPreviewChars ? s.left(kPreviewChars - 1) + QChar(0x2026) : s;
        }
        return full;
    case roles::FullText: return full;
    case roles::IsNull: return isNull;
    case roles::Monospace:
        return index.column() == IdColumn || index.column() == CreatedColumn || index.column() == UpdatedColumn
            || index.column() == PayloadColumn;
    case roles::Tone:
        if (index.column() == StatusColumn)
            return int(ticketStatusTone(full));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == PayloadColumn || index.column() == TitleColumn)
            return full.left(4000);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn)
            return QVariant::fromValue<Qt::Alignment>(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case PayloadRole: return t.payload ? QVariant(*t.payload) : QVariant();
    case TicketIdRole: return t.id.text();
    default: return {};
    }
}

QVariant TicketsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return QStringLiteral("Id");
    case StatusColumn: return QStringLiteral("Status");
    case TenantColumn: return QStringLiteral("Tenant");
    case TitleColumn: return QStringLiteral("Title");
    case CreatedColumn: return QStringLiteral("Created (UTC)");
    case UpdatedColumn: return QStringLiteral("Updated (UTC)");
    case PayloadColumn: return QStringLiteral("Payload");
    }
    return {};
}

} // namespace triage
