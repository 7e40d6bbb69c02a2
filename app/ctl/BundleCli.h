#pragma once

#include "Command.h"

#include "Window.h"

#include <QCommandLineOption>
#include <QList>

#include <optional>

namespace triage::ctl {

/// The options of `incident export` (DESIGN.md §5, §7 "Bundles"): --out FILE, --no-redact,
/// --redact-field NAME (repeatable), --no-record, --lookback SECONDS.
QList<QCommandLineOption> bundleExportOptions();

/// `incident export`: exports `query`'s window (or incident `incidentId`'s) to --out, prints a
/// one-line summary (events, keys, sha256, redactions, file) and how the export was recorded.
/// Exit 2 naming each store that failed during the export (the file is still written, the
/// failed store named in it); the exit code of a failed recording otherwise (1 for a database
/// without the export table); 1 when the file cannot be written.
int runBundleExport(Workspace &workspace, const CommandContext &context, const WindowQuery &query,
                    std::optional<qint64> incidentId);

} // namespace triage::ctl
