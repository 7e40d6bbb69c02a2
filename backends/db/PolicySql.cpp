#include "PolicySql.h"

#include "ColumnText.h"
#include "ConsoleSchema.h"
#include "WorkspaceConfig.h"

namespace triage {

namespace {

const QString kTable = QStringLiteral("triage_policy");

QString columns(const SqlDialect &d)
{
    return QStringLiteral("name, value, set_by, %1, reason, schema_version, version").arg(d.timeText(QStringLiteral("set_at")));
}

PolicyRow fromQuery(const QSqlQuery &q)
{
    PolicyRow r;
    r.name = q.value(0).toString();
    r.value = q.value(1).toString();
    r.setBy = q.value(2).toString();
    r.setAt = canonicalTimeText(q.value(3));
    r.reason = q.value(4).toString();
    r.schemaVersion = q.value(5).toInt();
    r.version = q.value(6).toLongLong();
    return r;
}

} // namespace

QString freezeMessage(const PolicyRow &freeze)
{
    return QStringLiteral("Frozen by %1 at %2 UTC: %3 — every write is refused").arg(freeze.setBy, utcToSecond(freeze.setAt), freeze.reason);
}

namespace policy_sql {

bool hasPolicyTable(DbSession &session)
{
    // Remembered once seen; looked up again while absent (init-schema may add it meanwhile).
    if (session.memo(QStringLiteral("has triage_policy"), [&] { return QVariant(session.hasTable(kTable)); }).toBool())
        return true;
    if (!session.hasTable(kTable))
        return false;
    session.forgetMemo(QStringLiteral("has triage_policy"));
    return session.memo(QStringLiteral("has triage_policy"), [] { return QVariant(true); }).toBool();
}

QVector<PolicyRow> rows(DbSession &session)
{
    QVector<PolicyRow> out;
    if (!hasPolicyTable(session))
        return out;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_policy ORDER BY name").arg(columns(session.dialect())));
    while (q.next())
        out << fromQuery(q);
    return out;
}

std::optional<PolicyRow> row(DbSession &session, const QString &name, bool lockShared)
{
    if (!hasPolicyTable(session))
        return std::nullopt;
    QString lock;
    if (lockShared && session.dialect().kind() == Dialect::PostgreSql)
        lock = QStringLiteral(" FOR SHARE");
    else if (lockShared && session.dialect().kind() == Dialect::MySql)
        lock = QStringLiteral(" LOCK IN SHARE MODE");
    SqlBuilder b;
    QSqlQuery q = session.exec(
        QStringLiteral("SELECT %1 FROM triage_policy WHERE name = %2%3").arg(columns(session.dialect()), b.bind(name), lock), b);
    if (q.next())
        return fromQuery(q);
    return std::nullopt;
}

QMap<QString, QString> values(DbSession &session)
{
    QMap<QString, QString> out;
    for (const PolicyRow &r : rows(session))
        out.insert(r.name, r.value);
    return out;
}

std::optional<PolicyRow> activeFreeze(DbSession &session)
{
    std::optional<PolicyRow> r = row(session, policyFreezeName(), true);
    if (r && r->value == QLatin1String("true"))
        return r;
    return std::nullopt;
}

void ensureFreezeRow(DbSession &session)
{
    if (row(session, policyFreezeName()))
        return;
    try {
        SqlBuilder b;
        session.exec(QStringLiteral("INSERT INTO triage_policy (name, value, set_by, set_at, reason, schema_version, version) "
                                    "VALUES (%1, 'false', 'init-schema', %2, %3, %4, 1)")
                         .arg(b.bind(policyFreezeName()), session.dialect().nowValue(),
                              b.bind(QStringLiteral("created by init-schema: not frozen")), b.bind(kConsoleSchemaVersion)),
                     b);
    } catch (const DbException &e) {
        if (!e.error.isUniqueViolation()) // another init-schema made it meanwhile
            throw;
    }
}

} // namespace policy_sql

void requireNotFrozen(DbSession &session)
{
    if (const std::optional<PolicyRow> freeze = policy_sql::activeFreeze(session))
        throw DbException({session.role(), DbError::Kind::Refused, freezeMessage(*freeze), {}});
}

BizPolicy effectiveBizPolicy(const WorkspaceConfig &config, const QMap<QString, QString> &dbValues, const QString &bizType)
{
    BizPolicy ini = config.iniPolicy.value(bizType);
    // A configuration built in code (no INI lines) still counts where it leaves the defaults.
    const BizTypeConfig bt = config.bizType(bizType);
    if (!ini.failedEvidence && bt.failedEvidence != BizTypeConfig().failedEvidence)
        ini.failedEvidence = bt.failedEvidence;
    if (!ini.failedEvidenceMaxAgeS && bt.failedEvidenceMaxAgeS != BizTypeConfig().failedEvidenceMaxAgeS)
        ini.failedEvidenceMaxAgeS = bt.failedEvidenceMaxAgeS;
    if (config.sourceFile.isEmpty() && config.moneyMovingWithoutFile.contains(bizType))
        ini.moneyMoving = true;
    return stricterPolicy(bizPolicyFromRows(dbValues, bizType), ini);
}

} // namespace triage
