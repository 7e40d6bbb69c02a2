#pragma once
// The bulk mark from the queues (DESIGN.md §2 bulk actions, §8 "Acting on a key someone else
// holds asks first"): the claims read off the GUI thread, the confirmation, the question about
// claimed keys, the marks and the per-row report.

#include "KeyDetail.h"
#include "RecordStatus.h"

#include <QVector>

namespace triage {

class MainWindow;
class Workspace;

/// Reads the live claims on the keys of `details` (activeClaims() on the idempotency worker),
/// then opens the BulkMarkDialog on `window` with the keys other operators hold marked
/// (claimsAskingFirst()). Accepting it marks at once when nobody else holds a key, or for a
/// dry run; otherwise it first asks (askBeforeBulkActingOnClaimedKeys(), bulkClaimQuestionText()):
/// Cancel writes nothing; "Skip claimed keys" marks only the others and the report lists the
/// skipped keys with their claims; "Mark all anyway" marks every key, the held ones with
/// ClaimBlock::despiteNote() appended to the audited reason (as triagectl --despite-claim).
/// Whether a key still asks is decided again when the operator accepts (a claim that ran out
/// meanwhile asks nothing). Every dialog is announced by MainWindow::bulkDialogOpened(). A
/// failed claim read is logged and the confirmation opens without claims (as the key detail).
void confirmBulkMark(MainWindow *window, Workspace *workspace, QVector<KeyDetail> details, RecordStatusCode toStatus);

} // namespace triage
