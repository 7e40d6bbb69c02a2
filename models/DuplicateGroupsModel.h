#pragma once

#include "CancelToken.h"
#include "Duplicates.h"
#include "ModelRoles.h"
#include "PagedTableModel.h"

#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// The Duplicate keys queue (DESIGN.md §2): duplicate-key groups, newest first, as a lazily
/// paged table over fetchDuplicateGroups()'s creation-time window scan. Each page is budgeted
/// (scanBudgetMs(), default kInteractivePageBudgetMs) so the first one shows in about a second even over tens of
/// millions of tickets; pages keep what they found and resume where the last one ended.
/// scanAll() is the full scan on demand: every remaining group in one aggregate statement
/// (fetchAllDuplicateGroups(): about the cost of a whole-table GROUP BY, no progress until it
/// ends); stopScan() cancels that statement on the server and keeps the groups shown. Like QueueModel,
/// fetchMore() starts one page and returns
/// at once; the page is applied on the GUI thread (`whenReady(future, this, …)`) inside an exact
/// beginInsertRows() range, and every reset bumps a generation counter so pages of an older
/// filter are dropped. Errors go to errorOccurred() / lastError(); the model never shows UI.
class DuplicateGroupsModel : public PagedTableModel {
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
    /// Milliseconds a page may scan before it returns what it found (default
    /// kInteractivePageBudgetMs; 0 = no limit).
    void setScanBudgetMs(int ms) { m_budgetMs = std::max(0, ms); }
    int scanBudgetMs() const { return m_budgetMs; }

    /// The full scan on demand: every group after the loaded ones in one statement
    /// (fetchAllDuplicateGroups()), appended when it ends. No-op at the end or after a
    /// failed page; a window page in flight finishes first.
    void scanAll();
    /// Ends scanAll(): cancels its statement on the server (cancelWork()); the groups
    /// already shown stay, nothing is marked failed.
    void stopScan();
    /// True while scanAll() runs.
    bool isScanningAll() const { return m_scanAll; }
    /// Share of the tickets' creation-time range scanned so far (0..1; 1 at the end).
    double scanProgress() const { return m_progress; }
    /// Every group whose newest ticket was created at or after this (canonical ISO UTC) is
    /// loaded; "" before the first page or when there are no tickets.
    QString scannedTo() const { return m_scannedTo; }
    /// Creation times of the oldest / newest ticket with a key in the filter (ISO UTC, or "").
    QString oldestAt() const { return m_oldestAt; }
    QString newestAt() const { return m_newestAt; }

    /// The group at `row` (0 <= row < rowCount()).
    const DuplicateGroup &group(int row) const { return m_rows.at(row); }
    /// The row of the loaded group `key`, or -1.
    int findKey(const QString &key) const;

    /// Read-only table interface over the loaded groups (see Column and Role); rowCount(),
    /// canFetchMore() and fetchMore() (one page of setPageSize() groups) are PagedTableModel's.
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// The scan moved: `fraction` 0..1 of the creation-time range, back to `scannedTo` (ISO UTC).
    void scanProgressChanged(double fraction, const QString &scannedTo);
    /// scanAll() started (true) or ended (false: at the end, stopped, or failed).
    void scanningAllChanged(bool scanning);

private:
    int loadedRows() const override { return int(m_rows.size()); }
    void startPage() override;
    /// Cancels the full scan's statement if one runs (no-op otherwise).
    void cancelFullScan();

    DuplicateFilter m_filter;
    QVector<DuplicateGroup> m_rows;
    std::optional<DuplicateCursor> m_cursor;
    int m_budgetMs = kInteractivePageBudgetMs;
    bool m_scanAll = false;
    CancelToken m_scanToken; ///< tags the full scan's jobs while it runs; null otherwise
    double m_progress = 0;
    QString m_scannedTo, m_oldestAt, m_newestAt;
};

} // namespace triage

Q_DECLARE_METATYPE(triage::DuplicateGroup)
