#pragma once

#include "Environment.h"

#include <QDialog>
#include <QFrame>
#include <QPointer>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace triage {

class Workspace;
struct WorkspaceConfig;

/// The style sheet of the environment's colour (band and confirmation stamps): production
/// strong red with white text, staging amber with dark text, development a discreet green;
/// "" for None.
QString environmentStyleSheet(Environment env);

/// The main window's title: "Triage Console — PRODUCTION — shop-prod" when the workspace
/// has an environment, else "Triage Console — `where`".
QString consoleWindowTitle(const WorkspaceConfig &config, const QString &where);

/// The one helper every confirmation before a write calls (DESIGN.md §5 "Environments"):
/// puts the environment and profile ("PRODUCTION — shop-prod") in `dialog`'s title, and
/// in its body — a coloured line above a QMessageBox's or QInputDialog's text, a coloured
/// label (object name "environmentStamp") at the top of another dialog's box layout.
/// Does nothing without an environment. Call once the dialog's layout is built.
void stampEnvironmentOn(QDialog *dialog, const WorkspaceConfig &config);

/// stampEnvironmentOn() for call sites that build the dialog in the same expression.
template<class D>
D *stampEnvironment(D *dialog, const WorkspaceConfig &config)
{
    stampEnvironmentOn(dialog, config);
    return dialog;
}

/// QInputDialog::getText() / getMultiLineText() with the environment stamped on it
/// (stampEnvironmentOn()): the text entered, or nullopt when cancelled. Modal, as those are.
std::optional<QString> askStampedText(QWidget *parent, const WorkspaceConfig &config, const QString &title, const QString &label,
                                      bool multiLine = false);

/// Asks for the profile's name to switch a production workspace's writes on: the text to
/// type, a line edit (object name "profileNameEdit"), "Switch writes on" and Cancel. The
/// decision is Workspace::unlockWrites()'s; a wrong name keeps the dialog open with
/// "That is not the profile's name: writes stay off." (object name "unlockError").
class UnlockWritesDialog : public QDialog {
    Q_OBJECT
public:
    UnlockWritesDialog(Workspace *workspace, QWidget *parent = nullptr);
    /// The line edit the name is typed into.
    QLineEdit *nameEdit() const { return m_name; }
    /// The "Switch writes on" button.
    QPushButton *unlockButton() const { return m_unlock; }
    /// The error line (hidden until a wrong name).
    QLabel *errorLabel() const { return m_error; }
    /// Emitted once writes are on (the dialog then accepts).
    Q_SIGNAL void writesSwitchedOn();

private:
    void tryUnlock();
    Workspace *m_workspace;
    QLineEdit *m_name = nullptr;
    QPushButton *m_unlock = nullptr;
    QLabel *m_error = nullptr;
};

/// The coloured band at the top of the main window (hidden without an environment): the
/// environment and profile ("PRODUCTION — shop-prod", object name "environmentLabel"), the
/// write state ("read-only: switch writes on to change anything", "writes on", "read-only
/// (--read-only or read_only = true)"; object name "writeStateLabel"), and, while production keeps writes off
/// (WorkspaceConfig::writesLocked), "Switch writes on…" (object name "unlockWritesButton"),
/// which opens an UnlockWritesDialog.
class EnvironmentBand : public QFrame {
    Q_OBJECT
public:
    EnvironmentBand(Workspace *workspace, QWidget *parent = nullptr);
    QLabel *environmentLabel() const { return m_label; }
    QLabel *writeStateLabel() const { return m_state; }
    QPushButton *unlockButton() const { return m_unlock; }
    /// Opens the unlock dialog (window-modal, returns at once); the open one if any.
    UnlockWritesDialog *openUnlockDialog();
    /// Emitted once writes were switched on from the band.
    Q_SIGNAL void writesSwitchedOn();

private:
    void updateState();
    Workspace *m_workspace;
    QLabel *m_label = nullptr;
    QLabel *m_state = nullptr;
    QPushButton *m_unlock = nullptr;
    QPointer<UnlockWritesDialog> m_dialog;
};

} // namespace triage
