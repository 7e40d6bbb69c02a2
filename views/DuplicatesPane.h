#pragma once

#include "Claim.h"
#include "CompensateDialog.h" // QPointer<CompensateDialog> converts inline below

#include "CompensationConfig.h"
#include "Duplicates.h"

#include <QElapsedTimer>
#include <QMessageBox>
#include <QPointer>
#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QProgressBar;
class QLineEdit;
class QPushButton;
class QTableView;
class QTableWidget;
class QTimer;

namespace triage {

class CompensationRunner;
class DuplicateGroupsModel;
class MessageBar;
class Workspace;

/// The Duplicate keys tab (DESIGN.md §2): the duplicate-key groups (newest first, lazily
/// paged by a budgeted creation-time window scan, filtered by tenant, key substring and
/// "include resolved", with a count), a scan line saying how far back the groups are
/// complete with "Scan further" / "Scan all" (progress bar, Stop), and for the selected
/// group its tickets side by side (one column per ticket, one row per payload field,
/// differing cells highlighted), the proposed canonical ticket with its reason, and
/// "Compensate extras…" (CompensateDialog). All data comes through DuplicateGroupsModel
/// and backend futures; no SQL here.
///
/// Integration: `new DuplicatesPane(workspace, compensationConfigs, parent)`; connect
/// keyActivated() to open a key's detail.
class DuplicatesPane : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the pane; `configs` are the compensation actions by biz_type
    /// (WorkspaceConfig::compensations, or demoCompensations() for the demo). Loads at once.
    DuplicatesPane(Workspace *workspace, const CompensationConfigs &configs, QWidget *parent = nullptr);
    ~DuplicatesPane() override;

    /// The groups model (for tests and the window's status bar).
    DuplicateGroupsModel *groupsModel() const { return m_model; }
    /// The group currently shown in the detail, if loaded.
    const std::optional<DuplicateGroupDetail> &currentGroup() const { return m_detail; }
    /// Selects the loaded group `idemKey` and loads its detail; false when it is not loaded.
    bool selectKey(const QString &idemKey);
    /// The open compensate dialog, or nullptr.
    CompensateDialog *compensateDialog() const { return m_dialog; }
    /// Opens the compensate dialog for the current group (as the button does); returns it.
    /// When someone else holds the group's key (claimAsksFirst(), DESIGN.md §8 "Claims") it
    /// asks first instead (claimQuestion()) and returns nullptr; "Compensate anyway…" then
    /// opens it. `claimConfirmed`: the operator already said to go on.
    CompensateDialog *openCompensateDialog(bool claimConfirmed = false);
    /// The claim question while it is open, else nullptr.
    QMessageBox *claimQuestion() const { return m_claimQuestion; }
    /// The live claim on the current group's key as read with it (nullopt: none, or not read yet).
    const std::optional<Claim> &claim() const { return m_claim; }
    /// Reloads the groups (keeping the filter) and the current group's detail.
    void refresh();

signals:
    /// The operator's own compensation run or mark on `idemKey` ended (from the compensate
    /// dialog): what other panes show of it may have changed.
    void operatorActionFinished(const QString &idemKey);
    /// The operator asked to open the detail of `idemKey` (double-click, "Open key").
    void keyActivated(const QString &idemKey);
    /// The detail of the selected group was loaded (or failed: see the message bar).
    void groupLoaded(const QString &idemKey);

private:
    void applyFilter();
    void loadGroup(const QString &idemKey);
    void showGroup(const DuplicateGroupDetail &detail);
    void clearDetail(const QString &text);
    void updateCount();
    void updateScan();
    QString actionFor(const DuplicateGroupDetail &detail) const;

    Workspace *m_workspace;
    CompensationConfigs m_configs;
    std::shared_ptr<CompensationRunner> m_runner;
    DuplicateGroupsModel *m_model;
    std::optional<DuplicateGroupDetail> m_detail;
    quint64 m_detailGeneration = 0;
    QPointer<CompensateDialog> m_dialog;
    std::optional<Claim> m_claim;        ///< the current group's key's claim, as read with it
    QElapsedTimer m_claimRead;           ///< started when m_claim was read
    QPointer<QMessageBox> m_claimQuestion;

    MessageBar *m_bar;
    QLineEdit *m_tenant;
    QLineEdit *m_key;
    QCheckBox *m_resolved;
    QPushButton *m_refresh;
    QLabel *m_count;
    QLabel *m_scanText;
    QProgressBar *m_scanBar;
    QPushButton *m_scanFurther;
    QPushButton *m_scanAll;
    QPushButton *m_stopScan;
    QTimer *m_filterTimer;
    QTableView *m_table;
    QLabel *m_detailTitle;
    QPushButton *m_openKey;
    QTableWidget *m_tickets;
    QLabel *m_canonical;
    QPushButton *m_compensate;
};

} // namespace triage
