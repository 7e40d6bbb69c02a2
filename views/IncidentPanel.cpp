#include "IncidentPanel.h"
#include "EnvironmentBand.h"
#include "Workspace.h"

#include "IncidentsModel.h"
#include "Theme.h"
#include "TimeText.h"
#include "WhenReady.h"
#include "WindowEventsModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace triage {

namespace {

QString shortTime(const QString &iso)
{
    // "2026-12-01T02:10:00.000000Z" → "2026-12-01 02:10:00" (the list's width; the tooltip has it all).
    return iso.left(19).replace(QLatin1Char('T'), QLatin1Char(' '));
}

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    l->setFont(f);
    return l;
}

} // namespace

IncidentPanel::IncidentPanel(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_model(new IncidentsModel(workspace, this))
{
    setObjectName(QStringLiteral("incidentPanel"));
    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("incidentCombo"));
    m_combo->setToolTip(QStringLiteral("Open incidents: choosing one loads its window and filters"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(18);
    m_save = new QPushButton(QStringLiteral("Save window as incident…"), this);
    m_save->setObjectName(QStringLiteral("incidentSave"));
    m_save->setToolTip(QStringLiteral("Saves the window and filters shown as a new incident (audited)"));
    m_close = new QPushButton(QStringLiteral("Close incident"), this);
    m_close->setObjectName(QStringLiteral("incidentClose"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("incidentPanelSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    m_pins = new QListWidget(this);
    m_pins->setObjectName(QStringLiteral("incidentPins"));
    m_pins->setToolTip(QStringLiteral("Pinned events: double-click to find one in the list"));
    m_pins->setWordWrap(true);
    m_pins->setAlternatingRowColors(true);
    m_pins->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_pin = new QPushButton(QStringLiteral("Pin event"), this);
    m_pin->setObjectName(QStringLiteral("incidentPin"));
    m_notes = new QListWidget(this);
    m_notes->setObjectName(QStringLiteral("incidentNotes"));
    m_notes->setWordWrap(true);
    m_notes->setAlternatingRowColors(true);
    m_notes->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // long notes wrap, as the pins do
    m_noteEdit = new QLineEdit(this);
    m_noteEdit->setObjectName(QStringLiteral("incidentNoteEdit"));
    m_noteEdit->setPlaceholderText(QStringLiteral("Add a note…"));
    m_noteEdit->setMaxLength(kIncidentNoteMaxChars);
    m_addNote = new QPushButton(QStringLiteral("Add note"), this);
    m_addNote->setObjectName(QStringLiteral("incidentAddNote"));

    auto *top = new QHBoxLayout;
    top->addWidget(m_combo, 1);
    top->addWidget(m_close);
    auto *noteRow = new QHBoxLayout;
    noteRow->addWidget(m_noteEdit, 1);
    noteRow->addWidget(m_addNote);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading(QStringLiteral("Incident"), this));
    layout->addLayout(top);
    layout->addWidget(m_save);
    layout->addWidget(m_summary);
    layout->addWidget(heading(QStringLiteral("Pinned events"), this));
    layout->addWidget(m_pins, 2);
    layout->addWidget(m_pin);
    layout->addWidget(heading(QStringLiteral("Notes"), this));
    layout->addWidget(m_notes, 3);
    layout->addLayout(noteRow);

    connect(m_model, &IncidentsModel::loaded, this, &IncidentPanel::fillCombo);
    connect(m_model, &IncidentsModel::errorOccurred, this, [this](const QString &text) {
        emit message(MessageBar::Level::Error, QStringLiteral("Incidents not listed: %1").arg(text));
    });
    connect(m_combo, &QComboBox::activated, this, [this](int index) {
        const qint64 id = m_combo->itemData(index).toLongLong();
        if (id > 0)
            openIncident(id);
    });
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (const std::optional<QString> title =
                askStampedText(this, m_workspace->config(), QStringLiteral("Save window as incident"), QStringLiteral("Title:")))
            saveWindowAs(*title);
    });
    connect(m_close, &QPushButton::clicked, this, &IncidentPanel::toggleClosed);
    connect(m_pin, &QPushButton::clicked, this, &IncidentPanel::togglePin);
    connect(m_addNote, &QPushButton::clicked, this, [this] { addNote(m_noteEdit->text()); });
    connect(m_noteEdit, &QLineEdit::returnPressed, this, [this] { addNote(m_noteEdit->text()); });
    connect(m_pins, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem *item) {
        emit jumpTo(item->data(Qt::UserRole).toLongLong());
    });
    display(std::nullopt);
}

void IncidentPanel::showReadOnly(const std::optional<IncidentDetail> &detail)
{
    m_readOnly = true;
    m_listed = true; // nothing to list: no database
    ++m_generation;
    display(detail);
    if (!detail)
        m_summary->setText(QStringLiteral("The bundle was not exported from an incident: no pins or notes."));
}

void IncidentPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Listed when first shown: a console that never opens the Incident tab reads nothing here.
    if (!m_listed) {
        m_listed = true;
        m_model->refresh();
    }
}

IncidentPanel::~IncidentPanel() = default;

void IncidentPanel::setSelectedEvent(std::optional<std::pair<EventKind, QString>> event)
{
    m_selected = std::move(event);
    updateButtons();
}

void IncidentPanel::openIncident(qint64 id)
{
    if (m_readOnly || !m_workspace)
        return; // a bundle: nothing is written or read
    const quint64 generation = ++m_generation;
    whenReady(readIncident(*m_workspace, id), this, [this, generation, id](const Outcome<std::optional<IncidentDetail>> &out) {
        if (generation != m_generation)
            return;
        if (!out.ok() || !*out.value) {
            const QString why = out.ok() ? QStringLiteral("no incident %1").arg(id) : out.error->message;
            emit message(MessageBar::Level::Error, QStringLiteral("Incident %1 not opened: %2").arg(id).arg(why));
            emit openFailed(why);
            return;
        }
        display(*out.value);
        emit openWindow(m_current->incident.query);
    });
}

void IncidentPanel::reread()
{
    if (!m_current)
        return;
    const qint64 id = m_current->incident.id;
    const quint64 generation = ++m_generation;
    whenReady(readIncident(*m_workspace, id), this, [this, generation](const Outcome<std::optional<IncidentDetail>> &out) {
        if (generation != m_generation)
            return;
        if (!out.ok()) {
            emit message(MessageBar::Level::Error, out.error->message);
            return;
        }
        display(*out.value);
    });
    m_model->refresh();
}

void IncidentPanel::display(const std::optional<IncidentDetail> &detail)
{
    m_current = detail;
    m_pins->clear();
    m_notes->clear();
    QSet<QString> keys;
    if (!m_current) {
        m_summary->setText(QStringLiteral("No incident open. Save the window shown as one, or pick one above."));
    } else {
        const Incident &i = m_current->incident;
        m_summary->setText(QStringLiteral("#%1 %2 · %3\n%4 – %5 UTC\nfilters: %6")
                               .arg(QString::number(i.id), i.open ? QStringLiteral("open") : QStringLiteral("closed"), i.title,
                                    shortTime(formatUtcMicros(i.query.from)), shortTime(formatUtcMicros(i.query.to)),
                                    incidentFiltersText(i.query)));
        for (const IncidentPin &p : m_current->pins) {
            // Two lines that fit the panel: when and what (with the note), then the event as the
            // list shows it, a long key shortened in the middle (the tooltip has it whole).
            QString line = pinnedEventLine(p);
            if (p.event && p.event->idemKey.size() > 36)
                line.replace(p.event->idemKey, p.event->idemKey.left(17) + QChar(0x2026) + p.event->idemKey.right(17));
            auto *item = new QListWidgetItem(QStringLiteral("%1  %2%3\n%4")
                                                 .arg(shortTime(p.eventAt).mid(11), eventKindName(p.kind),
                                                      p.note.isEmpty() ? QString() : QStringLiteral(" — ") + p.note, line),
                                             m_pins);
            item->setData(Qt::UserRole, parseUtcMicros(p.eventAt).value_or(0));
            item->setToolTip(QStringLiteral("%1 %2 %3: %4\npinned by %5 at %6")
                                 .arg(p.eventAt, eventKindName(p.kind), p.eventId, pinnedEventLine(p), p.pinnedBy, p.pinnedAt));
            keys.insert(WindowEventsModel::pinKey(p.kind, p.eventId));
        }
        for (const IncidentNote &n : m_current->notes) {
            const QString about = n.eventKind ? QStringLiteral(" (%1 %2)").arg(eventKindName(*n.eventKind), n.eventId) : QString();
            auto *item = new QListWidgetItem(QStringLiteral("%1 %2%3: %4").arg(shortTime(n.at).mid(5), n.operatorName, about, n.text), m_notes);
            item->setToolTip(n.at);
        }
    }
    fillCombo();
    updateButtons();
    emit pinsChanged(keys);
    emit incidentShown();
}

void IncidentPanel::fillCombo()
{
    m_combo->clear();
    m_combo->addItem(QStringLiteral("— no incident —"), qint64(0));
    for (int r = 0; !m_readOnly && r < m_model->rowCount(); ++r) {
        const Incident &i = m_model->incident(r);
        m_combo->addItem(QStringLiteral("#%1 %2").arg(i.id).arg(i.title), i.id);
    }
    if (m_current) {
        int index = m_combo->findData(m_current->incident.id);
        if (index < 0) {
            // Not among the open ones listed: a closed incident opened by id, or a bundle's
            // (nothing is listed offline), either open or closed. Its status as recorded goes
            // before the title, so that a narrow combo cuts the title, never the status.
            const Incident &i = m_current->incident;
            m_combo->addItem(incidentComboLabel(i), i.id);
            index = m_combo->count() - 1;
        }
        m_combo->setItemData(index, m_combo->itemText(index), Qt::ToolTipRole);
        m_combo->setCurrentIndex(index);
    }
}

QString IncidentPanel::incidentComboLabel(const Incident &i)
{
    return QStringLiteral("#%1 (%2) %3").arg(QString::number(i.id), i.open ? QStringLiteral("open") : QStringLiteral("closed"), i.title);
}

bool IncidentPanel::selectedIsPinned() const
{
    if (!m_current || !m_selected)
        return false;
    for (const IncidentPin &p : m_current->pins)
        if (p.kind == m_selected->first && p.eventId == m_selected->second)
            return true;
    return false;
}

void IncidentPanel::updateButtons()
{
    if (m_readOnly) {
        for (QWidget *w : std::initializer_list<QWidget *>{m_combo, m_save, m_close, m_pin, m_noteEdit, m_addNote}) {
            w->setEnabled(false);
            w->setToolTip(QStringLiteral("A bundle is read-only"));
        }
        // Nothing to close or reopen: the combo gets the whole row, and the width of its label
        // (up to 360 px; a longer title is whole in the tooltip and the summary below).
        m_close->setVisible(false);
        if (m_current) {
            const QString label = incidentComboLabel(m_current->incident);
            m_combo->setToolTip(label + QStringLiteral(" \u2014 a bundle is read-only"));
            m_combo->setMinimumWidth(qMin(m_combo->fontMetrics().horizontalAdvance(label) + 48, 360));
        }
        return;
    }
    const bool open = m_current && m_current->incident.open;
    m_close->setEnabled(m_current.has_value());
    m_close->setText(m_current && !open ? QStringLiteral("Reopen") : QStringLiteral("Close incident"));
    m_pin->setEnabled(open && m_selected.has_value());
    m_pin->setText(selectedIsPinned() ? QStringLiteral("Unpin selected event") : QStringLiteral("Pin selected event"));
    m_noteEdit->setEnabled(open);
    m_addNote->setEnabled(open);
}

void IncidentPanel::report(const Outcome<IncidentChange> &out, bool adopt)
{
    if (!out.ok()) {
        emit message(MessageBar::Level::Error, out.error->message);
        return;
    }
    const bool applied = out->kind == IncidentChange::Kind::Applied;
    emit message(applied ? MessageBar::Level::Info : MessageBar::Level::Warning, out->message);
    if (applied && adopt) { // a new incident: it becomes the one shown (its window is the view's already)
        m_current = IncidentDetail{};
        m_current->incident.id = out->incidentId;
    }
    // Bad input and read-only refusals changed nothing; anything else may have.
    if (out->kind != IncidentChange::Kind::Invalid && out->kind != IncidentChange::Kind::Refused)
        reread();
}

void IncidentPanel::saveWindowAs(const QString &title)
{
    if (m_readOnly || !m_workspace)
        return; // a bundle: nothing is written or read
    const WindowQuery q = m_query ? m_query() : WindowQuery{};
    whenReady(createIncident(*m_workspace, title, q), this, [this](const Outcome<IncidentChange> &out) { report(out, true); });
}

void IncidentPanel::togglePin()
{
    if (m_readOnly || !m_workspace)
        return; // a bundle: nothing is written or read
    if (!m_current || !m_selected)
        return;
    const qint64 id = m_current->incident.id;
    auto future = selectedIsPinned() ? unpinEvent(*m_workspace, id, m_selected->first, m_selected->second)
                                     : pinEvent(*m_workspace, id, m_selected->first, m_selected->second);
    whenReady(future, this, [this](const Outcome<IncidentChange> &out) { report(out); });
}

void IncidentPanel::addNote(const QString &text)
{
    if (m_readOnly || !m_workspace)
        return; // a bundle: nothing is written or read
    if (!m_current)
        return;
    whenReady(addIncidentNote(*m_workspace, m_current->incident.id, text), this, [this](const Outcome<IncidentChange> &out) {
        if (out.ok() && out->kind == IncidentChange::Kind::Applied)
            m_noteEdit->clear();
        report(out);
    });
}

void IncidentPanel::toggleClosed()
{
    if (m_readOnly || !m_workspace)
        return; // a bundle: nothing is written or read
    if (!m_current)
        return;
    const qint64 id = m_current->incident.id;
    auto future = m_current->incident.open ? closeIncident(*m_workspace, id) : reopenIncident(*m_workspace, id);
    whenReady(future, this, [this](const Outcome<IncidentChange> &out) { report(out); });
}

} // namespace triage
