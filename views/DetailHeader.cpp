#include "DetailHeader.h"

#include "DeepLink.h"

#include "MessageBar.h"
#include "StatusTone.h"
#include "TextEscape.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QClipboard>
#include <QGuiApplication>
#include <QPushButton>
#include <QVBoxLayout>

namespace triage {

DetailHeader::DetailHeader(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("detailHeader"));
    setStyleSheet(QStringLiteral("QFrame#detailHeader { background: #f7f8fa; border: 1px solid #e1e4e8; border-radius: 5px; }"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(5);
    m_keyLabel = new QLabel(this);
    m_keyLabel->setObjectName(QStringLiteral("detailKey"));
    m_keyLabel->setFont([] {
        QFont f = theme::monospaceFont(0.5);
        f.setBold(true);
        return f;
    }());
    m_keyLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_keyLabel->setMinimumWidth(100);
    m_keyLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_keyLabel);
    auto *row = new QHBoxLayout;
    row->setSpacing(10);
    m_statusBadge = new QLabel(this);
    m_statusBadge->setObjectName(QStringLiteral("detailStatus"));
    m_metaLabel = new QLabel(this);
    m_metaLabel->setObjectName(QStringLiteral("detailMeta"));
    m_metaLabel->setStyleSheet(QStringLiteral("color: #4a4f55;"));
    m_metaLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_metaLabel->setWordWrap(true); // a long line wraps; it never widens the window
    m_loadingLabel = new QLabel(QStringLiteral("loading\u2026"), this);
    m_loadingLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_loadingLabel->setVisible(false);
    row->addWidget(m_statusBadge);
    row->addWidget(m_metaLabel, 1);
    row->addWidget(m_loadingLabel);
    m_claimLabel = new QLabel(this);
    m_claimLabel->setObjectName(QStringLiteral("detailClaim"));
    m_claimLabel->setStyleSheet(QStringLiteral("color: #8a5a00; font-weight: 600;"));
    m_claimLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_claimLabel->setVisible(false);
    row->addWidget(m_claimLabel);
    layout->addLayout(row);
    layout->addWidget(buildActions());
    m_proposalBar = new MessageBar(this);
    m_proposalBar->setObjectName(QStringLiteral("proposalBar"));
    layout->addWidget(m_proposalBar);
    m_liveBar = new MessageBar(this);
    m_liveBar->setObjectName(QStringLiteral("liveBar"));
    layout->addWidget(m_liveBar);
    m_actionBar = new MessageBar(this);
    m_actionBar->setObjectName(QStringLiteral("actionBar"));
    layout->addWidget(m_actionBar);
    m_conflictBar = new MessageBar(this);
    m_conflictBar->setObjectName(QStringLiteral("conflictBar"));
    m_conflictBar->setActionText(QStringLiteral("Reload"));
    connect(m_conflictBar, &MessageBar::actionTriggered, this, [this] {
        m_conflictBar->clearMessage();
        emit reloadRequested();
    });
    layout->addWidget(m_conflictBar);
    m_messageLayout = new QVBoxLayout;
    m_messageLayout->setSpacing(4);
    layout->addLayout(m_messageLayout);
}

QWidget *DetailHeader::buildActions()
{
    auto *box = new QWidget(this);
    auto *column = new QVBoxLayout(box);
    column->setContentsMargins(0, 2, 0, 0);
    column->setSpacing(2);
    auto *row = new QHBoxLayout;
    row->setSpacing(6);
    column->addLayout(row);
    m_queryButton = new QPushButton(QStringLiteral("Query upstream"), box);
    m_queryButton->setObjectName(QStringLiteral("queryUpstream"));
    m_markSuccessButton = new QPushButton(QStringLiteral("Mark SUCCESS\u2026"), box);
    m_markSuccessButton->setObjectName(QStringLiteral("markSuccess"));
    m_markFailedButton = new QPushButton(QStringLiteral("Mark FAILED\u2026"), box);
    m_markFailedButton->setObjectName(QStringLiteral("markFailed"));
    m_readOnlyNote = new QLabel(box);
    m_readOnlyNote->setObjectName(QStringLiteral("readOnlyNote"));
    m_readOnlyNote->setStyleSheet(QStringLiteral("color: %1; font-style: italic;").arg(theme::mutedText().name()));
    // Under the buttons, wrapped: one line beside them would hold the pane at its width (clipped
    // in a narrow pane, such as beside the Incident tab or in a bundle's window).
    m_readOnlyNote->setWordWrap(true);
    row->addWidget(m_queryButton);
    row->addWidget(m_markSuccessButton);
    row->addWidget(m_markFailedButton);
    row->addStretch(1);
    m_copyLinkButton = new QPushButton(QStringLiteral("Copy link"), box);
    m_copyLinkButton->setObjectName(QStringLiteral("copyKeyLink"));
    m_copyLinkButton->setToolTip(QStringLiteral("Copies triage://key/<key> (percent-encoded): triage-console --open LINK opens this key"));
    m_copyLinkButton->setEnabled(false);
    connect(m_copyLinkButton, &QPushButton::clicked, this, [this] {
        const QString link = keyLink(m_key);
        QGuiApplication::clipboard()->setText(link);
        m_actionBar->showMessage(MessageBar::Level::Info, QStringLiteral("Link copied: %1").arg(link));
    });
    row->addWidget(m_copyLinkButton);
    column->addWidget(m_readOnlyNote);
    return box;
}

void DetailHeader::setKey(const QString &key)
{
    m_key = key;
    m_copyLinkButton->setEnabled(!key.isEmpty());
    m_keyLabel->setText(key);
    m_keyLabel->setToolTip(key);
}

void DetailHeader::setLoading(bool loading)
{
    m_loadingLabel->setVisible(loading);
}

void DetailHeader::clearActionMessages()
{
    m_actionBar->clearMessage();
    m_conflictBar->clearMessage();
}

void DetailHeader::addMessage(MessageBar::Level level, const QString &text)
{
    auto *bar = new MessageBar(this);
    bar->showMessage(level, text);
    m_messageLayout->addWidget(bar);
}

void DetailHeader::clearMessages()
{
    while (QLayoutItem *item = m_messageLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

QStringList DetailHeader::messages() const
{
    QStringList out;
    for (int i = 0; i < m_messageLayout->count(); ++i)
        if (auto *bar = qobject_cast<MessageBar *>(m_messageLayout->itemAt(i)->widget()))
            out << bar->text(); // as shown (MessageBar::sentence())
    return out;
}

void DetailHeader::showClaim(const std::optional<Claim> &claim)
{
    // A claim on one of the key's open escalations holds the key too (DESIGN.md §8 "Claims stop others").
    m_claimLabel->setText(!claim ? QString()
                          : claim->scope == ClaimScope::Escalation
                              ? QStringLiteral("escalation %1 %2").arg(claim->subject, claimedByText(*claim))
                              : claimedByText(*claim));
    m_claimLabel->setToolTip(claim ? QStringLiteral("until %1 (the database's clock)").arg(claim->expiresAt) : QString());
    m_claimLabel->setVisible(claim.has_value());
}

void DetailHeader::showDetail(const KeyDetail &d)
{
    const auto warning = MessageBar::Level::Warning;
    const auto error = MessageBar::Level::Error;

    // Header: status badge, key, what we know at a glance.
    QString statusText;
    Tone tone = Tone::Muted;
    if (d.record) {
        statusText = d.record->statusText;
        tone = recordStatusTone(statusText, d.record->stale);
        if (d.record->stale)
            statusText = QStringLiteral("PROCESSING \u00b7 stale");
    } else if (!d.attempts.isEmpty()) {
        statusText = QStringLiteral("no record \u00b7 %1").arg(d.attempts.last().status.value_or(QStringLiteral("NULL")));
        tone = intentStatusTone(d.attempts.last().status.value_or(QStringLiteral("NULL")));
    } else {
        statusText = QStringLiteral("no record");
    }
    m_statusBadge->setText(statusText);
    m_statusBadge->setStyleSheet(theme::badgeStyleSheet(tone));
    QStringList meta;
    if (d.record) {
        meta << d.record->bizType.value_or(QStringLiteral("biz_type NULL"));
        if (!d.record->tenant.isEmpty())
            meta << QStringLiteral("tenant %1").arg(d.record->tenant);
        // A bundle's record: its age on the database's clock when the export read it, or not
        // known at all (a bundle of format version 1 or 2), never "0ms" (DESIGN.md §7).
        switch (d.record->ageBasis) {
        case RecordDetail::AgeBasis::Live:
            meta << QStringLiteral("updated %1 ago").arg(humanDuration(d.record->ageSeconds));
            break;
        case RecordDetail::AgeBasis::AtExport:
            meta << QStringLiteral("updated %1 before the export").arg(humanDuration(d.record->ageSeconds));
            break;
        case RecordDetail::AgeBasis::Unknown:
            meta << QStringLiteral("age unknown (not in this bundle)");
            break;
        }
    }
    // A store that failed is unknown, never "0".
    auto part = [&](DbRole role, qsizetype n, const QString &noun, const QString &nouns) {
        if (!d.errors.contains(role))
            return countText(n, noun);
        if (d.keptFromEarlier.contains(role))
            return QStringLiteral("%1 as read earlier (%2 failed now)").arg(countText(n, noun), roleTitle(role));
        return QStringLiteral("%1: unknown (%2 failed)").arg(nouns, roleTitle(role));
    };
    meta << part(DbRole::Ticket, d.tickets.size(), QStringLiteral("ticket"), QStringLiteral("tickets"));
    meta << part(DbRole::Intent, d.attempts.size(), QStringLiteral("intent attempt"), QStringLiteral("intent attempts"));
    m_metaLabel->setText(meta.join(QStringLiteral("  \u00b7  ")));

    clearMessages();
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it) {
        const QString part = it.key() == DbRole::Idempotency ? QStringLiteral("the record")
            : it.key() == DbRole::Intent                     ? QStringLiteral("the intent attempts")
                                                             : QStringLiteral("the tickets");
        if (d.keptFromEarlier.contains(it.key()))
            addMessage(error, QStringLiteral("%1 \u2014 %2: shown as read earlier (this refresh failed; they may have changed "
                                             "since); everything else below is current.")
                                  .arg(it->message, part));
        else
            addMessage(error, QStringLiteral("%1 \u2014 %2: unknown (the %3 failed); everything else below is current.")
                                  .arg(it->message, part, roleTitle(it.key())));
    }
    if (d.record) {
        const RecordDetail &r = *d.record;
        if (r.stale && r.ageBasis == RecordDetail::AgeBasis::Live)
            addMessage(warning, QStringLiteral("Stale: PROCESSING for %1, longer than the %2 s processing timeout. The outcome "
                                               "is UNKNOWN: the side effect may or may not have happened.")
                                    .arg(humanDuration(r.ageSeconds))
                                    .arg(r.processingTimeoutS));
        else if (r.stale && r.ageBasis == RecordDetail::AgeBasis::AtExport)
            addMessage(warning, QStringLiteral("Stale at the export: PROCESSING for %1 then, longer than the %2 s processing timeout. "
                                               "The outcome was UNKNOWN: the side effect may or may not have happened.")
                                    .arg(humanDuration(r.ageSeconds))
                                    .arg(r.processingTimeoutS));
        else if (r.stale)
            addMessage(warning, QStringLiteral("Stale at the export: PROCESSING longer than the %1 s processing timeout (its age "
                                               "is not in this bundle). The outcome was UNKNOWN: the side effect may or may not "
                                               "have happened.")
                                    .arg(r.processingTimeoutS));
        if (r.statusText.startsWith(QLatin1String("UNKNOWN_CODE_")) || r.statusText == QLatin1String("NULL"))
            addMessage(warning, QStringLiteral("Status %1 is not one the console knows (the seeds' codes 0, 1, 2 or the [idempotency.map] spellings): "
                                               "treat the outcome as unknown.")
                                    .arg(r.statusText));
    } else if (!d.errors.contains(DbRole::Idempotency)) {
        if (d.tickets.isEmpty() && d.attempts.isEmpty() && d.errors.isEmpty())
            addMessage(MessageBar::Level::Info, QStringLiteral("No idempotency record, ticket or intent-log attempt "
                                                                    "carries this key."));
        else
            addMessage(warning, QStringLiteral("No idempotency record carries this key."));
    }
    for (const QString &w : d.warnings)
        addMessage(warning, w.endsWith(QLatin1Char('.')) ? w : w + QLatin1Char('.'));
}

} // namespace triage
