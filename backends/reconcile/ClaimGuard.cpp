// Claims stop others (DESIGN.md §8 "Claims stop others"): one rule for triagectl, the console
// and the reconciler.
#include "ClaimGuard.h"

#include "EscalationService.h"
#include "Escalation.h"
#include "Workspace.h"

#include <QMap>
#include <QSet>

#include <algorithm>

namespace triage {

QString ClaimBlock::message() const
{
    const QString what = claim.scope == ClaimScope::Escalation ? QStringLiteral("escalation %1%2").arg(claim.subject, escalationKeyText)
                                                               : QStringLiteral("key %1").arg(claim.subject);
    return QStringLiteral("%1 is held by %2 until %3 (%4)").arg(what, claim.holder, claim.expiresAt, claimedByText(claim));
}

QString ClaimBlock::despiteNote() const
{
    const QString what = claim.scope == ClaimScope::Escalation ? QStringLiteral("escalation %1").arg(claim.subject)
                                                               : QStringLiteral("key %1").arg(claim.subject);
    return QStringLiteral(" [despite the claim of %1 on %2 until %3]").arg(claim.holder, what, claim.expiresAt);
}

namespace claim_sql {

QHash<QString, ClaimBlock> blockingClaims(DbSession &session, const QStringList &keys, const QString &operatorName,
                                          std::optional<qint64> escalationId)
{
    QHash<QString, ClaimBlock> blocks;
    if (keys.isEmpty() || !session.hasTable(QStringLiteral("triage_claim")))
        return blocks;
    const QHash<QString, Claim> byKey = activeFor(session, ClaimScope::Key, keys);
    QStringList rest;
    for (const QString &k : keys) {
        const auto it = byKey.constFind(k);
        if (it != byKey.cend() && it->holder != operatorName) {
            ClaimBlock b;
            b.idemKey = k;
            b.claim = *it;
            blocks.insert(k, b);
        } else {
            rest << k;
        }
    }
    if (rest.isEmpty() || !session.hasTable(QStringLiteral("triage_escalation")))
        return blocks;
    QVector<Escalation> open = escalation_sql::openForKeys(session, rest);
    if (escalationId && std::none_of(open.cbegin(), open.cend(), [&](const Escalation &e) { return e.id == *escalationId; }))
        if (const std::optional<Escalation> e = escalation_sql::byId(session, *escalationId); e && rest.contains(e->idemKey))
            open << *e; // resolved already: its claim still counts for the action that names it
    QStringList ids;
    for (const Escalation &e : open)
        ids << QString::number(e.id);
    const QHash<QString, Claim> byId = activeFor(session, ClaimScope::Escalation, ids);
    // The named escalation first, then the lowest id per key.
    std::sort(open.begin(), open.end(), [&](const Escalation &a, const Escalation &b) {
        const bool an = escalationId && a.id == *escalationId, bn = escalationId && b.id == *escalationId;
        return an != bn ? an : a.id < b.id;
    });
    for (const Escalation &e : std::as_const(open)) {
        if (blocks.contains(e.idemKey))
            continue;
        const auto it = byId.constFind(QString::number(e.id));
        if (it == byId.cend() || it->holder == operatorName)
            continue;
        ClaimBlock b;
        b.idemKey = e.idemKey;
        b.claim = *it;
        b.escalationKeyText = QStringLiteral(" of key %1").arg(e.idemKey);
        blocks.insert(e.idemKey, b);
    }
    return blocks;
}

} // namespace claim_sql

QFuture<Outcome<QHash<QString, ClaimBlock>>> claimBlocks(Workspace &ws, const QStringList &keys, std::optional<qint64> escalationId,
                                                         const QString &operatorName)
{
    const QString who = claimOperator(ws, operatorName);
    return ws.worker(DbRole::Idempotency).run<QHash<QString, ClaimBlock>>([=](DbSession &s) {
        QStringList subjects = keys;
        if (subjects.isEmpty() && escalationId && s.hasTable(QStringLiteral("triage_escalation")))
            if (const std::optional<Escalation> e = escalation_sql::byId(s, *escalationId))
                subjects << e->idemKey;
        return claim_sql::blockingClaims(s, subjects, who, escalationId);
    });
}

QFuture<Outcome<QHash<QString, Claim>>> keyWorkClaims(Workspace &ws, const QStringList &keys)
{
    const QString who = claimOperator(ws, QString());
    return ws.worker(DbRole::Idempotency).run<QHash<QString, Claim>>([=](DbSession &s) {
        QHash<QString, Claim> out;
        if (keys.isEmpty() || !s.hasTable(QStringLiteral("triage_claim")))
            return out;
        // Someone else's claim that stops this operator (the key's, else an open escalation's),
        // as triagectl refuses on it; else this operator's own claim on the key.
        const QHash<QString, ClaimBlock> blocks = claim_sql::blockingClaims(s, keys, who);
        for (auto it = blocks.cbegin(); it != blocks.cend(); ++it)
            out.insert(it.key(), it->claim);
        const QHash<QString, Claim> own = claim_sql::activeFor(s, ClaimScope::Key, keys);
        for (auto it = own.cbegin(); it != own.cend(); ++it)
            if (!out.contains(it.key()))
                out.insert(it.key(), *it);
        return out;
    });
}

QVector<ClaimBlock> claimsAskingFirst(const QStringList &keys, const QHash<QString, Claim> &claims, const QString &operatorName,
                                      qint64 elapsedMs)
{
    QVector<ClaimBlock> held;
    QSet<QString> seen;
    for (const QString &k : keys) {
        if (seen.contains(k))
            continue;
        seen.insert(k);
        const auto it = claims.constFind(k);
        if (it == claims.cend() || !claimAsksFirst(*it, operatorName, elapsedMs))
            continue;
        ClaimBlock b;
        b.idemKey = k;
        b.claim = *it;
        if (it->scope == ClaimScope::Escalation) // keyWorkClaims(): a claim on one of the key's escalations
            b.escalationKeyText = QStringLiteral(" of key %1").arg(k);
        held << b;
    }
    return held;
}

QString bulkClaimQuestionText(const QVector<ClaimBlock> &held, int total)
{
    QMap<QString, int> byHolder;
    for (const ClaimBlock &b : held)
        ++byHolder[b.claim.holder];
    QVector<std::pair<QString, int>> holders; // by name (QMap), then most first (stable)
    for (auto it = byHolder.cbegin(); it != byHolder.cend(); ++it)
        holders.append({it.key(), it.value()});
    std::stable_sort(holders.begin(), holders.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    QStringList parts;
    for (const auto &[holder, n] : holders)
        parts << QStringLiteral("%1: %2").arg(holder).arg(n);
    const bool one = held.size() == 1;
    return QStringLiteral("%1 of %2 %3 claimed by others (%4). Mark %5 anyway? %6 stay%7; your marks are audited as usual.")
        .arg(held.size())
        .arg(total)
        .arg(total == 1 ? QStringLiteral("key is") : one ? QStringLiteral("keys is") : QStringLiteral("keys are"),
             parts.join(QStringLiteral(", ")), one ? QStringLiteral("it") : QStringLiteral("them"),
             one ? QStringLiteral("Its claim") : QStringLiteral("Their claims"), one ? QStringLiteral("s") : QString());
}

std::optional<QString> unknownKeyText(const KeyDetail &d, qint64 escalations)
{
    if (d.record || !d.tickets.isEmpty() || !d.attempts.isEmpty() || !d.errors.isEmpty() || escalations > 0)
        return std::nullopt;
    return QStringLiteral("no key %1: no record, ticket, intent attempt or escalation carries it").arg(d.idemKey);
}

QFuture<Outcome<std::optional<Escalation>>> escalationById(Workspace &ws, qint64 id)
{
    return ws.worker(DbRole::Idempotency).run<std::optional<Escalation>>([id](DbSession &s) {
        requireReconcileTables(s);
        return escalation_sql::byId(s, id);
    });
}

} // namespace triage
