#pragma once

#include "Compensation.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "UpstreamCheck.h"

#include <QObject>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>

#include <functional>
#include <memory>

namespace triage {

class DetailHeader;
class DetailTabs;
class KeyDetailView;
class MarkDialog;
class UpstreamClient;
class Workspace;

/// The actions of the key detail (DESIGN.md §2 "Query upstream", "Mark SUCCESS / Mark
/// FAILED"): enables the header's buttons per the allowed transitions (with the reason in
/// their tooltip when disabled: read-only workspace, SUCCESS is final, no upstream, what
/// decideMark() still refuses), starts an upstream query (checkUpstream(), recorded in the
/// audit trail) or a mark (MarkDialog, then markRecord() with the state shown as the
/// compare-and-set's expectation) and routes each result to the header's bars and the
/// Upstream tab. Never blocks: every action returns at once and its answer arrives later.
class MarkQueryController : public QObject {
    Q_OBJECT
public:
    /// `view` shows the key and its detail; `workspace` must outlive it; `header` and `tabs`
    /// are the view's parts this controller drives.
    MarkQueryController(KeyDetailView *view, Workspace *workspace, DetailHeader *header, DetailTabs *tabs);

    /// The upstream client for "Query upstream" (nullptr: none; the button is disabled). Not owned.
    void setUpstreamClient(UpstreamClient *client);
    /// The compensation service that approves a compensation proposal (CompensationRunner::
    /// approve()); without one the proposal bar offers no "Approve…" for such a proposal.
    void setCompensationRunner(std::shared_ptr<CompensationRunner> runner);
    /// Enables / disables the action buttons for the view's current state.
    void updateActions();
    /// See KeyDetailView::queryUpstream().
    bool queryUpstream();
    /// See KeyDetailView::openMarkDialog(). `claimConfirmed`: the operator already said to
    /// act on a key someone else holds.
    MarkDialog *openMarkDialog(RecordStatusCode toStatus, bool claimConfirmed = false);
    /// See KeyDetailView::claimQuestion().
    QMessageBox *claimQuestion() const { return m_claimQuestion; }
    /// See KeyDetailView::applySuggestion().
    MarkDialog *applySuggestion();
    /// See KeyDetailView::submitMark().
    void submitMark(const MarkRequest &request);
    /// The reason prompt of the proposal bar's "Approve…" (nullptr when not open): accepting
    /// it approves the shown proposal as this workspace's operator (approveProposal()).
    QInputDialog *approveDialog() const { return m_approveDialog; }
    /// The reason prompt of the proposal bar's "Reject…" (nullptr when not open): accepting it
    /// rejects the shown proposal (rejectProposal(); its proposer may, to withdraw it).
    QInputDialog *rejectDialog() const { return m_rejectDialog; }
    /// The open proposal the proposal bar shows, if any.
    std::optional<ProposalRow> shownProposal() const { return m_proposal; }
    /// True while a mark or an upstream query runs.
    bool isBusy() const { return m_markBusy || m_queryBusy; }

signals:
    /// A mark changed `key`'s record (applied).
    void recordChanged(const QString &key);
    /// An upstream query for `key` has been answered and is shown in the Upstream tab.
    void upstreamChecked(const QString &key);
    /// A mark finished with `kind` (MarkResult::Kind; Error also for a store failure).
    void markFinished(int kind, const QString &message);
    /// A rejection finished: `ok` when the proposal is now rejected; `message` as shown in the
    /// action bar.
    void rejectFinished(bool ok, const QString &message);
    /// The approval of a compensation proposal finished with `kind` (CompensationOutcome::Kind);
    /// `message` as shown in the action bar.
    void compensationApprovalFinished(int kind, const QString &message);

private:
    void onMarkResult(const Outcome<MarkResult> &outcome);
    void onCompensationApproval(const CompensationOutcome &outcome);
    /// Reads `key`'s open four-eyes proposals and shows the oldest in the proposal bar.
    void refreshProposals(const QString &key);
    void openApproveDialog();
    void openRejectDialog();
    /// The reason prompt of an approval or rejection of proposal `p` (window title "<verb>
    /// proposal N", `label`, OK button `verb`), opened; accepting it marks this controller busy,
    /// says "<doing> proposal N…" in the action bar and calls `onReason` with the reason.
    QInputDialog *proposalReasonDialog(const ProposalRow &p, const QString &verb, const QString &doing, const QString &label,
                                       std::function<void(const QString &)> onReason);

    KeyDetailView *m_view;
    QPointer<QMessageBox> m_claimQuestion;
    QPointer<QInputDialog> m_approveDialog;
    QPointer<QInputDialog> m_rejectDialog;
    std::optional<ProposalRow> m_proposal;
    Workspace *m_workspace;
    DetailHeader *m_header;
    DetailTabs *m_tabs;
    UpstreamClient *m_upstream = nullptr;
    std::shared_ptr<CompensationRunner> m_compensations;
    bool m_markBusy = false;
    bool m_queryBusy = false;
};

} // namespace triage
