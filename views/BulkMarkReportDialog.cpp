#include "BulkMarkReportDialog.h"

#include "ReportTable.h"
#include "TextEscape.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace triage {

BulkMarkReportDialog::BulkMarkReportDialog(const QVector<MarkRequest> &requests, const QVector<Outcome<MarkResult>> &results,
                                           const QVector<ClaimBlock> &skipped, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("bulkMarkReport"));
    const int rows = int(requests.size() + skipped.size());
    setWindowTitle(QStringLiteral("Bulk mark: %1").arg(countText(rows, QStringLiteral("row"))));
    resize(860, 480);
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("bulkSummary"));
    layout->addWidget(m_summary);
    m_table = reportTable({QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("audit"), QStringLiteral("message")},
                          rows, this);
    m_table->setObjectName(QStringLiteral("bulkReportTable"));
    m_table->setColumnWidth(0, 300);
    QMap<QString, int> counts;
    for (int i = 0; i < requests.size(); ++i) {
        setCell(m_table, i, 0, requests[i].idemKey);
        if (i >= results.size()) {
            setCell(m_table, i, 1, QStringLiteral("error"));
            setCell(m_table, i, 3, QStringLiteral("no result"));
            ++counts[QStringLiteral("error")];
            continue;
        }
        const Outcome<MarkResult> &o = results[i];
        const QString kind = o.ok() ? markKindName(o->kind) : QStringLiteral("error");
        ++counts[kind];
        setCell(m_table, i, 1, kind);
        setCell(m_table, i, 2, o.ok() && o->auditId ? QStringLiteral("#%1").arg(o->auditId) : QString());
        setCell(m_table, i, 3, o.ok() ? o->message : (o.error ? o.error->message : QStringLiteral("unknown error")));
        const QColor tone = kind == QLatin1String("applied") || kind == QLatin1String("dry-run") ? QColor(0xe6, 0xf4, 0xea)
                          : kind == QLatin1String("refused")                                       ? QColor(0xff, 0xf4, 0xd6)
                                                                                                   : QColor(0xfd, 0xe7, 0xe7);
        m_table->item(i, 1)->setBackground(tone);
    }
    for (int j = 0; j < skipped.size(); ++j) {
        const int i = int(requests.size()) + j;
        setCell(m_table, i, 0, skipped[j].idemKey);
        setCell(m_table, i, 1, QStringLiteral("skipped"));
        setCell(m_table, i, 3, QStringLiteral("not marked: %1").arg(skipped[j].message()));
        m_table->item(i, 1)->setBackground(QColor(0xff, 0xf4, 0xd6));
        ++counts[QStringLiteral("skipped")];
    }
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
    m_summary->setText(QStringLiteral("%1: %2").arg(countText(rows, QStringLiteral("row")), parts.join(QStringLiteral(", "))));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

} // namespace triage
