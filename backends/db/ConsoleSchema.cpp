#include "ConsoleSchema.h"

#include "PolicySql.h"

namespace triage {

int storedConsoleSchemaVersion(DbSession &session)
{
    if (!session.hasTable(QStringLiteral("triage_meta")))
        return 0;
    SqlBuilder b;
    QSqlQuery q = session.exec(
        QStringLiteral("SELECT meta_value FROM triage_meta WHERE meta_key = %1").arg(b.bind(consoleSchemaVersionKey())), b);
    if (!q.next() || q.value(0).isNull())
        return 0;
    bool ok = false;
    const int version = q.value(0).toString().trimmed().toInt(&ok);
    return ok && version >= 0 ? version : -1;
}

DbError consoleSchemaRefusal(DbRole role, int stored)
{
    const QString has = stored < 0 ? QStringLiteral("the %1 has a console schema version this build cannot read").arg(roleTitle(role))
                                   : QStringLiteral("the %1 has console schema version %2").arg(roleTitle(role)).arg(stored);
    return {role, DbError::Kind::Refused,
            QStringLiteral("%1; this build knows version %2: upgrade the console before writing").arg(has).arg(kConsoleSchemaVersion),
            {}};
}

void requireKnownConsoleSchema(DbSession &session)
{
    requireKnownConsoleSchemaOnly(session);
    requireNotFrozen(session); // every time: a freeze may come at any moment (DESIGN.md §8 "Safety policy")
}

void requireKnownConsoleSchemaOnly(DbSession &session)
{
    const int stored = session.memo(QStringLiteral("console schema version"), [&] {
                                 return QVariant(storedConsoleSchemaVersion(session));
                             }).toInt();
    if (stored < 0 || stored > kConsoleSchemaVersion)
        throw DbException(consoleSchemaRefusal(session.role(), stored));
}

} // namespace triage
