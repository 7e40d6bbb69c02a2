#include "EvidenceView.h"

#include "JsonView.h"
#include "MessageBar.h"
#include "StatusTone.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace triage {

namespace {

QString headerLines(const HttpHeaderList &headers)
{
    QString out;
    for (const auto &h : headers)
        out += QStringLiteral("  %1: %2\n").arg(QString::fromLatin1(h.first), QString::fromUtf8(h.second));
    return out;
}

Tone verdictTone(VerdictKind k)
{
    switch (k) {
    case VerdictKind::Success: return Tone::Ok;
    case VerdictKind::Failed: return Tone::Danger;
    case VerdictKind::Wait: return Tone::Muted;
    default: return Tone::Warning;
    }
}

} // namespace

EvidenceView::EvidenceView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("evidenceView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);
    m_placeholder = new QLabel(m_stack);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_stack->addWidget(m_placeholder);

    auto *content = new QWidget(m_stack);
    auto *cl = new QVBoxLayout(content);
    cl->setContentsMargins(4, 4, 4, 4);
    cl->setSpacing(4);
    auto *top = new QHBoxLayout;
    m_verdict = new QLabel(content);
    m_verdict->setObjectName(QStringLiteral("verdictLabel"));
    m_apply = new QPushButton(QStringLiteral("Apply suggestion\u2026"), content);
    m_apply->setObjectName(QStringLiteral("applySuggestion"));
    m_apply->setToolTip(QStringLiteral("Open the mark dialog prefilled with this verdict (you still confirm)"));
    top->addWidget(m_verdict);
    top->addStretch(1);
    top->addWidget(m_apply);
    cl->addLayout(top);
    m_reason = new QLabel(content);
    m_reason->setObjectName(QStringLiteral("verdictReason"));
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cl->addWidget(m_reason);
    m_warnings = new QVBoxLayout;
    cl->addLayout(m_warnings);
    auto *split = new QSplitter(Qt::Horizontal, content);
    split->setChildrenCollapsible(false);
    m_exchange = new QPlainTextEdit(split);
    m_exchange->setObjectName(QStringLiteral("exchangeText"));
    m_exchange->setReadOnly(true);
    m_exchange->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_exchange->setFont(theme::monospaceFont(-1));
    m_body = new JsonView(split);
    m_body->setObjectName(QStringLiteral("upstreamBody"));
    split->addWidget(m_exchange);
    split->addWidget(m_body);
    split->setSizes({360, 360});
    cl->addWidget(split, 1);
    m_stack->addWidget(content);
    connect(m_apply, &QPushButton::clicked, this, &EvidenceView::applySuggestionRequested);
    clear(QStringLiteral("Not queried yet. \u201cQuery upstream\u201d asks the business system's own query API about "
                         "this key; the answer is evidence for the suggested verdict."));
}

void EvidenceView::clear(const QString &placeholder)
{
    m_check.reset();
    m_placeholder->setText(placeholder);
    m_stack->setCurrentWidget(m_placeholder);
}

void EvidenceView::setBusy(bool busy)
{
    if (busy && !m_check) {
        m_placeholder->setText(QStringLiteral("Querying upstream\u2026"));
        m_stack->setCurrentWidget(m_placeholder);
    }
}

QStringList EvidenceView::warnings() const
{
    QStringList out;
    for (int i = 0; i < m_warnings->count(); ++i)
        if (auto *bar = qobject_cast<MessageBar *>(m_warnings->itemAt(i)->widget()))
            out << bar->text();
    return out;
}

void EvidenceView::setCheck(const UpstreamCheck &check)
{
    m_check = check;
    const Verdict &v = check.verdict;
    const UpstreamEvidence &e = check.evidence;
    const bool recorded = !check.recordedAt.isEmpty();
    m_verdict->setText(recorded ? QStringLiteral("Recorded at %1: suggested verdict %2   (DESIGN.md \u00a76 row %3)")
                                      .arg(check.recordedAt, verdictName(v.kind))
                                      .arg(v.row)
                                : QStringLiteral("Suggested verdict: %1   (DESIGN.md \u00a76 row %2)").arg(verdictName(v.kind)).arg(v.row));
    m_verdict->setStyleSheet(theme::badgeStyleSheet(verdictTone(v.kind)));
    QString reason = QStringLiteral("<b>Why:</b> %1<br><b>Upstream:</b> %2%3 \u2014 %4")
                         .arg(v.why.toHtmlEscaped(), upstreamClassName(e.classification),
                              e.classification == UpstreamClass::Unusable ? QStringLiteral(" (%1)").arg(unusableKindName(e.kind))
                                                                           : QString(),
                              e.message.toHtmlEscaped());
    if (!v.facts.isEmpty())
        reason += QStringLiteral("<br><b>Facts:</b> ") + v.facts.join(QStringLiteral("; ")).toHtmlEscaped();
    if (v.snapshot)
        reason += QStringLiteral("<br><b>Snapshot from:</b> %1").arg(v.snapshotSource.toHtmlEscaped());
    if (recorded)
        reason += QStringLiteral("<br><i>From the audit trail: triage_audit #%1, recorded at %2 by %3.</i>")
                      .arg(check.auditId)
                      .arg(check.recordedAt.toHtmlEscaped(), check.recordedBy.toHtmlEscaped());
    else
        reason += check.auditId ? QStringLiteral("<br><i>Recorded as triage_audit #%1 (on the timeline).</i>").arg(check.auditId)
                                : QStringLiteral("<br><i>Not recorded: %1</i>").arg(check.recordNote.toHtmlEscaped());
    m_reason->setText(reason);
    // A recorded answer may be old: acting on it takes a fresh query.
    const bool applicable = !recorded && (v.kind == VerdictKind::Success || v.kind == VerdictKind::Failed);
    m_apply->setVisible(applicable);
    m_apply->setText(QStringLiteral("Apply suggestion: mark %1\u2026").arg(verdictName(v.kind)));

    while (QLayoutItem *item = m_warnings->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (recorded) {
        auto *bar = new MessageBar(this);
        bar->showMessage(MessageBar::Level::Info,
                         QStringLiteral("Latest recorded query (triage_audit #%1), recorded at %2 by %3 \u2014 not a fresh answer: "
                                        "query upstream again before acting on it.")
                             .arg(check.auditId)
                             .arg(check.recordedAt, check.recordedBy));
        m_warnings->addWidget(bar);
    }
    for (const QString &w : e.warnings) {
        auto *bar = new MessageBar(this);
        bar->showMessage(MessageBar::Level::Warning, w);
        m_warnings->addWidget(bar);
    }

    QString text;
    if (e.sent) {
        text += QStringLiteral("REQUEST  (sent %1)\n  %2 %3\n").arg(e.request.sentAt, QString::fromLatin1(e.request.method), e.request.url);
        text += headerLines(e.request.headers);
        text += QStringLiteral("\nRESPONSE  %1 ms\n  HTTP %2 %3\n")
                    .arg(e.elapsedMs)
                    .arg(e.httpStatus ? QString::number(*e.httpStatus) : QStringLiteral("\u2014 (no status line)"),
                         QString::fromLatin1(e.reasonPhrase));
        text += QStringLiteral("  content type: %1\n").arg(e.contentType.isEmpty() ? QStringLiteral("(none)") : e.contentType);
        text += headerLines(e.responseHeaders);
        if (!e.networkError.isEmpty())
            text += QStringLiteral("  network error: %1\n").arg(e.networkError);
    } else {
        text += QStringLiteral("No request was sent: %1\n").arg(e.message);
    }
    m_exchange->setPlainText(text);
    if (e.sent && (!e.rawBody.isEmpty() || e.httpStatus))
        m_body->setJsonText(QStringLiteral("response body"), QString::fromUtf8(e.rawBody));
    else
        m_body->clear(QStringLiteral("No response body."));
    m_stack->setCurrentIndex(1);
}

} // namespace triage
