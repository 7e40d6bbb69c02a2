#include "QueuePane.h"

#include <algorithm>

#include "Log.h"
#include "MessageBar.h"
#include "QueueModel.h"
#include "Theme.h"
#include "Workspace.h"
#include "Queue.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QTimeZone>
#include <QTimer>
#include <QVBoxLayout>

namespace triage {

namespace {

const QDateTime kNoBound(QDate(2000, 1, 1), QTime(0, 0), QTimeZone::utc());

std::optional<UtcMicros> bound(const QDateTimeEdit *edit)
{
    const QDateTime t = edit->dateTime();
    if (!t.isValid() || t <= kNoBound)
        return std::nullopt;
    return UtcMicros(t.toMSecsSinceEpoch()) * 1000;
}

QDateTimeEdit *makeBoundEdit(QWidget *parent, const QString &tip)
{
    auto *e = new QDateTimeEdit(parent);
    e->setTimeSpec(Qt::UTC);
    e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
    e->setCalendarPopup(true);
    e->setMinimumDateTime(kNoBound);
    e->setSpecialValueText(QStringLiteral("any"));
    e->setDateTime(kNoBound);
    e->setToolTip(tip);
    e->setFixedWidth(132);
    return e;
}

bool sameRequest(const QueueRequest &a, const QueueRequest &b)
{
    const QueueFilter &f = a.filter, &g = b.filter;
    return a.kind == b.kind && a.newestFirst == b.newestFirst && f.bizType == g.bizType && f.tenant == g.tenant
        && f.keySubstring == g.keySubstring && f.createdFrom == g.createdFrom && f.createdTo == g.createdTo
        && f.updatedFrom == g.updatedFrom && f.updatedTo == g.updatedTo;
}

} // namespace

QueuePane::QueuePane(Workspace *workspace, QueueKind kind, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_kind(kind), m_model(new QueueModel(workspace, this))
{
    setObjectName(QStringLiteral("queue-%1").arg(queueName(kind)));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    layout->addWidget(buildFilterBar());

    m_error = new MessageBar(this);
    m_error->setObjectName(QStringLiteral("queueError"));
    m_error->setActionText(QStringLiteral("Retry"));
    layout->addWidget(m_error);
    connect(m_error, &MessageBar::actionTriggered, this, &QueuePane::messageAction);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("queueTable"));
    m_table->setModel(m_model);
    theme::setupTable(m_table, Qt::ElideMiddle);
    theme::setColumnWidths(m_table, {304, 112, 58, 56, 124, 138, 138, 138});
    m_table->horizontalHeader()->setSortIndicatorShown(false);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection); // bulk actions on several rows
    layout->addWidget(m_table, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid())
            emit currentKeyChanged(current.data(QueueModel::IdemKeyRole).toString());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { emit selectionChanged(selectedKeys()); });
    connect(m_model, &QueueModel::loadingChanged, this, &QueuePane::updateStatus);
    connect(m_model, &QueueModel::pageLoaded, this, &QueuePane::updateStatus);
    connect(m_model, &QueueModel::countChanged, this, [this](qint64 count) {
        updateStatus();
        emit countChanged(count);
    });
    connect(m_model, &QueueModel::errorOccurred, this, &QueuePane::updateStatus);
    connect(m_model, &QueueModel::cancelFailed, this, [this](const QString &message) {
        m_cancelProblem = message;
        m_cancel->setText(QStringLiteral("Cancel query"));
        m_cancel->setEnabled(true);
        updateStatus();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &QueuePane::updateStatus);
    updateStatus();
}

QWidget *QueuePane::buildFilterBar()
{
    auto *bar = new QWidget(this);
    auto *grid = new QGridLayout(bar);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(5);

    m_bizType = new QComboBox(bar);
    m_bizType->setObjectName(QStringLiteral("bizTypeFilter"));
    m_bizType->setEditable(true);
    m_bizType->setInsertPolicy(QComboBox::NoInsert);
    m_bizType->addItem(QString());
    for (auto it = m_workspace->config().bizTypes.cbegin(); it != m_workspace->config().bizTypes.cend(); ++it)
        m_bizType->addItem(it.key());
    m_bizType->lineEdit()->setPlaceholderText(QStringLiteral("all biz types"));
    m_bizType->setToolTip(QStringLiteral("Exact biz_type (from the configuration, or type one). Intent-log steps have "
                                         "no biz_type and are left out when this is set."));
    m_bizType->setMinimumWidth(140);
    m_tenant = new QLineEdit(bar);
    m_tenant->setObjectName(QStringLiteral("tenantFilter"));
    m_tenant->setPlaceholderText(QStringLiteral("tenant"));
    m_tenant->setClearButtonEnabled(true);
    m_tenant->setToolTip(QStringLiteral("Tenant as the biz_type's tenant pattern places it in the key"));
    m_tenant->setMaximumWidth(130);
    m_keySubstring = new QLineEdit(bar);
    m_keySubstring->setObjectName(QStringLiteral("keyFilter"));
    m_keySubstring->setPlaceholderText(QStringLiteral("key contains\u2026"));
    m_keySubstring->setClearButtonEnabled(true);
    m_keySubstring->setFont(theme::monospaceFont(-0.5));
    m_keySubstring->setToolTip(QStringLiteral("Case-sensitive substring of idem_key"));

    auto *row1 = new QHBoxLayout;
    row1->setSpacing(6);
    row1->addWidget(m_bizType);
    row1->addWidget(m_tenant);
    row1->addWidget(m_keySubstring, 1);
    grid->addLayout(row1, 0, 0);

    m_timeField = new QComboBox(bar);
    m_timeField->addItem(QStringLiteral("Updated"));
    m_timeField->addItem(QStringLiteral("Created"));
    m_timeField->setToolTip(QStringLiteral("Which time the window applies to (UTC; from inclusive, to exclusive)"));
    m_from = makeBoundEdit(bar, QStringLiteral("From (UTC, inclusive); \u201cany\u201d = no lower bound"));
    m_to = makeBoundEdit(bar, QStringLiteral("To (UTC, exclusive); \u201cany\u201d = no upper bound"));
    m_order = new QComboBox(bar);
    m_order->setObjectName(QStringLiteral("orderChoice"));
    m_order->addItem(QStringLiteral("Oldest first"));
    m_order->addItem(QStringLiteral("Newest first"));
    m_order->setToolTip(QStringLiteral("Order by updated_at: oldest first puts the longest-stuck rows on top"));
    m_busy = new QProgressBar(bar);
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setFixedSize(64, 8);
    m_busy->setObjectName(QStringLiteral("queueBusy"));
    m_countLabel = new QLabel(bar);
    m_countLabel->setObjectName(QStringLiteral("countLabel"));
    m_countLabel->setStyleSheet(QStringLiteral("font-weight: bold;"));
    m_loadedLabel = new QLabel(bar);
    m_loadedLabel->setObjectName(QStringLiteral("loadedLabel"));
    m_loadedLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_cancel = new QPushButton(QStringLiteral("Cancel query"), bar);
    m_cancel->setObjectName(QStringLiteral("cancelQuery"));
    m_cancel->setToolTip(QStringLiteral("Stop the query running on the database server (through a second connection). "
                                        "The rows already loaded stay."));
    m_cancel->setAutoDefault(false);
    m_cancel->setVisible(false);
    connect(m_cancel, &QPushButton::clicked, this, &QueuePane::cancelLoading);
    // The status line keeps the button's height, so the table does not jump when it shows.
    m_countLabel->setMinimumHeight(m_cancel->sizeHint().height());
    m_cancelDelay = new QTimer(this);
    m_cancelDelay->setSingleShot(true);
    m_cancelDelay->setInterval(cancelDelayMs());
    connect(m_cancelDelay, &QTimer::timeout, this, [this] {
        if (m_model->isLoading() || m_model->isCounting())
            m_cancel->setVisible(true);
    });

    auto *row2 = new QHBoxLayout;
    row2->setSpacing(6);
    row2->addWidget(m_timeField);
    row2->addWidget(m_from);
    row2->addWidget(new QLabel(QStringLiteral("\u2013"), bar));
    row2->addWidget(m_to);
    row2->addWidget(m_order);
    row2->addStretch(1);
    grid->addLayout(row2, 1, 0);

    // Status line: the total, how much is loaded, and whether anything is in flight.
    auto *row3 = new QHBoxLayout;
    row3->setSpacing(8);
    row3->setContentsMargins(2, 2, 2, 0);
    row3->addWidget(m_countLabel);
    row3->addWidget(m_loadedLabel);
    row3->addWidget(m_busy);
    row3->addWidget(m_cancel);
    row3->addStretch(1);
    grid->addLayout(row3, 2, 0);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(400);
    connect(m_debounce, &QTimer::timeout, this, &QueuePane::applyFilters);
    auto later = [this] { m_debounce->start(); };
    connect(m_tenant, &QLineEdit::textEdited, this, later);
    connect(m_keySubstring, &QLineEdit::textEdited, this, later);
    connect(m_bizType, &QComboBox::currentTextChanged, this, later);
    connect(m_tenant, &QLineEdit::returnPressed, this, &QueuePane::applyFilters);
    connect(m_keySubstring, &QLineEdit::returnPressed, this, &QueuePane::applyFilters);
    connect(m_bizType->lineEdit(), &QLineEdit::returnPressed, this, &QueuePane::applyFilters);
    connect(m_timeField, &QComboBox::currentIndexChanged, this, &QueuePane::applyFilters);
    connect(m_order, &QComboBox::currentIndexChanged, this, &QueuePane::applyFilters);
    connect(m_from, &QDateTimeEdit::dateTimeChanged, this, later);
    connect(m_to, &QDateTimeEdit::dateTimeChanged, this, later);
    // Clearing a field with its clear button is an edit too.
    connect(m_tenant, &QLineEdit::textChanged, this, [later](const QString &t) { if (t.isEmpty()) later(); });
    connect(m_keySubstring, &QLineEdit::textChanged, this, [later](const QString &t) { if (t.isEmpty()) later(); });
    return bar;
}

QueueRequest QueuePane::currentRequest() const
{
    QueueRequest r;
    r.kind = m_kind;
    r.newestFirst = m_order->currentIndex() == 1;
    r.filter.bizType = m_bizType->currentText().trimmed();
    r.filter.tenant = m_tenant->text().trimmed();
    r.filter.keySubstring = m_keySubstring->text().trimmed();
    const bool created = m_timeField->currentIndex() == 1;
    (created ? r.filter.createdFrom : r.filter.updatedFrom) = bound(m_from);
    (created ? r.filter.createdTo : r.filter.updatedTo) = bound(m_to);
    return r;
}

void QueuePane::start()
{
    m_model->setRequest(currentRequest());
}

void QueuePane::refresh()
{
    m_model->reload(); // the rows stay until the new first page replaces them; kept if it fails
}

void QueuePane::cancelLoading()
{
    m_cancelProblem.clear();
    if (!m_model->cancelLoading())
        return;
    logger("views")->info("{} queue: cancel query", queueName(m_kind));
    m_cancel->setText(QStringLiteral("Cancelling\u2026"));
    m_cancel->setEnabled(false);
    updateStatus();
}

void QueuePane::messageAction()
{
    if (m_offerResume)
        m_model->resume(); // keeps the rows loaded
    else
        refresh();
}

void QueuePane::applyFilters()
{
    m_debounce->stop();
    const QueueRequest r = currentRequest();
    if (sameRequest(r, m_model->request()))
        return;
    logger("views")->debug("{} queue: filters changed", queueName(m_kind));
    m_model->setRequest(r);
}

QString QueuePane::countText(const QueueRequest &request, qint64 count)
{
    const bool records = queueUsesRecords(request.kind);
    const bool steps = queueUsesIntents(request.kind, request.filter);
    if (records && steps)
        return QStringLiteral("%1 records and steps").arg(count);
    if (steps)
        return QStringLiteral("%1 %2").arg(count).arg(count == 1 ? QStringLiteral("step") : QStringLiteral("steps"));
    return QStringLiteral("%1 %2").arg(count).arg(count == 1 ? QStringLiteral("record") : QStringLiteral("records"));
}

void QueuePane::updateStatus()
{
    const qint64 count = m_model->count();
    if (count >= 0)
        m_countLabel->setText(countText(m_model->request(), count));
    else if (m_model->isCounting())
        m_countLabel->setText(QStringLiteral("counting\u2026"));
    else if (m_model->countCancelled())
        m_countLabel->setText(QStringLiteral("count cancelled"));
    else if (!m_model->countError().isEmpty())
        m_countLabel->setText(QStringLiteral("count failed"));
    else
        m_countLabel->clear();
    const int rows = m_model->rowCount();
    if (count >= 0 && rows < count)
        m_loadedLabel->setText(QStringLiteral("\u00b7 %1 loaded; scroll for more").arg(rows));
    else
        m_loadedLabel->clear();
    const bool busy = m_model->isLoading() || m_model->isCounting();
    m_busy->setVisible(busy);
    if (busy && !m_wasBusy)
        m_cancelDelay->start();
    if (!busy) {
        m_cancelDelay->stop();
        m_cancel->setVisible(false);
        m_cancel->setText(QStringLiteral("Cancel query"));
        m_cancel->setEnabled(true);
        m_cancelProblem.clear();
    }
    m_wasBusy = busy;

    // Errors first; a cancel the operator asked for is news, not an error.
    QString error = m_model->pageCancelled() ? QString() : m_model->lastError();
    if (error.isEmpty() && !m_model->countError().isEmpty() && !m_model->countCancelled())
        error = QStringLiteral("Counting failed: %1").arg(m_model->countError());
    m_offerResume = false;
    if (!error.isEmpty()) {
        m_error->setActionText(QStringLiteral("Retry"));
        m_error->showMessage(MessageBar::Level::Error, error);
    } else if (!m_cancelProblem.isEmpty()) {
        m_error->setActionText(QString());
        m_error->showMessage(MessageBar::Level::Warning, QStringLiteral("Could not cancel the query: %1").arg(m_cancelProblem));
    } else if (m_model->pageCancelled() || m_model->countCancelled()) {
        m_offerResume = true;
        m_error->setActionText(QStringLiteral("Load again"));
        m_error->showMessage(MessageBar::Level::Info, QStringLiteral("Query cancelled"));
    } else {
        m_error->clearMessage();
    }
}

QString QueuePane::currentKey() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? i.data(QueueModel::IdemKeyRole).toString() : QString();
}

QStringList QueuePane::selectedKeys() const
{
    QStringList keys;
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    for (const QModelIndex &i : rows) {
        const QString key = i.data(QueueModel::IdemKeyRole).toString();
        if (!key.isEmpty() && !keys.contains(key))
            keys << key;
    }
    return keys;
}

bool QueuePane::selectRows(const QList<int> &rows)
{
    QItemSelection selection;
    for (int row : rows) {
        if (row < 0 || row >= m_model->rowCount())
            return false;
        selection.select(m_model->index(row, 0), m_model->index(row, m_model->columnCount() - 1));
    }
    if (rows.isEmpty())
        return false;
    m_table->selectionModel()->setCurrentIndex(m_model->index(rows.first(), 0), QItemSelectionModel::NoUpdate);
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    return true;
}

bool QueuePane::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const QModelIndex i = m_model->index(row, 0);
    m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(i);
    return true;
}

bool QueuePane::selectKey(const QString &key)
{
    const int row = m_model->findKey(key);
    if (row < 0)
        return false;
    if (currentKey() == key)
        return true;
    return selectRow(row);
}

} // namespace triage
