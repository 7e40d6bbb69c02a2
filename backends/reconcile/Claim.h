#pragma once
// CONTRACT (written by the lead before implementation; implementers may add members and
// functions, but keep these names and meanings: two helpers code against them).
//
// Claims and leases (DESIGN.md §8 "Claims"): console-owned triage_claim in the idempotency
// database. A claim is a lease with expiry on one subject, taken by compare-and-set so two
// holders never hold it at once; the reconciler's run lease is a claim of scope Reconcile on
// subject "reconcile". Times are the server's clock (canonical ISO UTC). Every take, renew,
// release and takeover of scope Key / Escalation is audited (actions "claim.take",
// "claim.release", "claim.takeover"; idem_key = the key, or "escalation:<id>"); the Reconcile
// lease is recorded in triage_reconcile_run instead of the audit.

#include "DbSession.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// What a claim is on.
enum class ClaimScope { Key, Escalation, Reconcile };
/// "key", "escalation", "reconcile".
QString claimScopeName(ClaimScope scope);
std::optional<ClaimScope> claimScopeFromName(const QString &name);

/// One claim row.
struct Claim {
    ClaimScope scope = ClaimScope::Key;
    QString subject;      ///< the idempotency key, the escalation id as text, or "reconcile"
    QString holder;       ///< operator name (or "reconciler:<run id>")
    QString claimedAt;    ///< when this holder took it (renewals keep it)
    QString expiresAt;    ///< server time after which anyone may take it
    QString reason;       ///< takeover reason ("" otherwise)
    qint64 version = 1;   ///< compare-and-set
    /// Whole seconds since claimedAt on the server's clock at read time (for "claimed by
    /// alice, 4 min ago"), -1 unknown.
    qint64 ageS = -1;
    /// expiresAt had passed on the server's clock when read (only list(…, true) returns such).
    bool expired = false;
};

/// What a claim operation did.
struct ClaimResult {
    enum class Kind {
        Taken,       ///< nobody held it (or the old lease had expired): now ours
        Renewed,     ///< we held it: expiry moved
        TakenOver,   ///< someone else held it; taken with a reason (audited with theirs)
        Released,    ///< ours, now free
        HeldByOther, ///< someone else holds an unexpired lease: `claim` is theirs, nothing written
        NotHeld,     ///< release of a claim we do not hold: nothing written
        Refused,     ///< e.g. takeover without a reason ≥ 10 characters; `message` says why
    };
    Kind kind = Kind::Refused;
    std::optional<Claim> claim; ///< the row as it is now (nullopt when none)
    QString message;            ///< one line for operators
};

/// "taken", "renewed", "taken-over", "released", "held-by-other", "not-held", "refused".
QString claimKindName(ClaimResult::Kind kind);

/// The longest claim (seconds): a day. The CLI's default is kClaimDefaultTtlS.
constexpr int kClaimMaxTtlS = 86400;
/// The CLI's and console's claim length when none is given (seconds): 30 min.
constexpr int kClaimDefaultTtlS = 1800;

/// The triage_audit idem_key of a claim change: the key (scope Key), "escalation:<id>"
/// (scope Escalation), "reconcile" (never audited).
QString claimAuditKey(ClaimScope scope, const QString &subject);
/// "45 s ago", "4 min ago", "3 h ago", "2 d ago" for an age in whole seconds (floored);
/// "some time ago" when unknown (< 0).
QString claimAgeText(qint64 ageS);
/// "claimed by alice, 4 min ago" (DESIGN.md §8 "Claims"): the one text queues, the key
/// detail and the escalations show for a claim.
QString claimedByText(const Claim &claim);
/// "claimed by alice, 4 min ago (until 2026-12-03T05:00:00.000000Z)": claimedByText() with the
/// claim's expiry (server time), as the questions and the bulk confirmation show it.
QString claimedUntilText(const Claim &claim);

/// Whether acting on a key as `operatorName` asks first (DESIGN.md §8 "Claims": acting on a
/// key someone else holds asks first): `claim`, the key's claim as read (claim_sql::activeFor(),
/// live then), is another holder's and has not run out in the `elapsedMs` ms since it was read.
/// The time it had left is taken on the server's clock at the read (expires_at − claimed_at −
/// ageS; ageS is floored, so up to a second generous) and counted down on the caller's clock:
/// the two clocks are never compared. nullopt, an expired claim or the operator's own: false;
/// an unreadable expiry: true. Pure.
bool claimAsksFirst(const std::optional<Claim> &claim, const QString &operatorName, qint64 elapsedMs);

namespace claim_sql {
/// Takes or renews the claim on (scope, subject) for `holder` for `ttlS` seconds, by
/// compare-and-set (INSERT when there is no row; otherwise UPDATE … WHERE version = read
/// version AND (expired OR holder = us)); a lost race reads again and reports HeldByOther.
/// With `takeoverReason` (≥ 10 characters) an unexpired claim of another holder is taken over.
/// Each call is its own transaction with its audit row (scopes Key / Escalation). Throws
/// DbException for store failures only.
ClaimResult acquire(DbSession &session, ClaimScope scope, const QString &subject, const QString &holder, int ttlS,
                    const QString &takeoverReason = QString());
/// Releases the claim if `holder` holds it (expired or not). Throws DbException.
ClaimResult release(DbSession &session, ClaimScope scope, const QString &subject, const QString &holder);
/// The unexpired claim on (scope, subject), if any. Throws DbException.
std::optional<Claim> current(DbSession &session, ClaimScope scope, const QString &subject);
/// The unexpired claims of `scope` on `subjects` (one statement per ≤ 500 subjects), by
/// subject. For queue decoration and the reconciler's "skip claimed keys". Throws DbException.
QHash<QString, Claim> activeFor(DbSession &session, ClaimScope scope, const QStringList &subjects);
/// Every claim (unexpired only unless `includeExpired`), newest first. Throws DbException.
QVector<Claim> list(DbSession &session, bool includeExpired = false);
} // namespace claim_sql

} // namespace triage
