#pragma once

#include "CompensationConfig.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTableWidget;

namespace triage {

class CompensationRunner;
class CompensationsModel;
class MessageBar;
class Workspace;

/// The Compensations tab (DESIGN.md §2 "Compensations: in flight, UNKNOWN, done"): the rows
/// of triage_compensation with a status filter (INTENT / UNKNOWN / SUCCEEDED / FAILED), the
/// attempt history of the selected one, and "Resume" for INTENT / UNKNOWN rows — the
/// runner's resume(), which first confirms with the upstream's query and re-sends only with
/// the same key. Runs everything through CompensationRunner futures; no SQL here.
///
/// Integration: `new CompensationsPane(workspace, compensationConfigs, parent)`; connect
/// keyActivated() to open the source key's detail.
class CompensationsPane : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the pane; `configs` as for DuplicatesPane. Loads at once.
    CompensationsPane(Workspace *workspace, const CompensationConfigs &configs, QWidget *parent = nullptr);
    ~CompensationsPane() override;

    /// The list model (for tests).
    CompensationsModel *compensationsModel() const { return m_model; }
    /// Selects the row of `compKey`; false when it is not listed.
    bool selectCompensation(const QString &compKey);
    /// Resumes the selected compensation (as the Resume button does).
    void resumeSelected();
    /// Reloads the list.
    void refresh();
    /// The pane's compensation service (shared with the key detail, which approves compensation
    /// proposals through it).
    std::shared_ptr<CompensationRunner> runner() const { return m_runner; }

signals:
    /// The operator asked to open the detail of the source key `idemKey` (double-click).
    void keyActivated(const QString &idemKey);
    /// A resume ended; `outcome` is compensationOutcomeName().
    void resumeFinished(const QString &compKey, const QString &outcome);
    /// The history of `compKey` is shown.
    void historyLoaded(const QString &compKey);

private:
    void loadHistory(const QString &compKey);
    void updateButtons();
    QString selectedKey() const;

    Workspace *m_workspace;
    std::shared_ptr<CompensationRunner> m_runner;
    CompensationsModel *m_model;
    quint64 m_historyGeneration = 0;
    bool m_resuming = false;
    QString m_reselect; ///< the row to select again after a reload

    MessageBar *m_bar;
    QComboBox *m_status;
    QPushButton *m_refresh;
    QLabel *m_count;
    QTableView *m_table;
    QPushButton *m_resume;
    QLabel *m_historyTitle;
    QTableWidget *m_history;
};

} // namespace triage
