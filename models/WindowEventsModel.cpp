#include "WindowEventsModel.h"
#include "FutureChain.h"

#include "TimeText.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <QDateTime>
#include <QFont>
#include <QSet>

namespace triage {

namespace {
qint64 stringBytes(const QString &s)
{
    // Characters held (UTF-16) plus the shared array's header when the string has one.
    return s.isNull() ? 0 : qint64(s.capacity()) * 2 + 24;
}
} // namespace

WindowEventsModel::WindowEventsModel(Workspace *workspace, QObject *parent)
    : PagedTableModel(workspace, parent), m_source(workspace ? storeEventSource(workspace) : nullptr)
{
}

WindowEventsModel::~WindowEventsModel() = default;

void WindowEventsModel::setSource(std::unique_ptr<WindowEventSource> source)
{
    // Pages of the old source still on their way are dropped by the generation (refresh()).
    ++m_generation;
    m_source = std::move(source);
}

bool WindowEventsModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_started && !m_loading && !m_atEnd && !m_failed && m_source;
}

void WindowEventsModel::setQuery(const WindowQuery &query)
{
    m_query = query;
    refresh();
}

void WindowEventsModel::refresh()
{
    beginResetModel();
    ++m_generation;
    m_rows.clear();
    m_rows.squeeze();
    m_cursor = WindowCursor{};
    m_finalDone = false;
    m_lastAt.reset();
    m_events = 0;
    m_notes.clear();
    m_tailRefreshing = false;
    // Not started until the reset is over (see DuplicateGroupsModel::refresh()).
    m_started = false;
    m_atEnd = false;
    m_failed = false;
    m_error.clear();
    const bool wasLoading = m_loading;
    m_loading = false;
    endResetModel();
    if (wasLoading)
        emit loadingChanged(false);
    m_started = true;
    startPage();
}

int WindowEventsModel::firstEventRowAtOrAfter(UtcMicros t) const
{
    // Rows are in time order: the first event row whose time is >= t.
    auto it = std::lower_bound(m_rows.cbegin(), m_rows.cend(), t, [](const Row &r, UtcMicros v) { return r.at < v; });
    for (; it != m_rows.cend(); ++it)
        if (it->gapUs == 0)
            return int(it - m_rows.cbegin());
    return -1;
}

qint64 WindowEventsModel::bytesHeld() const
{
    qint64 bytes = qint64(m_rows.capacity()) * qint64(sizeof(Row));
    for (const Row &r : m_rows)
        bytes += stringBytes(r.id) + stringBytes(r.idemKey) + stringBytes(r.status) + stringBytes(r.actor) + stringBytes(r.detail);
    return bytes;
}

int WindowEventsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags WindowEventsModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    // A gap is not an event: it cannot be selected or opened.
    return m_rows.at(index.row()).gapUs > 0 ? Qt::ItemIsEnabled : Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant WindowEventsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    const bool gap = r.gapUs > 0;
    if (role == EventIdRole)
        return gap ? QVariant() : QVariant(r.id);
    if (role == PinnedRole || (role == Qt::FontRole && !gap)) {
        const bool pinned = !gap && !m_pinned.isEmpty() && m_pinned.contains(pinKey(r.kind, r.id));
        if (role == PinnedRole)
            return pinned;
        if (pinned) {
            QFont f;
            f.setBold(true);
            f.setItalic(r.settling);
            return f;
        }
    }
    switch (role) {
    case IsGapRole: return gap;
    case StoreRole: return gap ? QVariant() : QVariant(int(r.store));
    case KindRole: return gap ? QVariant() : QVariant(int(r.kind));
    case SettlingRole: return r.settling;
    case AtRole: return r.at;
    case IdemKeyRole: return r.idemKey;
    case GapMicrosRole: return r.gapUs;
    case Qt::DisplayRole:
        if (gap)
            return index.column() == TimeColumn ? gapText(r.gapUs) : QString();
        switch (index.column()) {
        case TimeColumn: return r.settling ? QStringLiteral("~") + formatUtcMicros(r.at) : formatUtcMicros(r.at);
        case StoreColumn: return eventStoreName(r.store);
        case KindColumn: return eventKindName(r.kind);
        case StatusColumn: return r.status;
        case KeyColumn: return r.idemKey;
        case ActorColumn: return r.actor;
        case DetailColumn: return r.detail;
        }
        return {};
    case roles::FullText:
        if (!gap && index.column() == TimeColumn)
            return formatUtcMicros(r.at);
        return data(index, Qt::DisplayRole);
    case roles::Monospace:
        return !gap && (index.column() == TimeColumn || index.column() == KeyColumn);
    case roles::ElideMiddle:
        return !gap && index.column() == KeyColumn;
    case Qt::FontRole:
        if (gap || r.settling) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (gap)
            return QStringLiteral("No event from %1 to %2 (UTC)")
                .arg(formatUtcMicros(r.at), formatUtcMicros(r.at + r.gapUs));
        if (r.settling && index.column() == TimeColumn)
            return QStringLiteral("Settling: newer than the %1 store's watermark (now − %2 s); a later commit may still add "
                                  "events before it")
                .arg(eventStoreName(r.store))
                .arg(m_query.lookbackS);
        if (index.column() == StoreColumn || index.column() == KindColumn)
            return QStringLiteral("%1 row %2").arg(eventKindName(r.kind), r.id);
        return {};
    }
    return {};
}

QString WindowEventsModel::pinKey(EventKind kind, const QString &id)
{
    return eventKindName(kind) + QLatin1Char(' ') + id;
}

void WindowEventsModel::setPinnedEvents(const QSet<QString> &keys)
{
    m_pinned = keys;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1), {PinnedRole, Qt::FontRole});
}

QVariant WindowEventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn: return QStringLiteral("Time (UTC)");
    case StoreColumn: return QStringLiteral("Store");
    case KindColumn: return QStringLiteral("Kind");
    case StatusColumn: return QStringLiteral("Status");
    case KeyColumn: return QStringLiteral("Idempotency key");
    case ActorColumn: return QStringLiteral("Actor");
    case DetailColumn: return QStringLiteral("Detail");
    }
    return {};
}

QVector<WindowEventsModel::Row> WindowEventsModel::toRows(const QVector<WindowEvent> &events, std::optional<UtcMicros> *lastAt)
{
    QVector<Row> rows;
    rows.reserve(events.size() + 8);
    for (const WindowEvent &e : events) {
        if (*lastAt && e.at - **lastAt >= kGapMicros) {
            Row gap;
            gap.at = **lastAt;
            gap.gapUs = e.at - **lastAt;
            gap.settling = e.settling;
            rows << gap;
        }
        Row r;
        r.at = e.at;
        r.store = e.store;
        r.kind = e.kind;
        r.settling = e.settling;
        r.id = e.id;
        r.idemKey = e.idemKey;
        r.status = e.status;
        r.actor = e.actor;
        r.detail = e.detail.size() > kDetailChars ? e.detail.left(kDetailChars - 1) + QChar(0x2026) : e.detail;
        rows << r;
        *lastAt = e.at;
    }
    return rows;
}

void WindowEventsModel::insertPrepared(Prepared &page)
{
    if (page.rows.isEmpty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(page.rows.size()) - 1);
    if (m_rows.isEmpty())
        m_rows = std::move(page.rows);
    else
        m_rows.append(std::move(page.rows));
    m_lastAt = page.lastAt;
    m_events += page.events;
    endInsertRows();
}

void WindowEventsModel::append(const QVector<WindowEvent> &events)
{
    Prepared page;
    page.lastAt = m_lastAt;
    page.rows = toRows(events, &page.lastAt);
    page.events = int(events.size());
    insertPrepared(page);
}

void WindowEventsModel::failPage(const QString &message)
{
    m_loading = false;
    m_failed = true;
    m_error = message;
    emit loadingChanged(false);
    emit errorOccurred(m_error);
}

void WindowEventsModel::startPage()
{
    if (!m_source || m_loading)
        return;
    m_loading = true;
    emit loadingChanged(true);
    const quint64 generation = m_generation;
    if (m_finalDone) {
        startTail(generation);
        return;
    }
    // The rows are built on the source's pool (pages are read one at a time, so the last
    // event's time is known now); the GUI thread only inserts them.
    QFuture<Prepared> prepared = continueWith(m_source->readPage(m_query, m_cursor, m_pageSize), m_source->pool(), [lastAt = m_lastAt](const Outcome<WindowPage> &page) {
                                         Prepared p;
                                         if (!page.ok()) {
                                             p.error = page.error;
                                             return p;
                                         }
                                         p.lastAt = lastAt;
                                         p.rows = toRows(page->events, &p.lastAt);
                                         p.events = int(page->events.size());
                                         p.next = page->next;
                                         p.end = page->end;
                                         p.notes = page->notes;
                                         return p;
                                     });
    whenReady(prepared, this, [this, generation](Prepared page) {
        if (generation != m_generation)
            return; // a page of a window that was replaced meanwhile
        if (page.error) {
            failPage(page.error->message);
            return;
        }
        m_error.clear();
        for (const QString &note : std::as_const(page.notes))
            if (!m_notes.contains(note))
                m_notes << note;
        // The cursor moves before the rows are announced and m_loading stays true
        // until they are in (a view calling fetchMore() from the insert signals).
        m_cursor = page.next;
        m_finalDone = page.end;
        const int first = int(m_rows.size());
        insertPrepared(page);
        const int added = int(m_rows.size()) - first;
        if (m_finalDone || added == 0) {
            // The settling tail (or the next page of an empty one) follows in the same fetch.
            if (added > 0)
                emit pageLoaded(first, added, false);
            if (m_finalDone)
                startTail(generation);
            else {
                m_loading = false;
                startPage();
            }
            return;
        }
        m_loading = false;
        emit loadingChanged(false);
        emit pageLoaded(first, added, false);
    });
}

void WindowEventsModel::startTail(quint64 generation)
{
    QFuture<Prepared> prepared = continueWith(m_source->readTail(m_query, kTailLimit), m_source->pool(), [lastAt = m_lastAt](const Outcome<QVector<WindowEvent>> &tail) {
                                         Prepared p;
                                         if (!tail.ok()) {
                                             p.error = tail.error;
                                             return p;
                                         }
                                         p.lastAt = lastAt;
                                         p.rows = toRows(*tail, &p.lastAt);
                                         p.events = int(tail->size());
                                         return p;
                                     });
    whenReady(prepared, this, [this, generation](Prepared tail) {
        if (generation != m_generation)
            return;
        if (tail.error) {
            failPage(tail.error->message);
            return;
        }
        m_error.clear();
        m_atEnd = true;
        const int first = int(m_rows.size());
        insertPrepared(tail);
        m_loading = false;
        emit loadingChanged(false);
        emit pageLoaded(first, int(m_rows.size()) - first, true);
    });
}

int WindowEventsModel::nextEventRow(int row, bool sameKeyOnly, int direction) const
{
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).gapUs > 0 || direction == 0)
        return -1;
    const QString &key = m_rows.at(row).idemKey;
    if (sameKeyOnly && key.isEmpty())
        return -1;
    const int step = direction > 0 ? 1 : -1;
    for (int r = row + step; r >= 0 && r < m_rows.size(); r += step) {
        const Row &candidate = m_rows.at(r);
        if (candidate.gapUs > 0)
            continue;
        if (!sameKeyOnly || candidate.idemKey == key)
            return r;
    }
    return -1;
}

bool WindowEventsModel::settlingTailOpen() const
{
    if (!isLiveSource() || !m_finalDone || !m_atEnd || m_failed)
        return false;
    if (!m_rows.isEmpty() && m_rows.constLast().settling)
        return true;
    const qint64 slackMs = qint64(m_query.lookbackS) * 1000 + kClockSkewWarnMs;
    return m_query.to > (QDateTime::currentMSecsSinceEpoch() - slackMs) * 1000;
}

void WindowEventsModel::refreshSettlingTail()
{
    if (!isLiveSource() || m_loading || m_tailRefreshing || !m_finalDone || !m_atEnd || m_failed)
        return;
    m_tailRefreshing = true;
    const quint64 generation = m_generation;
    // The tail first, the final pages second: an event the watermark passed in between is in
    // both (and kept once, as final), never in neither.
    whenReady(m_source->readTail(m_query, kTailLimit), this,
              [this, generation](const Outcome<QVector<WindowEvent>> &tail) {
                  if (generation != m_generation)
                      return;
                  if (!tail.ok()) {
                      m_tailRefreshing = false;
                      emit errorOccurred(tail.error->message);
                      return;
                  }
                  WindowCursor from = m_cursor;
                  for (StreamCursor &c : from.streams)
                      c.done = false; // selectedKinds() decides again which streams are read
                  readFinalsAfter(from, {}, *tail, generation);
              });
}

void WindowEventsModel::readFinalsAfter(WindowCursor cursor, QVector<WindowEvent> finals, QVector<WindowEvent> tail,
                                        quint64 generation)
{
    whenReady(m_source->readPage(m_query, cursor, m_pageSize), this,
              [this, finals, tail, generation](const Outcome<WindowPage> &page) mutable {
                  if (generation != m_generation)
                      return;
                  if (!page.ok()) {
                      m_tailRefreshing = false;
                      emit errorOccurred(page.error->message);
                      return;
                  }
                  finals << page->events;
                  if (page->end)
                      applyTailRefresh(page->next, finals, tail);
                  else
                      readFinalsAfter(page->next, finals, tail, generation);
              });
}

void WindowEventsModel::applyTailRefresh(const WindowCursor &cursor, const QVector<WindowEvent> &finals, QVector<WindowEvent> tail)
{
    m_tailRefreshing = false;
    m_cursor = cursor;
    QSet<QString> final;
    for (const WindowEvent &e : finals)
        final.insert(QString::number(int(e.kind)) + QLatin1Char(' ') + e.id);
    tail.removeIf([&](const WindowEvent &e) { return final.contains(QString::number(int(e.kind)) + QLatin1Char(' ') + e.id); });
    // The shown settling rows (and their gap rows) are the rows' suffix.
    int first = int(m_rows.size());
    while (first > 0 && m_rows.at(first - 1).settling)
        --first;
    if (first < m_rows.size()) {
        beginRemoveRows({}, first, int(m_rows.size()) - 1);
        for (int r = first; r < m_rows.size(); ++r)
            if (m_rows.at(r).gapUs == 0)
                --m_events;
        m_rows.resize(first);
        endRemoveRows();
    }
    m_lastAt.reset();
    for (int r = first - 1; r >= 0 && !m_lastAt; --r)
        if (m_rows.at(r).gapUs == 0)
            m_lastAt = m_rows.at(r).at;
    append(finals + tail);
    emit tailRefreshed(first, int(m_rows.size()) - first);
}

} // namespace triage
