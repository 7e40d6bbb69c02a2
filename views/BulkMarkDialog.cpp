#include "BulkMarkDialog.h"

#include "CanonicalTicket.h"
#include "RecordStatus.h"
#include "TextEscape.h"
#include "Theme.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace triage {

namespace {

/// The ticket a bulk SUCCESS takes the snapshot from (the backend's canonical-ticket rule).
std::optional<TicketRow> singleTicket(const KeyDetail &d)
{
    return snapshotTicketFor(d, std::nullopt).ticket;
}

} // namespace

BulkMarkDialog::BulkMarkDialog(QVector<KeyDetail> details, RecordStatusCode toStatus, const QVector<ClaimBlock> &held,
                               QWidget *parent)
    : QDialog(parent), m_details(std::move(details)), m_toStatus(toStatus)
{
    setObjectName(QStringLiteral("bulkMarkDialog"));
    const QString to = recordStatusName(toStatus);
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
    QHash<QString, Claim> claimOf;
    for (const ClaimBlock &b : held)
        claimOf.insert(b.idemKey, b.claim);
    if (!held.isEmpty()) {
        auto *claims = new QLabel(QStringLiteral("%1 claimed by other operators (shown on their lines): you will be asked before "
                                                 "they are marked.")
                                      .arg(held.size() == 1 ? QStringLiteral("1 key is") : QStringLiteral("%1 keys are").arg(held.size())),
                                  this);
        claims->setObjectName(QStringLiteral("bulkClaims"));
        claims->setWordWrap(true);
        layout->addWidget(claims);
    }
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
                line += choice.ticket ? QStringLiteral(", snapshot from ticket #%1").arg(choice.ticket->id.text())
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
        const auto c = claimOf.constFind(d.idemKey);
        if (c != claimOf.cend())
            line += QStringLiteral("   \u2014 %1").arg(claimedUntilText(*c));
        m_keys->addItem(line);
        m_keys->item(m_keys->count() - 1)->setToolTip(line);
        if (c != claimOf.cend()) // visible without scrolling to the claim at the end of the line
            m_keys->item(m_keys->count() - 1)->setBackground(QColor(0xff, 0xf4, 0xd6));
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

} // namespace triage
