#include "Policy.h"

#include "Audit.h"
#include "ConsoleSchema.h"
#include "Proposal.h"
#include "Workspace.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

namespace {

DbException failure(DbError::Kind kind, const QString &message)
{
    return DbException({DbRole::Idempotency, kind, message, {}});
}

void requireReason(const QString &reason)
{
    const int n = int(reason.trimmed().size());
    if (n < kPolicyReasonMinChars)
        throw failure(DbError::Kind::Refused,
                      QStringLiteral("a policy change needs a reason of at least %1 characters (got %2)").arg(kPolicyReasonMinChars).arg(n));
}

void requirePolicyTable(DbSession &session)
{
    if (!policy_sql::hasPolicyTable(session))
        throw failure(DbError::Kind::Config, QStringLiteral("the idempotency database has no triage_policy (the safety policy needs "
                                                            "console schema version 6): run `triagectl init-schema`"));
}

QString stateJson(const std::optional<PolicyRow> &row)
{
    if (!row)
        return {};
    return QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("value"), row->value},
                                                       {QStringLiteral("version"), row->version}})
                                 .toJson(QJsonDocument::Compact));
}

/// Writes `value` into row `name` by compare-and-set from `current` (none: insert version 1).
/// Throws Conflict when another writer got there first.
void writeRow(DbSession &session, const QString &name, const QString &value, const QString &reason, const QString &by,
              const std::optional<PolicyRow> &current)
{
    const SqlDialect &d = session.dialect();
    auto moved = [&] {
        const std::optional<PolicyRow> now = policy_sql::row(session, name);
        return failure(DbError::Kind::Conflict, QStringLiteral("policy %1 changed meanwhile (now at version %2): read it again with "
                                                               "triagectl policy show").arg(name).arg(now ? now->version : 0));
    };
    if (current) {
        SqlBuilder b;
        QSqlQuery q = session.exec(QStringLiteral("UPDATE triage_policy SET value = %1, set_by = %2, set_at = %3, reason = %4, "
                                                  "schema_version = %5, version = version + 1 WHERE name = %6 AND version = %7")
                                       .arg(b.bind(value), b.bind(by.left(64)), d.nowValue(), b.bind(reason), b.bind(kConsoleSchemaVersion),
                                            b.bind(name), b.bind(current->version)),
                                   b);
        if (q.numRowsAffected() != 1)
            throw moved();
        return;
    }
    try {
        SqlBuilder b;
        session.exec(QStringLiteral("INSERT INTO triage_policy (name, value, set_by, set_at, reason, schema_version, version) "
                                    "VALUES (%1, %2, %3, %4, %5, %6, 1)")
                         .arg(b.bind(name), b.bind(value), b.bind(by.left(64)), d.nowValue(), b.bind(reason), b.bind(kConsoleSchemaVersion)),
                     b);
    } catch (const DbException &e) {
        if (e.error.isUniqueViolation())
            throw moved();
        throw;
    }
}

/// The expected state a policy proposal records and its approval compares: stateJson() of the
/// row, or {"value":null,"version":0} while unset.
QString proposalStateJson(const std::optional<PolicyRow> &row)
{
    return row ? stateJson(row) : QStringLiteral("{\"value\":null,\"version\":0}");
}

bool fourEyesPolicyOn(DbSession &session, bool lockShared)
{
    const std::optional<PolicyRow> r = policy_sql::row(session, fourEyesPolicyName(), lockShared);
    return r && r->value == QLatin1String("on");
}

/// Turning four_eyes_policy on holds the freeze row exclusively first, so a change that read
/// "off" either commits before it or waits and then sees "on" (set()'s re-check, after its
/// audit row took the freeze row shared). SQLite's BEGIN IMMEDIATE serialises writers.
void lockFreezeRowExclusive(DbSession &session)
{
    if (session.dialect().kind() == Dialect::Sqlite)
        return;
    SqlBuilder b;
    session.exec(QStringLiteral("SELECT name FROM triage_policy WHERE name = %1 FOR UPDATE").arg(b.bind(policyFreezeName())), b);
}

/// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
template <typename F>
void inTransaction(DbSession &session, F body)
{
    session.begin();
    try {
        body();
        session.commit();
    } catch (...) {
        session.rollback();
        throw;
    }
}

} // namespace

namespace policy_sql {

PolicyChange set(DbSession &session, const QString &name, const QString &value, const QString &reason, const QString &operatorName,
                 std::optional<qint64> expectedVersion)
{
    QString why;
    const std::optional<PolicyName> parsed = parsePolicyName(name, &why);
    if (!parsed)
        throw failure(DbError::Kind::Config, why);
    const std::optional<QString> canonical = checkPolicyValue(parsed->setting, value, &why);
    if (!canonical)
        throw failure(DbError::Kind::Config, why);
    requireReason(reason);
    requirePolicyTable(session);
    requireKnownConsoleSchema(session); // refused while frozen, before anything is written
    const QString idemKey = QStringLiteral("policy:") + name;
    auto stamp = [&] { return auditStamp(audit_action::PolicySet, idemKey, operatorName, auditDbUser(session.profile())); };
    const std::optional<PolicyRow> asRead = row(session, name);
    const qint64 at = asRead ? asRead->version : 0;
    if (expectedVersion && *expectedVersion != at)
        throw failure(DbError::Kind::Conflict, QStringLiteral("policy %1 is at version %2, not %3: read it again with triagectl "
                                                              "policy show").arg(name).arg(at).arg(*expectedVersion));
    PolicyChange out;
    const bool underFourEyes = fourEyesPolicyOn(session, false);
    if (underFourEyes && !proposal_sql::hasProposalTable(session))
        throw failure(DbError::Kind::Config, QStringLiteral("four_eyes_policy is on but the idempotency database has no triage_proposal "
                                                            "(console schema version 7): run `triagectl init-schema`"));
    if (underFourEyes && asRead && asRead->value == *canonical) {
        out.row = *asRead; // nothing to propose: no proposal, nothing written
        out.message = QStringLiteral("policy %1 is already %2 (version %3): nothing to propose").arg(name, *canonical).arg(asRead->version);
        return out;
    }
    if (underFourEyes) {
        // Under four-eyes for policy: a proposal another operator approves (approve()).
        if (const std::optional<ProposalRow> open = proposal_sql::openFor(session, idemKey, policyProposalAction()); open && !open->expired) {
            const QString message = QStringLiteral("policy %1 already has open proposal %2 (by %3, expires %4): approve or reject it first")
                                        .arg(name, QString::number(open->id), open->proposedBy, open->expiresAt);
            AuditEntry a = stamp();
            a.reason = reason.trimmed();
            a.outcome = QStringLiteral("conflict");
            a.detail = message;
            audit_sql::insert(session, a);
            throw failure(DbError::Kind::Conflict, message);
        }
        ProposalRow p;
        p.action = policyProposalAction();
        p.idemKey = idemKey;
        p.bizType = parsed->bizType;
        p.toStatus = QStringLiteral("SET");
        p.expectedState = proposalStateJson(asRead);
        p.snapshot = QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), *canonical}})
                                           .toJson(QJsonDocument::Compact));
        p.snapshotSource = QStringLiteral("policy set");
        p.reason = reason.trimmed();
        p.evidence = QStringLiteral("{}");
        p.proposedBy = operatorName;
        AuditEntry a = stamp();
        a.fromState = stateJson(asRead);
        a.reason = reason.trimmed();
        const proposal_sql::Proposed made = proposal_sql::propose(session, p, a, fourEyesPolicyName(),
                                                                  QStringLiteral("policy %1 = %2 is not set").arg(name, *canonical));
        out.row = asRead.value_or(PolicyRow{name, {}, {}, {}, {}, 0, 0});
        out.proposalId = made.id;
        out.message = made.message;
        return out;
    }
    inTransaction(session, [&] {
        if (name == fourEyesPolicyName())
            lockFreezeRowExclusive(session);
        const std::optional<PolicyRow> current = row(session, name);
        if (current ? current->version != at : at != 0)
            throw failure(DbError::Kind::Conflict, QStringLiteral("policy %1 changed meanwhile (now at version %2): read it again with "
                                                                  "triagectl policy show").arg(name).arg(current ? current->version : 0));
        writeRow(session, name, *canonical, reason.trimmed(), operatorName, current);
        AuditEntry a = stamp();
        a.fromState = stateJson(current);
        a.toState = stateJson(row(session, name));
        a.reason = reason.trimmed();
        a.outcome = QStringLiteral("applied");
        audit_sql::insert(session, a); // checks the freeze again, locked, in this transaction
        if (name != fourEyesPolicyName() && fourEyesPolicyOn(session, true))
            throw failure(DbError::Kind::Conflict, QStringLiteral("four_eyes_policy was turned on meanwhile: nothing changed; run it "
                                                                  "again to propose it"));
    });
    out.row = *row(session, name);
    return out;
}

PolicyChange approve(DbSession &session, qint64 id, const QString &approver, const QString &reason)
{
    if (const QString refusal = proposalDecisionReasonRefusal(reason); !refusal.isEmpty())
        throw failure(DbError::Kind::Refused, refusal);
    requirePolicyTable(session);
    requireKnownConsoleSchema(session); // refused while frozen
    const std::optional<ProposalRow> asRead = proposal_sql::hasProposalTable(session) ? proposal_sql::read(session, id) : std::nullopt;
    if (!asRead)
        throw failure(DbError::Kind::Refused, QStringLiteral("proposal %1 does not exist").arg(id));
    if (asRead->action != policyProposalAction())
        throw failure(DbError::Kind::Config, QStringLiteral("proposal %1 is not a policy change (%2)").arg(id).arg(asRead->action));
    const QString name = asRead->idemKey.mid(QStringLiteral("policy:").size());
    const QString value = QJsonDocument::fromJson(asRead->snapshot.value_or(QString()).toUtf8()).object().value(QStringLiteral("value")).toString();
    AuditEntry a = auditStamp(audit_action::PolicySet, asRead->idemKey, approver, auditDbUser(session.profile()));
    a.reason = reason.trimmed();
    QString refusal;
    DbError::Kind kind = DbError::Kind::Refused;
    PolicyChange out;
    session.begin();
    try {
        refusal = proposal_sql::approve(session, *asRead, approver, reason.trimmed()); // THE approving statement
        const std::optional<PolicyRow> current = row(session, name);
        if (refusal.isEmpty() && proposalStateJson(current) != asRead->expectedState) {
            const QJsonObject then = QJsonDocument::fromJson(asRead->expectedState.toUtf8()).object();
            refusal = QStringLiteral("policy %1 changed since proposal %2 was made (version %3 then, %4 now): void")
                          .arg(name, QString::number(id))
                          .arg(then.value(QStringLiteral("version")).toInteger())
                          .arg(current ? current->version : 0);
            kind = DbError::Kind::Conflict;
        }
        if (refusal.isEmpty()) {
            if (name == fourEyesPolicyName())
                lockFreezeRowExclusive(session);
            writeRow(session, name, value, asRead->reason, asRead->proposedBy, current);
            a.fromState = stateJson(current);
            a.toState = stateJson(row(session, name));
            a.outcome = QStringLiteral("applied");
            a.detail = QStringLiteral("approved proposal %1 of %2 (%3)").arg(QString::number(id), asRead->proposedBy, asRead->reason);
            audit_sql::insert(session, a);
            session.commit();
            out.row = *row(session, name);
            out.proposalId = id;
            out.message = QStringLiteral("policy %1 = %2 (version %3): %4").arg(name, value).arg(out.row.version).arg(a.detail);
            return out;
        }
        session.rollback(); // the approval undone
    } catch (const DbException &) {
        session.rollback();
        throw;
    }
    inTransaction(session, [&] {
        a.outcome = QStringLiteral("refused");
        a.detail = refusal;
        audit_sql::insert(session, a);
        if (refusal.endsWith(QLatin1String(": void")))
            proposal_sql::close(session, id, QStringLiteral("void"), approver, refusal);
    });
    throw failure(kind, refusal);
}

PolicyRow setFreeze(DbSession &session, bool on, const QString &reason, const QString &operatorName)
{
    requireReason(reason);
    requirePolicyTable(session);
    requireKnownConsoleSchemaOnly(session);
    const QString name = policyFreezeName();
    inTransaction(session, [&] {
        const std::optional<PolicyRow> current = row(session, name);
        const bool frozen = current && current->value == QLatin1String("true");
        if (on && frozen)
            throw failure(DbError::Kind::Conflict, QStringLiteral("already frozen: %1").arg(freezeMessage(*current)));
        if (!on && !frozen)
            throw failure(DbError::Kind::Conflict, QStringLiteral("not frozen: nothing to unfreeze"));
        writeRow(session, name, on ? QStringLiteral("true") : QStringLiteral("false"), reason.trimmed(), operatorName, current);
        AuditEntry a = auditStamp(on ? audit_action::PolicyFreeze : audit_action::PolicyUnfreeze, QStringLiteral("policy:") + name,
                                  operatorName, auditDbUser(session.profile()));
        a.fromState = stateJson(current);
        a.toState = stateJson(row(session, name));
        a.reason = reason.trimmed();
        a.outcome = QStringLiteral("applied");
        audit_sql::insertThroughFreeze(session, a);
    });
    return *row(session, name);
}

} // namespace policy_sql

QFuture<Outcome<QVector<PolicyRow>>> readPolicy(Workspace &ws)
{
    return ws.worker(DbRole::Idempotency).run<QVector<PolicyRow>>([](DbSession &s) { return policy_sql::rows(s); });
}

QFuture<Outcome<std::optional<PolicyRow>>> readFreeze(Workspace &ws)
{
    return ws.worker(DbRole::Idempotency).run<std::optional<PolicyRow>>([](DbSession &s) {
        const std::optional<PolicyRow> r = policy_sql::row(s, policyFreezeName());
        return r && r->value == QLatin1String("true") ? r : std::nullopt;
    });
}

QFuture<Outcome<PolicyChange>> setPolicy(Workspace &ws, const QString &name, const QString &value, const QString &reason,
                                         std::optional<qint64> expectedVersion)
{
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    return ws.worker(DbRole::Idempotency)
        .run<PolicyChange>([=](DbSession &s) { return policy_sql::set(s, name, value, reason, who, expectedVersion); }, DbWorker::Retry::Never);
}

QFuture<Outcome<PolicyChange>> approvePolicyProposal(Workspace &ws, qint64 id, const QString &reason)
{
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    return ws.worker(DbRole::Idempotency)
        .run<PolicyChange>([=](DbSession &s) { return policy_sql::approve(s, id, who, reason); }, DbWorker::Retry::Never);
}

QFuture<Outcome<PolicyRow>> setFreeze(Workspace &ws, bool on, const QString &reason)
{
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    return ws.worker(DbRole::Idempotency)
        .run<PolicyRow>([=](DbSession &s) { return policy_sql::setFreeze(s, on, reason, who); }, DbWorker::Retry::Never);
}

} // namespace triage
