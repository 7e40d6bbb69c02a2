#include "Dialect.h"

namespace triage {

QString dialectName(Dialect d)
{
    switch (d) {
    case Dialect::PostgreSql: return QStringLiteral("postgresql");
    case Dialect::MySql: return QStringLiteral("mysql");
    case Dialect::Sqlite: return QStringLiteral("sqlite");
    }
    return {};
}

} // namespace triage
