// The Incident view's links and export (DESIGN.md §7 "Links", "Bundles", "Reports"): opening a
// window link with its event, "Copy link", the retention banner, "Export…".
#include "IncidentView.h"

#include "Bundle.h"
#include "BundleReport.h"
#include "DeepLink.h"
#include "IncidentPanel.h"
#include "MessageBar.h"
#include "Retention.h"
#include "StoreRole.h"
#include "TextEscape.h"
#include "WhenReady.h"
#include "WindowEventsModel.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QPushButton>
#include <QTableView>
#include <QtConcurrent>

namespace triage {

void IncidentView::openLink(const WindowQuery &query, const std::optional<std::pair<EventKind, QString>> &event)
{
    openQuery(query);
    m_pendingEvent = event;
    const quint64 generation = m_generation;
    whenReady(checkWindowRetention(*m_workspace, m_loadedQuery), this, [this, generation](const Outcome<QString> &note) {
        if (generation != m_generation)
            return;
        if (!note.ok())
            m_retentionBar->showMessage(MessageBar::Level::Warning,
                                        QStringLiteral("Could not check the window against the records still held: %1").arg(note.error->message));
        else if (!note->isEmpty())
            m_retentionBar->showMessage(MessageBar::Level::Warning, *note);
    });
    // The event is looked for as pages arrive (pageLoaded): the first one is on its way.
}

void IncidentView::tryPendingEvent()
{
    if (!m_pendingEvent)
        return;
    const QAbstractItemModel *model = m_table->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, WindowEventsModel::TimeColumn);
        const QVariant kind = index.data(WindowEventsModel::KindRole);
        if (kind.isValid() && EventKind(kind.toInt()) == m_pendingEvent->first
            && index.data(WindowEventsModel::EventIdRole).toString() == m_pendingEvent->second) {
            m_pendingEvent.reset();
            // Opened as a double-click would: selected, centred, its key in the detail pane.
            activateEventRow(row);
            return;
        }
    }
    if (!m_model->atEnd()) {
        if (m_model->canFetchMore({}))
            m_model->fetchMore({});
        return;
    }
    m_bar->showMessage(MessageBar::Level::Warning, QStringLiteral("The linked event %1 %2 is not in this window (any more).")
                                                       .arg(eventKindName(m_pendingEvent->first), m_pendingEvent->second));
    m_pendingEvent.reset();
}

QString IncidentView::currentLink() const
{
    const QModelIndex current = m_table->currentIndex();
    const QVariant kind = current.data(WindowEventsModel::KindRole);
    return windowLink(m_loadedQuery, kind.isValid() ? std::optional(std::pair(EventKind(kind.toInt()),
                                                                              current.data(WindowEventsModel::EventIdRole).toString()))
                                                    : std::nullopt);
}

void IncidentView::copyLink()
{
    const QString link = currentLink();
    QGuiApplication::clipboard()->setText(link);
    m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("Link copied: %1").arg(link));
}

void IncidentView::exportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export the window"), QStringLiteral("incident.json"),
                                                      QStringLiteral("Bundle (*.json);;HTML report (*.html);;PDF report (*.pdf)"));
    if (!path.isEmpty())
        exportTo(path);
}

void IncidentView::exportTo(const QString &path)
{
    const bool json = QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0;
    const std::optional<ReportFormat> report = reportFormatForPath(path);
    if (!json && !report) {
        m_bar->showMessage(MessageBar::Level::Error, QStringLiteral("Export: name a .json, .html or .pdf file (%1)").arg(path));
        emit exportFinished(false, m_bar->text());
        return;
    }
    if (m_offline) {
        if (m_offlineBundle) {
            m_export->setEnabled(false);
            writeExport(path, json, report, *m_offlineBundle);
        } else {
            m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("Export: the bundle is still being read; try again in a moment"));
            emit exportFinished(false, m_bar->text());
        }
        return;
    }
    // The open incident when its window is the one shown (its pins and notes come along).
    std::optional<qint64> incidentId;
    if (const auto &open = m_panel->current(); open && open->incident.query.from == m_loadedQuery.from
                                               && open->incident.query.to == m_loadedQuery.to)
        incidentId = open->incident.id;
    m_export->setEnabled(false);
    m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("Exporting %1…").arg(path));
    whenReady(exportBundle(*m_workspace, m_loadedQuery, incidentId, RedactionRules{}, true), this,
              [this, path, json, report](const Outcome<IncidentBundle> &bundle) {
                  if (!bundle.ok()) {
                      m_export->setEnabled(true);
                      m_bar->showMessage(MessageBar::Level::Error, QStringLiteral("Export failed: %1").arg(bundle.error->message));
                      emit exportFinished(false, m_bar->text());
                      return;
                  }
                  writeExport(path, json, report, *bundle);
              });
}

void IncidentView::writeExport(const QString &path, bool json, std::optional<ReportFormat> report, const IncidentBundle &bundle)
{
    auto finish = [this, path, b = bundle](const QString &error) {
        m_export->setEnabled(true);
        QStringList failed;
        for (const BundleStore &s : b.stores)
            if (!s.ok)
                failed << QStringLiteral("%1 (%2)").arg(roleTitle(s.role), s.error);
        const bool ok = error.isEmpty() && failed.isEmpty();
        const QString text = !error.isEmpty() ? QStringLiteral("Export failed: %1").arg(error)
            : QStringLiteral("Exported %1 to %2 (SHA-256 %3)%4")
                  .arg(countText(b.events.size(), QStringLiteral("event")), path, b.eventsSha256.left(12) + QChar(0x2026),
                       failed.isEmpty() ? QString()
                                        : QStringLiteral("; incomplete: %1 failed").arg(failed.join(QStringLiteral(", "))));
        m_bar->showMessage(ok ? MessageBar::Level::Info : MessageBar::Level::Error, text);
        emit exportFinished(ok, m_bar->text());
    };
    if (json) {
        // Serialising a large bundle takes a while: off the GUI thread.
        whenReady(QtConcurrent::run([path, b = bundle]() -> QString {
                      QFile file(path);
                      if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || !writeBundleJson(b, &file, nullptr)
                          || !file.flush())
                          return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
                      return QString();
                  }),
                  this, finish);
        return;
    }
    // The report draws with Qt Charts and fonts: on the GUI thread.
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    writeBundleReport(bundle, path, *report, ReportOptions{}, &error);
    QApplication::restoreOverrideCursor();
    finish(error);
}

} // namespace triage
