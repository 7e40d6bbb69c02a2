#pragma once
// Why a record row left a live queue (DESIGN.md §9 "Live queues"): the record as it is now and
// the operator's mark that settled it, read once for the rows a poll saw leave.

#include "AuditEntry.h"
#include "DbError.h"
#include "KeyDetailTypes.h"

#include <QFuture>
#include <QHash>
#include <QStringList>

#include <optional>

namespace triage {

class Workspace;

/// The reason shown for a record row that left a queue, from the record now (`now`; nullopt:
/// no record any more) and the key's latest applied mark (`lastMark`: action mark_success or
/// mark_failed, outcome applied; nullopt when none): "settled SUCCESS by alice at 12:01:05 UTC"
/// (the mark's status is the record's status now), "now SUCCESS (no operator mark recorded: an
/// agent or another tool changed it)", "record gone", or, for a record whose status did not
/// move (its time or expiry did), "still PROCESSING, changed at 12:01:05 UTC". Times are the
/// HH:MM:SS of canonical ISO UTC text. Pure.
QString leftRowReason(const std::optional<RecordDetail> &now, const std::optional<AuditEntry> &lastMark);

/// leftRowReason() for each of `keys` (at most a few hundred; one statement for the records
/// through the mapping, one for their audit rows, on the idempotency worker): key → reason.
/// A store failure is the Outcome's error (the caller keeps its generic text).
QFuture<Outcome<QHash<QString, QString>>> readLeftRowReasons(Workspace &workspace, const QStringList &keys);

} // namespace triage
