#include "ConnectDialog.h"

#include "ConnectMenu.h"
#include "Keychain.h"
#include "WhenReady.h"
#include "StoreProbe.h"
#include "Theme.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QVBoxLayout>

namespace triage {

namespace {

const DbRole kRoles[] = {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};

bool startDetached(const QString &program, const QStringList &arguments, const QProcessEnvironment &env)
{
    QProcess process;
    process.setProgram(program);
    process.setArguments(arguments);
    process.setProcessEnvironment(env);
    return process.startDetached();
}

QString capitalized(const QString &s)
{
    return s.isEmpty() ? s : s.left(1).toUpper() + s.mid(1);
}

} // namespace

QWidget *withFileMenu(QMainWindow *window, QWidget *band)
{
    auto *area = new QWidget(window);
    auto *layout = new QVBoxLayout(area);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    band->setParent(area);
    layout->addWidget(band);
    auto *bar = new QMenuBar(area);
    bar->setObjectName(QStringLiteral("mainMenuBar"));
    QMenu *file = bar->addMenu(QObject::tr("&File"));
    QAction *connect = file->addAction(QObject::tr("&Connect…"));
    connect->setObjectName(QStringLiteral("connectAction"));
    connect->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+O")));
    auto openDialog = [window](const QString &profile) {
        auto *dialog = new ConnectDialog(window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        if (!profile.isEmpty())
            dialog->selectProfile(profile);
        dialog->open();
    };
    QObject::connect(connect, &QAction::triggered, window, [openDialog] { openDialog(QString()); });
    // The recent profiles (ProfileStore::recent()), read each time the menu opens: each opens
    // the dialog on that profile, where Connect asks for what a password source lacks.
    QMenu *recent = file->addMenu(QObject::tr("Open &recent profile"));
    recent->setObjectName(QStringLiteral("recentProfilesMenu"));
    QObject::connect(recent, &QMenu::aboutToShow, recent, [recent, openDialog] {
        recent->clear();
        const QStringList names = ProfileStore().recent();
        if (names.isEmpty())
            recent->addAction(QObject::tr("(none yet)"))->setEnabled(false);
        for (const QString &name : names)
            QObject::connect(recent->addAction(name), &QAction::triggered, recent, [openDialog, name] { openDialog(name); });
    });
    file->addSeparator();
    QAction *quit = file->addAction(QObject::tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    QObject::connect(quit, &QAction::triggered, window, &QWidget::close);
    layout->addWidget(bar);
    return area;
}

ConnectDialog::ConnectDialog(QWidget *parent, ProfileStore store)
    : QDialog(parent), m_store(std::move(store)), m_launcher(startDetached)
{
    setObjectName(QStringLiteral("connectDialog"));
    setWindowTitle(tr("Connect — connection profiles"));
    auto *outer = new QHBoxLayout(this);

    auto *left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("<b>Profiles</b> (recent first)"), this));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("profileList"));
    m_list->setMinimumWidth(190);
    left->addWidget(m_list, 1);
    auto *listButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("New"), this);
    m_delete = new QPushButton(tr("Delete…"), this);
    listButtons->addWidget(add);
    listButtons->addWidget(m_delete);
    left->addLayout(listButtons);
    auto *dir = new QLabel(tr("Stored as INI files in\n%1").arg(m_store.dir()), this);
    dir->setWordWrap(true);
    dir->setTextInteractionFlags(Qt::TextSelectableByMouse);
    dir->setStyleSheet(QStringLiteral("color: %1").arg(theme::mutedText().name()));
    left->addWidget(dir);
    outer->addLayout(left);

    auto *right = new QVBoxLayout;
    auto *form = new QFormLayout;
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("profileName"));
    m_name->setPlaceholderText(tr("e.g. shop-prod (letters, digits, . _ -)"));
    m_environment = new QComboBox(this);
    m_environment->addItem(tr("(none)"), QString());
    for (Environment e : {Environment::Production, Environment::Staging, Environment::Development})
        m_environment->addItem(environmentName(e), environmentName(e));
    m_operator = new QLineEdit(this);
    m_operator->setPlaceholderText(tr("default: the OS user"));
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Environment:"), m_environment);
    form->addRow(tr("Operator:"), m_operator);
    m_replicaMaxLag = new QLineEdit(this);
    m_replicaMaxLag->setObjectName(QStringLiteral("replicaMaxLag"));
    m_replicaMaxLag->setPlaceholderText(tr("default: 5 (seconds; above it, or when unknown, reads go to the primary)"));
    form->addRow(tr("Max replica lag (s):"), m_replicaMaxLag);
    right->addLayout(form);
    for (DbRole role : kRoles)
        right->addWidget(buildStoreBox(role));
    auto *note = new QLabel(tr("Passwords typed here are <b>kept in memory only</b>: passed to the new console through its "
                               "environment, never written to disk or to a log — unless the box below is ticked: then the "
                               "system keychain keeps them, encrypted by it. Leave a password empty when "
                               "$TRIAGE_&lt;STORE&gt;_DB_PASSWORD, $TRIAGE_DB_PASSWORD, the system keychain or a password file supplies it."),
                            this);
    note->setObjectName(QStringLiteral("memoryOnlyNote"));
    note->setWordWrap(true);
    right->addStretch(1);
    right->addWidget(note);
    // The keychain only where one can run; else the box says why (the passwords stay in memory).
    m_remember = new QCheckBox(tr("On Connect, also remember the typed passwords in the system keychain"), this);
    m_remember->setObjectName(QStringLiteral("rememberInKeychain"));
    if (const QString why = keychainUnavailableReason(); !why.isEmpty()) {
        m_remember->setEnabled(false);
        m_remember->setText(tr("No system keychain here (%1): typed passwords are kept in memory only").arg(why));
    }
    right->addWidget(m_remember);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("connectStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    right->addWidget(m_status);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *saveButton = new QPushButton(tr("Save"), this);
    auto *connectButton = new QPushButton(tr("Connect"), this);
    connectButton->setDefault(true);
    auto *close = new QPushButton(tr("Close"), this);
    buttons->addWidget(saveButton);
    buttons->addWidget(connectButton);
    buttons->addWidget(close);
    right->addLayout(buttons);
    outer->addLayout(right, 1);

    connect(add, &QPushButton::clicked, this, &ConnectDialog::newProfile);
    connect(m_delete, &QPushButton::clicked, this, [this] { deleteProfile(true); });
    connect(saveButton, &QPushButton::clicked, this, [this] { save(); });
    connect(connectButton, &QPushButton::clicked, this, &ConnectDialog::connectProfile);
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentTextChanged, this, [this](const QString &name) {
        if (!name.isEmpty())
            selectProfile(name);
    });
    reloadList(QString());
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
    else
        newProfile();
    resize(1000, 860);
}

QWidget *ConnectDialog::buildStoreBox(DbRole role)
{
    auto *box = new QGroupBox(capitalized(roleTitle(role)), this);
    auto *grid = new QGridLayout(box);
    StoreFields f;
    f.url = new QLineEdit(box);
    f.url->setObjectName(QStringLiteral("%1Url").arg(roleName(role)));
    f.url->setPlaceholderText(QStringLiteral("postgresql://user@host:5432/db, mysql://user@host:3306/db or sqlite:///path.db"));
    f.tlsMode = new QComboBox(box);
    // The first item leaves sslmode out of the URL (libpq's default, prefer); the item's data is the URL's value.
    f.tlsMode->addItem(tr("sslmode not set (libpq default: prefer)"), QString());
    for (const char *mode : {"disable", "prefer", "require", "verify-ca", "verify-full"})
        f.tlsMode->addItem(QString::fromLatin1(mode), QString::fromLatin1(mode));
    f.tlsMode->setToolTip(tr("PostgreSQL sslmode (MySQL/MariaDB: give a CA file to use TLS)"));
    f.tlsMode->setEnabled(false); // until the URL is a postgresql:// one
    connect(f.url, &QLineEdit::editingFinished, this, &ConnectDialog::refreshPasswordHints);
    f.caFile = new QLineEdit(box);
    f.caFile->setPlaceholderText(tr("CA certificate file"));
    f.timeout = new QLineEdit(box);
    f.timeout->setPlaceholderText(tr("e.g. 30s"));
    f.timeout->setMaximumWidth(110);
    f.password = new QLineEdit(box);
    f.password->setObjectName(QStringLiteral("%1Password").arg(roleName(role)));
    f.password->setEchoMode(QLineEdit::Password);
    f.password->setPlaceholderText(tr("only if nothing else supplies it"));
    f.replica = new QLineEdit(box);
    f.replica->setObjectName(QStringLiteral("%1ReplicaUrl").arg(roleName(role)));
    f.replica->setPlaceholderText(tr("optional: a read replica's URL (lists and details read there while its lag allows)"));
    f.testReplica = new QPushButton(tr("Test replica"), box);
    f.testReplica->setObjectName(QStringLiteral("%1TestReplica").arg(roleName(role)));
    f.test = new QPushButton(tr("Test"), box);
    f.test->setObjectName(QStringLiteral("%1Test").arg(roleName(role)));
    f.result = new QLabel(box);
    f.result->setObjectName(QStringLiteral("%1Result").arg(roleName(role)));
    f.result->setWordWrap(true);
    f.result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(new QLabel(tr("URL:"), box), 0, 0);
    grid->addWidget(f.url, 0, 1, 1, 5);
    grid->addWidget(new QLabel(tr("TLS mode:"), box), 1, 0);
    grid->addWidget(f.tlsMode, 1, 1);
    grid->addWidget(new QLabel(tr("CA file:"), box), 1, 2);
    grid->addWidget(f.caFile, 1, 3);
    grid->addWidget(new QLabel(tr("Statement timeout:"), box), 1, 4);
    grid->addWidget(f.timeout, 1, 5);
    grid->addWidget(new QLabel(tr("Password:"), box), 2, 0);
    grid->addWidget(f.password, 2, 1, 1, 3);
    grid->addWidget(f.test, 2, 5);
    grid->addWidget(new QLabel(tr("Read replica:"), box), 3, 0);
    grid->addWidget(f.replica, 3, 1, 1, 4);
    grid->addWidget(f.testReplica, 3, 5);
    grid->addWidget(f.result, 4, 0, 1, 6);
    grid->setColumnStretch(3, 1);
    connect(f.test, &QPushButton::clicked, this, [this, role] { testStore(role); });
    connect(f.testReplica, &QPushButton::clicked, this, [this, role] { testStore(role, true); });
    connect(f.url, &QLineEdit::textChanged, f.tlsMode, [combo = f.tlsMode](const QString &url) {
        combo->setEnabled(storeUrlTakesTlsMode(url));
    });
    m_stores.insert(role, f);
    return box;
}

void ConnectDialog::reloadList(const QString &select)
{
    const QSignalBlocker block(m_list);
    m_list->clear();
    QStringList names = m_store.recent();
    for (const QString &n : m_store.names())
        if (!names.contains(n))
            names << n;
    m_list->addItems(names);
    const auto found = m_list->findItems(select, Qt::MatchExactly);
    if (!found.isEmpty())
        m_list->setCurrentItem(found.first());
    m_delete->setEnabled(m_list->count() > 0);
}

bool ConnectDialog::selectProfile(const QString &name)
{
    QString error;
    const auto p = m_store.load(name, &error);
    if (!p) {
        setStatus(error, true);
        return false;
    }
    const auto found = m_list->findItems(name, Qt::MatchExactly);
    if (!found.isEmpty() && m_list->currentItem() != found.first()) {
        const QSignalBlocker block(m_list);
        m_list->setCurrentItem(found.first());
    }
    showProfile(*p);
    setStatus(QString(), false);
    return true;
}

void ConnectDialog::showProfile(const SavedProfile &p)
{
    m_name->setText(p.name);
    m_environment->setCurrentIndex(qMax(0, m_environment->findData(environmentName(p.environment))));
    m_operator->setText(p.operatorName);
    m_replicaMaxLag->setText(p.replicaMaxLag);
    for (DbRole role : kRoles) {
        const StoreUrlFields f = splitStoreUrl(p.urls.value(role));
        StoreFields &w = m_stores[role];
        w.url->setText(f.url);
        int tls = w.tlsMode->findData(f.tlsMode);
        if (tls < 0) { // a mode this list does not offer ("allow"): kept as written
            w.tlsMode->addItem(f.tlsMode, f.tlsMode);
            tls = w.tlsMode->count() - 1;
        }
        w.tlsMode->setCurrentIndex(tls);
        w.caFile->setText(f.caFile);
        w.timeout->setText(f.statementTimeout);
        w.replica->setText(p.replicaUrls.value(role));
        w.password->clear();
        w.result->clear();
    }
    m_askedForPasswords = false;
    refreshPasswordHints();
}

SavedProfile ConnectDialog::fieldsAsProfile() const
{
    SavedProfile p;
    p.name = m_name->text().trimmed();
    p.environment = environmentFromName(m_environment->currentData().toString()).value_or(Environment::None);
    p.operatorName = m_operator->text().trimmed();
    p.replicaMaxLag = m_replicaMaxLag->text().trimmed();
    for (DbRole role : kRoles) {
        const StoreFields &w = m_stores[role];
        const QString url = joinStoreUrl({w.url->text(), w.tlsMode->currentData().toString(), w.caFile->text(), w.timeout->text()});
        if (!url.isEmpty())
            p.urls.insert(role, url);
        if (!w.replica->text().trimmed().isEmpty())
            p.replicaUrls.insert(role, w.replica->text().trimmed());
    }
    return p;
}

void ConnectDialog::setStatus(const QString &text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: %1").arg(theme::toneColors(Tone::Danger).foreground.name()) : QString());
}

QString ConnectDialog::statusText() const
{
    return m_status->text();
}

QString ConnectDialog::testResult(DbRole role) const
{
    return m_stores[role].result->text();
}

bool ConnectDialog::save()
{
    const SavedProfile p = fieldsAsProfile();
    QString error;
    if (!m_store.save(p, &error)) {
        setStatus(tr("Not saved: %1").arg(error), true);
        return false;
    }
    reloadList(p.name);
    setStatus(tr("Saved %1").arg(m_store.path(p.name)), false);
    return true;
}

void ConnectDialog::deleteProfile(bool confirm)
{
    const QString name = m_list->currentItem() ? m_list->currentItem()->text() : QString();
    if (name.isEmpty())
        return;
    if (confirm
        && QMessageBox::question(this, tr("Delete profile"), tr("Delete the profile \"%1\"? Its file is removed.").arg(name))
            != QMessageBox::Yes)
        return;
    QString error;
    if (!m_store.remove(name, &error)) {
        setStatus(error, true);
        return;
    }
    reloadList(QString());
    newProfile();
    setStatus(tr("Deleted %1").arg(name), false);
}

void ConnectDialog::newProfile()
{
    {
        const QSignalBlocker block(m_list);
        m_list->setCurrentRow(-1);
    }
    showProfile(SavedProfile());
    m_name->setFocus();
}

void ConnectDialog::testStore(DbRole role, bool replica)
{
    StoreFields &w = m_stores[role];
    const QString url = replica ? w.replica->text().trimmed()
                                : joinStoreUrl({w.url->text(), w.tlsMode->currentData().toString(), w.caFile->text(), w.timeout->text()});
    QString error;
    const auto profile = ConnectionProfile::fromUrl(url, role, &error);
    if (!profile) {
        w.result->setText(url.isEmpty() ? (replica ? tr("no replica URL given") : tr("no URL given")) : error);
        w.result->setStyleSheet(QStringLiteral("color: %1").arg(theme::toneColors(Tone::Danger).foreground.name()));
        emit testFinished(role, false);
        return;
    }
    w.test->setEnabled(false);
    w.testReplica->setEnabled(false);
    w.result->setText(replica ? tr("Testing the replica…") : tr("Testing…"));
    w.result->setStyleSheet(QString());
    auto *watcher = new QFutureWatcher<StoreProbeResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, role, replica] {
        watcher->deleteLater();
        const StoreProbeResult r = watcher->result();
        StoreFields &f = m_stores[role];
        f.test->setEnabled(true);
        f.testReplica->setEnabled(true);
        f.result->setText((r.ok ? QStringLiteral("✔ ") : QStringLiteral("✘ ")) + (replica ? tr("replica: ") : QString()) + r.message);
        f.result->setStyleSheet(QStringLiteral("color: %1").arg(theme::toneColors(r.ok ? Tone::Ok : Tone::Danger).foreground.name()));
        emit testFinished(role, r.ok);
    });
    const SchemaMap mapping = profileMapping(m_store, m_name->text().trimmed());
    watcher->setFuture(replica ? probeReplica(*profile, mapping, w.password->text()) : probeStore(*profile, mapping, w.password->text()));
}

void ConnectDialog::refreshPasswordHints()
{
    QList<ConnectionProfile> profiles;
    QList<DbRole> roles;
    for (DbRole role : kRoles) {
        QString error;
        const auto p = ConnectionProfile::fromUrl(fieldsAsProfile().urls.value(role), role, &error);
        if (p) {
            profiles << *p;
            roles << role;
        }
    }
    const int serial = ++m_hintSerial; // a profile shown since then makes this answer stale
    for (DbRole role : kRoles) { // until the answer is in (a store without a URL stays so)
        m_stores[role].password->setEnabled(true);
        m_stores[role].password->setPlaceholderText(tr("only if nothing else supplies it"));
        m_stores[role].password->setToolTip(QString());
    }
    auto *watcher = new QFutureWatcher<QList<PasswordNeed>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, roles, serial] {
        watcher->deleteLater();
        if (serial != m_hintSerial)
            return;
        const QList<PasswordNeed> needs = watcher->result();
        for (int i = 0; i < roles.size() && i < needs.size(); ++i) {
            QLineEdit *edit = m_stores[roles[i]].password;
            edit->setEnabled(needs[i] != PasswordNeed::NoLogin);
            edit->setPlaceholderText(needs[i] == PasswordNeed::NoLogin    ? tr("none: an SQLite file has no login")
                                         : needs[i] == PasswordNeed::Needed ? tr("needed: nothing else supplies it")
                                                                            : tr("not needed: another source supplies it"));
            edit->setToolTip(needs[i] == PasswordNeed::Needed
                                 ? tr("No $%1 or $TRIAGE_DB_PASSWORD, no keychain entry, no password file").arg(passwordEnvVar(roles[i]))
                                 : QString());
        }
    });
    watcher->setFuture(passwordNeeds(profiles));
}

void ConnectDialog::connectProfile()
{
    if (!save())
        return;
    const SavedProfile p = fieldsAsProfile();
    QList<ConnectionProfile> profiles;
    for (DbRole role : kRoles) {
        QString error;
        if (const auto c = ConnectionProfile::fromUrl(p.urls.value(role), role, &error))
            profiles << *c;
    }
    auto *watcher = new QFutureWatcher<QList<bool>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, profiles, p] {
        watcher->deleteLater();
        const QList<bool> needs = watcher->result();
        QStringList missing;
        for (int i = 0; i < profiles.size() && i < needs.size(); ++i)
            if (needs[i] && m_stores[profiles[i].role].password->text().isEmpty())
                missing << roleTitle(profiles[i].role);
        if (!missing.isEmpty() && !m_askedForPasswords) {
            m_askedForPasswords = true;
            setStatus(tr("No password source for the %1: type the password (kept in memory only) and press Connect again, "
                         "or press Connect again to go on without one.")
                          .arg(missing.join(tr(" and the "))),
                      true);
            m_stores[profiles[0].role].password->setFocus();
            return;
        }
        if (m_remember->isChecked())
            rememberThenLaunch(p, profiles);
        else
            launch(p);
    });
    watcher->setFuture(passwordPromptsNeeded(profiles));
}

void ConnectDialog::rememberThenLaunch(const SavedProfile &p, const QList<ConnectionProfile> &profiles)
{
    // One keychain entry per typed password (storeKeychainPassword()); all written: launch. A
    // refusal stops here and says so; the next Connect goes on without the keychain.
    auto pending = std::make_shared<int>(0);
    auto failures = std::make_shared<QStringList>();
    auto stored = std::make_shared<QStringList>();
    const auto finishOne = [this, p, pending, failures, stored] {
        if (--*pending > 0)
            return;
        if (failures->isEmpty()) {
            emit keychainStored(*stored);
            launch(p);
            return;
        }
        m_remember->setChecked(false);
        setStatus(tr("The system keychain did not take the password of the %1. Press Connect again to go on with the "
                     "password in memory only.")
                      .arg(failures->join(tr("; of the "))),
                  true);
    };
    QList<std::pair<ConnectionProfile, QString>> writes;
    for (const ConnectionProfile &c : profiles)
        if (const QString secret = m_stores[c.role].password->text(); !secret.isEmpty())
            writes.append({c, secret});
    if (writes.isEmpty()) {
        launch(p);
        return;
    }
    *pending = int(writes.size());
    for (const auto &[profile, secret] : writes) {
        const QString title = roleTitle(profile.role);
        whenReady(storeKeychainPassword(profile, secret), this, [finishOne, failures, stored, title](const QString &error) {
            if (error.isEmpty())
                *stored << title;
            else
                *failures << QStringLiteral("%1 (%2)").arg(title, error);
            finishOne();
        });
    }
}

void ConnectDialog::launch(const SavedProfile &p)
{
    QMap<DbRole, QString> typed;
    for (DbRole role : kRoles)
        typed.insert(role, m_stores[role].password->text());
    const QStringList arguments = {QStringLiteral("--profile"), p.name};
    if (!m_launcher(QCoreApplication::applicationFilePath(), arguments,
                    profileLaunchEnvironment(QProcessEnvironment::systemEnvironment(), typed))) {
        setStatus(tr("The new console did not start (%1)").arg(QCoreApplication::applicationFilePath()), true);
        return;
    }
    for (DbRole role : kRoles)
        m_stores[role].password->clear(); // the child has them; this process forgets them
    emit launched(arguments);
    accept();
}

} // namespace triage
