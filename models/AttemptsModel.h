#pragma once

#include "KeyDetail.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>

namespace triage {

/// The intent-log attempts for one key (KeyDetail::attempts), oldest first: id, attempt
/// number within its (task, step), task, step, action, status, actor, created / updated
/// (UTC), error. The JSON columns (request, response, state_before, state_after) are not
/// columns: read them with attempt() or the roles below. NULL shows "NULL" (roles::IsNull).
class AttemptsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn, AttemptColumn, TaskColumn, StepColumn, ActionColumn, StatusColumn, ActorColumn,
        CreatedColumn, UpdatedColumn, ErrorColumn, ColumnCount
    };
    /// Each returns the column's text, or an invalid QVariant for SQL NULL.
    enum Role {
        RequestRole = roles::FirstModelRole,
        ResponseRole,
        StateBeforeRole,
        StateAfterRole,
        AttemptIdRole, ///< qint64 intent_log.id
    };

    /// An empty model; fill it with setAttempts().
    explicit AttemptsModel(QObject *parent = nullptr);

    /// Replaces the rows (model reset); attempt numbers are counted per (task_id, step_id).
    void setAttempts(const QVector<IntentAttempt> &attempts);
    /// The attempts shown, oldest first.
    const QVector<IntentAttempt> &attempts() const { return m_attempts; }
    /// The attempt at `row` (0 <= row < rowCount()).
    const IntentAttempt &attempt(int row) const { return m_attempts.at(row); }
    /// 1-based attempt number of `row` within its (task_id, step_id).
    int attemptNumber(int row) const { return m_numbers.at(row); }

    /// Read-only QAbstractItemModel interface (one row per item; see the class comment for roles).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<IntentAttempt> m_attempts;
    QVector<int> m_numbers;
};

} // namespace triage
