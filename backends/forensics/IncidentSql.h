#pragma once
// Inside backends/forensics only: the incident writers (IncidentSql.cpp), run on the
// idempotency database's worker by the service (Incident.cpp). Each checks the console schema
// (requireKnownConsoleSchema(), requireIncidentTables()), then writes its change and its
// triage_audit row in one transaction; a conflict is rolled back and audited as `conflict`.
// Input is checked by the service before (checkIncidentDraft(), checkIncidentNote()).
// Throw DbException.

#include "Incident.h"

namespace triage::incident_sql {

/// A new open incident over `query`'s window and filters (version 1).
IncidentChange create(DbSession &s, const QString &title, const WindowQuery &query, const QString &operatorName);
/// Pins `event` (as read from its store) to the open incident `id`.
IncidentChange pin(DbSession &s, qint64 id, const WindowEvent &event, const QString &note, const QString &operatorName);
/// Removes the pin of (`kind`, `eventId`) from the open incident `id`.
IncidentChange unpin(DbSession &s, qint64 id, EventKind kind, const QString &eventId, const QString &operatorName);
/// Adds a note to the open incident `id`, about one event when `kind` is set.
IncidentChange note(DbSession &s, qint64 id, const QString &text, std::optional<EventKind> kind, const QString &eventId,
                    const QString &operatorName);
/// Closes (`open` false) or reopens incident `id` by compare-and-set on its status.
IncidentChange setOpen(DbSession &s, qint64 id, bool open, const QString &operatorName);

} // namespace triage::incident_sql
