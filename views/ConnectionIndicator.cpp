#include "ConnectionIndicator.h"

#include "Theme.h"

namespace triage {

ConnectionIndicator::ConnectionIndicator(DbRole role, const ConnectionProfile &profile, QWidget *parent)
    : QLabel(parent), m_role(role), m_url(profile.displayUrl())
{
    setObjectName(QStringLiteral("connection-%1").arg(roleName(role)));
    setContentsMargins(6, 0, 6, 0);
    m_message = QStringLiteral("not connected yet");
    render();
}

void ConnectionIndicator::setState(bool up, const QString &message)
{
    if (!up)
        m_wasDown = true;
    m_state = up ? State::Up : State::Down;
    m_message = message;
    render();
}

void ConnectionIndicator::render()
{
    Tone tone = Tone::Muted;
    QString word = QStringLiteral("connecting");
    if (m_state == State::Up) {
        tone = Tone::Ok;
        word = QStringLiteral("up");
    } else if (m_state == State::Down) {
        tone = Tone::Danger;
        word = QStringLiteral("down");
    }
    const QString color = theme::toneColors(tone).foreground.name();
    setText(QStringLiteral("<span style=\"color:%1\">\u25CF</span> %2 <span style=\"color:%3\">%4</span>")
                .arg(color, roleName(m_role).toHtmlEscaped(), theme::mutedText().name(), word));
    setToolTip(QStringLiteral("%1\n%2\n%3").arg(roleTitle(m_role), m_url, m_message));
}

} // namespace triage
