#pragma once

#include "ConnectionProfile.h"
#include "ProfileStore.h"

#include <QDialog>
#include <QMap>
#include <QProcessEnvironment>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace triage {

/// File → Connect… (DESIGN.md §5 "Connection profiles"): the saved profiles (recent first),
/// fields to create and edit one (name, environment, operator; per store its URL, TLS mode,
/// CA file, statement timeout and an optional password), a "Test" button per store showing
/// probeStore()'s exact result, Save, Delete and Connect. Connect saves the profile and starts
/// `triage-console --profile NAME` as a new process; a password typed here goes to that child
/// only, through its environment ($TRIAGE_<ROLE>_DB_PASSWORD), never to disk or a log (the
/// dialog says so) — unless the operator ticks "remember in the system keychain", where one
/// runs (Keychain.h): Connect then stores each typed password there first. The rules (names, URLs, password sources, the probe) are the backends';
/// the dialog only shows and forwards them.
class ConnectDialog : public QDialog {
    Q_OBJECT
public:
    /// Starts the child console: program, arguments, environment. Returns false when it could
    /// not be started. Tests replace it (setLauncher()).
    using Launcher = std::function<bool(const QString &, const QStringList &, const QProcessEnvironment &)>;

    /// Profiles from `store` (ProfileStore() by default).
    explicit ConnectDialog(QWidget *parent = nullptr, ProfileStore store = ProfileStore());

    void setLauncher(Launcher launcher) { m_launcher = std::move(launcher); }
    /// Shows profile `name` (as a click in the list would); false when there is none.
    bool selectProfile(const QString &name);
    /// The status line's text (save errors, password questions, "Saved …").
    QString statusText() const;
    /// The Test result shown for `role` ("" before a Test).
    QString testResult(DbRole role) const;

    /// The store's widgets, by role, for tests and screenshots.
    QLineEdit *urlEdit(DbRole role) const { return m_stores[role].url; }
    QLineEdit *passwordEdit(DbRole role) const { return m_stores[role].password; }
    QPushButton *testButton(DbRole role) const { return m_stores[role].test; }
    QLineEdit *replicaEdit(DbRole role) const { return m_stores[role].replica; }
    QComboBox *tlsModeBox(DbRole role) const { return m_stores[role].tlsMode; }
    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *replicaMaxLagEdit() const { return m_replicaMaxLag; }
    QCheckBox *rememberBox() const { return m_remember; }
    QListWidget *profileList() const { return m_list; }

signals:
    /// A Test finished and its result is shown (tests wait for it).
    void testFinished(triage::DbRole role, bool ok);
    /// Connect started the child console with `arguments`.
    void launched(const QStringList &arguments);
    /// Connect wrote the typed passwords of these stores ("idempotency store", …) to the
    /// system keychain ("remember" checked), just before launching.
    void keychainStored(const QStringList &stores);

public slots:
    /// Saves the fields as a profile; false (status says why) when refused.
    bool save();
    /// Deletes the selected profile after a confirmation (`confirm` false: without one).
    void deleteProfile(bool confirm = true);
    /// Clears the fields for a new profile.
    void newProfile();
    /// Saves, checks the password sources, then starts the child console.
    void connectProfile();
    /// Tests `role`'s store with the fields as they are (saved or not); `replica` tests its
    /// read replica's URL instead (same checks, same password).
    void testStore(DbRole role, bool replica = false);

private:
    struct StoreFields {
        QLineEdit *url = nullptr;
        QComboBox *tlsMode = nullptr;
        QLineEdit *caFile = nullptr;
        QLineEdit *timeout = nullptr;
        QLineEdit *password = nullptr;
        QLineEdit *replica = nullptr;       ///< replica_url (DESIGN.md §9 "Read replicas")
        QPushButton *testReplica = nullptr;
        QPushButton *test = nullptr;
        QLabel *result = nullptr;
    };
    QWidget *buildStoreBox(DbRole role);
    void reloadList(const QString &select);
    void showProfile(const SavedProfile &p);
    SavedProfile fieldsAsProfile() const;
    void setStatus(const QString &text, bool error);
    void refreshPasswordHints();
    void launch(const SavedProfile &p);
    /// Writes each typed password to the system keychain, then launch(); a refusal stops with
    /// the keychain's reason in the status line (the next Connect goes on without it).
    void rememberThenLaunch(const SavedProfile &p, const QList<ConnectionProfile> &profiles);

    ProfileStore m_store;
    QListWidget *m_list = nullptr;
    QLineEdit *m_name = nullptr;
    QComboBox *m_environment = nullptr;
    QLineEdit *m_operator = nullptr;
    QLineEdit *m_replicaMaxLag = nullptr;
    QMap<DbRole, StoreFields> m_stores;
    QLabel *m_status = nullptr;
    QPushButton *m_delete = nullptr;
    QCheckBox *m_remember = nullptr;    ///< remember typed passwords in the keychain (on Connect)
    Launcher m_launcher;
    int m_hintSerial = 0;               ///< the latest refreshPasswordHints()
    bool m_askedForPasswords = false;   ///< Connect asked once; the second Connect goes ahead
};

} // namespace triage
