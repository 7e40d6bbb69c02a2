#include "IncidentView.h"

#include "EventTableView.h"
#include "HistogramChart.h"
#include "Incident.h"
#include "IncidentPanel.h"
#include "MessageBar.h"
#include "ReplayPanel.h"
#include "StoreRole.h"
#include "Theme.h"
#include "TextEscape.h"
#include "TimeText.h"
#include "WhenReady.h"
#include "WindowEventsModel.h"
#include "WindowSummary.h"
#include "Workspace.h"

#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QItemSelectionModel>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace triage {

namespace {

constexpr int kViewPageSize = 500;
const QString kEditFormat = QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'");

/// The event list as shown: the store's cell gets its colour (the palette is the view's).
class StoreColorProxy : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (index.column() == WindowEventsModel::StoreColumn && (role == Qt::DecorationRole || role == Qt::ForegroundRole)) {
            const QVariant store = QIdentityProxyModel::data(index, WindowEventsModel::StoreRole);
            if (store.isValid())
                return theme::storeColor(store.toInt()).darker(role == Qt::ForegroundRole ? 130 : 100);
        }
        if (role == Qt::ForegroundRole && QIdentityProxyModel::data(index, WindowEventsModel::IsGapRole).toBool())
            return theme::mutedText();
        return QIdentityProxyModel::data(index, role);
    }
};

UtcMicros micros(const QDateTimeEdit *edit)
{
    return edit->dateTime().toMSecsSinceEpoch() * 1000;
}

QDateTime utcOf(UtcMicros t)
{
    return QDateTime::fromMSecsSinceEpoch(t / 1000, Qt::UTC);
}

QString signedMs(qint64 ms)
{
    if (qAbs(ms) >= 1000)
        return QStringLiteral("%1%2 s").arg(ms < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")).arg(qAbs(ms) / 1000.0, 0, 'f', 1);
    return QStringLiteral("%1%2 ms").arg(ms < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")).arg(qAbs(ms));
}

} // namespace

IncidentView::IncidentView(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_model(new WindowEventsModel(workspace, this))
{
    setObjectName(QStringLiteral("incidentView"));
    m_model->setPageSize(kViewPageSize);
    m_bar = new MessageBar(this);
    m_bar->setObjectName(QStringLiteral("incidentMessage"));
    m_retentionBar = new MessageBar(this);
    m_retentionBar->setObjectName(QStringLiteral("incidentRetention"));

    auto makeEdit = [this](const QString &name) {
        auto *edit = new QDateTimeEdit(this);
        edit->setObjectName(name);
        edit->setTimeSpec(Qt::UTC);
        edit->setDisplayFormat(kEditFormat);
        edit->setCalendarPopup(true);
        edit->setFont(theme::monospaceFont(-0.5));
        edit->setMinimumWidth(QFontMetrics(edit->font()).horizontalAdvance(QStringLiteral("2026-12-01 00:00:00 UTC")) + 44);
        return edit;
    };
    m_from = makeEdit(QStringLiteral("incidentFrom"));
    m_from->setToolTip(QStringLiteral("Start of the window (UTC, included)"));
    m_to = makeEdit(QStringLiteral("incidentTo"));
    m_to->setToolTip(QStringLiteral("End of the window (UTC, excluded)"));
    m_load = new QPushButton(QStringLiteral("Load"), this);
    m_load->setObjectName(QStringLiteral("incidentLoad"));
    m_load->setDefault(true);

    auto *range = new QHBoxLayout;
    range->addWidget(new QLabel(QStringLiteral("From:"), this));
    range->addWidget(m_from);
    range->addWidget(new QLabel(QStringLiteral("to:"), this));
    range->addWidget(m_to);
    for (const auto &[label, minutes] : {std::pair{QStringLiteral("Last 15 min"), 15}, std::pair{QStringLiteral("Last 1 h"), 60},
                                        std::pair{QStringLiteral("Last 24 h"), 24 * 60}}) {
        auto *preset = new QPushButton(label, this);
        preset->setObjectName(QStringLiteral("preset%1").arg(minutes));
        preset->setToolTip(QStringLiteral("Sets the window to the last %1 before now, as absolute UTC times, and loads it").arg(label.mid(5)));
        connect(preset, &QPushButton::clicked, this, [this, m = minutes] { applyPreset(m); });
        range->addWidget(preset);
    }
    range->addStretch(1);

    auto makeFilter = [this](const QString &name, const QString &placeholder, int width) {
        auto *edit = new QLineEdit(this);
        edit->setObjectName(name);
        edit->setPlaceholderText(placeholder);
        edit->setClearButtonEnabled(true);
        if (width > 0)
            edit->setMaximumWidth(width);
        connect(edit, &QLineEdit::returnPressed, this, [this] { load(); });
        return edit;
    };
    m_bizType = makeFilter(QStringLiteral("incidentBizType"), QStringLiteral("biz_type"), 150);
    m_tenant = makeFilter(QStringLiteral("incidentTenant"), QStringLiteral("tenant"), 120);
    m_key = makeFilter(QStringLiteral("incidentKey"), QStringLiteral("key contains… (case-sensitive)"), 0);
    m_task = makeFilter(QStringLiteral("incidentTask"), QStringLiteral("task_id"), 180);
    m_task->setToolTip(QStringLiteral("An agent task (the intent log's task_id, exact): its attempts, and the other events of "
                                      "the keys it attempted"));
    auto *filters = new QHBoxLayout;
    filters->addWidget(m_bizType);
    filters->addWidget(m_tenant);
    filters->addWidget(m_key, 1);
    filters->addWidget(m_task);
    m_keptFilters = new QPushButton(this);
    m_keptFilters->setObjectName(QStringLiteral("incidentKeptFilters"));
    m_keptFilters->setFlat(true);
    m_keptFilters->setVisible(false);
    connect(m_keptFilters, &QPushButton::clicked, this, [this] {
        m_kept.stores.clear();
        m_kept.kinds.clear();
        m_kept.statuses.clear();
        showKeptFilters();
        load();
    });
    filters->addWidget(m_load);
    m_copyLink = new QPushButton(QStringLiteral("Copy link"), this);
    m_copyLink->setObjectName(QStringLiteral("incidentCopyLink"));
    m_copyLink->setToolTip(QStringLiteral("Copies a triage://window link to the window loaded, its filters and the selected event "
                                          "(absolute UTC): triage-console --open LINK opens it"));
    connect(m_copyLink, &QPushButton::clicked, this, &IncidentView::copyLink);
    filters->addWidget(m_copyLink);
    m_export = new QPushButton(QStringLiteral("Export\u2026"), this);
    m_export->setObjectName(QStringLiteral("incidentExport"));
    m_export->setToolTip(QStringLiteral("Saves the window shown (or the open incident) as a bundle (.json) or its report (.html, .pdf); "
                                        "secrets redacted, the hash recorded"));
    connect(m_export, &QPushButton::clicked, this, &IncidentView::exportDialog);
    filters->addWidget(m_export);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("incidentSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_clocks = new QLabel(this);
    m_clocks->setObjectName(QStringLiteral("incidentClocks"));
    m_clocks->setTextFormat(Qt::PlainText);
    m_clocks->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    auto *info = new QHBoxLayout;
    info->addWidget(m_keptFilters, 0, Qt::AlignLeft | Qt::AlignTop); // beside the figures they filter
    info->addWidget(m_summary, 1);
    info->addWidget(m_clocks, 0, Qt::AlignRight | Qt::AlignTop);

    // The histogram: one bar set per store, stacked (shared with the bundle report).
    m_chart = createHistogramChart(&m_series, QFont(font().family(), qMax(7, font().pointSize() - 1)));
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setObjectName(QStringLiteral("incidentHistogram"));
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(200);
    connect(m_series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet *) {
        if (index >= 0 && index < m_histogram.starts.size())
            scrollToTime(m_histogram.starts.at(index));
    });

    auto *proxy = new StoreColorProxy(this);
    proxy->setSourceModel(m_model);
    m_table = new EventTableView(this); // no full repaint for rows appended out of sight
    m_table->setObjectName(QStringLiteral("incidentEvents"));
    m_table->setModel(proxy);
    theme::setupTable(m_table);
    const int timeWidth = QFontMetrics(theme::monospaceFont(-1)).horizontalAdvance(QStringLiteral("~2026-12-01T02:10:00.000000Z")) + 16;
    theme::setColumnWidths(m_table, {timeWidth, 115, 130, 100, 230, 80});
    connect(proxy, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) { updateSpans(first, last); });
    connect(proxy, &QAbstractItemModel::modelReset, this, [this] { m_table->clearSpans(); });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QString key = index.data(WindowEventsModel::IdemKeyRole).toString();
        if (!index.data(WindowEventsModel::IsGapRole).toBool() && !key.isEmpty())
            emit keyActivated(key);
    });
    connect(m_model, &WindowEventsModel::errorOccurred, this, [this](const QString &message) {
        m_bar->showMessage(MessageBar::Level::Error, message);
        m_pendingScroll.reset();
        m_pendingEvent.reset();
        if (m_waitingFirstPage) {
            m_waitingFirstPage = false;
            partDone(m_generation);
        }
    });
    connect(m_model, &WindowEventsModel::pageLoaded, this, [this](int, int, bool atEnd) {
        if (!m_model->notes().isEmpty())
            m_bar->showMessage(MessageBar::Level::Info, m_model->notes().join(QLatin1Char('\n')));
        if (m_waitingFirstPage) {
            m_waitingFirstPage = false;
            partDone(m_generation);
        }
        Q_UNUSED(atEnd);
        tryPendingScroll();
        tryPendingEvent();
    });

    m_replay = new ReplayPanel(m_workspace, m_model, m_table, this);
    connect(m_replay, &ReplayPanel::sameKeyRequested, this, [this](const QString &key, UtcMicros at) {
        m_key->setText(key);
        m_task->clear();
        load();
        scrollToTime(at);
    });
    connect(m_replay, &ReplayPanel::sameTaskRequested, this, [this](const QString &task, UtcMicros at) {
        m_key->clear(); // a task spans keys
        m_task->setText(task);
        load();
        scrollToTime(at);
    });
    connect(m_replay, &ReplayPanel::contextWindowRequested, this, [this](UtcMicros from, UtcMicros to, UtcMicros at) {
        m_bizType->clear();
        m_tenant->clear();
        m_key->clear();
        m_task->clear();
        setRange(from, to);
        load();
        scrollToTime(at);
    });

    auto *split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_chartView);
    split->addWidget(m_table);
    split->addWidget(m_replay);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);

    // Incidents (DESIGN.md §7): the panel beside the chart and the list.
    m_panel = new IncidentPanel(workspace, this);
    m_panel->setQueryProvider([this] { return currentQuery(); });
    connect(m_panel, &IncidentPanel::openWindow, this, &IncidentView::openQuery);
    connect(m_panel, &IncidentPanel::openFailed, this, [this](const QString &why) {
        // The range shown loads (the tab stays usable); the reason stays in the bar (load()
        // clears it first).
        load();
        m_bar->showMessage(MessageBar::Level::Error, QStringLiteral("Incident not opened: %1").arg(why));
    });
    connect(m_panel, &IncidentPanel::pinsChanged, m_model, &WindowEventsModel::setPinnedEvents);
    connect(m_panel, &IncidentPanel::jumpTo, this, &IncidentView::scrollToTime);
    connect(m_panel, &IncidentPanel::message, m_bar, &MessageBar::showMessage);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &index) {
        const QVariant kind = index.data(WindowEventsModel::KindRole);
        m_panel->setSelectedEvent(kind.isValid() ? std::optional(std::pair(EventKind(kind.toInt()), index.data(WindowEventsModel::EventIdRole).toString()))
                                                 : std::nullopt);
    });
    auto *sides = new QSplitter(Qt::Horizontal, this);
    sides->setChildrenCollapsible(false);
    sides->addWidget(split);
    sides->addWidget(m_panel);
    sides->setStretchFactor(0, 4);
    sides->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_retentionBar);
    layout->addWidget(m_bar);
    layout->addLayout(range);
    layout->addLayout(filters);
    layout->addLayout(info);
    layout->addWidget(sides, 1);

    connect(m_load, &QPushButton::clicked, this, [this] { load(); });
    m_tailTimer = new QTimer(this);
    m_tailTimer->setInterval(kTailRefreshMs);
    connect(m_tailTimer, &QTimer::timeout, this, [this] {
        if (m_model->settlingTailOpen())
            m_model->refreshSettlingTail();
    });

    // The last hour until the first load (absolute: shown as it will be read).
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch() / 1000 * 1000 + 1000;
    setRange((nowMs - 3600 * 1000) * 1000, nowMs * 1000);
    m_summary->setText(QStringLiteral("Pick a window (UTC) and press Load."));
}

IncidentView::~IncidentView() = default;

std::optional<QString> IncidentView::activateEventRow(int row)
{
    const QAbstractItemModel *events = m_table->model();
    if (row < 0 || row >= events->rowCount())
        return std::nullopt;
    const QModelIndex index = events->index(row, 0);
    if (index.data(WindowEventsModel::IsGapRole).toBool())
        return std::nullopt;
    const QString key = index.data(WindowEventsModel::IdemKeyRole).toString();
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    if (!key.isEmpty())
        emit keyActivated(key);
    return key;
}

void IncidentView::setRange(UtcMicros from, UtcMicros to)
{
    m_from->setDateTime(utcOf(from));
    m_to->setDateTime(utcOf(to));
}

void IncidentView::applyPreset(int minutes)
{
    // Absolute at once: the window does not slide afterwards. The end is the next whole
    // second, so events of the current second are in.
    const qint64 endMs = QDateTime::currentMSecsSinceEpoch() / 1000 * 1000 + 1000;
    setRange((endMs - qint64(minutes) * 60 * 1000) * 1000, endMs * 1000);
    load();
}

WindowQuery IncidentView::currentQuery() const
{
    WindowQuery q;
    q.from = micros(m_from);
    q.to = micros(m_to);
    q.bizType = m_bizType->text().trimmed();
    q.tenant = m_tenant->text().trimmed();
    q.keySubstring = m_key->text(); // case-sensitive, as typed
    q.taskId = m_task->text().trimmed();
    q.stores = m_kept.stores;
    q.kinds = m_kept.kinds;
    q.statuses = m_kept.statuses;
    return q;
}

void IncidentView::openIncident(qint64 id)
{
    m_loadedOnce = true; // the incident's window, not the default one
    m_panel->openIncident(id);
}

void IncidentView::openQuery(const WindowQuery &query)
{
    setRange(query.from, query.to);
    m_bizType->setText(query.bizType);
    m_tenant->setText(query.tenant);
    m_key->setText(query.keySubstring);
    m_task->setText(query.taskId);
    m_kept = query;
    showKeptFilters();
    load();
}

void IncidentView::showKeptFilters()
{
    WindowQuery kept;
    kept.stores = m_kept.stores;
    kept.kinds = m_kept.kinds;
    kept.statuses = m_kept.statuses;
    const bool any = !kept.stores.isEmpty() || !kept.kinds.isEmpty() || !kept.statuses.isEmpty();
    m_keptFilters->setVisible(any);
    if (!any)
        return;
    const QString text = incidentFiltersText(kept);
    m_keptFilters->setEnabled(!m_offline);
    m_keptFilters->setText(m_offline ? text : text + QStringLiteral("  \u2715"));
    m_keptFilters->setToolTip(m_offline ? QStringLiteral("The bundle's filters: it holds only these events")
                                        : QStringLiteral("Filters of the incident or link opened (%1): click to clear them and load "
                                                         "the window for every store, kind and status")
                                              .arg(text));
}

void IncidentView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_tailTimer->start();
    if (!m_loadedOnce)
        load();
}

void IncidentView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_tailTimer->stop();
}

void IncidentView::load()
{
    if (m_offline)
        return; // a bundle's window is fixed
    m_loadedOnce = true;
    const WindowQuery q = currentQuery();
    m_bar->clearMessage();
    m_retentionBar->clearMessage();
    m_pendingScroll.reset();
    m_pendingEvent.reset();
    m_loadedQuery = q;
    if (q.to <= q.from) {
        m_bar->showMessage(MessageBar::Level::Error, QStringLiteral("The window's end must be after its start."));
        ++m_generation;
        m_pending = 0;
        // Nothing to read: the load is over (from the event loop, like every other ending).
        QMetaObject::invokeMethod(this, &IncidentView::windowLoaded, Qt::QueuedConnection);
        return;
    }
    const quint64 generation = ++m_generation;
    m_pending = 3;
    m_waitingFirstPage = true;
    m_summary->setText(QStringLiteral("Loading %1 – %2 UTC…").arg(utcOf(q.from).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                                                                  utcOf(q.to).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
    m_model->setQuery(q);
    whenReady(summarizeWindow(*m_workspace, q), this, [this, generation, q](const Outcome<WindowSummary> &summary) {
        if (generation != m_generation)
            return;
        if (summary.ok())
            showSummary(*summary, q);
        else {
            m_summary->setText(QStringLiteral("No summary."));
            m_bar->showMessage(MessageBar::Level::Error, summary.error->message);
        }
        partDone(generation);
    });
    whenReady(measureStoreClocks(*m_workspace), this, [this, generation](const Outcome<QVector<StoreClock>> &clocks) {
        if (generation != m_generation)
            return;
        if (clocks.ok())
            showClocks(*clocks);
        else
            m_clocks->setText(QStringLiteral("clocks: not measured (%1)").arg(clocks.error->message));
        partDone(generation);
    });
}

void IncidentView::partDone(quint64 generation)
{
    if (generation != m_generation || m_pending <= 0)
        return;
    if (--m_pending == 0)
        emit windowLoaded();
}

void IncidentView::showSummary(const WindowSummary &summary, const WindowQuery &query)
{
    m_histogram = bucketWindow(summary.perMinute, query.from, query.to);
    fillHistogramChart(m_chart, m_series, m_histogram, query.from, query.to);
    qint64 events = 0;
    for (qint64 e : summary.events)
        events += e;
    QStringList parts{countText(events, QStringLiteral("event"))};
    // A figure the window's stream filters leave out is "not counted", never 0 (DESIGN.md §7 "summary");
    // the tooltip says which filter left it out, as the CLI and the report do.
    QStringList why;
    const auto figure = [&query, &why](SummaryFigure f, qint64 n, const QString &noun, const QString &tail) {
        const QString filteredOut = summaryFigureFilteredOut(query, f);
        if (filteredOut.isEmpty())
            return countText(n, noun) + tail;
        const QString text = noun + QStringLiteral("s") + tail + QStringLiteral(": not counted");
        why << QStringLiteral("%1 (filtered out by %2)").arg(text, filteredOut);
        return text;
    };
    parts << figure(SummaryFigure::UnknownKeys, summary.unknownKeys, QStringLiteral("key"), QStringLiteral(" with an UNKNOWN attempt"))
          << figure(SummaryFigure::StillProcessing, summary.stillProcessing, QStringLiteral("record"), QStringLiteral(" still PROCESSING"))
          << figure(SummaryFigure::DuplicateGroups, summary.duplicateGroups, QStringLiteral("duplicate group"), QString());
    if (!summary.settledBy.isEmpty())
        parts << countText([&] {
            qint64 n = 0;
            for (const NameCount &c : summary.settledBy)
                n += c.count;
            return n;
        }(), QStringLiteral("applied mark"));
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_summary->setToolTip(why.join(QLatin1Char('\n')));
}

void IncidentView::showClocks(const QVector<StoreClock> &clocks)
{
    QStringList parts;
    QStringList skewed;
    for (const StoreClock &c : clocks) {
        parts << QStringLiteral("%1 %2").arg(roleName(c.role), signedMs(c.offsetMs));
        if (qAbs(c.offsetMs) > kClockSkewWarnMs)
            skewed << QStringLiteral("%1's clock is %2 %3 this machine's").arg(roleTitle(c.role), signedMs(qAbs(c.offsetMs)).mid(1),
                                                                                 c.offsetMs > 0 ? QStringLiteral("ahead of")
                                                                                                : QStringLiteral("behind"));
    }
    // Roles sharing one database share one measurement: a single one speaks for every store.
    m_clocks->setText(clocks.size() == 1 ? QStringLiteral("clock vs this machine: %1 (one database)").arg(signedMs(clocks.first().offsetMs))
                                         : QStringLiteral("clocks vs this machine: %1").arg(parts.join(QStringLiteral(", "))));
    m_clocks->setToolTip(QStringLiteral("Each store's now() minus this machine's clock at the round trip's middle (DESIGN.md §7)"));
    if (!skewed.isEmpty()) {
        const theme::ToneColors warn = theme::toneColors(Tone::Warning);
        m_clocks->setStyleSheet(QStringLiteral("color: %1; font-weight: bold;").arg(warn.foreground.name()));
        m_bar->showMessage(MessageBar::Level::Warning,
                           QStringLiteral("%1: the order of events across stores is approximate.").arg(skewed.join(QStringLiteral("; "))));
    } else {
        m_clocks->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    }
}

QString IncidentView::clockText() const
{
    return m_clocks->text();
}

QString IncidentView::summaryText() const
{
    return m_summary->text();
}

void IncidentView::updateSpans(int first, int last)
{
    for (int r = first; r <= last; ++r)
        if (m_model->index(r, 0).data(WindowEventsModel::IsGapRole).toBool())
            m_table->setSpan(r, 0, 1, WindowEventsModel::ColumnCount);
}

void IncidentView::scrollToTime(UtcMicros t)
{
    m_pendingScroll = t;
    tryPendingScroll();
}

void IncidentView::tryPendingScroll()
{
    if (!m_pendingScroll)
        return;
    const int row = m_model->firstEventRowAtOrAfter(*m_pendingScroll);
    if (row < 0 && !m_model->atEnd()) {
        // Not loaded yet: the next page (one at a time) comes back through pageLoaded.
        if (m_model->canFetchMore({}))
            m_model->fetchMore({});
        return;
    }
    m_pendingScroll.reset();
    if (row < 0)
        return;
    const QModelIndex index = m_table->model()->index(row, WindowEventsModel::TimeColumn);
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index, QAbstractItemView::PositionAtTop);
}

} // namespace triage
