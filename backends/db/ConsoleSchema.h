#pragma once

#include "DbSession.h"

namespace triage {

/// The console schema version this build knows (DESIGN.md §10 "Schema version"): the
/// console-owned tables (triage_*) as resources/schema/ creates them. Raised by the release
/// that changes them; init-schema records it in triage_meta (key schema_version).
/// 1: triage_audit, triage_compensation, triage_compensation_attempt, triage_meta.
/// 2: + triage_incident, triage_incident_pin, triage_incident_note (DESIGN.md §7 "Incidents").
/// 3: + triage_incident_export (recorded bundle exports, DESIGN.md §7 "Bundles").
/// 4: + triage_escalation, triage_claim, triage_reconcile_run (DESIGN.md §8).
/// 5: + triage_review_breach, triage_review_signoff, triage_review_daily, triage_review_note
///    (the daily review, DESIGN.md §8 "The daily review").
/// 6: + triage_policy (the safety policy and the global freeze, DESIGN.md §8 "Safety policy").
/// 7: + triage_proposal (four-eyes proposals, DESIGN.md §9 "Four-eyes").
constexpr int kConsoleSchemaVersion = 7;

/// The key of the schema version row of triage_meta.
inline QString consoleSchemaVersionKey()
{
    return QStringLiteral("schema_version");
}

/// The console schema version recorded in `session`'s database (triage_meta, key
/// schema_version): 0 when the database has no triage_meta or no such row (a database an
/// older init-schema created: allowed), -1 when the stored value is not a decimal integer.
/// Reads the database every time (no memo). Throws DbException.
int storedConsoleSchemaVersion(DbSession &session);

/// Refuses to write to `session`'s database when it has a console schema version newer than
/// kConsoleSchemaVersion, or one that cannot be read: throws DbException of kind Refused
/// (triagectl exit 4) with "the <store> has console schema version 3; this build knows
/// version 1: upgrade the console before writing". Reading is never refused. Checked once per
/// connection (DbSession::memo; a re-opened connection checks again). Called by every write
/// of the console before it changes anything: audit_sql::insert() (every operator action is
/// audited in the idempotency database), the compensation_sql writers (intent-log database),
/// mark_sql::apply() and init-schema (DESIGN.md §10).
///
/// Then, every time (not memoised), refuses while the global freeze is on: requireNotFrozen()
/// (PolicySql.h) throws kind Refused with "Frozen by <who> at <when> UTC: <why> — every write
/// is refused" (DESIGN.md §8 "Safety policy"). Called inside the writing transaction (the
/// audit row's insert) the freeze row is read with a shared lock, so no write commits after a
/// freeze it did not see. policy unfreeze alone writes through a freeze
/// (requireKnownConsoleSchemaOnly()).
void requireKnownConsoleSchema(DbSession &session);

/// The version check of requireKnownConsoleSchema() without the freeze check: for the policy
/// writers (policy freeze / unfreeze must work while frozen). Throws DbException.
void requireKnownConsoleSchemaOnly(DbSession &session);

/// The refusal requireKnownConsoleSchema() throws for a database at version `stored` (-1:
/// unreadable) on `role`'s store.
DbError consoleSchemaRefusal(DbRole role, int stored);

} // namespace triage
