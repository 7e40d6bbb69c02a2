#include "EnvironmentBand.h"

#include "Workspace.h"

#include <QBoxLayout>
#include <QDialogButtonBox>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTextDocument>

namespace triage {

QString environmentStyleSheet(Environment env)
{
    switch (env) {
    case Environment::None: return {};
    case Environment::Production: return QStringLiteral("background: #b71c1c; color: white;");
    case Environment::Staging: return QStringLiteral("background: #ffb300; color: #3e2723;");
    case Environment::Development: return QStringLiteral("background: #e8f5e9; color: #1b5e20;");
    }
    return {};
}

QString consoleWindowTitle(const WorkspaceConfig &config, const QString &where)
{
    const QString label = environmentLabel(config.environment, config.profileName);
    return QStringLiteral("Triage Console \u2014 %1").arg(label.isEmpty() ? where : label);
}

std::optional<QString> askStampedText(QWidget *parent, const WorkspaceConfig &config, const QString &title, const QString &label,
                                      bool multiLine)
{
    QInputDialog dialog(parent);
    dialog.setWindowTitle(title);
    dialog.setLabelText(label);
    dialog.setInputMode(QInputDialog::TextInput);
    if (multiLine)
        dialog.setOption(QInputDialog::UsePlainTextEditForTextInput);
    stampEnvironmentOn(&dialog, config);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.textValue();
}

void stampEnvironmentOn(QDialog *dialog, const WorkspaceConfig &config)
{
    const QString label = environmentLabel(config.environment, config.profileName);
    if (!dialog || label.isEmpty())
        return;
    dialog->setWindowTitle(QStringLiteral("%1 \u2014 %2").arg(label, dialog->windowTitle()));
    if (auto *box = qobject_cast<QMessageBox *>(dialog)) {
        box->setText(Qt::mightBeRichText(box->text()) ? QStringLiteral("<p><b>%1</b></p>%2").arg(label.toHtmlEscaped(), box->text())
                                                      : QStringLiteral("%1\n\n%2").arg(label, box->text()));
        return;
    }
    if (auto *input = qobject_cast<QInputDialog *>(dialog)) {
        input->setLabelText(QStringLiteral("%1\n\n%2").arg(label, input->labelText()));
        return;
    }
    if (auto *layout = qobject_cast<QBoxLayout *>(dialog->layout())) {
        auto *stamp = new QLabel(label, dialog);
        stamp->setObjectName(QStringLiteral("environmentStamp"));
        stamp->setStyleSheet(environmentStyleSheet(config.environment) + QStringLiteral(" font-weight: bold; padding: 4px 8px;"));
        layout->insertWidget(0, stamp);
    }
}

UnlockWritesDialog::UnlockWritesDialog(Workspace *workspace, QWidget *parent) : QDialog(parent), m_workspace(workspace)
{
    const WorkspaceConfig &config = workspace->config();
    setObjectName(QStringLiteral("unlockWritesDialog"));
    setWindowTitle(QStringLiteral("Switch writes on \u2014 %1").arg(environmentLabel(config.environment, config.profileName)));
    auto *layout = new QVBoxLayout(this);
    auto *text = new QLabel(QStringLiteral("This is the <b>%1</b> workspace <b>%2</b>: marks, compensations, claims and "
                                           "approvals change its data.<br>Type the profile's name <b>%2</b> to switch writes on.")
                                .arg(environmentName(config.environment).toHtmlEscaped(), config.profileName.toHtmlEscaped()),
                            this);
    text->setWordWrap(true);
    layout->addWidget(text);
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("profileNameEdit"));
    m_name->setPlaceholderText(QStringLiteral("profile name"));
    layout->addWidget(m_name);
    m_error = new QLabel(QStringLiteral("That is not the profile's name: writes stay off."), this);
    m_error->setObjectName(QStringLiteral("unlockError"));
    m_error->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
    m_error->hide();
    layout->addWidget(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_unlock = buttons->addButton(QStringLiteral("Switch writes on"), QDialogButtonBox::AcceptRole);
    m_unlock->setObjectName(QStringLiteral("unlockButton"));
    m_unlock->setEnabled(false);
    layout->addWidget(buttons);
    stampEnvironmentOn(this, config);
    setWindowTitle(QStringLiteral("Switch writes on \u2014 %1").arg(environmentLabel(config.environment, config.profileName)));
    connect(m_name, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_unlock->setEnabled(!t.isEmpty());
        m_error->hide();
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &UnlockWritesDialog::tryUnlock);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(460, sizeHint().height());
}

void UnlockWritesDialog::tryUnlock()
{
    switch (m_workspace->unlockWrites(m_name->text())) {
    case Workspace::Unlock::Unlocked:
        emit writesSwitchedOn();
        accept();
        return;
    case Workspace::Unlock::WrongName:
        m_error->show();
        m_name->selectAll();
        return;
    case Workspace::Unlock::NotLocked:
        accept();
        return;
    }
}

EnvironmentBand::EnvironmentBand(Workspace *workspace, QWidget *parent) : QFrame(parent), m_workspace(workspace)
{
    setObjectName(QStringLiteral("environmentBand"));
    const WorkspaceConfig &config = workspace->config();
    setVisible(config.environment != Environment::None);
    setAutoFillBackground(true);
    setStyleSheet(QStringLiteral("#environmentBand { %1 } #environmentBand QLabel { %1 }").arg(environmentStyleSheet(config.environment)));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 10, 4);
    layout->setSpacing(14);
    m_label = new QLabel(triage::environmentLabel(config.environment, config.profileName), this);
    m_label->setObjectName(QStringLiteral("environmentLabel"));
    QFont bold = m_label->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_label->setFont(bold);
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("writeStateLabel"));
    m_unlock = new QPushButton(QStringLiteral("Switch writes on\u2026"), this);
    m_unlock->setObjectName(QStringLiteral("unlockWritesButton"));
    layout->addWidget(m_label);
    layout->addWidget(m_state, 1);
    layout->addWidget(m_unlock);
    connect(m_unlock, &QPushButton::clicked, this, &EnvironmentBand::openUnlockDialog);
    updateState();
}

UnlockWritesDialog *EnvironmentBand::openUnlockDialog()
{
    if (m_dialog)
        return m_dialog;
    m_dialog = new UnlockWritesDialog(m_workspace, window());
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &UnlockWritesDialog::writesSwitchedOn, this, [this] {
        updateState();
        emit writesSwitchedOn();
    });
    m_dialog->open();
    return m_dialog;
}

void EnvironmentBand::updateState()
{
    const WorkspaceConfig &config = m_workspace->config();
    m_unlock->setVisible(config.writesLocked);
    if (config.writesLocked)
        m_state->setText(QStringLiteral("read-only: switch writes on to change anything"));
    else if (config.readOnly)
        m_state->setText(QStringLiteral("read-only (--read-only or read_only = true)"));
    else
        m_state->setText(QStringLiteral("writes on"));
}

} // namespace triage
