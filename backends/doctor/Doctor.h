#pragma once

#include "DbSession.h"

#include <QFuture>
#include <QString>
#include <QStringList>
#include <QVector>

namespace triage {

class Workspace;

/// One index a queue or view needs (resources/schema/ documents them per dialect).
struct IndexNeed {
    DbRole role;
    QString table;
    QStringList columns;  ///< leading columns an index must start with, in order
    QString usedBy;       ///< "Unknown / In flight / Failed / Succeeded queues", …
    QString createSql;    ///< the statement that fixes it (PostgreSQL spelling; see fix)
};

/// The finding for one need.
struct IndexFinding {
    IndexNeed need;
    bool present = false;
    QString satisfiedBy;  ///< the index that serves it, when present
    QString fix;          ///< CREATE INDEX statement for this database's dialect, when missing
    QString plan;         ///< PostgreSQL/MySQL: the access path EXPLAIN chose for the queue's query, if probed
};

/// The indexes the console's queues and views rely on (DESIGN.md §2).
QVector<IndexNeed> indexNeeds();

namespace doctor_sql {
/// Lists the indexes of `table` as "name → comma-separated columns in order".
/// Throws DbException.
QVector<QPair<QString, QStringList>> indexesOf(DbSession &session, const QString &table);
/// Checks every need of `session`'s role: present (an index whose leading columns match)
/// or missing with the statement that fixes it; for the record queues also reports the
/// plan EXPLAIN chooses (a full scan shows as "Seq Scan" / "type ALL"). A table that does
/// not exist is reported as missing with the hint to run init-schema. Throws DbException.
QVector<IndexFinding> inspect(DbSession &session);
} // namespace doctor_sql

/// doctor_sql::inspect() on the worker of `role`'s store: its index findings, or the
/// store's error (DESIGN.md §2, §5 `doctor`).
QFuture<Outcome<QVector<IndexFinding>>> inspectIndexes(Workspace &workspace, DbRole role);

} // namespace triage
