#pragma once

#include "ProfileStore.h"

#include <QDialog>

class QListWidget;
class QPushButton;

namespace triage {

/// The console's start page (DESIGN.md §5 "Start page"): shown by `triage-console` started
/// with no store option (no --demo, --config, --profile or --*-db) while saved connection
/// profiles exist. It lists them — the recent ones first (ProfileStore::recent()), then the
/// others by name — each with its environment and its stores' servers, never a password;
/// **Open** (or a double-click) picks one, **Open the demo** the embedded demo workspace,
/// **Connect…** the File → Connect… dialog (new or edited profiles). Reads a few small INI
/// files on the GUI thread (ProfileStore: no database, no network).
class StartPage : public QDialog {
    Q_OBJECT
public:
    enum class Choice {
        None,    ///< closed: the console ends
        Profile, ///< open profile(): as `--profile NAME`
        Demo,    ///< open the demo workspace
        Connect, ///< show File → Connect…
    };

    /// Profiles from `store` (ProfileStore() by default).
    explicit StartPage(QWidget *parent = nullptr, ProfileStore store = ProfileStore());

    Choice choice() const { return m_choice; }
    /// The picked profile's name (Choice::Profile).
    QString profile() const { return m_profile; }
    /// The listed profiles' names, in the order shown.
    QStringList listed() const;
    /// The line shown for profile `name` ("shop-prod — production · db.example.internal:5432/orders, …").
    QString lineOf(const QString &name) const;
    /// Picks the listed profile `name` (as Open would); false when it is not listed.
    bool open(const QString &name);

    /// True when a start page has something to show: `store` holds at least one profile.
    static bool hasProfiles(const ProfileStore &store = ProfileStore());

private:
    void finish(Choice choice, const QString &profile = QString());

    ProfileStore m_store;
    QListWidget *m_list = nullptr;
    QPushButton *m_open = nullptr;
    Choice m_choice = Choice::None;
    QString m_profile;
};

} // namespace triage
