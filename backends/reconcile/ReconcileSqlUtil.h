#pragma once
// Inside backends/reconcile only: SQL fragments the escalation and claim stores share
// (DESIGN.md §8). Every value is bound by the caller; times are the server's clock.

#include "SqlDialect.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace triage::reconcile_sql {

/// Expression: the server's time now plus the number of seconds bound at `param` (an
/// integer), as a value of the time columns' type (wall-clock time, as SqlDialect::nowValue()).
inline QString nowPlusSeconds(const SqlDialect &d, const QString &param)
{
    switch (d.kind()) {
    case Dialect::PostgreSql:
        return QStringLiteral("(clock_timestamp() + CAST(%1 AS double precision) * interval '1 second')").arg(param);
    case Dialect::MySql:
        return QStringLiteral("(UTC_TIMESTAMP(6) + INTERVAL %1 SECOND)").arg(param);
    case Dialect::Sqlite:
        return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '+' || CAST(%1 AS TEXT) || ' seconds') || '000Z')").arg(param);
    }
    return {};
}

/// Expression: the time value `expr` (of the time columns' type) plus the number of hours
/// bound at `param` (an integer).
inline QString plusHours(const SqlDialect &d, const QString &expr, const QString &param)
{
    switch (d.kind()) {
    case Dialect::PostgreSql:
        return QStringLiteral("(%1 + CAST(%2 AS integer) * interval '1 hour')").arg(expr, param);
    case Dialect::MySql:
        return QStringLiteral("(%1 + INTERVAL %2 HOUR)").arg(expr, param);
    case Dialect::Sqlite:
        return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', %1, '+' || CAST(%2 AS TEXT) || ' hours') || '000Z')").arg(expr, param);
    }
    return {};
}

/// Compact JSON text of `o` (audit states).
inline QString compactJson(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

} // namespace triage::reconcile_sql
