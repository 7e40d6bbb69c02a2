#pragma once

#include "ClaimGuard.h"
#include "KeyDetail.h"
#include "Mark.h"
#include "RecordStatus.h"

#include <QDialog>

class QCheckBox;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace triage {

/// Confirmation of a bulk mark (DESIGN.md §2): the number of records and every
/// key with its change and snapshot source (scrollable), a required reason and a dry-run
/// checkbox. For SUCCESS each record's snapshot is its single ticket row's payload; a key
/// without exactly one ticket (or without a record) is listed with what the backend will
/// answer, never dropped silently. A key another operator holds shows the claim ("claimed by
/// alice, 4 min ago (until T)", DESIGN.md §8): accepting asks first (MainWindow).
class BulkMarkDialog : public QDialog {
    Q_OBJECT
public:
    /// A confirmation for marking the records of `details` `toStatus`; `held` the keys other
    /// operators hold (claimsAskingFirst() when the dialog opens), shown on their lines.
    BulkMarkDialog(QVector<KeyDetail> details, RecordStatusCode toStatus, const QVector<ClaimBlock> &held = {},
                   QWidget *parent = nullptr);
    /// One request per key, in order (expect = the state loaded, readBack off).
    QVector<MarkRequest> requests(const QString &operatorName) const;
    /// Parts, for tests.
    QPlainTextEdit *reasonEdit() const { return m_reason; }
    QCheckBox *dryRunBox() const { return m_dryRun; }
    QListWidget *keyList() const { return m_keys; }

private:
    QVector<KeyDetail> m_details;
    RecordStatusCode m_toStatus;
    QListWidget *m_keys;
    QPlainTextEdit *m_reason;
    QCheckBox *m_dryRun;
    QPushButton *m_ok;
};

} // namespace triage
