#pragma once

#include "ConnectionProfile.h"

#include <QLabel>

namespace triage {

/// A status-bar label for one store's connection: "● idempotency" in grey (not yet
/// known), green (open) or red (down); the tooltip has the store's URL (no secrets) and
/// the last message from Workspace::connectionEvent().
class ConnectionIndicator : public QLabel {
    Q_OBJECT
public:
    enum class State { Unknown, Up, Down };

    /// An indicator for `role`, showing `profile`'s URL (no secrets) in its tooltip; starts grey.
    ConnectionIndicator(DbRole role, const ConnectionProfile &profile, QWidget *parent = nullptr);

    /// Records a connection event: `up` and the message shown in the tooltip.
    void setState(bool up, const QString &message);
    /// The last reported state.
    State state() const { return m_state; }
    /// The store this indicator shows.
    DbRole role() const { return m_role; }
    /// True once the store has been down at least once (a later "up" is a re-open).
    bool wasDown() const { return m_wasDown; }

private:
    void render();

    DbRole m_role;
    QString m_url;
    QString m_message;
    State m_state = State::Unknown;
    bool m_wasDown = false;
};

} // namespace triage
