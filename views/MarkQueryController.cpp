#include "MarkQueryController.h"

#include "EnvironmentBand.h"

#include "AuditEntry.h"
#include "ClaimQuestion.h"
#include "DetailHeader.h"
#include "EscalationService.h"
#include "DetailTabs.h"
#include "EvidenceView.h"
#include "KeyDetailView.h"
#include "MarkDialog.h"
#include "MessageBar.h"
#include "Workspace.h"
#include "TimeText.h"
#include "WhenReady.h"

#include <QLabel>
#include <QScopeGuard>
#include <QMessageBox>
#include <QPushButton>

namespace triage {

MarkQueryController::MarkQueryController(KeyDetailView *view, Workspace *workspace, DetailHeader *header, DetailTabs *tabs)
    : QObject(view), m_view(view), m_workspace(workspace), m_header(header), m_tabs(tabs)
{
    connect(m_header->queryButton(), &QPushButton::clicked, this, &MarkQueryController::queryUpstream);
    connect(m_header->markSuccessButton(), &QPushButton::clicked, this, [this] { openMarkDialog(Success); });
    connect(m_header->markFailedButton(), &QPushButton::clicked, this, [this] { openMarkDialog(Failed); });
    connect(m_tabs->evidenceView(), &EvidenceView::applySuggestionRequested, this, &MarkQueryController::applySuggestion);
    connect(m_view, &KeyDetailView::detailLoaded, this, &MarkQueryController::refreshProposals);
    connect(m_header->proposalBar(), &MessageBar::actionTriggered, this, &MarkQueryController::openApproveDialog);
    connect(m_header->proposalBar(), &MessageBar::secondaryActionTriggered, this, &MarkQueryController::openRejectDialog);
}

void MarkQueryController::setUpstreamClient(UpstreamClient *client)
{
    m_upstream = client;
    updateActions();
}

void MarkQueryController::updateActions()
{
    const bool readOnly = !m_workspace || m_workspace->config().readOnly; // no workspace: a bundle
    const bool ready = m_view->hasDetail() && !m_view->isLoading() && !m_markBusy;
    const std::optional<RecordDetail> &r = m_view->detail().record;

    m_header->queryButton()->setEnabled(ready && m_upstream && !m_queryBusy);
    m_header->queryButton()->setToolTip(!m_upstream ? QStringLiteral("No upstream query API is configured for this workspace")
                              : m_queryBusy ? QStringLiteral("A query is running")
                                            : QStringLiteral("Ask the business system's own query API about this key (recorded "
                                                             "in the audit trail; changes nothing)"));

    QString why; // why neither mark is possible
    if (!m_workspace)
        why = QStringLiteral("A bundle is read-only: marks are disabled");
    else if (readOnly)
        why = QStringLiteral("Read-only workspace: marks are disabled");
    else if (!r)
        why = QStringLiteral("No idempotency record carries this key");
    else if (r->statusCode == Success)
        why = QStringLiteral("SUCCESS is final: its snapshot was returned to callers (DESIGN.md \u00a72)");
    else if (r->statusCode != Processing && r->statusCode != Failed)
        why = QStringLiteral("Status %1 is not one a mark starts from (PROCESSING or FAILED)").arg(r->statusText);
    // An open four-eyes proposal of this key for the same mark: a second one can only conflict.
    auto proposedWhy = [&](QStringView action) {
        if (!m_proposal || m_proposal->expired || m_proposal->idemKey != m_view->key() || m_proposal->action != action)
            return QString();
        return QStringLiteral("Four-eyes proposal %1 (%2 by %3) is open for this key: approve or reject it first")
            .arg(QString::number(m_proposal->id), m_proposal->action, m_proposal->proposedBy);
    };
    const bool failedRecord = r && r->statusCode == Failed;
    const QString successWhy = !why.isEmpty() ? why : proposedWhy(audit_action::MarkSuccess);
    m_header->markSuccessButton()->setText(failedRecord ? QStringLiteral("Correct to SUCCESS\u2026") : QStringLiteral("Mark SUCCESS\u2026"));
    m_header->markSuccessButton()->setEnabled(ready && successWhy.isEmpty());
    m_header->markSuccessButton()->setToolTip(!successWhy.isEmpty() ? successWhy
                                    : failedRecord ? QStringLiteral("FAILED \u2192 SUCCESS: a side effect was found after all")
                                                   : QStringLiteral("PROCESSING \u2192 SUCCESS with a snapshot (compare-and-set)"));
    QString failedWhy = !why.isEmpty() ? why : failedRecord ? QStringLiteral("The record is already FAILED") : proposedWhy(audit_action::MarkFailed);
    if (failedWhy.isEmpty() && m_view->hasDetail()) {
        // The backend's rule, asked with the most an operator could add (a long reason and
        // an override): what it still refuses, no dialog can make possible.
        const MarkDecision best = decideMark(markFactsFrom(r, markEvidenceOf(m_view->detail())), Failed,
                                             QString(kOverrideReasonMinLength, QLatin1Char('x')), true, true, QString());
        if (!best.allowed)
            failedWhy = QStringLiteral("Refused by the rules: %1").arg(best.reason);
    }
    m_header->markFailedButton()->setEnabled(ready && failedWhy.isEmpty());
    m_header->markFailedButton()->setToolTip(failedWhy.isEmpty() ? QStringLiteral("PROCESSING \u2192 FAILED: confirmed no side effect "
                                                                        "(compare-and-set)")
                                                       : failedWhy);
    m_header->readOnlyNote()->setText(!readOnly ? QString()
                                      : m_workspace && m_workspace->config().writesLocked
                                      ? QStringLiteral("Production opens read-only: queries are not recorded and nothing can be "
                                                       "marked until writes are switched on in the band at the top.")
                                      : QStringLiteral("Read-only workspace: queries are not recorded and nothing can be marked."));
    m_header->readOnlyNote()->setVisible(readOnly);
}

bool MarkQueryController::queryUpstream()
{
    if (!m_upstream || !m_view->hasDetail() || m_queryBusy)
        return false;
    m_queryBusy = true;
    updateActions();
    m_tabs->evidenceView()->setBusy(true);
    m_tabs->setCurrentWidget(m_tabs->evidenceView());
    const QString key = m_view->key();
    whenReady(checkUpstream(*m_workspace, *m_upstream, key), this, [this, key](const UpstreamCheck &check) {
        m_queryBusy = false;
        if (key != m_view->key()) {
            updateActions();
            return; // the operator moved on; the query is in the audit trail of its key
        }
        if (check.refusal) {
            // Nothing was asked: the answer could not have been recorded (DESIGN.md §10).
            m_tabs->evidenceView()->setBusy(false);
            m_header->actionBar()->showMessage(MessageBar::Level::Error,
                                               QStringLiteral("Upstream not queried: %1").arg(check.refusal->message));
            updateActions();
            return;
        }
        m_tabs->evidenceView()->setCheck(check);
        m_tabs->setCurrentWidget(m_tabs->evidenceView());
        const UpstreamEvidence &e = check.evidence;
        m_header->actionBar()->showMessage(e.isUnusable() ? MessageBar::Level::Warning : MessageBar::Level::Info,
                                 QStringLiteral("Upstream: %1 \u2014 suggested verdict %2 (\u00a76 row %3). See the Upstream tab.")
                                     .arg(upstreamClassName(e.classification), verdictName(check.verdict.kind))
                                     .arg(check.verdict.row));
        emit upstreamChecked(key);
        if (check.auditId)
            m_view->reload(); // the query is on the timeline and in the audit tab now
        else
            updateActions();
    });
    return true;
}

MarkDialog *MarkQueryController::openMarkDialog(RecordStatusCode toStatus, bool claimConfirmed)
{
    updateActions();
    QPushButton *button = toStatus == Success ? m_header->markSuccessButton() : m_header->markFailedButton();
    if (!button->isEnabled() || !m_view->detail().record)
        return nullptr;
    const std::optional<Claim> &claim = m_view->claim();
    if (!claimConfirmed && claimAsksFirst(claim, claimOperator(*m_workspace, QString()), m_view->claimReadElapsedMs())) {
        // Acting on a key someone else holds asks first (DESIGN.md §8 "Claims"; the rule is claimAsksFirst()).
        if (m_claimQuestion)
            return nullptr;
        m_claimQuestion = stampEnvironment(askBeforeActingOnClaimedKey(m_view, this, m_view->key(), *claim,
                                                      QStringLiteral("Mark it %1 anyway?").arg(recordStatusName(toStatus)),
                                                      QStringLiteral("mark"), QStringLiteral("Mark anyway\u2026"),
                                                      [this, toStatus] { openMarkDialog(toStatus, true); }),
                                           m_workspace->config());
        return nullptr;
    }
    auto *dialog = new MarkDialog(m_view->detail(), toStatus, m_workspace->config().operatorName, m_view);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (const auto &check = m_tabs->evidenceView()->check();
        check && check->detail.idemKey == m_view->key() && check->recordedAt.isEmpty()
        && check->evidence.classification == UpstreamClass::Found && !check->evidence.foundObjects.isEmpty())
        dialog->addUpstreamObject(check->evidence.foundObjects.first());
    stampEnvironmentOn(dialog, m_workspace->config()); // DESIGN.md §5 "Environments"
    connect(dialog, &QDialog::accepted, this, [this, dialog] { submitMark(dialog->request()); });
    dialog->open();
    return dialog;
}

MarkDialog *MarkQueryController::applySuggestion()
{
    const auto &check = m_tabs->evidenceView()->check();
    if (!check || check->detail.idemKey != m_view->key())
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

void MarkQueryController::refreshProposals(const QString &key)
{
    if (!m_workspace)
        return; // a bundle: no database to read proposals from
    whenReady(readOpenProposals(*m_workspace, key), this, [this, key](const Outcome<OpenProposals> &open) {
        if (m_view->key() != key)
            return; // another key is shown by now
        const auto buttons = qScopeGuard([this] { updateActions(); }); // a mark an open proposal covers is disabled
        MessageBar *bar = m_header->proposalBar();
        m_proposal.reset();
        bar->setActionText(QString());
        bar->setSecondaryActionText(QString());
        if (!open.ok()) {
            bar->showMessage(MessageBar::Level::Error,
                             QStringLiteral("Four-eyes proposals could not be read: %1").arg(open.error->message));
            return;
        }
        const QVector<ProposalRow> *rows = &open->rows;
        if (rows->isEmpty()) {
            bar->clearMessage();
            return;
        }
        const ProposalRow &p = rows->first();
        const QString more = rows->size() > 1
            ? QStringLiteral(" (%1 more: triagectl proposals)").arg(rows->size() - 1)
            : QString();
        m_proposal = p;
        if (!m_workspace->config().readOnly)
            bar->setSecondaryActionText(QStringLiteral("Reject\u2026"));
        if (p.expired) {
            bar->showMessage(MessageBar::Level::Warning,
                             QStringLiteral("Four-eyes proposal %1 (%2 by %3) expired at %4 UTC without approval: nothing was "
                                            "applied; propose it again%5.")
                                 .arg(QString::number(p.id), p.action, p.proposedBy, utcToSecond(p.expiresAt), more));
            return;
        }
        const QString sharedUsers = open->processControlOnly ? QStringLiteral(" Operators here share one database user: four-eyes is a "
                                                                             "process control, not a security boundary.")
                                                             : QString();
        if (const QString compensation = compensationProposalText(p); !compensation.isEmpty()) {
            bar->showMessage(MessageBar::Level::Warning,
                             QStringLiteral("Four-eyes proposal %1: %2 by %3 at %4 UTC (expires %5 UTC): \u201c%6\u201d. Nothing is "
                                            "written or sent until another operator approves it%7.%8")
                                 .arg(QString::number(p.id), compensation, p.proposedBy, utcToSecond(p.proposedAt),
                                      utcToSecond(p.expiresAt), p.reason, more, sharedUsers));
            if (!m_workspace->config().readOnly && m_compensations)
                bar->setActionText(QStringLiteral("Approve\u2026"));
            return;
        }
        bar->showMessage(MessageBar::Level::Warning,
                         QStringLiteral("Four-eyes proposal %1: %2 → %3 by %4 at %5 UTC (expires %6 UTC): \u201c%7\u201d. Nothing is "
                                        "applied until another operator approves it%8.%9")
                             .arg(QString::number(p.id), m_view->detail().record ? m_view->detail().record->statusText : QStringLiteral("?"),
                                  p.toStatus, p.proposedBy, utcToSecond(p.proposedAt), utcToSecond(p.expiresAt), p.reason, more,
                                  sharedUsers));
        if (const std::optional<RecordDetail> &now = m_view->detail().record)
            if (const QStringList changed = proposalChangesSince(p, *now); !changed.isEmpty())
                bar->showMessage(MessageBar::Level::Warning,
                                 bar->text() + QStringLiteral(" The record changed since the proposal (%1): approving it now applies "
                                                              "nothing and voids it.")
                                                   .arg(changed.join(QStringLiteral("; "))));
        if (!m_workspace->config().readOnly)
            bar->setActionText(QStringLiteral("Approve\u2026"));
    });
}

QInputDialog *MarkQueryController::proposalReasonDialog(const ProposalRow &p, const QString &verb, const QString &doing,
                                                       const QString &label, std::function<void(const QString &)> onReason)
{
    auto *dialog = new QInputDialog(m_view);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QStringLiteral("%1 proposal %2").arg(verb).arg(p.id));
    dialog->setLabelText(label);
    dialog->setOkButtonText(verb);
    stampEnvironmentOn(dialog, m_workspace->config());
    connect(dialog, &QInputDialog::textValueSelected, this, [this, id = p.id, doing, onReason](const QString &reason) {
        m_markBusy = true;
        updateActions();
        m_header->actionBar()->showMessage(MessageBar::Level::Info, QStringLiteral("%1 proposal %2\u2026").arg(doing).arg(id));
        onReason(reason);
    });
    dialog->open();
    return dialog;
}

void MarkQueryController::openApproveDialog()
{
    if (!m_workspace || !m_proposal || m_proposal->expired || m_markBusy || m_approveDialog || m_rejectDialog)
        return;
    const ProposalRow p = *m_proposal;
    if (const QString compensation = compensationProposalText(p); !compensation.isEmpty()) {
        if (!m_compensations)
            return;
        const QString label = QStringLiteral("Approve the %1 of %2, proposed by %3: \u201c%4\u201d\n\nThe compensation starts now as "
                                             "you: fresh reads, every rule, the request as proposed. If the ticket, the record or the "
                                             "request changed since, nothing is sent and the proposal becomes void. Your reason (at least "
                                             "10 characters; audited):")
                                  .arg(compensation, p.idemKey, p.proposedBy, p.reason);
        m_approveDialog = proposalReasonDialog(p, QStringLiteral("Approve"), QStringLiteral("Approving"), label,
                                               [this, id = p.id, runner = m_compensations](const QString &reason) {
            m_header->conflictBar()->clearMessage();
            whenReady(runner->approve(id, m_workspace->config().operatorName, reason), this,
                      [this, runner](const CompensationOutcome &o) { onCompensationApproval(o); });
        });
        return;
    }
    // What the proposer saw and what changed since (proposalChangesSince(), DESIGN.md §9).
    QString since;
    if (const std::optional<RecordDetail> &now = m_view->detail().record) {
        const QStringList changed = proposalChangesSince(p, *now);
        since = changed.isEmpty()
            ? QStringLiteral("Since the proposal the record is unchanged (%1, updated_at %2).").arg(now->statusText, now->updatedAt)
            : QStringLiteral("Since the proposal the record changed: %1. Approving now is a conflict: nothing is applied and "
                             "the proposal becomes void.")
                  .arg(changed.join(QStringLiteral("; ")));
    }
    const QString label = QStringLiteral("Approve %1 of %2, proposed by %3: \u201c%4\u201d\n%5\n\nThe mark runs now with fresh "
                                         "evidence and every rule, against the state %3 saw. Your reason (at least 10 characters; "
                                         "audited):")
                              .arg(p.action, p.idemKey, p.proposedBy, p.reason, since);
    m_approveDialog = proposalReasonDialog(p, QStringLiteral("Approve"), QStringLiteral("Approving"), label, [this, id = p.id](const QString &reason) {
        m_header->conflictBar()->clearMessage();
        whenReady(approveProposal(*m_workspace, id, reason), this, [this](const Outcome<MarkResult> &outcome) { onMarkResult(outcome); });
    });
}

void MarkQueryController::setCompensationRunner(std::shared_ptr<CompensationRunner> runner)
{
    m_compensations = std::move(runner);
}

void MarkQueryController::onCompensationApproval(const CompensationOutcome &o)
{
    m_markBusy = false;
    using K = CompensationOutcome::Kind;
    const MessageBar::Level level = o.kind == K::Succeeded ? MessageBar::Level::Info
                                  : o.kind == K::Unknown   ? MessageBar::Level::Warning
                                                           : MessageBar::Level::Error;
    const QString text = o.kind == K::Succeeded
        ? QStringLiteral("Compensation proposal %1 approved: %2").arg(o.proposalId).arg(o.message)
        : QStringLiteral("Compensation proposal %1: %2: %3").arg(QString::number(o.proposalId), compensationOutcomeName(o.kind), o.message);
    m_header->actionBar()->showMessage(level, text);
    m_view->reload(); // the proposal bar, the compensation and its audit rows
    emit compensationApprovalFinished(int(o.kind), text);
}

void MarkQueryController::openRejectDialog()
{
    if (!m_workspace || !m_proposal || m_markBusy || m_approveDialog || m_rejectDialog)
        return;
    const ProposalRow p = *m_proposal;
    const QString label = QStringLiteral("Reject %1 of %2, proposed by %3: \u201c%4\u201d\n\nNothing is applied and the proposal is "
                                         "closed (its proposer may reject it to withdraw it). Your reason (at least 10 characters; "
                                         "audited):")
                              .arg(p.action, p.idemKey, p.proposedBy, p.reason);
    m_rejectDialog = proposalReasonDialog(p, QStringLiteral("Reject"), QStringLiteral("Rejecting"), label,
                                          [this, id = p.id, key = p.idemKey](const QString &reason) {
        whenReady(rejectProposal(*m_workspace, id, reason), this, [this, key](const Outcome<ProposalRow> &out) {
            m_markBusy = false;
            const QString text = out.ok() ? QStringLiteral("Proposal %1 rejected by %2: %3").arg(QString::number(out->id), out->decidedBy,
                                                                                                out->decisionReason)
                                          : QStringLiteral("Not rejected: %1").arg(out.error->message);
            m_header->actionBar()->showMessage(out.ok() ? MessageBar::Level::Info : MessageBar::Level::Error, text);
            if (m_view->key() == key)
                m_view->reload(); // the audit row on the timeline, the proposal bar
            else
                updateActions();
            emit rejectFinished(out.ok(), text);
        });
    });
}

void MarkQueryController::submitMark(const MarkRequest &request)
{
    m_markBusy = true;
    updateActions();
    m_header->actionBar()->showMessage(MessageBar::Level::Info, QStringLiteral("Marking %1 %2\u2026")
                                                          .arg(request.idemKey, recordStatusName(request.toStatus)));
    m_header->conflictBar()->clearMessage();
    whenReady(markRecord(*m_workspace, request), this, [this](const Outcome<MarkResult> &outcome) { onMarkResult(outcome); });
}

void MarkQueryController::onMarkResult(const Outcome<MarkResult> &outcome)
{
    m_markBusy = false;
    if (!outcome.ok()) {
        const QString message = outcome.error ? outcome.error->message : QStringLiteral("unknown error");
        m_header->actionBar()->showMessage(MessageBar::Level::Error, QStringLiteral("The mark failed: %1 \u2014 nothing was changed, or "
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
        m_header->actionBar()->showMessage(MessageBar::Level::Info, QStringLiteral("\u2714 Applied: %1 (audit #%2)%3")
                                                              .arg(r.message)
                                                              .arg(r.auditId)
                                                              .arg(warnings));
        emit recordChanged(r.idemKey);
        break;
    case MarkResult::Kind::DryRun:
        m_header->actionBar()->showMessage(MessageBar::Level::Info, QStringLiteral("Dry run: %1").arg(r.message));
        break;
    case MarkResult::Kind::Proposed:
        m_header->actionBar()->showMessage(MessageBar::Level::Warning,
                                           QStringLiteral("Four-eyes: %1 (audit #%2)").arg(r.message).arg(r.auditId));
        break;
    case MarkResult::Kind::Refused:
        m_header->actionBar()->showMessage(MessageBar::Level::Warning, QStringLiteral("Refused: %1").arg(r.message));
        break;
    case MarkResult::Kind::Error:
        m_header->actionBar()->showMessage(MessageBar::Level::Error, QStringLiteral("Error: %1").arg(r.message));
        break;
    case MarkResult::Kind::Conflict: {
        m_header->actionBar()->clearMessage();
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
        m_header->conflictBar()->showMessage(MessageBar::Level::Error,
                                   QStringLiteral("Conflict: nothing was changed \u2014 the record changed since you loaded it; "
                                                  "%1. %2 Reload, check again and decide anew.")
                                       .arg(now, who));
        break;
    }
    }
    emit markFinished(int(r.kind), r.message);
    if (r.kind != MarkResult::Kind::Conflict && r.kind != MarkResult::Kind::DryRun) {
        m_view->reload(); // the new status, the audit row on the timeline, the proposal bar
    } else {
        updateActions();
        if (r.proposalId)
            refreshProposals(m_view->key());
    }
}

} // namespace triage
