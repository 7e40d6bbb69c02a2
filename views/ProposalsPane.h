#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace triage {

class MessageBar;
class ProposalsModel;
class Workspace;

/// The Proposals tab (DESIGN.md §9 "Four-eyes"): every open four-eyes proposal — marks and
/// compensations — so a second operator finds what waits for them; "Show decided" lists every
/// proposal (approved, rejected, void). Double-click opens the key, whose proposal bar has
/// Approve… and Reject…. No SQL here: ProposalsModel reads through readProposals().
class ProposalsPane : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the pane. Loads at once.
    explicit ProposalsPane(Workspace *workspace, QWidget *parent = nullptr);

    /// The list model (for tests).
    ProposalsModel *proposalsModel() const { return m_model; }
    /// Reloads the list.
    void refresh();

signals:
    /// The operator asked to open the key `idemKey` (double-click).
    void keyActivated(const QString &idemKey);
    /// The open proposals shown changed to `count` (the tab's title).
    void openCountChanged(int count);

private:
    ProposalsModel *m_model;
    MessageBar *m_bar;
    QCheckBox *m_all;
    QPushButton *m_refresh;
    QLabel *m_count;
    QTableView *m_table;
};

} // namespace triage
