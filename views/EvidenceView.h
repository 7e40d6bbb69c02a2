#pragma once

#include "UpstreamCheck.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QVBoxLayout;

namespace triage {

class JsonView;
class MessageBar;

/// The "Upstream" tab of the key detail: one upstream query (UpstreamCheck) as evidence —
/// the suggested verdict (DESIGN.md §6) with its row, reason and facts and an "Apply
/// suggestion" button for SUCCESS / FAILED verdicts; the request (method, redacted URL,
/// headers); the response (status, content type, headers, elapsed ms); warnings (e.g. big
/// numbers); and the body as a JSON tree or raw text (JsonView). A check rebuilt from the
/// audit trail (UpstreamCheck::recordedAt set) is marked "Recorded at <time>" with an info
/// bar, and offers no "Apply suggestion" (a fresh query comes first).
class EvidenceView : public QWidget {
    Q_OBJECT
public:
    /// An empty view with a placeholder.
    explicit EvidenceView(QWidget *parent = nullptr);

    /// Shows `check`.
    void setCheck(const UpstreamCheck &check);
    /// Forgets the check and shows `placeholder`.
    void clear(const QString &placeholder);
    /// Shows that a query is running (true) or not.
    void setBusy(bool busy);
    /// The check shown, if any.
    const std::optional<UpstreamCheck> &check() const { return m_check; }

    /// Parts, for tests and screenshots.
    QLabel *verdictLabel() const { return m_verdict; }
    QLabel *reasonLabel() const { return m_reason; }
    QPushButton *applyButton() const { return m_apply; }
    QPlainTextEdit *exchangeText() const { return m_exchange; }
    JsonView *bodyView() const { return m_body; }
    /// Texts of the warning bars.
    QStringList warnings() const;

signals:
    /// "Apply suggestion" was clicked (the verdict is SUCCESS or FAILED).
    void applySuggestionRequested();

private:
    std::optional<UpstreamCheck> m_check;
    QStackedWidget *m_stack;
    QLabel *m_placeholder;
    QLabel *m_verdict;
    QLabel *m_reason;
    QPushButton *m_apply;
    QVBoxLayout *m_warnings;
    QPlainTextEdit *m_exchange;
    JsonView *m_body;
};

} // namespace triage
