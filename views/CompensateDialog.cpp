#include "CompensateDialog.h"
#include "FutureChain.h"

#include "Mark.h"
#include "MessageBar.h"
#include "RecordStatus.h"
#include "Theme.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace triage {

namespace {

enum PlanColumn { TicketCol, ActionCol, KeyCol, RequestCol, OutcomeCol, MessageCol, PlanColumnCount };

Tone outcomeTone(const CompensateDialog::Item &item)
{
    if (!item.outcomeKind)
        return item.outcome == QLatin1String("running") ? Tone::Info : Tone::Neutral;
    switch (*item.outcomeKind) {
    case CompensationOutcome::Kind::Succeeded: return Tone::Ok;
    case CompensationOutcome::Kind::Existing: return compensationSettled(item.status) ? Tone::Ok : Tone::Warning;
    case CompensationOutcome::Kind::Unknown:
    case CompensationOutcome::Kind::Proposed: return Tone::Warning; // four-eyes: waits for a second operator
    case CompensationOutcome::Kind::Failed:
    case CompensationOutcome::Kind::Refused:
    case CompensationOutcome::Kind::Error: return Tone::Danger;
    case CompensationOutcome::Kind::Planned:
    case CompensationOutcome::Kind::NotFound: break;
    }
    return Tone::Neutral;
}

/// What the operator reads in the outcome column.
QString outcomeLabel(const CompensateDialog::Item &item)
{
    if (item.outcome == QLatin1String("existing"))
        return item.rowStatus.isEmpty() ? QStringLiteral("already proposed (four-eyes)") // an open proposal for it, no compensation yet
                                        : QStringLiteral("already exists (%1)").arg(item.rowStatus);
    if (item.outcome == QLatin1String("planned"))
        return QStringLiteral("planned");
    if (item.outcome == QLatin1String("proposed"))
        return QStringLiteral("PROPOSED"); // four-eyes: the detail says who must approve
    if (item.outcome == QLatin1String("running"))
        return QStringLiteral("running…");
    return item.outcome.toUpper();
}

/// `future` continued on a pool job (FutureChain.h) holding `keep` until it finishes: the
/// runner outlives its running task even when the dialog (or pane) is closed meanwhile.
QFuture<CompensationOutcome> keepingAlive(QFuture<CompensationOutcome> future, std::shared_ptr<CompensationRunner> keep)
{
    return continueWith(future, valueChainPool(), [keep = std::move(keep)](const CompensationOutcome &o) { return o; });
}

} // namespace

CompensateDialog::CompensateDialog(Workspace *workspace, std::shared_ptr<CompensationRunner> runner, const DuplicateGroupDetail &group,
                                   const QString &action, QWidget *parent)
    : QDialog(parent), m_workspace(workspace), m_runner(std::move(runner)), m_group(group), m_action(action)
{
    setObjectName(QStringLiteral("compensateDialog"));
    setWindowTitle(QStringLiteral("Compensate extra tickets — %1").arg(group.idemKey));
    resize(1240, 600);

    m_bar = new MessageBar(this);
    m_bar->setObjectName(QStringLiteral("compensateMessage"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);

    m_table = new QTableWidget(0, PlanColumnCount, this);
    m_table->setObjectName(QStringLiteral("planTable"));
    m_table->setHorizontalHeaderLabels({QStringLiteral("Ticket"), QStringLiteral("Action"), QStringLiteral("Compensation key"),
                                        QStringLiteral("Request"), QStringLiteral("Outcome"), QStringLiteral("Detail")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setTextElideMode(Qt::ElideMiddle); // keys and URLs keep both ends visible
    m_table->setColumnWidth(TicketCol, 60);
    m_table->setColumnWidth(ActionCol, 100);
    m_table->setColumnWidth(KeyCol, 380);
    m_table->setColumnWidth(RequestCol, 300);
    m_table->setColumnWidth(OutcomeCol, 150);

    m_reason = new QLineEdit(this);
    m_reason->setObjectName(QStringLiteral("reasonEdit"));
    m_reason->setPlaceholderText(QStringLiteral("Required: why these tickets are cancelled (audited)"));
    m_override = new QCheckBox(QStringLiteral("Override (audited; the reason needs at least %1 characters)").arg(kOverrideReasonMinLength),
                               this);
    m_override->setObjectName(QStringLiteral("overrideBox"));
    m_override->hide();
    m_run = new QPushButton(QStringLiteral("Run compensations"), this);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_close = new QPushButton(QStringLiteral("Close"), this);
    m_close->setObjectName(QStringLiteral("closeButton"));

    m_markBox = new QGroupBox(QStringLiteral("Settle the record"), this);
    m_markBox->setObjectName(QStringLiteral("markBox"));
    m_markText = new QLabel(m_markBox);
    m_markText->setWordWrap(true);
    m_markText->setTextFormat(Qt::RichText);
    m_mark = new QPushButton(m_markBox);
    m_mark->setObjectName(QStringLiteral("markSuccessButton"));
    m_markBar = new MessageBar(m_markBox);
    m_markBar->setObjectName(QStringLiteral("markOutcome"));
    {
        auto *l = new QVBoxLayout(m_markBox);
        l->addWidget(m_markText);
        auto *row = new QHBoxLayout;
        row->addWidget(m_mark);
        row->addStretch(1);
        l->addLayout(row);
        l->addWidget(m_markBar);
    }
    const auto canonical = std::find_if(group.tickets.cbegin(), group.tickets.cend(),
                                        [&](const TicketRow &t) { return t.id == group.canonicalTicketId; });
    // "none" when every ticket is CANCELLED and none is named (no canonical ticket).
    const QString canonicalText = group.canonicalTicketId ? group.canonicalTicketId->text() : QStringLiteral("none");
    m_mark->setText(QStringLiteral("Mark record SUCCESS with ticket #%1's snapshot").arg(canonicalText));
    if (!group.record) {
        m_markText->setText(QStringLiteral("There is no idempotency record for this key: nothing to mark."));
    } else {
        const QString payload = canonical != group.tickets.cend() ? canonical->payload.value_or(QStringLiteral("NULL")) : QStringLiteral("?");
        m_markText->setText(
            QStringLiteral("After the extras are cancelled, the record can be marked <b>SUCCESS</b> with the canonical ticket "
                           "<b>#%1</b>'s payload as <tt>result_snapshot</tt>:<br><tt>%2</tt><br>Compare-and-set: only if the record "
                           "is still <b>%3</b>, updated_at <tt>%4</tt> (as loaded with the group).")
                .arg(canonicalText.toHtmlEscaped())
                .arg(payload.toHtmlEscaped().left(300), group.record->statusText.toHtmlEscaped(),
                     group.record->updatedAt.toHtmlEscaped()));
    }

    auto *form = new QFormLayout;
    form->addRow(QStringLiteral("Reason:"), m_reason);
    form->addRow(QString(), m_override);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_run);
    buttons->addWidget(m_close);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_bar);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_markBox);

    connect(m_reason, &QLineEdit::textChanged, this, [this] { updateButtons(); });
    connect(m_override, &QCheckBox::toggled, this, [this] { updateButtons(); });
    connect(m_run, &QPushButton::clicked, this, [this] { runCompensations(); });
    connect(m_close, &QPushButton::clicked, this, [this] { reject(); });
    connect(m_mark, &QPushButton::clicked, this, [this] { markSuccess(); });

    for (const BusinessId &id : ticketsToCompensate(group.tickets, group.canonicalTicketId)) {
        Item item;
        item.ticketId = id;
        item.action = m_action;
        m_items.append(item);
    }
    m_table->setRowCount(int(m_items.size()));
    for (int i = 0; i < m_items.size(); ++i)
        showItem(i);
    m_summary->setText(
        QStringLiteral("Key <tt>%1</tt>: keep ticket <b>#%2</b> (%3); compensate <b>%4</b> extra ticket(s) with <b>%5</b>, one "
                       "call each, each with its own deterministic key (intent written first; a timeout leaves it UNKNOWN, "
                       "resumable with the same key).")
            .arg(group.idemKey.toHtmlEscaped())
            .arg(canonicalText.toHtmlEscaped())
            .arg(group.canonicalReason.toHtmlEscaped())
            .arg(m_items.size())
            .arg(m_action.isEmpty() ? QStringLiteral("(no action configured)") : m_action.toHtmlEscaped()));
    updateButtons();
    startPlan();
}

QVector<BusinessId> CompensateDialog::extraTicketIds() const
{
    QVector<BusinessId> ids;
    for (const Item &i : m_items)
        ids.append(i.ticketId);
    return ids;
}

bool CompensateDialog::allCompensated() const
{
    for (const Item &i : m_items)
        if (!compensationSettled(i.status))
            return false;
    return true;
}

void CompensateDialog::setReason(const QString &reason)
{
    m_reason->setText(reason);
}

void CompensateDialog::startPlan()
{
    if (m_action.isEmpty()) {
        m_bar->showMessage(MessageBar::Level::Error,
                           QStringLiteral("no compensation action is configured for biz_type %1")
                               .arg(m_group.record ? m_group.record->bizType.value_or(QStringLiteral("?")) : QStringLiteral("(no record)")));
        emit planReady();
        return;
    }
    if (m_items.isEmpty()) {
        m_planned = true;
        m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("no extra ticket is left to compensate"));
        updateButtons();
        emit planReady();
        return;
    }
    // One dry run per ticket: the runner renders the key and the request, writes and sends nothing.
    auto pending = std::make_shared<int>(int(m_items.size()));
    for (int i = 0; i < m_items.size(); ++i) {
        CompensationRequest r;
        r.sourceKey = m_group.idemKey;
        r.action = m_action;
        r.target = m_items.at(i).ticketId.text();
        r.reason = QStringLiteral("plan");
        r.operatorName = m_workspace->config().operatorName;
        r.dryRun = true;
        whenReady(keepingAlive(m_runner->start(r), m_runner), this, [this, i, pending](const CompensationOutcome &o) {
            Item &item = m_items[i];
            item.compKey = o.compKey;
            if (!o.request.url.isEmpty())
                item.request = QString::fromLatin1(o.request.method) + QLatin1Char(' ') + o.request.url;
            item.outcome = compensationOutcomeName(o.kind);
            item.outcomeKind = o.kind;
            item.overridable = o.kind == CompensationOutcome::Kind::Refused && o.overridable;
            if (o.row) {
                item.rowStatus = o.row->status;
                item.status = compensationStatusFromName(o.row->status);
            }
            if (o.kind != CompensationOutcome::Kind::Planned)
                item.message = o.message;
            showItem(i);
            if (--*pending == 0) {
                m_planned = true;
                bool refused = false;
                for (const Item &x : std::as_const(m_items))
                    refused = refused || x.outcomeKind == CompensationOutcome::Kind::Refused
                        || x.outcomeKind == CompensationOutcome::Kind::Error;
                bool overridable = false;
                for (const Item &x : std::as_const(m_items))
                    overridable = overridable || x.overridable;
                m_override->setVisible(overridable);
                if (refused) {
                    // The first refusal in full (the Detail column elides long text).
                    QString first;
                    for (const Item &x : std::as_const(m_items))
                        if (first.isEmpty()
                            && (x.outcomeKind == CompensationOutcome::Kind::Refused || x.outcomeKind == CompensationOutcome::Kind::Error))
                            first = QStringLiteral("#%1: %2").arg(x.ticketId.text()).arg(x.message);
                    m_bar->showMessage(MessageBar::Level::Error,
                                       QStringLiteral("the plan was refused for at least one ticket (%1)%2")
                                           .arg(first, overridable ? QStringLiteral("; only an audited override may set that rule aside")
                                                                   : QString()));
                }
                updateButtons();
                emit planReady();
            }
        });
    }
}

void CompensateDialog::runCompensations()
{
    if (!m_planned || m_running || m_reason->text().trimmed().isEmpty() || m_items.isEmpty())
        return;
    m_running = true;
    m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("compensating %1 ticket(s)…").arg(m_items.size()));
    updateButtons();
    runNext(0);
}

void CompensateDialog::runNext(int index)
{
    // Skip tickets already settled by an earlier run.
    while (index < m_items.size() && compensationSettled(m_items.at(index).status))
        ++index;
    if (index >= m_items.size()) {
        m_running = false;
        int ok = 0, proposed = 0;
        for (const Item &i : std::as_const(m_items)) {
            ok += compensationSettled(i.status);
            proposed += i.outcomeKind == CompensationOutcome::Kind::Proposed;
        }
        QString text = QStringLiteral("%1 of %2 compensated").arg(ok).arg(m_items.size());
        if (proposed)
            text += QStringLiteral("; %1 proposed (four-eyes): nothing is sent until another operator approves %2 (Proposals tab)")
                        .arg(proposed)
                        .arg(proposed == 1 ? QStringLiteral("it") : QStringLiteral("them"));
        if (ok + proposed < m_items.size())
            text += QStringLiteral("; the others are UNKNOWN or refused: resume them from the Compensations tab (same key)");
        if (allCompensated())
            m_bar->showMessage(MessageBar::Level::Info, QStringLiteral("all %1 extra ticket(s) are compensated").arg(ok));
        else
            m_bar->showMessage(MessageBar::Level::Warning, text);
        updateButtons();
        emit runFinished();
        return;
    }
    Item &item = m_items[index];
    item.outcome = QStringLiteral("running");
    item.outcomeKind.reset();
    item.message.clear();
    showItem(index);
    CompensationRequest r;
    r.sourceKey = m_group.idemKey;
    r.action = m_action;
    r.target = item.ticketId.text();
    r.reason = m_reason->text().trimmed();
    r.operatorName = m_workspace->config().operatorName;
    r.override = !m_override->isHidden() && m_override->isChecked();
    whenReady(keepingAlive(m_runner->start(r), m_runner), this, [this, index](const CompensationOutcome &o) {
        Item &it = m_items[index];
        it.outcome = compensationOutcomeName(o.kind);
        it.outcomeKind = o.kind;
        it.overridable = o.kind == CompensationOutcome::Kind::Refused && o.overridable;
        it.compKey = o.compKey.isEmpty() ? it.compKey : o.compKey;
        it.rowStatus = o.row ? o.row->status : QString();
        it.status = o.row ? compensationStatusFromName(o.row->status) : std::nullopt;
        it.message = o.message;
        if (o.ticketAfter && o.ticketAfter->status)
            it.message = QStringLiteral("ticket #%1 now %2%3")
                             .arg(o.ticketAfter->id.text())
                             .arg(*o.ticketAfter->status, o.message.isEmpty() ? QString() : QStringLiteral("; ") + o.message);
        showItem(index);
        emit itemFinished(index);
        runNext(index + 1);
    });
}

void CompensateDialog::showItem(int index)
{
    const Item &item = m_items.at(index);
    auto set = [&](int col, const QString &text, bool mono = false) {
        auto *cell = new QTableWidgetItem(text);
        cell->setToolTip(text);
        if (mono)
            cell->setFont(theme::monospaceFont(-0.5));
        m_table->setItem(index, col, cell);
        return cell;
    };
    set(TicketCol, QStringLiteral("#%1").arg(item.ticketId.text()));
    set(ActionCol, item.action);
    set(KeyCol, item.compKey.isEmpty() ? QStringLiteral("…") : item.compKey, true);
    set(RequestCol, item.request, true);
    QTableWidgetItem *o = set(OutcomeCol, outcomeLabel(item));
    const Tone tone = outcomeTone(item);
    if (tone != Tone::Neutral) {
        const theme::ToneColors c = theme::toneColors(tone);
        o->setForeground(c.foreground);
        o->setBackground(c.background);
        QFont f = o->font();
        f.setBold(true);
        o->setFont(f);
    }
    set(MessageCol, item.message);
}

void CompensateDialog::updateButtons()
{
    const bool overriding = !m_override->isHidden() && m_override->isChecked();
    const bool hasReason = overriding ? m_reason->text().trimmed().size() >= kOverrideReasonMinLength
                                      : !m_reason->text().trimmed().isEmpty();
    bool runnable = false;
    for (const Item &i : std::as_const(m_items))
        runnable = runnable || compensationRunnable(i.planEntry(), overriding);
    m_run->setEnabled(m_planned && !m_running && hasReason && runnable);
    m_run->setToolTip(hasReason ? QString()
                      : overriding ? QStringLiteral("An override needs a reason of at least %1 characters").arg(kOverrideReasonMinLength)
                                   : QStringLiteral("Enter a reason first"));
    const bool canMark = m_group.record && m_planned && !m_running && allCompensated() && !m_marked;
    m_markBox->setVisible(m_group.record.has_value() && m_planned && allCompensated());
    m_mark->setEnabled(canMark && !m_marking && hasReason);
}

void CompensateDialog::markSuccess()
{
    if (!m_group.record || !allCompensated() || m_marking || m_marked || m_running || m_reason->text().trimmed().isEmpty())
        return;
    const auto canonical = std::find_if(m_group.tickets.cbegin(), m_group.tickets.cend(),
                                        [&](const TicketRow &t) { return t.id == m_group.canonicalTicketId; });
    if (canonical == m_group.tickets.cend() || !canonical->payload) {
        m_markBar->showMessage(MessageBar::Level::Error, QStringLiteral("the canonical ticket has no payload to use as snapshot"));
        return;
    }
    MarkRequest req;
    req.idemKey = m_group.idemKey;
    req.toStatus = Success;
    req.reason = m_reason->text().trimmed() + QStringLiteral(" (extras of the duplicate group compensated; keeping ticket #%1)")
                                                  .arg(canonical->id.text());
    req.snapshot = *canonical->payload;
    req.snapshotSource = QStringLiteral("ticket:%1").arg(canonical->id.text());
    req.expect = expectedStateOf(*m_group.record);
    req.operatorName = m_workspace->config().operatorName;
    m_marking = true;
    updateButtons();
    m_markBar->showMessage(MessageBar::Level::Info, QStringLiteral("marking the record SUCCESS…"));
    whenReady(markRecord(*m_workspace, req), this, [this](const Outcome<MarkResult> &r) {
        m_marking = false;
        if (!r.ok()) {
            m_markBar->showMessage(MessageBar::Level::Error, r.error->message);
            updateButtons();
            emit markFinished(false, r.error->message);
            return;
        }
        const MarkResult &m = *r;
        QString text = m.message;
        MessageBar::Level level = MessageBar::Level::Error;
        switch (m.kind) {
        case MarkResult::Kind::Applied:
            m_marked = true;
            level = MessageBar::Level::Info;
            text = QStringLiteral("Applied — the record is now %1 (audit #%2)")
                       .arg(m.current ? m.current->statusText : QStringLiteral("SUCCESS"))
                       .arg(m.auditId);
            break;
        case MarkResult::Kind::Conflict:
            level = MessageBar::Level::Warning;
            text = QStringLiteral("Conflict — the record changed since it was loaded; it is now %1, updated %2. %3")
                       .arg(m.current ? m.current->statusText : QStringLiteral("?"),
                            m.current ? m.current->updatedAt : QStringLiteral("?"), m.message);
            break;
        default: break;
        }
        if (!m.warnings.isEmpty())
            text += QStringLiteral(" (") + m.warnings.join(QStringLiteral("; ")) + QLatin1Char(')');
        m_markBar->showMessage(level, text);
        updateButtons();
        emit markFinished(m.kind == MarkResult::Kind::Applied, text);
    });
}

} // namespace triage
