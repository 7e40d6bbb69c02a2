#pragma once
// What triage-bench's two parts (the default schema in triage_bench.cpp, the "shop" shape
// in shop_bench.cpp) share: figures, medians, raw statements, the report.

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QUrl>

#include "DemoData.h"
#include "Schema.h"
#include "WorkspaceConfig.h"
#include "Workspace.h"
#include <QString>
#include <QVector>

#include <algorithm>
#include <cstdio>
#include <functional>

namespace triage::bench {

struct Figure {
    QString name;
    double consoleMs = 0;
    double rawMs = 0;
    QString anchorName;
    double anchorMs = -1;
    QString note;
};

/// The median of `values` (the upper one of the middle two for an even count); 0 when empty.
inline double median(QVector<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

inline double medianMs(int reps, const std::function<void()> &fn)
{
    QVector<double> times;
    fn(); // warm-up (plans, caches)
    for (int i = 0; i < reps; ++i) {
        QElapsedTimer t;
        t.start();
        fn();
        times << t.nsecsElapsed() / 1e6;
    }
    return median(times);
}

[[noreturn]] inline void die(const QString &why)
{
    std::fprintf(stderr, "triage-bench: %s\n", qPrintable(why));
    std::exit(1);
}

inline QSqlQuery rawExec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery q(db);
    q.setForwardOnly(true);
    if (!q.exec(sql))
        die(QStringLiteral("%1\n%2").arg(q.lastError().text(), sql));
    return q;
}

inline int drain(QSqlQuery &q)
{
    int n = 0;
    const int columns = q.record().count();
    while (q.next()) {
        for (int c = 0; c < columns; ++c)
            (void)q.value(c);
        ++n;
    }
    return n;
}


/// The --server option every bench program takes.
inline QCommandLineOption serverOption()
{
    return {QStringLiteral("server"), QStringLiteral("PostgreSQL server URL (the database is created). Default: $TRIAGE_TEST_PG_URL."),
            QStringLiteral("URL")};
}

/// The server URL from --server or $TRIAGE_TEST_PG_URL (dies without one); the password
/// comes from TRIAGE_DB_PASSWORD, else from the test servers' TRIAGE_TEST_PG_PASSWORD.
inline QString benchServer(const QCommandLineParser &p)
{
    const QString url = p.isSet(QStringLiteral("server")) ? p.value(QStringLiteral("server")) : qEnvironmentVariable("TRIAGE_TEST_PG_URL");
    if (url.isEmpty())
        die(QStringLiteral("no server: pass --server postgresql://user@host:port/db or set TRIAGE_TEST_PG_URL"));
    if (qEnvironmentVariableIsEmpty("TRIAGE_DB_PASSWORD") && !qEnvironmentVariableIsEmpty("TRIAGE_TEST_PG_PASSWORD"))
        qputenv("TRIAGE_DB_PASSWORD", qgetenv("TRIAGE_TEST_PG_PASSWORD"));
    return url;
}

/// Drops the bench database `dbName` through `admin` unless `keep` (disk is limited), and
/// says which it did.
inline void dropUnlessKept(QSqlDatabase &admin, const QString &dbName, bool keep)
{
    if (keep)
        return (void)std::printf("kept database %s\n", qPrintable(dbName));
    QSqlQuery q(admin);
    if (!q.exec(QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(dbName)))
        die(q.lastError().text());
    std::printf("dropped database %s (pass --keep to keep it)\n", qPrintable(dbName));
}

/// `server`'s URL naming the database `dbName` instead.
inline QUrl databaseUrl(QUrl server, const QString &dbName)
{
    server.setPath(QLatin1Char('/') + dbName);
    return server;
}

/// Creates the console's schema in an empty bench database: init-schema without the
/// ticket backstop (duplicated keys are part of the data). Dies on failure.
inline void createBenchSchema(Workspace &ws)
{
    const auto s = initSchema(ws, SchemaOptions{false}).result();
    if (!s.ok())
        die(s.error->message);
}

/// Writes `doc` to `path` as JSON and says so.
inline void writeJson(const QString &path, const QJsonObject &doc)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(doc).toJson()) < 0)
        die(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    std::printf("wrote %s\n", qPrintable(path));
}

/// Opens a QPSQL connection `name` to database `db` on `server` (password from
/// TRIAGE_DB_PASSWORD); dies on failure.
inline QSqlDatabase openPg(const QUrl &server, const QString &name, const QString &db)
{
    QSqlDatabase d = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
    d.setHostName(server.host());
    d.setPort(server.port(5432));
    d.setUserName(server.userName());
    d.setPassword(qEnvironmentVariable("TRIAGE_DB_PASSWORD"));
    d.setDatabaseName(db);
    if (!d.open())
        die(d.lastError().text());
    return d;
}

/// Creates the benchmark database `dbName` through `admin` unless it exists and !refill
/// (then it is reused and says so). Returns true when it must be filled.
inline bool prepareDatabase(QSqlDatabase &admin, const QString &dbName, bool refill)
{
    const bool exists = rawExec(admin, QStringLiteral("SELECT 1 FROM pg_database WHERE datname = '%1'").arg(dbName)).next();
    const bool fill = !exists || refill;
    if (!fill)
        std::printf("reusing database %s (pass --refill to re-create it)\n", qPrintable(dbName));
    if (fill) {
        rawExec(admin, QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(dbName));
        rawExec(admin, QStringLiteral("CREATE DATABASE %1").arg(dbName));
    }
    return fill;
}

/// The workspace configuration of a benchmark database: all three stores in `dbUrl`, the
/// demo's biz_types (notify_send with a literal key prefix), operator "bench".
inline WorkspaceConfig benchConfig(const QUrl &dbUrl)
{
    WorkspaceConfig config;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        config.setProfile(*ConnectionProfile::fromUrl(dbUrl.toString(), role, nullptr));
    config.bizTypes = demoBizTypes();
    config.bizTypes[QStringLiteral("notify_send")].tenantPattern = QStringLiteral("notify:send:{tenant}");
    config.operatorName = QStringLiteral("bench");
    return config;
}

/// The idempotency key of generated row `g` as an SQL expression over the integer
/// expression `g`: the demo's tenant patterns ("ticket:create:acme:<md5>"), so the tenant
/// filter is a key prefix.
inline QString benchKeySql(const QString &g)
{
    return QStringLiteral("(ARRAY['ticket:create:','pay:capture:','refund:issue:','notify:send:'])[1 + (%1 / 7) % 4] "
                          "|| (ARRAY['acme','globex','initech','umbrella','zurich'])[1 + %1 % 5] || ':' || md5(%1::text)")
        .arg(g);
}

/// Prints the table of `figures` (operation, console ms, raw ms, ratio, anchor / note) and
/// returns them as the JSON array the report file holds.
inline QJsonArray printFigures(const QVector<Figure> &figures)
{
    std::printf("\n%-44s %12s %12s %8s   %s\n", "operation", "console ms", "raw SQL ms", "ratio", "anchor / note");
    QJsonArray out;
    for (const Figure &f : figures) {
        const double ratio = f.rawMs > 0 ? f.consoleMs / f.rawMs : 0;
        QString extra = f.anchorMs >= 0 ? QStringLiteral("%1: %2 ms").arg(f.anchorName).arg(f.anchorMs, 0, 'f', 2) : QString();
        if (!f.note.isEmpty())
            extra += (extra.isEmpty() ? QString() : QStringLiteral("; ")) + f.note;
        std::printf("%-44s %12.2f %12s %8s   %s\n", qPrintable(f.name), f.consoleMs,
                    f.rawMs > 0 ? qPrintable(QString::number(f.rawMs, 'f', 2)) : "-",
                    f.rawMs > 0 ? qPrintable(QString::number(ratio, 'f', 2)) : "-", qPrintable(extra));
        QJsonObject o;
        o[QStringLiteral("operation")] = f.name;
        o[QStringLiteral("console_ms")] = f.consoleMs;
        o[QStringLiteral("raw_ms")] = f.rawMs > 0 ? QJsonValue(f.rawMs) : QJsonValue();
        o[QStringLiteral("ratio")] = f.rawMs > 0 ? QJsonValue(ratio) : QJsonValue();
        o[QStringLiteral("within_2ms")] = f.rawMs > 0 ? QJsonValue(f.consoleMs - f.rawMs <= 2.0) : QJsonValue();
        if (f.anchorMs >= 0) {
            o[QStringLiteral("anchor")] = f.anchorName;
            o[QStringLiteral("anchor_ms")] = f.anchorMs;
        }
        o[QStringLiteral("note")] = f.note;
        out.append(o);
    }
    return out;
}

/// The "shop" shape's part (shop_bench.cpp): fills `triage_bench_shop_<rows>` on the
/// PostgreSQL server `serverUrl` (unless it exists and !refill), measures the queues,
/// detail and duplicates against raw statements on the shop tables, prints and writes
/// `jsonPath`. Returns the exit code.
/// The incident window's figures (window_bench.cpp): a 30-minute window's first 500 events
/// and its summary, console against the per-store statements run raw on `raw`.
QVector<Figure> windowFigures(Workspace &ws, QSqlDatabase &raw, int reps);

int runShopBench(const QString &serverUrl, qint64 rows, int reps, const QString &jsonPath, bool refill, bool fillOnly);

} // namespace triage::bench
