// What changed between two reads of one key's detail (KeyDetailChanges.h).
#include "KeyDetailChanges.h"

#include <QHash>
#include <QSet>

namespace triage {

namespace {

QString text(const NullableText &t)
{
    return t ? *t : QStringLiteral("NULL");
}

/// Rows keyed by `idOf`, compared by `statusOf`: appeared, moved, gone (in `after`'s order, the
/// gone ones in `before`'s order), as "<noun> <id> …" lines.
template <typename Row, typename IdOf, typename StatusOf>
void compareRows(QStringList &out, const QString &noun, const QVector<Row> &before, const QVector<Row> &after, IdOf idOf,
                 StatusOf statusOf)
{
    QHash<QString, QString> was;
    for (const Row &r : before)
        was.insert(idOf(r), statusOf(r));
    QSet<QString> seen;
    for (const Row &r : after) {
        const QString id = idOf(r);
        seen.insert(id);
        const QString now = statusOf(r);
        if (!was.contains(id))
            out << QStringLiteral("%1 %2 appeared (%3)").arg(noun, id, now);
        else if (was.value(id) != now)
            out << QStringLiteral("%1 %2 %3 \u2192 %4").arg(noun, id, was.value(id), now);
    }
    for (const Row &r : before)
        if (!seen.contains(idOf(r)))
            out << QStringLiteral("%1 %2 gone").arg(noun, idOf(r));
}

} // namespace

QStringList keyDetailChanges(const KeyDetail &before, const KeyDetail &after)
{
    QStringList out;
    auto readBoth = [&](DbRole role) { return !before.errors.contains(role) && !after.errors.contains(role); };
    if (readBoth(DbRole::Idempotency)) {
        if (!before.record && after.record) {
            out << QStringLiteral("record appeared (%1)").arg(after.record->statusText);
        } else if (before.record && !after.record) {
            out << QStringLiteral("record gone");
        } else if (before.record && after.record) {
            const RecordDetail &b = *before.record, &a = *after.record;
            if (b.statusText != a.statusText || b.statusStored != a.statusStored)
                out << QStringLiteral("status %1 \u2192 %2").arg(b.statusText, a.statusText);
            else if (b.updatedAt != a.updatedAt || b.version != a.version)
                out << QStringLiteral("record updated (updated_at %1 \u2192 %2)").arg(b.updatedAt, a.updatedAt);
            if (b.resultSnapshot != a.resultSnapshot)
                out << QStringLiteral("result_snapshot changed");
        }
    }
    if (readBoth(DbRole::Ticket))
        compareRows(out, QStringLiteral("ticket"), before.tickets, after.tickets, [](const TicketRow &t) { return t.id.text(); },
                    [](const TicketRow &t) { return text(t.status); });
    if (readBoth(DbRole::Intent)) {
        compareRows(out, QStringLiteral("intent attempt"), before.attempts, after.attempts,
                    [](const IntentAttempt &a) { return QString::number(a.id); }, [](const IntentAttempt &a) { return text(a.status); });
    }
    if (readBoth(DbRole::Idempotency)) {
        QSet<qint64> known;
        for (const AuditEntry &e : before.audit)
            known.insert(e.id);
        for (const AuditEntry &e : after.audit)
            if (!known.contains(e.id))
                out << QStringLiteral("%1 %2 by %3").arg(e.action, e.outcome, e.operatorName);
    }
    if (readBoth(DbRole::Intent))
        compareRows(out, QStringLiteral("compensation"), before.compensations, after.compensations,
                    [](const CompensationRow &c) { return c.compKey; }, [](const CompensationRow &c) { return c.status; });
    return out;
}

} // namespace triage
