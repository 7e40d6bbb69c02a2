#pragma once

#include "SchemaMap.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace triage::test {

/// The "shop" test shape (tests/support/shop/: shop.ini and one schema file per dialect):
/// the default schema's three stores under other names, text statuses in odd case and
/// spacing, epoch-millisecond times, UUID order ids, a JSON payload, a real tenant column,
/// no expire_at and no version (DESIGN.md §10). Tests that run on it use the backend rows
/// "<backend>/shop" (addBackendRows(…, true)); TestDatabase::config() then carries this
/// mapping, setUpSchema() creates these tables and insertRecords() / insertIntents() /
/// insertTickets() write the same logical rows in this shape.
SchemaMap shopSchemaMap();
/// The path of shop.ini (map sections only: the databases come as URLs).
QString shopIniPath();
/// The CREATE statements of `dialect` ("postgresql", "mysql", "sqlite"), one per element.
QStringList shopDdl(const QString &dialect);

/// The shop spelling of a record status given as the default shape's SQL expression: "0" →
/// 'pending ', "1" → 'Done', "2" → 'ERROR' (each a stored spelling the mapping reads only
/// through status_ignore_case), NULL stays NULL, any other expression is stored as its own
/// text ("7" → '7', read as UNKNOWN_CODE_7 like the default shape's unknown code 7).
QString shopRecordStatus(const QString &defaultExpression);
/// The shop spelling of an intent status ("UNKNOWN" → "timeout"); unknown ones unchanged.
std::optional<QString> shopIntentStatus(const std::optional<QString> &status);
/// The shop spelling of a ticket status ("CANCELLED" → "voided", "OPEN" → "live"); others unchanged.
std::optional<QString> shopTicketStatus(const std::optional<QString> &status);
/// The order id standing for the default shape's ticket id `n` ("00000000-0000-4000-8000-000000000042").
QString shopOrderId(qint64 n);
/// Expression: the native time expression `expr` (a timestamptz / UTC DATETIME / ISO text
/// value of `dialect`) as epoch milliseconds (BIGINT), NULL for NULL.
QString epochMillisOf(const QString &dialect, const QString &expr);

} // namespace triage::test
