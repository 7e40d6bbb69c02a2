#include "Workspace.h"

#include "CanonicalTicket.h"
#include "CompensationSql.h"

#include "Log.h"
#include "RecordStatus.h"
#include "WhenReady.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QStandardPaths>
#include <QtConcurrent>

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

} // namespace

Workspace::Workspace(WorkspaceConfig config, QObject *parent) : QObject(parent), m_config(std::move(config))
{
    qRegisterMetaType<triage::DbRole>("triage::DbRole");
    m_mergePool.setMaxThreadCount(16);
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        auto &w = m_workers[int(role)];
        w = std::make_unique<DbWorker>(m_config.profile(role));
        connect(w.get(), &DbWorker::connectionEvent, this, &Workspace::connectionEvent, Qt::QueuedConnection);
        m_bulkWorkers[int(role)] = std::make_unique<WorkerPool>(m_config.profile(role), kBulkWorkers);
    }
}

Workspace::~Workspace() = default;

DbWorker &Workspace::worker(DbRole role)
{
    return *m_workers[int(role)];
}

WorkerPool &Workspace::bulkWorkers(DbRole role)
{
    return *m_bulkWorkers[int(role)];
}

void Workspace::probeConnections()
{
    // The worker reports opens and failures as they happen; a connection that was already
    // open (or already reported down) says nothing, so report the probe's outcome too:
    // a window attached later still learns every store's state.
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        whenReady(worker(role).run<Done>([](DbSession &) { return Done{}; }), this, [this, role](const Outcome<Done> &o) {
            if (o.ok())
                emit connectionEvent(role, true, QStringLiteral("connected to the %1").arg(roleTitle(role)));
            else
                emit connectionEvent(role, false, o.error->message);
        });
}

QFuture<Outcome<int>> Workspace::initSchema(const SchemaOptions &options)
{
    // Each role's DDL runs on its own worker (waiting on a worker from a pool thread keeps
    // every connection on its own thread). Roles sharing one database form a chain run one
    // after the other: concurrent DDL on one SQLite file can fail with "database is locked".
    QVector<QVector<DbWorker *>> chains;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        auto shared = std::find_if(chains.begin(), chains.end(), [&](const QVector<DbWorker *> &chain) {
            return chain.first()->profile().sameDatabase(m_config.profile(role));
        });
        if (shared != chains.end())
            shared->append(&worker(role));
        else
            chains.append({&worker(role)});
    }
    QList<QFuture<Outcome<int>>> parts;
    for (const QVector<DbWorker *> &chain : chains) {
        parts << QtConcurrent::run(&m_mergePool, [chain, options]() {
            int total = 0;
            for (DbWorker *w : chain) {
                const Outcome<int> o = w->run<int>([options](DbSession &s) { return int(createSchema(s, options).size()); },
                                                   DbWorker::Retry::Never)
                                           .result();
                if (!o.ok())
                    return o;
                total += *o;
            }
            return Outcome<int>::success(total);
        });
    }
    return QtConcurrent::run(&m_mergePool, [parts]() mutable {
        int total = 0;
        for (auto &f : parts) {
            const Outcome<int> o = f.result();
            if (!o.ok())
                return o;
            total += *o;
        }
        return Outcome<int>::success(total);
    });
}

QFuture<Outcome<SeedReport>> Workspace::seed(const SeedOptions &options)
{
    DbWorker *tickets = &worker(DbRole::Ticket);
    DbWorker *records = &worker(DbRole::Idempotency);
    DbWorker *intents = &worker(DbRole::Intent);
    return QtConcurrent::run(&m_mergePool, [tickets, records, intents, options]() -> Outcome<SeedReport> {
        const Outcome<qint64> first = tickets->run<qint64>(&seed_sql::nextTicketId).result();
        if (!first.ok())
            return Outcome<SeedReport>::failure(*first.error);
        SeedOptions o = options;
        o.firstTicketId = *first;
        const auto plan = std::make_shared<SeedPlan>(makeSeedPlan(o));
        // Records first: when they fail (typically this seed's keys are already there), no
        // tickets or intent rows may be left behind in the other stores.
        const Outcome<qint64> r = records->run<qint64>([plan](DbSession &s) { return seed_sql::insertRecords(s, plan->records); },
                                                       DbWorker::Retry::Never)
                                      .result();
        if (!r.ok())
            return Outcome<SeedReport>::failure(*r.error);
        auto t = tickets->run<qint64>([plan](DbSession &s) { return seed_sql::insertTickets(s, plan->tickets); },
                                      DbWorker::Retry::Never);
        auto i = intents->run<qint64>([plan](DbSession &s) { return seed_sql::insertIntents(s, plan->intents); },
                                      DbWorker::Retry::Never);
        SeedReport report;
        report.records = *r;
        for (auto [future, target] : {std::pair{&t, &report.tickets}, std::pair{&i, &report.intents}}) {
            const Outcome<qint64> out = future->result();
            if (!out.ok())
                return Outcome<SeedReport>::failure(*out.error);
            *target = *out;
        }
        return Outcome<SeedReport>::success(report);
    });
}

QFuture<Outcome<QueuePage>> Workspace::fetchQueuePage(const QueueRequest &request, const QueueCursor &cursor, int limit)
{
    const bool useRecords = queueUsesRecords(request.kind) && !cursor.record.exhausted;
    const bool useIntents = queueUsesIntents(request.kind, request.filter) && !cursor.intent.exhausted;
    const WorkspaceConfig config = m_config;
    QFuture<Outcome<QVector<QueueRow>>> recordRows, intentRows;
    if (useRecords)
        recordRows = worker(DbRole::Idempotency).run<QVector<QueueRow>>([=](DbSession &s) {
            return queue_sql::pageRecords(s, config, request, cursor.record, limit);
        });
    if (useIntents)
        intentRows = worker(DbRole::Intent).run<QVector<QueueRow>>([=](DbSession &s) {
            return queue_sql::pageIntents(s, config, request, cursor.intent, limit);
        });
    return QtConcurrent::run(&m_mergePool, [=]() mutable -> Outcome<QueuePage> {
        QVector<QueueRow> recs, ints;
        if (useRecords) {
            const auto o = recordRows.result();
            if (!o.ok())
                return Outcome<QueuePage>::failure(*o.error);
            recs = *o;
        }
        if (useIntents) {
            const auto o = intentRows.result();
            if (!o.ok())
                return Outcome<QueuePage>::failure(*o.error);
            ints = *o;
        }
        QueueCursor from = cursor;
        if (!queueUsesRecords(request.kind))
            from.record.exhausted = true;
        if (!queueUsesIntents(request.kind, request.filter))
            from.intent.exhausted = true;
        return Outcome<QueuePage>::success(mergeQueuePages(request, from, recs, !useRecords || recs.size() < limit, ints,
                                                           !useIntents || ints.size() < limit, limit));
    });
}

QFuture<Outcome<qint64>> Workspace::countQueue(const QueueRequest &request)
{
    const WorkspaceConfig config = m_config;
    QFuture<Outcome<qint64>> records, intents;
    const bool useRecords = queueUsesRecords(request.kind);
    const bool useIntents = queueUsesIntents(request.kind, request.filter);
    if (useRecords)
        records = worker(DbRole::Idempotency).run<qint64>([=](DbSession &s) { return queue_sql::countRecords(s, config, request); });
    if (useIntents)
        intents = worker(DbRole::Intent).run<qint64>([=](DbSession &s) { return queue_sql::countIntents(s, config, request); });
    return QtConcurrent::run(&m_mergePool, [=]() mutable -> Outcome<qint64> {
        qint64 total = 0;
        for (auto [used, f] : {std::pair{useRecords, &records}, std::pair{useIntents, &intents}}) {
            if (!used)
                continue;
            const auto o = f->result();
            if (!o.ok())
                return o;
            total += *o;
        }
        return Outcome<qint64>::success(total);
    });
}

QFuture<KeyDetail> Workspace::loadKeyDetail(const QString &idemKey)
{
    const WorkspaceConfig config = m_config;
    auto record = worker(DbRole::Idempotency).run<std::optional<RecordDetail>>([=](DbSession &s) {
        return detail_sql::readRecord(s, config, idemKey);
    });
    auto tickets = worker(DbRole::Ticket).run<QVector<TicketRow>>([=](DbSession &s) { return detail_sql::readTickets(s, idemKey); });
    auto attempts = worker(DbRole::Intent).run<QVector<IntentAttempt>>([=](DbSession &s) { return detail_sql::readAttempts(s, idemKey); });
    auto audit = worker(DbRole::Idempotency).run<QVector<AuditEntry>>([=](DbSession &s) {
        // Databases whose schema was not created by init-schema have no audit table yet.
        if (!tableExists(s, QStringLiteral("triage_audit")))
            return QVector<AuditEntry>();
        AuditQuery q;
        q.idemKey = idemKey;
        q.limit = 0;
        return audit_sql::read(s, q);
    });
    auto compensations = worker(DbRole::Intent).run<QVector<CompensationRow>>([=](DbSession &s) {
        // Databases whose schema predates triage_compensation have no such table.
        if (!tableExists(s, QStringLiteral("triage_compensation")))
            return QVector<CompensationRow>();
        CompensationQuery q;
        q.sourceKey = idemKey;
        q.limit = 0;
        return compensation_sql::read(s, q);
    });
    return QtConcurrent::run(&m_mergePool, [=]() mutable {
        KeyDetail d;
        d.idemKey = idemKey;
        const auto r = record.result();
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
        if (comp.ok())
            d.compensations = *comp;
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
        d.warnings << storedTextWarnings(d);
        d.timeline = buildTimeline(d);
        return d;
    });
}

QString DemoWorkspace::path()
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.local/share");
    return base + QStringLiteral("/triage-console/demo/demo.sqlite");
}

WorkspaceConfig DemoWorkspace::config()
{
    WorkspaceConfig c = WorkspaceConfig::sqliteWorkspace(path());
    c.bizTypes = demoBizTypes();
    c.isDemo = true;
    return c;
}

QString DemoWorkspace::ensure(bool reset)
{
    const QString db = path();
    QDir().mkpath(QFileInfo(db).absolutePath());
    QLockFile lock(db + QStringLiteral(".lock"));
    lock.setStaleLockTime(120000);
    if (!lock.tryLock(60000))
        return QStringLiteral("another process is creating the demo workspace (%1.lock)").arg(db);
    const QString stamp = db + QStringLiteral(".created");
    QFile stampFile(stamp);
    QDateTime created;
    if (stampFile.open(QIODevice::ReadOnly))
        created = QDateTime::fromString(QString::fromUtf8(stampFile.readAll()).trimmed(), Qt::ISODate);
    stampFile.close();
    const bool fresh = QFile::exists(db) && created.isValid() && created.secsTo(QDateTime::currentDateTimeUtc()) < 86400;
    if (fresh && !reset)
        return {};
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        QFile::remove(db + suffix);
    QFile::remove(stamp);
    logger("app")->info("creating the demo workspace at {}", db);
    Workspace ws(config());
    SchemaOptions schema;
    schema.ticketBackstop = false; // the demo reproduces a breached defence
    const auto s = ws.initSchema(schema).result();
    if (!s.ok())
        return s.error->message;
    const auto seeded = ws.seed(SeedOptions{}).result();
    if (!seeded.ok())
        return seeded.error->message;
    if (!stampFile.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return QStringLiteral("cannot write %1").arg(stamp);
    stampFile.write(QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toUtf8());
    return {};
}

} // namespace triage
