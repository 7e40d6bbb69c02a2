#include "KeyDetail.h"
#include "KeyDetailBulk.h"

#include "Audit.h"
#include "CanonicalTicket.h"
#include "CompensationSql.h"
#include "RecordStatus.h"
#include "FutureChain.h"
#include "Workspace.h"

#include <QHash>

#include <algorithm>

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

/// The warnings and the timeline of a key whose parts and errors are read (loadKeyDetail(),
/// loadKeyDetails()).
void finishKeyDetail(KeyDetail *detail, const WorkspaceConfig &config)
{
    KeyDetail &d = *detail;
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
}

} // namespace

QFuture<KeyDetail> loadKeyDetail(Workspace &ws, const QString &idemKey, ReadFrom from)
{
    const WorkspaceConfig config = ws.config();
    const QStringList keys{idemKey}; // an own write of the key sends its reads to the primary
    constexpr auto retry = DbWorker::Retry::OnReconnect;
    auto record = ws.reader(DbRole::Idempotency).run<std::optional<RecordDetail>>([=](DbSession &s) {
        return detail_sql::readRecord(s, config, idemKey);
    }, keys, retry, from);
    auto tickets = ws.reader(DbRole::Ticket).run<QVector<TicketRow>>([=](DbSession &s) { return detail_sql::readTickets(s, config, idemKey); },
                                                                    keys, retry, from);
    auto attempts = ws.reader(DbRole::Intent).run<QVector<IntentAttempt>>([=](DbSession &s) { return detail_sql::readAttempts(s, config, idemKey); },
                                                                         keys, retry, from);
    auto audit = ws.reader(DbRole::Idempotency).run<QVector<AuditEntry>>([=](DbSession &s) {
        // Databases whose schema was not created by init-schema have no audit table yet.
        if (!tableExists(s, QStringLiteral("triage_audit")))
            return QVector<AuditEntry>();
        AuditQuery q;
        q.idemKey = idemKey;
        q.limit = 0;
        return audit_sql::read(s, q);
    }, keys, retry, from);
    using Compensations = QPair<QVector<CompensationRow>, QVector<CompensationAttemptRow>>;
    auto compensations = ws.reader(DbRole::Intent).run<Compensations>([=](DbSession &s) {
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
    }, keys, retry, from);
    return continueAfterAll(futuresOf(record, tickets, attempts, audit, compensations), ws.mergePool(), [=]() {
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
        finishKeyDetail(&d, config);
        return d;
    });
}

QFuture<QVector<KeyDetail>> loadKeyDetails(Workspace &ws, const QStringList &keys)
{
    const WorkspaceConfig config = ws.config();
    // Each part read for every key, kKeysPerStatement keys per statement, on its store's worker.
    auto inBatches = [keys](auto read) {
        return [keys, read](DbSession &s) {
            decltype(read(s, QStringList())) rows;
            for (qsizetype i = 0; i < keys.size(); i += kKeysPerStatement)
                rows << read(s, keys.mid(i, kKeysPerStatement));
            return rows;
        };
    };
    // Plain reads (a bundle's keys): the replicas where the lag allows; keys with an own write
    // pending go to the primary (Workspace::reader()).
    auto records = ws.reader(DbRole::Idempotency).run<QVector<RecordDetail>>(inBatches([config](DbSession &s, const QStringList &k) {
        return detail_sql::readRecords(s, config, k);
    }), keys);
    auto tickets = ws.reader(DbRole::Ticket).run<QVector<TicketRow>>(inBatches([config](DbSession &s, const QStringList &k) {
        return detail_sql::readTickets(s, config, k);
    }), keys);
    auto attempts = ws.reader(DbRole::Intent).run<QVector<IntentAttempt>>(inBatches([config](DbSession &s, const QStringList &k) {
        return detail_sql::readAttempts(s, config, k);
    }), keys);
    auto audit = ws.reader(DbRole::Idempotency).run<QVector<AuditEntry>>(inBatches([](DbSession &s, const QStringList &k) {
        // Databases whose schema was not created by init-schema have no audit table yet.
        return tableExists(s, QStringLiteral("triage_audit")) ? audit_sql::readForKeys(s, k) : QVector<AuditEntry>();
    }), keys);
    using Compensations = QPair<QVector<CompensationRow>, QVector<CompensationAttemptRow>>;
    auto compensations = ws.reader(DbRole::Intent).run<Compensations>([keys](DbSession &s) {
        Compensations out;
        // Databases whose schema predates triage_compensation have no such table.
        if (!tableExists(s, QStringLiteral("triage_compensation")))
            return out;
        for (qsizetype i = 0; i < keys.size(); i += kKeysPerStatement)
            out.first << compensation_sql::readForSources(s, keys.mid(i, kKeysPerStatement));
        QStringList compKeys;
        for (const CompensationRow &c : std::as_const(out.first))
            compKeys << c.compKey;
        for (qsizetype i = 0; i < compKeys.size(); i += kKeysPerStatement)
            out.second << compensation_sql::attemptsOf(s, compKeys.mid(i, kKeysPerStatement));
        return out;
    }, keys);
    return continueAfterAll(futuresOf(records, tickets, attempts, audit, compensations), ws.mergePool(), [=]() {
        QHash<QString, qsizetype> index; // key → its detail
        QVector<KeyDetail> details(keys.size());
        for (qsizetype i = 0; i < keys.size(); ++i) {
            details[i].idemKey = keys[i];
            index.insert(keys[i], i);
        }
        // Every key of the batch shares a failed part's error, as one read per key would.
        auto failAll = [&](DbRole role, const DbError &e, bool unlessFailed) {
            for (KeyDetail &d : details)
                if (!unlessFailed || !d.errors.contains(role))
                    d.errors.insert(role, e);
        };
        auto of = [&](const QString &key) -> KeyDetail * {
            const auto it = index.constFind(key);
            return it == index.cend() ? nullptr : &details[*it];
        };
        const auto r = records.result();
        if (r.ok()) {
            for (const RecordDetail &rec : *r)
                if (KeyDetail *d = of(rec.idemKey); d && !d->record)
                    d->record = rec;
        } else {
            failAll(DbRole::Idempotency, *r.error, false);
        }
        const auto t = tickets.result();
        if (t.ok()) {
            for (const TicketRow &row : *t)
                if (KeyDetail *d = row.idemKey ? of(*row.idemKey) : nullptr)
                    d->tickets << row;
        } else {
            failAll(DbRole::Ticket, *t.error, false);
        }
        const auto a = attempts.result();
        if (a.ok()) {
            for (const IntentAttempt &row : *a)
                if (KeyDetail *d = row.idemKey ? of(*row.idemKey) : nullptr)
                    d->attempts << row;
        } else {
            failAll(DbRole::Intent, *a.error, false);
        }
        const auto au = audit.result();
        if (au.ok()) {
            for (const AuditEntry &row : *au)
                if (KeyDetail *d = of(row.idemKey))
                    d->audit << row;
        } else {
            failAll(DbRole::Idempotency, *au.error, true);
        }
        const auto comp = compensations.result();
        if (comp.ok()) {
            QMultiHash<QString, CompensationAttemptRow> byComp;
            for (const CompensationAttemptRow &row : comp->second)
                byComp.insert(row.compKey, row);
            for (const CompensationRow &c : comp->first) {
                KeyDetail *d = of(c.sourceKey);
                if (!d)
                    continue;
                d->compensations << c;
                QList<CompensationAttemptRow> rows = byComp.values(c.compKey);
                std::sort(rows.begin(), rows.end(), [](const auto &x, const auto &y) { return x.id < y.id; });
                d->compensationAttempts << rows;
            }
        } else {
            failAll(DbRole::Intent, *comp.error, true);
        }
        for (KeyDetail &d : details)
            finishKeyDetail(&d, config);
        return details;
    });
}

} // namespace triage
