#include "BulkQueryDialog.h"

#include "EnvironmentBand.h"
#include "MessageBar.h"
#include "ReportTable.h"
#include "TextEscape.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace triage {

BulkQueryDialog::BulkQueryDialog(Workspace *workspace, UpstreamClient *client, QVector<KeyDetail> details, QWidget *parent)
    : QDialog(parent), m_workspace(workspace), m_client(client), m_details(std::move(details))
{
    setObjectName(QStringLiteral("bulkQueryDialog"));
    setWindowTitle(QStringLiteral("Query %1 upstream").arg(countText(m_details.size(), QStringLiteral("key"))));
    resize(900, 520);
    auto *layout = new QVBoxLayout(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, int(m_details.size()));
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%v of %m answered"));
    layout->addWidget(m_progress);
    m_pauseBar = new MessageBar(this);
    m_pauseBar->setObjectName(QStringLiteral("bulkPauseBar"));
    layout->addWidget(m_pauseBar);
    auto *pauseButtons = new QHBoxLayout;
    m_resume = new QPushButton(QStringLiteral("Resume"), this);
    m_stop = new QPushButton(QStringLiteral("Stop"), this);
    m_resume->hide();
    m_stop->hide();
    pauseButtons->addStretch(1);
    pauseButtons->addWidget(m_resume);
    pauseButtons->addWidget(m_stop);
    layout->addLayout(pauseButtons);
    m_table = reportTable({QStringLiteral("idem_key"), QStringLiteral("upstream"), QStringLiteral("kind"), QStringLiteral("ms"),
                           QStringLiteral("verdict"), QStringLiteral("audit")},
                          int(m_details.size()), this);
    m_table->setObjectName(QStringLiteral("bulkQueryTable"));
    m_table->setColumnWidth(0, 300);
    for (int i = 0; i < m_details.size(); ++i) {
        setCell(m_table, i, 0, m_details[i].idemKey);
        setCell(m_table, i, 1, QStringLiteral("waiting\u2026"));
    }
    layout->addWidget(m_table, 1);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("bulkQuerySummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto *buttons = new QHBoxLayout;
    m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
    m_close = new QPushButton(QStringLiteral("Close"), this);
    m_close->setEnabled(false);
    buttons->addStretch(1);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_close);
    layout->addLayout(buttons);
    connect(m_resume, &QPushButton::clicked, this, &BulkQueryDialog::resume);
    connect(m_stop, &QPushButton::clicked, this, &BulkQueryDialog::stop);
    connect(m_cancel, &QPushButton::clicked, this, &BulkQueryDialog::cancel);
    connect(m_close, &QPushButton::clicked, this, &QDialog::accept);
    stampEnvironmentOn(this, workspace->config()); // DESIGN.md §5 "Environments": its queries are audited writes
}

BulkQueryDialog::~BulkQueryDialog()
{
    if (m_run)
        m_run->cancel();
}

void BulkQueryDialog::start()
{
    UpstreamBulkOptions options;
    options.pauseAfterUnusable = kPauseAfterUnusable;
    m_handled = QVector<bool>(m_details.size(), false);
    m_shownChecked = QVector<bool>(m_details.size(), false);
    // The run starts on the network thread at once, so fast answers (a refused connection)
    // may come before the connections below exist: the pause is posted from the hook, and
    // onFinished() (from the report future) fills in any answer or audit row whose signal
    // was missed. The backend records each answer as it arrives and stops at a failed write.
    m_summary->setText(QStringLiteral("Querying\u2026"));
    QPointer<BulkQueryDialog> self(this);
    m_bulk = checkUpstreamMany(*m_workspace, *m_client, m_details, options, [self](const UpstreamBulkPause &pause) {
        QMetaObject::invokeMethod(
            qApp, [self, pause] { if (self) self->onPaused(pause); }, Qt::QueuedConnection);
        return UpstreamBulkDecision::Wait; // the operator decides (Resume / Stop) in the pause panel
    });
    m_run = m_bulk->run();
    connect(m_run, &UpstreamBulkRun::resultReady, this, &BulkQueryDialog::onResult);
    connect(m_run, &UpstreamBulkRun::progress, this, [this](int done, int) { m_progress->setValue(qMax(done, m_progress->value())); });
    connect(m_bulk.get(), &UpstreamBulkCheck::checked, this, &BulkQueryDialog::onChecked);
    // The report future, not a signal: it is delivered even when the run ended before this
    // line, and always later, from the event loop (whenReady()).
    whenReady(m_bulk->report(), this, [this](const UpstreamBulkCheckReport &report) { onFinished(report); });
}

void BulkQueryDialog::onPaused(const UpstreamBulkPause &p)
{
    if (m_ended || !m_run || m_run->state() != UpstreamBulkState::Paused)
        return;
    {
        m_pauseBar->showMessage(MessageBar::Level::Warning,
                                QStringLiteral("Paused after %1 unusable answers in a row (%2 of %3 answered; last: %4). The "
                                               "upstream may be down: resume, or stop and keep what was answered?")
                                    .arg(p.consecutiveUnusable)
                                    .arg(p.done)
                                    .arg(p.total)
                                    .arg(p.last.message));
        m_resume->show();
        m_stop->show();
        m_summary->setText(QStringLiteral("Paused: no new requests until you resume or stop."));
    }
}

void BulkQueryDialog::onResult(int index, const UpstreamEvidence &evidence)
{
    if (index < 0 || index >= m_details.size() || m_handled.value(index))
        return;
    m_handled[index] = true;
    setCell(m_table, index, 1, upstreamClassName(evidence.classification));
    setCell(m_table, index, 2, evidence.classification == UpstreamClass::Unusable ? unusableKindName(evidence.kind) : QString());
    setCell(m_table, index, 3, evidence.elapsedMs >= 0 ? QString::number(evidence.elapsedMs) : QString());
    if (evidence.kind == UnusableKind::Cancelled)
        return; // not an answer: nothing to record
    if (!m_shownChecked.value(index))
        setCell(m_table, index, 5, QStringLiteral("recording\u2026"));
}

void BulkQueryDialog::onChecked(int index, const UpstreamCheck &check)
{
    if (index < 0 || index >= m_details.size() || m_shownChecked.value(index))
        return;
    if (!m_handled.value(index))
        onResult(index, check.evidence);
    m_shownChecked[index] = true;
    setCell(m_table, index, 4, QStringLiteral("%1 (row %2)").arg(verdictName(check.verdict.kind)).arg(check.verdict.row));
    m_table->item(index, 4)->setToolTip(check.verdict.reason);
    setCell(m_table, index, 5, check.auditId ? QStringLiteral("#%1").arg(check.auditId) : check.recordNote);
}

void BulkQueryDialog::onFinished(const UpstreamBulkCheckReport &report)
{
    if (m_ended)
        return;
    // Answers and audit rows whose signals arrived before the connections existed.
    for (int i = 0; i < report.checks.size() && i < m_details.size(); ++i) {
        if (report.answered.value(i))
            onChecked(i, report.checks.at(i));
        else if (!m_handled.value(i) && i < report.run.results.size() && report.run.results[i].sent)
            onResult(i, report.run.results[i]);
    }
    m_progress->setValue(int(m_details.size()));
    m_ended = true;
    m_pauseBar->clearMessage();
    m_resume->hide();
    m_stop->hide();
    m_cancel->setEnabled(false);
    m_close->setEnabled(true);
    const UpstreamBulkReport &run = report.run;
    for (int i = 0; i < m_details.size(); ++i)
        if (m_table->item(i, 1) && m_table->item(i, 1)->text() == QStringLiteral("waiting\u2026"))
            setCell(m_table, i, 1, QStringLiteral("not sent (%1)").arg(upstreamBulkStateName(run.state)));
    m_endText = QStringLiteral("%1 in %2 ms: %3 found, %4 not found, %5 ambiguous, %6 unusable (%7 timed out), %8 cancelled "
                               "or not sent.")
                    .arg(upstreamBulkStateName(run.state))
                    .arg(run.wallMs)
                    .arg(run.found)
                    .arg(run.notFound)
                    .arg(run.ambiguous)
                    .arg(run.unusable)
                    .arg(run.timedOut)
                    .arg(run.cancelled);
    if (report.auditError) {
        const QStringList lost = report.unrecordedKeys();
        m_pauseBar->showMessage(MessageBar::Level::Error,
                                QStringLiteral("Stopped: the audit write failed (%1); no further upstream calls were made. Not "
                                               "recorded in the audit trail (%2 of %3): %4")
                                    .arg(report.auditError->message)
                                    .arg(lost.size())
                                    .arg(m_details.size())
                                    .arg(lost.join(QStringLiteral(", "))));
        m_summary->setText(m_endText + QStringLiteral(" %1 of %2 are NOT in the audit trail.").arg(lost.size()).arg(countText(int(m_details.size()), QStringLiteral("key"))));
    } else {
        m_summary->setText(m_endText + QStringLiteral(" Every answer is in the audit trail."));
    }
    emit done();
}

void BulkQueryDialog::resume()
{
    m_pauseBar->clearMessage();
    m_resume->hide();
    m_stop->hide();
    m_summary->setText(QStringLiteral("Querying\u2026"));
    if (m_run)
        m_run->resume();
}

void BulkQueryDialog::stop()
{
    if (m_run)
        m_run->stop();
}

void BulkQueryDialog::cancel()
{
    if (m_run)
        m_run->cancel();
}

} // namespace triage
