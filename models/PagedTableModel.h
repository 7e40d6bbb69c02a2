#pragma once

#include <QAbstractTableModel>
#include <QPointer>
#include <QString>
#include <QVector>

namespace triage {

class Workspace;

/// The skeleton of a lazily paged, read-only table over a Workspace (DESIGN.md §3 models):
/// paging state, fetchMore() / canFetchMore(), and the page signals. A subclass holds the
/// rows, implements startPage() (one page in flight at a time, applied on the GUI thread
/// inside an exact beginInsertRows() range, from the event loop) and loadedRows(), and
/// bumps m_generation on every reset so that pages of an older request are dropped.
/// After a failed page (m_failed) paging stops until the subclass reloads.
class PagedTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Rows per page (default 100, at least 1). Applies to the next page.
    void setPageSize(int rows);
    /// Rows per page.
    int pageSize() const { return m_pageSize; }

    /// True while a page is being fetched.
    bool isLoading() const { return m_loading; }
    /// True once the last page has been received.
    bool atEnd() const { return m_atEnd; }
    /// The last page error (empty when the last page succeeded).
    QString lastError() const { return m_error; }

    /// The number of loaded rows (0 under a valid parent: a flat table).
    int rowCount(const QModelIndex &parent = {}) const override;
    /// True when more rows exist and no page is in flight (false after a failed page).
    bool canFetchMore(const QModelIndex &parent) const override;
    /// Starts fetching the next page and returns at once; rows arrive later.
    void fetchMore(const QModelIndex &parent) override;

signals:
    /// A page fetch started (true) or ended (false, with or without rows).
    void loadingChanged(bool loading);
    /// A page was applied: rows [first, first + added) are new; `atEnd` when no more follow.
    void pageLoaded(int first, int added, bool atEnd);
    /// A page (or a count) failed; `message` names the store and why (for operators).
    void errorOccurred(const QString &message);

protected:
    /// `workspace` must outlive the model.
    explicit PagedTableModel(Workspace *workspace, QObject *parent = nullptr);

    /// Rows held now.
    virtual int loadedRows() const = 0;
    /// Starts the next page (called by fetchMore() only when canFetchMore()).
    virtual void startPage() = 0;

    /// The first row of `rows` whose idemKey is `key`, or -1.
    template <typename Row>
    static int indexOfKey(const QVector<Row> &rows, const QString &key)
    {
        for (int i = 0; i < rows.size(); ++i)
            if (rows.at(i).idemKey == key)
                return i;
        return -1;
    }

    QPointer<Workspace> m_workspace;
    quint64 m_generation = 0; ///< bumped on every reset; pages of an older generation are dropped
    int m_pageSize = 100;
    bool m_started = false;   ///< a load was started (setRequest() / setFilter() / refresh())
    bool m_loading = false;
    bool m_atEnd = false;
    bool m_failed = false;    ///< the last page failed: no paging until a reload
    QString m_error;
};

} // namespace triage
