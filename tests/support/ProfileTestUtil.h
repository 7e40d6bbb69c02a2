#pragma once
// Helpers shared by the connection-profile tests (tst_profile_store, tst_profile_cli,
// tst_connect_dialog): a profile with one URL for all three stores, and the grep for secrets.
#include "ProfileStore.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QStringList>

namespace triage::test {

/// A profile named `name` in `env` whose three stores all use `url`, by `operatorName`.
inline SavedProfile sameUrlProfile(const QString &name, Environment env, const QString &url, const QString &operatorName = {})
{
    SavedProfile p;
    p.name = name;
    p.environment = env;
    p.operatorName = operatorName;
    for (DbRole r : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket})
        p.urls.insert(r, url);
    return p;
}

/// Every file under `dir` (hidden ones and subdirectories included) whose bytes contain `needle`.
inline QStringList filesContaining(const QString &dir, const QByteArray &needle)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle))
            out << f.fileName();
    }
    return out;
}

} // namespace triage::test
