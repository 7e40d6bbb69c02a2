#pragma once
// Claims stop others (DESIGN.md §8 "Claims stop others"): the one rule that decides whether
// an operator's action that writes on a key (mark, compensate, resolving an escalation) is
// held back by another operator's live claim — on the key itself, on the escalation being
// resolved, or on any open escalation of the key. triagectl refuses such an action (exit 3)
// unless --despite-claim; the console asks first. The reconciler skips such keys.

#include "Claim.h"
#include "Escalation.h"
#include "KeyDetailTypes.h"

#include <QFuture>
#include <QHash>
#include <QStringList>

#include <optional>

namespace triage {

class Workspace;

/// A live claim of someone else on a key's work.
struct ClaimBlock {
    QString idemKey;            ///< the key the action writes on
    Claim claim;                ///< the blocking claim (scope Key or Escalation)
    QString escalationKeyText;  ///< " of key K" when the claim is on an escalation of the key, else ""
    /// "key K is held by alice until T (claimed by alice, 4 min ago)" or "escalation 13 of key
    /// K is held by carol until T (claimed by carol, 2 min ago)".
    QString message() const;
    /// The text appended to an overriding action's audited reason:
    /// " [despite the claim of alice on key K until T]".
    QString despiteNote() const;
};

namespace claim_sql {
/// The live claims held by anyone but `operatorName` that stop an action on each of `keys`
/// (DESIGN.md §8 "Claims stop others"): the claim on the key, else the claim on the open
/// escalation `escalationId` (when given and of that key), else the claim on the key's lowest
/// open escalation id. Keys with no such claim are absent. A database without the claim table
/// (console schema version < 4) blocks nothing. Throws DbException.
QHash<QString, ClaimBlock> blockingClaims(DbSession &session, const QStringList &keys, const QString &operatorName,
                                          std::optional<qint64> escalationId = std::nullopt);
} // namespace claim_sql

/// blockingClaims() on the idempotency store's worker for `keys` as `operatorName` (default:
/// the workspace's operator). With `escalationId` and no keys, the escalation's own key is
/// used (an unknown escalation blocks nothing: the action reports it).
QFuture<Outcome<QHash<QString, ClaimBlock>>> claimBlocks(Workspace &ws, const QStringList &keys,
                                                         std::optional<qint64> escalationId = std::nullopt,
                                                         const QString &operatorName = QString());

/// The claim that holds each key's work, as the console shows it and asks about before acting
/// (DESIGN.md §8 "Claims stop others"): someone else's live claim that stops this workspace's
/// operator — on the key, else on one of its open escalations (scope Escalation, the lowest
/// id), exactly what triagectl refuses on — else the operator's own claim on the key. Keys
/// with none are absent. On the idempotency store's worker (claims are read from the primary).
QFuture<Outcome<QHash<QString, Claim>>> keyWorkClaims(Workspace &ws, const QStringList &keys);

/// The keys of a bulk action from the console that ask first (DESIGN.md §8 "Acting on a key
/// someone else holds asks first", bulk marks from the queues): each of `keys`, in order, whose
/// claim in `claims` (activeClaims() of scope Key, read `elapsedMs` ms ago on the caller's
/// clock) claimAsksFirst() for `operatorName` — as a ClaimBlock on the key (its message() and
/// despiteNote() are the report's and the audited reason's texts). Pure.
QVector<ClaimBlock> claimsAskingFirst(const QStringList &keys, const QHash<QString, Claim> &claims, const QString &operatorName,
                                      qint64 elapsedMs);

/// The bulk question (DESIGN.md §8): "3 of 12 keys are claimed by others (alice: 2, bob: 1).
/// Mark them anyway? Their claims stay; your marks are audited as usual." for `held` (from
/// claimsAskingFirst()) among `total` keys; holders by count (most first), then name. One held
/// key: "1 of 12 keys is claimed by others (alice: 1). Mark it anyway? Its claim stays; …".
/// Pure.
QString bulkClaimQuestionText(const QVector<ClaimBlock> &held, int total);

/// A claim names something that exists (DESIGN.md §8 "Claims"): nullopt when `detail` shows
/// the key somewhere — a record (through the schema mapping), a ticket or an intent attempt —
/// or `escalations` (of the key, open or resolved) is above 0, or a store could not be read;
/// else the refusal "no key K: no record, ticket, intent attempt or escalation carries it".
/// Pure.
std::optional<QString> unknownKeyText(const KeyDetail &detail, qint64 escalations);

/// The escalation `id` as stored now (open or resolved), nullopt when there is none —
/// escalation_sql::byId() on the idempotency store's worker. Fails with Config on a database
/// without the escalation tables (requireReconcileTables()).
QFuture<Outcome<std::optional<Escalation>>> escalationById(Workspace &ws, qint64 id);

} // namespace triage
