#pragma once

#include "Incident.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QVector>

namespace triage {

class Workspace;

/// The incidents list of the Incident tab (DESIGN.md §7 "Incidents"): the open incidents (or
/// all, setShowClosed()), newest first, as listIncidents() returns them — one read, no paging
/// (incidents are few). Columns: id, status, title, window start and end (canonical ISO UTC),
/// pins, notes. refresh() starts the read and returns at once; the rows are replaced on the
/// GUI thread (whenReady(); a model reset) and loaded() is emitted, or errorOccurred() with
/// the store's message (the rows are kept). A refresh started while one is running wins: the
/// older answer is dropped. Read-only.
class IncidentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IdColumn, StatusColumn, TitleColumn, FromColumn, ToColumn, PinsColumn, NotesColumn, ColumnCount };
    enum Role {
        IncidentIdRole = roles::FirstModelRole, ///< qint64: the incident's id
        OpenRole,                               ///< bool: the incident is open
    };

    /// `workspace` must outlive the model. Nothing is read until refresh().
    explicit IncidentsModel(Workspace *workspace, QObject *parent = nullptr);

    /// Lists closed incidents too (takes effect at the next refresh()).
    void setShowClosed(bool all) { m_all = all; }
    /// Reads the list again.
    void refresh();
    /// The incident at `row` (0 <= row < rowCount()).
    const Incident &incident(int row) const { return m_rows.at(row); }
    /// The row of incident `id`, or -1.
    int rowOf(qint64 id) const;
    /// The last error ("" after a successful read).
    QString lastError() const { return m_error; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// The list is in (rows replaced).
    void loaded();
    /// The read failed; the rows shown are the previous ones.
    void errorOccurred(const QString &message);

private:
    Workspace *m_workspace;
    QVector<Incident> m_rows;
    bool m_all = false;
    quint64 m_generation = 0;
    QString m_error;
};

} // namespace triage
