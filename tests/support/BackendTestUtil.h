#pragma once

// Helpers shared by the backend tests: SQL literals per backend (times computed by the
// server or given exactly), row inserts through the admin connection (never through the
// console's own code), and paging a whole queue.

#include "KeyDetail.h"
#include "TestDatabases.h"
#include "Workspace.h"
#include "Schema.h"
#include "Queue.h"

#include <QFuture>
#include <QString>
#include <QTest>
#include <QStringList>
#include <QVector>

#include <functional>
#include <optional>

namespace triage::test {

/// SQL expression of the time columns' type: the server's own now() minus `micros`
/// (PostgreSQL `now() - interval`, MariaDB `UTC_TIMESTAMP(6) - INTERVAL`, SQLite strftime).
QString serverAgo(const TestDatabase &db, qint64 micros);
inline QString serverAgoSeconds(const TestDatabase &db, qint64 seconds) { return serverAgo(db, seconds * 1000000); }

/// SQL literal of the time columns' type for canonical ISO UTC text ("…07.123456Z").
QString timeLiteral(const TestDatabase &db, const QString &isoUtc);

/// SQL string literal (quotes doubled; backslashes doubled on MariaDB), or NULL.
QString textLiteral(const TestDatabase &db, const std::optional<QString> &text);

/// The database name of `db` (last path element of its URL).
QString databaseName(const TestDatabase &db);

/// One idempotency_record row. Time fields are SQL expressions (serverAgo(), timeLiteral());
/// an empty created/expire expression copies `updated` (expire: updated + 7 days is not
/// needed by any test, so the same value is used).
struct RecordSpec {
    qint64 id = 0; ///< 0: let the database choose
    QString key;
    QString bizType = QStringLiteral("ticket_create");
    QString status = QStringLiteral("0"); ///< SQL expression
    std::optional<QString> snapshot;
    QString updated, created, expire;
};

/// One intent_log row (NULL where nullopt).
struct IntentSpec {
    qint64 id = 0;
    std::optional<QString> key, status = QStringLiteral("UNKNOWN"), taskId = QStringLiteral("task_1"),
                                stepId = QStringLiteral("step_1"), action = QStringLiteral("create_ticket"), request,
                                response, error, stateBefore, stateAfter, actor = QStringLiteral("agent-1");
    QString created, updated; ///< SQL expressions; empty updated copies created
};

/// One ticket row (NULL where nullopt).
struct TicketSpec {
    qint64 id = 0;
    std::optional<QString> key, tenant, title, status = QStringLiteral("OPEN"), payload;
    QString created, updated;
};

/// Inserts rows through the admin connection, 100 per statement. Return the error text
/// (empty on success).
QString insertRecords(const TestDatabase &db, const QVector<RecordSpec> &rows);
QString insertIntents(const TestDatabase &db, const QVector<IntentSpec> &rows);
QString insertTickets(const TestDatabase &db, const QVector<TicketSpec> &rows);

/// Creates the schema through the console (initSchema()). Returns the error text.
QString setUpSchema(Workspace &ws, bool ticketBackstop = true);

/// "record:<key>" / "intent:<key>": a queue row's identity in expected-set comparisons.
QString rowTag(const QueueRow &row);
QStringList rowTags(const QVector<QueueRow> &rows);
/// "record#<id>" / "intent#<id>".
QString rowId(const QueueRow &row);

/// Pages through `request` with `pageSize` until atEnd. Checks every page holds at most
/// `pageSize` rows and every page but the last exactly `pageSize`. `betweenPages(n)` runs
/// after page n (1-based) and may insert rows; it returns an error text or empty.
struct PagedQueue {
    QVector<QueueRow> rows;
    int pages = 0;
    QString error; ///< empty when every page came back and every check held
};
PagedQueue fetchWholeQueue(Workspace &ws, const QueueRequest &request, int pageSize,
                           const std::function<QString(int)> &betweenPages = {});

/// countQueue(request) as a number, or -1 with `*error` set.
qint64 countOf(Workspace &ws, const QueueRequest &request, QString *error = nullptr);

/// The outcome's error message, or empty when it succeeded (QVERIFY2 evaluates its
/// message even when the check passes: never dereference `error` there directly).
template <typename T>
QString errorText(const Outcome<T> &o)
{
    return o.ok() ? QString() : o.error->message;
}
/// Every store error of a key detail, joined.
QString errorsText(const KeyDetail &d);

/// Matches "YYYY-MM-DDTHH:MM:SS.ffffffZ" exactly.
bool isCanonicalTime(const QString &text);

/// Waits (spinning the event loop) for `future` and returns its result (after 2 min it
/// blocks in result(), and ctest's timeout reports the hang).
template <typename T>
T await(QFuture<T> future)
{
    if (!QTest::qWaitFor([&] { return future.isFinished(); }, 120000))
        qWarning("still waiting for a future after 120 s");
    return future.result();
}

/// The idempotency-role connection profile of `db`'s URL plus `query` ("?statement_timeout=…");
/// a bad URL is a fatal test error.
inline ConnectionProfile profileOf(const TestDatabase &db, const QString &query = {})
{
    QString error;
    const auto p = ConnectionProfile::fromUrl(db.url() + query, DbRole::Idempotency, &error);
    if (!p)
        qFatal("bad test URL %s: %s", qPrintable(db.url() + query), qPrintable(error));
    return *p;
}

} // namespace triage::test

/// Runs an admin statement and fails the test with the database's message.
#define TRIAGE_ADMIN(db, sql)                                                                 \
    do {                                                                                      \
        const QString triageAdminError_ = (db).adminExec(sql);                                \
        QVERIFY2(triageAdminError_.isEmpty(), qPrintable(triageAdminError_ + " in: " + (sql))); \
    } while (false)

/// Fails the test unless the Outcome `o` succeeded, with its error message.
#define TRIAGE_VERIFY_OUTCOME(o) QVERIFY2((o).ok(), qPrintable(triage::test::errorText(o)))

/// Fails the test when `expr` (a QString error text) is not empty.
#define TRIAGE_OK(expr)                                                                       \
    do {                                                                                      \
        const QString triageError_ = (expr);                                                  \
        QVERIFY2(triageError_.isEmpty(), qPrintable(triageError_));                           \
    } while (false)
