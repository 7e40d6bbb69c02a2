#pragma once

#include "Window.h"

#include <QStringList>

namespace triage {

/// Notes on the --status values of `query` that no selected stream knows as a status name
/// (DESIGN.md §7 "statuses"): one "status \"X\" is not a console status; compared as stored"
/// per such value, in the order given. Known are, per selected kind: the console status names
/// of the mapped records, intents and tickets (any case) and their stored spellings (exact),
/// the audit outcomes and the compensation statuses and classifications (exact). A value
/// that is none of these may still be a ticket's stored status (tickets keep theirs as they
/// are): the note says how it is compared, it is not an error. Pure.
QStringList windowStatusNotes(const WorkspaceConfig &config, const WindowQuery &query);

} // namespace triage
