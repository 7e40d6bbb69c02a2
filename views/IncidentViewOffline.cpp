// The Incident view's offline mode (DESIGN.md §7 "Offline viewer"): a bundle shown read-only.
#include "IncidentView.h"

#include "Bundle.h"
#include "IncidentPanel.h"
#include "MessageBar.h"
#include "WindowEventSource.h"
#include "WindowEventsModel.h"

#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>

namespace triage {

void IncidentView::showBundle(const IncidentBundle &bundle, ReplayPanel::KeyDetailReader reader, QThreadPool *pool)
{
    showBundle(bundle, memoryEventSource(bundle.events), std::move(reader), pool);
    m_offlineBundle = std::make_shared<const IncidentBundle>(bundle);
}

void IncidentView::showBundle(const IncidentBundle &bundle, std::unique_ptr<WindowEventSource> events,
                              ReplayPanel::KeyDetailReader reader, QThreadPool *pool)
{
    m_offline = true;
    m_offlineBundle.reset();
    m_loadedOnce = true;
    m_tailTimer->stop();
    m_model->setSource(std::move(events));
    m_replay->setKeyDetailReader(std::move(reader), pool);
    m_replay->setReloadsEnabled(false);
    m_panel->showReadOnly(bundle.incident);
    setRange(bundle.query.from, bundle.query.to);
    m_bizType->setText(bundle.query.bizType);
    m_tenant->setText(bundle.query.tenant);
    m_key->setText(bundle.query.keySubstring);
    m_task->setText(bundle.query.taskId);
    m_kept = bundle.query;
    showKeptFilters();
    for (QWidget *w : findChildren<QPushButton *>(QRegularExpression(QStringLiteral("^preset"))))
        w->setEnabled(false);
    for (QWidget *w : std::initializer_list<QWidget *>{m_from, m_to, m_bizType, m_tenant, m_key, m_task, m_load})
        w->setEnabled(false);
    m_bar->clearMessage();
    if (!bundle.notes.isEmpty())
        m_bar->showMessage(MessageBar::Level::Info, bundle.notes.join(QLatin1Char('\n')));
    m_pendingScroll.reset();
    ++m_generation;
    m_pending = 1; // the first page (the summary and clocks are the bundle's)
    m_waitingFirstPage = true;
    m_model->setQuery(bundle.query);
    showSummary(bundle.summary, bundle.query);
    if (!bundle.clocks.isEmpty()) {
        showClocks(bundle.clocks);
        m_clocks->setText(QStringLiteral("at export: ") + m_clocks->text());
    } else {
        m_clocks->setText(QStringLiteral("clocks: not measured at export"));
    }
}

} // namespace triage
