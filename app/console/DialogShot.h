#pragma once

#include <QString>

namespace triage {

/// `triage-console --screenshot-dialog connect --screenshot FILE.png [--select PROFILE]
/// [--screenshot-action test]`: renders the File → Connect… dialog (ConnectDialog) on its own,
/// no workspace needed, with PROFILE shown (default: the first in its list), after the password
/// hints are in and, with action "test", after every store with a URL was tested; saves
/// QWidget::grab() as `path`. Returns the exit code: 0 saved, 1 a bad dialog name or the image
/// could not be written (the message on stderr), 2 timed out after 60 s.
int shootDialog(const QString &which, const QString &path, const QString &profile, const QString &action);

} // namespace triage
