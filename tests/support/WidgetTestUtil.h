#pragma once
// Finding widgets in tests.

#include <QPushButton>
#include <QWidget>

namespace triage::test {

/// The push button under `parent` whose text is exactly `text`, or nullptr.
inline QPushButton *buttonWithText(QWidget &parent, const QString &text)
{
    for (QPushButton *b : parent.findChildren<QPushButton *>())
        if (b->text() == text)
            return b;
    return nullptr;
}

} // namespace triage::test
