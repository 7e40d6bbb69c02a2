// The mark feature's SQL part: the compare-and-set with its audit row, and the evidence
// readers; every function runs on a worker's session (DESIGN.md §2, §6).
#include "MarkSql.h"

#include "CanonicalTicket.h"
#include "JsonText.h"
#include "Log.h"
#include "RecordStatus.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

namespace triage {

namespace {

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QJsonValue jsonOrNull(const std::optional<qint64> &v)
{
    return v ? QJsonValue(double(*v)) : QJsonValue(QJsonValue::Null);
}

QString stateJson(const ExpectedState &s)
{
    QJsonObject o;
    o[QStringLiteral("status")] = s.status ? recordStatusText(QVariant(*s.status)) : QStringLiteral("NULL");
    o[QStringLiteral("status_code")] = jsonOrNull(s.status);
    o[QStringLiteral("updated_at")] = s.updatedAt ? QJsonValue(formatUtcMicros(*s.updatedAt)) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("version")] = jsonOrNull(s.version);
    return compact(o);
}

MarkResult::Kind kindFromOutcome(const QString &outcome)
{
    if (outcome == QLatin1String("applied"))
        return MarkResult::Kind::Applied;
    if (outcome == QLatin1String("conflict"))
        return MarkResult::Kind::Conflict;
    if (outcome == QLatin1String("refused"))
        return MarkResult::Kind::Refused;
    return MarkResult::Kind::Error;
}

/// The one-second blind spot (DESIGN.md §4): second-precision updated_at and no version.
QString precisionWarning(DbSession &s, bool hasVersion)
{
    if (hasVersion || s.dialect().kind() == Dialect::Sqlite)
        return {};
    SqlBuilder b;
    const QString sql = s.dialect().kind() == Dialect::PostgreSql
        ? QStringLiteral("SELECT datetime_precision FROM information_schema.columns WHERE table_schema = current_schema() "
                         "AND table_name = %1 AND column_name = %2")
        : QStringLiteral("SELECT DATETIME_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
                         "AND TABLE_NAME = %1 AND COLUMN_NAME = %2");
    QSqlQuery q = s.exec(sql.arg(b.bind(QStringLiteral("idempotency_record")), b.bind(QStringLiteral("updated_at"))), b);
    if (q.next() && !q.value(0).isNull() && q.value(0).toInt() == 0)
        return QStringLiteral("updated_at has one-second precision and the table has no version column: this "
                              "compare-and-set cannot see a change made within the same second");
    return {};
}

QString evidenceJson(const MarkRequest &req, const MarkEvidence &ev, const QString &overridden)
{
    QJsonObject o;
    QJsonArray tickets, attempts, escalated;
    for (const BusinessId &id : ev.ticketIds)
        tickets.append(id.toJson()); // a number for an integer id, as before; else the exact text
    for (qint64 id : ev.succeededAttemptIds)
        attempts.append(double(id));
    for (qint64 id : ev.escalatedAttemptIds)
        escalated.append(double(id));
    o[QStringLiteral("ticket_ids")] = tickets;
    o[QStringLiteral("succeeded_attempt_ids")] = attempts;
    o[QStringLiteral("escalated_attempt_ids")] = escalated;
    if (ev.latestAttemptAt)
        o[QStringLiteral("latest_attempt_at")] = formatUtcMicros(*ev.latestAttemptAt);
    if (ev.upstream) {
        QJsonObject u;
        u[QStringLiteral("audit_id")] = double(ev.upstream->auditId);
        u[QStringLiteral("answer")] = upstreamAnswerName(ev.upstream->answer);
        u[QStringLiteral("at")] = ev.upstream->atText;
        o[QStringLiteral("recorded_upstream_answer")] = u;
    }
    if (!ev.ticketError.isEmpty())
        o[QStringLiteral("ticket_store_error")] = ev.ticketError;
    if (!ev.intentError.isEmpty())
        o[QStringLiteral("intent_store_error")] = ev.intentError;
    if (!req.snapshotSource.isEmpty())
        o[QStringLiteral("snapshot_source")] = req.snapshotSource;
    if (req.override)
        o[QStringLiteral("override")] = overridden.isEmpty() ? QStringLiteral("requested; no rule needed it") : overridden;
    if (!req.evidenceJson.isEmpty()) {
        const ParsedJson extra = parseJsonText(req.evidenceJson);
        o[QStringLiteral("extra")] = extra.ok ? extra.root : QJsonValue(req.evidenceJson);
    }
    return compact(o);
}

/// The audit row of `req` before its outcome is known: who, where, what, from which state.
AuditEntry expectedAuditEntry(DbSession &s, const MarkRequest &req, const ExpectedState &expected, const MarkEvidence &ev)
{
    AuditEntry a = auditStamp(req.toStatus == Success ? audit_action::MarkSuccess : audit_action::MarkFailed, req.idemKey,
                              req.operatorName, auditDbUser(s.profile()), req.requestId);
    a.fromState = stateJson(expected);
    QJsonObject target;
    target[QStringLiteral("status")] = recordStatusName(req.toStatus);
    target[QStringLiteral("status_code")] = int(req.toStatus);
    a.toState = compact(target);
    a.reason = req.reason;
    a.evidence = evidenceJson(req, ev, QString());
    return a;
}

/// Reports (and audits, outside any transaction) a compare-and-set that lost: the row as
/// it is now and, when a person changed it, who and when (from triage_audit).
MarkResult conflict(DbSession &s, const WorkspaceConfig &config, const MarkRequest &req, MarkResult res, AuditEntry a)
{
    res.kind = MarkResult::Kind::Conflict;
    res.current = detail_sql::readRecord(s, config, req.idemKey);
    res.changedBy = audit_sql::lastApplied(s, req.idemKey);
    QString now = res.current ? QStringLiteral("%1, updated_at %2").arg(res.current->statusText, res.current->updatedAt)
                              : QStringLiteral("the record no longer exists");
    if (res.changedBy)
        now += QStringLiteral(" (last changed by %1 at %2: %3)").arg(res.changedBy->operatorName, res.changedBy->at, res.changedBy->reason);
    else if (res.current)
        now += QStringLiteral(" (no operator action is recorded for it: if it changed, the agent or the reconciler did)");
    res.message = QStringLiteral("compare-and-set matched no row: the record is not in the state given (it changed since "
                                 "it was read, or the expected state was wrong); now %1")
                      .arg(now);
    a.outcome = QStringLiteral("conflict");
    a.detail = res.message;
    if (!req.dryRun) // a dry run writes nothing
        res.auditId = audit_sql::insert(s, a);
    return res;
}

/// Runs one statement per chunk of at most 500 `keys` (bound values): `sqlFor(list)` gets
/// the chunk's placeholders joined by ", " (for `IN (…)`), `onRow(query)` sees each row.
/// Throws DbException like DbSession::exec().
template <typename SqlFor, typename OnRow>
void forKeyChunks(DbSession &s, const QStringList &keys, SqlFor &&sqlFor, OnRow &&onRow)
{
    constexpr int kChunk = 500;
    for (int i = 0; i < keys.size(); i += kChunk) {
        SqlBuilder b;
        QStringList ph;
        for (int j = i; j < qMin<int>(keys.size(), i + kChunk); ++j)
            ph << b.bind(keys[j]);
        QSqlQuery q = s.exec(sqlFor(ph.join(QStringLiteral(", "))), b);
        while (q.next())
            onRow(q);
    }
}

/// The condition matching `key`'s updated_at when it is the instant `expected`, on SQLite:
/// SQLite keeps whatever text it was given ("2026-12-01 10:00:00", "…T10:00:00Z",
/// "…T10:00:00.123456Z", offsets), so the stored text is read in the compare-and-set's own
/// transaction (BEGIN IMMEDIATE holds the write lock), compared as a time, and bound back
/// exactly as stored. A stored value that is not that instant (or not a time) matches nothing.
QString sqliteUpdatedAtCondition(DbSession &s, SqlBuilder &b, const QString &key, UtcMicros expected)
{
    SqlBuilder rb;
    QSqlQuery q = s.exec(QStringLiteral("SELECT updated_at FROM idempotency_record WHERE idem_key = %1").arg(rb.bind(key)), rb);
    if (q.next() && !q.value(0).isNull() && parseUtcMicros(canonicalTimeText(q.value(0))) == expected)
        return QStringLiteral("updated_at = %1").arg(b.bind(q.value(0)));
    return QStringLiteral("1 = 0");
}

} // namespace

namespace mark_sql {

MarkResult apply(DbSession &s, const WorkspaceConfig &config, const MarkRequest &req, const MarkEvidence &ev)
{
    MarkResult res;
    res.idemKey = req.idemKey;
    res.requestId = req.requestId;
    // A retried request (after a dropped connection) finds its own audit row.
    if (const auto prior = audit_sql::byRequestId(s, req.requestId)) {
        res.kind = kindFromOutcome(prior->outcome);
        res.auditId = prior->id;
        res.message = QStringLiteral("already recorded for this request: %1").arg(prior->detail);
        res.current = detail_sql::readRecord(s, config, req.idemKey);
        return res;
    }
    const std::optional<RecordDetail> current = detail_sql::readRecord(s, config, req.idemKey);
    res.before = current;
    res.current = current;
    const bool hasVersion = s.hasColumn(QStringLiteral("idempotency_record"), QStringLiteral("version"));
    const ExpectedState expected = req.expect ? *req.expect : (current ? expectedStateOf(*current) : ExpectedState{});

    if (current && req.expect
        && (current->statusCode != expected.status || parseUtcMicros(current->updatedAt) != expected.updatedAt
            || (hasVersion && current->version != expected.version))) {
        // Someone else's state wins: report it before any rule looks at the changed record.
        return conflict(s, config, req, res, expectedAuditEntry(s, req, expected, ev));
    }

    MarkEvidence evidence = ev;
    if (current)
        if (const auto row = audit_sql::latestUpstreamQuery(s, req.idemKey))
            evidence.upstream = recordedUpstreamAnswer(*row);
    MarkFacts facts = markFactsFrom(current, evidence);
    facts.fromStatus = expected.status;
    facts.snapshotTicketId = req.snapshotFromTicket;
    facts.snapshotTicketCarriesKey = !req.snapshotFromTicket || evidence.ticketIds.contains(*req.snapshotFromTicket);
    bool snapshotOk = false;
    QString snapshotError = req.snapshotMissingReason.isEmpty() ? QStringLiteral("no snapshot given") : req.snapshotMissingReason;
    if (req.snapshot) {
        const ParsedJson parsed = parseJsonText(*req.snapshot);
        snapshotOk = parsed.ok && parsed.root.isObject();
        snapshotError = parsed.ok ? QStringLiteral("the snapshot is JSON but not an object") : parsed.error;
    }
    // A SUCCESS snapshot comes only from the canonical ticket (DESIGN.md §6); a caller that
    // found no snapshot it may use says why, and that is the refusal.
    QString snapshotRule;
    if (req.toStatus == Success)
        snapshotRule = req.snapshot ? snapshotCanonicalRefusal(ev.tickets, req.snapshot, req.snapshotSource) : req.snapshotMissingReason;
    MarkDecision decision = decideMark(facts, req.toStatus, req.reason, req.override, snapshotOk || !snapshotRule.isEmpty(),
                                       snapshotError, req.bulk);
    if (decision.allowed && !snapshotRule.isEmpty()) {
        decision.allowed = false;
        decision.reason = snapshotRule;
    }
    // A store that cannot be read is an error (exit 2), not a safety refusal: FAILED is
    // decided on evidence, and evidence that could not be read is no evidence either way.
    // For SUCCESS the tickets decide where a snapshot may come from (the canonical-ticket
    // rule): a ticket store that cannot be read is an error there too.
    const bool ticketsUnreadable = req.toStatus == Success && !ev.ticketError.isEmpty();
    const bool evidenceUnreadable
        = ticketsUnreadable || (req.toStatus == Failed && (!ev.ticketError.isEmpty() || !ev.intentError.isEmpty()));
    if (ticketsUnreadable) {
        decision.allowed = false;
        decision.reason = QStringLiteral("the tickets could not be read (%1): a SUCCESS snapshot may come only from the "
                                         "canonical ticket (DESIGN.md §6)")
                              .arg(ev.ticketError);
    } else if (evidenceUnreadable) {
        QStringList errors;
        for (const QString &e : {ev.ticketError, ev.intentError})
            if (!e.isEmpty())
                errors << e;
        decision.allowed = false;
        decision.reason = QStringLiteral("the evidence could not be read (%1): FAILED needs proof of no side effect")
                              .arg(errors.join(QStringLiteral("; ")));
    }

    AuditEntry a = expectedAuditEntry(s, req, expected, evidence);
    a.evidence = evidenceJson(req, evidence, decision.overridden);

    if (!decision.allowed) {
        res.kind = evidenceUnreadable ? MarkResult::Kind::Error : MarkResult::Kind::Refused;
        res.message = decision.reason;
        a.outcome = evidenceUnreadable ? QStringLiteral("error") : QStringLiteral("refused");
        a.detail = decision.reason;
        // Every real outcome is audited, refusals included; a dry run writes nothing. A key
        // no record has and triage_audit.idem_key (64 characters) cannot hold is a typo.
        if (!req.dryRun && (current || req.idemKey.size() <= 64))
            res.auditId = audit_sql::insert(s, a);
        return res;
    }
    if (const QString w = s.memo(QStringLiteral("mark.precisionWarning"), [&] { return QVariant(precisionWarning(s, hasVersion)); })
                              .toString();
        !w.isEmpty())
        res.warnings << w;
    if (req.dryRun) {
        res.kind = MarkResult::Kind::DryRun;
        res.message = QStringLiteral("would mark %1 → %2 if the record still has status %3, updated_at %4%5")
                          .arg(recordStatusText(expected.status ? QVariant(*expected.status) : QVariant()),
                               recordStatusName(req.toStatus),
                               recordStatusText(expected.status ? QVariant(*expected.status) : QVariant()),
                               expected.updatedAt ? formatUtcMicros(*expected.updatedAt) : QStringLiteral("NULL"),
                               hasVersion ? QStringLiteral(", version %1").arg(expected.version ? QString::number(*expected.version)
                                                                                               : QStringLiteral("NULL"))
                                          : QString());
        return res;
    }

    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    QStringList sets = {QStringLiteral("status = %1").arg(b.bind(int(req.toStatus))),
                        QStringLiteral("updated_at = %1").arg(d.nowValue())};
    if (req.toStatus == Success)
        sets << QStringLiteral("result_snapshot = %1").arg(b.bind(*req.snapshot));
    if (hasVersion)
        sets << QStringLiteral("version = COALESCE(version, 0) + 1");
    QStringList where = {QStringLiteral("idem_key = %1").arg(b.bind(req.idemKey))};
    where << (expected.status ? QStringLiteral("status = %1").arg(b.bind(*expected.status)) : QStringLiteral("status IS NULL"));
    if (hasVersion)
        where << (expected.version ? QStringLiteral("version = %1").arg(b.bind(*expected.version)) : QStringLiteral("version IS NULL"));
    if (!expected.updatedAt)
        where << QStringLiteral("1 = 0"); // a NULL or unreadable expected time can match nothing
    else if (d.kind() != Dialect::Sqlite)
        where << QStringLiteral("updated_at = %1").arg(d.timeParam(b.bind(d.bindTime(*expected.updatedAt))));

    s.begin();
    int matched = 0;
    try {
        if (expected.updatedAt && d.kind() == Dialect::Sqlite)
            where << sqliteUpdatedAtCondition(s, b, req.idemKey, *expected.updatedAt);
        QSqlQuery q = s.exec(QStringLiteral("UPDATE idempotency_record SET %1 WHERE %2")
                                 .arg(sets.join(QStringLiteral(", ")), where.join(QStringLiteral(" AND "))),
                             b);
        matched = q.numRowsAffected();
        if (matched == 1) {
            SqlBuilder rb;
            QSqlQuery after = s.exec(QStringLiteral("SELECT status, %1%2 FROM idempotency_record WHERE idem_key = %3")
                                         .arg(d.timeText(QStringLiteral("updated_at")),
                                              hasVersion ? QStringLiteral(", version") : QString(), rb.bind(req.idemKey)),
                                     rb);
            ExpectedState now;
            if (after.next()) {
                now.status = recordStatusCode(after.value(0));
                now.updatedAt = parseUtcMicros(canonicalTimeText(after.value(1)));
                if (hasVersion && !after.value(2).isNull())
                    now.version = after.value(2).toLongLong();
            }
            a.toState = stateJson(now);
            a.outcome = QStringLiteral("applied");
            a.detail = decision.overridden.isEmpty() ? decision.reason
                                                     : decision.reason + QStringLiteral(" (override: ") + decision.overridden + QLatin1Char(')');
            res.auditId = audit_sql::insert(s, a);
        }
    } catch (const DbException &) {
        s.rollback();
        throw; // the original error; nothing was applied
    }
    if (matched != 1) {
        s.rollback();
        return conflict(s, config, req, res, a);
    }
    try {
        s.commit();
    } catch (const DbException &e) {
        // The COMMIT's outcome is unknown: re-open and read what is really there.
        logger("backend.sql")->warn("COMMIT of mark {} failed: {}; verifying", req.idemKey, e.error.message);
        s.rollback();
        s.close();
        try {
            s.ensureOpen();
            const auto prior = audit_sql::byRequestId(s, req.requestId);
            res.current = detail_sql::readRecord(s, config, req.idemKey);
            if (prior && prior->outcome == QLatin1String("applied")) {
                res.kind = MarkResult::Kind::Applied;
                res.auditId = prior->id;
                res.message = QStringLiteral("applied (the COMMIT reply was lost; verified after reconnecting)");
            } else {
                res.kind = MarkResult::Kind::Error;
                res.auditId = 0;
                res.message = QStringLiteral("not applied: the COMMIT failed (%1); verified after reconnecting that no "
                                             "change was recorded")
                                  .arg(e.error.message);
            }
        } catch (const DbException &again) {
            res.kind = MarkResult::Kind::Error;
            res.auditId = 0;
            res.message = QStringLiteral("outcome UNKNOWN: the connection dropped during COMMIT and cannot be re-opened (%1); "
                                         "check with `triagectl show %2` and `triagectl audit --key %2` before retrying")
                              .arg(again.error.message, req.idemKey);
        }
        return res;
    }
    res.kind = MarkResult::Kind::Applied;
    res.message = a.detail;
    res.current = req.readBack ? detail_sql::readRecord(s, config, req.idemKey) : std::nullopt;
    return res;
}

TicketEvidence readTicketEvidence(DbSession &s, const QStringList &keys, const QStringList &rowKeys)
{
    TicketEvidence out;
    forKeyChunks(
        s, keys, [](const QString &in) { return QStringLiteral("SELECT idem_key, id FROM ticket WHERE idem_key IN (%1) ORDER BY id").arg(in); },
        [&out](const QSqlQuery &q) { out.ids[q.value(0).toString()].append(BusinessId::fromColumn(q.value(1))); });
    const SqlDialect &d = s.dialect();
    forKeyChunks(
        s, rowKeys,
        [&d](const QString &in) {
            return QStringLiteral("SELECT idem_key, id, status, %1 FROM ticket WHERE idem_key IN (%2) ORDER BY id")
                .arg(d.timeText(QStringLiteral("created_at")), in);
        },
        [&out](const QSqlQuery &q) {
            TicketRow t;
            t.idemKey = q.value(0).toString();
            t.id = BusinessId::fromColumn(q.value(1));
            if (!q.value(2).isNull())
                t.status = q.value(2).toString();
            t.createdAt = canonicalTimeText(q.value(3));
            out.rows[*t.idemKey].append(t);
        });
    return out;
}

AttemptEvidence readAttemptEvidence(DbSession &s, const QStringList &keys)
{
    AttemptEvidence out;
    const SqlDialect &d = s.dialect();
    forKeyChunks(
        s, keys,
        [&d](const QString &in) {
            return QStringLiteral("SELECT idem_key, id, status, %1, %2 FROM intent_log WHERE idem_key IN (%3) ORDER BY id")
                .arg(d.timeText(QStringLiteral("created_at")), d.timeText(QStringLiteral("updated_at")), in);
        },
        [&out](const QSqlQuery &q) {
            const QString key = q.value(0).toString();
            const QString status = q.value(2).toString();
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
    return out;
}

} // namespace mark_sql

} // namespace triage
