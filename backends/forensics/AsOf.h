#pragma once

#include "KeyDetailTypes.h"
#include "TimeText.h"

#include <QString>
#include <QVector>

#include <optional>

namespace triage {

/// How a row's state at T is known (DESIGN.md §7 "As of T"). Only Written, Unchanged and
/// SeenByMark establish a state; the others say why none is given.
enum class AsOfBasis {
    Written,     ///< an append-only row (audit, a confirmation query) written at or before T: as it is now
    Unchanged,   ///< the row was last written at or before T, so its current state held at T
    SeenByMark,  ///< an applied mark after T found the record unchanged since a time at or before T (its from-state)
    NotRecorded, ///< the row existed at T but was written again after T: the store keeps no earlier state
    NotYet,      ///< the row did not exist yet (created after T)
    Unreadable,  ///< a time of the row is not a time the console can read: not placed
};

/// "written", "unchanged", "seen_by_mark", "not_recorded", "not_yet", "unreadable".
QString asOfBasisName(AsOfBasis basis);

/// One row as of T: what it was then as far as its store's history says, never more.
struct AsOfItem {
    QString ref;                       ///< "record 12", "attempt 3", "ticket 1001", "audit 7", "compensation 2", "compensation attempt 5"
    QString createdAt;                 ///< when the row was created (ISO UTC as stored; an audit row's time)
    /// From when `stateAtT` is known to hold (ISO UTC): the row's last write (Unchanged), the
    /// mark's from-state updated_at (SeenByMark), the row's time (Written); null when no state
    /// at T is established.
    QString since;
    AsOfBasis basis = AsOfBasis::NotRecorded;
    /// The status (or outcome) it had at T; set only when established (holding a null QString
    /// when that status is SQL NULL: JSON null, "NULL" in `text`).
    std::optional<QString> stateAtT;
    QString stateNow;                  ///< the status it has now, for contrast (null when none or SQL NULL)
    QString text;                      ///< one line for people, saying how it is known
};

/// The five parts of the as-of view, in display order.
enum class AsOfPart { Record, IntentLog, Tickets, OperatorActions, Compensations };

/// "record", "intent_log", "tickets", "operator_actions", "compensations".
QString asOfPartName(AsOfPart part);
/// "Record", "Intent log", "Tickets", "Operator actions", "Compensations".
QString asOfPartTitle(AsOfPart part);

/// One store's part as of T.
struct AsOfSection {
    AsOfPart part = AsOfPart::Record;
    QString summary;         ///< "2 of 3 at T (1 created after T)", "none", "unknown (… failed: …)"
    QVector<AsOfItem> items; ///< the rows existing at T (NotYet only for the record), in time order
    int later = 0;           ///< rows created after T, not shown
    bool unknown = false;    ///< the store failed in this read: nothing is said about it
};

/// What every store held for one key at T (DESIGN.md §7 "As of T").
struct KeyStateAsOf {
    QString idemKey;
    UtcMicros at = 0;
    QString atText;                 ///< formatUtcMicros(at)
    QVector<AsOfSection> sections;  ///< always five, in AsOfPart order
};

/// What `detail`'s stores held at `t` (µs UTC; inclusive: a row written exactly at t counts as
/// written by then) as far as their history allows, never inventing a state (DESIGN.md §7
/// "As of T" has the rule table):
/// - record: NotYet when created after t; Unchanged (its current status) when updated_at <= t;
///   else SeenByMark when an applied mark after t found it unchanged since a time <= t (that
///   mark's from-state); else NotRecorded ("not recorded before <updated_at>", with the latest
///   applied mark at or before t named as the last recorded change, never taken as the state).
/// - intent log: attempts created <= t; each one's status only when its updated_at (the result
///   time) is <= t.
/// - tickets: tickets created <= t; the status only when updated_at <= t (a table without
///   updated_at keeps no such time: not recorded).
/// - operator actions: audit rows at <= t, as written (append-only).
/// - compensations: created <= t, the status only when updated_at <= t; their attempts at <= t,
///   a confirmation query as written, a call's reply only when the compensation was last
///   written <= t (the runner records the reply before it writes the compensation's status).
/// A store in detail.errors gives an `unknown` section. Pure: no I/O, no clock.
KeyStateAsOf keyStateAsOf(const KeyDetail &detail, UtcMicros t);

/// The plain-text form of `state` (the CLI's table and the console's panel): a heading line
/// "As of <T> (UTC, inclusive)", then per part a title line "<Title>: <summary>" and one
/// indented line per item.
QStringList asOfTextLines(const KeyStateAsOf &state);

} // namespace triage
