#pragma once

#include "Compensation.h"
#include "CompensationRules.h"
#include "Duplicates.h"

#include <QDialog>
#include <QPointer>
#include <QVector>

#include <memory>

class QLabel;
class QGroupBox;
class QCheckBox;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace triage {

class MessageBar;
class Workspace;

/// "Compensate extras…" of one duplicate-key group (DESIGN.md §1 "Compensation is a side
/// effect too", §2 "Compensate"): shows the plan — every extra (non-canonical, not yet
/// CANCELLED) ticket, the action and the deterministic compensation key, computed by the
/// runner as a dry run — requires a reason, then runs one compensation per extra ticket, one
/// after the other, with each ticket's outcome (SUCCEEDED / UNKNOWN / FAILED / already
/// exists). Where the plan is refused only by rules an override may set aside (key reuse,
/// an inconsistent SUCCESS snapshot; DESIGN.md §6), an audited override with a reason of at
/// least 20 characters is offered. Once every extra is compensated it offers "Mark record SUCCESS with the canonical
/// ticket's snapshot", a compare-and-set against the record state loaded with the group,
/// and shows the outcome inline. Nothing blocks the GUI thread: every step is a future
/// continued on this dialog. Open it with open() or show(), never exec().
class CompensateDialog : public QDialog {
    Q_OBJECT
public:
    /// The per-ticket plan and outcome.
    struct Item {
        BusinessId ticketId;    ///< as stored (opaque)
        QString action;
        QString compKey;      ///< from the dry run
        QString request;      ///< "POST url" from the dry run
        QString outcome;      ///< "", "planned", "running", "succeeded", "unknown", "failed", "existing", "refused", "error"
        QString rowStatus;    ///< the compensation row's status after the run (SUCCEEDED, …)
        QString message;
        bool overridable = false; ///< refused only by rules an override sets aside (key reuse, …)
        std::optional<CompensationOutcome::Kind> outcomeKind; ///< `outcome` as the backend's enum (nullopt: none, running)
        std::optional<CompensationStatus> status;             ///< `rowStatus` as the backend's enum (nullopt: no row)

        /// What compensationRunnable() needs of this item.
        CompensationPlanEntry planEntry() const { return {status, outcomeKind, overridable, !compKey.isEmpty()}; }
    };

    /// `workspace` must outlive the dialog; the dialog shares `runner` and keeps it alive
    /// until its running tasks end. `action` is the compensation action
    /// (e.g. "cancel_ticket"); an empty action means none is configured for the group's biz_type.
    CompensateDialog(Workspace *workspace, std::shared_ptr<CompensationRunner> runner, const DuplicateGroupDetail &group,
                     const QString &action, QWidget *parent = nullptr);

    /// The plan, in ticket order (valid once planReady() was emitted).
    const QVector<Item> &items() const { return m_items; }
    /// The extra tickets' ids.
    QVector<BusinessId> extraTicketIds() const;
    /// True when every extra ticket is compensated (SUCCEEDED, or an existing SUCCEEDED row).
    bool allCompensated() const;

    /// Sets the audited reason (the reason field's text).
    void setReason(const QString &reason);
    /// Runs the compensations (as the Run button does). Ignored without a reason or plan.
    void runCompensations();
    /// Marks the record SUCCESS with the canonical ticket's snapshot (as the Mark button does).
    void markSuccess();

signals:
    /// The dry-run plan is shown (or failed: see the message bar).
    void planReady();
    /// One ticket's compensation ended.
    void itemFinished(int index);
    /// Every compensation of the run has ended.
    void runFinished();
    /// The mark ended; `applied` when the record is now SUCCESS by this mark.
    void markFinished(bool applied, const QString &message);

private:
    void startPlan();
    void runNext(int index);
    void showItem(int index);
    void updateButtons();

    Workspace *m_workspace;
    std::shared_ptr<CompensationRunner> m_runner;
    DuplicateGroupDetail m_group;
    QString m_action;
    QVector<Item> m_items;
    bool m_planned = false, m_running = false, m_marking = false, m_marked = false;

    MessageBar *m_bar;
    QLabel *m_summary;
    QTableWidget *m_table;
    QLineEdit *m_reason;
    /// Sets aside the rules the plan says an override may (key reuse, an inconsistent
    /// snapshot; reason >= kOverrideReasonMinLength, audited); shown only when one applies.
    QCheckBox *m_override;
    QPushButton *m_run;
    QPushButton *m_close;
    QGroupBox *m_markBox;
    QLabel *m_markText;
    QPushButton *m_mark;
    MessageBar *m_markBar;
};

} // namespace triage
