#include "MarkDialog.h"

#include "CanonicalTicket.h"
#include "MessageBar.h"
#include "RecordStatus.h"
#include "Theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QVariant>

namespace triage {

namespace {

QLabel *valueLabel(const QString &text, QWidget *parent, bool mono = true)
{
    auto *l = new QLabel(text, parent);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setWordWrap(true);
    if (mono)
        l->setFont(theme::monospaceFont(0));
    return l;
}

} // namespace

MarkDialog::MarkDialog(const KeyDetail &detail, RecordStatusCode toStatus, const QString &operatorName, QWidget *parent)
    : QDialog(parent), m_detail(detail), m_toStatus(toStatus), m_operator(operatorName)
{
    setObjectName(QStringLiteral("markDialog"));
    const RecordDetail &r = *m_detail.record;
    const QString from = r.statusText;
    const QString to = recordStatusName(toStatus);
    const bool correction = r.statusCode == Failed && toStatus == Success;
    setWindowTitle(correction ? QStringLiteral("Correct to SUCCESS") : QStringLiteral("Mark %1").arg(to));
    setMinimumWidth(640);

    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(QStringLiteral("<b>This changes the production idempotency record.</b> It takes effect only if "
                                            "the record still is exactly as you saw it (compare-and-set)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignRight);
    form->addRow(QStringLiteral("Key:"), valueLabel(r.idemKey, this));
    auto *change = valueLabel(QStringLiteral("%1  \u2192  %2").arg(from, to), this);
    change->setObjectName(QStringLiteral("markChange"));
    change->setStyleSheet(QStringLiteral("font-weight: bold;"));
    form->addRow(QStringLiteral("Change:"), change);
    const QString expect = QStringLiteral("status = %1 (%2)\nupdated_at = %3\n%4")
                               .arg(r.statusCode ? QString::number(*r.statusCode) : QStringLiteral("NULL"), from, r.updatedAt,
                                    r.hasVersionColumn ? QStringLiteral("version = %1").arg(r.version ? QString::number(*r.version)
                                                                                                        : QStringLiteral("NULL"))
                                                       : QStringLiteral("(no version column)"));
    auto *expectLabel = valueLabel(expect, this);
    expectLabel->setObjectName(QStringLiteral("markExpect"));
    form->addRow(QStringLiteral("Only if still:"), expectLabel);
    form->addRow(QStringLiteral("Operator:"), valueLabel(operatorName, this, false));
    layout->addLayout(form);

    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("snapshotSource"));
    m_snapshot = new QPlainTextEdit(this);
    m_snapshot->setObjectName(QStringLiteral("snapshotEdit"));
    m_snapshot->setFont(theme::monospaceFont(-0.5));
    m_snapshot->setMinimumHeight(110);
    m_snapshotBar = new MessageBar(this);
    m_snapshotBar->setObjectName(QStringLiteral("snapshotError"));
    if (toStatus == Success) {
        auto *title = new QLabel(QStringLiteral("<b>result_snapshot to write</b> (byte-exact; returned to callers from now on):"), this);
        layout->addWidget(title);
        layout->addWidget(m_source);
        layout->addWidget(m_snapshot, 1);
        layout->addWidget(m_snapshotBar);
        // A SUCCESS snapshot comes only from the canonical ticket (the backend's rule decides).
        for (const TicketRow &t : m_detail.tickets)
            if (t.payload && snapshotTicketFor(m_detail, t.id).ticket)
                addChoice({QStringLiteral("ticket #%1 \u00b7 payload").arg(t.id.text()), t.payload, QStringLiteral("ticket:%1").arg(t.id.text())});
        addChoice({QStringLiteral("typed JSON"), std::nullopt, QStringLiteral("typed")});
        connect(m_source, &QComboBox::currentIndexChanged, this, &MarkDialog::onSourceChanged);
        connect(m_snapshot, &QPlainTextEdit::textChanged, this, &MarkDialog::revalidate);
    } else {
        m_source->hide();
        m_snapshot->hide();
        auto *note = new QLabel(QStringLiteral("result_snapshot stays as it is. FAILED means \u201cconfirmed: no side effect "
                                               "happened\u201d; callers may retry the request."),
                                this);
        note->setWordWrap(true);
        layout->addWidget(note);
    }

    layout->addWidget(new QLabel(QStringLiteral("<b>Reason</b> (at least %1 characters, audited):").arg(kMarkReasonMinLength), this));
    m_reason = new QPlainTextEdit(this);
    m_reason->setObjectName(QStringLiteral("reasonEdit"));
    m_reason->setPlaceholderText(QStringLiteral("Why is this the outcome? E.g. \u201cticket #17 exists, upstream FOUND\u201d"));
    m_reason->setMaximumHeight(70);
    layout->addWidget(m_reason);
    m_reasonCount = new QLabel(this);
    m_reasonCount->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    layout->addWidget(m_reasonCount);
    m_override = new QCheckBox(QStringLiteral("Override the safety rules (audited; the reason needs at least %1 characters)")
                                   .arg(kOverrideReasonMinLength),
                               this);
    m_override->setObjectName(QStringLiteral("overrideBox"));
    layout->addWidget(m_override);
    m_rules = new QLabel(this);
    m_rules->setObjectName(QStringLiteral("rulesLabel"));
    m_rules->setWordWrap(true);
    m_rules->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_rules);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(windowTitle());
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QPlainTextEdit::textChanged, this, &MarkDialog::revalidate);
    connect(m_override, &QCheckBox::toggled, this, &MarkDialog::revalidate);

    if (toStatus == Success)
        onSourceChanged(m_source->currentIndex());
    revalidate();
}

void MarkDialog::addChoice(const Choice &c)
{
    // "typed JSON" stays last.
    int at = int(m_choices.size());
    if (!m_choices.isEmpty() && m_choices.last().source == QLatin1String("typed"))
        at = int(m_choices.size()) - 1;
    m_choices.insert(at, c);
    const QSignalBlocker block(m_source);
    m_source->insertItem(at, c.title);
}

void MarkDialog::addUpstreamObject(const QString &objectJson)
{
    if (m_toStatus != Success)
        return;
    for (const Choice &c : std::as_const(m_choices))
        if (c.source == QLatin1String("upstream"))
            return;
    addChoice({QStringLiteral("upstream object (FOUND)"), objectJson, QStringLiteral("upstream")});
    onSourceChanged(m_source->currentIndex());
}

void MarkDialog::prefill(const std::optional<QString> &snapshot, const QString &source, const QString &evidenceJson,
                         const QString &reason)
{
    m_evidenceJson = evidenceJson;
    if (m_toStatus == Success && snapshot) {
        int index = -1;
        for (int i = 0; i < m_choices.size(); ++i)
            if (m_choices[i].source == source && m_choices[i].text == snapshot)
                index = i;
        if (index < 0) {
            addChoice({QStringLiteral("suggested verdict \u00b7 %1").arg(source), snapshot, source});
            for (int i = 0; i < m_choices.size(); ++i)
                if (m_choices[i].source == source && m_choices[i].text == snapshot)
                    index = i;
        }
        m_source->setCurrentIndex(index);
        onSourceChanged(index);
    }
    if (!reason.isEmpty())
        m_reason->setPlainText(reason);
    revalidate();
}

void MarkDialog::onSourceChanged(int index)
{
    if (index < 0 || index >= m_choices.size())
        return;
    const Choice &c = m_choices[index];
    const QSignalBlocker block(m_snapshot);
    if (c.text) {
        m_snapshot->setPlainText(*c.text);
        m_snapshot->setReadOnly(true);
    } else {
        m_snapshot->setReadOnly(false);
        m_snapshot->setPlaceholderText(QStringLiteral("Type or paste the result_snapshot: a JSON object"));
        m_snapshot->clear();
    }
    revalidate();
}

QString MarkDialog::currentSnapshotText() const
{
    // A chosen source is written byte-exact (QPlainTextEdit would turn U+00A0 into spaces).
    const int i = m_source->currentIndex();
    if (i >= 0 && i < m_choices.size() && m_choices[i].text)
        return *m_choices[i].text;
    return m_snapshot->toPlainText();
}

MarkFacts MarkDialog::facts() const
{
    return markFactsFrom(m_detail.record, markEvidenceOf(m_detail));
}

MarkDecision MarkDialog::decision() const
{
    return decideMark(facts(), m_toStatus, m_reason->toPlainText(), m_override->isChecked(), m_snapshotIsObject,
                      m_snapshotError);
}

bool MarkDialog::canAccept() const
{
    return decision().allowed;
}

void MarkDialog::revalidate()
{
    if (m_toStatus == Success) {
        const QString text = currentSnapshotText();
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &err);
        if (text.trimmed().isEmpty()) {
            m_snapshotIsObject = false;
            m_snapshotError = QStringLiteral("the snapshot is empty");
        } else if (err.error != QJsonParseError::NoError) {
            m_snapshotIsObject = false;
            m_snapshotError = QStringLiteral("not valid JSON: %1 at offset %2").arg(err.errorString()).arg(err.offset);
        } else if (!doc.isObject()) {
            m_snapshotIsObject = false;
            m_snapshotError = QStringLiteral("valid JSON, but not an object");
        } else {
            m_snapshotIsObject = true;
            m_snapshotError.clear();
        }
        if (m_snapshotError.isEmpty())
            m_snapshotBar->clearMessage();
        else
            m_snapshotBar->showMessage(MessageBar::Level::Error, m_snapshotError);
    }

    // The override matters only when it is what stands between the operator and the mark.
    const MarkDecision plain = decideMark(facts(), m_toStatus, QString(kOverrideReasonMinLength, QLatin1Char('x')), false,
                                          m_snapshotIsObject, m_snapshotError);
    const MarkDecision overridden = decideMark(facts(), m_toStatus, QString(kOverrideReasonMinLength, QLatin1Char('x')), true,
                                               m_snapshotIsObject, m_snapshotError);
    const bool overrideRelevant = !plain.allowed && overridden.allowed;
    m_override->setVisible(overrideRelevant || m_override->isChecked());

    const int n = int(m_reason->toPlainText().trimmed().size());
    m_reasonCount->setText(QStringLiteral("%1 / %2 characters")
                               .arg(n)
                               .arg(m_override->isChecked() ? kOverrideReasonMinLength : kMarkReasonMinLength));

    const MarkDecision d = decision();
    if (d.allowed) {
        m_rules->setText(d.overridden.isEmpty() ? QStringLiteral("\u2714 Rules: %1.").arg(d.reason)
                                                : QStringLiteral("\u26a0 Rules overridden (audited): %1.").arg(d.overridden));
        m_rules->setStyleSheet(QStringLiteral("color: %1;").arg(d.overridden.isEmpty() ? QStringLiteral("#1a7f37")
                                                                                       : QStringLiteral("#9a6700")));
    } else {
        m_rules->setText(QStringLiteral("\u2716 The rules refuse this: %1.").arg(d.reason));
        m_rules->setStyleSheet(QStringLiteral("color: #b42318;"));
    }
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(canAccept());
    // A longer rules text grows the dialog rather than squeezing the state shown above it.
    if (const int h = sizeHint().height(); h > height())
        resize(width(), h);
}

MarkRequest MarkDialog::request() const
{
    MarkRequest r;
    r.idemKey = m_detail.record->idemKey;
    r.toStatus = m_toStatus;
    r.reason = m_reason->toPlainText().trimmed();
    if (m_toStatus == Success) {
        r.snapshot = currentSnapshotText();
        const int i = m_source->currentIndex();
        r.snapshotSource = i >= 0 && i < m_choices.size() ? m_choices[i].source : QStringLiteral("typed");
    }
    r.expect = expectedStateOf(*m_detail.record);
    r.override = m_override->isChecked();
    r.operatorName = m_operator;
    r.evidenceJson = m_evidenceJson;
    return r;
}

} // namespace triage
