#include "AttemptsModel.h"

#include "StatusTone.h"

#include <map>

namespace triage {

namespace {

QVariant nullable(const NullableText &t)
{
    return t ? QVariant(*t) : QVariant();
}

} // namespace

AttemptsModel::AttemptsModel(QObject *parent) : QAbstractTableModel(parent) {}

void AttemptsModel::setAttempts(const QVector<IntentAttempt> &attempts)
{
    beginResetModel();
    m_attempts = attempts;
    m_numbers.clear();
    std::map<std::pair<NullableText, NullableText>, int> perStep; // NULL ids form their own step
    for (const IntentAttempt &a : m_attempts)
        m_numbers.append(++perStep[{a.taskId, a.stepId}]);
    endResetModel();
}

int AttemptsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_attempts.size());
}

int AttemptsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AttemptsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const IntentAttempt &a = m_attempts.at(row);
    switch (role) {
    case RequestRole: return nullable(a.request);
    case ResponseRole: return nullable(a.response);
    case StateBeforeRole: return nullable(a.stateBefore);
    case StateAfterRole: return nullable(a.stateAfter);
    case AttemptIdRole: return a.id;
    default: break;
    }
    const NullableText *text = nullptr;
    QString plain;
    switch (index.column()) {
    case IdColumn: plain = QString::number(a.id); break;
    case AttemptColumn: plain = QString::number(m_numbers.at(row)); break;
    case TaskColumn: text = &a.taskId; break;
    case StepColumn: text = &a.stepId; break;
    case ActionColumn: text = &a.action; break;
    case StatusColumn: text = &a.status; break;
    case ActorColumn: text = &a.actor; break;
    case CreatedColumn: plain = a.createdAt.isNull() ? QStringLiteral("NULL") : a.createdAt; break;
    case UpdatedColumn: plain = a.updatedAt.isNull() ? QStringLiteral("NULL") : a.updatedAt; break;
    case ErrorColumn: text = &a.error; break;
    }
    const bool isNull = text ? !text->has_value() : plain == QLatin1String("NULL");
    const QString full = text ? text->value_or(QStringLiteral("NULL")) : plain;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case roles::FullText: return full;
    case roles::IsNull: return isNull;
    case roles::Monospace:
        return index.column() == IdColumn || index.column() == CreatedColumn || index.column() == UpdatedColumn
            || index.column() == TaskColumn || index.column() == StepColumn;
    case roles::Tone:
        if (index.column() == StatusColumn)
            return int(intentStatusTone(full));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == ErrorColumn)
            return full;
        if (index.column() == CreatedColumn)
            return QStringLiteral("intent written (before the call)");
        if (index.column() == UpdatedColumn)
            return QStringLiteral("result recorded (after the call)");
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == AttemptColumn)
            return QVariant::fromValue<Qt::Alignment>(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

QVariant AttemptsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return QStringLiteral("Id");
    case AttemptColumn: return QStringLiteral("#");
    case TaskColumn: return QStringLiteral("Task");
    case StepColumn: return QStringLiteral("Step");
    case ActionColumn: return QStringLiteral("Action");
    case StatusColumn: return QStringLiteral("Status");
    case ActorColumn: return QStringLiteral("Actor");
    case CreatedColumn: return QStringLiteral("Intent (UTC)");
    case UpdatedColumn: return QStringLiteral("Result (UTC)");
    case ErrorColumn: return QStringLiteral("Error");
    }
    return {};
}

} // namespace triage
