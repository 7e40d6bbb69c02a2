#pragma once
// Helpers of the read-replica tests (DESIGN.md §9 "Read replicas"): a workspace reading from a
// replica, the Unknown queue's keys and a key's status as the console reads them, and waiting
// for a replica state. Used by tst_replica (PostgreSQL standby) and tst_replica_mysql (MariaDB).

#include "BackendTestUtil.h"

#include "KeyDetail.h"
#include "Queue.h"
#include "Workspace.h"

#include <QElapsedTimer>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUrl>

namespace triage::test {

/// The replica's URL (from the environment variable `envVar`, which tests/run-all.sh sets) for
/// the test's own database, created on the primary and replicated; "" when it is not set.
inline QString replicaUrlFor(const TestDatabase &db, const char *envVar)
{
    QUrl u(qEnvironmentVariable(envVar));
    if (u.isEmpty())
        return {};
    u.setPath(QLatin1Char('/') + db.databaseName());
    return u.toString();
}

/// Adds the test's own connection `name` (driver QPSQL or QMYSQL) to the server of
/// `replicaUrl`, the password from the environment variable `passwordEnv`; not opened.
inline QSqlDatabase addReplicaConnection(const QString &name, const char *driver, const QString &replicaUrl, const char *passwordEnv)
{
    const QUrl u(replicaUrl);
    QSqlDatabase c = QSqlDatabase::addDatabase(QString::fromLatin1(driver), name);
    c.setHostName(u.host());
    c.setPort(u.port());
    c.setUserName(u.userName());
    c.setPassword(qEnvironmentVariable(passwordEnv));
    return c;
}

/// The first column of `sql`'s rows on the connection `name`; {"error: <text>"} when it fails.
inline QStringList replicaColumn(const QString &name, const QString &sql)
{
    QSqlQuery q(QSqlDatabase::database(name, false));
    QStringList out;
    if (!q.exec(sql))
        return {QStringLiteral("error: ") + q.lastError().text()};
    while (q.next())
        out << q.value(0).toString();
    return out;
}

/// `c` with `replicaUrl` as every store's replica and `maxLagS` as the lag limit.
inline WorkspaceConfig withReplica(WorkspaceConfig c, const QString &replicaUrl, int maxLagS)
{
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString why;
        const auto p = ConnectionProfile::fromUrl(replicaUrl, role, &why);
        if (p)
            c.replicas.insert(int(role), *p);
    }
    c.replicaMaxLagS = maxLagS;
    return c;
}

inline QueueRequest staleQueue()
{
    QueueRequest r;
    r.kind = QueueKind::Unknown;
    return r;
}

/// The Unknown queue's first page of keys, sorted ("error: …" when the read failed).
inline QStringList pageKeys(Workspace &ws)
{
    const Outcome<QueuePage> page = fetchQueuePage(ws, staleQueue(), QueueCursor{}, 100).result();
    if (!page.ok())
        return {QStringLiteral("error: ") + page.error->message};
    QStringList keys;
    for (const QueueRow &r : page->rows)
        keys << r.idemKey;
    keys.sort();
    return keys;
}

/// `key`'s record status code as its detail reads it ("none", "null", "error: …").
inline QString statusOf(Workspace &ws, const QString &key)
{
    const KeyDetail d = loadKeyDetail(ws, key).result();
    if (!d.errors.isEmpty())
        return QStringLiteral("error: ") + d.errors.first().message;
    if (!d.record)
        return QStringLiteral("none");
    return d.record->statusCode ? QString::number(*d.record->statusCode) : QStringLiteral("null");
}

/// Measures until the idempotency store's replica state is `want` (bounded, 30 s); the last status.
inline ReplicaStatus waitState(Workspace &ws, ReplicaStatus::State want)
{
    QElapsedTimer t;
    t.start();
    ReplicaStatus s;
    while (t.elapsed() < 30000) {
        s = ws.reader(DbRole::Idempotency).measureNow().result();
        if (s.state == want)
            return s;
        QThread::msleep(100);
    }
    return s;
}

} // namespace triage::test
