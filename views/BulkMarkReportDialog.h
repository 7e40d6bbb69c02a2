#pragma once

#include "ClaimGuard.h"
#include "Mark.h"

#include <QDialog>

class QLabel;
class QTableWidget;

namespace triage {

/// The per-row report of a bulk mark: one table row per key with its outcome (applied,
/// conflict, refused, error, dry-run) and message, and a summary line with the counts. Keys
/// left out because another operator holds them ("Skip claimed keys", DESIGN.md §8) follow as
/// rows "skipped" with the claim ("not marked: key K is held by alice until T (claimed by …)").
class BulkMarkReportDialog : public QDialog {
    Q_OBJECT
public:
    /// A report of `results` (one per request, same order).
    BulkMarkReportDialog(const QVector<MarkRequest> &requests, const QVector<Outcome<MarkResult>> &results,
                         const QVector<ClaimBlock> &skipped = {}, QWidget *parent = nullptr);
    /// Parts, for tests.
    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }

private:
    QTableWidget *m_table;
    QLabel *m_summary;
};

} // namespace triage
