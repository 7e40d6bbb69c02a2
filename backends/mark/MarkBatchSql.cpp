// Bulk marks at the database's speed (DESIGN.md §9 "Bulk marks"): a batch of marks decided
// one by one, exactly as mark_sql::apply() decides one (MarkSqlParts.h), but read, locked,
// written and audited a chunk of records per statement.
#include "MarkSqlParts.h"

#include "AuditBulk.h"
#include "ConsoleSchema.h"
#include "KeyDetailBulk.h"
#include "Log.h"
#include "RecordStatus.h"
#include "SqlChunks.h"

#include <QSet>
#include <QSqlQuery>

#include <algorithm>

namespace triage::mark_sql {

namespace {

/// The compare-and-set's fields of one record as read (under its row lock, in a batch).
struct CasState {
    StoredRecordStatus status;
    std::optional<UtcMicros> updatedAt; ///< nullopt for NULL or a time that cannot be read
    std::optional<qint64> version;
};

/// The compare-and-set columns of the record table: key, status, updated_at as text[, version].
QString casColumns(const RecordSql &r, bool hasVersion)
{
    // One arg() pass: mapped time expressions may hold '%' (SQLite's printf).
    return QStringLiteral("%1, %2, %3%4").arg(r.key, r.statuses.read(r.status), r.time.text(r.updatedAt),
                                             hasVersion ? QStringLiteral(", ") + r.version : QString());
}

/// The state in the current row of `q` (selected with casColumns()).
CasState casStateOf(const QSqlQuery &q, const RecordSql &r, bool hasVersion)
{
    CasState st;
    st.status = StoredRecordStatus::fromMapped(q.value(1), r.map.statuses);
    if (!q.value(2).isNull())
        st.updatedAt = parseUtcMicros(canonicalTimeText(q.value(2)));
    if (hasVersion && !q.value(3).isNull())
        st.version = q.value(3).toLongLong();
    return st;
}

/// Reads the compare-and-set fields of `keys`' records (at most kInListChunk keys; the first
/// row per exact key), in key order. With `lock` the rows are locked for the transaction
/// (FOR UPDATE, taken in key order, so batches that overlap wait for each other instead of
/// deadlocking; SQLite's BEGIN IMMEDIATE already holds the whole database). Throws DbException.
QHash<QString, CasState> readCasStates(DbSession &s, const RecordSql &r, bool hasVersion, const QStringList &keys, bool lock)
{
    SqlBuilder b;
    const Dialect d = s.dialect().kind();
    QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE %3 ORDER BY %4")
                      .arg(casColumns(r, hasVersion), r.table, detail_sql::keyIn(b, d, r.key, keys), r.key);
    if (lock && d != Dialect::Sqlite)
        sql += QStringLiteral(" FOR UPDATE");
    QSqlQuery q = s.exec(sql, b);
    QHash<QString, CasState> out;
    while (q.next()) {
        const QString key = q.value(0).toString();
        if (!out.contains(key))
            out.insert(key, casStateOf(q, r, hasVersion));
    }
    return out;
}

/// Whether the locked state `now` is still `expected`: the conditions of apply()'s
/// compare-and-set UPDATE, compared on the row read under its lock (MarkSql.cpp
/// statusCondition(), updatedAtCondition()): the status exactly as stored when the operator saw
/// one (else any spelling of the expected status), the same instant of updated_at, the version.
bool stillExpected(const ExpectedState &expected, const CasState &now, const RecordSql &r, bool hasVersion)
{
    if (!expected.updatedAt || now.updatedAt != expected.updatedAt)
        return false;
    if (hasVersion && now.version != expected.version)
        return false;
    if (expected.statusStored || !expected.status)
        return now.status.stored == expected.statusStored;
    const qint64 code = *expected.status;
    if (code == Processing || code == Success || code == Failed)
        return now.status.code == code;
    if (!r.statuses.mapping().text)
        return now.status.stored == QString::number(code);
    return false;
}

ExpectedState stateOf(const CasState &st)
{
    ExpectedState e;
    e.status = st.status.code;
    e.statusStored = st.status.stored;
    e.updatedAt = st.updatedAt;
    e.version = st.version;
    return e;
}

/// PostgreSQL: the snapshot column's declared type (format_type(), e.g. "jsonb", "text"),
/// memoised per session, so the batch's CASE (text) is cast to it; empty elsewhere or when the
/// catalog does not say.
QString snapshotColumnType(DbSession &s, const RecordSql &r)
{
    if (s.dialect().kind() != Dialect::PostgreSql)
        return {};
    return s.memo(QStringLiteral("mark.snapshotType:%1.%2").arg(r.map.table, r.map.snapshot), [&] {
                SqlBuilder b;
                QSqlQuery q = s.exec(QStringLiteral("SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE "
                                                    "a.attrelid = to_regclass(%1) AND a.attname = %2 AND NOT a.attisdropped")
                                         .arg(b.bind(r.map.table), b.bind(r.map.snapshot)),
                                     b);
                return QVariant(q.next() ? q.value(0).toString() : QString());
            })
        .toString();
}

/// The compare-and-set UPDATE of the records of `keys` (locked and still in their expected
/// state): status and updated_at as apply() writes them, each SUCCESS record's own snapshot, the
/// version + 1. Returns the rows changed; `after` gets their new state (PostgreSQL: from the
/// UPDATE's RETURNING; elsewhere read back, the rows still locked).
int updateWon(DbSession &s, const RecordSql &r, bool hasVersion, RecordStatusCode to, const QStringList &keys,
              const QStringList &snapshots, QHash<QString, CasState> &after)
{
    const Dialect d = s.dialect().kind();
    SqlBuilder b;
    QStringList sets = {QStringLiteral("%1 = %2").arg(r.status, r.statuses.write(b, recordStatusName(to))),
                        QStringLiteral("%1 = %2").arg(r.updatedAt, updatedAtSetValue(d, r))};
    const bool pg = d == Dialect::PostgreSql;
    QString from;   // PostgreSQL: the snapshots joined by key (one hash join, not a CASE per row)
    QString where;
    if (to == Success && pg) {
        QStringList values;
        for (qsizetype i = 0; i < keys.size(); ++i)
            values << QStringLiteral("(%1, %2)").arg(b.bind(keys[i]), b.bind(snapshots[i]));
        // Names no mapped column takes; the record table is aliased triage_r.
        from = QStringLiteral(" FROM (VALUES %1) AS triage_snapshots(triage_k, triage_snapshot)").arg(values.join(QStringLiteral(", ")));
        where = QStringLiteral("%1 = triage_snapshots.triage_k").arg(qualified(QStringLiteral("triage_r"), r.key));
        QString value = QStringLiteral("triage_snapshots.triage_snapshot");
        if (const QString type = snapshotColumnType(s, r); !type.isEmpty())
            value = QStringLiteral("CAST(%1 AS %2)").arg(value, type);
        sets << QStringLiteral("%1 = %2").arg(r.snapshot, value);
    } else if (to == Success) {
        QStringList whens;
        for (qsizetype i = 0; i < keys.size(); ++i)
            whens << QStringLiteral("WHEN %1 THEN %2").arg(textIs(b, d, r.key, keys[i]), b.bind(snapshots[i]));
        sets << QStringLiteral("%1 = CASE %2 END").arg(r.snapshot, whens.join(QLatin1Char(' ')));
    }
    if (hasVersion)
        sets << QStringLiteral("%1 = COALESCE(%1, 0) + 1").arg(r.version);
    if (where.isEmpty())
        where = detail_sql::keyIn(b, d, r.key, keys);
    const QString update = QStringLiteral("UPDATE %1%2 SET %3%4 WHERE %5")
                               .arg(r.table, from.isEmpty() ? QString() : QStringLiteral(" AS triage_r"), sets.join(QStringLiteral(", ")),
                                    from, where);
    if (d != Dialect::PostgreSql) {
        const int changed = s.exec(update, b).numRowsAffected();
        after = readCasStates(s, r, hasVersion, keys, false);
        return changed;
    }
    QSqlQuery q = s.exec(update + QStringLiteral(" RETURNING ") + casColumns(r, hasVersion), b);
    int changed = 0;
    while (q.next()) {
        ++changed;
        after.insert(q.value(0).toString(), casStateOf(q, r, hasVersion));
    }
    return changed;
}

/// Reads the records of `keys`, one statement per kInListChunk keys; with `decisionOnly` as a
/// mark decides on them (no snapshot, no unmapped columns: detail_sql::readRecords()).
QHash<QString, RecordDetail> readRecordsByKey(DbSession &s, const WorkspaceConfig &config, const QStringList &keys,
                                              bool decisionOnly)
{
    QHash<QString, RecordDetail> out;
    for (qsizetype from = 0; from < keys.size(); from += kInListChunk)
        for (RecordDetail &d : detail_sql::readRecords(s, config, keys.mid(from, kInListChunk), decisionOnly))
            out.insert(d.idemKey, std::move(d));
    return out;
}

template <typename T>
std::optional<T> valueIf(const QHash<QString, T> &h, const QString &key)
{
    const auto it = h.constFind(key);
    return it == h.cend() ? std::nullopt : std::optional<T>(*it);
}

/// One batch being applied: the requests, their results and audit rows by index.
struct Batch {
    DbSession &s;
    const WorkspaceConfig &config;
    const QVector<MarkRequest> &reqs;
    const QHash<QString, MarkEvidence> &evidence;
    const RecordSql r;
    const StatusMapping *mapped;
    QVector<MarkResult> results;
    QVector<AuditEntry> rows;
    QVector<MarkPlan> plans;
    QVector<int> alone, refused, conflicts;
    QHash<int, QVector<int>> proceed; ///< target status → indices allowed, each key once

    /// Writes the audit rows of `indices` (autocommit) and sets their auditId.
    void audit(const QVector<int> &indices)
    {
        QVector<AuditEntry> entries;
        for (int i : indices)
            entries << rows[i];
        const QHash<QString, qint64> ids = audit_sql::insertMany(s, entries);
        for (int i : indices)
            results[i].auditId = ids.value(reqs[i].requestId);
    }

    /// Compare-and-set of one chunk (same target, distinct keys, key order), in one transaction:
    /// lock and read, compare each record with its own expected state, update the ones that
    /// still match, read their new state, audit them; the rest are conflicts.
    void casChunk(RecordStatusCode to, const QVector<int> &chunk, bool hasVersion)
    {
        QStringList keys;
        for (int i : chunk)
            keys << reqs[i].idemKey;
        QVector<int> won;
        QVector<AuditEntry> applied;
        s.begin();
        try {
            const QHash<QString, CasState> locked = readCasStates(s, r, hasVersion, keys, true);
            QStringList wonKeys, snapshots;
            for (int i : chunk) {
                const auto it = locked.constFind(reqs[i].idemKey);
                if (it != locked.cend() && stillExpected(plans[i].expected, *it, r, hasVersion)) {
                    won << i;
                    wonKeys << reqs[i].idemKey;
                    snapshots << reqs[i].snapshot.value_or(QString());
                } else {
                    conflicts << i;
                }
            }
            if (!won.isEmpty()) {
                QHash<QString, CasState> after;
                const int changed = updateWon(s, r, hasVersion, to, wonKeys, snapshots, after);
                if (changed != won.size())
                    throw DbException({DbRole::Idempotency, DbError::Kind::Statement,
                                       QStringLiteral("idempotency store: the batch compare-and-set changed %1 rows where %2 were "
                                                      "locked in their expected state; nothing of this batch was applied")
                                           .arg(changed)
                                           .arg(won.size()),
                                       {}});
                for (int i : won) {
                    AuditEntry &a = rows[i];
                    a.toState = auditStateJson(stateOf(after.value(reqs[i].idemKey)), mapped);
                    a.outcome = QStringLiteral("applied");
                    a.detail = appliedDetail(plans[i].decision);
                    applied << a;
                }
                const QHash<QString, qint64> ids = audit_sql::insertMany(s, applied);
                for (int i : won)
                    results[i].auditId = ids.value(reqs[i].requestId);
            }
        } catch (const DbException &) {
            s.rollback();
            throw; // nothing of this chunk was applied
        }
        if (won.isEmpty()) {
            s.rollback();
            return;
        }
        try {
            s.commit();
            for (int i : won) {
                results[i].kind = MarkResult::Kind::Applied;
                results[i].message = rows[i].detail;
            }
        } catch (const DbException &e) {
            verifyAfterLostCommit(won, e);
        }
    }

    /// The COMMIT's outcome is unknown: re-open and read what the audit trail holds for each
    /// request id of `won` (never re-send), as apply() does for one record.
    void verifyAfterLostCommit(const QVector<int> &won, const DbException &e)
    {
        logger("backend.sql")->warn("COMMIT of a batch of {} marks failed: {}; verifying", won.size(), e.error.message);
        s.rollback();
        s.close();
        try {
            s.ensureOpen();
            QStringList ids;
            for (int i : won)
                ids << reqs[i].requestId;
            const QHash<QString, AuditEntry> found = audit_sql::byRequestIds(s, ids);
            for (int i : won)
                settleLostCommit(results[i], valueIf(found, reqs[i].requestId), e.error.message);
        } catch (const DbException &again) {
            for (int i : won)
                settleCommitUnknown(results[i], again.error.message);
        }
    }
};

} // namespace

QVector<MarkResult> applyBatch(DbSession &s, const WorkspaceConfig &config, const QVector<MarkRequest> &reqs,
                               const QHash<QString, MarkEvidence> &evidence)
{
    Batch b{s, config, reqs, evidence, config.records(s.dialect().kind()), nullptr, {}, {}, {}, {}, {}, {}, {}};
    b.mapped = mappedStatuses(b.r);
    b.results.resize(reqs.size());
    b.rows.resize(reqs.size());
    b.plans.resize(reqs.size());
    bool writes = false;
    QStringList requestIds, keys;
    QSet<QString> seen;
    for (int i = 0; i < reqs.size(); ++i) {
        b.results[i].idemKey = reqs[i].idemKey;
        b.results[i].requestId = reqs[i].requestId;
        writes = writes || !reqs[i].dryRun;
        requestIds << reqs[i].requestId;
        if (!seen.contains(reqs[i].idemKey)) {
            seen.insert(reqs[i].idemKey);
            keys << reqs[i].idemKey;
        }
    }
    if (writes)
        requireKnownConsoleSchema(s); // before anything is read or written (DESIGN.md §10)
    // A retried batch (after a dropped connection) finds the rows it already wrote.
    const QHash<QString, AuditEntry> priors = audit_sql::byRequestIds(s, requestIds);
    const QHash<QString, RecordDetail> records = readRecordsByKey(s, config, keys, true);
    const QHash<QString, AuditEntry> upstream = audit_sql::latestUpstreamQueries(s, keys);
    const bool hasVersion = !b.r.version.isEmpty() && s.hasColumn(b.r.map.table, b.r.map.version);
    const QString warning = precisionWarningFor(s, b.r, hasVersion);
    QSet<QString> taken;
    for (int i = 0; i < reqs.size(); ++i) {
        const MarkRequest &req = reqs[i];
        MarkResult &res = b.results[i];
        const std::optional<RecordDetail> current = valueIf(records, req.idemKey);
        if (const auto prior = valueIf(priors, req.requestId)) {
            res.kind = kindOfOutcome(prior->outcome);
            res.auditId = prior->id;
            res.message = alreadyRecordedText(*prior);
            res.current = current;
            continue;
        }
        if (req.dryRun || req.approves) { // decided and worded one by one (four-eyes reads)
            b.alone << i;
            continue;
        }
        res.before = current;
        res.current = current;
        b.plans[i] = planMark(s, b.r, req, evidence.value(req.idemKey), current,
                              current ? valueIf(upstream, req.idemKey) : std::nullopt);
        const MarkPlan &plan = b.plans[i];
        b.rows[i] = plan.audit;
        if (plan.step == MarkPlan::Step::Conflict) {
            b.conflicts << i;
        } else if (plan.step == MarkPlan::Step::Refuse) {
            settleRefusal(plan, res, b.rows[i]);
            if (auditsRefusal(req, current))
                b.refused << i;
        } else if (plan.fourEyes.required() || taken.contains(req.idemKey)) {
            b.alone << i; // a proposal, or the same key again: after the batch, as alone
        } else {
            taken.insert(req.idemKey);
            if (!warning.isEmpty())
                res.warnings << warning;
            res.current.reset(); // a bulk run reads nothing back (MarkRequest::readBack)
            b.proceed[int(req.toStatus)] << i;
        }
    }
    b.audit(b.refused);
    for (auto it = b.proceed.begin(); it != b.proceed.end(); ++it) {
        QVector<int> &indices = it.value();
        std::sort(indices.begin(), indices.end(), [&](int x, int y) { return reqs[x].idemKey < reqs[y].idemKey; });
        for (qsizetype from = 0; from < indices.size(); from += kInListChunk)
            b.casChunk(RecordStatusCode(it.key()), indices.mid(from, kInListChunk), hasVersion);
    }
    if (!b.conflicts.isEmpty()) {
        QStringList conflictKeys;
        for (int i : std::as_const(b.conflicts))
            conflictKeys << reqs[i].idemKey;
        conflictKeys.removeDuplicates();
        const QHash<QString, RecordDetail> now = readRecordsByKey(s, config, conflictKeys, false); // as alone
        const QHash<QString, AuditEntry> changedBy = audit_sql::lastAppliedFor(s, conflictKeys);
        for (int i : std::as_const(b.conflicts)) {
            MarkResult &res = b.results[i];
            res.current = valueIf(now, reqs[i].idemKey);
            res.changedBy = valueIf(changedBy, reqs[i].idemKey);
            settleConflict(res, b.rows[i]);
        }
        b.audit(b.conflicts);
    }
    for (int i : std::as_const(b.alone))
        b.results[i] = apply(s, config, reqs[i], evidence.value(reqs[i].idemKey));
    return b.results;
}

} // namespace triage::mark_sql
