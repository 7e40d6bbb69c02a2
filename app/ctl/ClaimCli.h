#pragma once
// What claim, release and claims print (DESIGN.md §8 "Claims"): one shared shape.

#include "Command.h"

#include "Claim.h"
#include "ClaimGuard.h"

#include <QJsonObject>

namespace triage::ctl {

/// A claim as JSON: scope, subject, holder, claimed_at, expires_at, expired, age_s, reason
/// (null when none), version, claimed ("claimed by alice, 4 min ago").
QJsonObject claimJson(const Claim &claim);

/// Prints the outcome of a claim or release (the message line; JSON: outcome, message and
/// the claim as it is now or null) and returns its exit code (DESIGN.md §5): 0 taken,
/// renewed, taken over or released; 3 held by another or not held (their state wins);
/// 4 refused (a takeover reason too short, read-only mode); a database failure's own code.
int reportClaim(const CommandContext &context, const Outcome<ClaimResult> &outcome);

/// Reads --escalation ID (a positive integer) when given: the claim's scope and subject,
/// else scope Key and the KEY argument. False after a usage message.
bool readClaimSubject(const CommandContext &context, const QString &command, ClaimScope *scope, QString *subject);

/// The --despite-claim option of mark, compensate and escalations resolve (DESIGN.md §8
/// "Claims stop others").
QCommandLineOption despiteClaimOption();

/// Claims stop others (DESIGN.md §8): the live claims of other operators on `keys` (or on
/// escalation `escalationId` and its key). Without --despite-claim each is an error line
/// "<holder's claim>: nothing <done> (--despite-claim acts anyway, audited)"; with it, the
/// held keys' `notes` get ClaimBlock::despiteNote() for the audited reason. Returns the
/// blocks (empty: nobody else holds them), or nullopt after a database failure
/// (`*failureCode` set).
std::optional<QHash<QString, ClaimBlock>> readClaimBlocks(Workspace &ws, const CommandContext &context, const QStringList &keys,
                                                          std::optional<qint64> escalationId, int *failureCode);

/// The message of a refusal by `block` for an action that would have `done` ("marked").
QString claimRefusalText(const ClaimBlock &block, const QString &done);

/// Claims stop others for one action on `key` (mark, compensate; DESIGN.md §8): ExitOk when
/// nobody else holds it, or with --despite-claim (then ClaimBlock::despiteNote() is appended to
/// `*reason`, the audited reason); else the refusal printed and ExitConflict, or a database
/// failure's exit code. `done` names the action in the refusal ("marked").
int checkClaimOnKey(Workspace &ws, const CommandContext &context, const QString &key, const QString &done, QString *reason);

} // namespace triage::ctl
