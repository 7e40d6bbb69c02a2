#include "Policy.h"

#include "Audit.h"
#include "ConsoleSchema.h"
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

PolicyRow set(DbSession &session, const QString &name, const QString &value, const QString &reason, const QString &operatorName,
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
    inTransaction(session, [&] {
        const std::optional<PolicyRow> current = row(session, name);
        const qint64 at = current ? current->version : 0;
        if (expectedVersion && *expectedVersion != at)
            throw failure(DbError::Kind::Conflict, QStringLiteral("policy %1 is at version %2, not %3: read it again with triagectl "
                                                                  "policy show").arg(name).arg(at).arg(*expectedVersion));
        writeRow(session, name, *canonical, reason.trimmed(), operatorName, current);
        AuditEntry a = auditStamp(audit_action::PolicySet, QStringLiteral("policy:") + name, operatorName, auditDbUser(session.profile()));
        a.fromState = stateJson(current);
        a.toState = stateJson(row(session, name));
        a.reason = reason.trimmed();
        a.outcome = QStringLiteral("applied");
        audit_sql::insert(session, a); // checks the freeze again, locked, in this transaction
    });
    return *row(session, name);
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

QFuture<Outcome<PolicyRow>> setPolicy(Workspace &ws, const QString &name, const QString &value, const QString &reason,
                                      std::optional<qint64> expectedVersion)
{
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    return ws.worker(DbRole::Idempotency)
        .run<PolicyRow>([=](DbSession &s) { return policy_sql::set(s, name, value, reason, who, expectedVersion); }, DbWorker::Retry::Never);
}

QFuture<Outcome<PolicyRow>> setFreeze(Workspace &ws, bool on, const QString &reason)
{
    const QString who = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    return ws.worker(DbRole::Idempotency)
        .run<PolicyRow>([=](DbSession &s) { return policy_sql::setFreeze(s, on, reason, who); }, DbWorker::Retry::Never);
}

} // namespace triage
