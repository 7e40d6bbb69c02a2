#pragma once
// One statement per chunk of bound values for `… IN (…)` lookups (DESIGN.md §3 "Every SQL
// statement binds its values"): the one loop the mark, claim and escalation reads share.

#include "DbSession.h"
#include "SqlBuilder.h"

#include <QSqlQuery>
#include <QStringList>

namespace triage {

/// The most values bound in one `IN (…)` list: well under every driver's bound-parameter limit
/// (SQLite 32,766, PostgreSQL and MariaDB 65,535), short enough for one round trip.
inline constexpr int kInListChunk = 500;

/// Runs one statement per chunk of at most kInListChunk `values`, each value bound:
/// `sqlFor(b, inList)` gets the chunk's SqlBuilder (bind further values into it) and the chunk's
/// placeholders joined by ", " (for `IN (…)`) and returns the SQL text; `onRow(query)` sees
/// each row of each chunk, chunks in order. No statement for no values. Throws DbException
/// like DbSession::exec().
template <typename SqlFor, typename OnRow>
void forEachInListChunk(DbSession &session, const QStringList &values, SqlFor &&sqlFor, OnRow &&onRow)
{
    for (qsizetype from = 0; from < values.size(); from += kInListChunk) {
        SqlBuilder b;
        QStringList placeholders;
        for (const QString &v : values.mid(from, kInListChunk))
            placeholders << b.bind(v);
        const QString sql = sqlFor(b, placeholders.join(QStringLiteral(", ")));
        QSqlQuery q = session.exec(sql, b);
        while (q.next())
            onRow(q);
    }
}

} // namespace triage
