#pragma once

#include <QObject>
#include <QPointer>

namespace triage {

class WindowEventsModel;

/// Replay stepping over a WindowEventsModel (DESIGN.md §7 "Replay"): step() finds the event
/// after (or before) a row, globally or for that row's key only
/// (WindowEventsModel::nextEventRow()), and when stepping forward past the loaded end fetches
/// the model's next pages, one at a time, until the event is loaded or the window ends.
/// Answers arrive by signal, always from the event loop: found(row) or notFound(). A new
/// step(), a model reset or a page error ends the one pending (a reset or an error answers
/// notFound()). Holds no rows of its own.
class EventStepper : public QObject {
    Q_OBJECT
public:
    /// `model` must outlive the stepper (or be its parent's child).
    explicit EventStepper(WindowEventsModel *model, QObject *parent = nullptr);

    /// Steps from event row `fromRow`: `direction` > 0 next, < 0 previous; `sameKeyOnly` stays
    /// on `fromRow`'s idempotency key.
    void step(int fromRow, bool sameKeyOnly, int direction);
    /// A step is waiting for pages.
    bool isPending() const { return m_pending; }

signals:
    /// The event row stepped to.
    void found(int row);
    /// No event that way: the start or the end of the window (or the key's events in it).
    void notFound();

private:
    void resolve();
    void finish(int row);

    QPointer<WindowEventsModel> m_model;
    bool m_pending = false;
    int m_from = -1;
    bool m_sameKey = false;
    int m_direction = 1;
};

} // namespace triage
