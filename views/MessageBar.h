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

    /// A hidden bar; showMessage() shows it.
    explicit MessageBar(QWidget *parent = nullptr);

    /// Shows `text` (plain text, as a sentence(): backend messages start in lower case) at
    /// `level`; an empty text hides the bar.
    void showMessage(Level level, const QString &text);
    /// Hides the bar and forgets the text.
    void clearMessage();
    /// The text shown (after sentence()), or "".
    QString text() const;
    /// The level of the last message.
    Level level() const { return m_level; }
    /// `text` with its first letter capitalised when its first word is a plain lower-case
    /// word ("cannot connect …" → "Cannot connect …"); identifiers such as "result_snapshot"
    /// or "expire_at" and numbers are left alone.
    static QString sentence(const QString &text);
    /// Shows a button labelled `label` (empty: no button) that emits actionTriggered().
    void setActionText(const QString &label);
    /// Shows a second button labelled `label` (empty: none), left of the action button, that
    /// emits secondaryActionTriggered() (e.g. "Reject…" beside "Approve…").
    void setSecondaryActionText(const QString &label);

signals:
    /// The action button was clicked.
    void actionTriggered();
    /// The secondary button was clicked.
    void secondaryActionTriggered();

private:
    QLabel *m_icon;
    QLabel *m_text;
    QPushButton *m_action;
    QPushButton *m_secondary;
    Level m_level = Level::Info;
};

} // namespace triage
