#include "PgCancel.h"

#include <QSqlDriver>
#include <QVariant>

#include <libpq-fe.h>

namespace triage {

std::shared_ptr<PgCancelHandle> PgCancelHandle::fromDriver(const QSqlDriver *driver)
{
    if (!driver || !driver->isOpen())
        return nullptr;
    // QPSQL hands out its connection as a QVariant holding a PGconn* (Qt's documented way:
    // compare the type name, then read the pointer). Qt 6 names the metatype after the
    // compiler's spelling of the type, "pg_conn*" (the struct behind the PGconn typedef).
    const QVariant v = driver->handle();
    if (!v.isValid() || (qstrcmp(v.typeName(), "PGconn*") != 0 && qstrcmp(v.typeName(), "pg_conn*") != 0))
        return nullptr;
    PGconn *conn = *static_cast<PGconn *const *>(v.constData());
    if (!conn)
        return nullptr;
    PGcancel *cancel = PQgetCancel(conn);
    if (!cancel)
        return nullptr;
    return std::shared_ptr<PgCancelHandle>(new PgCancelHandle(cancel));
}

PgCancelHandle::~PgCancelHandle()
{
    PQfreeCancel(m_cancel);
}

bool PgCancelHandle::send(QString *error) const
{
    char why[256] = {};
    if (PQcancel(m_cancel, why, sizeof why) == 1)
        return true;
    if (error)
        *error = QString::fromUtf8(why).trimmed();
    return false;
}

} // namespace triage
