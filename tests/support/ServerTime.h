#pragma once

#include <QString>

namespace triage::test {

/// An SQL expression, in parentheses, for "the server's UTC now minus `seconds`" as the
/// schema's time columns store it (resources/schema/): PostgreSQL timestamptz,
/// MySQL/MariaDB DATETIME(6) in UTC, SQLite text "YYYY-MM-DDTHH:MM:SS.ffffffZ". `backend`
/// is TestDatabase::backend() ("postgresql", "mysql", "sqlite"); a negative `seconds` is
/// in the future. Written independently of the console's SqlDialect.
QString serverNowMinus(const QString &backend, qint64 seconds);

/// serverNowMinus() to the microsecond: "the server's UTC now minus `micros`" (negative:
/// in the future). The one implementation both serve.
QString serverNowMinusMicros(const QString &backend, qint64 micros);

/// serverNowMinus() truncated to the second, for the zone-less time columns of users' own
/// schemas (PostgreSQL TIMESTAMP, MySQL/MariaDB DATETIME, SQLite text
/// "YYYY-MM-DDTHH:MM:SS.000000Z"): UTC wall time, as their writers store it.
QString serverNowMinusWholeSeconds(const QString &backend, qint64 seconds);

} // namespace triage::test
