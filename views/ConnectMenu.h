#pragma once

#include "EnvironmentBand.h"

class QMainWindow;
class QWidget;

namespace triage {

/// The main window's menu area (QMainWindow::setMenuWidget()): `band` (the environment band,
/// which stays the top-most line of the window, DESIGN.md §5 "Environments"), then a menu bar
/// with File → Connect… (ConnectDialog, "Connection profiles") and File → Quit.
QWidget *withFileMenu(QMainWindow *window, QWidget *band);

} // namespace triage
