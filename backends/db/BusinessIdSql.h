#pragma once

#include "BusinessId.h"

#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

class DbSession;

/// True when `table`.`column` (SQL names as sqlName() writes them: quoted where needed)
/// holds whole numbers: an SQL integer type on PostgreSQL and
/// MySQL/MariaDB (as the driver reports the column), INTEGER affinity on SQLite (a declared
/// type containing "INT"). Asked once per connection (DbSession::memo()). Throws DbException.
bool isIntegerColumn(DbSession &session, const QString &table, const QString &column);

/// The value to bind for business id `id` where it is compared with `table`.`column`: the
/// one rule every statement follows (DESIGN.md §4 "Business ids"), or nullopt when no row
/// can hold that id (callers skip it instead of sending a statement).
///
/// - An integer column (isIntegerColumn()) gets a qint64 (a quint64 above qint64's range)
///   when the id is a canonical decimal integer (BusinessId::toInteger()), and nullopt for
///   any other text: PostgreSQL would reject the literal ('T-1' is not a bigint), MariaDB
///   would compare it as a double ('abc' = 0, '042' = 42, and above 2^53 neighbours
///   match), and SQLite would convert '042' to 42. Numbers compare exactly everywhere.
/// - Any other column (VARCHAR, TEXT, UUID, …) gets the text: PostgreSQL's driver inlines it
///   as a quoted literal that the server reads as the column's type (uuid included);
///   MariaDB and SQLite compare text with text, exactly, using the index. A number would
///   not do there: PostgreSQL has no varchar = bigint operator, and MariaDB would compare
///   as doubles ('042' = 42).
///
/// Checked on all three backends (tests/detail, textTicketIds): on SQLite a bound text '42'
/// does match an INTEGER PRIMARY KEY 42 (the column's affinity converts it), but so does
/// '042', which is why an integer column gets a number. A SQLite column declared without a
/// type (no affinity) keeps each value's storage class: an integer stored there is not
/// matched by its text; the schema the console ships never does that.
std::optional<QVariant> businessIdBindValue(DbSession &session, const QString &table, const QString &column,
                                            const BusinessId &id);

} // namespace triage
