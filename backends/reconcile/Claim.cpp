// The claim store (DESIGN.md §8 "Claims"): triage_claim in the idempotency database, a lease
// with expiry per (scope, subject), taken, renewed, taken over and released by compare-and-set
// on version, each change with its audit row in one transaction (scopes key and escalation).
#include "Claim.h"
#include "Escalation.h"
#include "ReconcileSqlUtil.h"

#include "Audit.h"
#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "SqlChunks.h"

#include <QJsonObject>
#include <QSqlQuery>

namespace triage {

using reconcile_sql::compactJson;
using reconcile_sql::textValue;

namespace {

/// A claim as read, with whether it had expired on the server's clock.
struct ClaimRow {
    Claim claim;
    bool expired = false;
};

QString claimColumns(const SqlDialect &d)
{
    return QStringLiteral("c.scope, c.subject, c.holder, %1, %2, c.reason, c.version, %3, "
                          "CASE WHEN c.expires_at <= %4 THEN 1 ELSE 0 END")
        .arg(d.timeText(QStringLiteral("c.claimed_at")), d.timeText(QStringLiteral("c.expires_at")),
             d.secondsSince(QStringLiteral("c.claimed_at")), d.nowValue());
}

ClaimRow claimFrom(const QSqlQuery &q)
{
    ClaimRow r;
    r.claim.scope = claimScopeFromName(columnText(q.value(0)).value_or(QString())).value_or(ClaimScope::Key);
    r.claim.subject = columnText(q.value(1)).value_or(QString());
    r.claim.holder = columnText(q.value(2)).value_or(QString());
    r.claim.claimedAt = canonicalTimeText(q.value(3));
    r.claim.expiresAt = canonicalTimeText(q.value(4));
    r.claim.reason = columnText(q.value(5)).value_or(QString());
    r.claim.version = q.value(6).toLongLong();
    r.claim.ageS = q.value(7).isNull() ? -1 : qMax<qint64>(0, qint64(q.value(7).toDouble()));
    r.expired = q.value(8).toInt() == 1;
    r.claim.expired = r.expired;
    return r;
}

std::optional<ClaimRow> readRow(DbSession &s, ClaimScope scope, const QString &subject)
{
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM triage_claim c WHERE c.scope = %2 AND c.subject = %3")
                             .arg(claimColumns(s.dialect()), b.bind(claimScopeName(scope)), b.bind(subject)),
                         b);
    if (!q.next())
        return std::nullopt;
    return claimFrom(q);
}

/// "key ticket:create:acme:1", "escalation 7", "the reconcile lease".
QString subjectText(ClaimScope scope, const QString &subject)
{
    switch (scope) {
    case ClaimScope::Key: return QStringLiteral("key %1").arg(subject);
    case ClaimScope::Escalation: return QStringLiteral("escalation %1").arg(subject);
    case ClaimScope::Reconcile: return QStringLiteral("the reconcile lease");
    }
    return subject;
}

ClaimResult result(ClaimResult::Kind kind, std::optional<Claim> claim, const QString &message)
{
    ClaimResult r;
    r.kind = kind;
    r.claim = std::move(claim);
    r.message = message;
    return r;
}

QJsonObject claimJson(const Claim &c)
{
    QJsonObject o{{QStringLiteral("holder"), c.holder},
                  {QStringLiteral("claimed_at"), c.claimedAt},
                  {QStringLiteral("expires_at"), c.expiresAt},
                  {QStringLiteral("version"), c.version}};
    if (!c.reason.isEmpty())
        o.insert(QStringLiteral("reason"), c.reason);
    return o;
}

/// Writes the audit row of a claim change (scopes key and escalation only: the reconcile
/// lease is recorded in triage_reconcile_run).
void audit(DbSession &s, ClaimScope scope, const QString &subject, QStringView action, const QString &holder,
           const std::optional<Claim> &from, const std::optional<Claim> &to, const QString &reason, const QString &outcome,
           const QString &detail = QString())
{
    if (scope == ClaimScope::Reconcile)
        return;
    AuditEntry a = auditStamp(action, claimAuditKey(scope, subject), holder, auditDbUser(s.profile()));
    if (from)
        a.fromState = compactJson(claimJson(*from));
    if (to)
        a.toState = compactJson(claimJson(*to));
    a.reason = reason.left(1000);
    a.outcome = outcome;
    a.detail = detail;
    audit_sql::insert(s, a);
}

/// After a lost compare-and-set (rolled back): the claim as it is now, as the caller sees it.
ClaimResult afterLostRace(DbSession &s, ClaimScope scope, const QString &subject, const QString &holder)
{
    const std::optional<ClaimRow> now = readRow(s, scope, subject);
    if (now && now->claim.holder == holder)
        return result(ClaimResult::Kind::Renewed, now->claim,
                      QStringLiteral("%1 is already held by %2 until %3").arg(subjectText(scope, subject), holder, now->claim.expiresAt));
    // Held by the winner, or taken and released (or expired) again in between: free now, the
    // caller may try again. Refused either way, and audited like every refusal.
    const QString why = now && !now->expired
        ? QStringLiteral("%1 is held by %2 until %3").arg(subjectText(scope, subject), now->claim.holder, now->claim.expiresAt)
        : QStringLiteral("%1 changed while it was being claimed: try again").arg(subjectText(scope, subject));
    const std::optional<Claim> claim = now ? std::optional<Claim>(now->claim) : std::nullopt;
    audit(s, scope, subject, audit_action::ClaimTake, holder, claim, std::nullopt, why, QStringLiteral("refused"), why);
    return result(ClaimResult::Kind::HeldByOther, claim, why);
}

} // namespace

QString claimScopeName(ClaimScope scope)
{
    switch (scope) {
    case ClaimScope::Key: return QStringLiteral("key");
    case ClaimScope::Escalation: return QStringLiteral("escalation");
    case ClaimScope::Reconcile: return QStringLiteral("reconcile");
    }
    return {};
}

std::optional<ClaimScope> claimScopeFromName(const QString &name)
{
    for (ClaimScope s : {ClaimScope::Key, ClaimScope::Escalation, ClaimScope::Reconcile})
        if (claimScopeName(s) == name)
            return s;
    return std::nullopt;
}

QString claimKindName(ClaimResult::Kind kind)
{
    switch (kind) {
    case ClaimResult::Kind::Taken: return QStringLiteral("taken");
    case ClaimResult::Kind::Renewed: return QStringLiteral("renewed");
    case ClaimResult::Kind::TakenOver: return QStringLiteral("taken-over");
    case ClaimResult::Kind::Released: return QStringLiteral("released");
    case ClaimResult::Kind::HeldByOther: return QStringLiteral("held-by-other");
    case ClaimResult::Kind::NotHeld: return QStringLiteral("not-held");
    case ClaimResult::Kind::Refused: return QStringLiteral("refused");
    }
    return {};
}

QString claimAuditKey(ClaimScope scope, const QString &subject)
{
    switch (scope) {
    case ClaimScope::Key: return subject;
    case ClaimScope::Escalation: return QStringLiteral("escalation:%1").arg(subject);
    case ClaimScope::Reconcile: return QStringLiteral("reconcile");
    }
    return subject;
}

QString claimAgeText(qint64 ageS)
{
    if (ageS < 0)
        return QStringLiteral("some time ago");
    if (ageS < 60)
        return QStringLiteral("%1 s ago").arg(ageS);
    if (ageS < 3600)
        return QStringLiteral("%1 min ago").arg(ageS / 60);
    if (ageS < 86400)
        return QStringLiteral("%1 h ago").arg(ageS / 3600);
    return QStringLiteral("%1 d ago").arg(ageS / 86400);
}

QString claimedByText(const Claim &claim)
{
    return QStringLiteral("claimed by %1, %2").arg(claim.holder, claimAgeText(claim.ageS));
}

QString claimedUntilText(const Claim &claim)
{
    return QStringLiteral("%1 (until %2)").arg(claimedByText(claim), claim.expiresAt);
}

bool claimAsksFirst(const std::optional<Claim> &claim, const QString &operatorName, qint64 elapsedMs)
{
    if (!claim || claim->expired || claim->holder == operatorName)
        return false;
    const std::optional<UtcMicros> claimed = parseUtcMicros(claim->claimedAt), expires = parseUtcMicros(claim->expiresAt);
    if (!claimed || !expires || claim->ageS < 0)
        return true; // the time left is unknown: ask
    const qint64 leftAtReadMs = (*expires - *claimed) / 1000 - claim->ageS * 1000;
    return elapsedMs < leftAtReadMs;
}

namespace claim_sql {

ClaimResult acquire(DbSession &session, ClaimScope scope, const QString &subject, const QString &holder, int ttlS,
                    const QString &takeoverReason)
{
    requireKnownConsoleSchema(session);
    requireReconcileTables(session);
    const QString what = subjectText(scope, subject);
    if (subject.isEmpty() || subject.size() > 255)
        return result(ClaimResult::Kind::Refused, std::nullopt,
                      QStringLiteral("a claim names a subject of 1 to 255 characters (got %1)").arg(subject.size()));
    // Operators are audited (triage_audit.operator: 64 characters); the run lease's holder
    // "reconciler:<host>:<pid>" may use the column's 128.
    const int holderMax = scope == ClaimScope::Reconcile ? 128 : 64;
    if (holder.isEmpty() || holder.size() > holderMax)
        return result(ClaimResult::Kind::Refused, std::nullopt,
                      QStringLiteral("a claim names a holder of 1 to %1 characters (got %2)").arg(holderMax).arg(holder.size()));
    if (ttlS < 1 || ttlS > kClaimMaxTtlS)
        return result(ClaimResult::Kind::Refused, std::nullopt,
                      QStringLiteral("a claim lasts 1 to %1 seconds (got %2)").arg(kClaimMaxTtlS).arg(ttlS));
    const QString reason = takeoverReason.trimmed();
    const bool takeover = !takeoverReason.isEmpty();
    if (takeover && (reason.size() < kOperatorReasonMinChars || reason.size() > 1000)) {
        const QString why = reason.size() > 1000
            ? QStringLiteral("a takeover reason is at most 1000 characters (got %1)").arg(reason.size())
            : QStringLiteral("a takeover needs a reason of at least %1 characters (got %2)").arg(kOperatorReasonMinChars).arg(reason.size());
        const std::optional<ClaimRow> now = readRow(session, scope, subject);
        audit(session, scope, subject, audit_action::ClaimTakeover, holder, now ? std::optional<Claim>(now->claim) : std::nullopt,
              std::nullopt, reason.isEmpty() ? why : reason, QStringLiteral("refused"), why);
        return result(ClaimResult::Kind::Refused, now ? std::optional<Claim>(now->claim) : std::nullopt, why);
    }

    const SqlDialect &d = session.dialect();
    session.begin();
    try {
        const std::optional<ClaimRow> before = readRow(session, scope, subject);
        if (!before) {
            SqlBuilder b;
            try {
                session.exec(QStringLiteral("INSERT INTO triage_claim (scope, subject, holder, claimed_at, expires_at, reason, version) "
                                            "VALUES (%1, %2, %3, %4, %5, %6, 1)")
                                 .arg(b.bind(claimScopeName(scope)), b.bind(subject), b.bind(holder), reconcile_sql::statementNow(d),
                                      reconcile_sql::nowPlusSeconds(d, b.bind(ttlS)), b.bind(textValue(reason))),
                             b);
            } catch (const DbException &e) {
                if (!e.error.isUniqueViolation())
                    throw;
                // Another holder inserted it first (PostgreSQL: the transaction is aborted).
                session.rollback();
                return afterLostRace(session, scope, subject, holder);
            }
            const std::optional<ClaimRow> now = readRow(session, scope, subject);
            audit(session, scope, subject, audit_action::ClaimTake, holder, std::nullopt, now->claim,
                  QStringLiteral("claimed for %1 s").arg(ttlS), QStringLiteral("applied"));
            session.commit();
            return result(ClaimResult::Kind::Taken, now->claim, QStringLiteral("%1 claimed by %2 until %3").arg(what, holder, now->claim.expiresAt));
        }
        const Claim &old = before->claim;
        ClaimResult::Kind kind;
        QString sets, extra;
        SqlBuilder b;
        if (old.holder == holder) {
            kind = ClaimResult::Kind::Renewed;
            sets = QStringLiteral("expires_at = %1").arg(reconcile_sql::nowPlusSeconds(d, b.bind(ttlS)));
        } else if (before->expired || takeover) {
            kind = before->expired ? ClaimResult::Kind::Taken : ClaimResult::Kind::TakenOver;
            sets = QStringLiteral("holder = %1, claimed_at = %2, expires_at = %3, reason = %4")
                       .arg(b.bind(holder), reconcile_sql::statementNow(d), reconcile_sql::nowPlusSeconds(d, b.bind(ttlS)),
                            b.bind(textValue(before->expired ? QString() : reason)));
            if (before->expired)
                extra = QStringLiteral(" AND expires_at <= %1").arg(d.nowValue());
        } else {
            session.rollback();
            const QString why = QStringLiteral("%1 is held by %2 until %3 (%4): take it over with a reason")
                                    .arg(what, old.holder, old.expiresAt, claimedByText(old));
            audit(session, scope, subject, audit_action::ClaimTake, holder, old, std::nullopt, why, QStringLiteral("refused"), why);
            return result(ClaimResult::Kind::HeldByOther, old, why);
        }
        QSqlQuery q = session.exec(QStringLiteral("UPDATE triage_claim SET %1, version = version + 1 WHERE scope = %2 AND subject = %3 "
                                                  "AND version = %4%5")
                                       .arg(sets, b.bind(claimScopeName(scope)), b.bind(subject), b.bind(old.version), extra),
                                   b);
        if (q.numRowsAffected() != 1) {
            session.rollback();
            return afterLostRace(session, scope, subject, holder);
        }
        const std::optional<ClaimRow> now = readRow(session, scope, subject);
        QString message;
        switch (kind) {
        case ClaimResult::Kind::Renewed:
            audit(session, scope, subject, audit_action::ClaimTake, holder, old, now->claim, QStringLiteral("renewed for %1 s").arg(ttlS),
                  QStringLiteral("applied"));
            // A shorter --ttl moves the expiry earlier: said, not hidden (DESIGN.md §8 "Claims").
            message = now->claim.expiresAt < old.expiresAt
                ? QStringLiteral("%1: claim of %2 renewed; now expires at %3 (earlier than before: %4)")
                      .arg(what, holder, now->claim.expiresAt, old.expiresAt)
                : QStringLiteral("%1: claim of %2 renewed until %3").arg(what, holder, now->claim.expiresAt);
            break;
        case ClaimResult::Kind::Taken:
            audit(session, scope, subject, audit_action::ClaimTake, holder, old, now->claim,
                  QStringLiteral("claimed for %1 s (the claim of %2 had expired)").arg(ttlS).arg(old.holder), QStringLiteral("applied"));
            message = QStringLiteral("%1 claimed by %2 until %3 (the claim of %4 had expired)").arg(what, holder, now->claim.expiresAt, old.holder);
            break;
        default:
            audit(session, scope, subject, audit_action::ClaimTakeover, holder, old, now->claim, reason, QStringLiteral("applied"),
                  QStringLiteral("taken over from %1").arg(old.holder));
            message = QStringLiteral("%1 taken over by %2 from %3 (held until %4) until %5")
                          .arg(what, holder, old.holder, old.expiresAt, now->claim.expiresAt);
            break;
        }
        session.commit();
        return result(kind, now->claim, message);
    } catch (const DbException &) {
        session.rollback();
        throw;
    }
}

ClaimResult release(DbSession &session, ClaimScope scope, const QString &subject, const QString &holder)
{
    requireKnownConsoleSchema(session);
    requireReconcileTables(session);
    const QString what = subjectText(scope, subject);
    session.begin();
    try {
        const std::optional<ClaimRow> before = readRow(session, scope, subject);
        if (!before || before->claim.holder != holder) {
            session.rollback();
            if (!before)
                return result(ClaimResult::Kind::NotHeld, std::nullopt, QStringLiteral("%1 is not claimed").arg(what));
            return result(ClaimResult::Kind::NotHeld, before->claim,
                          QStringLiteral("%1 is held by %2, not by %3: nothing released").arg(what, before->claim.holder, holder));
        }
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("DELETE FROM triage_claim WHERE scope = %1 AND subject = %2 AND holder = %3 AND version = %4")
                                       .arg(b.bind(claimScopeName(scope)), b.bind(subject), b.bind(holder), b.bind(before->claim.version)),
                                   b);
        if (q.numRowsAffected() != 1) {
            session.rollback();
            const std::optional<ClaimRow> now = readRow(session, scope, subject);
            return result(ClaimResult::Kind::NotHeld, now ? std::optional<Claim>(now->claim) : std::nullopt,
                          now ? QStringLiteral("%1 is held by %2 now: nothing released").arg(what, now->claim.holder)
                              : QStringLiteral("%1 is not claimed").arg(what));
        }
        audit(session, scope, subject, audit_action::ClaimRelease, holder, before->claim, std::nullopt, QStringLiteral("released"),
              QStringLiteral("applied"));
        session.commit();
        return result(ClaimResult::Kind::Released, std::nullopt, QStringLiteral("%1 released by %2").arg(what, holder));
    } catch (const DbException &) {
        session.rollback();
        throw;
    }
}

std::optional<Claim> current(DbSession &session, ClaimScope scope, const QString &subject)
{
    requireReconcileTables(session);
    const std::optional<ClaimRow> row = readRow(session, scope, subject);
    if (!row || row->expired)
        return std::nullopt;
    return row->claim;
}

QHash<QString, Claim> activeFor(DbSession &session, ClaimScope scope, const QStringList &subjects)
{
    requireReconcileTables(session);
    QHash<QString, Claim> claims;
    forEachInListChunk(
        session, subjects,
        [&session, scope](SqlBuilder &b, const QString &in) {
            return QStringLiteral("SELECT %1 FROM triage_claim c WHERE c.scope = %2 AND c.subject IN (%3) AND c.expires_at > %4")
                .arg(claimColumns(session.dialect()), b.bind(claimScopeName(scope)), in, session.dialect().nowValue());
        },
        [&claims](const QSqlQuery &q) {
            const ClaimRow r = claimFrom(q);
            claims.insert(r.claim.subject, r.claim);
        });
    return claims;
}

QVector<Claim> list(DbSession &session, bool includeExpired)
{
    requireReconcileTables(session);
    SqlBuilder b;
    QStringList where;
    if (!includeExpired)
        where << QStringLiteral("c.expires_at > %1").arg(session.dialect().nowValue());
    QSqlQuery q = session.exec(
        selectSql(b, claimColumns(session.dialect()), QStringLiteral("triage_claim c"), where,
                  QStringLiteral("c.claimed_at DESC, c.scope, c.subject"), 0),
        b);
    QVector<Claim> rows;
    while (q.next())
        rows << claimFrom(q).claim;
    return rows;
}

} // namespace claim_sql

} // namespace triage
