#pragma once

#include "EnvironmentBand.h"

class QMainWindow;
class QWidget;

namespace triage {

/// The main window's menu area (QMainWindow::setMenuWidget()): `band` (the environment band,
/// which stays the top-most line of the window, DESIGN.md §5 "Environments"), then a menu bar
/// with File → Connect… (ConnectDialog, "Connection profiles"), File → Open recent profile
/// (ProfileStore::recent(), most recent first: each opens the dialog on that profile) and
/// File → Quit. The console has no start page; this menu is where the recent profiles are.
QWidget *withFileMenu(QMainWindow *window, QWidget *band);

} // namespace triage
