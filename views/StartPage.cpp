// The console's start page (DESIGN.md §5 "Start page").
#include "StartPage.h"

#include "ConnectionProfile.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace triage {

namespace {

/// "shop-prod — production · idempotency db.example.internal:5432/orders, …": the servers
/// without user or password (a URL never holds a password: ProfileStore refuses one).
QString profileLine(const SavedProfile &p, bool recent)
{
    QStringList stores;
    for (DbRole role : {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket}) {
        QString why;
        const auto c = ConnectionProfile::fromUrl(p.urls.value(role), role, &why);
        if (!c)
            continue;
        const QString where = c->dialect == Dialect::Sqlite ? c->database
                                                            : QStringLiteral("%1:%2/%3").arg(c->host).arg(c->port).arg(c->database);
        if (!stores.contains(where))
            stores << where;
    }
    QString line = p.name;
    if (p.environment != Environment::None)
        line += QStringLiteral(" — ") + environmentName(p.environment);
    if (!stores.isEmpty())
        line += QStringLiteral(" · ") + stores.join(QStringLiteral(", "));
    if (recent)
        line += QStringLiteral("  (recent)");
    return line;
}

} // namespace

bool StartPage::hasProfiles(const ProfileStore &store)
{
    return !store.names().isEmpty();
}

StartPage::StartPage(QWidget *parent, ProfileStore store) : QDialog(parent), m_store(std::move(store))
{
    setObjectName(QStringLiteral("startPage"));
    setWindowTitle(tr("Triage Console — start"));
    auto *layout = new QVBoxLayout(this);
    auto *title = new QLabel(tr("<b>Open a connection profile</b> — recent first. A profile names the three stores and "
                                "their environment; passwords come from the environment, the keychain or a prompt, "
                                "never from the profile."),
                             this);
    title->setWordWrap(true);
    layout->addWidget(title);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("startProfiles"));
    const QStringList recent = m_store.recent();
    QStringList order = recent;
    for (const QString &name : m_store.names())
        if (!order.contains(name))
            order << name;
    for (const QString &name : order) {
        QString error;
        const auto p = m_store.load(name, &error);
        auto *item = new QListWidgetItem(p ? profileLine(*p, recent.contains(name)) : QStringLiteral("%1 — cannot be read: %2").arg(name, error),
                                         m_list);
        item->setData(Qt::UserRole, name);
        if (p && p->environment == Environment::Production) { // production stands out, as its band does
            item->setForeground(QColor(0xa4, 0x23, 0x1a));
            QFont bold = item->font();
            bold.setBold(true);
            item->setFont(bold);
        }
    }
    layout->addWidget(m_list, 1);
    auto *where = new QLabel(tr("Profiles are INI files in %1").arg(m_store.dir()), this);
    where->setStyleSheet(QStringLiteral("color: %1").arg(theme::mutedText().name()));
    where->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(where);
    auto *buttons = new QHBoxLayout;
    auto *demo = new QPushButton(tr("Open the demo"), this);
    auto *connectButton = new QPushButton(tr("Connect\u2026"), this);
    m_open = new QPushButton(tr("Open"), this);
    m_open->setDefault(true);
    auto *quit = new QPushButton(tr("Quit"), this);
    buttons->addWidget(demo);
    buttons->addWidget(connectButton);
    buttons->addStretch(1);
    buttons->addWidget(m_open);
    buttons->addWidget(quit);
    layout->addLayout(buttons);

    connect(demo, &QPushButton::clicked, this, [this] { finish(Choice::Demo); });
    connect(connectButton, &QPushButton::clicked, this, [this] { finish(Choice::Connect); });
    connect(quit, &QPushButton::clicked, this, [this] { finish(Choice::None); });
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *item = m_list->currentItem())
            open(item->data(Qt::UserRole).toString());
    });
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { open(item->data(Qt::UserRole).toString()); });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) { m_open->setEnabled(row >= 0); });
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
    m_open->setEnabled(m_list->currentRow() >= 0);
    resize(720, 420);
}

QStringList StartPage::listed() const
{
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        out << m_list->item(i)->data(Qt::UserRole).toString();
    return out;
}

QString StartPage::lineOf(const QString &name) const
{
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == name)
            return m_list->item(i)->text();
    return {};
}

bool StartPage::open(const QString &name)
{
    if (!listed().contains(name))
        return false;
    finish(Choice::Profile, name);
    return true;
}

void StartPage::finish(Choice choice, const QString &profile)
{
    m_choice = choice;
    m_profile = profile;
    if (choice == Choice::None)
        reject();
    else
        accept();
}

} // namespace triage
