#pragma once

#include <QLabel>

class QStatusBar;

namespace triage {

class Workspace;

/// The status bar's word on the read replicas (DESIGN.md §9 "Read replicas"): hidden without
/// any `replica_url`; else "replica lag 0.3 s" (green) while every replica serves reads, or
/// "replica lag 7.2 s > 5.0 s: ticket read from the primary" (amber; "replica lag unknown: …"),
/// the text of each store's ReplicaStatus in the tooltip. Follows Workspace::replicaEvent() and re-reads the routes' last measurements every
/// 2 s (no SQL: the measurements ride on the reads themselves); on start it asks each replica
/// for a first measurement (on the replica's worker, never the GUI thread).
class ReplicaIndicator : public QLabel {
    Q_OBJECT
public:
    ReplicaIndicator(Workspace *workspace, QWidget *parent = nullptr);
    /// Adds an indicator for `workspace` to `bar` when it has a replica; does nothing otherwise.
    static void install(Workspace *workspace, QStatusBar *bar);

private:
    void render();

    Workspace *m_workspace;
};

} // namespace triage
