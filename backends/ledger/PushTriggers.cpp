// The console's NOTIFY triggers (DESIGN.md §9 "Push"): install, uninstall, state.
#include "PushTriggers.h"

#include "Audit.h"
#include "DbSession.h"
#include "PolicySql.h"
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

QStringList installStatements(const WorkspaceConfig &config, DbRole role)
{
    const auto [table, id] = pushTable(config, role);
    const QString fn = QString::fromLatin1(kPushTrigger);
    return {
        // The hint only: "<store> <id>". pg_notify() folds identical payloads of one transaction.
        QStringLiteral("CREATE OR REPLACE FUNCTION %1() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
                       "DECLARE r jsonb;\n"
                       "BEGIN\n"
                       "  IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;\n"
                       "  PERFORM pg_notify('%2', TG_ARGV[0] || ' ' || left(coalesce(r ->> TG_ARGV[1], ''), 100));\n"
                       "  RETURN NULL;\n"
                       "END\n"
                       "$fn$")
            .arg(fn, QString::fromLatin1(kPushChannel)),
        QStringLiteral("DROP TRIGGER IF EXISTS %1 ON %2").arg(fn, table),
        QStringLiteral("CREATE TRIGGER %1 AFTER INSERT OR UPDATE OR DELETE ON %2 FOR EACH ROW EXECUTE FUNCTION %1('%3', '%4')")
            .arg(fn, table, roleName(role), id),
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
        s.commit();
    } catch (const DbException &) {
        s.rollback();
        throw;
    }
}

void uninstall(DbSession &s, const WorkspaceConfig &config, DbRole role)
{
    requirePostgres(s);
    const QString fn = QString::fromLatin1(kPushTrigger);
    s.begin();
    try {
        s.execDirect(QStringLiteral("DROP TRIGGER IF EXISTS %1 ON %2").arg(fn, pushTable(config, role).first));
        SqlBuilder b;
        QSqlQuery q = s.exec(QStringLiteral("SELECT count(*) FROM pg_trigger WHERE tgname = %1 AND NOT tgisinternal").arg(b.bind(fn)), b);
        if (q.next() && q.value(0).toLongLong() == 0)
            s.execDirect(QStringLiteral("DROP FUNCTION IF EXISTS %1()").arg(fn));
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

QJsonArray statesJson(const QVector<PushTriggerState> &states)
{
    QJsonArray a;
    for (const PushTriggerState &s : states)
        a.append(QJsonObject{{QStringLiteral("store"), roleName(s.role)},
                             {QStringLiteral("table"), s.table},
                             {QStringLiteral("postgres"), s.postgres},
                             {QStringLiteral("installed"), s.installed}});
    return a;
}

} // namespace

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
            auto o = w->worker(role)
                         .run<PushTriggerState>(
                             [&config, role, install](DbSession &s) {
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
            if (!st.postgres)
                change.lines << QStringLiteral("%1: not PostgreSQL: polled, no trigger").arg(roleName(role));
            else
                change.lines << QStringLiteral("%1: trigger %2 on %3 %4")
                                    .arg(roleName(role), QString::fromLatin1(kPushTrigger), st.table,
                                         st.installed ? QStringLiteral("installed") : QStringLiteral("removed"));
            if (st.postgres)
                done << roleName(role);
        }
        auto audited = w->worker(DbRole::Idempotency)
                           .run<qint64>(
                               [&](DbSession &s) {
                                   AuditEntry a = auditStamp(install ? audit_action::PushInstall : audit_action::PushUninstall,
                                                             QStringLiteral("push:console"), who, auditDbUser(s.profile()));
                                   a.toState = QString::fromUtf8(QJsonDocument(statesJson(change.stores)).toJson(QJsonDocument::Compact));
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
