#include "QueueModel.h"

#include "EscalationService.h"
#include "StatusTone.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <QSet>

#include "Log.h"
#include "Queue.h"

#include <algorithm>
#include <utility>

namespace triage {

namespace {

QString timeToolTip(const QString &canonical)
{
    if (canonical.isNull())
        return QStringLiteral("NULL");
    const auto t = parseUtcMicros(canonical);
    if (!t)
        return canonical;
    return QStringLiteral("%1\nlocal: %2").arg(canonical, formatLocal(*t));
}

} // namespace

QueueModel::QueueModel(Workspace *workspace, QObject *parent) : PagedTableModel(workspace, parent)
{
    qRegisterMetaType<triage::QueueRow>();
    m_liveTimer = new QTimer(this);
    connect(m_liveTimer, &QTimer::timeout, this, [this] { poll(); });
}

void QueueModel::setRequest(const QueueRequest &request)
{
    m_request = request;
    refresh();
}

void QueueModel::refresh()
{
    // canFetchMore() stays false while the reset signals run: a view or tester calling
    // fetchMore() from its modelReset slot must not start a second first page (the
    // model tester caught exactly that: every row twice).
    m_started = false;
    reset();
    m_started = true;
    startPage();
    startCount();
}

void QueueModel::reload()
{
    if (!m_started || m_rows.isEmpty()) {
        refresh();
        return;
    }
    ++m_generation; // results still in flight belong to the old load
    newToken();
    m_replacing = true;
    m_reloadFailed = false;
    m_failed = false;
    m_pageCancelled = false;
    m_countCancelled = false;
    m_error.clear();
    m_countError.clear();
    if (m_loading) { // the old page in flight will be dropped on arrival
        m_loading = false;
        emit loadingChanged(false);
    }
    m_counting = false;
    startPage(QueueCursor{});
    startCount();
}

void QueueModel::newToken()
{
    // Jobs of the previous load that have not started yet would only be dropped on
    // arrival: let the workers skip them. A running statement is left alone (killing it
    // could hit the next job in the round trip; see cancelRunningStatement()).
    m_token.cancel();
    m_token = CancelToken::create();
}

void QueueModel::reset()
{
    ++m_generation; // results of the previous request are dropped on arrival
    newToken();
    beginResetModel();
    m_rows.clear();
    m_claims.clear();
    m_marks.clear();
    m_cursor = QueueCursor{};
    m_atEnd = false;
    m_failed = false;
    m_replacing = false;
    m_reloadFailed = false;
    m_pageCancelled = false;
    m_countCancelled = false;
    m_error.clear();
    m_countError.clear();
    endResetModel();
    if (m_count != -1) {
        m_count = -1;
        emit countChanged(-1);
    }
    m_counting = false;
    if (m_loading) {
        m_loading = false;
        emit loadingChanged(false);
    }
}

void QueueModel::startPage()
{
    startPage(m_cursor);
}

void QueueModel::startPage(const QueueCursor &from)
{
    if (!m_workspace)
        return;
    m_loading = true;
    emit loadingChanged(true);
    const quint64 generation = m_generation;
    logger("models")->debug("fetching {} rows of the {} queue (generation {})", m_pageSize, queueName(m_request.kind),
                            generation);
    if (m_token.isCancelled()) // after cancelLoading(): later work gets a token of its own
        m_token = CancelToken::create();
    const CancelScope scope(m_token); // the workers' jobs carry the load's token
    whenReady(fetchQueuePage(*m_workspace, m_request, from, m_pageSize), this,
              [this, generation](const Outcome<QueuePage> &page) { applyPage(generation, page); });
}

void QueueModel::startCount()
{
    if (!m_workspace)
        return;
    m_counting = true;
    const quint64 generation = m_generation;
    if (m_token.isCancelled())
        m_token = CancelToken::create();
    const CancelScope scope(m_token);
    whenReady(countQueue(*m_workspace, m_request), this,
              [this, generation](const Outcome<qint64> &count) { applyCount(generation, count); });
}

void QueueModel::applyPage(quint64 generation, const Outcome<QueuePage> &page)
{
    if (generation != m_generation) {
        logger("models")->debug("dropped a {} queue page of generation {} (now {})", queueName(m_request.kind), generation,
                                m_generation);
        return;
    }
    int first = int(m_rows.size());
    int added = 0;
    const bool replacing = std::exchange(m_replacing, false);
    if (replacing && page.ok()) {
        // reload(): the new first page replaces the rows shown, in one reset.
        beginResetModel();
        m_rows = page->rows;
        m_marks.clear();
        m_cursor = page->next;
        m_atEnd = page->atEnd || page->rows.isEmpty();
        endResetModel();
        first = 0;
        added = int(m_rows.size());
        m_error.clear();
        m_pageCancelled = false;
    } else if (page.ok()) {
        const QVector<QueueRow> &rows = page->rows;
        added = int(rows.size());
        if (added > 0) {
            beginInsertRows(QModelIndex(), first, first + added - 1);
            m_rows += rows;
            m_cursor = page->next;
            m_atEnd = page->atEnd;
            endInsertRows();
        } else {
            m_cursor = page->next;
            m_atEnd = true; // an empty page ends the queue whatever the cursor says
        }
        m_error.clear();
        m_pageCancelled = false;
        setLiveStale(QString()); // the store answered: the rows are fresh
    } else {
        m_failed = true;
        m_reloadFailed = replacing; // the rows shown are the old ones: resume() reloads
        m_error = page.error->message;
        m_pageCancelled = page.error->kind == DbError::Kind::Cancelled;
        logger("models")->warn("{} queue: {}", queueName(m_request.kind), m_error);
        // A page that cannot be read makes the live view stale at once, as a failed poll does:
        // polls start only after a first page (poll()), so a store down from the start would
        // otherwise read "live: polling" (DESIGN.md §9 "Live queues").
        if (!m_pageCancelled)
            setLiveStale(m_error);
    }
    m_loading = false;
    emit loadingChanged(false);
    if (m_pollAgain && !m_polling) { // a push hint arrived while this page loaded (requestPoll())
        m_pollAgain = false;
        QMetaObject::invokeMethod(this, [this] { poll(); }, Qt::QueuedConnection);
    }
    if (page.ok() && added > 0)
        loadClaims(first, added);
    if (page.ok())
        emit pageLoaded(first, added, m_atEnd);
    else
        emit errorOccurred(m_error);
}

void QueueModel::applyCount(quint64 generation, const Outcome<qint64> &count)
{
    if (generation != m_generation)
        return;
    m_counting = false;
    if (count.ok()) {
        m_count = *count;
        m_countError.clear();
        m_countCancelled = false;
        emit countChanged(m_count);
    } else {
        m_countError = count.error->message;
        m_countCancelled = count.error->kind == DbError::Kind::Cancelled;
        logger("models")->warn("{} queue count: {}", queueName(m_request.kind), m_countError);
        emit errorOccurred(m_countError);
    }
}

QList<DbRole> QueueModel::stores() const
{
    QList<DbRole> out;
    if (queueUsesRecords(m_request.kind))
        out << DbRole::Idempotency;
    if (queueUsesIntents(m_request.kind, m_request.filter))
        out << DbRole::Intent;
    return out;
}

bool QueueModel::cancelLoading()
{
    if (!m_workspace || (!m_loading && !m_counting))
        return false;
    QList<DbWorker *> workers;
    for (DbRole role : stores())
        workers << m_workspace->readWorkers(role); // a routed read may run on the replica
    logger("models")->info("{} queue: the operator cancels the loading (generation {})", queueName(m_request.kind),
                           m_generation);
    // The page and count then fail with Kind::Cancelled through applyPage()/applyCount().
    whenReady(cancelWork(m_token, workers), this, [this](const QList<Outcome<CancelResult>> &results) {
        QStringList problems;
        for (const Outcome<CancelResult> &r : results) {
            if (!r.ok())
                problems << r.error->message;
            else if (r->kind == CancelResult::Kind::NotSupported)
                problems << r->message;
        }
        if (!problems.isEmpty()) {
            const QString message = problems.join(QStringLiteral("; "));
            logger("models")->warn("{} queue: cancel: {}", queueName(m_request.kind), message);
            emit cancelFailed(message);
        }
    });
    return true;
}

void QueueModel::resume()
{
    if (!m_started) {
        refresh();
        return;
    }
    if (m_reloadFailed && !m_loading) {
        reload();
        return;
    }
    if (m_failed && !m_loading) {
        m_failed = false;
        m_pageCancelled = false;
        m_error.clear();
        startPage(); // from m_cursor: a failed page never moved it
    }
    if (m_count < 0 && !m_counting) {
        m_countError.clear();
        m_countCancelled = false;
        startCount();
    }
}

int QueueModel::findKey(const QString &key) const
{
    return indexOfKey(m_rows, key);
}

std::optional<Claim> QueueModel::claimOf(const QString &key) const
{
    const auto it = m_claims.constFind(key);
    if (it == m_claims.cend())
        return std::nullopt;
    return *it;
}

void QueueModel::loadClaims(int first, int count)
{
    if (!m_workspace)
        return;
    QStringList keys;
    for (int i = first; i < first + count && i < m_rows.size(); ++i)
        keys << m_rows.at(i).idemKey;
    keys.removeDuplicates();
    const quint64 generation = m_generation;
    whenReady(activeClaims(*m_workspace, ClaimScope::Key, keys), this,
              [this, generation, keys](const Outcome<QHash<QString, Claim>> &claims) {
                  if (generation != m_generation)
                      return;
                  if (!claims.ok()) {
                      // Claims decorate the queue; the rows stand without them.
                      logger("models")->warn("{} queue: claims not read: {}", queueName(m_request.kind),
                                             claims.error->message.toStdString());
                      return;
                  }
                  QSet<QString> changed;
                  for (const QString &k : keys) {
                      if (claims->contains(k)) {
                          const Claim c = claims->value(k);
                          const auto it = m_claims.constFind(k);
                          if (it == m_claims.cend() || it->holder != c.holder || it->claimedAt != c.claimedAt
                              || it->expiresAt != c.expiresAt || it->ageS != c.ageS)
                              changed.insert(k);
                          m_claims.insert(k, c);
                      } else if (m_claims.remove(k) > 0) {
                          changed.insert(k);
                      }
                  }
                  // Only the rows whose claim changed: a dataChanged over every row makes a view
                  // re-lay itself out and fetch the next page by itself (tst_views_query_cancel).
                  for (int row = 0; row < m_rows.size(); ++row) {
                      if (changed.contains(m_rows.at(row).idemKey))
                          emit dataChanged(index(row, ClaimColumn), index(row, ClaimColumn));
                  }
              });
}

int QueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool QueueModel::isStale(const QueueRow &row) const
{
    // The Unknown queue holds exactly the stale PROCESSING records (DESIGN.md §4).
    return row.source == QueueSource::Record && m_request.kind == QueueKind::Unknown;
}

QVariant QueueModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QueueRow &r = m_rows.at(index.row());
    const bool record = r.source == QueueSource::Record;
    switch (role) {
    case RowRole: return QVariant::fromValue(r);
    case IdemKeyRole: return r.idemKey;
    case SourceRole: return int(r.source);
    case AgeSecondsRole: return r.ageSeconds;
    case ClaimHolderRole: return m_claims.contains(r.idemKey) ? m_claims.value(r.idemKey).holder : QString();
    case roles::LiveChange: return liveChangeOf(r);
    default: break;
    }
    if (role == Qt::ToolTipRole && !m_marks.isEmpty()) {
        const LiveMark mark = m_marks.value(queueRowIdentity(r));
        if (mark.change == 2 && !mark.why.isEmpty())
            return QStringLiteral("left this queue at %1 UTC: %2; Refresh drops it").arg(utcToSecond(mark.atUtc).mid(11, 8), mark.why);
        if (mark.change == 2)
            return QStringLiteral("left this queue (gone at %1 UTC: settled or changed since it was listed); Refresh drops it")
                .arg(utcToSecond(mark.atUtc).mid(11, 8));
        if (mark.change == 1)
            return QStringLiteral("entered this queue at %1 UTC, after the list was loaded").arg(utcToSecond(mark.atUtc).mid(11, 8));
    }
    const int column = index.column();
    if (role == Qt::DisplayRole || role == Qt::EditRole || role == roles::FullText) {
        const bool full = role == roles::FullText;
        switch (column) {
        case KeyColumn: return r.idemKey;
        case StatusColumn: return r.status;
        case AgeColumn: return humanDuration(r.ageSeconds);
        case SourceColumn: return sourceName(r.source);
        case BizTypeColumn: return record ? r.bizType : r.action;
        case UpdatedColumn: return full ? r.updatedAt : utcToSecond(r.updatedAt);
        case CreatedColumn: return full ? r.createdAt : utcToSecond(r.createdAt);
        case ExpireColumn: return full ? r.expireAt : utcToSecond(r.expireAt);
        case TaskStepColumn:
            if (record)
                return QString();
            return QStringLiteral("%1 / %2").arg(r.taskId.isNull() ? QStringLiteral("NULL") : r.taskId,
                                                 r.stepId.isNull() ? QStringLiteral("NULL") : r.stepId);
        case ClaimColumn: return m_claims.contains(r.idemKey) ? claimedByText(m_claims.value(r.idemKey)) : QString();
        }
        return {};
    }
    switch (role) {
    case roles::Tone:
        if (column != StatusColumn)
            return {};
        if (liveChangeOf(r) == 2)
            return int(Tone::Muted); // left the queue: no longer a status to act on
        return int(record ? recordStatusTone(r.status, isStale(r)) : intentStatusTone(r.status));
    case roles::Monospace:
        return column == KeyColumn || column == UpdatedColumn || column == CreatedColumn || column == ExpireColumn
            || column == TaskStepColumn;
    case roles::IsNull:
        return false;
    case roles::ElideMiddle:
        return column == KeyColumn;
    case Qt::TextAlignmentRole:
        if (column == AgeColumn)
            return QVariant::fromValue<Qt::Alignment>(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case KeyColumn: return r.idemKey;
        case StatusColumn:
            if (record && isStale(r))
                return QStringLiteral("PROCESSING for longer than its processing timeout: the outcome is UNKNOWN");
            if (record && r.status == QLatin1String("PROCESSING"))
                return QStringLiteral("PROCESSING and younger than its processing timeout: may still be running");
            if (!record)
                return QStringLiteral("latest intent-log attempt of this key: %1").arg(r.status);
            return r.status;
        case AgeColumn:
            return QStringLiteral("%1 since updated_at (the database's clock when the page was read)")
                .arg(humanDuration(r.ageSeconds));
        case UpdatedColumn: return timeToolTip(r.updatedAt);
        case CreatedColumn: return timeToolTip(r.createdAt);
        case ExpireColumn: return record ? timeToolTip(r.expireAt) : QString();
        case ClaimColumn: {
            if (!m_claims.contains(r.idemKey))
                return {};
            const Claim c = m_claims.value(r.idemKey);
            return QStringLiteral("%1 until %2 (the database's clock when the page was read)").arg(claimedByText(c), c.expiresAt);
        }
        default: return {};
        }
    default: return {};
    }
}

QVariant QueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case KeyColumn: return QStringLiteral("Key");
        case StatusColumn: return QStringLiteral("Status");
        case AgeColumn: return QStringLiteral("Age");
        case SourceColumn: return QStringLiteral("Source");
        case BizTypeColumn: return QStringLiteral("Biz type / action");
        case UpdatedColumn: return QStringLiteral("Updated (UTC)");
        case CreatedColumn: return QStringLiteral("Created (UTC)");
        case ExpireColumn: return QStringLiteral("Expires (UTC)");
        case TaskStepColumn: return QStringLiteral("Task / step");
        case ClaimColumn: return QStringLiteral("Claimed");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case AgeColumn: return QStringLiteral("Time since updated_at on the database's clock; the queue is ordered by it");
        case SourceColumn: return QStringLiteral("record: idempotency_record row; intent: latest intent_log attempt of the key");
        default: break;
        }
    }
    return {};
}

void QueueModel::sort(int column, Qt::SortOrder order)
{
    bool newestFirst;
    if (column == AgeColumn)
        newestFirst = order == Qt::AscendingOrder;
    else if (column == UpdatedColumn)
        newestFirst = order == Qt::DescendingOrder;
    else
        return;
    if (newestFirst == m_request.newestFirst && m_started)
        return;
    QueueRequest r = m_request;
    r.newestFirst = newestFirst;
    setRequest(r);
}

} // namespace triage
