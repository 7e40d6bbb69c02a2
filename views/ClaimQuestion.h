#pragma once

#include "Claim.h"

#include <QString>

#include <functional>

class QMessageBox;
class QObject;
class QWidget;

namespace triage {

/// The question asked before acting on a key someone else holds (DESIGN.md §8 "Claims"): a
/// window-modal box on `parent` titled "Key claimed by <holder>", saying "<key> is claimed by
/// alice, 4 min ago (until <expires_at>).\n\n<question> Their claim stays; your <what> is
/// audited as usual.", with Cancel (the default: nothing happens) and `goLabel`, which calls
/// `go` (through `context`: never after `context` is gone). Deleted when closed. Whether to
/// ask is the caller's claimAsksFirst(); this only asks.
QMessageBox *askBeforeActingOnClaimedKey(QWidget *parent, QObject *context, const QString &key, const Claim &claim,
                                         const QString &question, const QString &what, const QString &goLabel,
                                         std::function<void()> go);

/// The question asked before a bulk action on keys some of which others hold (DESIGN.md §8,
/// bulk marks from the queues): a window-modal box on `parent` titled "Keys claimed by
/// others", saying `text` (bulkClaimQuestionText()), with Cancel (the default: nothing
/// happens), "Skip claimed keys" (calls `skip`) and "Mark all anyway" (calls `all`), each
/// through `context`. Deleted when closed. Whether to ask is the caller's claimsAskingFirst().
QMessageBox *askBeforeBulkActingOnClaimedKeys(QWidget *parent, QObject *context, const QString &text, std::function<void()> skip,
                                              std::function<void()> all);

} // namespace triage
