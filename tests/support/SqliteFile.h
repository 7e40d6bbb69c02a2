#pragma once

// Reading a SQLite file with a connection of the test's own (not the console's code): the
// demo workspace's checks (tests/demo).

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QStringList>

namespace triage::test {

/// First column of every row of `sql` on the SQLite file `path` ("NULL" for a NULL), through
/// a connection of its own; `*error` (when given) gets the driver's message on failure.
inline QStringList sqliteColumn(const QString &path, const QString &sql, QString *error = nullptr)
{
    static int n = 0;
    const QString name = QStringLiteral("sqlite-file-check-%1").arg(++n);
    QStringList out;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        if (db.open()) {
            QSqlQuery q(db);
            if (q.exec(sql)) {
                while (q.next())
                    out << (q.value(0).isNull() ? QStringLiteral("NULL") : q.value(0).toString());
            } else if (error) {
                *error = q.lastError().text();
            }
        } else if (error) {
            *error = db.lastError().text();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return out;
}

/// The single integer `sql` returns on the SQLite file `path`; -1 when it returns no single row.
inline qint64 sqliteCount(const QString &path, const QString &sql)
{
    const QStringList v = sqliteColumn(path, sql);
    return v.size() == 1 ? v.first().toLongLong() : -1;
}

} // namespace triage::test
