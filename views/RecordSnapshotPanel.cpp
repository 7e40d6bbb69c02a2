#include "RecordSnapshotPanel.h"

#include "JsonView.h"
#include "RecordFieldsModel.h"
#include "Theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace triage {

namespace {

QLabel *sectionTitle(const QString &text, QWidget *parent)
{
    auto *l = new QLabel(text, parent);
    l->setStyleSheet(QStringLiteral("font-weight: bold; padding: 2px 2px;"));
    return l;
}

} // namespace

RecordSnapshotPanel::RecordSnapshotPanel(QWidget *parent)
    : QSplitter(Qt::Horizontal, parent), m_fieldsModel(new RecordFieldsModel(this))
{
    setChildrenCollapsible(false);
    addWidget(buildRecordPanel());
    addWidget(buildSnapshotPanel());
    setStretchFactor(0, 5);
    setStretchFactor(1, 6);
    setSizes({350, 400});
}

QWidget *RecordSnapshotPanel::buildRecordPanel()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(sectionTitle(QStringLiteral("idempotency_record"), panel));
    m_fieldsStack = new QStackedWidget(panel);
    m_fieldsTable = new QTableView(m_fieldsStack);
    m_fieldsTable->setObjectName(QStringLiteral("recordFields"));
    m_fieldsTable->setModel(m_fieldsModel);
    theme::setupTable(m_fieldsTable, Qt::ElideMiddle);
    theme::setColumnWidths(m_fieldsTable, {122});
    m_noRecordLabel = new QLabel(m_fieldsStack);
    m_noRecordLabel->setAlignment(Qt::AlignCenter);
    m_noRecordLabel->setWordWrap(true);
    m_noRecordLabel->setStyleSheet(QStringLiteral("color: %1; font-style: italic;").arg(theme::mutedText().name()));
    m_fieldsStack->addWidget(m_fieldsTable);
    m_fieldsStack->addWidget(m_noRecordLabel);
    layout->addWidget(m_fieldsStack, 1);
    return panel;
}

QWidget *RecordSnapshotPanel::buildSnapshotPanel()
{
    auto *panel = new QWidget(this);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *row = new QHBoxLayout;
    row->addWidget(sectionTitle(QStringLiteral("Snapshot"), panel));
    m_snapshotChoice = new QComboBox(panel);
    m_snapshotChoice->setObjectName(QStringLiteral("snapshotChoice"));
    m_snapshotChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_snapshotChoice->setToolTip(QStringLiteral("result_snapshot, or the state before / after of one intent attempt"));
    row->addWidget(m_snapshotChoice);
    row->addStretch(1);
    layout->addLayout(row);
    m_snapshot = new JsonView(panel);
    m_snapshot->setObjectName(QStringLiteral("snapshotView"));
    layout->addWidget(m_snapshot, 1);
    connect(m_snapshotChoice, &QComboBox::currentIndexChanged, this, &RecordSnapshotPanel::showSnapshotChoice);
    return panel;
}

void RecordSnapshotPanel::showDetail(const KeyDetail &d)
{
    // Record fields.
    m_fieldsModel->setRecord(d.record);
    if (d.record) {
        m_fieldsStack->setCurrentWidget(m_fieldsTable);
    } else {
        m_noRecordLabel->setText(d.errors.contains(DbRole::Idempotency) ? QStringLiteral("The idempotency database failed: see above.")
                                                                        : QStringLiteral("No idempotency_record row has this key."));
        m_fieldsStack->setCurrentWidget(m_noRecordLabel);
    }

    // Snapshot choices: result_snapshot, then each attempt's before / after state.
    m_snapshotSources.clear();
    if (d.record)
        m_snapshotSources.append({QStringLiteral("result_snapshot"), d.record->resultSnapshot});
    int preferred = d.record && d.record->resultSnapshot ? 0 : -1;
    for (int i = 0; i < d.attempts.size(); ++i) {
        const IntentAttempt &a = d.attempts[i];
        const QString prefix = QStringLiteral("attempt %1 (#%2)").arg(i + 1).arg(a.id);
        if (a.stateBefore) {
            m_snapshotSources.append({prefix + QStringLiteral(" \u00b7 state_before"), a.stateBefore});
            if (!(d.record && d.record->resultSnapshot))
                preferred = int(m_snapshotSources.size()) - 1;
        }
        if (a.stateAfter) {
            m_snapshotSources.append({prefix + QStringLiteral(" \u00b7 state_after"), a.stateAfter});
            if (!(d.record && d.record->resultSnapshot))
                preferred = int(m_snapshotSources.size()) - 1;
        }
    }
    {
        const QSignalBlocker block(m_snapshotChoice);
        m_snapshotChoice->clear();
        for (const SnapshotSource &s : m_snapshotSources)
            m_snapshotChoice->addItem(s.title);
        m_snapshotChoice->setCurrentIndex(qMax(0, preferred));
    }
    if (m_snapshotSources.isEmpty())
        m_snapshot->clear(QStringLiteral("No snapshot: there is no record and no intent attempt."));
    else
        showSnapshotChoice(m_snapshotChoice->currentIndex());
}

void RecordSnapshotPanel::showSnapshotChoice(int index)
{
    if (index < 0 || index >= m_snapshotSources.size())
        return;
    m_snapshot->setJsonText(m_snapshotSources[index].title, m_snapshotSources[index].text);
}

} // namespace triage
