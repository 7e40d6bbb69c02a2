#pragma once

#include "Window.h"

#include <QFuture>
#include <QThreadPool>
#include <QVector>

#include <memory>

namespace triage {

class Workspace;

/// Where WindowEventsModel reads a window's events (DESIGN.md §7 "The Incident view",
/// "Offline viewer"): the live stores, or a bundle's events held in memory. Both answer in
/// pages of at most `limit` events in window order, so the model and the views do not care
/// which one they page. Futures finish on a worker or pool thread; the model continues them
/// with whenReady().
class WindowEventSource {
public:
    virtual ~WindowEventSource() = default;
    /// The next page of final events of `query` after `cursor` (readWindowPage()'s contract).
    virtual QFuture<Outcome<WindowPage>> readPage(const WindowQuery &query, const WindowCursor &cursor, int limit) = 0;
    /// The settling tail (readSettlingTail()'s contract); empty for a source that is not live.
    virtual QFuture<Outcome<QVector<WindowEvent>>> readTail(const WindowQuery &query, int limit) = 0;
    /// True when the events may still change (the stores): the settling tail is re-read.
    virtual bool isLive() const = 0;
    /// The pool on which pages are turned into rows (never the GUI thread).
    virtual QThreadPool *pool() = 0;
};

/// The stores of `workspace` (readWindowPage(), readSettlingTail()); `workspace` must outlive it.
std::unique_ptr<WindowEventSource> storeEventSource(Workspace *workspace);

/// A fixed list of events in window order (a bundle's, DESIGN.md §7 "Offline viewer"), every
/// event listed whatever the query (the bundle's own window and filters made the list);
/// settling events are kept in their place, flagged. Pages are cut from the list by position
/// (the cursor's first stream holds the position as text); the tail is empty; not live.
std::unique_ptr<WindowEventSource> memoryEventSource(QVector<WindowEvent> events);
/// The same for a bundle still being read (DESIGN.md §7 "Offline viewer", readBundleHead()):
/// `first` are its first events, `total` how many it holds, `all` the whole list once read
/// (its failure, e.g. a fault past the first events, fails the pages beyond `first`). Pages
/// within `first` are cut at once; later pages wait for `all` on the source's pool.
std::unique_ptr<WindowEventSource> memoryEventSource(QVector<WindowEvent> first, qint64 total,
                                                     QFuture<Outcome<QVector<WindowEvent>>> all);

} // namespace triage
