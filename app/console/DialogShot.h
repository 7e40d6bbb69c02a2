#pragma once

#include <QString>

#include <optional>

class QCommandLineParser;

namespace triage {

/// `triage-console --screenshot-dialog connect --screenshot FILE.png [--select PROFILE]
/// [--screenshot-action test]`: renders the File → Connect… dialog (ConnectDialog) on its own,
/// no workspace needed, with PROFILE shown (default: the first in its list), after the password
/// hints are in and, with action "test", after every store with a URL was tested; saves
/// QWidget::grab() as `path`. Returns the exit code: 0 saved, 1 a bad dialog name or the image
/// could not be written (the message on stderr), 2 timed out after 60 s.
int shootDialog(const QString &which, const QString &path, const QString &profile, const QString &action);

/// The start page (DESIGN.md §5 "Start page") when `triage-console` names no store (no --demo,
/// --demo-reset, --config, --profile or --*-db), takes no screenshot, opens no link and saved
/// profiles exist: shows StartPage until a choice. A profile re-parses `parser` with
/// `--profile NAME` added (the start then goes on exactly as with that option) and the demo
/// goes on as today; both return nullopt. Quit returns 0; Connect… shows File → Connect… and
/// returns 0 once it started a console for a profile (else the start page again).
std::optional<int> runStartPage(QCommandLineParser &parser);

} // namespace triage
