#pragma once

#include <QString>

class QCommandLineParser;

namespace triage {

/// `triage-console --open-bundle FILE` (DESIGN.md §7 "Offline viewer"): reads FILE with
/// readBundleJson() and shows it in a BundleWindow, read-only, without a database. A workspace
/// is built only when workspace options are given (--config, --demo, --*-db): then the hash is
/// also looked up among the recorded exports. With `screenshotPath`, waits for the first page,
/// the hash check (and, with `selectRow` >= 0, that event row's "As of T" panel), saves the
/// window as PNG and returns. Returns the exit code: 0; 1 for a file that cannot be read or is
/// not a bundle (the reason on stderr: "triage-console: <file>: <why>"), a bad option or an
/// image that cannot be written; 2 for a workspace that cannot be opened or a timeout.
int runBundleViewer(const QCommandLineParser &parser, const QString &file, const QString &screenshotPath, int selectRow);

} // namespace triage
