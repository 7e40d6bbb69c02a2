#include "BusinessIdSql.h"

#include "DbSession.h"

#include <QSqlField>
#include <QSqlRecord>

namespace triage {

namespace {

bool isIntegerType(int typeId)
{
    switch (typeId) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Short:
    case QMetaType::UShort:
    case QMetaType::Long:
    case QMetaType::ULong:
        return true;
    default:
        return false;
    }
}

} // namespace

bool isIntegerColumn(DbSession &session, const QString &table, const QString &column)
{
    return session
        .memo(QStringLiteral("integer-column:%1.%2").arg(table, column),
              [&]() -> QVariant {
                  if (session.dialect().kind() == Dialect::Sqlite) {
                      // The driver reports BIGINT as text: SQLite's own affinity rule instead
                      // (https://www.sqlite.org/datatype3.html §3.1: a type containing "INT").
                      SqlBuilder b;
                      QSqlQuery q = session.exec(QStringLiteral("SELECT type FROM pragma_table_info(%1) WHERE name = %2")
                                                     .arg(b.bind(QString(table).remove(QLatin1Char('"'))), b.bind(QString(column).remove(QLatin1Char('"')))),
                                                 b);
                      return q.next() && q.value(0).toString().contains(QLatin1String("INT"), Qt::CaseInsensitive);
                  }
                  // Table and column are SQL names: the console's own, or mapped ones (sqlName(), SchemaSql.h).
                  QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM %2 WHERE 1 = 0").arg(column, table));
                  return isIntegerType(q.record().field(0).metaType().id());
              })
        .toBool();
}

std::optional<QVariant> businessIdBindValue(DbSession &session, const QString &table, const QString &column,
                                            const BusinessId &id)
{
    if (!isIntegerColumn(session, table, column))
        return QVariant(id.text());
    if (const auto n = id.toInteger())
        return QVariant(*n);
    if (const auto u = id.toUnsigned())
        return QVariant(*u);
    return std::nullopt;
}

} // namespace triage
