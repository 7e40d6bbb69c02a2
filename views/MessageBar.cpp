#include "MessageBar.h"

#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace triage {

MessageBar::MessageBar(QWidget *parent) : QFrame(parent), m_icon(new QLabel(this)), m_text(new QLabel(this)), m_action(new QPushButton(this)),
      m_secondary(new QPushButton(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 5, 8, 5);
    layout->setSpacing(8);
    m_icon->setAlignment(Qt::AlignTop | Qt::AlignHCenter);
    m_icon->setFixedWidth(16);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setObjectName(QStringLiteral("messageText"));
    m_action->setVisible(false);
    m_action->setCursor(Qt::PointingHandCursor);
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    m_secondary->setVisible(false);
    m_secondary->setCursor(Qt::PointingHandCursor);
    layout->addWidget(m_secondary, 0, Qt::AlignTop);
    layout->addWidget(m_action, 0, Qt::AlignTop);
    connect(m_action, &QPushButton::clicked, this, &MessageBar::actionTriggered);
    connect(m_secondary, &QPushButton::clicked, this, &MessageBar::secondaryActionTriggered);
    setVisible(false);
}

void MessageBar::showMessage(Level level, const QString &text)
{
    if (text.isEmpty()) {
        clearMessage();
        return;
    }
    m_level = level;
    Tone tone = Tone::Info;
    QString icon = QStringLiteral("\u2139"); // ℹ
    if (level == Level::Warning) {
        tone = Tone::Warning;
        icon = QStringLiteral("\u26A0"); // ⚠
    } else if (level == Level::Error) {
        tone = Tone::Danger;
        icon = QStringLiteral("\u2716"); // ✖
    }
    const theme::ToneColors c = theme::toneColors(tone);
    // Class selector, not an object name: callers name their bars ("jsonError", …).
    setStyleSheet(QStringLiteral("triage--MessageBar { background: %1; border: 1px solid %2; border-radius: 4px; }"
                                 "triage--MessageBar QLabel { color: %3; background: transparent; border: none; }")
                      .arg(c.background.name(), c.border.name(), c.foreground.name()));
    m_icon->setText(icon);
    m_text->setText(sentence(text));
    setVisible(true);
}

QString MessageBar::sentence(const QString &text)
{
    // Backend messages start in lower case ("cannot connect to …"); identifiers
    // ("result_snapshot", "expire_at") and numbers must stay as they are.
    const qsizetype end = text.indexOf(QLatin1Char(' '));
    const QStringView first = QStringView(text).left(end < 0 ? text.size() : end);
    for (QChar c : first)
        if (!c.isLower())
            return text;
    if (first.isEmpty())
        return text;
    return text.at(0).toUpper() + text.mid(1);
}

void MessageBar::clearMessage()
{
    m_text->clear();
    setVisible(false);
}

QString MessageBar::text() const
{
    return m_text->text();
}

void MessageBar::setActionText(const QString &label)
{
    m_action->setText(label);
    m_action->setVisible(!label.isEmpty());
}

void MessageBar::setSecondaryActionText(const QString &label)
{
    m_secondary->setText(label);
    m_secondary->setVisible(!label.isEmpty());
}

} // namespace triage
