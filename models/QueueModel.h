#pragma once

#include "LivePolling.h"
#include "Claim.h"
#include "ModelRoles.h"
#include "PagedTableModel.h"
#include "Queue.h"
#include "QueryCancel.h"

#include <QHash>
#include <QSet>
#include <QTimer>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// One work queue (DESIGN.md §2) as a lazily paged table over fetchQueuePage().
///
/// Paging: the model keeps the keyset cursor (QueueCursor) of the rows it holds; each
/// fetchMore() asks for the next pageSize() rows and returns at once. The page is applied
/// on the GUI thread inside an exact beginInsertRows() range, always from the event loop
/// (whenReady()): pages, counts and errors never arrive inside the setRequest(), refresh(),
/// fetchMore() or resume() call that asked for them, so a caller may connect to the
/// signals right after that call, before the event loop runs again. Like
/// DB4S, every reset (setRequest(), refresh()) bumps a generation counter, and a page or
/// count that arrives for an older generation is dropped. The total comes from
/// countQueue() as a separate statement and never delays the first page.
///
/// Holds only QueueRow summaries (a few hundred bytes per row: no snapshots, no payloads).
/// Errors are reported through errorOccurred() and lastError(); after a failed page the
/// model stops paging (canFetchMore() is false) until refresh() or resume(). The model
/// never shows UI.
///
/// Cancelling: every page and count is submitted under the load's CancelToken
/// (QueryCancel.h). cancelLoading() stops them: jobs not started are dropped, the statement
/// running on the server is cancelled through a second connection; the rows already loaded
/// stay, and the page / count fail with DbError::Kind::Cancelled (pageCancelled(),
/// countCancelled()). A reset drops the previous load's jobs that have not started yet
/// (their results would be discarded anyway) without touching a running statement.
class QueueModel : public PagedTableModel {
    Q_OBJECT
public:
    /// Columns, in display order.
    enum Column {
        KeyColumn,      ///< idem_key (monospace)
        StatusColumn,   ///< record status or intent step status, with roles::Tone
        AgeColumn,      ///< server now() - updated_at, human ("3d 4h"); the queue's sort key
        SourceColumn,   ///< "record" / "intent"
        BizTypeColumn,  ///< biz_type for records, action for intent steps
        UpdatedColumn,  ///< updated_at, UTC, to the second (roles::FullText: microseconds)
        CreatedColumn,  ///< created_at, UTC
        ExpireColumn,   ///< expire_at, UTC (records only)
        TaskStepColumn, ///< "task_id / step_id" (intent steps only)
        ClaimColumn,    ///< "claimed by alice, 4 min ago" (a live claim on the key, DESIGN.md §8 "Claims"), else empty
        ColumnCount
    };
    /// Model-specific roles (valid on every column of a row).
    enum Role {
        RowRole = roles::FirstModelRole, ///< the whole triage::QueueRow
        IdemKeyRole,                     ///< QString idem_key
        SourceRole,                      ///< int(triage::QueueSource)
        AgeSecondsRole,                  ///< double, seconds (server clock at load time)
        ClaimHolderRole,                 ///< QString: who holds a live claim on the key ("" when nobody)
    };

    /// The live update's state (DESIGN.md §9 "Live queues"), for "polling every 5 s" or
    /// "stale since 02:14:07 (why)".
    struct LiveState {
        int intervalMs = 0;        ///< 0: off
        bool slowed = false;       ///< the window is hidden: polls every intervalMs × kHiddenSlowdown
        bool stale = false;        ///< the last poll failed
        QString staleSinceUtc;     ///< ISO UTC of the first failed poll in a row ("" when not stale)
        QString why;               ///< that failure's message
        QString lastOkUtc;         ///< ISO UTC of the last poll that succeeded ("" none yet)
    };
    /// How much slower a hidden window polls (LivePolling.h).
    static constexpr int kHiddenSlowdown = kLiveHiddenSlowdown;
    /// At most this many rows are re-read by one poll (the rows held past it are kept as they are).
    static constexpr int kMaxPolledRows = 1000;

    /// `workspace` must outlive the model. Nothing loads until setRequest() or refresh().
    explicit QueueModel(Workspace *workspace, QObject *parent = nullptr);
    ~QueueModel() override;

    /// Replaces the queue/filter/order: resets the model (dropping rows and any results
    /// still in flight) and starts the first page and the count.
    void setRequest(const QueueRequest &request);
    /// The current request (queue, filters, order).
    const QueueRequest &request() const { return m_request; }
    /// Reloads the current request from the start (same as setRequest(request())).
    void refresh();
    /// Reloads the current request from the start while the rows loaded stay shown: the
    /// first page replaces them when it arrives (one reset), the count replaces the count
    /// held. A reload that fails keeps the rows and the count it had, with lastError() /
    /// countError() and errorOccurred(); resume() then tries the reload again. Before the
    /// first load, same as refresh().
    void reload();

    /// True while the count is being fetched.
    bool isCounting() const { return m_counting; }
    /// The exact number of rows of the request, or -1 while unknown (counting or failed).
    qint64 count() const { return m_count; }
    /// The last count error (empty when the count succeeded or is pending).
    QString countError() const { return m_countError; }
    /// True when the last page failed because the operator cancelled it (lastError() then
    /// holds "<store>: query cancelled by the operator").
    bool pageCancelled() const { return m_pageCancelled; }
    /// True when the count failed because the operator cancelled it.
    bool countCancelled() const { return m_countCancelled; }

    /// The stores the current request reads (idempotency and/or intent-log database): the
    /// workers a page or count of this queue runs on.
    QList<DbRole> stores() const;
    /// Cancels the page and the count in flight (see the class comment). Returns at once;
    /// false when nothing was in flight. The outcomes arrive as usual (errorOccurred());
    /// a cancel that could not be delivered (the second connection failed, or SQLite, where
    /// a running statement cannot be interrupted) is reported by cancelFailed().
    bool cancelLoading();
    /// Continues after a failed or cancelled page or count without dropping the rows
    /// loaded: the next page from the cursor of the rows held, the count if it is unknown.
    /// Before the first load, same as refresh().
    void resume();

    /// Live update (DESIGN.md §9 "Live queues"): every `ms` milliseconds (0: off, the
    /// default) the model re-reads the queue's first rows — as many as it holds, at most
    /// kMaxPolledRows — and the count, and merges them with diffQueueRows(): rows that
    /// entered are inserted at their place in queue order and flagged (roles::LiveChange =
    /// Entered), changed rows are updated in place, rows that left stay, flagged Left with
    /// the time (UTC) the poll saw them gone, until the next refresh() / reload(). A poll is
    /// skipped while a page or a previous poll is in flight; the selection and the rows above
    /// the viewport stay where they are except for rows entering above them.
    void setLiveInterval(int ms);
    /// The window is hidden (`slowed`): polls every interval × kHiddenSlowdown.
    void setLiveSlowed(bool slowed);
    const LiveState &liveState() const { return m_live; }
    /// "live: polling every 5 s", "live: polling every 30 s (window hidden)", "stale since
    /// 02:14:07 UTC (<why>)", "" when off.
    QString liveStatusText() const;
    /// Runs one poll now (what the timer does). False when it could not start (not loaded yet,
    /// a page or a poll in flight).
    bool poll();
    /// A push hint (PushFeed::changed / resynced, DESIGN.md §9 "Push"): poll() now, or — when
    /// a poll is in flight, which may have read before the change committed — once more as soon
    /// as it ends. False only before the first page (nothing to merge into yet).
    bool requestPoll();
    /// Rows currently flagged as entered / left by the live update.
    int enteredRows() const;
    int leftRows() const;

    /// The row summary at `row` (0 <= row < rowCount()).
    const QueueRow &queueRow(int row) const { return m_rows.at(row); }
    /// The first row whose idem_key is `key`, or -1 (only loaded rows are searched).
    int findKey(const QString &key) const;
    /// The live claim on `key` as read after its page arrived (claims are read once per page,
    /// on the idempotency store; nullopt when nobody holds it or it is not known yet).
    std::optional<Claim> claimOf(const QString &key) const;

    /// Read-only QAbstractItemModel interface over the loaded rows (see Column and Role);
    /// rowCount(), canFetchMore() and fetchMore() are PagedTableModel's.
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// The queue's order is the server's (updated_at, id). Sorting the Age or Updated
    /// column switches QueueRequest::newestFirst (Age descending / Updated ascending =
    /// oldest first) and reloads; other columns are ignored.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

signals:
    /// The count is known (`count` >= 0) or was reset to unknown (-1).
    void countChanged(qint64 count);
    /// cancelLoading() could not stop a running statement; `message` names the store and
    /// why (the load goes on).
    void cancelFailed(const QString &message);
    /// A poll finished: `ok`, and how many rows entered, changed and left.
    void polled(bool ok, int entered, int changed, int left);
    /// liveState() changed (interval, slowed, stale or recovered).
    void liveStateChanged();
    /// The reasons of the record rows a poll saw leave have been read and are in their
    /// tooltips ("left this queue at 12:01:07 UTC: settled SUCCESS by alice at 12:01:05 UTC; …").
    void leftReasonsRead();

private:
    int loadedRows() const override { return int(m_rows.size()); }
    void reset();
    void startPage() override;
    void startPage(const QueueCursor &from);
    void startCount();
    void newToken();
    void applyPage(quint64 generation, const Outcome<QueuePage> &page);
    void applyCount(quint64 generation, const Outcome<qint64> &count);
    bool isStale(const QueueRow &row) const;
    /// Reads the live claims on the keys of rows [first, first + count) and shows them.
    void loadClaims(int first, int count);
    /// One poll's reads: the head re-read, the count and the delta read of the tail (empty when none).
    struct PollResult {
        Outcome<QueuePage> page;
        Outcome<qint64> count;
        Outcome<QueuePage> tail;
    };
    void applyPoll(quint64 generation, const PollResult &r, int tailAfter);
    /// Reads why the record rows at `left` left (readLeftRowReasons()) into their marks.
    void readLeftReasons(quint64 generation, const QVector<int> &left);
    void restartLiveTimer();
    /// Marks the live view stale for `why` (kept since the first failure in a row), or fresh
    /// again for "" ; emits liveStateChanged() when anything changed.
    void setLiveStale(const QString &why);
    /// roles::LiveChange of a row (0 none, 1 entered, 2 left).
    int liveChangeOf(const QueueRow &row) const;
    QSet<int> leftIndexes() const;

    struct LiveMark {
        int change = 0;    ///< 1 entered, 2 left
        QString atUtc;     ///< when the poll saw it (ISO UTC)
        QString why;       ///< left record rows: leftRowReason(), once read ("" before)
    };
    QHash<std::pair<int, qint64>, LiveMark> m_marks; ///< by (source, id); cleared on every reset / reload
    LiveState m_live;
    QTimer *m_liveTimer = nullptr;
    bool m_polling = false;
    bool m_pollAgain = false; ///< requestPoll() during a poll: poll again when it ends

    QueueRequest m_request;
    QVector<QueueRow> m_rows;
    QHash<QString, Claim> m_claims; ///< live claims by key, for the rows loaded
    QueueCursor m_cursor;
    bool m_counting = false;
    bool m_replacing = false;     ///< the page in flight is a reload()'s first page: it replaces m_rows
    bool m_reloadFailed = false;  ///< the last reload() failed; resume() reloads again
    bool m_pageCancelled = false;
    bool m_countCancelled = false;
    qint64 m_count = -1;
    QString m_countError;
    CancelToken m_token; ///< tags the jobs of the current load (see cancelLoading())
};

} // namespace triage

Q_DECLARE_METATYPE(triage::QueueRow)
