#pragma once

#include "Duplicates.h"
#include "ModelRoles.h"

#include <QAbstractTableModel>
#include <QPointer>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// The Duplicate keys queue (DESIGN.md §2): duplicate-key groups as a lazily, keyset-paged
/// table over fetchDuplicateGroups(). Like QueueModel, fetchMore() starts one page and returns
/// at once; the page is applied on the GUI thread (`.then(this, …)`) inside an exact
/// beginInsertRows() range, and every reset bumps a generation counter so pages of an older
/// filter are dropped. Errors go to errorOccurred() / lastError(); the model never shows UI.
class DuplicateGroupsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Columns, in display order.
    enum Column {
        KeyColumn,          ///< idem_key (monospace)
        SizeColumn,         ///< tickets with the key
        LiveColumn,         ///< of which not CANCELLED
        TenantsColumn,      ///< distinct tenant_id values
        FirstCreatedColumn, ///< earliest ticket created_at, UTC
        LastCreatedColumn,  ///< latest ticket created_at, UTC
        RecordColumn,       ///< record status (or NONE), with roles::Tone (PROCESSING: Warning, unsettled)
        ColumnCount
    };
    /// Model-specific roles (valid on every column of a row).
    enum Role {
        GroupRole = roles::FirstModelRole, ///< the whole triage::DuplicateGroup
        IdemKeyRole,                       ///< QString idem_key
    };

    /// `workspace` must outlive the model. Nothing loads until setFilter() or refresh().
    explicit DuplicateGroupsModel(Workspace *workspace, QObject *parent = nullptr);

    /// Replaces the filter, resets the model and starts the first page.
    void setFilter(const DuplicateFilter &filter);
    /// The current filter.
    const DuplicateFilter &filter() const { return m_filter; }
    /// Reloads from the start with the current filter.
    void refresh();
    /// Groups per page (default 100, at least 1).
    void setPageSize(int rows) { m_pageSize = std::max(1, rows); }

    /// True while a page is in flight.
    bool isLoading() const { return m_loading; }
    /// True once the last page has arrived.
    bool atEnd() const { return m_atEnd; }
    /// The last page error, or "".
    QString lastError() const { return m_error; }
    /// The group at `row` (0 <= row < rowCount()).
    const DuplicateGroup &group(int row) const { return m_rows.at(row); }
    /// The row of the loaded group `key`, or -1.
    int findKey(const QString &key) const;

    /// Read-only table interface over the loaded groups (see Column and Role).
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// True when more groups exist and no page is in flight (false after a failed page).
    bool canFetchMore(const QModelIndex &parent) const override;
    /// Starts fetching the next page; rows arrive later.
    void fetchMore(const QModelIndex &parent) override;

signals:
    /// A page fetch started (true) or ended (false).
    void loadingChanged(bool loading);
    /// A page was applied: rows [first, first + added) are new.
    void pageLoaded(int first, int added, bool atEnd);
    /// A page failed; `message` names the store and why.
    void errorOccurred(const QString &message);

private:
    void startPage();

    QPointer<Workspace> m_workspace;
    DuplicateFilter m_filter;
    QVector<DuplicateGroup> m_rows;
    std::optional<DuplicateCursor> m_cursor;
    quint64 m_generation = 0;
    int m_pageSize = 100;
    bool m_started = false, m_loading = false, m_atEnd = false, m_failed = false;
    QString m_error;
};

} // namespace triage

Q_DECLARE_METATYPE(triage::DuplicateGroup)
