// The mark evidence readers of the ticket and intent stores (DESIGN.md §6 inputs), for many
// keys at once; each runs on its store's worker.
#include "MarkSql.h"

#include "SchemaSql.h"
#include "SqlChunks.h"
#include "TextEscape.h"

#include <QSqlQuery>

namespace triage::mark_sql {

TicketEvidence readTicketEvidence(DbSession &s, const WorkspaceConfig &config, const QStringList &keys, const QStringList &rowKeys)
{
    TicketEvidence out;
    const SqlDialect &d = s.dialect();
    const TicketSql t = config.tickets(d.kind());
    forEachInListChunk(
        s, keys,
        [&t](SqlBuilder &, const QString &in) {
            return QStringLiteral("SELECT %1, %2 FROM %3 WHERE %1 IN (%4) ORDER BY %2").arg(t.key, t.id, t.table, in);
        },
        [&out](const QSqlQuery &q) { out.ids[q.value(0).toString()].append(BusinessId::fromColumn(q.value(1))); });
    forEachInListChunk(
        s, rowKeys,
        [&t, &d](SqlBuilder &, const QString &in) {
            return QStringLiteral("SELECT %1, %2, %3, %4, %5 FROM %6 WHERE %1 IN (%7) ORDER BY %2")
                .arg(t.key, t.id, t.statuses.read(t.status), t.time.text(t.createdAt), d.rawText(t.payload), t.table, in);
        },
        [&out, &t](const QSqlQuery &q) {
            TicketRow row;
            row.idemKey = q.value(0).toString();
            row.id = BusinessId::fromColumn(q.value(1));
            row.status = t.statusName(q.value(2)); // "CANCELLED" for a mapped cancelled spelling
            row.createdAt = canonicalTimeText(q.value(3));
            // The payload only for its amount (four_eyes_amount_over); the row stays without it.
            collectAmount(out.amounts[*row.idemKey], QStringLiteral("ticket %1").arg(row.id.text()), decodeStoredText(q.value(4)).text);
            out.rows[*row.idemKey].append(row);
        });
    return out;
}

AttemptEvidence readAttemptEvidence(DbSession &s, const WorkspaceConfig &config, const QStringList &keys, const QStringList &amountKeys)
{
    AttemptEvidence out;
    const IntentSql i = config.intents(s.dialect().kind());
    forEachInListChunk(
        s, keys,
        [&i](SqlBuilder &, const QString &in) {
            return QStringLiteral("SELECT %1, %2, %3, %4, %5 FROM %6 WHERE %1 IN (%7) ORDER BY %2")
                .arg(i.key, i.id, i.statuses.read(i.status), i.time.text(i.createdAt), i.time.text(i.updatedAt), i.table, in);
        },
        [&out, &i](const QSqlQuery &q) {
            const QString key = q.value(0).toString();
            const QString status = i.statusName(q.value(2)); // the console's spelling of a mapped status
            if (status == QLatin1String("SUCCEEDED"))
                out.succeeded[key].append(q.value(1).toLongLong());
            else if (status == QLatin1String("ESCALATED"))
                out.escalated[key].append(q.value(1).toLongLong());
            for (int c : {3, 4}) {
                if (q.value(c).isNull())
                    continue;
                const auto t = parseUtcMicros(canonicalTimeText(q.value(c)));
                if (!t)
                    out.unreadable.insert(key);
                else if (!out.latest.contains(key) || *t > out.latest.value(key))
                    out.latest.insert(key, *t);
            }
        });
    const SqlDialect &dialect = s.dialect();
    forEachInListChunk(
        s, amountKeys,
        [&i, &dialect](SqlBuilder &, const QString &in) {
            return QStringLiteral("SELECT %1, %2, %3 FROM %4 WHERE %1 IN (%5) ORDER BY %2").arg(i.key, i.id, dialect.rawText(i.request), i.table, in);
        },
        [&out](const QSqlQuery &q) {
            collectAmount(out.amounts[q.value(0).toString()], QStringLiteral("attempt %1").arg(q.value(1).toLongLong()),
                          decodeStoredText(q.value(2)).text);
        });
    return out;
}

} // namespace triage::mark_sql
