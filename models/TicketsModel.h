#pragma once

#include "KeyDetail.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>

namespace triage {

/// The ticket rows carrying one key (KeyDetail::tickets): id, status, tenant, title,
/// created / updated (UTC), payload (one-line preview; PayloadRole has the whole text).
/// NULL columns show "NULL" with roles::IsNull. More than one row is a duplicate-key group.
class TicketsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IdColumn, StatusColumn, TenantColumn, TitleColumn, CreatedColumn, UpdatedColumn, PayloadColumn, ColumnCount };
    enum Role {
        PayloadRole = roles::FirstModelRole, ///< QString payload, or an invalid QVariant for NULL
        TicketIdRole,                        ///< the ticket id's exact text (QString; BusinessId::text())
    };

    /// An empty model; fill it with setTickets().
    explicit TicketsModel(QObject *parent = nullptr);

    /// Replaces the rows (model reset).
    void setTickets(const QVector<TicketRow> &tickets);
    /// The ticket rows shown, oldest first.
    const QVector<TicketRow> &tickets() const { return m_tickets; }
    /// The ticket at `row` (0 <= row < rowCount()).
    const TicketRow &ticket(int row) const { return m_tickets.at(row); }

    /// Read-only QAbstractItemModel interface (one row per item; see the class comment for roles).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<TicketRow> m_tickets;
};

} // namespace triage
