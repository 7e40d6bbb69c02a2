#include "SqlDriverRegistry.h"

#include <QSqlDatabase>
#include <QStringList>

namespace triage {

void registerSqlDriversOnce()
{
    // A function-local static is initialised exactly once, and concurrent callers block
    // until it is; QSqlDatabase::drivers() reaches the registry (and registers the clean-up
    // routine) on this thread.
    static const bool ready = [] {
        QSqlDatabase::drivers();
        return true;
    }();
    (void)ready;
}

} // namespace triage
