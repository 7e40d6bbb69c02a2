#pragma once

#include "Window.h"

#include <QFuture>
#include <QString>
#include <QVector>

#include <optional>

namespace triage {

class Workspace;

/// Limits of an incident's text (DESIGN.md §7 "Incidents"; the columns' lengths).
constexpr int kIncidentTitleMaxChars = 200;
constexpr int kIncidentNoteMaxChars = 4000;
constexpr int kIncidentPinNoteMaxChars = 1000;

/// One console-owned incident (triage_incident, DESIGN.md §7): a window [from, to) (UTC) and
/// the window's filters (`query`: biz_type, tenant, key substring, stores, kinds, statuses as
/// WindowQuery holds them; lookbackS is not stored), open or closed.
struct Incident {
    qint64 id = 0;
    QString title;
    WindowQuery query;          ///< from, to and the filters
    bool open = true;           ///< status: open, or closed
    QString createdBy, createdAt;  ///< operator; server time, canonical ISO UTC
    QString closedBy, closedAt;    ///< "" while open (or after a reopen)
    qint64 version = 1;         ///< the compare-and-set version (bumped by close and reopen)
    int pins = 0, notes = 0;    ///< counts (listIncidents() and readIncident())
};

/// One pinned event (triage_incident_pin): its identity (kind, its store, the row's id as
/// text, its time when pinned) and what the window shows of it now (`event`, nullopt when the
/// row is gone: expired records, a deleted ticket).
struct IncidentPin {
    qint64 id = 0;
    EventKind kind = EventKind::RecordCreated;
    QString eventId;
    QString eventAt;            ///< canonical ISO UTC, as read when pinned
    QString note;               ///< "" when none
    QString pinnedBy, pinnedAt;
    std::optional<WindowEvent> event;
};

/// One note (triage_incident_note), optionally about one event (kind and id).
struct IncidentNote {
    qint64 id = 0;
    QString operatorName, at, text;
    std::optional<EventKind> eventKind;
    QString eventId;            ///< "" when the note is about the incident as a whole
};

/// An incident with its pins (by event time, then id) and notes (oldest first).
struct IncidentDetail {
    Incident incident;
    QVector<IncidentPin> pins;
    QVector<IncidentNote> notes;
};

/// What one change to an incident did. Applied: written with its audit row in one
/// transaction. Invalid: bad input, nothing written (triagectl exit 1). NotFound: no such
/// incident, or no such event to pin (exit 1). Conflict: the incident's state wins — closing
/// a closed one, reopening an open one, pinning or noting on a closed one, pinning an event
/// twice, unpinning one not pinned (exit 3; audited as `conflict` where the incident
/// exists). Refused: read-only mode (exit 4, nothing written).
struct IncidentChange {
    enum class Kind { Applied, Invalid, NotFound, Conflict, Refused };
    Kind kind = Kind::Applied;
    QString message;    ///< one line for operators
    qint64 incidentId = 0;
    qint64 rowId = 0;   ///< the new pin or note's id (pin, note), else 0
    qint64 auditId = 0; ///< the audit row written (0: none)
};

/// "applied", "invalid", "not-found", "conflict", "refused".
QString incidentChangeKindName(IncidentChange::Kind kind);

/// The filters of `query` as the JSON text stored in triage_incident.filters:
/// {"biz_type":"","tenant":"","key":"","task":"","stores":[…],"kinds":[…],"statuses":[…]}
/// (names as eventStoreName() / eventKindName() spell them), compact, keys in that order.
QString incidentFiltersJson(const WindowQuery &query);
/// Reads incidentFiltersJson()'s text into `query`'s filters (its from / to untouched).
/// False with `*error` set when the text is not such an object or names an unknown store or
/// kind ("unknown kind \"x\" in the incident's filters").
bool readIncidentFiltersJson(const QString &json, WindowQuery *query, QString *error);

/// The filters of `query` for people: "biz_type ticket_create; kinds intent.attempt,
/// ticket.created" (biz_type, tenant, key contains "…", task, stores, kinds, statuses), or "none".
QString incidentFiltersText(const WindowQuery &query);
/// A pinned event in one line as the window lists it ("UNKNOWN k:a create_ticket by
/// agent-1": status, key, detail, actor), or "(no longer in the ticket store)".
QString pinnedEventLine(const IncidentPin &pin);

/// Checks a new incident before anything is written; "" when valid, else the message:
/// "the title is empty", "the title is longer than 200 characters (201)", "the window's
/// start must be before its end". Stores and kinds are typed, so always known here (their
/// names are checked where they are parsed: eventStoreFromName(), eventKindFromName()).
QString checkIncidentDraft(const QString &title, const WindowQuery &query);
/// Checks a note's text; "" when valid, else "the note is empty" or "the note is longer than
/// 4000 characters (4001)" (`limit`: kIncidentNoteMaxChars, or kIncidentPinNoteMaxChars for
/// a pin's note: "the pin's note is …").
QString checkIncidentNote(const QString &text, int limit = kIncidentNoteMaxChars);

namespace incident_sql {
/// The incident tables exist in `session`'s (the idempotency) database, else a DbException
/// of kind Config: "the idempotency database has no incident tables (console schema version
/// 1; incidents need version 2): run `triagectl init-schema`" (DESIGN.md §10).
void requireIncidentTables(DbSession &session);
/// Open incidents (or all), newest first, with their pin and note counts; at most `limit`
/// (0 = all). Throws DbException.
QVector<Incident> list(DbSession &session, bool all, int limit);
/// One incident with its pins and notes (the pins' events not read: they live in other
/// stores); nullopt when there is none. Throws DbException.
std::optional<IncidentDetail> read(DbSession &session, qint64 id);
} // namespace incident_sql

/// The incident service (DESIGN.md §7 "Incidents"). Every function returns a future finished
/// on the workspace's workers and merge pool; GUI code continues it with whenReady(). Every
/// change is written with its triage_audit row (action incident.create, incident.pin,
/// incident.unpin, incident.note, incident.close, incident.reopen; idem_key
/// "incident:<id>") in one transaction on the idempotency database; a conflict is rolled
/// back and audited as `conflict`. A database failure is the Outcome's error (kind Refused
/// when its console schema is newer than this build's, Config when it has no incident
/// tables). In read-only mode every change is Refused and nothing is written. `operatorName`
/// empty: the workspace's operator, else the OS user.

/// Creates an open incident over `query`'s window and filters.
QFuture<Outcome<IncidentChange>> createIncident(Workspace &workspace, const QString &title, const WindowQuery &query,
                                                const QString &operatorName = QString());
/// Open incidents (or all), newest first, at most `limit` (0 = all).
QFuture<Outcome<QVector<Incident>>> listIncidents(Workspace &workspace, bool all, int limit = 0);
/// One incident with its pins — each pin's event read again from its own store — and notes;
/// nullopt when there is no incident `id`.
QFuture<Outcome<std::optional<IncidentDetail>>> readIncident(Workspace &workspace, qint64 id);
/// Why the incident `incidentId` with window and filters `query` refuses to pin `event`
/// (`passesFilters`: the event passes the biz_type, tenant, key and status filters, as
/// window_sql::readEvent() with them says), or "" when it may: "incident 1 covers no audit
/// events (its kinds: …): audit 3 not pinned", "intent.attempt 7 at <time> is outside
/// incident 1's window [<from>, <to>): not pinned", "… does not pass incident 1's filters
/// (<incidentFiltersText()>): not pinned". Pure (DESIGN.md §7 "Incidents").
QString pinOutsideIncident(qint64 incidentId, const WindowQuery &query, const WindowEvent &event, bool passesFilters);
/// Pins the event of `kind` with row id `eventId` (read from its store first: an id with no
/// such row is NotFound, "no intent.attempt event with id 99"), with an optional note. An
/// event outside the incident's window, kinds or filters is refused (Invalid, nothing
/// written: pinOutsideIncident()); widen the incident (a new one) to pin it.
QFuture<Outcome<IncidentChange>> pinEvent(Workspace &workspace, qint64 incidentId, EventKind kind, const QString &eventId,
                                          const QString &note = QString(), const QString &operatorName = QString());
/// Removes a pin (Conflict when that event is not pinned).
QFuture<Outcome<IncidentChange>> unpinEvent(Workspace &workspace, qint64 incidentId, EventKind kind, const QString &eventId,
                                            const QString &operatorName = QString());
/// Adds a note, optionally about one event (`eventKind` and `eventId`, not checked against
/// the stores: a note may name an event that is gone).
QFuture<Outcome<IncidentChange>> addIncidentNote(Workspace &workspace, qint64 incidentId, const QString &text,
                                                 std::optional<EventKind> eventKind = std::nullopt,
                                                 const QString &eventId = QString(), const QString &operatorName = QString());
/// Closes an open incident by compare-and-set on its status (Conflict when it is closed:
/// "incident 3 is already closed (by alice at 2026-…Z)").
QFuture<Outcome<IncidentChange>> closeIncident(Workspace &workspace, qint64 incidentId, const QString &operatorName = QString());
/// Reopens a closed incident (Conflict when it is open).
QFuture<Outcome<IncidentChange>> reopenIncident(Workspace &workspace, qint64 incidentId, const QString &operatorName = QString());

} // namespace triage
