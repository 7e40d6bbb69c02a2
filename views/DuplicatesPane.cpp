#include "DuplicatesPane.h"

#include "EnvironmentBand.h"

#include "ClaimGuard.h"
#include "ClaimQuestion.h"
#include "CompensateDialog.h"
#include "CompensationRules.h"
#include "Compensation.h"
#include "DuplicateGroupsModel.h"
#include "EscalationService.h"
#include "Log.h"
#include "MessageBar.h"
#include "RecordStatus.h"
#include "Theme.h"
#include "TimeText.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace triage {

DuplicatesPane::DuplicatesPane(Workspace *workspace, const CompensationConfigs &configs, QWidget *parent)
    : QWidget(parent),
      m_workspace(workspace),
      m_configs(configs),
      m_runner(std::make_shared<CompensationRunner>(*workspace, configs)),
      m_model(new DuplicateGroupsModel(workspace, this))
{
    setObjectName(QStringLiteral("duplicatesPane"));
    m_bar = new MessageBar(this);
    m_bar->setObjectName(QStringLiteral("duplicatesMessage"));

    m_tenant = new QLineEdit(this);
    m_tenant->setObjectName(QStringLiteral("tenantFilter"));
    m_tenant->setPlaceholderText(QStringLiteral("tenant"));
    m_tenant->setClearButtonEnabled(true);
    m_tenant->setMaximumWidth(160);
    m_key = new QLineEdit(this);
    m_key->setObjectName(QStringLiteral("keyFilter"));
    m_key->setPlaceholderText(QStringLiteral("key contains…"));
    m_key->setClearButtonEnabled(true);
    m_resolved = new QCheckBox(QStringLiteral("Include resolved"), this);
    m_resolved->setObjectName(QStringLiteral("includeResolved"));
    m_resolved->setToolTip(QStringLiteral("Also groups with at most one ticket that is not CANCELLED"));
    m_refresh = new QPushButton(QStringLiteral("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("groupCount"));
    m_scanText = new QLabel(this);
    m_scanText->setObjectName(QStringLiteral("scanText"));
    m_scanText->setTextFormat(Qt::PlainText);
    m_scanBar = new QProgressBar(this);
    m_scanBar->setObjectName(QStringLiteral("scanProgress"));
    m_scanBar->setRange(0, 1000);
    m_scanBar->setTextVisible(false);
    m_scanBar->setMaximumWidth(220);
    m_scanBar->setMaximumHeight(10);
    m_scanFurther = new QPushButton(QStringLiteral("Scan further"), this);
    m_scanFurther->setObjectName(QStringLiteral("scanFurtherButton"));
    m_scanFurther->setToolTip(QStringLiteral("Scan older tickets for about a second more"));
    m_scanAll = new QPushButton(QStringLiteral("Scan all"), this);
    m_scanAll->setObjectName(QStringLiteral("scanAllButton"));
    m_scanAll->setToolTip(QStringLiteral("Every remaining group in one statement over the ticket table (about the cost of a "
                                         "whole-table GROUP BY: seconds per million tickets); Stop cancels it and keeps what is shown"));
    m_stopScan = new QPushButton(QStringLiteral("Stop"), this);
    m_stopScan->setObjectName(QStringLiteral("stopScanButton"));
    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(300);

    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(QStringLiteral("Tenant:"), this));
    filters->addWidget(m_tenant);
    filters->addWidget(new QLabel(QStringLiteral("Key:"), this));
    filters->addWidget(m_key, 1);
    filters->addWidget(m_resolved);
    filters->addWidget(m_refresh);
    filters->addSpacing(12);
    filters->addWidget(m_count);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("groupsTable"));
    m_table->setObjectName(QStringLiteral("groupsTable"));
    m_table->setModel(m_model);
    theme::setupTable(m_table);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    theme::setColumnWidths(m_table, {300, 60, 50, 130, 150, 150});

    auto *detail = new QWidget(this);
    m_detailTitle = new QLabel(detail);
    m_detailTitle->setObjectName(QStringLiteral("groupTitle"));
    m_detailTitle->setTextFormat(Qt::RichText);
    m_detailTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_openKey = new QPushButton(QStringLiteral("Open key detail"), detail);
    m_openKey->setObjectName(QStringLiteral("openKeyButton"));
    m_tickets = new QTableWidget(detail);
    m_tickets->setObjectName(QStringLiteral("ticketsSideBySide"));
    m_tickets->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tickets->setSelectionMode(QAbstractItemView::NoSelection);
    m_tickets->setWordWrap(false);
    m_tickets->horizontalHeader()->setDefaultSectionSize(220);
    m_tickets->verticalHeader()->setDefaultSectionSize(m_tickets->fontMetrics().height() + 8);
    m_canonical = new QLabel(detail);
    m_canonical->setObjectName(QStringLiteral("canonicalReason"));
    m_canonical->setWordWrap(true);
    m_canonical->setTextFormat(Qt::RichText);
    m_compensate = new QPushButton(QStringLiteral("Compensate extras…"), detail);
    m_compensate->setObjectName(QStringLiteral("compensateButton"));
    {
        auto *head = new QHBoxLayout;
        head->addWidget(m_detailTitle, 1);
        head->addWidget(m_openKey);
        auto *foot = new QHBoxLayout;
        foot->addWidget(m_canonical, 1);
        foot->addWidget(m_compensate, 0, Qt::AlignTop);
        auto *l = new QVBoxLayout(detail);
        l->setContentsMargins(0, 4, 0, 0);
        l->addLayout(head);
        l->addWidget(m_tickets, 1);
        l->addLayout(foot);
    }

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(detail);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_bar);
    layout->addLayout(filters);
    {
        auto *scan = new QHBoxLayout;
        scan->addWidget(m_scanText, 1);
        scan->addWidget(m_scanBar);
        scan->addWidget(m_scanFurther);
        scan->addWidget(m_scanAll);
        scan->addWidget(m_stopScan);
        layout->addLayout(scan);
    }
    layout->addWidget(split, 1);

    connect(m_tenant, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_key, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_filterTimer, &QTimer::timeout, this, [this] { applyFilter(); });
    connect(m_resolved, &QCheckBox::toggled, this, [this] { applyFilter(); });
    connect(m_refresh, &QPushButton::clicked, this, [this] { refresh(); });
    connect(m_model, &DuplicateGroupsModel::pageLoaded, this, [this] { updateCount(); });
    connect(m_model, &DuplicateGroupsModel::loadingChanged, this, [this] { updateCount(); });
    connect(m_model, &DuplicateGroupsModel::modelReset, this, [this] { updateCount(); });
    connect(m_model, &DuplicateGroupsModel::scanningAllChanged, this, [this] { updateScan(); });
    connect(m_scanFurther, &QPushButton::clicked, this, [this] { m_model->fetchMore({}); });
    connect(m_scanAll, &QPushButton::clicked, this, [this] { m_model->scanAll(); });
    connect(m_stopScan, &QPushButton::clicked, this, [this] { m_model->stopScan(); });
    connect(m_model, &DuplicateGroupsModel::errorOccurred, this,
            [this](const QString &message) { m_bar->showMessage(MessageBar::Level::Error, message); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid())
            loadGroup(current.data(DuplicateGroupsModel::IdemKeyRole).toString());
    });
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { emit keyActivated(index.data(DuplicateGroupsModel::IdemKeyRole).toString()); });
    connect(m_openKey, &QPushButton::clicked, this, [this] {
        if (m_detail)
            emit keyActivated(m_detail->idemKey);
    });
    connect(m_compensate, &QPushButton::clicked, this, [this] { openCompensateDialog(); });

    clearDetail(QStringLiteral("Select a group to see its tickets side by side."));
    applyFilter();
}

DuplicatesPane::~DuplicatesPane() = default;

void DuplicatesPane::applyFilter()
{
    DuplicateFilter f;
    f.tenant = m_tenant->text().trimmed();
    f.keySubstring = m_key->text().trimmed();
    f.includeResolved = m_resolved->isChecked();
    m_bar->clearMessage();
    m_model->setFilter(f);
}

void DuplicatesPane::refresh()
{
    const QString current = m_detail ? m_detail->idemKey : QString();
    m_bar->clearMessage();
    m_model->refresh();
    if (!current.isEmpty())
        loadGroup(current);
}

bool DuplicatesPane::selectKey(const QString &idemKey)
{
    const int row = m_model->findKey(idemKey);
    if (row < 0)
        return false;
    m_table->setCurrentIndex(m_model->index(row, DuplicateGroupsModel::KeyColumn));
    m_table->scrollTo(m_table->currentIndex());
    return true;
}

void DuplicatesPane::updateCount()
{
    const int n = m_model->rowCount();
    if (m_model->isLoading() && n == 0)
        m_count->setText(QStringLiteral("loading…"));
    else
        m_count->setText(QStringLiteral("%1%2 %3%4")
                             .arg(n)
                             .arg(m_model->atEnd() ? QString() : QStringLiteral("+"))
                             .arg(n == 1 && m_model->atEnd() ? QStringLiteral("group") : QStringLiteral("groups"))
                             .arg(m_resolved->isChecked() ? QString() : QStringLiteral(" unresolved")));
    updateScan();
}

void DuplicatesPane::updateScan()
{
    const bool scanning = m_model->isScanningAll();
    const bool more = !m_model->atEnd() && m_model->lastError().isEmpty();
    auto shown = [](const QString &iso) {
        const auto t = parseUtcMicros(iso);
        return t ? utcToSecond(iso) + QStringLiteral(" UTC") : iso;
    };
    QString text;
    if (scanning && m_model->isLoading())
        text = QStringLiteral("Scanning every remaining ticket in one statement (no progress until it ends; Stop cancels it)…");
    else if (m_model->scannedTo().isEmpty())
        text = m_model->isLoading() ? QStringLiteral("Scanning tickets, newest first…") : QStringLiteral("No ticket with an idempotency key.");
    else if (!more && m_model->atEnd())
        text = QStringLiteral("All tickets scanned (created %1 – %2).").arg(shown(m_model->oldestAt()), shown(m_model->newestAt()));
    else
        text = QStringLiteral("Complete for tickets created since %1 — %2 % of the creation-time range scanned, newest first.")
                   .arg(shown(m_model->scannedTo()))
                   .arg(m_model->scanProgress() * 100, 0, 'f', m_model->scanProgress() < 0.1 ? 1 : 0);
    m_scanText->setText(text);
    // The full scan is one statement: a busy bar while it runs, the scanned share otherwise.
    m_scanBar->setRange(0, scanning && m_model->isLoading() ? 0 : 1000);
    m_scanBar->setValue(int(m_model->scanProgress() * 1000));
    m_scanBar->setVisible(scanning || (more && !m_model->scannedTo().isEmpty()));
    m_scanFurther->setVisible(more && !scanning);
    m_scanFurther->setEnabled(!m_model->isLoading());
    m_scanAll->setVisible(more && !scanning);
    m_stopScan->setVisible(scanning);
}

void DuplicatesPane::clearDetail(const QString &text)
{
    m_detail.reset();
    m_claim.reset();
    m_claimRead.invalidate();
    m_detailTitle->setText(text.toHtmlEscaped());
    m_tickets->clear();
    m_tickets->setRowCount(0);
    m_tickets->setColumnCount(0);
    m_canonical->clear();
    m_openKey->setEnabled(false);
    m_compensate->setEnabled(false);
}

void DuplicatesPane::loadGroup(const QString &idemKey)
{
    const quint64 generation = ++m_detailGeneration;
    m_detailTitle->setText(QStringLiteral("Loading <tt>%1</tt>…").arg(idemKey.toHtmlEscaped()));
    whenReady(loadDuplicateGroup(*m_workspace, idemKey), this, [this, generation, idemKey](const Outcome<DuplicateGroupDetail> &d) {
        if (generation != m_detailGeneration)
            return; // another group was selected meanwhile
        if (!d.ok()) {
            clearDetail(QStringLiteral("Could not load %1").arg(idemKey));
            m_bar->showMessage(MessageBar::Level::Error, d.error->message);
        } else {
            showGroup(*d);
        }
        emit groupLoaded(idemKey);
    });
    // Who holds the key (DESIGN.md §8 "Claims"): compensating it asks first when someone else does.
    m_claim.reset();
    m_claimRead.invalidate();
    whenReady(keyWorkClaims(*m_workspace, {idemKey}), this,
              [this, generation, idemKey](const Outcome<QHash<QString, Claim>> &claims) {
                  if (generation != m_detailGeneration)
                      return;
                  if (!claims.ok()) {
                      logger("views")->warn("claim of {} not read: {}", idemKey.toStdString(), claims.error->message.toStdString());
                      return;
                  }
                  if (claims->contains(idemKey))
                      m_claim = claims->value(idemKey);
                  m_claimRead.start();
              });
}

QString DuplicatesPane::actionFor(const DuplicateGroupDetail &detail) const
{
    if (!detail.record || !detail.record->bizType)
        return {};
    const auto actions = m_configs.value(*detail.record->bizType);
    if (actions.contains(QStringLiteral("cancel_ticket")))
        return QStringLiteral("cancel_ticket");
    return actions.isEmpty() ? QString() : actions.firstKey();
}

void DuplicatesPane::showGroup(const DuplicateGroupDetail &d)
{
    m_detail = d;
    const QString status = d.record ? d.record->statusText : QStringLiteral("no record");
    const theme::ToneColors statusColors =
        theme::toneColors(d.record ? recordStatusTone(d.record->statusText, d.record->stale) : Tone::Muted);
    m_detailTitle->setText(QStringLiteral("<b><tt>%1</tt></b> — %2 ticket(s), record "
                                          "<span style='color:%3;background:%4'>&nbsp;<b>%5</b>&nbsp;</span>%6")
                               .arg(d.idemKey.toHtmlEscaped())
                               .arg(d.tickets.size())
                               .arg(statusColors.foreground.name(), statusColors.background.name(), status.toHtmlEscaped(),
                                    d.record && d.record->bizType ? QStringLiteral(" (%1)").arg(d.record->bizType->toHtmlEscaped())
                                                                  : QString()));

    // One column per ticket; fixed rows first, then one row per payload field.
    const QStringList fixed{QStringLiteral("id"), QStringLiteral("tenant_id"), QStringLiteral("status"), QStringLiteral("title"),
                            QStringLiteral("created_at (UTC)")};
    m_tickets->clear();
    m_tickets->setColumnCount(int(d.tickets.size()));
    m_tickets->setRowCount(int(fixed.size() + d.payloadDiff.size()));
    QStringList rowLabels = fixed;
    for (const PayloadFieldDiff &f : d.payloadDiff)
        rowLabels << QStringLiteral("payload.%1").arg(f.field);
    m_tickets->setVerticalHeaderLabels(rowLabels);
    const theme::ToneColors differs = theme::toneColors(Tone::Warning);
    const QFont mono = theme::monospaceFont(-0.5);
    for (int c = 0; c < d.tickets.size(); ++c) {
        const TicketRow &t = d.tickets.at(c);
        const bool canonical = t.id == d.canonicalTicketId;
        auto *head = new QTableWidgetItem(canonical ? QStringLiteral("#%1 ★ canonical").arg(t.id.text()) : QStringLiteral("#%1 extra").arg(t.id.text()));
        if (canonical) {
            QFont f = head->font();
            f.setBold(true);
            head->setFont(f);
        }
        m_tickets->setHorizontalHeaderItem(c, head);
        const QStringList values{t.id.text(), t.tenantId.value_or(QStringLiteral("NULL")), t.status.value_or(QStringLiteral("NULL")),
                                 t.title.value_or(QStringLiteral("NULL")), t.createdAt};
        for (int r = 0; r < values.size(); ++r) {
            auto *cell = new QTableWidgetItem(values.at(r));
            cell->setToolTip(values.at(r));
            if (r == 2) {
                const theme::ToneColors tc = theme::toneColors(ticketStatusTone(values.at(r)));
                cell->setForeground(tc.foreground);
                QFont f = cell->font();
                f.setBold(true);
                cell->setFont(f);
            }
            if (r == 4)
                cell->setFont(mono);
            m_tickets->setItem(r, c, cell);
        }
        for (int r = 0; r < d.payloadDiff.size(); ++r) {
            const PayloadFieldDiff &f = d.payloadDiff.at(r);
            auto *cell = new QTableWidgetItem(f.values.value(c));
            cell->setFont(mono);
            cell->setToolTip(f.values.value(c));
            if (f.differs) {
                cell->setBackground(differs.background);
                cell->setForeground(differs.foreground);
                cell->setData(Qt::UserRole, true); // "differs", for tests and accessibility
            }
            m_tickets->setItem(int(fixed.size()) + r, c, cell);
        }
    }
    m_tickets->horizontalHeader()->setStretchLastSection(d.tickets.size() <= 3);

    const auto extras = ticketsToCompensate(d.tickets, d.canonicalTicketId).size();
    const QString action = actionFor(d);
    // The canonical-ticket rule's warnings (DESIGN.md §6), as the backend words them.
    QString warnings;
    if (!d.keyReuseFields.isEmpty())
        warnings += QStringLiteral("<br><b style=\"color:#b42318\">Key reuse:</b> the business fields %1 differ — different "
                                   "operations under one key, not retries: compensation needs an override.")
                        .arg(d.keyReuseFields.join(QStringLiteral(", ")).toHtmlEscaped());
    if (!d.inconsistency.isEmpty())
        warnings += QStringLiteral("<br><b style=\"color:#b42318\">Inconsistent:</b> %1.").arg(d.inconsistency.toHtmlEscaped());
    m_canonical->setText(QStringLiteral("Proposed canonical ticket: <b>#%1</b> — %2<br>%3 extra ticket(s) not yet cancelled.%4%5")
                             .arg(d.canonicalTicketId ? d.canonicalTicketId->text().toHtmlEscaped() : QStringLiteral("none"))
                             .arg(d.canonicalReason.toHtmlEscaped())
                             .arg(extras)
                             .arg(action.isEmpty() ? QStringLiteral(" <i>No compensation action is configured for this biz_type.</i>")
                                                   : QString(),
                                  warnings));
    m_openKey->setEnabled(true);
    const bool canOpen = d.record.has_value() && !action.isEmpty() && (extras > 0 || d.record->statusCode != Success);
    const bool readOnly = m_workspace->config().readOnly;
    m_compensate->setEnabled(canOpen && !readOnly);
    m_compensate->setToolTip(readOnly ? QStringLiteral("The workspace is read-only")
                             : !d.record ? QStringLiteral("No idempotency record: the compensation's biz_type is unknown")
                             : action.isEmpty() ? QStringLiteral("No compensation action is configured for biz_type %1")
                                                      .arg(d.record->bizType.value_or(QStringLiteral("?")))
                                                : QString());
}

CompensateDialog *DuplicatesPane::openCompensateDialog(bool claimConfirmed)
{
    if (!m_detail)
        return nullptr;
    if (!claimConfirmed
        && claimAsksFirst(m_claim, claimOperator(*m_workspace, QString()), m_claimRead.isValid() ? m_claimRead.elapsed() : -1)) {
        // Acting on a key someone else holds asks first (DESIGN.md §8 "Claims"; the rule is claimAsksFirst()).
        if (!m_claimQuestion)
            m_claimQuestion = stampEnvironment(askBeforeActingOnClaimedKey(this, this, m_detail->idemKey, *m_claim,
                                                          QStringLiteral("Compensate its extra tickets anyway?"),
                                                          QStringLiteral("compensation"), QStringLiteral("Compensate anyway\u2026"),
                                                          [this] { openCompensateDialog(true); }),
                                               m_workspace->config());
        return nullptr;
    }
    if (m_dialog)
        m_dialog->close();
    auto *dialog = new CompensateDialog(m_workspace, m_runner, *m_detail, actionFor(*m_detail), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    stampEnvironmentOn(dialog, m_workspace->config()); // DESIGN.md §5 "Environments"
    const QString key = m_detail->idemKey;
    connect(dialog, &CompensateDialog::runFinished, this, [this, key] {
        refresh();
        emit operatorActionFinished(key);
    });
    connect(dialog, &CompensateDialog::markFinished, this, [this, key] {
        refresh();
        emit operatorActionFinished(key);
    });
    dialog->open();
    return dialog;
}

} // namespace triage
