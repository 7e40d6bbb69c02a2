#pragma once

#include "KeyDetail.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>

namespace triage {

/// The merged timeline of one key (KeyDetail::timeline, DESIGN.md §2) as a table:
/// time (UTC), local time, source store, kind, summary. Events are shown in the order
/// given (buildTimeline() sorts them). An event whose time could not be parsed shows its
/// raw text in the UTC column and an empty local column.
class TimelineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimeColumn, LocalTimeColumn, SourceColumn, KindColumn, SummaryColumn, ColumnCount };
    enum Role { RefIdRole = roles::FirstModelRole }; ///< the row id of the event in its source, as text (TimelineEvent::refId)

    /// An empty model; fill it with setEvents().
    explicit TimelineModel(QObject *parent = nullptr);

    /// Replaces the events (model reset).
    void setEvents(const QVector<TimelineEvent> &events);
    /// The events shown, in order.
    const QVector<TimelineEvent> &events() const { return m_events; }

    /// Read-only QAbstractItemModel interface (one row per item; see the class comment for roles).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<TimelineEvent> m_events;
};

} // namespace triage
