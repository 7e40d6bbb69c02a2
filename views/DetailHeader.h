#pragma once

#include "Claim.h"
#include "KeyDetail.h"
#include "MessageBar.h"

#include <QFrame>
#include <QStringList>

#include <optional>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace triage {

/// The header of the key detail (DESIGN.md §2 detail view): the key, a status badge,
/// biz_type / tenant / age and store counts, the action buttons ("Query upstream",
/// "Mark SUCCESS…", "Mark FAILED…" and the read-only note; MarkQueryController drives
/// them), the bar with the last action's outcome, the conflict bar (with "Reload") and one
/// message bar per warning or failed store. Shows what it is given; decides nothing.
class DetailHeader : public QFrame {
    Q_OBJECT
public:
    explicit DetailHeader(QWidget *parent = nullptr);

    /// Shows `key` in the header (before its detail arrives).
    void setKey(const QString &key);
    /// Shows or hides "loading…".
    void setLoading(bool loading);
    /// Shows `d`'s status badge, summary line and messages (stale, unknown status code, no
    /// record, each failed store, KeyDetail::warnings); replaces the earlier messages.
    void showDetail(const KeyDetail &d);
    /// Shows who holds a live claim on the key ("claimed by alice, 4 min ago", DESIGN.md §8
    /// "Claims"; the text comes from claimedByText()), or hides the line when nobody does.
    void showClaim(const std::optional<Claim> &claim);
    /// Clears the action bar and the conflict bar (another key is shown).
    void clearActionMessages();
    /// Texts of the message bars, in order (warnings and errors; not the action bars).
    QStringList messages() const;

    QLabel *keyLabel() const { return m_keyLabel; }
    QLabel *statusBadge() const { return m_statusBadge; }
    QLabel *metaLabel() const { return m_metaLabel; }
    QPushButton *queryButton() const { return m_queryButton; }
    QPushButton *markSuccessButton() const { return m_markSuccessButton; }
    QPushButton *markFailedButton() const { return m_markFailedButton; }
    QLabel *readOnlyNote() const { return m_readOnlyNote; }
    /// The claim line (hidden when nobody holds the key).
    QLabel *claimLabel() const { return m_claimLabel; }
    /// "Copy link": puts keyLink() of the shown key on the clipboard (DESIGN.md §7 "Links")
    /// and says so in the action bar.
    QPushButton *copyLinkButton() const { return m_copyLinkButton; }
    MessageBar *actionBar() const { return m_actionBar; }
    MessageBar *conflictBar() const { return m_conflictBar; }
    /// The key's open four-eyes proposal and its "Approve…" button (MarkQueryController).
    MessageBar *proposalBar() const { return m_proposalBar; }
    /// What the live key detail last saw change ("Updated live at … UTC: …"), or that its
    /// re-reads fail ("Live updates stale since …"); KeyDetailView::setLiveInterval().
    MessageBar *liveBar() const { return m_liveBar; }

signals:
    /// The conflict bar's "Reload" was clicked (the bar is cleared already).
    void reloadRequested();

private:
    QWidget *buildActions();
    void addMessage(MessageBar::Level level, const QString &text);
    void clearMessages();

    QLabel *m_keyLabel = nullptr;
    QLabel *m_claimLabel = nullptr;
    QLabel *m_statusBadge = nullptr;
    QLabel *m_metaLabel = nullptr;
    QLabel *m_loadingLabel = nullptr;
    QVBoxLayout *m_messageLayout = nullptr;
    QPushButton *m_queryButton = nullptr;
    QPushButton *m_markSuccessButton = nullptr;
    QPushButton *m_markFailedButton = nullptr;
    QLabel *m_readOnlyNote = nullptr;
    QPushButton *m_copyLinkButton = nullptr;
    QString m_key;
    MessageBar *m_actionBar = nullptr;
    MessageBar *m_conflictBar = nullptr;
    MessageBar *m_proposalBar = nullptr;
    MessageBar *m_liveBar = nullptr;
};

} // namespace triage
