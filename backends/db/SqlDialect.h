#pragma once

#include "Dialect.h"
#include "SqlBuilder.h"
#include "TimeText.h"

#include <QString>
#include <QVariant>

namespace triage {


/// SQL fragments that differ between dialects. Every fragment keeps values out of the
/// text: callers bind them. Times are compared on the server (DESIGN.md §4: age and
/// staleness use the database's clock, never the desktop's).
class SqlDialect {
public:
    explicit SqlDialect(Dialect kind) : m_kind(kind) {}
    Dialect kind() const { return m_kind; }

    /// Expression printing a time column as canonical ISO UTC text with six fractional
    /// digits ("...07.123456Z"); SQLite columns are returned as stored (already text).
    QString timeText(const QString &column) const;
    /// `column` (text) as the bytes the database holds, for decodeStoredText()
    /// (TextEscape.h): SQLite `CAST(… AS BLOB)` (its text API turns invalid UTF-8, overlong
    /// forms and even U+FFFF into U+FFFD), PostgreSQL `convert_to(…, 'UTF8')` (raw in a
    /// SQL_ASCII database; a UTF8 database holds valid text only), MySQL/MariaDB the column
    /// itself (the server converts to the connection's utf8mb4; binary columns arrive as
    /// bytes anyway).
    QString rawText(const QString &column) const;
    /// Expression: seconds (double) from `column` to the server's now(); positive = past.
    QString secondsSince(const QString &column) const;
    /// Expression: the server's current time as a value of the time columns' type (for
    /// INSERT / UPDATE: wall-clock time, not the transaction's start).
    QString nowValue() const;
    /// Expression: the server's current time as canonical ISO UTC text: the same instant
    /// secondsSince() measures from (PostgreSQL: the transaction's start, now(); MariaDB:
    /// the statement's UTC_TIMESTAMP(6); SQLite: the statement's 'now'), so a read's
    /// server_now minus a column equals the age read beside it.
    QString nowText() const;
    /// Expression for "server now minus the number of seconds bound at `param`", of the
    /// column type, for comparisons such as `updated_at < <this>`.
    QString nowMinusSeconds(const QString &param) const;
    /// Expression turning a bound time value (see bindTime()) into the column type.
    QString timeParam(const QString &param) const;
    /// The value to bind for a time: canonical ISO text for PostgreSQL / SQLite,
    /// "YYYY-MM-DD HH:MM:SS.ffffff" for MySQL/MariaDB (whose DATETIME has no zone).
    QVariant bindTime(UtcMicros t) const;
    /// Keyset condition "(timeCol, idCol) > (time, id)" (or "<" when descending), written
    /// so each dialect's optimiser can use the (…, timeCol, idCol) index; the values are
    /// bound through `b`. `time` is bound as given (see bindTime()).
    QString keysetAfter(SqlBuilder &b, const QString &timeCol, const QString &idCol, const QVariant &time,
                        qint64 id, bool descending) const;
    /// Condition: `column` matches the regular expression bound at `param`.
    /// SQLite needs the connection option QSQLITE_ENABLE_REGEXP (set by DbWorker).
    QString regexMatch(const QString &column, const QString &param) const;
    /// Escapes a literal for LIKE with ESCAPE '!' (see likeEscapeClause()).
    static QString likeLiteral(const QString &text);
    /// " ESCAPE '!'" — appended after every LIKE whose pattern came from likeLiteral().
    static QString likeEscapeClause() { return QStringLiteral(" ESCAPE '!'"); }

private:
    Dialect m_kind;
};

} // namespace triage
