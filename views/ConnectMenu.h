#pragma once

#include "EnvironmentBand.h"

class QMainWindow;
class QWidget;

namespace triage {

/// The main window's menu area (QMainWindow::setMenuWidget()): `band` (the environment band,
/// which stays the top-most line of the window, DESIGN.md §5 "Environments"), then a menu bar
/// with File → Connect… (ConnectDialog, "Connection profiles"), File → Open recent profile
/// (ProfileStore::recent(), most recent first: each opens the dialog on that profile) and
/// File → Quit. The recent profiles are also on the start page (StartPage.h), shown when the
/// console starts with no store named.
QWidget *withFileMenu(QMainWindow *window, QWidget *band);

} // namespace triage
