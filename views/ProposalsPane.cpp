#include "ProposalsPane.h"

#include "MessageBar.h"
#include "ProposalsModel.h"
#include "TextEscape.h"
#include "Theme.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace triage {

ProposalsPane::ProposalsPane(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_model(new ProposalsModel(workspace, this))
{
    setObjectName(QStringLiteral("proposalsPane"));
    m_bar = new MessageBar(this);
    m_bar->setObjectName(QStringLiteral("proposalsMessage"));
    m_all = new QCheckBox(QStringLiteral("Show decided"), this);
    m_all->setObjectName(QStringLiteral("showDecided"));
    m_all->setToolTip(QStringLiteral("Also approved, rejected and void proposals (the newest 500)"));
    m_refresh = new QPushButton(QStringLiteral("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("proposalCount"));
    auto *hint = new QLabel(QStringLiteral("Double-click a proposal to open its key: approve or reject it there (another operator "
                                           "than its proposer approves). A policy change (policy.set) has no key: approve or reject "
                                           "it with triagectl approve ID / reject ID."),
                            this);
    hint->setWordWrap(true);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_all);
    bar->addWidget(m_refresh);
    bar->addSpacing(12);
    bar->addWidget(m_count);
    bar->addStretch(1);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("proposalsTable"));
    m_table->setModel(m_model);
    theme::setupTable(m_table);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    theme::setColumnWidths(m_table, {40, 80, 110, 330, 300, 100, 150, 150, 220});

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_bar);
    layout->addLayout(bar);
    layout->addWidget(hint);
    layout->addWidget(m_table, 1);

    connect(m_all, &QCheckBox::toggled, m_model, &ProposalsModel::setShowDecided);
    connect(m_refresh, &QPushButton::clicked, this, &ProposalsPane::refresh);
    connect(m_model, &ProposalsModel::loaded, this, [this](int rows) {
        m_bar->clearMessage();
        const int open = m_model->openCount();
        m_count->setText(m_model->showDecided() ? QStringLiteral("%1, %2 open").arg(countText(rows, QStringLiteral("proposal"))).arg(open)
                                                : countText(rows, QStringLiteral("open proposal")));
        emit openCountChanged(open);
    });
    connect(m_model, &ProposalsModel::errorOccurred, this,
            [this](const QString &message) { m_bar->showMessage(MessageBar::Level::Error, QStringLiteral("Proposals could not be read: ") + message); });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        if (const QString key = index.data(ProposalsModel::KeyRole).toString(); !key.isEmpty()) // a policy change has no record
            emit keyActivated(key);
    });
    refresh();
}

void ProposalsPane::refresh()
{
    m_model->refresh();
}

} // namespace triage
