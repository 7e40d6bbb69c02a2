#include "Mark.h"

#include "CanonicalTicket.h"
#include "JsonText.h"
#include "Log.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSqlQuery>
#include <QUuid>
#include <QSet>

#include <limits>
#include <QtConcurrent>

namespace triage {

void setSnapshotFrom(MarkRequest &r, const SnapshotTicketChoice &choice)
{
    if (choice.ticket) {
        r.snapshot = choice.ticket->payload;
        r.snapshotSource = QStringLiteral("ticket:%1").arg(choice.ticket->id);
        r.snapshotMissingReason.clear();
    } else {
        r.snapshotMissingReason = choice.refusal;
    }
}

QString markKindName(MarkResult::Kind kind)
{
    switch (kind) {
    case MarkResult::Kind::Applied: return QStringLiteral("applied");
    case MarkResult::Kind::Conflict: return QStringLiteral("conflict");
    case MarkResult::Kind::Refused: return QStringLiteral("refused");
    case MarkResult::Kind::Error: return QStringLiteral("error");
    case MarkResult::Kind::DryRun: return QStringLiteral("dry-run");
    }
    return {};
}

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
    o[QStringLiteral("updated_at")] = s.updatedAt;
    o[QStringLiteral("version")] = jsonOrNull(s.version);
    return compact(o);
}

ExpectedState stateOf(const RecordDetail &r)
{
    return {r.statusCode, r.updatedAt, r.version};
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
    for (qint64 id : ev.ticketIds)
        tickets.append(double(id));
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
    AuditEntry a;
    a.requestId = req.requestId;
    a.operatorName = req.operatorName;
    a.dbUser = s.profile().dialect == Dialect::Sqlite ? QString() : s.profile().user;
    a.host = auditHostName();
    a.action = QString::fromUtf16(req.toStatus == Success ? audit_action::MarkSuccess : audit_action::MarkFailed);
    a.idemKey = req.idemKey;
    a.fromState = stateJson(expected);
    QJsonObject target;
    target[QStringLiteral("status")] = recordStatusText(QVariant(req.toStatus));
    target[QStringLiteral("status_code")] = req.toStatus;
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

} // namespace

std::optional<RecordedUpstreamAnswer> recordedUpstreamAnswer(const AuditEntry &row)
{
    if (canonicalAuditAction(row.action) != QStringView(audit_action::QueryUpstream))
        return std::nullopt;
    RecordedUpstreamAnswer u;
    u.auditId = row.id;
    u.atText = row.at;
    u.at = parseUtcMicros(row.at);
    const ParsedJson parsed = parseJsonText(row.evidence);
    const QString c = parsed.ok ? parsed.root.toObject().value(QStringLiteral("evidence")).toObject().value(QStringLiteral("classification")).toString()
                                : QString();
    u.answer = c == QLatin1String("FOUND")            ? UpstreamAnswer::Found
        : c == QLatin1String("NOT_FOUND")             ? UpstreamAnswer::NotFound
        : c == QLatin1String("AMBIGUOUS")             ? UpstreamAnswer::Ambiguous
        : c == QLatin1String("NOT_CONFIGURED")        ? UpstreamAnswer::NotConfigured
                                                      : UpstreamAnswer::Unusable;
    return u;
}

MarkEvidence markEvidenceOf(const KeyDetail &detail)
{
    MarkEvidence ev;
    for (const TicketRow &t : detail.tickets)
        ev.ticketIds << t.id;
    for (const IntentAttempt &a : detail.attempts) {
        const QString status = a.status.value_or(QString());
        if (status == QLatin1String("SUCCEEDED"))
            ev.succeededAttemptIds << a.id;
        else if (status == QLatin1String("ESCALATED"))
            ev.escalatedAttemptIds << a.id;
        for (const QString *time : {&a.createdAt, &a.updatedAt}) {
            if (time->isNull())
                continue;
            const auto t = parseUtcMicros(*time);
            if (!t)
                ev.attemptTimeUnreadable = true;
            else if (!ev.latestAttemptAt || *t > *ev.latestAttemptAt)
                ev.latestAttemptAt = *t;
        }
    }
    std::optional<std::pair<UtcMicros, qint64>> latest;
    for (const AuditEntry &row : detail.audit) {
        const auto u = recordedUpstreamAnswer(row);
        if (!u)
            continue;
        const std::pair<UtcMicros, qint64> order{u->at.value_or(std::numeric_limits<UtcMicros>::min()), u->auditId};
        if (!latest || order > *latest) {
            latest = order;
            ev.upstream = u;
        }
    }
    if (detail.errors.contains(DbRole::Ticket))
        ev.ticketError = detail.errors.value(DbRole::Ticket).message;
    if (detail.errors.contains(DbRole::Intent))
        ev.intentError = detail.errors.value(DbRole::Intent).message;
    return ev;
}

MarkFacts markFactsFrom(const std::optional<RecordDetail> &record, const MarkEvidence &ev)
{
    MarkFacts f;
    f.recordExists = record.has_value();
    if (record) {
        f.fromStatus = record->statusCode;
        f.stale = record->stale;
        f.processingTimeoutS = record->processingTimeoutS;
        f.failedEvidence = record->failedEvidence;
        f.failedEvidenceMaxAgeS = record->failedEvidenceMaxAgeS;
        f.upstreamConfigured = record->upstreamConfigured;
        f.now = parseUtcMicros(record->serverNow);
        f.updatedAt = parseUtcMicros(record->updatedAt);
    }
    f.ticketCount = int(ev.ticketIds.size());
    f.succeededAttempts = int(ev.succeededAttemptIds.size());
    f.escalatedAttempts = int(ev.escalatedAttemptIds.size());
    f.latestAttemptAt = ev.latestAttemptAt;
    f.attemptTimeUnreadable = ev.attemptTimeUnreadable;
    f.upstream = ev.upstream;
    if (!ev.ticketError.isEmpty())
        f.storeErrors << QStringLiteral("ticket store: ") + ev.ticketError;
    if (!ev.intentError.isEmpty())
        f.storeErrors << QStringLiteral("intent store: ") + ev.intentError;
    return f;
}

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
    const ExpectedState expected = req.expect ? *req.expect : (current ? stateOf(*current) : ExpectedState{});

    if (current && req.expect
        && (current->statusCode != expected.status || current->updatedAt != expected.updatedAt
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
                               recordStatusText(QVariant(req.toStatus)),
                               recordStatusText(expected.status ? QVariant(*expected.status) : QVariant()), expected.updatedAt,
                               hasVersion ? QStringLiteral(", version %1").arg(expected.version ? QString::number(*expected.version)
                                                                                               : QStringLiteral("NULL"))
                                          : QString());
        return res;
    }

    const SqlDialect &d = s.dialect();
    SqlBuilder b;
    QStringList sets = {QStringLiteral("status = %1").arg(b.bind(req.toStatus)),
                        QStringLiteral("updated_at = %1").arg(d.nowValue())};
    if (req.toStatus == Success)
        sets << QStringLiteral("result_snapshot = %1").arg(b.bind(*req.snapshot));
    if (hasVersion)
        sets << QStringLiteral("version = COALESCE(version, 0) + 1");
    QStringList where = {QStringLiteral("idem_key = %1").arg(b.bind(req.idemKey))};
    where << (expected.status ? QStringLiteral("status = %1").arg(b.bind(*expected.status)) : QStringLiteral("status IS NULL"));
    where << QStringLiteral("updated_at = %1").arg(d.timeParam(b.bind(
                 d.kind() == Dialect::Sqlite ? QVariant(expected.updatedAt)
                                             : d.bindTime(parseUtcMicros(expected.updatedAt).value_or(0)))));
    if (hasVersion)
        where << (expected.version ? QStringLiteral("version = %1").arg(b.bind(*expected.version)) : QStringLiteral("version IS NULL"));
    if (!parseUtcMicros(expected.updatedAt))
        where << QStringLiteral("1 = 0"); // an unreadable expected time can match nothing

    s.begin();
    int matched = 0;
    try {
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
                now.updatedAt = canonicalTimeText(after.value(1));
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

} // namespace mark_sql

namespace {

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

/// Evidence for many keys at once (chunked IN lists), from the ticket and intent stores.
QHash<QString, MarkEvidence> gatherEvidence(Workspace &ws, const QStringList &keys)
{
    struct Attempts {
        QHash<QString, QVector<qint64>> succeeded, escalated;
        QHash<QString, UtcMicros> latest;
        QSet<QString> unreadable;
    };
    auto tickets = ws.worker(DbRole::Ticket).run<QHash<QString, QVector<qint64>>>([keys](DbSession &s) {
        QHash<QString, QVector<qint64>> out;
        forKeyChunks(
            s, keys, [](const QString &in) { return QStringLiteral("SELECT idem_key, id FROM ticket WHERE idem_key IN (%1) ORDER BY id").arg(in); },
            [&out](const QSqlQuery &q) { out[q.value(0).toString()].append(q.value(1).toLongLong()); });
        return out;
    });
    auto attempts = ws.worker(DbRole::Intent).run<Attempts>([keys](DbSession &s) {
        Attempts out;
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
    });
    const auto t = tickets.result();
    const auto a = attempts.result();
    QHash<QString, MarkEvidence> out;
    for (const QString &k : keys) {
        MarkEvidence &e = out[k];
        if (t.ok())
            e.ticketIds = t->value(k);
        else
            e.ticketError = t.error->message;
        if (a.ok()) {
            e.succeededAttemptIds = a->succeeded.value(k);
            e.escalatedAttemptIds = a->escalated.value(k);
            if (a->latest.contains(k))
                e.latestAttemptAt = a->latest.value(k);
            e.attemptTimeUnreadable = a->unreadable.contains(k);
        } else {
            e.intentError = a.error->message;
        }
    }
    return out;
}

/// The tickets of `keys` (id, status, created_at; chunked IN lists) for the canonical-ticket
/// rule; a key without tickets is absent. A store error is returned in `*error`.
QHash<QString, QVector<TicketRow>> gatherTicketRows(Workspace &ws, const QStringList &keys, QString *error)
{
    auto rows = ws.worker(DbRole::Ticket).run<QHash<QString, QVector<TicketRow>>>([keys](DbSession &s) {
                      QHash<QString, QVector<TicketRow>> out;
                      const SqlDialect &d = s.dialect();
                      forKeyChunks(
                          s, keys,
                          [&d](const QString &in) {
                              return QStringLiteral("SELECT idem_key, id, status, %1 FROM ticket WHERE idem_key IN (%2) ORDER BY id")
                                  .arg(d.timeText(QStringLiteral("created_at")), in);
                          },
                          [&out](const QSqlQuery &q) {
                              TicketRow t;
                              t.idemKey = q.value(0).toString();
                              t.id = q.value(1).toLongLong();
                              if (!q.value(2).isNull())
                                  t.status = q.value(2).toString();
                              t.createdAt = canonicalTimeText(q.value(3));
                              out[*t.idemKey].append(t);
                          });
                      return out;
                  })
                      .result();
    if (!rows.ok()) {
        *error = rows.error->message;
        return {};
    }
    return *rows.value;
}

/// Adds the tickets of every SUCCESS request's key to its evidence.
void addTicketRows(Workspace &ws, const QVector<MarkRequest> &requests, QHash<QString, MarkEvidence> &evidence)
{
    QStringList keys;
    QSet<QString> seen;
    for (const MarkRequest &r : requests)
        if (r.toStatus == Success && !seen.contains(r.idemKey)) {
            seen.insert(r.idemKey);
            keys << r.idemKey;
        }
    if (keys.isEmpty())
        return;
    QString error;
    const QHash<QString, QVector<TicketRow>> rows = gatherTicketRows(ws, keys, &error);
    for (const QString &k : std::as_const(keys)) {
        MarkEvidence &e = evidence[k];
        e.tickets = rows.value(k);
        if (!error.isEmpty() && e.ticketError.isEmpty())
            e.ticketError = error;
    }
}

Outcome<MarkResult> readOnlyRefusal(const MarkRequest &req)
{
    MarkResult r;
    r.kind = MarkResult::Kind::Refused;
    r.idemKey = req.idemKey;
    r.requestId = req.requestId;
    r.message = QStringLiteral("read-only mode: marking is disabled (started with --read-only or read_only=true)");
    return Outcome<MarkResult>::success(r);
}

void prepare(const Workspace &ws, MarkRequest &req)
{
    if (req.requestId.isEmpty())
        req.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (req.operatorName.isEmpty())
        req.operatorName = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
}

} // namespace

QFuture<Outcome<MarkResult>> markRecord(Workspace &ws, MarkRequest request)
{
    prepare(ws, request);
    Workspace *w = &ws;
    return QtConcurrent::run(ws.mergePool(), [w, request]() mutable {
        if (w->config().readOnly && !request.dryRun)
            return readOnlyRefusal(request);
        if (request.snapshotFromTicket) {
            const QString key = request.idemKey;
            const auto rows = w->worker(DbRole::Ticket)
                                  .run<QVector<TicketRow>>([key](DbSession &s) { return detail_sql::readTickets(s, key); })
                                  .result();
            request.snapshot.reset();
            request.snapshotSource = QStringLiteral("ticket:%1").arg(*request.snapshotFromTicket);
            if (!rows.ok()) {
                // No ticket to take the snapshot from: apply() reports the unreadable ticket
                // store as an error (exit 2) and audits it like every real outcome.
                request.snapshotMissingReason = QStringLiteral("the ticket database failed: ") + rows.error->message;
            } else {
                // The canonical ticket only (DESIGN.md §6); a refusal goes through apply(), which audits it.
                KeyDetail d;
                d.idemKey = request.idemKey;
                d.tickets = *rows;
                setSnapshotFrom(request, snapshotTicketFor(d, *request.snapshotFromTicket));
            }
        }
        QHash<QString, MarkEvidence> all = gatherEvidence(*w, {request.idemKey});
        addTicketRows(*w, {request}, all);
        const MarkEvidence ev = all.value(request.idemKey);
        const WorkspaceConfig config = w->config();
        return w->worker(DbRole::Idempotency)
            .run<MarkResult>([=](DbSession &s) { return mark_sql::apply(s, config, request, ev); })
            .result();
    });
}

QFuture<QVector<Outcome<MarkResult>>> markRecords(Workspace &ws, QVector<MarkRequest> requests)
{
    for (MarkRequest &r : requests) {
        prepare(ws, r);
        r.bulk = true;
    }
    Workspace *w = &ws;
    return QtConcurrent::run(ws.mergePool(), [w, requests]() {
        QVector<Outcome<MarkResult>> results;
        results.reserve(requests.size());
        if (w->config().readOnly) {
            bool allDry = true;
            for (const MarkRequest &r : requests)
                allDry = allDry && r.dryRun;
            if (!allDry) {
                for (const MarkRequest &r : requests)
                    results.append(readOnlyRefusal(r));
                return results;
            }
        }
        QStringList keys;
        for (const MarkRequest &r : requests)
            keys << r.idemKey;
        QHash<QString, MarkEvidence> evidence = gatherEvidence(*w, keys);
        addTicketRows(*w, requests, evidence);
        const WorkspaceConfig config = w->config();
        // Extra connections for large runs; the workspace's own worker takes a share too.
        WorkerPool &extra = w->bulkWorkers(DbRole::Idempotency);
        const int extraCount = requests.size() >= 200 ? extra.size() : 0;
        // One job (and one transaction) per record; queue them all, then collect in order.
        QVector<QFuture<Outcome<MarkResult>>> pending;
        pending.reserve(requests.size());
        for (int i = 0; i < requests.size(); ++i) {
            MarkRequest r = requests[i];
            r.readBack = false;
            const MarkEvidence ev = evidence.value(r.idemKey);
            DbWorker &worker = extraCount == 0 || i % (extraCount + 1) == 0 ? w->worker(DbRole::Idempotency)
                                                                             : extra.at(i % (extraCount + 1) - 1);
            pending.append(worker.run<MarkResult>([=](DbSession &s) { return mark_sql::apply(s, config, r, ev); }));
        }
        for (auto &f : pending)
            results.append(f.result());
        return results;
    });
}

QFuture<Outcome<QVector<AuditEntry>>> readAudit(Workspace &ws, AuditQuery query)
{
    return ws.worker(DbRole::Idempotency).run<QVector<AuditEntry>>([query](DbSession &s) { return audit_sql::read(s, query); });
}

} // namespace triage
