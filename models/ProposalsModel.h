#pragma once

#include "Mark.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QVector>

namespace triage {

class Workspace;

/// The four-eyes proposals (DESIGN.md §9 "Four-eyes") as a table over readProposals(): the open
/// ones oldest first (an open one past its expiry shows "expired"), or with setShowDecided()
/// every proposal, newest 500 first — what `triagectl proposals [--all]` lists, so a second
/// operator finds what waits for them. Loaded asynchronously with a generation counter (a
/// reload drops an older answer). The workspace must outlive the model; errors go to
/// errorOccurred(), never to a dialog.
class ProposalsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Columns, in display order.
    enum Column {
        IdColumn,       ///< proposal id
        StateColumn,    ///< open / expired / approved / rejected / void, with roles::Tone
        ActionColumn,   ///< mark_success / mark_failed / compensate
        WhatColumn,     ///< "→ SUCCESS", or the compensation (compensationProposalText())
        KeyColumn,      ///< idem_key (monospace)
        ByColumn,       ///< proposed_by
        ProposedColumn, ///< proposed_at, UTC to the second
        ExpiresColumn,  ///< expires_at, UTC to the second
        ReasonColumn,   ///< the proposer's reason
        DecidedColumn,  ///< "bob: <reason>" once decided, else ""
        ColumnCount
    };
    /// Model-specific roles (valid on every column of a row).
    enum Role {
        RowRole = roles::FirstModelRole, ///< the whole triage::ProposalRow
        KeyRole,                         ///< QString: the record's idem_key; "" for a policy change (proposalRecordKey())
    };

    /// Nothing loads until refresh() or setShowDecided().
    explicit ProposalsModel(Workspace *workspace, QObject *parent = nullptr);

    /// Lists every proposal (true) or only the open ones (false), and reloads.
    void setShowDecided(bool all);
    bool showDecided() const { return m_all; }
    /// Reloads the list.
    void refresh();
    /// True while the list is loading.
    bool isLoading() const { return m_loading; }
    /// The last error, or "".
    QString lastError() const { return m_error; }
    /// The row at `row`.
    const ProposalRow &proposal(int row) const { return m_rows.at(row); }
    /// Open proposals shown (expired ones included).
    int openCount() const;

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
    Workspace *m_workspace;
    bool m_all = false;
    QVector<ProposalRow> m_rows;
    quint64 m_generation = 0;
    bool m_loading = false;
    QString m_error;
};

} // namespace triage
