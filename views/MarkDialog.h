#pragma once

#include "KeyDetail.h"
#include "Mark.h"
#include "RecordStatus.h"

#include <QDialog>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;

namespace triage {

class MessageBar;

/// The confirmation dialog of one manual mark (DESIGN.md §2, docs/CONVENTIONS.md "Errors in the UI"):
/// it shows exactly what will change — the key, from → to, the state the compare-and-set
/// must still find (status, updated_at, version, as the operator saw it in the loaded
/// detail) and, for SUCCESS, the snapshot to be written, chosen from a ticket row's
/// payload, the upstream's FOUND object, a suggested verdict's snapshot, or typed JSON
/// (validated live, the parse error shown). The rules' answer (decideMark() on
/// markFactsFrom() of the loaded detail: the backend's rule, not the view's) is shown live
/// and OK is enabled only when they allow the mark; where only uncertainty stands in the
/// way an override checkbox appears (the reason then needs ≥ 20 characters). The dialog
/// does not run the mark: request() is what the caller passes to markRecord(), which
/// decides again on the stores' current state.
class MarkDialog : public QDialog {
    Q_OBJECT
public:
    /// A dialog for marking `detail`'s record `toStatus` (RecordStatusCode). `detail.record`
    /// must be set.
    MarkDialog(const KeyDetail &detail, RecordStatusCode toStatus, const QString &operatorName, QWidget *parent = nullptr);

    /// Adds the upstream's FOUND object (raw JSON text) as a snapshot choice.
    void addUpstreamObject(const QString &objectJson);
    /// Prefills from a suggested verdict: the snapshot (with its source, "ticket:<id>" or
    /// "upstream") is selected, and `evidenceJson` goes into MarkRequest::evidenceJson.
    void prefill(const std::optional<QString> &snapshot, const QString &source, const QString &evidenceJson,
                 const QString &reason = {});

    /// The request the dialog describes (expect = the state shown).
    MarkRequest request() const;
    /// The rules' live answer for the current inputs.
    MarkDecision decision() const;

    /// Parts, for tests and screenshots.
    QComboBox *snapshotSource() const { return m_source; }
    QPlainTextEdit *snapshotEdit() const { return m_snapshot; }
    QPlainTextEdit *reasonEdit() const { return m_reason; }
    QCheckBox *overrideBox() const { return m_override; }
    QLabel *rulesLabel() const { return m_rules; }
    /// The snapshot's parse error ("" when the snapshot is a JSON object or not needed).
    QString snapshotError() const { return m_snapshotError; }
    /// True when OK can be pressed: the rules allow the mark as the dialog describes it.
    bool canAccept() const;

private:
    struct Choice {
        QString title;
        std::optional<QString> text; ///< nullopt: typed by the operator
        QString source;
    };
    void addChoice(const Choice &c);
    void onSourceChanged(int index);
    void revalidate();
    MarkFacts facts() const;
    QString currentSnapshotText() const;

    KeyDetail m_detail;
    RecordStatusCode m_toStatus;
    QString m_operator;
    QString m_evidenceJson;
    QVector<Choice> m_choices;
    QString m_snapshotError;
    bool m_snapshotIsObject = false;

    QComboBox *m_source = nullptr;
    QPlainTextEdit *m_snapshot = nullptr;
    MessageBar *m_snapshotBar = nullptr;
    QPlainTextEdit *m_reason = nullptr;
    QLabel *m_reasonCount = nullptr;
    QCheckBox *m_override = nullptr;
    QLabel *m_rules = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace triage
