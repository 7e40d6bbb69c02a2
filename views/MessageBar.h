#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace triage {

/// An inline message bar (KDevelop's KMessageWidget idea): a coloured strip with an icon,
/// a word-wrapped selectable text and an optional action button. Used for warnings and
/// store errors instead of modal boxes. Hidden while it has no text.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };

    explicit MessageBar(QWidget *parent = nullptr);

    /// Shows `text` (plain text) at `level`; an empty text hides the bar.
    void showMessage(Level level, const QString &text);
    /// Hides the bar and forgets the text.
    void clearMessage();
    QString text() const;
    Level level() const { return m_level; }
    /// Shows a button labelled `label` (empty: no button) that emits actionTriggered().
    void setActionText(const QString &label);

signals:
    void actionTriggered();

private:
    QLabel *m_icon;
    QLabel *m_text;
    QPushButton *m_action;
    Level m_level = Level::Info;
};

} // namespace triage
