#pragma once

#include "KeyDetail.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>

#include <optional>

namespace triage {

/// One idempotency record as a name / value list: every column of the row as the driver
/// returned it (RecordDetail::allColumns, including columns the console does not know;
/// NULL shows "NULL" with roles::IsNull; result_snapshot shows its size only), followed by
/// fields the console computes (ComputedRole true): status text, age, expires in, stale,
/// tenant, processing timeout, server now, version column.
/// Without a record (setRecord(nullopt)) the model is empty.
class RecordFieldsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, ColumnCount };
    enum Role { ComputedRole = roles::FirstModelRole }; ///< bool: computed by the console, not a column

    /// An empty model; fill it with setRecord().
    explicit RecordFieldsModel(QObject *parent = nullptr);

    /// Replaces the record (model reset).
    void setRecord(const std::optional<RecordDetail> &record);
    /// The record shown (nullopt: none).
    const std::optional<RecordDetail> &record() const { return m_record; }
    /// The row of field `name` (column or computed field), or -1.
    int rowOf(const QString &name) const;

    /// Read-only QAbstractItemModel interface (one row per item; see the class comment for roles).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Field {
        QString name, value, toolTip;
        bool isNull = false, computed = false, monospace = false;
        int tone = -1; ///< int(Tone) or -1
    };
    std::optional<RecordDetail> m_record;
    QVector<Field> m_fields;
};

} // namespace triage
