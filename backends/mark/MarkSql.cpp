// The mark feature's SQL part: the compare-and-set with its audit row, and the evidence
// readers; every function runs on a worker's session (DESIGN.md §2, §6).
#include "MarkSqlParts.h"

#include "SafetyPolicy.h"

#include "CanonicalTicket.h"
#include "ConsoleSchema.h"
#include "JsonText.h"
#include "Log.h"
#include "RecordStatus.h"
#include "SchemaSql.h"
#include "SqlChunks.h"

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

/// The status of `s` as shown (DESIGN.md §4): through `mapped` when the state carries the
/// stored value (an unknown one reads "UNKNOWN_CODE_<value>"), else from the code.
QString stateStatusText(const ExpectedState &s, const StatusMapping *mapped)
{
    if (mapped && s.statusStored)
        return StoredRecordStatus::fromMapped(*s.statusStored, *mapped).text;
    return s.status ? recordStatusText(QVariant(*s.status)) : QStringLiteral("NULL");
}

/// The audit row's state JSON. `mapped` (non-null for a mapped status column, DESIGN.md
/// §10): the value exactly as stored is recorded too ("status_stored"); the default schema's
/// rows stay as they were.
QString stateJson(const ExpectedState &s, const StatusMapping *mapped)
{
    QJsonObject o;
    o[QStringLiteral("status")] = stateStatusText(s, mapped);
    o[QStringLiteral("status_code")] = jsonOrNull(s.status);
    if (mapped)
        o[QStringLiteral("status_stored")] = s.statusStored ? QJsonValue(*s.statusStored) : QJsonValue(QJsonValue::Null);
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
    if (outcome == QLatin1String("recorded")) // a mark four-eyes made a proposal
        return MarkResult::Kind::Proposed;
    return MarkResult::Kind::Error;
}

/// The one-second blind spot (DESIGN.md §4): updated_at of one-second precision and no
/// version column. epoch_s columns always have it; epoch_ms columns are exact to the
/// millisecond and iso_text / SQLite text columns compare the stored text, so neither warns;
/// native and local columns on PostgreSQL and MySQL/MariaDB ask information_schema about the
/// mapped table and column ("schema.table" names its schema, else the connection's).
QString precisionWarning(DbSession &s, const RecordSql &r, bool hasVersion)
{
    if (hasVersion)
        return {};
    const QString blind = QStringLiteral("%1 has one-second precision and the table has no version column: this "
                                         "compare-and-set cannot see a change made within the same second")
                              .arg(r.map.updatedAt);
    switch (r.time.mapping().encoding) {
    case TimeEncoding::EpochSeconds: return blind;
    case TimeEncoding::EpochMillis:
    case TimeEncoding::IsoText: return {};
    case TimeEncoding::Native:
    case TimeEncoding::Local: break;
    }
    if (s.dialect().kind() == Dialect::Sqlite)
        return {};
    const qsizetype dot = r.map.table.indexOf(QLatin1Char('.'));
    const QString schema = dot < 0 ? QString() : r.map.table.left(dot);
    const QString table = dot < 0 ? r.map.table : r.map.table.mid(dot + 1);
    SqlBuilder b;
    const bool pg = s.dialect().kind() == Dialect::PostgreSql;
    const QString schemaCond = schema.isEmpty() ? (pg ? QStringLiteral("current_schema()") : QStringLiteral("DATABASE()")) : b.bind(schema);
    const QString sql = pg ? QStringLiteral("SELECT datetime_precision FROM information_schema.columns WHERE table_schema = %1 "
                                            "AND table_name = %2 AND column_name = %3")
                           : QStringLiteral("SELECT DATETIME_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %1 "
                                            "AND TABLE_NAME = %2 AND COLUMN_NAME = %3");
    QSqlQuery q = s.exec(sql.arg(schemaCond, b.bind(table), b.bind(r.map.updatedAt)), b);
    if (q.next() && !q.value(0).isNull() && q.value(0).toInt() == 0)
        return blind;
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
AuditEntry expectedAuditEntry(DbSession &s, const MarkRequest &req, const ExpectedState &expected, const MarkEvidence &ev,
                              const StatusMapping *mapped)
{
    AuditEntry a = auditStamp(req.toStatus == Success ? audit_action::MarkSuccess : audit_action::MarkFailed, req.idemKey,
                              req.operatorName, auditDbUser(s.profile()), req.requestId);
    a.fromState = stateJson(expected, mapped);
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
    res.current = detail_sql::readRecord(s, config, req.idemKey);
    res.changedBy = audit_sql::lastApplied(s, req.idemKey);
    mark_sql::settleConflict(res, a);
    if (!req.dryRun) // a dry run writes nothing
        res.auditId = audit_sql::insert(s, a);
    mark_sql::voidApproved(s, req, res);
    return res;
}

/// The condition matching the record's updated_at when it is the instant `expected`
/// (DESIGN.md §4, §10), in the mapped column's own representation, values bound through `b`:
/// - stored text (TimeSql::matchesStoredText(): SQLite's native and local text, iso_text on
///   every backend): the stored text is read in the compare-and-set's own transaction,
///   compared as a time, and bound back exactly as stored. SQLite keeps whatever text it was
///   given ("2026-12-01 10:00:00", "…T10:00:00Z", offsets) and BEGIN IMMEDIATE holds the write
///   lock; on the servers the UPDATE's exact (binary) text comparison catches a change made
///   in between. A stored value that is not that instant (or not a time) matches nothing.
/// - epoch_s / epoch_ms: the integer, when `expected` is a whole number of the column's units
///   (an instant the column cannot hold matches nothing);
/// - native and local columns on PostgreSQL and MySQL/MariaDB: compared on the server
///   (TimeSql::param()), never through QDateTime.
QString updatedAtCondition(DbSession &s, const RecordSql &r, SqlBuilder &b, const QString &key, UtcMicros expected)
{
    const TimeSql &t = r.time;
    if (t.matchesStoredText()) {
        SqlBuilder rb;
        QSqlQuery q = s.exec(QStringLiteral("SELECT %1, %2 FROM %3 WHERE %4 = %5")
                                 .arg(r.updatedAt, t.text(r.updatedAt), r.table, r.key, rb.bind(key)),
                             rb);
        if (q.next() && !q.value(0).isNull() && parseUtcMicros(canonicalTimeText(q.value(1))) == expected) {
            if (s.dialect().kind() == Dialect::MySql) // its collations ignore case and trailing spaces
                return QStringLiteral("BINARY %1 = BINARY %2").arg(r.updatedAt, b.bind(q.value(0)));
            return QStringLiteral("%1 = %2").arg(r.updatedAt, b.bind(q.value(0)));
        }
        return QStringLiteral("1 = 0");
    }
    const TimeEncoding e = t.mapping().encoding;
    if (e == TimeEncoding::EpochSeconds || e == TimeEncoding::EpochMillis) {
        const qint64 unit = e == TimeEncoding::EpochMillis ? 1000 : 1000000;
        if (expected % unit != 0)
            return QStringLiteral("1 = 0");
    }
    return QStringLiteral("%1 = %2").arg(r.updatedAt, t.param(b.bind(t.bind(expected))));
}

/// The SET value of updated_at: the server's now in the column's representation. Epoch
/// columns move forward by at least one unit (the greater of now and the stored value + 1):
/// a row written earlier in the same second (or millisecond) still changes, so every
/// compare-and-set changes updated_at as well as the status, and MySQL/MariaDB's changed-rows
/// count equals the matched rows even without CLIENT_FOUND_ROWS (docs/QT-PITFALLS.md).
QString updatedAtValue(Dialect d, const RecordSql &r)
{
    const TimeEncoding e = r.time.mapping().encoding;
    if (e != TimeEncoding::EpochSeconds && e != TimeEncoding::EpochMillis)
        return r.time.nowValue();
    const QString greatest = d == Dialect::Sqlite ? QStringLiteral("MAX") : QStringLiteral("GREATEST");
    return QStringLiteral("%1(%2, COALESCE(%3, 0) + 1)").arg(greatest, r.time.nowValue(), r.updatedAt);
}

/// The status condition of the compare-and-set (DESIGN.md §10): the exact value the operator
/// saw (ExpectedState::statusStored); when only a status is given (`triagectl mark
/// --expect-status`), any stored spelling of it; NULL for a NULL status. An unknown code of
/// the seeds' integer encoding is compared as that integer.
QString statusCondition(SqlBuilder &b, const RecordSql &r, const ExpectedState &expected)
{
    if (expected.statusStored || !expected.status)
        return r.statuses.equalsStored(b, r.status, expected.statusStored);
    const qint64 code = *expected.status;
    if (code == Processing || code == Success || code == Failed)
        return r.statuses.isAny(b, r.status, {recordStatusName(RecordStatusCode(code))});
    if (!r.statuses.mapping().text)
        return r.statuses.equalsStored(b, r.status, QString::number(code));
    return QStringLiteral("1 = 0");
}

} // namespace

namespace mark_sql {

void settleLostCommit(MarkResult &res, const std::optional<AuditEntry> &found, const QString &commitError)
{
    if (found && found->outcome == QLatin1String("applied")) {
        res.kind = MarkResult::Kind::Applied;
        res.auditId = found->id;
        res.message = QStringLiteral("applied (the COMMIT reply was lost; verified after reconnecting)");
    } else {
        res.kind = MarkResult::Kind::Error;
        res.auditId = 0;
        res.message = QStringLiteral("not applied: the COMMIT failed (%1); verified after reconnecting that no change was recorded")
                          .arg(commitError);
    }
}

void settleCommitUnknown(MarkResult &res, const QString &reopenError)
{
    res.kind = MarkResult::Kind::Error;
    res.auditId = 0;
    res.message = QStringLiteral("outcome UNKNOWN: the connection dropped during COMMIT and cannot be re-opened (%1); "
                                 "check with `triagectl show %2` and `triagectl audit --key %2` before retrying")
                      .arg(reopenError, res.idemKey);
}

void settleConflict(MarkResult &res, AuditEntry &a)
{
    res.kind = MarkResult::Kind::Conflict;
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
}

QString auditStateJson(const ExpectedState &state, const StatusMapping *mapped)
{
    return stateJson(state, mapped);
}

MarkResult::Kind kindOfOutcome(const QString &outcome)
{
    return kindFromOutcome(outcome);
}

QString updatedAtSetValue(Dialect d, const RecordSql &r)
{
    return updatedAtValue(d, r);
}

QString precisionWarningFor(DbSession &s, const RecordSql &r, bool hasVersion)
{
    return s.memo(QStringLiteral("mark.precisionWarning:%1.%2").arg(r.map.table, r.map.updatedAt),
                  [&] { return QVariant(precisionWarning(s, r, hasVersion)); })
        .toString();
}

QString appliedDetail(const MarkDecision &decision)
{
    return decision.overridden.isEmpty() ? decision.reason
                                         : decision.reason + QStringLiteral(" (override: ") + decision.overridden + QLatin1Char(')');
}

QString alreadyRecordedText(const AuditEntry &prior)
{
    return QStringLiteral("already recorded for this request: %1").arg(prior.detail);
}

MarkPlan planMark(DbSession &s, const RecordSql &r, const MarkRequest &req, const MarkEvidence &ev,
                  const std::optional<RecordDetail> &current, const std::optional<AuditEntry> &latestUpstream)
{
    MarkPlan p;
    const StatusMapping *mapped = mappedStatuses(r);
    // The version column counts only when mapped and really there (DESIGN.md §10).
    const bool hasVersion = p.hasVersion = !r.version.isEmpty() && s.hasColumn(r.map.table, r.map.version);
    p.expected = req.expect ? *req.expect : (current ? expectedStateOf(*current) : ExpectedState{});
    const ExpectedState &expected = p.expected;

    if (current && req.expect
        && (current->statusCode != expected.status || parseUtcMicros(current->updatedAt) != expected.updatedAt
            || (expected.statusStored && current->statusStored && *current->statusStored != *expected.statusStored)
            // A NULL status expected (nothing stored), a value no spelling matches found: both have no code.
            || (!expected.status && !expected.statusStored && current->statusStored)
            || (hasVersion && current->version != expected.version))) {
        // Someone else's state wins: report it before any rule looks at the changed record.
        p.step = MarkPlan::Step::Conflict;
        p.audit = expectedAuditEntry(s, req, expected, ev, mapped);
        return p;
    }

    MarkEvidence evidence = ev;
    if (current && latestUpstream)
        evidence.upstream = recordedUpstreamAnswer(*latestUpstream);
    MarkFacts facts = markFactsFrom(current, evidence);
    facts.fromStatus = expected.status;
    facts.fromStatusText = stateStatusText(expected, &r.map.statuses);
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

    p.audit = expectedAuditEntry(s, req, expected, evidence, mapped);
    p.audit.evidence = evidenceJson(req, evidence, decision.overridden);
    p.decision = decision;
    p.evidenceUnreadable = evidenceUnreadable;
    p.step = decision.allowed ? MarkPlan::Step::Proceed : MarkPlan::Step::Refuse;
    if (decision.allowed && !req.approves && current)
        p.fourEyes = fourEyesRuleForMark(current->policy, current->bizType.value_or(QString()), req.toStatus,
                                         markAmounts(req.toStatus == Success ? req.snapshot : std::nullopt, *current, ev));
    return p;

}

const StatusMapping *mappedStatuses(const RecordSql &r)
{
    // The mapping when it is not the seeds' integer codes: audit rows then keep the stored value.
    return r.map.statuses != SchemaMap::defaults().records.statuses ? &r.map.statuses : nullptr;
}

void settleRefusal(const MarkPlan &plan, MarkResult &res, AuditEntry &a)
{
    res.kind = plan.evidenceUnreadable ? MarkResult::Kind::Error : MarkResult::Kind::Refused;
    res.message = plan.decision.reason;
    a.outcome = plan.evidenceUnreadable ? QStringLiteral("error") : QStringLiteral("refused");
    a.detail = plan.decision.reason;
}

bool auditsRefusal(const MarkRequest &req, const std::optional<RecordDetail> &current)
{
    // Every real outcome is audited, refusals included; a dry run writes nothing. A key no
    // record has and triage_audit.idem_key (64 characters) cannot hold is a typo.
    return !req.dryRun && (current || req.idemKey.size() <= 64);
}

MarkResult apply(DbSession &s, const WorkspaceConfig &config, const MarkRequest &req, const MarkEvidence &ev)
{
    MarkResult res;
    res.idemKey = req.idemKey;
    res.requestId = req.requestId;
    if (!req.dryRun)
        requireKnownConsoleSchema(s); // before anything is read or written (DESIGN.md §10)
    // A retried request (after a dropped connection) finds its own audit row.
    if (const auto prior = audit_sql::byRequestId(s, req.requestId)) {
        res.kind = kindFromOutcome(prior->outcome);
        res.auditId = prior->id;
        res.message = alreadyRecordedText(*prior);
        res.current = detail_sql::readRecord(s, config, req.idemKey);
        return res;
    }
    const std::optional<RecordDetail> current = detail_sql::readRecord(s, config, req.idemKey);
    res.before = current;
    res.current = current;
    if (req.approves && !req.dryRun) {
        // A trial of the approving statement, rolled back: an approval it refuses (the
        // proposer, the same database user, expired, decided, edited) stops here, before any
        // rule could void the proposal. The real one runs in the compare-and-set's transaction.
        s.begin();
        QString refusal;
        try {
            refusal = proposal_sql::approve(s, *req.approves, req.operatorName, req.approvalReason);
        } catch (const DbException &) {
            s.rollback();
            throw;
        }
        s.rollback();
        if (!refusal.isEmpty()) {
            const ExpectedState e = req.expect ? *req.expect : ExpectedState{};
            return approvalRefused(s, req, res, expectedAuditEntry(s, req, e, ev, nullptr), refusal);
        }
    }
    // Every statement on the record table is built from the mapping (DESIGN.md §10).
    const RecordSql r = config.records(s.dialect().kind());
    const StatusMapping *mapped = mappedStatuses(r);
    const MarkPlan plan = planMark(s, r, req, ev, current, current ? audit_sql::latestUpstreamQuery(s, req.idemKey) : std::nullopt);
    const bool hasVersion = plan.hasVersion;
    const ExpectedState &expected = plan.expected;
    MarkDecision decision = plan.decision;
    AuditEntry a = plan.audit;
    if (plan.step == MarkPlan::Step::Conflict) // someone else's state wins: reported before any rule looks
        return conflict(s, config, req, res, a);
    if (plan.step == MarkPlan::Step::Refuse) {
        settleRefusal(plan, res, a);
        if (auditsRefusal(req, current))
            res.auditId = audit_sql::insert(s, a);
        if (res.kind == MarkResult::Kind::Refused) // a store error is not a verdict: the proposal stays open
            voidApproved(s, req, res);
        return res;
    }
    const bool fourEyes = plan.fourEyes.required();
    if (const QString w = precisionWarningFor(s, r, hasVersion); !w.isEmpty())
        res.warnings << w;
    if (req.dryRun) {
        res.kind = MarkResult::Kind::DryRun;
        res.message = QStringLiteral("would mark %1 → %2 if the record still has status %3, updated_at %4%5")
                          .arg(stateStatusText(expected, &r.map.statuses), recordStatusName(req.toStatus),
                               stateStatusText(expected, &r.map.statuses),
                               expected.updatedAt ? formatUtcMicros(*expected.updatedAt) : QStringLiteral("NULL"),
                               hasVersion ? QStringLiteral(", version %1").arg(expected.version ? QString::number(*expected.version)
                                                                                               : QStringLiteral("NULL"))
                                          : QString());
        if (fourEyes) {
            if (const std::optional<ProposalRow> open = proposal_sql::openFor(s, req.idemKey, a.action))
                return openProposalConflict(res, *open); // what the real run would say (propose())
            if (!req.proposeAfterRejection)
                if (const auto rejected = proposal_sql::rejectedFor(s, req.idemKey, a.action, proposalExpectedStateJson(expected))) {
                    res.kind = MarkResult::Kind::Refused;
                    res.message = rejectedAgainText(*rejected);
                    return res;
                }
            res.message += QStringLiteral(" — four-eyes (%1): a real run proposes it for another operator's approval").arg(plan.fourEyes.text());
        }
        return res;
    }
    if (fourEyes)
        return propose(s, req, res, expected, *current, a, plan.fourEyes);

    const Dialect d = s.dialect().kind();
    SqlBuilder b;
    // The status is written as the mapping's first spelling; it always changes (allowed marks go
    // between different statuses and no stored value spells two), and so does updated_at.
    QStringList sets = {QStringLiteral("%1 = %2").arg(r.status, r.statuses.write(b, recordStatusName(req.toStatus))),
                        QStringLiteral("%1 = %2").arg(r.updatedAt, updatedAtValue(d, r))};
    if (req.toStatus == Success)
        sets << QStringLiteral("%1 = %2").arg(r.snapshot, b.bind(*req.snapshot));
    if (hasVersion)
        sets << QStringLiteral("%1 = COALESCE(%1, 0) + 1").arg(r.version);
    QStringList where = {QStringLiteral("%1 = %2").arg(r.key, b.bind(req.idemKey)), statusCondition(b, r, expected)};
    if (hasVersion)
        where << (expected.version ? QStringLiteral("%1 = %2").arg(r.version, b.bind(*expected.version))
                                   : QStringLiteral("%1 IS NULL").arg(r.version));
    if (!expected.updatedAt)
        where << QStringLiteral("1 = 0"); // a NULL or unreadable expected time can match nothing

    s.begin();
    int matched = 0;
    try {
        if (req.approves) {
            // THE approving statement, in the compare-and-set's transaction (DESIGN.md §9).
            const QString refusal = proposal_sql::approve(s, *req.approves, req.operatorName, req.approvalReason);
            if (!refusal.isEmpty()) {
                s.rollback();
                return approvalRefused(s, req, res, a, refusal);
            }
            decision.reason = QStringLiteral("approved proposal %1 of %2 (%3): %4")
                                  .arg(QString::number(req.approves->id), req.approves->proposedBy, req.approvalReason, decision.reason);
            res.proposalId = req.approves->id;
        }
        if (expected.updatedAt)
            where << updatedAtCondition(s, r, b, req.idemKey, *expected.updatedAt);
        QSqlQuery q = s.exec(QStringLiteral("UPDATE %1 SET %2 WHERE %3")
                                 .arg(r.table, sets.join(QStringLiteral(", ")), where.join(QStringLiteral(" AND "))),
                             b);
        matched = q.numRowsAffected();
        if (matched == 1) {
            SqlBuilder rb;
            QSqlQuery after = s.exec(QStringLiteral("SELECT %1, %2%3 FROM %4 WHERE %5 = %6")
                                         .arg(r.statuses.read(r.status), r.time.text(r.updatedAt),
                                              hasVersion ? QStringLiteral(", ") + r.version : QString(), r.table, r.key,
                                              rb.bind(req.idemKey)),
                                     rb);
            ExpectedState now;
            if (after.next()) {
                const StoredRecordStatus st = StoredRecordStatus::fromMapped(after.value(0), r.map.statuses);
                now.status = st.code;
                now.statusStored = st.stored;
                now.updatedAt = parseUtcMicros(canonicalTimeText(after.value(1)));
                if (hasVersion && !after.value(2).isNull())
                    now.version = after.value(2).toLongLong();
            }
            a.toState = stateJson(now, mapped);
            a.outcome = QStringLiteral("applied");
            a.detail = appliedDetail(decision);
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
            settleLostCommit(res, prior, e.error.message);
        } catch (const DbException &again) {
            settleCommitUnknown(res, again.error.message);
        }
        return res;
    }
    res.kind = MarkResult::Kind::Applied;
    res.message = a.detail;
    res.current = req.readBack ? detail_sql::readRecord(s, config, req.idemKey) : std::nullopt;
    return res;
}

} // namespace mark_sql

} // namespace triage
