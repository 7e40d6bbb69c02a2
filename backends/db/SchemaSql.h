#pragma once

#include "Dialect.h"
#include "SchemaMap.h"
#include "SqlBuilder.h"
#include "TimeText.h"

#include <QString>
#include <QStringList>
#include <QVariant>

#include <optional>

namespace triage {

/// `name` ("ticket", "billing.idem_records") as SQL: each part as it is when it is a plain
/// lower-case identifier that needs no quotes, else quoted for `dialect` ("Orders" →
/// "Orders" on PostgreSQL and SQLite, `Orders` on MySQL/MariaDB). Names come from the
/// mapping, which accepts only isMappableName() names, so quoting never needs escapes.
QString sqlName(Dialect dialect, const QString &name);

/// `column` qualified by a table alias: "l." + column, or the column alone for "".
inline QString qualified(const QString &alias, const QString &column)
{
    return alias.isEmpty() ? column : alias + QLatin1Char('.') + column;
}

/// Condition: text `column` equals the value bound at `b` exactly (case, accents and trailing
/// spaces count). Users' own MySQL/MariaDB tables usually have a case- and accent-insensitive
/// collation ("ZÜRICH" = "zurich"): there the column is compared as it is (so its index
/// narrows) and as BINARY; elsewhere a plain `=` (DESIGN.md §10).
QString textIs(SqlBuilder &b, Dialect dialect, const QString &column, const QString &value);
/// Condition: text columns `a` and `b` hold exactly the same value (as textIs(); for joins).
QString textSame(Dialect dialect, const QString &a, const QString &b);
/// `column` as the left side of a LIKE or REGEXP that must match exactly: `BINARY column` on
/// MySQL/MariaDB (see textIs()), the column elsewhere.
QString exactText(Dialect dialect, const QString &column);

/// SQL fragments for the time columns of one mapped table (DESIGN.md §4 "Time", §10): every
/// comparison runs on the server's clock and in the column's own representation (so an index
/// on the column serves it). Values are bound through SqlBuilder; the zone of a Local
/// mapping is a validated constant of the mapping ("+08:00", "Asia/Shanghai"), written
/// into the text like a column name.
class TimeSql {
public:
    TimeSql(Dialect dialect, TimeMapping mapping) : m_dialect(dialect), m_map(std::move(mapping)) {}
    Dialect dialect() const { return m_dialect; }
    const TimeMapping &mapping() const { return m_map; }

    /// Expression: `column` as canonical ISO UTC text ("…07.123456Z"; SQLite native and
    /// SQLite local columns with the precision the text has, epoch columns exact).
    QString text(const QString &column) const;
    /// Expression: seconds (double) from `column` to the server's now(); positive = past.
    QString secondsSince(const QString &column) const;
    /// Expression: the server's current time in the column's representation (for writes).
    QString nowValue() const;
    /// Expression: "server now minus the seconds bound at `param`", in the column's
    /// representation, for comparisons such as `updated_at < <this>`.
    QString nowMinusSeconds(const QString &param) const;
    /// Expression turning a value bound from bind() into the column's representation.
    QString param(const QString &param) const;
    /// The value to bind for instant `t` (see param()): ISO text, MySQL DATETIME text,
    /// or whole epoch seconds / milliseconds (truncated toward the past).
    QVariant bind(UtcMicros t) const;
    /// The value to bind (see param()) for a window bound at instant `t`, so that
    /// `column >= bound` and `column < bound` split the rows exactly at `t`: for an epoch
    /// column the first whole unit not before `t` (a stored unit is the instant it starts);
    /// other forms as bind().
    QVariant boundAt(UtcMicros t) const;

    /// True when a stored time must be matched as the exact text stored (SQLite's native and
    /// local text, iso_text everywhere): a compare-and-set then reads the stored value in
    /// its own transaction and binds it back (DESIGN.md §4).
    bool matchesStoredText() const;
    /// Expression: the keyset cursor of `column`, as text (the stored value where
    /// matchesStoredText() or for epoch columns, else canonical ISO text).
    QString cursor(const QString &column) const;
    /// The value to bind for a cursor read by cursor() (see keysetAfter()).
    QVariant cursorValue(const QString &cursorText) const;
    /// The cursor text (the form cursor() reads) of instant `t`, for a keyset position taken
    /// from another table whose cursor form differs (the Unknown queue's merge of records and
    /// intent steps): epoch values rounded down, or up with `roundUp`, to the column's unit;
    /// stored-text forms as canonical ISO UTC text (SQLite local text: the zone's local time,
    /// "YYYY-MM-DDTHH:MM:SS.ffffff"); the others canonical ISO UTC text.
    QString cursorAt(UtcMicros t, bool roundUp) const;
    /// Keyset condition "(timeCol, idCol) > (cursor, id)" (or "<" when descending), in the
    /// form each dialect's optimiser uses with the (…, timeCol, idCol) index; `cursorValue`
    /// from cursorValue(), bound through `b`.
    /// `id` is bound as given: a qint64 for integer ids, the id text for an opaque one.
    QString keysetAfter(SqlBuilder &b, const QString &timeCol, const QString &idCol, const QVariant &cursorValue,
                        const QVariant &id, bool descending) const;

private:
    /// Expression: `column` as a zoned instant of the dialect (PostgreSQL timestamptz,
    /// MySQL DATETIME(6) in UTC); for SQLite a julianday() number.
    QString instant(const QString &column) const;
    /// The Local zone as SQL: PostgreSQL `INTERVAL '+08:00'` or `'Asia/Shanghai'`, MySQL
    /// `'+08:00'`; SQLite minutes east of UTC ("480").
    QString zone() const;
    Dialect m_dialect;
    TimeMapping m_map;
};

/// SQL fragments for one mapped status column (DESIGN.md §10): which stored values mean a
/// console status, how a value is compared exactly, and what is written.
class StatusSql {
public:
    StatusSql(Dialect dialect, StatusMapping mapping) : m_dialect(dialect), m_map(std::move(mapping)) {}
    const StatusMapping &mapping() const { return m_map; }

    /// Expression selecting the stored value: the column for integer codes, the column as
    /// text for text statuses (PostgreSQL enums and MySQL ENUM included).
    QString read(const QString &column) const;
    /// Condition: `column` holds a spelling of one of the console statuses `names`
    /// ("1 = 0" when none of them has a spelling). Exact unless status_ignore_case, on every
    /// backend (MySQL's case- and space-insensitive collations are made exact by BINARY).
    QString isAny(SqlBuilder &b, const QString &column, const QStringList &names) const;
    /// Condition: `column` holds none of `names`' spellings (NULL and unknown values included).
    QString isNone(SqlBuilder &b, const QString &column, const QStringList &names) const;
    /// Condition: `column` holds a value no spelling of any console status matches, NULL
    /// included: the records of the Unknown queue's unknown statuses (UNKNOWN_CODE_<value>,
    /// DESIGN.md §2, §10). Written so an index on `column` narrows it: the open ranges between
    /// the known spellings (`column < s0 OR (column > s0 AND column < s1) … OR column > sN OR
    /// column IS NULL`), which PostgreSQL runs as a BitmapOr of index range scans and
    /// MySQL/SQLite as range scans, where a plain NOT IN reads the whole table. Integer codes
    /// are ordered here; text spellings need `serverOrder`, every spelling of the mapping in
    /// the column's own order (its collation, or an enum's label order), read from the server
    /// with spellingOrderSql(): the ranges then select every value the column's comparison
    /// tells from all spellings, and the exact isNone() test (status_ignore_case, BINARY)
    /// decides among them. Without `serverOrder`, and on MySQL/MariaDB text statuses (their
    /// collations make case, trailing-space and accent variants of a spelling equal to it, so
    /// only BINARY, which no index serves, tells an unknown variant), it is isNone() alone.
    QString isUnknown(SqlBuilder &b, const QString &column, const QStringList &serverOrder = {}) const;
    /// Statement listing every text spelling of the mapping once, ordered as `column` of
    /// `table` orders values (a UNION ALL with the column gives each spelling the column's
    /// type and collation; no row of the table is read). Empty for integer codes and on
    /// MySQL/MariaDB, where isUnknown() does not use an order. One text column in the result.
    QString spellingOrderSql(SqlBuilder &b, const QString &table, const QString &column) const;
    /// Every stored spelling of every console status, each once, in the mapping's order.
    QStringList allSpellings() const;
    /// Condition: `column` holds exactly `stored` (the value as read(), for a compare-and-set:
    /// the raw value the operator saw); NULL for a null `stored`.
    QString equalsStored(SqlBuilder &b, const QString &column, const std::optional<QString> &stored) const;
    /// The expression isAny() and isNone() filter on: `UPPER(TRIM(<read(column)>))` for text
    /// statuses with status_ignore_case, else `column` itself. An index serves the status
    /// queues only when it starts with exactly this (IndexNeeds.h, DESIGN.md §10).
    QString compared(const QString &column) const
    {
        return m_map.text && m_map.ignoreCase ? folded(column) : column;
    }
    /// The bound value written for console status `name` (its first spelling).
    QString write(SqlBuilder &b, const QString &name) const;
    /// The console status of a stored value read with read(); nullopt for NULL or a value no
    /// spelling matches.
    std::optional<QString> decode(const QVariant &stored) const;

private:
    QString folded(const QString &column) const;
    Dialect m_dialect;
    StatusMapping m_map;
};

/// The idempotency-record table as SQL for one dialect: quoted names (an optional column
/// the table lacks is ""), its time and status fragments.
struct RecordSql {
    RecordSql(Dialect dialect, const RecordTableMap &map);
    RecordTableMap map;
    QString table, id, key, status, snapshot, createdAt, updatedAt, expireAt, version, tenant;
    QString bizTypeColumn; ///< "" when the table has none (see bizType())
    TimeSql time;
    StatusSql statuses;
    /// Expression for the biz_type: the column, or the mapping's one value bound through `b`.
    QString bizType(SqlBuilder &b, const QString &alias = {}) const;
    /// Condition: the row's biz_type is exactly `value` (textIs(): case and trailing spaces
    /// count on MySQL/MariaDB too; without a column: true or false outright).
    QString bizTypeIs(SqlBuilder &b, const QString &value, const QString &alias = {}) const;
    /// Condition: the row's biz_type is exactly none of `values` (BINARY on MySQL/MariaDB).
    QString bizTypeNotIn(SqlBuilder &b, const QStringList &values, const QString &alias = {}) const;
    /// Expression for expire_at as ISO text, or NULL when the table has none.
    QString expireAtText(const QString &alias = {}) const;
};

/// The intent log as SQL for one dialect.
struct IntentSql {
    IntentSql(Dialect dialect, const IntentTableMap &map);
    IntentTableMap map;
    QString table, id, taskId, stepId, action, key, status, request, response, error, stateBefore, stateAfter, actor,
        createdAt, updatedAt;
    TimeSql time;
    StatusSql statuses;
    /// The console spelling of a stored status ("SUCCEEDED"), or the stored text itself
    /// when no spelling matches (shown as stored, never mapped to a known status).
    QString statusName(const QVariant &stored) const;
};

/// The business (ticket) table as SQL for one dialect.
struct TicketSql {
    TicketSql(Dialect dialect, const TicketTableMap &map);
    TicketTableMap map;
    QString table, id, key, tenant, title, status, payload, createdAt, updatedAt;
    TimeSql time;
    StatusSql statuses;
    /// "CANCELLED" for a stored cancelled spelling, else the stored text as it is; nullopt
    /// for NULL.
    std::optional<QString> statusName(const QVariant &stored) const;
    /// Expression: the id as text (opaque business id).
    QString idText(const QString &alias = {}) const;
    /// Expressions for optional columns: the column, or NULL when the table has none.
    QString tenantOrNull(const QString &alias = {}) const;
    QString titleOrNull(const QString &alias = {}) const;
    QString updatedAtTextOrNull(const QString &alias = {}) const;
};

/// Problems of `map` that only show for the dialects it will run on: a Local zone name on
/// MySQL/MariaDB or SQLite (offsets only there: MySQL's named zones need the server's zone
/// tables, SQLite has none). One "[<section>] <key> …" line each; empty when none.
QStringList schemaMapProblems(const SchemaMap &map, Dialect records, Dialect intents, Dialect tickets);

} // namespace triage
