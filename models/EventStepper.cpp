#include "EventStepper.h"

#include "WindowEventsModel.h"

#include <QMetaObject>

namespace triage {

EventStepper::EventStepper(WindowEventsModel *model, QObject *parent) : QObject(parent), m_model(model)
{
    connect(model, &WindowEventsModel::pageLoaded, this, [this] {
        if (m_pending)
            resolve();
    });
    connect(model, &WindowEventsModel::modelReset, this, [this] {
        if (m_pending)
            finish(-1); // the rows stepped from are gone
    });
    connect(model, &WindowEventsModel::errorOccurred, this, [this] {
        if (m_pending)
            finish(-1);
    });
}

void EventStepper::step(int fromRow, bool sameKeyOnly, int direction)
{
    m_pending = true;
    m_from = fromRow;
    m_sameKey = sameKeyOnly;
    m_direction = direction;
    // Answered from the event loop, even when the row is loaded already.
    QMetaObject::invokeMethod(this, [this] {
        if (m_pending)
            resolve();
    }, Qt::QueuedConnection);
}

void EventStepper::resolve()
{
    if (!m_model) {
        finish(-1);
        return;
    }
    const QModelIndex from = m_model->index(m_from, 0);
    if (!from.isValid() || from.data(WindowEventsModel::IsGapRole).toBool()
        || (m_sameKey && from.data(WindowEventsModel::IdemKeyRole).toString().isEmpty())) {
        finish(-1); // no event to step from (a gap row; a key-less event has no key to follow)
        return;
    }
    const int row = m_model->nextEventRow(m_from, m_sameKey, m_direction);
    if (row >= 0 || m_direction < 0 || m_model->atEnd()) {
        finish(row);
        return;
    }
    // Past the loaded end: the next page (one at a time; a page in flight answers through
    // pageLoaded as well).
    if (m_model->isLoading())
        return;
    if (m_model->canFetchMore({}))
        m_model->fetchMore({});
    else
        finish(-1);
}

void EventStepper::finish(int row)
{
    m_pending = false;
    if (row >= 0)
        emit found(row);
    else
        emit notFound();
}

} // namespace triage
