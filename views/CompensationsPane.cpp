#include "CompensationsPane.h"
#include "FutureChain.h"

#include "TextEscape.h"

#include "Compensation.h"
#include "CompensationRules.h"
#include "CompensationsModel.h"
#include "MessageBar.h"
#include "Theme.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace triage {

CompensationsPane::CompensationsPane(Workspace *workspace, const CompensationConfigs &configs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_runner(std::make_shared<CompensationRunner>(*workspace, configs))
{
    setObjectName(QStringLiteral("compensationsPane"));
    m_model = new CompensationsModel(m_runner.get(), this);
    m_bar = new MessageBar(this);
    m_bar->setObjectName(QStringLiteral("compensationsMessage"));
    m_status = new QComboBox(this);
    m_status->setObjectName(QStringLiteral("statusFilter"));
    m_status->addItem(QStringLiteral("All statuses"), QString());
    for (const CompensationStatus s : {CompensationStatus::Intent, CompensationStatus::Unknown, CompensationStatus::Succeeded,
                                       CompensationStatus::Failed})
        m_status->addItem(compensationStatusName(s), compensationStatusName(s));
    m_refresh = new QPushButton(QStringLiteral("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("compensationCount"));
    m_resume = new QPushButton(QStringLiteral("Resume (confirm first)"), this);
    m_resume->setObjectName(QStringLiteral("resumeButton"));
    m_resume->setToolTip(QStringLiteral("Asks the upstream's confirmation query first; re-sends only with the same compensation key"));

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Status:"), this));
    bar->addWidget(m_status);
    bar->addWidget(m_refresh);
    bar->addSpacing(12);
    bar->addWidget(m_count);
    bar->addStretch(1);
    bar->addWidget(m_resume);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("compensationsTable"));
    m_table->setModel(m_model);
    theme::setupTable(m_table);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    theme::setColumnWidths(m_table, {330, 100, 50, 110, 70, 260, 90});

    auto *historyBox = new QWidget(this);
    m_historyTitle = new QLabel(QStringLiteral("Select a compensation to see its attempts."), historyBox);
    m_historyTitle->setObjectName(QStringLiteral("historyTitle"));
    m_history = new QTableWidget(0, 6, historyBox);
    m_history->setObjectName(QStringLiteral("historyTable"));
    m_history->setHorizontalHeaderLabels({QStringLiteral("At (UTC)"), QStringLiteral("Kind"), QStringLiteral("Classification"),
                                          QStringLiteral("HTTP"), QStringLiteral("Error"), QStringLiteral("Response")});
    m_history->verticalHeader()->hide();
    m_history->setWordWrap(false);
    m_history->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_history->horizontalHeader()->setStretchLastSection(true);
    m_history->setColumnWidth(0, 230);
    {
        auto *l = new QVBoxLayout(historyBox);
        l->setContentsMargins(0, 4, 0, 0);
        l->addWidget(m_historyTitle);
        l->addWidget(m_history, 1);
    }
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(historyBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_bar);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_status, &QComboBox::currentIndexChanged, this, [this] {
        const QString name = m_status->currentData().toString();
        m_model->setStatusFilter(name.isEmpty() ? std::nullopt : compensationStatusFromName(name));
    });
    connect(m_refresh, &QPushButton::clicked, this, [this] { refresh(); });
    connect(m_resume, &QPushButton::clicked, this, [this] { resumeSelected(); });
    connect(m_model, &CompensationsModel::loaded, this, [this](int rows) {
        m_count->setText(countText(rows, QStringLiteral("compensation")));
        if (!m_reselect.isEmpty())
            selectCompensation(std::exchange(m_reselect, QString()));
        updateButtons();
    });
    connect(m_model, &CompensationsModel::errorOccurred, this,
            [this](const QString &message) { m_bar->showMessage(MessageBar::Level::Error, message); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        updateButtons();
        if (current.isValid())
            loadHistory(current.data(CompensationsModel::CompKeyRole).toString());
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        emit keyActivated(m_model->compensation(index.row()).sourceKey);
    });
    updateButtons();
    refresh();
}

CompensationsPane::~CompensationsPane() = default;

void CompensationsPane::refresh()
{
    m_reselect = selectedKey();
    m_model->refresh();
}

QString CompensationsPane::selectedKey() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? i.data(CompensationsModel::CompKeyRole).toString() : QString();
}

bool CompensationsPane::selectCompensation(const QString &compKey)
{
    const int row = m_model->findKey(compKey);
    if (row < 0)
        return false;
    const bool same = m_table->currentIndex().row() == row;
    m_table->setCurrentIndex(m_model->index(row, 0));
    if (same) // no currentRowChanged: reload the history explicitly
        loadHistory(compKey);
    return true;
}

void CompensationsPane::updateButtons()
{
    const QModelIndex i = m_table->currentIndex();
    const QString status = i.isValid() ? i.data(CompensationsModel::StatusRole).toString() : QString();
    m_resume->setEnabled(!m_resuming && !m_workspace->config().readOnly && compensationResumable(compensationStatusFromName(status)));
}

void CompensationsPane::loadHistory(const QString &compKey)
{
    const quint64 generation = ++m_historyGeneration;
    m_historyTitle->setText(QStringLiteral("Attempts of %1 (loading…)").arg(compKey));
    whenReady(m_runner->history(compKey), this, [this, generation, compKey](const Outcome<QVector<CompensationAttemptRow>> &h) {
        if (generation != m_historyGeneration)
            return;
        if (!h.ok()) {
            m_historyTitle->setText(QStringLiteral("Attempts of %1: not available").arg(compKey));
            m_bar->showMessage(MessageBar::Level::Error, h.error->message);
            return;
        }
        m_historyTitle->setText(QStringLiteral("Attempts of %1: %2").arg(compKey).arg(h->size()));
        m_history->setRowCount(int(h->size()));
        for (int r = 0; r < h->size(); ++r) {
            const CompensationAttemptRow &a = h->at(r);
            const QStringList cells{a.at, a.kind, a.classification, a.httpStatus ? QString::number(*a.httpStatus) : QString(),
                                    a.error.value_or(QString()), a.responsePreview.value_or(QString())};
            for (int c = 0; c < cells.size(); ++c) {
                auto *item = new QTableWidgetItem(cells.at(c));
                item->setToolTip(cells.at(c));
                if (c == 0)
                    item->setFont(theme::monospaceFont(-0.5));
                m_history->setItem(r, c, item);
            }
        }
        emit historyLoaded(compKey);
    });
}

void CompensationsPane::resumeSelected()
{
    const QString key = selectedKey();
    if (key.isEmpty() || m_resuming)
        return;
    m_resuming = true;
    updateButtons();
    m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("resuming %1…").arg(key));
    // The continuation keeps the runner alive until the resume's task has ended, so closing
    // the pane never destroys it under a running task.
    whenReady(continueWith(m_runner->resume(key, m_workspace->config().operatorName), valueChainPool(), [keep = m_runner](const CompensationOutcome &o) { return o; }),
              this, [this, key](const CompensationOutcome &o) {
            m_resuming = false;
            const QString name = compensationOutcomeName(o.kind);
            const bool ok = o.kind == CompensationOutcome::Kind::Succeeded;
            m_bar->showMessage(ok ? MessageBar::Level::Info : MessageBar::Level::Warning,
                               QStringLiteral("%1: %2%3").arg(key, name.toUpper(), o.message.isEmpty() ? QString() : QStringLiteral(" — ") + o.message));
            refresh();
            emit resumeFinished(key, name);
        });
}

} // namespace triage
