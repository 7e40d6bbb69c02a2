#include "ReplicaIndicator.h"

#include "Theme.h"
#include "Workspace.h"

#include <QStatusBar>
#include <QTimer>

namespace triage {

namespace {
constexpr DbRole kRoles[] = {DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};
}

ReplicaIndicator::ReplicaIndicator(Workspace *workspace, QWidget *parent) : QLabel(parent), m_workspace(workspace)
{
    setObjectName(QStringLiteral("replicaIndicator"));
    setContentsMargins(6, 0, 6, 0);
    connect(workspace, &Workspace::replicaEvent, this, &ReplicaIndicator::render);
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, &ReplicaIndicator::render);
    timer->start(2000);
    for (DbRole role : kRoles)
        if (workspace->reader(role).replicaWorker())
            workspace->reader(role).measureNow(); // reported through replicaEvent()
    render();
}

void ReplicaIndicator::install(Workspace *workspace, QStatusBar *bar)
{
    if (!workspace->config().replicas.isEmpty())
        bar->addPermanentWidget(new ReplicaIndicator(workspace, bar));
}

void ReplicaIndicator::render()
{
    QStringList lines, primary;
    qint64 usableLagMs = 0, laggingMs = -1, limitMs = 0;
    bool unknown = false;
    for (DbRole role : kRoles) {
        const ReplicaStatus s = m_workspace->reader(role).status();
        if (s.state == ReplicaStatus::State::None)
            continue;
        lines << QStringLiteral("%1 (%2): %3").arg(roleTitle(role), s.replicaUrl, s.text());
        limitMs = s.maxLagMs;
        if (s.usable()) {
            usableLagMs = std::max(usableLagMs, s.lagMs);
            continue;
        }
        primary << roleName(role);
        if (s.state == ReplicaStatus::State::Lagging)
            laggingMs = std::max(laggingMs, s.lagMs);
        else
            unknown = true;
    }
    auto secs = [](qint64 ms) { return QString::number(double(ms) / 1000.0, 'f', 1); };
    QString word;
    if (primary.isEmpty())
        word = QStringLiteral("replica lag %1 s").arg(secs(usableLagMs));
    else
        word = QStringLiteral("%1: %2 read from the primary")
                   .arg(unknown ? QStringLiteral("replica lag unknown")
                                : QStringLiteral("replica lag %1 s > %2 s").arg(secs(laggingMs), secs(limitMs)),
                        primary.join(QStringLiteral(", ")));
    const QString color = theme::toneColors(primary.isEmpty() ? Tone::Ok : Tone::Warning).foreground.name();
    setText(QStringLiteral("<span style=\"color:%1\">\u25CF</span> %2").arg(color, word.toHtmlEscaped()));
    setToolTip(lines.join(QLatin1Char('\n')));
}

} // namespace triage
