#pragma once

#include "ReplicaRoute.h"

#include "DbSession.h"
#include "SqlBuilder.h"
#include "SqlDialect.h"
#include "TimeText.h"
#include "WorkspaceConfig.h"

#include <QFuture>
#include <QSet>
#include <QString>
#include <QVector>

#include <optional>
#include <utility>

namespace triage {

/// The work queues of DESIGN.md §2 (read-only slice).
enum class QueueKind {
    Unknown,   ///< stale PROCESSING records + records whose stored status no spelling matches (UNKNOWN_CODE_<value>,
               ///< NULL; any age: DESIGN.md §2) + keys whose latest intent attempt is UNKNOWN / RECONCILE_PENDING
               ///< (and, where both tables share a database, whose record is not settled)
    InFlight,  ///< PROCESSING records younger than their processing timeout (look, don't touch)
    Failed,    ///< FAILED records
    Succeeded, ///< SUCCESS records
    Escalated, ///< keys whose latest intent attempt is ESCALATED
};

/// "unknown", "inflight", "failed", "success", "escalated" (the CLI's QUEUE argument).
QString queueName(QueueKind kind);
/// "Unknown", "In flight", …: tab titles.
QString queueTitle(QueueKind kind);
/// Parses queueName() spellings, case-insensitive.
std::optional<QueueKind> queueFromName(const QString &name);

/// Where a queue row comes from: an idempotency record or an intent-log step.
enum class QueueSource { Record, Intent };
QString sourceName(QueueSource s); ///< "record" / "intent"

/// Filters shared by every queue (all optional). Times are UTC; windows are inclusive
/// at the start and exclusive at the end. Columns are the mapped ones (DESIGN.md §10).
struct QueueFilter {
    QString bizType;      ///< exact biz_type; intent-log rows (no biz_type) are then left out
    /// Tenant: the record table's tenant column when mapped ([idempotency.map] tenant), else
    /// as the biz_type's tenant pattern places it in the key (intent steps: always the key)
    QString tenant;
    QString keySubstring; ///< case-sensitive substring of idem_key
    std::optional<UtcMicros> createdFrom, createdTo, updatedFrom, updatedTo;
    bool isEmpty() const;
};

/// One queue request: which queue, which rows, which order.
struct QueueRequest {
    QueueKind kind = QueueKind::Unknown;
    QueueFilter filter;
    bool newestFirst = false; ///< default: oldest updated_at first (longest stuck on top)
};

/// A row summary (no snapshot, no payload: DESIGN.md §3; at most a few hundred bytes).
/// Times are canonical ISO UTC text as the server printed them; NULL times are null strings.
struct QueueRow {
    QueueSource source = QueueSource::Record;
    qint64 id = 0;          ///< idempotency_record.id or intent_log.id
    QString idemKey;
    QString bizType;        ///< records only
    QString action;         ///< intent steps only
    QString status;         ///< DESIGN.md §4 spelling
    QString createdAt, updatedAt, expireAt;
    double ageSeconds = 0;  ///< server now() - updated_at, in seconds
    QString taskId, stepId; ///< intent steps only
    QString cursorTime;     ///< updated_at in the table's cursor form (TimeSql::cursor(): stored text, epoch number or ISO text)
};

/// A stateless keyset position in one source: its next rows come after (time, id) in the
/// queue's order. That is the source's last consumed row, or, when the other source's rows
/// went further, the queue position reached (id then is the largest or smallest qint64, so
/// the bound falls before or after all rows of that time): rows inserted behind the
/// position never show up in the middle of a listing.
struct SourceCursor {
    bool started = false;   ///< false: from the beginning
    bool exhausted = false; ///< the source has no more rows
    QString time;           ///< updated_at of the position (cursor form)
    qint64 id = 0;
    /// Set when the position was taken from the other source's row (mergeQueuePages()):
    /// its updated_at as canonical ISO UTC text. `time` is then in the other source's
    /// cursor form, which serves only when both tables keep time alike; otherwise the
    /// page is read from this instant (TimeSql::cursorAt()).
    QString instant;
};

/// A stateless position in a (possibly merged) queue.
struct QueueCursor {
    SourceCursor record;
    SourceCursor intent;
};

/// One page: rows in queue order, and the cursor for the next page.
struct QueuePage {
    QVector<QueueRow> rows;
    QueueCursor next;
    bool atEnd = false;
};

/// Which sources a queue draws on.
bool queueUsesRecords(QueueKind kind);
bool queueUsesIntents(QueueKind kind, const QueueFilter &filter);

/// SQL for the queues, run on the worker thread that owns `session`. Keyset pagination
/// on (updated_at, id), never OFFSET; every value bound. Throws DbException.
namespace queue_sql {
/// Condition on the key column `keyColumn` (e.g. "idem_key" or "l.idem_key"): the key's
/// tenant, read with the key pattern `pattern` ("{tenant}:*"), equals `tenant` (DESIGN.md §4
/// "Tenants"). Index-friendly LIKE prefix where the pattern allows. Values bound through `b`.
QString tenantCondition(const SqlDialect &d, SqlBuilder &b, const QString &keyColumn, const QString &pattern,
                        const QString &tenant);
/// tenantCondition() under any configured biz_type's pattern or the default one (for rows
/// with no biz_type: intent-log rows, tickets).
QString tenantOnAnyPattern(const SqlDialect &d, SqlBuilder &b, const WorkspaceConfig &config, const QString &keyColumn,
                           const QString &tenant);
/// Up to `limit` record rows of `req` after `cursor`.
QVector<QueueRow> pageRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit);
/// Up to `limit` intent rows of `req` after `cursor`.
QVector<QueueRow> pageIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req,
                              const SourceCursor &cursor, int limit);
/// Exact count of record rows of `req`.
qint64 countRecords(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req);
/// Exact count of intent rows of `req`.
qint64 countIntents(DbSession &session, const WorkspaceConfig &config, const QueueRequest &req);
} // namespace queue_sql

/// Merges two sorted partial pages (each the next rows of its source after the cursor)
/// into the first `limit` rows in queue order and the cursor after them. Queue order is
/// updated_at (oldest or newest first), then records before intent steps, then id (in the
/// same direction). A source whose partial page was shorter than `limit` is exhausted once
/// its rows are consumed; the other source's cursor moves up to the last row taken.
QueuePage mergeQueuePages(const QueueRequest &req, const QueueCursor &from, const QVector<QueueRow> &records,
                          bool recordsComplete, const QVector<QueueRow> &intents, bool intentsComplete, int limit);

/// A row's identity across reads: (source, id).
std::pair<int, qint64> queueRowIdentity(const QueueRow &row);

/// True when `a` comes before `b` in `req`'s queue order: updated_at (oldest or newest
/// first), then records before intent steps, then id in the same direction.
bool queueRowBefore(const QueueRequest &req, const QueueRow &a, const QueueRow &b);

/// What a live poll changed in the rows a view holds (DESIGN.md §9 "Live queues"): the
/// poll re-reads the queue's first rows (`fresh`, queue order, at least as many as `held`)
/// and compares them with `held` by (source, id).
struct QueueDelta {
    QVector<int> updated;                  ///< indexes into held whose row changed (updated_at, status, …): replace with fresh
    QVector<QueueRow> updatedRows;         ///< the fresh rows for `updated`, same order
    QVector<int> left;                     ///< indexes into held of rows no longer in the queue
    /// Rows that entered the queue, each with the index in `held` it goes before (held.size():
    /// at the end), in queue order; several may share an index.
    QVector<std::pair<int, QueueRow>> entered;
    bool isEmpty() const { return updated.isEmpty() && left.isEmpty() && entered.isEmpty(); }
};

/// Compares `held` (a view's rows in queue order; rows already flagged as having left are
/// passed in `alreadyLeft` and never reported again) with `fresh`, the queue's first rows
/// now. A held row missing from `fresh` left the queue only when `fresh` reaches past it
/// (`freshComplete`: `fresh` is the whole queue, or the row sorts before fresh's last row);
/// otherwise it may just have been pushed beyond the rows re-read and is kept. A fresh row
/// not held entered the queue when it sorts before the last held row, or anywhere when
/// `heldComplete` (the view holds the whole queue); rows past the held ones come by paging.
QueueDelta diffQueueRows(const QueueRequest &req, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft,
                         bool heldComplete, const QVector<QueueRow> &fresh, bool freshComplete);

/// The cursor that continues `request`'s queue right after `row` (both sources: the row's own
/// from its cursor text and id, the other from the same instant, as a page ending at `row`
/// leaves them). For re-reading a queue's tail from a held row (the delta read).
QueueCursor queueCursorAfter(const QueueRequest &request, const QueueRow &row);

/// The delta read of a live poll (DESIGN.md §9 "Live queues"): for an oldest-first queue whose
/// held rows outnumber what a poll re-reads from the start, the index of the held row after
/// which the tail is re-read — the last one at least `lookbackS` seconds older than the newest
/// held row (rows committed late with an older updated_at land after it), but never inside
/// the first `headRows` rows still held (the head re-read covers those). -1 when no tail read
/// is needed (newest first, or the head covers every row held). Pure.
int queueTailAfter(const QueueRequest &request, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft, int headRows,
                   int lookbackS);

/// diffQueueRows() of the head re-read (`head`, the queue's first rows), folded with the diff
/// of the tail re-read (`tail`: the queue's rows after held[tailAfter], in order; tailAfter -1:
/// none). Indexes are into `held` as a whole. A tail row held before the tail (its updated_at
/// moved it) is an update of that row, never a second copy; a row the head re-read returned is
/// never entered twice. Entered rows are in index order. Pure.
QueueDelta diffQueueRowsWithTail(const QueueRequest &req, const QVector<QueueRow> &held, const QSet<int> &alreadyLeft,
                                 bool heldComplete, const QVector<QueueRow> &head, bool headComplete, int tailAfter,
                                 const QVector<QueueRow> &tail, bool tailComplete);

/// `[console] live_lookback_seconds` of `config`'s file (default 60, 0–86400): how far before the
/// newest row held a live poll's delta read starts, at least as long as the longest transaction
/// that writes the agents' tables.
int liveLookbackSeconds(const WorkspaceConfig &config);

/// The tenant of `key` under `pattern` (see BizTypeConfig::tenantPattern), or empty.
QString tenantFromKey(const QString &key, const QString &pattern);

class Workspace;

/// `[console] live_poll_seconds` of `config`'s file: how often an open queue re-reads its
/// rows (DESIGN.md §9 "Live queues"); 0 turns the live update off. Default 5 (also without a
/// file: the demo workspace).
int livePollSeconds(const WorkspaceConfig &config);

/// The first `limit` rows of `request` after `cursor`, through `workspace`'s workers
/// (keyset pagination; for the Unknown queue a merge of records and intent steps by
/// updated_at, the two stores read at the same time). The first failure wins. Read from
/// the replicas where the lag allows (ReadFrom::Routed, Workspace::reader()); `from` Primary
/// when the rows feed a compare-and-set (mark --queue, DESIGN.md §9 "Read replicas").
QFuture<Outcome<QueuePage>> fetchQueuePage(Workspace &workspace, const QueueRequest &request, const QueueCursor &cursor,
                                           int limit, ReadFrom from = ReadFrom::Routed);

/// The exact number of rows of `request` (a separate statement, so a first page never
/// waits for a count); records and intent steps counted at the same time and added.
QFuture<Outcome<qint64>> countQueue(Workspace &workspace, const QueueRequest &request);

} // namespace triage
