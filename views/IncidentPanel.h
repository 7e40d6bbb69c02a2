#pragma once

#include "Incident.h"
#include "MessageBar.h"

#include <QWidget>

#include <functional>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace triage {

class IncidentsModel;
class Workspace;

/// The incidents part of the Incident tab (DESIGN.md §7 "Incidents"), hosted by IncidentView:
/// a combo of the open incidents (IncidentsModel); "Save window as incident…" (a title for
/// the window and filters the view shows: createIncident()); opening one emits openWindow()
/// with its window and filters; the incident's status, window and filters; its pins (double-
/// click: jumpTo() the event's time) and "Pin event" / "Unpin event" for the event selected
/// in the view; its notes and "Add note"; "Close incident" / "Reopen". Every read and change
/// is an incident-service future continued with whenReady(); outcomes go to message(). No
/// SQL, no rule: the service checks and refuses (read-only mode included).
///
/// Integration: setQueryProvider() with the view's current query; connect openWindow() to
/// load it, pinsChanged() to WindowEventsModel::setPinnedEvents(), jumpTo() to the view's
/// scroll, message() to its message bar; call setSelectedEvent() as the selection moves.
class IncidentPanel : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the panel. Lists the open incidents when first shown.
    explicit IncidentPanel(Workspace *workspace, QWidget *parent = nullptr);
    ~IncidentPanel() override;

    /// Where "Save window as incident…" reads the window and filters to save.
    void setQueryProvider(std::function<WindowQuery()> provider) { m_query = std::move(provider); }
    /// The event selected in the view (kind and row id), or none.
    void setSelectedEvent(std::optional<std::pair<EventKind, QString>> event);

    /// Reads incident `id` and opens it (openWindow() with its window and filters); a missing
    /// incident or a store error is reported by openFailed().
    void openIncident(qint64 id);
    /// Offline (a bundle, DESIGN.md §7 "Offline viewer"): shows `detail`'s pins and notes (or
    /// "no incident") with every write action disabled; nothing is read from a database.
    void showReadOnly(const std::optional<IncidentDetail> &detail);
    /// Saves the provider's window as a new incident titled `title` and opens it (the
    /// button asks for the title with a dialog, then calls this).
    void saveWindowAs(const QString &title);
    /// Pins the selected event to the open incident, or unpins it when pinned.
    void togglePin();
    /// Adds `text` as a note to the open incident.
    void addNote(const QString &text);
    /// Closes the open incident, or reopens it when closed.
    void toggleClosed();

    /// The incident shown (nullopt: none).
    const std::optional<IncidentDetail> &current() const { return m_current; }
    /// For tests and the screenshot driver.
    QComboBox *incidentCombo() const { return m_combo; }
    /// The combo's entry for an incident that is not among the open ones listed (a closed one
    /// opened by id, or a bundle's): "#4 (open) Ticket API timeouts" / "#4 (closed) …", the
    /// status as recorded, before the title (DESIGN.md §7 "Offline viewer").
    static QString incidentComboLabel(const Incident &incident);
    QListWidget *pinList() const { return m_pins; }
    QListWidget *noteList() const { return m_notes; }
    QLabel *summaryLabel() const { return m_summary; }
    QPushButton *pinButton() const { return m_pin; }
    IncidentsModel *incidentsModel() const { return m_model; }

signals:
    /// An incident was opened: load its window and filters.
    void openWindow(const WindowQuery &query);
    /// The pinned events of the incident shown changed (WindowEventsModel::pinKey()s).
    void pinsChanged(const QSet<QString> &pinKeys);
    /// The operator asked for an event's place in the list.
    void jumpTo(UtcMicros at);
    /// Something to tell the operator (an outcome, a refusal, a store error).
    void message(MessageBar::Level level, const QString &text);
    /// openIncident() could not open it (not found, or a store error); `text` says why.
    void openFailed(const QString &text);
    /// The incident shown was read again (after opening it or a change).
    void incidentShown();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void display(const std::optional<IncidentDetail> &detail);
    void reread();
    void fillCombo();
    void updateButtons();
    /// Tells the outcome and reads the incident again (`adopt`: a created one becomes the one shown).
    void report(const Outcome<IncidentChange> &out, bool adopt = false);
    bool selectedIsPinned() const;

    Workspace *m_workspace;
    IncidentsModel *m_model;
    std::function<WindowQuery()> m_query;
    std::optional<IncidentDetail> m_current;
    std::optional<std::pair<EventKind, QString>> m_selected;
    quint64 m_generation = 0;
    bool m_listed = false; ///< the incidents were listed once (first show)
    bool m_readOnly = false; ///< showReadOnly(): a bundle, no database

    QComboBox *m_combo;
    QPushButton *m_save;
    QPushButton *m_close;
    QLabel *m_summary;
    QListWidget *m_pins;
    QPushButton *m_pin;
    QListWidget *m_notes;
    QLineEdit *m_noteEdit;
    QPushButton *m_addNote;
};

} // namespace triage
