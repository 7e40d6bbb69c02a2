#include "StoreProbe.h"

#include "DbSession.h"
#include "ReplicaRoute.h"
#include "Doctor.h"
#include "SchemaSql.h"
#include "TypedPassword.h"

#include <QAtomicInt>
#include <QDir>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

namespace triage {

namespace {

QAtomicInt g_probeSerial;

/// The mapped table and id column of `role`, quoted for `dialect`.
std::pair<QString, QString> tableAndId(const SchemaMap &map, DbRole role, Dialect dialect)
{
    switch (role) {
    case DbRole::Idempotency: {
        const RecordSql s(dialect, map.records);
        return {s.table, s.id};
    }
    case DbRole::Intent: {
        const IntentSql s(dialect, map.intents);
        return {s.table, s.id};
    }
    case DbRole::Ticket: {
        const TicketSql s(dialect, map.tickets);
        return {s.table, s.id};
    }
    }
    return {};
}

StoreProbeResult runProbe(const ConnectionProfile &profile, const SchemaMap &map, const QString &typedPassword, bool replica)
{
    const TypedPasswordScope typed(profile.role, typedPassword);
    StoreProbeResult result;
    try {
        DbSession session(profile, QStringLiteral("store-probe-%1").arg(g_probeSerial.fetchAndAddRelaxed(1)));
        session.ensureOpen();
        const auto [table, id] = tableAndId(map, profile.role, profile.dialect);
        // No value to bind: the statement is built from the mapping's quoted names only.
        const QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE 1 = 0").arg(id, table);
        session.exec(sql);
        const QString where = profile.dialect == Dialect::Sqlite
            ? QStringLiteral("opened %1").arg(profile.database)
            : QStringLiteral("connected as %1 to %2:%3/%4").arg(profile.user, profile.host).arg(profile.port).arg(profile.database);
        result.message = QStringLiteral("%1; table %2 readable").arg(where, table);
        const QStringList problems = doctor_sql::mappingProblems(session, map);
        result.ok = problems.isEmpty();
        if (!problems.isEmpty())
            result.message += QStringLiteral("; mapping: ") + problems.join(QStringLiteral("; "));
        if (replica && result.ok) {
            // The console's own lag measurement (DESIGN.md §9 "Read replicas"): a server that is
            // not a standby / replica is refused here, as the console would never read from it.
            ReplicaState state(profile.dialect, ReplicaStatus().maxLagMs, profile.displayUrl(), {});
            const ReplicaStatus s = state.measure(session);
            if (s.lagMs >= 0) {
                result.message += QStringLiteral("; replica lag %1 s").arg(QString::number(double(s.lagMs) / 1000.0, 'f', 1));
            } else {
                result.ok = false;
                result.message += QStringLiteral("; not usable as a read replica: %1").arg(s.why);
            }
        }
    } catch (const DbException &e) {
        result.ok = false;
        result.message = e.error.message;
    }
    return result;
}

} // namespace

QFuture<StoreProbeResult> probeStore(const ConnectionProfile &profile, const SchemaMap &map, const QString &typedPassword)
{
    return QtConcurrent::run([profile, map, typedPassword] { return runProbe(profile, map, typedPassword, false); });
}

QFuture<StoreProbeResult> probeReplica(const ConnectionProfile &profile, const SchemaMap &map, const QString &typedPassword)
{
    return QtConcurrent::run([profile, map, typedPassword] { return runProbe(profile, map, typedPassword, true); });
}

PasswordNeed passwordNeed(const ConnectionProfile &profile)
{
    if (profile.dialect == Dialect::Sqlite)
        return PasswordNeed::NoLogin;
    if (profile.params.contains(QStringLiteral("option_file")) || !lookupPasswordWithSource(profile).secret.isEmpty())
        return PasswordNeed::Supplied;
    if (profile.dialect == Dialect::PostgreSql) {
        const QString file = qEnvironmentVariableIsEmpty("PGPASSFILE") ? QDir::home().filePath(QStringLiteral(".pgpass"))
                                                                       : qEnvironmentVariable("PGPASSFILE");
        if (QFileInfo(file).isFile())
            return PasswordNeed::Supplied;
    }
    return PasswordNeed::Needed;
}

bool needsTypedPassword(const ConnectionProfile &profile)
{
    return passwordNeed(profile) == PasswordNeed::Needed;
}

QFuture<QList<PasswordNeed>> passwordNeeds(const QList<ConnectionProfile> &profiles)
{
    return QtConcurrent::run([profiles] {
        QList<PasswordNeed> out;
        for (const ConnectionProfile &p : profiles)
            out << passwordNeed(p);
        return out;
    });
}

QFuture<QList<bool>> passwordPromptsNeeded(const QList<ConnectionProfile> &profiles)
{
    return QtConcurrent::run([profiles] {
        QList<bool> out;
        for (const ConnectionProfile &p : profiles)
            out << needsTypedPassword(p);
        return out;
    });
}

} // namespace triage
