#pragma once

#include "SqlBuilder.h"

#include <QString>
#include <QStringList>

#include <optional>

class QSqlDriver;

namespace triage {

// Running statements on PostgreSQL without session state (DESIGN.md §4 "Poolers").
//
// QPSQL's prepare() sends `PREPARE qpsqlpstmt_N AS …`, then `EXECUTE qpsqlpstmt_N (…)` with
// every bound value formatted as an escaped literal by QSqlDriver::formatValue(), then
// `DEALLOCATE`: three round trips, and a named server-side statement that outlives its
// transaction, which PgBouncer in transaction mode breaks (42P05 "already exists", 26000
// "does not exist"). On PostgreSQL the console therefore substitutes the values itself, with
// the same driver escaping, and runs the statement unprepared in one round trip.

/// The statement text `sql` with each placeholder of `binds` (":p0", ":p1", …; see
/// SqlBuilder) replaced by `driver->formatValue()` of its value, exactly as QPSQL formats
/// the parameters of its EXECUTE (a null QString, QByteArray, QDateTime, … is SQL NULL).
/// Text inside single-quoted literals (E'…' with backslash escapes included), quoted
/// identifiers, dollar-quoted strings and comments is copied unchanged, and `::` is a cast,
/// never a placeholder. A `:name` outside those that `binds` does not hold is an error:
/// returns nullopt and sets `*error` ("the statement uses :x, which has no bound value").
std::optional<QString> inlineBoundValues(const QString &sql, const SqlBuilder &binds, const QSqlDriver *driver,
                                         QString *error);

/// The per-transaction settings that go in front of every PostgreSQL statement, in the
/// same simple query (so they cost no round trip): `SET LOCAL TIME ZONE 'UTC'` and, when
/// `statementTimeoutMs` > 0, `SET LOCAL statement_timeout = <ms>`. A multi-statement
/// query runs as one implicit transaction, so SET LOCAL holds for exactly that statement
/// (or, inside BEGIN … COMMIT, for the rest of that transaction) and never leaks to
/// another client of a pooled server connection. Each element is one statement, without
/// a trailing semicolon.
QStringList pgStatementPreamble(qint64 statementTimeoutMs);

} // namespace triage
