#pragma once

#include "ModelRoles.h"
#include "PagedTableModel.h"
#include "Window.h"
#include "WindowEventSource.h"
#include "WindowGap.h"

#include <QSet>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace triage {

/// The Incident view's event list (DESIGN.md §7): the events of one time window across every
/// store, in window order, as a lazily paged, read-only table over readWindowPage() (keyset
/// pages of final events). Once the last final page is in, the settling tail
/// (readSettlingTail(), events newer than a store's watermark) is appended in the same
/// fetch, each row marked settling ("~" before its time, italic). Between two consecutive
/// events at least kGapMicros apart the model inserts a *gap row* ("— 14 min without events
/// —", IsGapRole true, enabled but not selectable); gap rows are not events.
///
/// Like the other paged models: fetchMore() starts one page and returns at once; the page's
/// rows (gap rows included) are built on the source's pool, off the GUI thread, and applied on
/// the GUI thread (`whenReady(future, this, …)`) inside an exact beginInsertRows() range;
/// every reset bumps a generation counter so pages of an older window are dropped, and errors
/// go to errorOccurred() / lastError(). Each row keeps only what the table shows (the detail
/// clipped to kDetailChars): bytesHeld() measures it. The events come from a
/// WindowEventSource: the workspace's stores by default, or a bundle's events (setSource()).
class WindowEventsModel : public PagedTableModel {
    Q_OBJECT
public:
    /// Columns, in display order.
    enum Column {
        TimeColumn,   ///< canonical ISO UTC time ("2026-12-01T02:10:00.000000Z"; "~" before it when settling)
        StoreColumn,  ///< eventStoreName(): idempotency, intent, ticket, console
        KindColumn,   ///< eventKindName(): record.created, intent.attempt, …
        StatusColumn, ///< WindowEvent::status as stored
        KeyColumn,    ///< the idempotency key ("" when the row has none)
        ActorColumn,  ///< intent actor, audit / compensation operator
        DetailColumn, ///< one line (clipped to kDetailChars)
        ColumnCount
    };
    /// Model-specific roles (valid on every column of a row).
    enum Role {
        IsGapRole = roles::FirstModelRole, ///< bool: a gap row (no event)
        StoreRole,                         ///< int EventStore (invalid on gap rows)
        KindRole,                          ///< int EventKind (invalid on gap rows)
        SettlingRole,                      ///< bool: the event is settling (not final yet)
        AtRole,                            ///< qint64 µs since the epoch: the event's time; a gap's start
        IdemKeyRole,                       ///< QString: the event's idempotency key
        GapMicrosRole,                     ///< qint64 µs: a gap row's length (0 on events)
    };

    /// Consecutive events at least this far apart (µs, 5 min) get a gap row between them
    /// (kWindowGapMicros, shared with `triagectl timeline`).
    static constexpr qint64 kGapMicros = kWindowGapMicros;
    /// Characters of an event's detail kept per row (the key detail shows the rest).
    static constexpr int kDetailChars = 200;
    /// Settling events read per stream (readSettlingTail()'s limit).
    static constexpr int kTailLimit = 1000;

    /// `workspace` must outlive the model; its stores are the source (none when null: call
    /// setSource()). Nothing loads until setQuery().
    explicit WindowEventsModel(Workspace *workspace, QObject *parent = nullptr);
    ~WindowEventsModel() override;

    /// Replaces where the events come from (e.g. memoryEventSource() over a bundle's events);
    /// takes effect at the next setQuery() / refresh().
    void setSource(std::unique_ptr<WindowEventSource> source);
    /// True when the source may still change (the stores): see settlingTailOpen().
    bool isLiveSource() const { return m_source && m_source->isLive(); }

    /// Replaces the window, resets the model and starts the first page.
    void setQuery(const WindowQuery &query);
    /// The current window.
    const WindowQuery &query() const { return m_query; }
    /// Reloads from the start (the settling tail is read again).
    void refresh();

    /// True when the shown settling tail may still change (DESIGN.md §7 "settling timer"):
    /// the window is loaded to its end, and settling rows are shown (they must turn final) or
    /// the window's `to` is newer than this machine's now − lookback − kClockSkewWarnMs (a
    /// store's clock may be that far ahead without a warning).
    bool settlingTailOpen() const;
    /// Re-reads the settling tail without a reload: the tail (readSettlingTail()), then the
    /// final events after the cursor (those a store's watermark has passed since the last
    /// read); the shown settling rows are replaced by those final events and the tail events
    /// not among them, so a late commit appears and an event that became final is shown once.
    /// Does nothing while a page or another refresh is loading, or before the window is loaded
    /// to its end. Emits tailRefreshed() when applied; errors go to errorOccurred().
    void refreshSettlingTail();

    /// Events loaded (rows that are not gap rows).
    int eventCount() const { return m_events; }
    /// The first loaded event row at or after `t` (µs), or -1 when none is loaded yet.
    int firstEventRowAtOrAfter(UtcMicros t) const;
    /// Replay stepping (DESIGN.md §7 "Replay"): the loaded event row after `row` (`direction`
    /// > 0) or before it (< 0), skipping gap rows; with `sameKeyOnly`, the next one whose
    /// idempotency key equals `row`'s (a row without a key has none). -1 when no such row is
    /// loaded (rows past the loaded end may still come: see EventStepper) or `row` is not an
    /// event row.
    int nextEventRow(int row, bool sameKeyOnly, int direction) const;
    /// Notes of the pages so far: filters a stream could not apply (deduplicated).
    QStringList notes() const { return m_notes; }
    /// Bytes the loaded rows hold (the row array's capacity and each string's characters).
    qint64 bytesHeld() const;

    /// "— 14 min without events —" for a gap of `micros`: windowGapText(), the same line
    /// `triagectl timeline` prints.
    static QString gapText(qint64 micros) { return windowGapText(micros); }

    /// Read-only table interface (see Column and Role); rowCount(), canFetchMore() and
    /// fetchMore() (one page of setPageSize() final events, then the settling tail) are
    /// PagedTableModel's.
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool canFetchMore(const QModelIndex &parent) const override;

    // Pinned events (an open incident's pins, DESIGN.md §7 "Incidents"): marked in the list.
    /// Roles of the incident pins (after the model's own roles; valid on every column).
    enum PinRole {
        EventIdRole = roles::FirstModelRole + 40, ///< QString: the event's row id (invalid on gap rows)
        PinnedRole,                               ///< bool: the event is pinned (bold)
    };
    /// The key of an event for setPinnedEvents(): its kind and row id.
    static QString pinKey(EventKind kind, const QString &id);
    /// Marks the events whose pinKey() is in `keys` as pinned (PinnedRole, bold), the others
    /// not; emits dataChanged() over every row.
    void setPinnedEvents(const QSet<QString> &keys);

private:
    /// One table row: an event (what the columns show, nothing more) or a gap.
    struct Row {
        UtcMicros at = 0;  ///< event time; a gap's start (the previous event's time)
        qint64 gapUs = 0;  ///< > 0: a gap row of this length
        EventStore store = EventStore::Idempotency;
        EventKind kind = EventKind::RecordCreated;
        bool settling = false;
        QString id, idemKey, status, actor, detail;
    };

signals:
    /// refreshSettlingTail() replaced the settling rows (from row `first` on, `added` rows now).
    void tailRefreshed(int first, int added);

private:
    /// A page made ready on the source's pool: its rows with their gap rows, counted.
    struct Prepared {
        std::optional<DbError> error;
        QVector<Row> rows;
        int events = 0;
        std::optional<UtcMicros> lastAt;
        WindowCursor next;
        bool end = false;
        QStringList notes;
    };
    /// `events` as rows after an event at `lastAt` (a gap row before each event at least
    /// kGapMicros after the previous one); `*lastAt` moves to the last event. Pure.
    static QVector<Row> toRows(const QVector<WindowEvent> &events, std::optional<UtcMicros> *lastAt);
    /// Appends prepared rows inside one exact insert range.
    void insertPrepared(Prepared &page);

    int loadedRows() const override { return int(m_rows.size()); }
    /// refreshSettlingTail()'s final pages after `cursor`, then applyTailRefresh().
    void readFinalsAfter(WindowCursor cursor, QVector<WindowEvent> finals, QVector<WindowEvent> tail, quint64 generation);
    void applyTailRefresh(const WindowCursor &cursor, const QVector<WindowEvent> &finals, QVector<WindowEvent> tail);
    void startPage() override;
    void startTail(quint64 generation);
    /// Appends `events` (with their gap rows) inside one exact insert range.
    void append(const QVector<WindowEvent> &events);
    void failPage(const QString &message);

    std::unique_ptr<WindowEventSource> m_source;
    WindowQuery m_query;
    QVector<Row> m_rows;
    WindowCursor m_cursor;
    bool m_finalDone = false; ///< the last final page is in; the tail comes next
    std::optional<UtcMicros> m_lastAt;
    int m_events = 0;
    QStringList m_notes;
    QSet<QString> m_pinned; ///< pinKey()s of the pinned events
    bool m_tailRefreshing = false; ///< a refreshSettlingTail() is under way
};

} // namespace triage
