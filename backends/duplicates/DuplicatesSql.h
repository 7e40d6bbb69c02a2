#pragma once
// SQL helpers shared by the duplicates scans (Duplicates.cpp, DuplicateInconsistencies.cpp).
// Internal to backends/duplicates.

#include "SqlBuilder.h"

#include <QString>
#include <QStringList>

namespace triage::duplicates_sql {

/// "(:p0, :p1, …)": each of `values` bound through `b`, for an IN list (never pasted).
QString inList(SqlBuilder &b, const QStringList &values);

} // namespace triage::duplicates_sql
