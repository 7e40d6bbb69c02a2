#pragma once

#include "ReplayPanel.h"
#include "Window.h"
#include "WindowHistogram.h"

#include <QWidget>

#include <memory>
#include <optional>

class QChart;
class QChartView;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedBarSeries;
class QTableView;
class QThreadPool;
class QTimer;

namespace triage {

class WindowEventSource;

struct IncidentBundle;
enum class ReportFormat;
class IncidentPanel;
class MessageBar;
class WindowEventsModel;
class Workspace;

/// The Incident tab (DESIGN.md §7): what happened across every store in one time window.
/// A range bar with two absolute UTC times (presets "Last 15 min", "Last 1 h", "Last 24 h"
/// fill them with absolute times at once: the window is then fixed, not sliding), filters
/// (biz_type, tenant, key substring, task id) and Load; a histogram of the window's events stacked by
/// store (Qt Charts, one QBarSet per store, from summarizeWindow()'s per-minute counts bucketed
/// by bucketWindow(); clicking a bar scrolls the list to that bucket's first event); the event
/// list (WindowEventsModel: final events page by page, then the settling tail, gap rows); the
/// stores' clock offsets (measureStoreClocks()), with a warning above kClockSkewWarnMs; the
/// replay panel (ReplayPanel: playhead, stepping, "As of T", the event context menu, whose
/// "Same key" and "±N s" reload this view's window). While shown, a timer re-reads the
/// settling tail every kTailRefreshMs when the model says it may still change
/// (WindowEventsModel::settlingTailOpen(), refreshSettlingTail()).
/// Every read is a Workspace future continued with whenReady(); no SQL, no domain rule here.
///
/// Integration: `new IncidentView(workspace, parent)`; connect keyActivated() to open a key's
/// detail. The window first loads when the tab is first shown (or on load()).
class IncidentView : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the view. The range starts as the last hour; nothing loads yet.
    explicit IncidentView(Workspace *workspace, QWidget *parent = nullptr);
    ~IncidentView() override;

    /// Sets the range edits to [from, to) (µs since the epoch, UTC; shown to the second).
    void setRange(UtcMicros from, UtcMicros to);
    /// Sets the range to the last `minutes` before now (absolute times) and loads it.
    void applyPreset(int minutes);
    /// The query the range bar and filters describe now.
    WindowQuery currentQuery() const;
    /// Loads the window the range bar describes: the event list, the histogram, the clocks.
    void load();
    /// Scrolls the list to the first event at or after `t` (µs), fetching pages until it is
    /// loaded or the window ends; selects it.
    void scrollToTime(UtcMicros t);
    /// Does what selecting event row `row` of the list and opening it does: the row becomes the
    /// playhead (its "As of T" follows), is scrolled to the middle, and its key's detail is
    /// asked for (keyActivated(), as a double-click). Returns the key opened ("" for an event
    /// without a key: selected, nothing opened); nullopt, with nothing selected, for a gap row or
    /// a row past the loaded ones. Used by `--incident-select` (DESIGN.md §7 "The Incident view").
    std::optional<QString> activateEventRow(int row);

    /// Opens incident `id` (the panel reads it, then its window and filters load); the
    /// default window does not load meanwhile. A missing incident loads the range shown.
    void openIncident(qint64 id);
    /// Shows `query`'s window and filters (stores, kinds and statuses, which have no edit
    /// here, are kept for the loads that follow, until another incident opens) and loads it.
    void openQuery(const WindowQuery &query);
    /// Opens a window link (DESIGN.md §7 "Links"): `query`'s window and filters (as
    /// openQuery()), then selects `event` (kind and row id) once its page is loaded (pages are
    /// fetched until it is found or the window ends: "the linked event … is not in this
    /// window"), and checks the window against the records still held (checkWindowRetention():
    /// a window older than them gets the retention banner).
    void openLink(const WindowQuery &query, const std::optional<std::pair<EventKind, QString>> &event);
    /// The link of the window loaded last, its filters and the selected event (windowLink()).
    QString currentLink() const;
    /// Puts currentLink() on the clipboard and says so in the message bar ("Copy link").
    void copyLink();
    /// "Export…" (DESIGN.md §7 "Bundles", "Reports"): asks for a file name, then exportTo().
    void exportDialog();
    /// Exports the window loaded last — the open incident when its window is the one shown —
    /// with exportBundle() (default redaction; the hash recorded in the database unless
    /// read-only) and writes `path` by its extension: the bundle's JSON for .json, its report
    /// for .html / .pdf (views/BundleReport.h). The outcome goes to the message bar and to
    /// exportFinished(): "Exported 240 events to /x/outage.json (SHA-256 ab12…)"; a store that
    /// failed during the export is named (Error) and the file is still written.
    /// Offline (showBundle()), nothing is read again: .json writes the bundle shown, .html /
    /// .pdf its report.
    void exportTo(const QString &path);
    /// The banner above the range bar for a linked window older than the data still held.
    MessageBar *retentionBar() const { return m_retentionBar; }
    IncidentPanel *incidentPanel() const { return m_panel; }
    /// Offline (DESIGN.md §7 "Offline viewer"): shows `bundle` read-only and reads nothing from
    /// a database: every event (paged from memory, memoryEventSource()), the histogram and
    /// summary from its summary, its clocks, its pins and notes; keys' details come from
    /// `reader` (keyStateAsOf() on `pool`). The range and filters show the bundle's and cannot
    /// be edited; Load, presets, incident changes and the menu's reloads are disabled.
    void showBundle(const IncidentBundle &bundle, ReplayPanel::KeyDetailReader reader, QThreadPool *pool);
    /// The same for a bundle still being read (readBundleHead()): `bundle` holds its header and
    /// first events, `events` pages the rest when read; Export… writes nothing ("still being
    /// read") until setOfflineBundle() gives the whole bundle.
    void showBundle(const IncidentBundle &bundle, std::unique_ptr<WindowEventSource> events,
                    ReplayPanel::KeyDetailReader reader, QThreadPool *pool);
    /// The whole bundle once read (what Export… writes offline).
    void setOfflineBundle(std::shared_ptr<const IncidentBundle> bundle) { m_offlineBundle = std::move(bundle); }
    /// True once showBundle() was called.
    bool isOffline() const { return m_offline; }
    /// How often the settling tail is re-read while the tab is shown (ms).
    static constexpr int kTailRefreshMs = 5000;

    /// For tests and the screenshot driver.
    WindowEventsModel *eventsModel() const { return m_model; }
    QTableView *eventTable() const { return m_table; }
    QChart *chart() const { return m_chart; }
    QStackedBarSeries *histogramSeries() const { return m_series; }
    const WindowHistogram &histogram() const { return m_histogram; }
    QString clockText() const;
    QString summaryText() const;
    MessageBar *messageBar() const { return m_bar; }
    ReplayPanel *replayPanel() const { return m_replay; }
    /// Shows measured clock offsets in the label, and the warning when one exceeds
    /// kClockSkewWarnMs (load() calls it with measureStoreClocks()'s answer; public for tests).
    void showClocks(const QVector<StoreClock> &clocks);

signals:
    /// The operator asked to open the detail of `idemKey` (double-click on an event).
    void keyActivated(const QString &idemKey);
    /// The last load()'s first page, summary and clock offsets are in (each may have failed:
    /// see the message bar).
    void windowLoaded();
    /// An exportTo() finished: `ok` when the file was written from a complete bundle.
    void exportFinished(bool ok, const QString &message);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void showSummary(const WindowSummary &summary, const WindowQuery &query);
    void partDone(quint64 generation);
    void updateSpans(int first, int last);
    void tryPendingScroll();
    void tryPendingEvent();
    /// Writes `bundle` to `path` (its JSON off the GUI thread, or its report), then the message
    /// bar and exportFinished().
    void writeExport(const QString &path, bool json, std::optional<ReportFormat> report, const IncidentBundle &bundle);

    Workspace *m_workspace;
    WindowEventsModel *m_model;
    WindowHistogram m_histogram;
    quint64 m_generation = 0;
    int m_pending = 0;         ///< parts of the current load still to come (page, summary, clocks)
    bool m_loadedOnce = false;
    bool m_offline = false; ///< showBundle(): no database
    std::shared_ptr<const IncidentBundle> m_offlineBundle; ///< showBundle()'s bundle (exportTo() writes it)
    bool m_waitingFirstPage = false;
    std::optional<UtcMicros> m_pendingScroll;
    std::optional<std::pair<EventKind, QString>> m_pendingEvent; ///< a linked event to select once loaded
    WindowQuery m_loadedQuery; ///< the window and filters of the last load()

    MessageBar *m_bar;
    MessageBar *m_retentionBar;
    QPushButton *m_copyLink;
    /// The kept filters no box shows (stores, kinds, statuses of the incident, link or bundle
    /// opened), as a flat button that clears them; hidden when there are none.
    QPushButton *m_keptFilters = nullptr;
    void showKeptFilters();
    QPushButton *m_export;
    QDateTimeEdit *m_from;
    QDateTimeEdit *m_to;
    QLineEdit *m_bizType;
    QLineEdit *m_tenant;
    QLineEdit *m_key;
    QLineEdit *m_task; ///< WindowQuery::taskId ("Same task" fills it)
    QPushButton *m_load;
    QLabel *m_summary;
    QLabel *m_clocks;
    QChart *m_chart;
    QChartView *m_chartView;
    QStackedBarSeries *m_series;
    QTableView *m_table;
    ReplayPanel *m_replay; ///< the playhead, stepping, "As of T" and the event context menu (DESIGN.md §7 "Replay")
    IncidentPanel *m_panel;
    WindowQuery m_kept; ///< stores, kinds and statuses of the incident opened (openQuery())
    QTimer *m_tailTimer;
};

} // namespace triage
