// The export of an incident bundle from the stores (DESIGN.md §7 "Bundles") and the recorded
// exports (triage_incident_export beside triage_incident, console schema version 3).
#include "Bundle.h"
#include "BundleRedactor.h"

#include "Audit.h"
#include "ConsoleSchema.h"
#include "KeyDetailBulk.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QSqlQuery>
#include <QtConcurrent/QtConcurrentRun>

#include <limits>
#include <list>
#include <tuple>

namespace triage {

namespace {

/// Events per page read (each stream reads up to this many rows per page). An export keeps
/// every event anyway: big pages read each stream in few statements (5,000 cost 0.3 s more
/// on a 100,000-event window, triage-bundle-bench).
constexpr int kPageSize = 20000;
/// Keys whose details are read per loadKeyDetails() call.
constexpr qsizetype kKeysPerBatch = 250;

template <typename T>
Outcome<T> await(QFuture<Outcome<T>> future)
{
    future.waitForFinished();
    return future.result();
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

/// The stores an export reads, and which of them failed: a failed store's kinds are left out
/// of every later read, so the rest is still exported (DESIGN.md §7 "Bundles").
struct StoreReads {
    Workspace &ws;
    WindowQuery query;
    IncidentBundle *bundle;
    QSet<int> failed; ///< DbRole values

    void fail(const DbError &e)
    {
        if (failed.contains(int(e.role)))
            return;
        failed.insert(int(e.role));
        for (BundleStore &s : bundle->stores)
            if (s.role == e.role) {
                s.ok = false;
                s.error = e.message;
                s.watermark.clear();
            }
    }

    /// `query` without the kinds of failed stores; nullopt when none is left.
    std::optional<WindowQuery> readable() const
    {
        WindowQuery q = query;
        q.kinds.clear();
        for (EventKind k : selectedKinds(query))
            if (!failed.contains(int(roleOf(k))))
                q.kinds << k;
        if (q.kinds.isEmpty())
            return std::nullopt;
        return q;
    }

    /// `read(query)` over the stores still readable; a failure names its store, which is left
    /// out and the read done again. nullopt when no store is left.
    template <typename T, typename Read>
    std::optional<T> read(Read fn)
    {
        for (;;) {
            const std::optional<WindowQuery> q = readable();
            if (!q)
                return std::nullopt;
            Outcome<T> o = await(fn(*q));
            if (o.ok())
                return std::move(*o.value);
            if (failed.contains(int(o.error->role)))
                return std::nullopt; // a store already left out cannot fail again: give up rather than loop
            fail(*o.error);
        }
    }
};

/// The expiry warnings are worded from the reading moment ("expires in 3h"): left out of the
/// bundle. The record's server_now, age, time to expiry and stale flag stay as read: they say
/// when (on the database's clock) the export read it (format version 3, DESIGN.md §7).
void dropReaderRelative(KeyDetail *d)
{
    if (!d->record)
        return;
    for (const QString &w : expiryWarnings(*d->record))
        d->warnings.removeAll(w);
}

/// Distinct non-empty keys of `events`, in order of first appearance.
QStringList involvedKeys(const QVector<WindowEvent> &events)
{
    QStringList keys;
    QSet<QString> seen;
    for (const WindowEvent &e : events)
        if (!e.idemKey.isEmpty() && !seen.contains(e.idemKey)) {
            seen.insert(e.idemKey);
            keys << e.idemKey;
        }
    return keys;
}

void requireExportTable(DbSession &s)
{
    if (s.hasTable(QStringLiteral("triage_incident_export")))
        return;
    throw DbException({s.role(), DbError::Kind::Config,
                       QStringLiteral("the %1 has no incident export table (console schema version %2; recorded exports "
                                      "need version 3): run `triagectl init-schema`")
                           .arg(roleTitle(s.role()))
                           .arg(storedConsoleSchemaVersion(s)),
                       {}});
}

QString exportColumns(const SqlDialect &d)
{
    return QStringLiteral("id, incident_id, events_sha256, event_count, exported_by, %1, redacted")
        .arg(d.timeText(QStringLiteral("exported_at")));
}

BundleExportRecord exportFrom(const QSqlQuery &q)
{
    BundleExportRecord r;
    r.id = q.value(0).toLongLong();
    if (!q.value(1).isNull())
        r.incidentId = q.value(1).toLongLong();
    r.eventsSha256 = q.value(2).toString();
    r.eventCount = q.value(3).toLongLong();
    r.exportedBy = q.value(4).toString();
    r.exportedAt = canonicalTimeText(q.value(5));
    r.redacted = q.value(6).toLongLong() != 0;
    return r;
}

/// Records `b`'s hash with its audit row (action incident.export) in one transaction.
BundleExportRecord recordExportRow(DbSession &s, const IncidentBundle &b)
{
    requireKnownConsoleSchema(s);
    requireExportTable(s);
    const SqlDialect &d = s.dialect();
    const bool redacted = b.redactionRules.enabled;
    const QString target = b.incident ? QStringLiteral("incident:%1").arg(b.incident->incident.id)
                                      : QStringLiteral("window:%1/%2").arg(formatUtcMicros(b.query.from), formatUtcMicros(b.query.to));
    AuditEntry a = auditStamp(audit_action::IncidentExport, target, b.generatedBy, auditDbUser(s.profile()));
    QStringList failed;
    for (const BundleStore &st : b.stores)
        if (!st.ok)
            failed << roleName(st.role);
    s.begin();
    try {
        SqlBuilder ib;
        const qint64 id = s.insertReturningId(
            QStringLiteral("INSERT INTO triage_incident_export (incident_id, events_sha256, event_count, exported_by, exported_at, "
                           "redacted) VALUES (%1, %2, %3, %4, %5, %6)")
                .arg(ib.bind(b.incident ? QVariant(b.incident->incident.id) : QVariant(QMetaType(QMetaType::LongLong))),
                     ib.bind(b.eventsSha256), ib.bind(qint64(b.events.size())), ib.bind(b.generatedBy), d.nowValue(),
                     ib.bind(redacted ? 1 : 0)),
            ib);
        a.toState = compact({{QStringLiteral("export_id"), id},
                             {QStringLiteral("events_sha256"), b.eventsSha256},
                             {QStringLiteral("event_count"), qint64(b.events.size())},
                             {QStringLiteral("keys"), qint64(b.keys.size())},
                             {QStringLiteral("complete"), b.complete()},
                             {QStringLiteral("failed_stores"), QJsonArray::fromStringList(failed)}});
        a.evidence = compact({{QStringLiteral("redaction"), redacted ? QStringLiteral("on") : QStringLiteral("off (--no-redact)")},
                              {QStringLiteral("fields"), QJsonArray::fromStringList(b.redactionRules.fields)},
                              {QStringLiteral("redactions"), qint64(b.redactions.size())}});
        a.reason = redacted ? QStringLiteral("exported %1 (%2 redacted)")
                                  .arg(countText(b.events.size(), QStringLiteral("event")),
                                       countText(b.redactions.size(), QStringLiteral("value")))
                            : QStringLiteral("exported %1 without redaction (--no-redact)")
                                  .arg(countText(b.events.size(), QStringLiteral("event")));
        a.detail = redacted ? QString() : QStringLiteral("--no-redact: secrets in the bundle are not redacted");
        a.outcome = QStringLiteral("applied");
        audit_sql::insert(s, a);
        SqlBuilder rb;
        QSqlQuery q = s.exec(
            QStringLiteral("SELECT %1 FROM triage_incident_export WHERE id = %2").arg(exportColumns(d), rb.bind(id)), rb);
        BundleExportRecord r;
        if (q.next())
            r = exportFrom(q);
        s.commit();
        return r;
    } catch (const DbException &) {
        s.rollback();
        throw;
    }
}

Outcome<IncidentBundle> runExport(Workspace &ws, WindowQuery query, std::optional<qint64> incidentId,
                                  const RedactionRules &rules, bool recordExport)
{
    const WorkspaceConfig config = ws.config();
    IncidentBundle bundle;
    bundle.toolVersion = QStringLiteral(TRIAGE_VERSION);
    bundle.generatedAt = formatUtcMicros(QDateTime::currentMSecsSinceEpoch() * 1000);
    bundle.generatedBy = config.operatorName.isEmpty() ? osUserName() : config.operatorName;
    if (incidentId) {
        const auto read = await(readIncident(ws, *incidentId));
        if (!read.ok())
            return Outcome<IncidentBundle>::failure(*read.error);
        if (!*read.value)
            return Outcome<IncidentBundle>::failure(
                {DbRole::Idempotency, DbError::Kind::Config, QStringLiteral("no incident %1").arg(*incidentId), {}});
        bundle.incident = **read.value;
        const int lookback = query.lookbackS;
        query = bundle.incident->incident.query;
        query.lookbackS = lookback;
    }
    bundle.query = query;

    // Each store's clock and watermark (its now() minus the lookback, at most the window's end).
    StoreReads reads{ws, query, &bundle, {}};
    QList<QFuture<Outcome<QPair<StoreClock, QString>>>> clocks;
    const QVector<DbRole> roles{DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};
    for (DbRole role : roles) {
        bundle.stores.append({role, true, {}, {}});
        clocks << ws.worker(role).run<QPair<StoreClock, QString>>([role](DbSession &s) {
            QString now;
            const StoreClock c = window_sql::measureClock(s, role, &now);
            return qMakePair(c, now);
        });
    }
    for (int i = 0; i < roles.size(); ++i) {
        const auto o = await(clocks[i]);
        if (!o.ok()) {
            reads.fail(*o.error);
            continue;
        }
        bool shared = false; // one clock per database, as measureStoreClocks() gives
        for (const StoreClock &c : std::as_const(bundle.clocks))
            shared = shared || config.profile(roles[i]).sameDatabase(config.profile(c.role));
        if (!shared)
            bundle.clocks << o->first;
        const UtcMicros mark = parseUtcMicros(o->second).value_or(0) - qint64(query.lookbackS) * 1000000;
        bundle.stores[i].watermark = formatUtcMicros(std::min(mark, query.to));
    }

    // Every final page, then the settling tail.
    WindowCursor cursor;
    for (;;) {
        auto page = reads.read<WindowPage>([&](const WindowQuery &q) { return readWindowPage(ws, q, cursor, kPageSize); });
        if (!page)
            break;
        bundle.events << std::move(page->events); // moved when no other copy shares them
        for (const QString &n : std::as_const(page->notes))
            if (!bundle.notes.contains(n))
                bundle.notes << n;
        cursor = page->next;
        if (page->end)
            break;
    }
    if (auto tail = reads.read<QVector<WindowEvent>>([&](const WindowQuery &q) { return readSettlingTail(ws, q, 0); }))
        bundle.events << std::move(*tail);
    // The involved keys' details, read in bulk (loadKeyDetails(): one statement per store and
    // part per kKeysPerStatement keys). Every batch is queued at once: each store's worker reads
    // them in turn, never idle while a batch is merged or redacted on the pool (BundleRedactor);
    // then the events, once every key is in.
    const QStringList keys = involvedKeys(bundle.events);
    std::list<QVector<KeyDetail>> batches; // stable addresses while the redactor works on them
    BundleRedactor redactor(rules);        // declared after: its destructor waits before they go
    QList<QFuture<QVector<KeyDetail>>> loads;
    for (qsizetype start = 0; start < keys.size(); start += kKeysPerBatch)
        loads << loadKeyDetails(ws, keys.mid(start, kKeysPerBatch));
    // The summary's aggregates (as read after the pages), queued behind the keys' reads on each
    // store's worker: they run on the servers while the last keys are merged and redacted here.
    // Read again, leaving out the failed store, if it failed.
    const std::optional<WindowQuery> summaryQuery = reads.readable();
    QFuture<Outcome<WindowSummary>> earlySummary;
    if (summaryQuery)
        earlySummary = summarizeWindow(ws, *summaryQuery);
    for (QFuture<QVector<KeyDetail>> &load : loads) {
        QVector<KeyDetail> &batch = batches.emplace_back(load.result());
        load = {};
        for (KeyDetail &d : batch) {
            for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
                reads.fail(*it);
            dropReaderRelative(&d);
        }
        redactor.redactKeys(&batch);
    }
    redactor.waitForKeys();
    bundle.keys.reserve(keys.size());
    for (QVector<KeyDetail> &batch : batches)
        for (KeyDetail &d : batch)
            bundle.keys << std::move(d);
    batches.clear();
    redactor.finish(&bundle);
    if (summaryQuery) {
        const Outcome<WindowSummary> early = await(earlySummary);
        if (early.ok())
            bundle.summary = *early.value;
        else if (auto summary = reads.read<WindowSummary>([&](const WindowQuery &q) { return summarizeWindow(ws, q); }))
            bundle.summary = *summary;
    }
    bundle.eventsSha256 = bundleEventsSha256(bundle.events);

    if (!recordExport) {
        bundle.notRecordedReason = QStringLiteral("not recorded (--no-record)");
    } else if (config.readOnly) {
        bundle.notRecordedReason = QStringLiteral("read-only mode: the export is not recorded");
    } else {
        const IncidentBundle snapshot = bundle;
        const auto recorded = await(ws.worker(DbRole::Idempotency)
                                        .run<BundleExportRecord>([snapshot](DbSession &s) { return recordExportRow(s, snapshot); },
                                                                 DbWorker::Retry::Never));
        if (recorded.ok()) {
            bundle.recorded = *recorded;
        } else {
            bundle.recordError = *recorded.error;
            bundle.notRecordedReason = QStringLiteral("not recorded: %1").arg(recorded.error->message);
        }
    }
    return Outcome<IncidentBundle>::success(std::move(bundle));
}

} // namespace

QFuture<Outcome<IncidentBundle>> exportBundle(Workspace &workspace, const WindowQuery &query, std::optional<qint64> incidentId,
                                              const RedactionRules &rules, bool recordExport)
{
    // The export waits on the workers' futures in turn, on a merge-pool thread (never the
    // GUI thread); the workers and the merges it waits for run on their own threads.
    Workspace *ws = &workspace;
    return QtConcurrent::run(workspace.mergePool(), [=]() { return runExport(*ws, query, incidentId, rules, recordExport); });
}

const BundleExportRecord *matchingExport(const IncidentBundle &bundle, const QVector<BundleExportRecord> &found)
{
    const std::optional<qint64> incident = bundle.incident ? std::optional<qint64>(bundle.incident->incident.id) : std::nullopt;
    const bool redacted = bundle.redactionRules.enabled;
    const std::optional<UtcMicros> generated = parseUtcMicros(bundle.generatedAt);
    // Lower is better: the redaction setting first, then the incident, then how far the record's
    // time is from the file's generation time (the database's clock against the exporting
    // machine's: seconds apart, where two exports of one incident are usually minutes apart).
    const auto rank = [&](const BundleExportRecord &r) {
        const std::optional<UtcMicros> at = parseUtcMicros(r.exportedAt);
        const qint64 distance = generated && at ? qAbs(*at - *generated) : std::numeric_limits<qint64>::max();
        return std::tuple(r.redacted == redacted ? 0 : 1, r.incidentId == incident ? 0 : 1, distance);
    };
    const BundleExportRecord *best = nullptr;
    for (const BundleExportRecord &r : found)
        if (!best || rank(r) < rank(*best)) // ties: the oldest (found is oldest first)
            best = &r;
    return best;
}

QFuture<Outcome<QVector<BundleExportRecord>>> findBundleExports(Workspace &workspace, const QString &sha256)
{
    return workspace.worker(DbRole::Idempotency).run<QVector<BundleExportRecord>>([sha256](DbSession &s) {
        requireExportTable(s);
        SqlBuilder b;
        QSqlQuery q = s.exec(QStringLiteral("SELECT %1 FROM triage_incident_export WHERE events_sha256 = %2 ORDER BY id")
                                 .arg(exportColumns(s.dialect()), b.bind(sha256.toLower())),
                             b);
        QVector<BundleExportRecord> rows;
        while (q.next())
            rows << exportFrom(q);
        return rows;
    });
}

} // namespace triage
