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
    qint64 maxLagMs = 0;
    for (DbRole role : kRoles) {
        const ReplicaStatus s = m_workspace->reader(role).status();
        if (s.state == ReplicaStatus::State::None)
            continue;
        lines << QStringLiteral("%1 (%2): %3").arg(roleTitle(role), s.replicaUrl, s.text());
        if (s.usable())
            maxLagMs = std::max(maxLagMs, s.lagMs);
        else
            primary << roleName(role);
    }
    const bool allUsable = primary.isEmpty();
    const QString color = theme::toneColors(allUsable ? Tone::Ok : Tone::Warning).foreground.name();
    const QString word = allUsable ? QStringLiteral("replica lag %1 s").arg(QString::number(double(maxLagMs) / 1000.0, 'f', 1))
                                   : QStringLiteral("%1 read from the primary").arg(primary.join(QStringLiteral(", ")));
    setText(QStringLiteral("<span style=\"color:%1\">\u25CF</span> %2").arg(color, word.toHtmlEscaped()));
    setToolTip(lines.join(QLatin1Char('\n')));
}

} // namespace triage
