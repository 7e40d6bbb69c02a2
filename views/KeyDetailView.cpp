#include "KeyDetailView.h"

#include "AttemptsModel.h"
#include "EvidenceView.h"
#include "MarkDialog.h"
#include "JsonView.h"
#include "Log.h"
#include "MessageBar.h"
#include "RecordFieldsModel.h"
#include "RecordStatus.h"
#include "StatusTone.h"
#include "Theme.h"
#include "TextEscape.h"
#include "TicketsModel.h"
#include "TimelineModel.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace triage {

namespace {

QLabel *sectionTitle(const QString &text, QWidget *parent)
{
    auto *l = new QLabel(text, parent);
    l->setStyleSheet(QStringLiteral("font-weight: bold; padding: 2px 2px;"));
    return l;
}

} // namespace

KeyDetailView::KeyDetailView(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_fieldsModel(new RecordFieldsModel(this)),
      m_timelineModel(new TimelineModel(this)), m_ticketsModel(new TicketsModel(this)), m_attemptsModel(new AttemptsModel(this))
{
    setObjectName(QStringLiteral("keyDetailView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    m_placeholder = new QLabel(QStringLiteral("Select a row, or paste a key into \u201cGo to key\u201d,\nto see everything "
                                              "the three stores know about it."),
                               m_stack);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setStyleSheet(QStringLiteral("color: %1; font-size: 11pt;").arg(theme::mutedText().name()));
    m_stack->addWidget(m_placeholder);

    auto *content = new QWidget(m_stack);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(6, 4, 6, 4);
    contentLayout->setSpacing(6);
    contentLayout->addWidget(buildHeader());

    auto *vertical = new QSplitter(Qt::Vertical, content);
    vertical->setObjectName(QStringLiteral("detailSplitter"));
    vertical->setChildrenCollapsible(false);
    auto *top = new QSplitter(Qt::Horizontal, vertical);
    top->setChildrenCollapsible(false);
    top->addWidget(buildRecordPanel());
    top->addWidget(buildSnapshotPanel());
    top->setStretchFactor(0, 5);
    top->setStretchFactor(1, 6);
    top->setSizes({350, 400});
    vertical->addWidget(top);
    vertical->addWidget(buildTabs());
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    vertical->setSizes({390, 330});
    contentLayout->addWidget(vertical, 1);
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(m_placeholder);
}

KeyDetailView::~KeyDetailView() = default;

QWidget *KeyDetailView::buildHeader()
{
    auto *header = new QFrame(this);
    header->setObjectName(QStringLiteral("detailHeader"));
    header->setStyleSheet(QStringLiteral("QFrame#detailHeader { background: #f7f8fa; border: 1px solid #e1e4e8; border-radius: 5px; }"));
    auto *layout = new QVBoxLayout(header);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(5);
    m_keyLabel = new QLabel(header);
    m_keyLabel->setObjectName(QStringLiteral("detailKey"));
    m_keyLabel->setFont([] {
        QFont f = theme::monospaceFont(0.5);
        f.setBold(true);
        return f;
    }());
    m_keyLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_keyLabel->setMinimumWidth(100);
    m_keyLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_keyLabel);
    auto *row = new QHBoxLayout;
    row->setSpacing(10);
    m_statusBadge = new QLabel(header);
    m_statusBadge->setObjectName(QStringLiteral("detailStatus"));
    m_metaLabel = new QLabel(header);
    m_metaLabel->setObjectName(QStringLiteral("detailMeta"));
    m_metaLabel->setStyleSheet(QStringLiteral("color: #4a4f55;"));
    m_metaLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_metaLabel->setWordWrap(true); // a long line wraps; it never widens the window
    m_loadingLabel = new QLabel(QStringLiteral("loading\u2026"), header);
    m_loadingLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_loadingLabel->setVisible(false);
    row->addWidget(m_statusBadge);
    row->addWidget(m_metaLabel, 1);
    row->addWidget(m_loadingLabel);
    layout->addLayout(row);
    layout->addWidget(buildActions());
    m_actionBar = new MessageBar(header);
    m_actionBar->setObjectName(QStringLiteral("actionBar"));
    layout->addWidget(m_actionBar);
    m_conflictBar = new MessageBar(header);
    m_conflictBar->setObjectName(QStringLiteral("conflictBar"));
    m_conflictBar->setActionText(QStringLiteral("Reload"));
    connect(m_conflictBar, &MessageBar::actionTriggered, this, [this] {
        m_conflictBar->clearMessage();
        reload();
    });
    layout->addWidget(m_conflictBar);
    m_messageLayout = new QVBoxLayout;
    m_messageLayout->setSpacing(4);
    layout->addLayout(m_messageLayout);
    return header;
}

QWidget *KeyDetailView::buildActions()
{
    auto *box = new QWidget(this);
    auto *row = new QHBoxLayout(box);
    row->setContentsMargins(0, 2, 0, 0);
    row->setSpacing(6);
    m_queryButton = new QPushButton(QStringLiteral("Query upstream"), box);
    m_queryButton->setObjectName(QStringLiteral("queryUpstream"));
    m_markSuccessButton = new QPushButton(QStringLiteral("Mark SUCCESS\u2026"), box);
    m_markSuccessButton->setObjectName(QStringLiteral("markSuccess"));
    m_markFailedButton = new QPushButton(QStringLiteral("Mark FAILED\u2026"), box);
    m_markFailedButton->setObjectName(QStringLiteral("markFailed"));
    m_readOnlyNote = new QLabel(box);
    m_readOnlyNote->setObjectName(QStringLiteral("readOnlyNote"));
    m_readOnlyNote->setStyleSheet(QStringLiteral("color: %1; font-style: italic;").arg(theme::mutedText().name()));
    row->addWidget(m_queryButton);
    row->addWidget(m_markSuccessButton);
    row->addWidget(m_markFailedButton);
    row->addWidget(m_readOnlyNote);
    row->addStretch(1);
    connect(m_queryButton, &QPushButton::clicked, this, &KeyDetailView::queryUpstream);
    connect(m_markSuccessButton, &QPushButton::clicked, this, [this] { openMarkDialog(Success); });
    connect(m_markFailedButton, &QPushButton::clicked, this, [this] { openMarkDialog(Failed); });
    return box;
}

QWidget *KeyDetailView::buildRecordPanel()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(sectionTitle(QStringLiteral("idempotency_record"), panel));
    m_fieldsStack = new QStackedWidget(panel);
    m_fieldsTable = new QTableView(m_fieldsStack);
    m_fieldsTable->setObjectName(QStringLiteral("recordFields"));
    m_fieldsTable->setModel(m_fieldsModel);
    theme::setupTable(m_fieldsTable, Qt::ElideMiddle);
    theme::setColumnWidths(m_fieldsTable, {122});
    m_noRecordLabel = new QLabel(m_fieldsStack);
    m_noRecordLabel->setAlignment(Qt::AlignCenter);
    m_noRecordLabel->setWordWrap(true);
    m_noRecordLabel->setStyleSheet(QStringLiteral("color: %1; font-style: italic;").arg(theme::mutedText().name()));
    m_fieldsStack->addWidget(m_fieldsTable);
    m_fieldsStack->addWidget(m_noRecordLabel);
    layout->addWidget(m_fieldsStack, 1);
    return panel;
}

QWidget *KeyDetailView::buildSnapshotPanel()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *row = new QHBoxLayout;
    row->addWidget(sectionTitle(QStringLiteral("Snapshot"), panel));
    m_snapshotChoice = new QComboBox(panel);
    m_snapshotChoice->setObjectName(QStringLiteral("snapshotChoice"));
    m_snapshotChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_snapshotChoice->setToolTip(QStringLiteral("result_snapshot, or the state before / after of one intent attempt"));
    row->addWidget(m_snapshotChoice);
    row->addStretch(1);
    layout->addLayout(row);
    m_snapshot = new JsonView(panel);
    m_snapshot->setObjectName(QStringLiteral("snapshotView"));
    layout->addWidget(m_snapshot, 1);
    connect(m_snapshotChoice, &QComboBox::currentIndexChanged, this, &KeyDetailView::showSnapshotChoice);
    return panel;
}

QWidget *KeyDetailView::buildTabs()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("detailTabs"));

    m_timelineTable = new QTableView(m_tabs);
    m_timelineTable->setObjectName(QStringLiteral("timelineTable"));
    m_timelineTable->setModel(m_timelineModel);
    theme::setupTable(m_timelineTable);
    theme::setColumnWidths(m_timelineTable, {196, 168, 132, 58});
    // The summary is what operators read: wrapped on two lines (the tooltip has all of
    // it). Rows have one fixed height, never measured per row: a key with 20,000 attempts
    // has 40,000 events, and sizing rows to their contents laid out every one of them
    // before the first paint (seconds). "kind" repeats the summary's first word, so the
    // column stays in the model but not on screen.
    m_timelineTable->setColumnHidden(TimelineModel::KindColumn, true);
    m_timelineTable->setWordWrap(true);
    m_timelineTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_timelineTable->verticalHeader()->setDefaultSectionSize(2 * QFontMetrics(m_timelineTable->font()).lineSpacing() + 8);
    m_tabs->addTab(m_timelineTable, QStringLiteral("Timeline"));

    auto *tickets = new QSplitter(Qt::Vertical, m_tabs);
    tickets->setChildrenCollapsible(false);
    m_ticketsTable = new QTableView(tickets);
    m_ticketsTable->setObjectName(QStringLiteral("ticketsTable"));
    m_ticketsTable->setModel(m_ticketsModel);
    theme::setupTable(m_ticketsTable);
    theme::setColumnWidths(m_ticketsTable, {52, 96, 80, 210, 222, 222});
    m_payload = new JsonView(tickets);
    m_payload->setObjectName(QStringLiteral("ticketPayload"));
    tickets->addWidget(m_ticketsTable);
    tickets->addWidget(m_payload);
    tickets->setSizes({120, 200});
    m_tabs->addTab(tickets, QStringLiteral("Tickets"));
    connect(m_ticketsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showTicket(current.row()); });

    auto *attempts = new QSplitter(Qt::Vertical, m_tabs);
    attempts->setChildrenCollapsible(false);
    m_attemptsTable = new QTableView(attempts);
    m_attemptsTable->setObjectName(QStringLiteral("attemptsTable"));
    m_attemptsTable->setModel(m_attemptsModel);
    theme::setupTable(m_attemptsTable);
    theme::setColumnWidths(m_attemptsTable, {52, 30, 100, 60, 130, 150, 80, 222, 222});
    m_attemptTabs = new QTabWidget(attempts);
    m_attemptTabs->setDocumentMode(true);
    const QString titles[4] = {QStringLiteral("Request"), QStringLiteral("Response"), QStringLiteral("State before"),
                               QStringLiteral("State after")};
    for (int i = 0; i < 4; ++i) {
        m_attemptJson[i] = new JsonView(m_attemptTabs);
        m_attemptJson[i]->setObjectName(QStringLiteral("attemptJson%1").arg(i));
        m_attemptTabs->addTab(m_attemptJson[i], titles[i]);
    }
    attempts->addWidget(m_attemptsTable);
    attempts->addWidget(m_attemptTabs);
    attempts->setSizes({130, 200});
    m_tabs->addTab(attempts, QStringLiteral("Intent attempts"));
    connect(m_attemptsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showAttempt(current.row()); });

    m_evidence = new EvidenceView(m_tabs);
    m_tabs->addTab(m_evidence, QStringLiteral("Upstream"));
    connect(m_evidence, &EvidenceView::applySuggestionRequested, this, &KeyDetailView::applySuggestion);

    auto *audit = new QSplitter(Qt::Vertical, m_tabs);
    audit->setChildrenCollapsible(false);
    m_auditModel = new QStandardItemModel(0, 5, this);
    m_auditModel->setHorizontalHeaderLabels({QStringLiteral("at (UTC)"), QStringLiteral("operator"), QStringLiteral("action"),
                                             QStringLiteral("outcome"), QStringLiteral("reason")});
    m_auditTable = new QTableView(audit);
    m_auditTable->setObjectName(QStringLiteral("auditTable"));
    m_auditTable->setModel(m_auditModel);
    m_auditTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    theme::setupTable(m_auditTable);
    theme::setColumnWidths(m_auditTable, {196, 90, 120, 80});
    m_auditEvidence = new JsonView(audit);
    m_auditEvidence->setObjectName(QStringLiteral("auditEvidence"));
    audit->addWidget(m_auditTable);
    audit->addWidget(m_auditEvidence);
    audit->setSizes({130, 200});
    m_tabs->addTab(audit, QStringLiteral("Audit"));
    connect(m_auditTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showAuditEntry(current.row()); });
    return m_tabs;
}

void KeyDetailView::loadKey(const QString &key)
{
    const QString k = key.trimmed();
    if (k.isEmpty()) {
        clear();
        return;
    }
    if (k != m_key) {
        m_actionBar->clearMessage();
        m_conflictBar->clearMessage();
        m_evidence->clear(QStringLiteral("Not queried yet. \u201cQuery upstream\u201d asks the business system's own query "
                                         "API about this key; the answer is evidence for the suggested verdict."));
    }
    m_key = k;
    m_hasDetail = false;
    const quint64 generation = ++m_generation;
    m_keyLabel->setText(k);
    m_keyLabel->setToolTip(k);
    m_stack->setCurrentIndex(1);
    setLoading(true);
    logger("views")->debug("loading the detail of {}", k);
    whenReady(m_workspace->loadKeyDetail(k), this, [this, generation](const KeyDetail &d) {
        if (generation != m_generation)
            return; // the operator moved on to another key meanwhile
        apply(d);
    });
}

void KeyDetailView::reload()
{
    if (!m_key.isEmpty())
        loadKey(m_key);
}

void KeyDetailView::clear()
{
    ++m_generation;
    m_key.clear();
    m_hasDetail = false;
    m_detail = KeyDetail{};
    setLoading(false);
    m_stack->setCurrentWidget(m_placeholder);
}

void KeyDetailView::setLoading(bool loading)
{
    m_loadingLabel->setVisible(loading);
    const bool changed = m_loading != loading;
    m_loading = loading;
    updateActions();
    if (changed)
        emit loadingChanged(loading);
}

void KeyDetailView::addMessage(int level, const QString &text)
{
    auto *bar = new MessageBar(this);
    bar->showMessage(MessageBar::Level(level), text);
    m_messageLayout->addWidget(bar);
}

void KeyDetailView::clearMessages()
{
    while (QLayoutItem *item = m_messageLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

QStringList KeyDetailView::messages() const
{
    QStringList out;
    for (int i = 0; i < m_messageLayout->count(); ++i)
        if (auto *bar = qobject_cast<MessageBar *>(m_messageLayout->itemAt(i)->widget()))
            out << bar->text(); // as shown (MessageBar::sentence())
    return out;
}

void KeyDetailView::showRecordedQuery(const KeyDetail &d)
{
    const std::optional<UpstreamCheck> recorded = latestRecordedCheck(d);
    if (!recorded)
        return;
    const auto &shown = m_evidence->check();
    const bool liveIsNewer = shown && shown->detail.idemKey == d.idemKey && shown->recordedAt.isEmpty()
        && (shown->auditId == 0 || shown->auditId >= recorded->auditId);
    if (!liveIsNewer)
        m_evidence->setCheck(*recorded);
}

void KeyDetailView::apply(const KeyDetail &fresh)
{
    // A reload whose store failed keeps what that store showed (marked as earlier).
    m_detail = keepEarlierParts(fresh, m_detail);
    const KeyDetail &d = m_detail;
    showRecordedQuery(d);
    const auto warning = int(MessageBar::Level::Warning);
    const auto error = int(MessageBar::Level::Error);

    // Header: status badge, key, what we know at a glance.
    QString statusText;
    Tone tone = Tone::Muted;
    if (d.record) {
        statusText = d.record->statusText;
        tone = recordStatusTone(statusText, d.record->stale);
        if (d.record->stale)
            statusText = QStringLiteral("PROCESSING \u00b7 stale");
    } else if (!d.attempts.isEmpty()) {
        statusText = QStringLiteral("no record \u00b7 %1").arg(d.attempts.last().status.value_or(QStringLiteral("NULL")));
        tone = intentStatusTone(d.attempts.last().status.value_or(QStringLiteral("NULL")));
    } else {
        statusText = QStringLiteral("no record");
    }
    m_statusBadge->setText(statusText);
    m_statusBadge->setStyleSheet(theme::badgeStyleSheet(tone));
    QStringList meta;
    if (d.record) {
        meta << d.record->bizType.value_or(QStringLiteral("biz_type NULL"));
        if (!d.record->tenant.isEmpty())
            meta << QStringLiteral("tenant %1").arg(d.record->tenant);
        meta << QStringLiteral("updated %1 ago").arg(humanDuration(d.record->ageSeconds));
    }
    // A store that failed is unknown, never "0".
    auto part = [&](DbRole role, qsizetype n, const QString &noun, const QString &nouns) {
        if (!d.errors.contains(role))
            return countText(n, noun);
        if (d.keptFromEarlier.contains(role))
            return QStringLiteral("%1 as read earlier (%2 failed now)").arg(countText(n, noun), roleTitle(role));
        return QStringLiteral("%1: unknown (%2 failed)").arg(nouns, roleTitle(role));
    };
    meta << part(DbRole::Ticket, d.tickets.size(), QStringLiteral("ticket"), QStringLiteral("tickets"));
    meta << part(DbRole::Intent, d.attempts.size(), QStringLiteral("intent attempt"), QStringLiteral("intent attempts"));
    m_metaLabel->setText(meta.join(QStringLiteral("  \u00b7  ")));

    clearMessages();
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it) {
        const QString part = it.key() == DbRole::Idempotency ? QStringLiteral("the record")
            : it.key() == DbRole::Intent                     ? QStringLiteral("the intent attempts")
                                                             : QStringLiteral("the tickets");
        if (d.keptFromEarlier.contains(it.key()))
            addMessage(error, QStringLiteral("%1 \u2014 %2: shown as read earlier (this refresh failed; they may have changed "
                                             "since); everything else below is current.")
                                  .arg(it->message, part));
        else
            addMessage(error, QStringLiteral("%1 \u2014 %2: unknown (the %3 failed); everything else below is current.")
                                  .arg(it->message, part, roleTitle(it.key())));
    }
    if (d.record) {
        const RecordDetail &r = *d.record;
        if (r.stale)
            addMessage(warning, QStringLiteral("Stale: PROCESSING for %1, longer than the %2 s processing timeout. The outcome "
                                               "is UNKNOWN: the side effect may or may not have happened.")
                                    .arg(humanDuration(r.ageSeconds))
                                    .arg(r.processingTimeoutS));
        if (r.statusText.startsWith(QLatin1String("UNKNOWN_CODE_")) || r.statusText == QLatin1String("NULL"))
            addMessage(warning, QStringLiteral("Status %1 is not a code the console knows (0 PROCESSING, 1 SUCCESS, 2 FAILED): "
                                               "treat the outcome as unknown.")
                                    .arg(r.statusText));
    } else if (!d.errors.contains(DbRole::Idempotency)) {
        if (d.tickets.isEmpty() && d.attempts.isEmpty() && d.errors.isEmpty())
            addMessage(int(MessageBar::Level::Info), QStringLiteral("No idempotency record, ticket or intent-log attempt "
                                                                    "carries this key."));
        else
            addMessage(warning, QStringLiteral("No idempotency record carries this key."));
    }
    for (const QString &w : d.warnings)
        addMessage(warning, w.endsWith(QLatin1Char('.')) ? w : w + QLatin1Char('.'));

    // Record fields.
    m_fieldsModel->setRecord(d.record);
    if (d.record) {
        m_fieldsStack->setCurrentWidget(m_fieldsTable);
    } else {
        m_noRecordLabel->setText(d.errors.contains(DbRole::Idempotency) ? QStringLiteral("The idempotency database failed: see above.")
                                                                        : QStringLiteral("No idempotency_record row has this key."));
        m_fieldsStack->setCurrentWidget(m_noRecordLabel);
    }

    // Snapshot choices: result_snapshot, then each attempt's before / after state.
    m_snapshotSources.clear();
    if (d.record)
        m_snapshotSources.append({QStringLiteral("result_snapshot"), d.record->resultSnapshot});
    int preferred = d.record && d.record->resultSnapshot ? 0 : -1;
    for (int i = 0; i < d.attempts.size(); ++i) {
        const IntentAttempt &a = d.attempts[i];
        const QString prefix = QStringLiteral("attempt %1 (#%2)").arg(i + 1).arg(a.id);
        if (a.stateBefore) {
            m_snapshotSources.append({prefix + QStringLiteral(" \u00b7 state_before"), a.stateBefore});
            if (!(d.record && d.record->resultSnapshot))
                preferred = int(m_snapshotSources.size()) - 1;
        }
        if (a.stateAfter) {
            m_snapshotSources.append({prefix + QStringLiteral(" \u00b7 state_after"), a.stateAfter});
            if (!(d.record && d.record->resultSnapshot))
                preferred = int(m_snapshotSources.size()) - 1;
        }
    }
    {
        const QSignalBlocker block(m_snapshotChoice);
        m_snapshotChoice->clear();
        for (const SnapshotSource &s : m_snapshotSources)
            m_snapshotChoice->addItem(s.title);
        m_snapshotChoice->setCurrentIndex(qMax(0, preferred));
    }
    if (m_snapshotSources.isEmpty())
        m_snapshot->clear(QStringLiteral("No snapshot: there is no record and no intent attempt."));
    else
        showSnapshotChoice(m_snapshotChoice->currentIndex());


    // Tabs.
    m_timelineModel->setEvents(d.timeline);
    m_ticketsModel->setTickets(d.tickets);
    m_attemptsModel->setAttempts(d.attempts);
    m_tabs->setTabText(0, QStringLiteral("Timeline (%1)").arg(d.timeline.size()));
    auto tabCount = [&](DbRole role, qsizetype n) {
        if (!d.errors.contains(role))
            return QString::number(n);
        return d.keptFromEarlier.contains(role) ? QStringLiteral("%1, earlier").arg(n) : QStringLiteral("unknown");
    };
    m_tabs->setTabText(1, QStringLiteral("Tickets (%1)").arg(tabCount(DbRole::Ticket, d.tickets.size())));
    m_tabs->setTabText(2, QStringLiteral("Intent attempts (%1)").arg(tabCount(DbRole::Intent, d.attempts.size())));
    if (!d.tickets.isEmpty())
        m_ticketsTable->setCurrentIndex(m_ticketsModel->index(0, 0));
    else
        m_payload->clear(d.errors.contains(DbRole::Ticket) ? QStringLiteral("The ticket database failed: see above.")
                                                           : QStringLiteral("No ticket row carries this key."));
    if (!d.attempts.isEmpty()) {
        m_attemptsTable->setCurrentIndex(m_attemptsModel->index(int(d.attempts.size()) - 1, 0));
    } else {
        for (JsonView *v : m_attemptJson)
            v->clear(d.errors.contains(DbRole::Intent) ? QStringLiteral("The intent-log database failed: see above.")
                                                       : QStringLiteral("No intent-log attempt for this key."));
    }

    // Audit: operator actions on this key.
    m_auditModel->removeRows(0, m_auditModel->rowCount());
    for (const AuditEntry &a : d.audit) {
        QList<QStandardItem *> items;
        for (const QString &text : {a.at, a.operatorName, a.action, a.outcome, a.reason}) {
            auto *item = new QStandardItem(text);
            item->setToolTip(text);
            items << item;
        }
        m_auditModel->appendRow(items);
    }
    m_tabs->setTabText(4, QStringLiteral("Audit (%1)").arg(d.audit.size()));
    if (!d.audit.isEmpty())
        m_auditTable->setCurrentIndex(m_auditModel->index(int(d.audit.size()) - 1, 0));
    else
        m_auditEvidence->clear(QStringLiteral("No operator action on this key yet."));

    m_hasDetail = true;
    setLoading(false);
    emit detailLoaded(d.idemKey);
}

void KeyDetailView::showSnapshotChoice(int index)
{
    if (index < 0 || index >= m_snapshotSources.size())
        return;
    m_snapshot->setJsonText(m_snapshotSources[index].title, m_snapshotSources[index].text);
}

void KeyDetailView::showTicket(int row)
{
    if (row < 0 || row >= m_ticketsModel->rowCount())
        return;
    const TicketRow &t = m_ticketsModel->ticket(row);
    m_payload->setJsonText(QStringLiteral("ticket #%1 \u00b7 payload").arg(t.id), t.payload);
}

void KeyDetailView::showAttempt(int row)
{
    if (row < 0 || row >= m_attemptsModel->rowCount())
        return;
    const IntentAttempt &a = m_attemptsModel->attempt(row);
    const QString prefix = QStringLiteral("attempt %1 (#%2) \u00b7 ").arg(row + 1).arg(a.id);
    m_attemptJson[0]->setJsonText(prefix + QStringLiteral("request"), a.request);
    m_attemptJson[1]->setJsonText(prefix + QStringLiteral("response"), a.response);
    m_attemptJson[2]->setJsonText(prefix + QStringLiteral("state_before"), a.stateBefore);
    m_attemptJson[3]->setJsonText(prefix + QStringLiteral("state_after"), a.stateAfter);
}

void KeyDetailView::showAuditEntry(int row)
{
    if (row < 0 || row >= m_detail.audit.size())
        return;
    const AuditEntry &a = m_detail.audit[row];
    m_auditEvidence->setJsonText(QStringLiteral("audit #%1 \u00b7 %2 \u00b7 evidence").arg(a.id).arg(a.action),
                                 a.evidence.isEmpty() ? std::nullopt : std::optional<QString>(a.evidence));
}

void KeyDetailView::setUpstreamClient(UpstreamClient *client)
{
    m_upstream = client;
    updateActions();
}

void KeyDetailView::updateActions()
{
    const bool readOnly = m_workspace->config().readOnly;
    const bool ready = m_hasDetail && !m_loading && !m_markBusy;
    const std::optional<RecordDetail> &r = m_detail.record;

    m_queryButton->setEnabled(ready && m_upstream && !m_queryBusy);
    m_queryButton->setToolTip(!m_upstream ? QStringLiteral("No upstream query API is configured for this workspace")
                              : m_queryBusy ? QStringLiteral("A query is running")
                                            : QStringLiteral("Ask the business system's own query API about this key (recorded "
                                                             "in the audit trail; changes nothing)"));

    QString why; // why neither mark is possible
    if (readOnly)
        why = QStringLiteral("Read-only workspace: marks are disabled");
    else if (!r)
        why = QStringLiteral("No idempotency record carries this key");
    else if (r->statusCode == Success)
        why = QStringLiteral("SUCCESS is final: its snapshot was returned to callers (DESIGN.md \u00a72)");
    else if (r->statusCode != Processing && r->statusCode != Failed)
        why = QStringLiteral("Status %1 is not one a mark starts from (PROCESSING or FAILED)").arg(r->statusText);
    const bool failedRecord = r && r->statusCode == Failed;
    m_markSuccessButton->setText(failedRecord ? QStringLiteral("Correct to SUCCESS\u2026") : QStringLiteral("Mark SUCCESS\u2026"));
    m_markSuccessButton->setEnabled(ready && why.isEmpty());
    m_markSuccessButton->setToolTip(!why.isEmpty() ? why
                                    : failedRecord ? QStringLiteral("FAILED \u2192 SUCCESS: a side effect was found after all")
                                                   : QStringLiteral("PROCESSING \u2192 SUCCESS with a snapshot (compare-and-set)"));
    QString failedWhy = !why.isEmpty() ? why : failedRecord ? QStringLiteral("The record is already FAILED") : QString();
    if (failedWhy.isEmpty() && m_hasDetail) {
        // The backend's rule, asked with the most an operator could add (a long reason and
        // an override): what it still refuses, no dialog can make possible.
        const MarkDecision best = decideMark(markFactsFrom(r, markEvidenceOf(m_detail)), Failed,
                                             QString(kOverrideReasonMinLength, QLatin1Char('x')), true, true, QString());
        if (!best.allowed)
            failedWhy = QStringLiteral("Refused by the rules: %1").arg(best.reason);
    }
    m_markFailedButton->setEnabled(ready && failedWhy.isEmpty());
    m_markFailedButton->setToolTip(failedWhy.isEmpty() ? QStringLiteral("PROCESSING \u2192 FAILED: confirmed no side effect "
                                                                        "(compare-and-set)")
                                                       : failedWhy);
    m_readOnlyNote->setText(readOnly ? QStringLiteral("Read-only workspace: queries are not recorded and nothing can be marked.")
                                     : QString());
    m_readOnlyNote->setVisible(readOnly);
}

bool KeyDetailView::queryUpstream()
{
    if (!m_upstream || !m_hasDetail || m_queryBusy)
        return false;
    m_queryBusy = true;
    updateActions();
    m_evidence->setBusy(true);
    m_tabs->setCurrentWidget(m_evidence);
    const QString key = m_key;
    whenReady(checkUpstream(*m_workspace, *m_upstream, key), this, [this, key](const UpstreamCheck &check) {
        m_queryBusy = false;
        if (key != m_key) {
            updateActions();
            return; // the operator moved on; the query is in the audit trail of its key
        }
        m_evidence->setCheck(check);
        m_tabs->setCurrentWidget(m_evidence);
        const UpstreamEvidence &e = check.evidence;
        m_actionBar->showMessage(e.isUnusable() ? MessageBar::Level::Warning : MessageBar::Level::Info,
                                 QStringLiteral("Upstream: %1 \u2014 suggested verdict %2 (\u00a76 row %3). See the Upstream tab.")
                                     .arg(upstreamClassName(e.classification), verdictName(check.verdict.kind))
                                     .arg(check.verdict.row));
        emit upstreamChecked(key);
        if (check.auditId)
            reload(); // the query is on the timeline and in the audit tab now
        else
            updateActions();
    });
    return true;
}

MarkDialog *KeyDetailView::openMarkDialog(int toStatus)
{
    updateActions();
    QPushButton *button = toStatus == Success ? m_markSuccessButton : m_markFailedButton;
    if (!button->isEnabled() || !m_detail.record)
        return nullptr;
    auto *dialog = new MarkDialog(m_detail, toStatus, m_workspace->config().operatorName, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (const auto &check = m_evidence->check(); check && check->detail.idemKey == m_key && check->recordedAt.isEmpty()
        && check->evidence.classification == UpstreamClass::Found && !check->evidence.foundObjects.isEmpty())
        dialog->addUpstreamObject(check->evidence.foundObjects.first());
    connect(dialog, &QDialog::accepted, this, [this, dialog] { submitMark(dialog->request()); });
    dialog->open();
    return dialog;
}

MarkDialog *KeyDetailView::applySuggestion()
{
    const auto &check = m_evidence->check();
    if (!check || check->detail.idemKey != m_key)
        return nullptr;
    const Verdict &v = check->verdict;
    if (v.kind != VerdictKind::Success && v.kind != VerdictKind::Failed)
        return nullptr;
    MarkDialog *dialog = openMarkDialog(v.kind == VerdictKind::Success ? Success : Failed);
    if (dialog)
        dialog->prefill(v.snapshot, v.snapshotSource, QString::fromUtf8(check->toJson()),
                        QStringLiteral("Suggested verdict %1 (\u00a76 row %2): %3").arg(verdictName(v.kind)).arg(v.row).arg(v.why));
    return dialog;
}

void KeyDetailView::submitMark(const MarkRequest &request)
{
    m_markBusy = true;
    updateActions();
    m_actionBar->showMessage(MessageBar::Level::Info, QStringLiteral("Marking %1 %2\u2026")
                                                          .arg(request.idemKey, recordStatusText(QVariant(request.toStatus))));
    m_conflictBar->clearMessage();
    whenReady(markRecord(*m_workspace, request), this, [this](const Outcome<MarkResult> &outcome) { onMarkResult(outcome); });
}

void KeyDetailView::onMarkResult(const Outcome<MarkResult> &outcome)
{
    m_markBusy = false;
    if (!outcome.ok()) {
        const QString message = outcome.error ? outcome.error->message : QStringLiteral("unknown error");
        m_actionBar->showMessage(MessageBar::Level::Error, QStringLiteral("The mark failed: %1 \u2014 nothing was changed, or "
                                                                          "see the audit trail.")
                                                               .arg(message));
        updateActions();
        emit markFinished(int(MarkResult::Kind::Error), message);
        return;
    }
    const MarkResult &r = *outcome;
    const QString warnings = r.warnings.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(r.warnings.join(QStringLiteral("; ")));
    switch (r.kind) {
    case MarkResult::Kind::Applied:
        m_actionBar->showMessage(MessageBar::Level::Info, QStringLiteral("\u2714 Applied: %1 (audit #%2)%3")
                                                              .arg(r.message)
                                                              .arg(r.auditId)
                                                              .arg(warnings));
        emit recordChanged(r.idemKey);
        break;
    case MarkResult::Kind::DryRun:
        m_actionBar->showMessage(MessageBar::Level::Info, QStringLiteral("Dry run: %1").arg(r.message));
        break;
    case MarkResult::Kind::Refused:
        m_actionBar->showMessage(MessageBar::Level::Warning, QStringLiteral("Refused: %1").arg(r.message));
        break;
    case MarkResult::Kind::Error:
        m_actionBar->showMessage(MessageBar::Level::Error, QStringLiteral("Error: %1").arg(r.message));
        break;
    case MarkResult::Kind::Conflict: {
        m_actionBar->clearMessage();
        QString now = QStringLiteral("the record no longer exists");
        if (r.current)
            now = QStringLiteral("it is now %1, updated_at %2%3")
                      .arg(r.current->statusText, r.current->updatedAt,
                           r.current->hasVersionColumn && r.current->version
                               ? QStringLiteral(", version %1").arg(*r.current->version)
                               : QString());
        const QString who = r.changedBy
            ? QStringLiteral("Changed by %1 at %2 (%3 %4 \u2192 %5: \u201c%6\u201d).")
                  .arg(r.changedBy->operatorName, r.changedBy->at, r.changedBy->action, r.changedBy->fromState,
                       r.changedBy->toState, r.changedBy->reason)
            : QStringLiteral("No operator action is recorded: an agent or another tool changed it.");
        m_conflictBar->showMessage(MessageBar::Level::Error,
                                   QStringLiteral("Conflict: nothing was changed \u2014 the record changed since you loaded it; "
                                                  "%1. %2 Reload, check again and decide anew.")
                                       .arg(now, who));
        break;
    }
    }
    emit markFinished(int(r.kind), r.message);
    if (r.kind != MarkResult::Kind::Conflict && r.kind != MarkResult::Kind::DryRun)
        reload(); // the new status, and the audit row on the timeline
    else
        updateActions();
}

} // namespace triage
