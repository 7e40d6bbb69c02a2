#pragma once

#include "Mark.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <QVector>

namespace triage::mark_sql {

/// The ticket store's part of the mark evidence for many keys (DESIGN.md §6 inputs).
struct TicketEvidence {
    QHash<QString, QVector<BusinessId>> ids;    ///< key → ids of the tickets carrying it (as stored), in the database's id order
    QHash<QString, QVector<TicketRow>> rows;    ///< for the row keys only: id, status, created_at (no payload)
};

/// The intent log's part of the mark evidence for many keys (DESIGN.md §6 inputs).
struct AttemptEvidence {
    QHash<QString, QVector<qint64>> succeeded, escalated; ///< key → attempt ids with that status
    QHash<QString, UtcMicros> latest;                     ///< key → latest created_at / updated_at of its attempts
    QSet<QString> unreadable;                             ///< keys with an attempt time that cannot be parsed
};

/// Reads, on the ticket database, the ticket ids of `keys` and, for `rowKeys` (the keys
/// of SUCCESS marks, for the canonical-ticket rule), their ticket rows (status as
/// TicketSql::statusName(): "CANCELLED" for a mapped cancelled spelling, else as stored);
/// one statement per chunk of at most 500 keys, every key bound, on the table and columns of
/// `config`'s [ticket.map] (DESIGN.md §10). Throws DbException.
TicketEvidence readTicketEvidence(DbSession &session, const WorkspaceConfig &config, const QStringList &keys,
                                  const QStringList &rowKeys);

/// Reads, on the intent database, the SUCCEEDED / ESCALATED attempts (the [intent.map]
/// spellings of those statuses) and the latest attempt time of `keys` (created_at /
/// updated_at in the mapped time encoding; chunked like readTicketEvidence()). Throws
/// DbException.
AttemptEvidence readAttemptEvidence(DbSession &session, const WorkspaceConfig &config, const QStringList &keys);

} // namespace triage::mark_sql
