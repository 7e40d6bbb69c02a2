// The console's NOTIFY triggers (DESIGN.md §9 "Push"): install, uninstall, state.
#include "PushTriggers.h"

#include "Audit.h"
#include "DbSession.h"
#include "PolicySql.h"
#include "SchemaSql.h"
#include "SqlBuilder.h"
#include "Workspace.h"
#include "WorkspaceConfig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <QtConcurrent/QtConcurrentRun>

namespace triage::push_sql {

namespace {

QString backendWord(Dialect d)
{
    return d == Dialect::MySql ? QStringLiteral("MySQL/MariaDB") : d == Dialect::Sqlite ? QStringLiteral("SQLite") : QStringLiteral("PostgreSQL");
}

void requirePostgres(DbSession &s)
{
    if (s.dialect().kind() == Dialect::PostgreSql)
        return;
    throw DbException({s.role(), DbError::Kind::Config,
                       QStringLiteral("push (LISTEN/NOTIFY) is PostgreSQL only: the %1 is %2; the console polls it")
                           .arg(roleTitle(s.role()), backendWord(s.dialect().kind())),
                       {}});
}

} // namespace

namespace {

/// The trigger function of `role`: one per store, reading the row's id column directly (no
/// whole-row conversion on every write).
QString functionName(DbRole role)
{
    return QString::fromLatin1(kPushTrigger) + QLatin1Char('_') + roleName(role);
}

} // namespace

/// The claims table's trigger (idempotency store, console schema): claims change without
/// touching any queue row, and the queues show them. Its hint names the idempotency store.
QStringList claimStatements()
{
    const QString fn = QString::fromLatin1(kPushTrigger) + QStringLiteral("_claim");
    return {
        QStringLiteral("CREATE OR REPLACE FUNCTION %1() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
                       "DECLARE v text;\n"
                       "BEGIN\n"
                       "  IF TG_OP = 'DELETE' THEN v := OLD.subject; ELSE v := NEW.subject; END IF;\n"
                       "  PERFORM pg_notify('%2', 'idempotency claim:' || left(coalesce(v, ''), 100));\n"
                       "  RETURN NULL;\n"
                       "END\n"
                       "$fn$")
            .arg(fn, QString::fromLatin1(kPushChannel)),
        QStringLiteral("DROP TRIGGER IF EXISTS %1 ON triage_claim").arg(QString::fromLatin1(kPushTrigger)),
        QStringLiteral("CREATE TRIGGER %1 AFTER INSERT OR UPDATE OR DELETE ON triage_claim FOR EACH ROW EXECUTE FUNCTION %2()")
            .arg(QString::fromLatin1(kPushTrigger), fn),
    };
}

QStringList installStatements(const WorkspaceConfig &config, DbRole role)
{
    const auto [table, id] = pushTable(config, role);
    const QString fn = functionName(role);
    const QString column = sqlName(Dialect::PostgreSql, id);
    return {
        // The hint only: "<store> <id>". pg_notify() folds identical payloads of one transaction.
        QStringLiteral("CREATE OR REPLACE FUNCTION %1() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
                       "DECLARE v text;\n"
                       "BEGIN\n"
                       "  IF TG_OP = 'DELETE' THEN v := OLD.%2::text; ELSE v := NEW.%2::text; END IF;\n"
                       "  PERFORM pg_notify('%3', '%4 ' || left(coalesce(v, ''), 100));\n"
                       "  RETURN NULL;\n"
                       "END\n"
                       "$fn$")
            .arg(fn, column, QString::fromLatin1(kPushChannel), roleName(role)),
        QStringLiteral("DROP TRIGGER IF EXISTS %1 ON %2").arg(QString::fromLatin1(kPushTrigger), table),
        QStringLiteral("CREATE TRIGGER %1 AFTER INSERT OR UPDATE OR DELETE ON %2 FOR EACH ROW EXECUTE FUNCTION %3()")
            .arg(QString::fromLatin1(kPushTrigger), table, fn),
    };
}

PushTriggerState state(DbSession &s, const WorkspaceConfig &config, DbRole role)
{
    PushTriggerState st;
    st.role = role;
    st.table = pushTable(config, role).first;
    st.postgres = s.dialect().kind() == Dialect::PostgreSql;
    if (!st.postgres)
        return st;
    SqlBuilder b;
    QSqlQuery q = s.exec(QStringLiteral("SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(%1) AND tgname = %2 "
                                        "AND NOT tgisinternal)")
                             .arg(b.bind(st.table), b.bind(QString::fromLatin1(kPushTrigger))),
                         b);
    st.installed = q.next() && q.value(0).toBool();
    return st;
}

void install(DbSession &s, const WorkspaceConfig &config, DbRole role)
{
    requirePostgres(s);
    s.begin();
    try {
        for (const QString &sql : installStatements(config, role))
            s.execDirect(sql);
        if (role == DbRole::Idempotency && s.hasTable(QStringLiteral("triage_claim")))
            for (const QString &sql : claimStatements())
                s.execDirect(sql);
        s.commit();
    } catch (const DbException &) {
        s.rollback();
        throw;
    }
}

void uninstall(DbSession &s, const WorkspaceConfig &config, DbRole role)
{
    requirePostgres(s);
    s.begin();
    try {
        s.execDirect(QStringLiteral("DROP TRIGGER IF EXISTS %1 ON %2").arg(QString::fromLatin1(kPushTrigger), pushTable(config, role).first));
        s.execDirect(QStringLiteral("DROP FUNCTION IF EXISTS %1()").arg(functionName(role)));
        if (role == DbRole::Idempotency && s.hasTable(QStringLiteral("triage_claim"))) {
            s.execDirect(QStringLiteral("DROP TRIGGER IF EXISTS %1 ON triage_claim").arg(QString::fromLatin1(kPushTrigger)));
            s.execDirect(QStringLiteral("DROP FUNCTION IF EXISTS %1_claim()").arg(QString::fromLatin1(kPushTrigger)));
        }
        s.commit();
    } catch (const DbException &) {
        s.rollback();
        throw;
    }
}

} // namespace triage::push_sql

namespace triage {

namespace {

const QVector<DbRole> kRoles{DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};

} // namespace

QString pushTriggerLine(const PushTriggerState &state, const QString &outcome)
{
    if (!state.postgres)
        return QStringLiteral("%1: not PostgreSQL: polled, no trigger").arg(roleName(state.role));
    return QStringLiteral("%1: trigger %2 on %3 %4").arg(roleName(state.role), QString::fromLatin1(kPushTrigger), state.table, outcome);
}

QJsonArray pushTriggerStatesJson(const QVector<PushTriggerState> &states)
{
    QJsonArray a;
    for (const PushTriggerState &s : states)
        a.append(QJsonObject{{QStringLiteral("store"), roleName(s.role)},
                             {QStringLiteral("table"), s.table},
                             {QStringLiteral("postgres"), s.postgres},
                             {QStringLiteral("installed"), s.installed}});
    return a;
}

QFuture<Outcome<QVector<PushTriggerState>>> readPushTriggers(Workspace &ws)
{
    const WorkspaceConfig config = ws.config();
    Workspace *w = &ws;
    return QtConcurrent::run(ws.mergePool(), [w, config]() {
        QVector<PushTriggerState> out;
        for (DbRole role : kRoles) {
            auto o = w->worker(role).run<PushTriggerState>([config, role](DbSession &s) { return push_sql::state(s, config, role); }).result();
            if (!o.ok())
                return Outcome<QVector<PushTriggerState>>::failure(*o.error);
            out << *o.value;
        }
        return Outcome<QVector<PushTriggerState>>::success(out);
    });
}

QFuture<Outcome<PushChange>> changePushTriggers(Workspace &ws, bool install, const QString &reason)
{
    const WorkspaceConfig config = ws.config();
    const QString who = config.operatorName.isEmpty() ? osUserName() : config.operatorName;
    Workspace *w = &ws;
    return QtConcurrent::run(ws.mergePool(), [=]() {
        using Result = Outcome<PushChange>;
        if (reason.trimmed().size() < kPushReasonMinChars)
            return Result::failure({DbRole::Idempotency, DbError::Kind::Refused,
                                    QStringLiteral("notify %1 needs a reason of at least %2 characters (got %3)")
                                        .arg(install ? QStringLiteral("install") : QStringLiteral("uninstall"))
                                        .arg(kPushReasonMinChars)
                                        .arg(reason.trimmed().size()),
                                    {}});
        bool anyPostgres = false;
        for (DbRole role : kRoles)
            anyPostgres = anyPostgres || config.profile(role).dialect == Dialect::PostgreSql;
        if (!anyPostgres)
            return Result::failure({DbRole::Idempotency, DbError::Kind::Config,
                                    QStringLiteral("push (LISTEN/NOTIFY) is PostgreSQL only, and no store is PostgreSQL: the console "
                                                   "polls them (live_poll_seconds)"),
                                    {}});
        // The freeze stops this as any other write, before any DDL.
        auto free = w->worker(DbRole::Idempotency).run<bool>([](DbSession &s) { requireNotFrozen(s); return true; }, DbWorker::Retry::Never).result();
        if (!free.ok())
            return Result::failure(*free.error);
        PushChange change;
        QStringList done;
        for (DbRole role : kRoles) {
            bool before = false; // the trigger was there before this change
            auto o = w->worker(role)
                         .run<PushTriggerState>(
                             [&config, role, install, &before](DbSession &s) {
                                 before = push_sql::state(s, config, role).installed;
                                 if (s.dialect().kind() == Dialect::PostgreSql) {
                                     if (install)
                                         push_sql::install(s, config, role);
                                     else
                                         push_sql::uninstall(s, config, role);
                                 }
                                 return push_sql::state(s, config, role);
                             },
                             DbWorker::Retry::Never)
                         .result();
            if (!o.ok()) {
                DbError e = *o.error;
                if (!done.isEmpty())
                    e.message += QStringLiteral(" (already %1: %2)").arg(install ? QStringLiteral("installed") : QStringLiteral("removed"),
                                                                          done.join(QStringLiteral(", ")));
                return Result::failure(e);
            }
            const PushTriggerState &st = *o.value;
            change.stores << st;
            change.lines << pushTriggerLine(st, install ? (before ? QStringLiteral("installed (replaced the one there)") : QStringLiteral("installed"))
                                                        : (before ? QStringLiteral("removed") : QStringLiteral("was not installed: nothing removed")));
            if (st.postgres)
                done << roleName(role);
        }
        auto audited = w->worker(DbRole::Idempotency)
                           .run<qint64>(
                               [&](DbSession &s) {
                                   AuditEntry a = auditStamp(install ? audit_action::PushInstall : audit_action::PushUninstall,
                                                             QStringLiteral("push:console"), who, auditDbUser(s.profile()));
                                   a.toState = QString::fromUtf8(QJsonDocument(pushTriggerStatesJson(change.stores)).toJson(QJsonDocument::Compact));
                                   a.reason = reason.trimmed();
                                   a.outcome = QStringLiteral("applied");
                                   return audit_sql::insert(s, a);
                               },
                               DbWorker::Retry::Never)
                           .result();
        if (!audited.ok()) {
            DbError e = *audited.error;
            e.message = QStringLiteral("triggers %1 (%2) but not audited: %3")
                            .arg(install ? QStringLiteral("installed") : QStringLiteral("removed"), done.join(QStringLiteral(", ")), e.message);
            return Result::failure(e);
        }
        return Result::success(change);
    });
}

} // namespace triage
