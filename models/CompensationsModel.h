#pragma once

#include "Compensation.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QVector>

#include <optional>

namespace triage {

/// The Compensations queue (DESIGN.md §2 "Compensations: in flight, UNKNOWN, done") as a
/// table over CompensationRunner::list(): the rows of triage_compensation, oldest first,
/// optionally of one status. The list is loaded asynchronously (`whenReady(future, this, …)`) with a
/// generation counter, so a reload drops results of an older filter. The runner must
/// outlive the model. The model never shows UI: errors go to errorOccurred().
class CompensationsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Columns, in display order.
    enum Column {
        CompKeyColumn,  ///< comp_key (monospace)
        StatusColumn,   ///< INTENT / UNKNOWN / SUCCEEDED / FAILED, with roles::Tone
        CallsColumn,    ///< calls sent
        ActionColumn,   ///< action
        TargetColumn,   ///< target ticket id
        SourceColumn,   ///< source idem_key
        OperatorColumn, ///< operator
        UpdatedColumn,  ///< updated_at, UTC
        ColumnCount
    };
    /// Model-specific roles (valid on every column of a row).
    enum Role {
        RowRole = roles::FirstModelRole, ///< the whole triage::CompensationRow
        CompKeyRole,                     ///< QString comp_key
        StatusRole,                      ///< QString status
    };

    /// `runner` must outlive the model. Nothing loads until refresh() or setStatusFilter().
    explicit CompensationsModel(CompensationRunner *runner, QObject *parent = nullptr);

    /// Shows only compensations in `status` (nullopt: all) and reloads.
    void setStatusFilter(std::optional<CompensationStatus> status);
    /// The status filter.
    std::optional<CompensationStatus> statusFilter() const { return m_query.status; }
    /// At most `limit` rows (0 = no limit; default 1000). Applies to the next reload.
    void setLimit(int limit) { m_query.limit = std::max(0, limit); }
    /// Reloads the list.
    void refresh();

    /// True while the list is loading.
    bool isLoading() const { return m_loading; }
    /// The last error, or "".
    QString lastError() const { return m_error; }
    /// The row at `row`.
    const CompensationRow &compensation(int row) const { return m_rows.at(row); }
    /// The row of `compKey`, or -1.
    int findKey(const QString &compKey) const;

    /// Read-only table interface (see Column and Role).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// A reload started (true) or ended (false).
    void loadingChanged(bool loading);
    /// A reload finished with `rows` rows.
    void loaded(int rows);
    /// A reload failed; `message` names the store and why.
    void errorOccurred(const QString &message);

private:
    CompensationRunner *m_runner;
    CompensationQuery m_query;
    QVector<CompensationRow> m_rows;
    quint64 m_generation = 0;
    bool m_loading = false;
    QString m_error;
};

} // namespace triage

Q_DECLARE_METATYPE(triage::CompensationRow)
