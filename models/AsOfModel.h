#pragma once

#include "AsOf.h"
#include "ModelRoles.h"

#include <QAbstractItemModel>

namespace triage {

/// The "As of T" panel's tree (DESIGN.md §7 "As of T"): one top-level row per store part
/// ("Record: status at T: SUCCESS", "Intent log: 2 attempts at T (1 created after T)", …),
/// and under it one row per item of that part (its KeyStateAsOf text). One column. Read-only;
/// the state is computed by keyStateAsOf() (backends/forensics), never here.
class AsOfModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role {
        BasisRole = roles::FirstModelRole, ///< int AsOfBasis (items only)
        EstablishedRole,                   ///< bool: the item's state at T is established (items only)
        UnknownRole,                       ///< bool: the part's store failed (parts only)
        PartRole,                          ///< int AsOfPart (parts and items)
    };

    explicit AsOfModel(QObject *parent = nullptr);

    /// Replaces what is shown (a reset).
    void setState(const KeyStateAsOf &state);
    /// Shows nothing (a reset).
    void clear();
    /// The state shown ("" key and no sections after clear()).
    const KeyStateAsOf &state() const { return m_state; }
    /// Every row's text, depth first, children indented by two spaces (tests, the view's copy).
    QStringList lines() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    KeyStateAsOf m_state;
};

} // namespace triage
