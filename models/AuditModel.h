#pragma once

#include "Audit.h"

#include <QAbstractTableModel>

namespace triage {

/// The operator actions recorded on one key (KeyDetail::audit, triage_audit rows), oldest
/// first: at (UTC, canonical text as stored), operator, action, outcome, reason. DisplayRole
/// and ToolTipRole are the stored text of the cell; the selected row's evidence JSON is
/// entry(row).evidence (DESIGN.md §2 detail view, "Audit" tab). Read-only.
class AuditModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { AtColumn, OperatorColumn, ActionColumn, OutcomeColumn, ReasonColumn, ColumnCount };

    /// An empty model; fill it with setEntries().
    explicit AuditModel(QObject *parent = nullptr);

    /// Replaces the rows (model reset).
    void setEntries(const QVector<AuditEntry> &entries);
    /// The rows shown, oldest first.
    const QVector<AuditEntry> &entries() const { return m_entries; }
    /// The entry at `row` (0 <= row < rowCount()).
    const AuditEntry &entry(int row) const { return m_entries.at(row); }

    /// Read-only QAbstractItemModel interface (one row per audit entry).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<AuditEntry> m_entries;
};

} // namespace triage
