#include "ProposalsModel.h"

#include "StatusTone.h"
#include "TimeText.h"
#include "WhenReady.h"

namespace triage {

namespace {

/// A proposal's state as a tone: open waits for someone (warning), approved is done (ok), the
/// rest closed it without applying anything.
Tone stateTone(const ProposalRow &p)
{
    const QString s = p.stateText();
    if (s == QLatin1String("open"))
        return Tone::Warning;
    if (s == QLatin1String("approved"))
        return Tone::Ok;
    if (s == QLatin1String("void"))
        return Tone::Danger;
    return Tone::Neutral; // expired, rejected
}

} // namespace

ProposalsModel::ProposalsModel(Workspace *workspace, QObject *parent)
    : QAbstractTableModel(parent), m_workspace(workspace)
{
}

void ProposalsModel::setShowDecided(bool all)
{
    m_all = all;
    refresh();
}

void ProposalsModel::refresh()
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    emit loadingChanged(true);
    whenReady(readProposals(*m_workspace, m_all), this, [this, generation](const Outcome<QVector<ProposalRow>> &rows) {
        if (generation != m_generation)
            return; // an older choice's answer
        m_loading = false;
        if (!rows.ok()) {
            m_error = rows.error->message;
            emit loadingChanged(false);
            emit errorOccurred(m_error);
            return;
        }
        m_error.clear();
        beginResetModel();
        m_rows = *rows;
        endResetModel();
        emit loadingChanged(false);
        emit loaded(int(m_rows.size()));
    });
}

int ProposalsModel::openCount() const
{
    return int(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const ProposalRow &p) { return p.state == QLatin1String("open"); }));
}

int ProposalsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProposalsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProposalsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ProposalRow &p = m_rows.at(index.row());
    switch (role) {
    case RowRole: return QVariant::fromValue(p);
    case KeyRole: return proposalRecordKey(p); // "" for a policy change: no record to open
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn: return p.id;
        case StateColumn: return p.stateText();
        case ActionColumn: return p.action;
        case WhatColumn: return proposalWhatText(p);
        case KeyColumn: return p.idemKey;
        case ByColumn: return p.proposedBy;
        case ProposedColumn: return utcToSecond(p.proposedAt);
        case ExpiresColumn: return utcToSecond(p.expiresAt);
        case ReasonColumn: return p.reason;
        case DecidedColumn: return p.decidedBy.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(p.decidedBy, p.decisionReason);
        }
        return {};
    case roles::FullText:
        if (index.column() == ProposedColumn)
            return p.proposedAt;
        if (index.column() == ExpiresColumn)
            return p.expiresAt;
        return data(index, Qt::DisplayRole).toString();
    case roles::Monospace:
        return index.column() == KeyColumn || index.column() == ProposedColumn || index.column() == ExpiresColumn;
    case roles::Tone:
        return index.column() == StateColumn ? QVariant(int(stateTone(p))) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == ReasonColumn || index.column() == KeyColumn || index.column() == WhatColumn || index.column() == DecidedColumn)
            return data(index, Qt::DisplayRole);
        return {};
    }
    return {};
}

QVariant ProposalsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return QStringLiteral("ID");
    case StateColumn: return QStringLiteral("State");
    case ActionColumn: return QStringLiteral("Action");
    case WhatColumn: return QStringLiteral("What");
    case KeyColumn: return QStringLiteral("Key");
    case ByColumn: return QStringLiteral("Proposed by");
    case ProposedColumn: return QStringLiteral("Proposed (UTC)");
    case ExpiresColumn: return QStringLiteral("Expires (UTC)");
    case ReasonColumn: return QStringLiteral("Reason");
    case DecidedColumn: return QStringLiteral("Decided");
    }
    return {};
}

} // namespace triage
