#include "ScreenshotRunner.h"

#include "ProposalsModel.h"
#include "ProposalsPane.h"

#include "DuplicateGroupsModel.h"
#include "DuplicatesPane.h"
#include "IncidentView.h"
#include "ReviewModel.h"
#include "ReviewPane.h"
#include "ReplayPanel.h"
#include "WindowEventsModel.h"
#include "KeyDetailView.h"
#include "Log.h"
#include "MainWindow.h"
#include "QueueModel.h"
#include "QueuePane.h"
#include "Queue.h"

#include <QFileInfo>
#include <QImageWriter>
#include <QPixmap>
#include <QTableView>

namespace triage {

ScreenshotRunner::ScreenshotRunner(MainWindow *window, QString path, QString selectKey, int timeoutMs, QObject *parent)
    : QObject(parent), m_window(window), m_path(std::move(path)), m_selectKey(std::move(selectKey))
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        fail(2, QStringLiteral("timed out after %1 s waiting for %2").arg(m_timeout.interval() / 1000).arg(m_waitingFor));
    });
    m_countGrace.setSingleShot(true);
    m_countGrace.setInterval(5000);
    connect(&m_countGrace, &QTimer::timeout, this, [this] {
        m_countReady = true;
        maybeShoot();
    });
}

void ScreenshotRunner::start()
{
    QueueModel *model = m_window->queuePane(QueueKind::Unknown)->model();
    connect(model, &QueueModel::pageLoaded, this, &ScreenshotRunner::onPageLoaded);
    connect(model, &QueueModel::errorOccurred, this, &ScreenshotRunner::onPageError);
    connect(model, &QueueModel::countChanged, this, [this](qint64 count) {
        if (count >= 0) {
            m_countReady = true;
            maybeShoot();
        }
    });
    connect(m_window->detailView(), &KeyDetailView::detailLoaded, this, &ScreenshotRunner::onDetailLoaded);
    if (m_review) {
        ReviewPane *review = m_window->reviewPane();
        connect(review, &ReviewPane::loaded, this, [this, review] {
            if (m_reviewReady)
                return;
            if (m_selectKey.isEmpty() && review->itemsModel()->rowCount() > 0) {
                m_detailWanted = true;
                m_waitingFor = QStringLiteral("the detail of the Review tab's first item");
                review->selectEscalation(review->itemsModel()->itemAt(0)->row.escalation.id);
            }
            m_reviewReady = true;
            maybeShoot();
        });
        connect(review, &ReviewPane::loadFailed, this, [this](const QString &message) {
            m_dbError = message; // shown in the shot; exit 2
            m_failedWhat = QStringLiteral("the Review tab");
            m_reviewReady = true;
            maybeShoot();
        });
    }
    if (m_proposals) {
        ProposalsModel *model = m_window->proposalsPane()->proposalsModel();
        connect(model, &ProposalsModel::loaded, this, [this] {
            m_proposalsReady = true;
            maybeShoot();
        });
        connect(model, &ProposalsModel::errorOccurred, this, [this](const QString &message) {
            m_dbError = message; // shown in the shot; exit 2
            m_failedWhat = QStringLiteral("the Proposals tab");
            m_proposalsReady = true;
            maybeShoot();
        });
    }
    if (m_duplicates) {
        DuplicatesPane *pane = m_window->duplicatesPane();
        auto firstPage = [this, pane] {
            if (m_duplicatesReady)
                return;
            m_duplicatesReady = true;
            auto *table = pane->findChild<QTableView *>(QStringLiteral("groupsTable"));
            if (table && pane->groupsModel()->rowCount() > 0) {
                m_detailWanted = true;
                m_detailReady = false;
                m_waitingFor = QStringLiteral("the first duplicate-key group's tickets");
                connect(pane, &DuplicatesPane::groupLoaded, this, [this] {
                    m_detailReady = true;
                    maybeShoot();
                }, Qt::SingleShotConnection);
                table->selectRow(0);
                return;
            }
            maybeShoot();
        };
        connect(pane->groupsModel(), &DuplicateGroupsModel::pageLoaded, this, firstPage);
        connect(pane->groupsModel(), &DuplicateGroupsModel::errorOccurred, this, [this, firstPage](const QString &message) {
            m_dbError = message; // shown in the shot; exit 2
            m_failedWhat = QStringLiteral("the Duplicate keys tab");
            firstPage();
        });
    }
    if (m_incident)
        connect(m_window->incidentView(), &IncidentView::windowLoaded, this, [this] {
            IncidentView *view = m_window->incidentView();
            const QAbstractItemModel *events = view->eventTable()->model();
            if (m_incidentSelect >= 0 && m_incidentSelect < events->rowCount()
                && !events->index(m_incidentSelect, 0).data(WindowEventsModel::IsGapRole).toBool()) {
                // The playhead on that event and its key's detail open, as the operator's
                // selection and double-click would: shoot once its "As of T" panel and the
                // detail are in.
                m_waitingFor = QStringLiteral("the As of T panel and the detail of event row %1").arg(m_incidentSelect);
                connect(view->replayPanel(), &ReplayPanel::asOfLoaded, this, [this] {
                    m_incidentReady = true;
                    maybeShoot();
                }, Qt::SingleShotConnection);
                if (!events->index(m_incidentSelect, 0).data(WindowEventsModel::IdemKeyRole).toString().isEmpty()) {
                    m_detailWanted = true;
                    m_detailReady = false;
                }
                view->activateEventRow(m_incidentSelect);
                m_incidentSelect = -1;
                return;
            }
            if (m_incidentSelect >= 0)
                logger("app")->warn("--incident-select {}: not an event row of the window's first page (a gap row, or past its end)", m_incidentSelect);
            m_incidentReady = true;
            maybeShoot();
        });
    m_waitingFor = QStringLiteral("the first page of the Unknown queue");
    m_timeout.start();
}

void ScreenshotRunner::onPageLoaded()
{
    if (m_pageReady)
        return;
    m_pageReady = true;
    QueuePane *pane = m_window->queuePane(QueueKind::Unknown);
    if (!m_selectKey.isEmpty()) {
        m_detailWanted = true;
        m_waitingFor = QStringLiteral("the detail of %1").arg(m_selectKey);
        m_window->openKey(m_selectKey);
    } else if (pane->model()->rowCount() > 0 && !m_incident && !m_review && !m_duplicates && !m_proposals) {
        m_detailWanted = true;
        m_waitingFor = QStringLiteral("the detail of the first row");
        pane->selectRow(0);
    }
    maybeShoot();
}

void ScreenshotRunner::onPageError(const QString &message)
{
    QueueModel *model = m_window->queuePane(QueueKind::Unknown)->model();
    if (!model->countError().isEmpty())
        m_countReady = true; // the count will not come: shoot without it
    if (!model->lastError().isEmpty() && !m_pageReady) {
        // The first page failed: show the error in the shot, exit 2.
        m_dbError = message;
        m_pageReady = true;
        if (!m_selectKey.isEmpty()) {
            m_detailWanted = true;
            m_window->openKey(m_selectKey);
        }
    }
    maybeShoot();
}

void ScreenshotRunner::onDetailLoaded(const QString &)
{
    m_detailReady = true;
    if (m_action == QLatin1String("query") && !m_actionStarted) {
        m_actionStarted = true;
        KeyDetailView *detail = m_window->detailView();
        connect(detail, &KeyDetailView::upstreamChecked, this, [this] {
            m_actionDone = true;
            // The detail reloads right after (the query is on the timeline now).
            QTimer::singleShot(0, this, &ScreenshotRunner::maybeShoot);
        });
        m_waitingFor = QStringLiteral("the upstream's answer");
        if (!detail->queryUpstream())
            m_actionDone = true; // no upstream: shoot the detail as it is
    }
    maybeShoot();
}

void ScreenshotRunner::maybeShoot()
{
    if (m_done || m_shooting || !m_pageReady || (m_detailWanted && !m_detailReady))
        return;
    if (m_incident && !m_incidentReady) {
        m_waitingFor = QStringLiteral("the Incident tab's window");
        return;
    }
    if (m_review && !m_reviewReady) {
        m_waitingFor = QStringLiteral("the Review tab's review");
        return;
    }
    if (m_proposals && !m_proposalsReady) {
        m_waitingFor = QStringLiteral("the Proposals tab's list");
        return;
    }
    if (m_duplicates && !m_duplicatesReady) {
        m_waitingFor = QStringLiteral("the Duplicate keys tab's first page");
        return;
    }
    if (!m_action.isEmpty() && m_detailWanted && (!m_actionDone || m_window->detailView()->isLoading()))
        return;
    if (!m_countReady) {
        if (!m_countGrace.isActive())
            m_countGrace.start();
        return;
    }
    m_countGrace.stop();
    m_shooting = true;
    // Let the last layouts and deferred paints (tree expansion, column sizes) settle.
    QTimer::singleShot(m_settleMs, this, &ScreenshotRunner::shoot);
}

void ScreenshotRunner::shoot()
{
    if (m_done)
        return;
    const QPixmap shot = m_window->grab();
    QImageWriter writer(m_path);
    if (!writer.write(shot.toImage())) {
        fail(1, QStringLiteral("cannot write %1: %2").arg(m_path, writer.errorString()));
        return;
    }
    m_done = true;
    m_timeout.stop();
    logger("app")->info("screenshot saved to {}", QFileInfo(m_path).absoluteFilePath());
    if (!m_dbError.isEmpty())
        emit finished(2, QStringLiteral("screenshot saved to %1, but %2 failed: %3").arg(m_path, m_failedWhat, m_dbError));
    else
        emit finished(0, QString());
}

void ScreenshotRunner::fail(int code, const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    if (code == 2) {
        // Save what there is: it shows where it got stuck.
        QImageWriter writer(m_path);
        writer.write(m_window->grab().toImage());
    }
    emit finished(code, message);
}

} // namespace triage
