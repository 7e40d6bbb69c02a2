#include "BulkActions.h"

#include "CanonicalTicket.h"
#include "TextEscape.h"

#include "MarkDialog.h"
#include "MessageBar.h"
#include "RecordStatus.h"
#include "Theme.h"
#include "Workspace.h"
#include "WhenReady.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QApplication>
#include <QPointer>
#include <QVariant>

namespace triage {

namespace {

/// The ticket a bulk SUCCESS takes the snapshot from (the backend's canonical-ticket rule).
std::optional<TicketRow> singleTicket(const KeyDetail &d)
{
    return snapshotTicketFor(d, std::nullopt).ticket;
}

QTableWidget *reportTable(const QStringList &headers, int rows, QWidget *parent)
{
    auto *t = new QTableWidget(rows, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

void setCell(QTableWidget *t, int row, int col, const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setToolTip(text);
    t->setItem(row, col, item);
}

} // namespace

BulkMarkDialog::BulkMarkDialog(QVector<KeyDetail> details, int toStatus, QWidget *parent)
    : QDialog(parent), m_details(std::move(details)), m_toStatus(toStatus)
{
    setObjectName(QStringLiteral("bulkMarkDialog"));
    const QString to = recordStatusText(QVariant(toStatus));
    setWindowTitle(QStringLiteral("Mark %1 records %2").arg(m_details.size()).arg(to));
    resize(760, 520);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(QStringLiteral("<b>This changes %1 to %2.</b> Each row is its own "
                                            "compare-and-set against the state loaded now; a row that changed meanwhile is "
                                            "reported as a conflict and left alone.")
                                 .arg(countText(m_details.size(), QStringLiteral("production idempotency record")))
                                 .arg(to),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_keys = new QListWidget(this);
    m_keys->setObjectName(QStringLiteral("bulkKeys"));
    m_keys->setFont(theme::monospaceFont(-0.5));
    for (const KeyDetail &d : m_details) {
        QString line = d.idemKey;
        if (!d.record) {
            line += QStringLiteral("   \u2014 no record: will be refused");
        } else {
            line += QStringLiteral("   %1 \u2192 %2").arg(d.record->statusText, to);
            if (toStatus == Success) {
                const SnapshotTicketChoice choice = snapshotTicketFor(d, std::nullopt);
                line += choice.ticket ? QStringLiteral(", snapshot from ticket #%1").arg(choice.ticket->id)
                                      : QStringLiteral(", will be refused: %1").arg(choice.refusal);
            }
            // The backend's rule on the loaded facts, as a bulk row (a placeholder reason:
            // the reason's own check is shown at the OK button).
            const MarkDecision rules = decideMark(markFactsFrom(d.record, markEvidenceOf(d)), toStatus,
                                                  QString(kMarkReasonMinLength, QLatin1Char('x')), false,
                                                  toStatus != Success || singleTicket(d).has_value(), QStringLiteral("no snapshot"), true);
            if (!rules.allowed && (toStatus != Success || singleTicket(d).has_value()))
                line += QStringLiteral(" \u2014 will be refused: %1").arg(rules.reason);
        }
        m_keys->addItem(line);
        m_keys->item(m_keys->count() - 1)->setToolTip(line);
    }
    layout->addWidget(m_keys, 1);
    layout->addWidget(new QLabel(QStringLiteral("<b>Reason</b> (at least %1 characters, audited on every row):").arg(kMarkReasonMinLength),
                                 this));
    m_reason = new QPlainTextEdit(this);
    m_reason->setObjectName(QStringLiteral("bulkReason"));
    m_reason->setMaximumHeight(70);
    layout->addWidget(m_reason);
    m_dryRun = new QCheckBox(QStringLiteral("Dry run: check every row, change nothing"), this);
    m_dryRun->setObjectName(QStringLiteral("bulkDryRun"));
    layout->addWidget(m_dryRun);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(QStringLiteral("Mark %1 %2").arg(m_details.size()).arg(to));
    m_ok->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QPlainTextEdit::textChanged, this,
            [this] { m_ok->setEnabled(m_reason->toPlainText().trimmed().size() >= kMarkReasonMinLength); });
    connect(m_dryRun, &QCheckBox::toggled, this, [this, to](bool dry) {
        m_ok->setText(dry ? QStringLiteral("Check %1 (dry run)").arg(m_details.size())
                          : QStringLiteral("Mark %1 %2").arg(m_details.size()).arg(to));
    });
}

QVector<MarkRequest> BulkMarkDialog::requests(const QString &operatorName) const
{
    QVector<MarkRequest> out;
    for (const KeyDetail &d : m_details) {
        MarkRequest r;
        r.idemKey = d.idemKey;
        r.toStatus = m_toStatus;
        r.reason = m_reason->toPlainText().trimmed();
        r.operatorName = operatorName;
        r.dryRun = m_dryRun->isChecked();
        r.readBack = false;
        if (d.record)
            r.expect = expectedStateOf(*d.record);
        if (m_toStatus == Success) {
            setSnapshotFrom(r, snapshotTicketFor(d, std::nullopt));
        }
        out << r;
    }
    return out;
}

BulkMarkReportDialog::BulkMarkReportDialog(const QVector<MarkRequest> &requests, const QVector<Outcome<MarkResult>> &results,
                                           QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("bulkMarkReport"));
    setWindowTitle(QStringLiteral("Bulk mark: %1").arg(countText(requests.size(), QStringLiteral("row"))));
    resize(860, 480);
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("bulkSummary"));
    layout->addWidget(m_summary);
    m_table = reportTable({QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("audit"), QStringLiteral("message")},
                          int(requests.size()), this);
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
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
    m_summary->setText(QStringLiteral("%1: %2").arg(countText(requests.size(), QStringLiteral("row")), parts.join(QStringLiteral(", "))));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

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
