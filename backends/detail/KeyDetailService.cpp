#include "KeyDetail.h"

#include "Audit.h"
#include "CanonicalTicket.h"
#include "CompensationSql.h"
#include "RecordStatus.h"
#include "WhenReady.h"
#include "Workspace.h"

namespace triage {

namespace {

/// DbSession::hasTable() with its positive answers remembered for the connection's life
/// (DbSession::memo(), cleared on re-open): hasTable() lists every table of the database,
/// and the key detail asks twice per load. A missing table is looked up again each time,
/// so a table created later (init-schema on this very connection) is seen at once.
bool tableExists(DbSession &s, const QString &table)
{
    bool computed = false;
    const bool known = s.memo(QStringLiteral("table exists: ") + table, [&] {
                            computed = true;
                            return QVariant(s.hasTable(table));
                        }).toBool();
    if (known || computed)
        return known;
    return s.hasTable(table);
}

} // namespace

QFuture<KeyDetail> loadKeyDetail(Workspace &ws, const QString &idemKey)
{
    const WorkspaceConfig config = ws.config();
    auto record = ws.worker(DbRole::Idempotency).run<std::optional<RecordDetail>>([=](DbSession &s) {
        return detail_sql::readRecord(s, config, idemKey);
    });
    auto tickets = ws.worker(DbRole::Ticket).run<QVector<TicketRow>>([=](DbSession &s) { return detail_sql::readTickets(s, config, idemKey); });
    auto attempts = ws.worker(DbRole::Intent).run<QVector<IntentAttempt>>([=](DbSession &s) { return detail_sql::readAttempts(s, config, idemKey); });
    auto audit = ws.worker(DbRole::Idempotency).run<QVector<AuditEntry>>([=](DbSession &s) {
        // Databases whose schema was not created by init-schema have no audit table yet.
        if (!tableExists(s, QStringLiteral("triage_audit")))
            return QVector<AuditEntry>();
        AuditQuery q;
        q.idemKey = idemKey;
        q.limit = 0;
        return audit_sql::read(s, q);
    });
    using Compensations = QPair<QVector<CompensationRow>, QVector<CompensationAttemptRow>>;
    auto compensations = ws.worker(DbRole::Intent).run<Compensations>([=](DbSession &s) {
        // Databases whose schema predates triage_compensation have no such table.
        if (!tableExists(s, QStringLiteral("triage_compensation")))
            return Compensations();
        CompensationQuery q;
        q.sourceKey = idemKey;
        q.limit = 0;
        Compensations out;
        out.first = compensation_sql::read(s, q);
        for (const CompensationRow &c : std::as_const(out.first)) // a key has few compensations
            out.second << compensation_sql::attempts(s, c.compKey);
        return out;
    });
    return whenAllFinishedOf(record, tickets, attempts, audit, compensations).then(ws.mergePool(), [=]() {
        KeyDetail d;
        d.idemKey = idemKey;
        const auto r = record.result(); // all finished
        if (r.ok())
            d.record = *r;
        else
            d.errors.insert(DbRole::Idempotency, *r.error);
        const auto t = tickets.result();
        if (t.ok())
            d.tickets = *t;
        else
            d.errors.insert(DbRole::Ticket, *t.error);
        const auto a = attempts.result();
        if (a.ok())
            d.attempts = *a;
        else
            d.errors.insert(DbRole::Intent, *a.error);
        const auto au = audit.result();
        if (au.ok())
            d.audit = *au;
        else if (!d.errors.contains(DbRole::Idempotency))
            d.errors.insert(DbRole::Idempotency, *au.error);
        const auto comp = compensations.result();
        if (comp.ok()) {
            d.compensations = comp->first;
            d.compensationAttempts = comp->second;
        }
        else if (!d.errors.contains(DbRole::Intent))
            d.errors.insert(DbRole::Intent, *comp.error);
        if (d.record)
            d.warnings << expiryWarnings(*d.record);
        if (d.tickets.size() > 1)
            d.warnings << QStringLiteral("%1 tickets carry this key: a duplicate-key group (the backstop was breached)")
                              .arg(d.tickets.size());
        if (!d.errors.contains(DbRole::Ticket) && !d.errors.contains(DbRole::Idempotency)) {
            // The canonical-ticket rule's findings (DESIGN.md §6 "Canonical ticket").
            const CanonicalTicket canon = canonicalTicket(d);
            if (!canon.inconsistency.isEmpty())
                d.warnings << canon.inconsistency;
            if (const QStringList fields = keyReuseFields(d.tickets); !fields.isEmpty())
                d.warnings << QStringLiteral("key reuse: the tickets' business payloads differ (%1), so they are different "
                                             "operations under one key, not retries: no compensation without an override; escalate")
                                  .arg(fields.join(QStringLiteral(", ")));
        }
        if (d.record && d.record->statusCode == Processing && !d.tickets.isEmpty())
            d.warnings << QStringLiteral("a ticket exists but the record is still PROCESSING: the side effect happened");
        d.warnings << storedTextWarnings(d, config.schema);
        d.timeline = buildTimeline(d);
        return d;
    });
}

} // namespace triage
