#include "KeyDetailView.h"

#include "ClaimGuard.h"
#include "LivePolling.h"

#include "EscalationService.h"

#include "DetailHeader.h"
#include "DetailTabs.h"
#include "Log.h"
#include "MarkQueryController.h"
#include "RecordSnapshotPanel.h"
#include "Theme.h"
#include "Workspace.h"
#include "WhenReady.h"
#include "KeyDetail.h"
#include "KeyDetailChanges.h"

#include <QDateTime>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace triage {

KeyDetailView::KeyDetailView(Workspace *workspace, QWidget *parent) : QWidget(parent), m_workspace(workspace)
{
    setObjectName(QStringLiteral("keyDetailView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    m_placeholder = new QLabel(QStringLiteral("Select a row, or paste a key into \u201cGo to key\u201d,\nto see everything "
                                              "the three stores know about it."),
                               m_stack);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setStyleSheet(QStringLiteral("color: %1; font-size: 11pt;").arg(theme::mutedText().name()));
    m_stack->addWidget(m_placeholder);

    auto *content = new QWidget(m_stack);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(6, 4, 6, 4);
    contentLayout->setSpacing(6);
    m_header = new DetailHeader(this);
    contentLayout->addWidget(m_header);

    auto *vertical = new QSplitter(Qt::Vertical, content);
    vertical->setObjectName(QStringLiteral("detailSplitter"));
    vertical->setChildrenCollapsible(false);
    m_recordPanel = new RecordSnapshotPanel(vertical);
    vertical->addWidget(m_recordPanel);
    m_tabs = new DetailTabs(this);
    vertical->addWidget(m_tabs);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    vertical->setSizes({390, 330});
    contentLayout->addWidget(vertical, 1);
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(m_placeholder);

    m_actions = new MarkQueryController(this, m_workspace, m_header, m_tabs);
    connect(m_header, &DetailHeader::reloadRequested, this, &KeyDetailView::reload);
    connect(m_actions, &MarkQueryController::recordChanged, this, &KeyDetailView::recordChanged);
    connect(m_actions, &MarkQueryController::upstreamChecked, this, &KeyDetailView::upstreamChecked);
    connect(m_actions, &MarkQueryController::markFinished, this, &KeyDetailView::markFinished);
    m_liveTimer = new QTimer(this);
    connect(m_liveTimer, &QTimer::timeout, this, &KeyDetailView::liveTick);
}

KeyDetailView::~KeyDetailView() = default;

QLabel *KeyDetailView::keyLabel() const { return m_header->keyLabel(); }
QLabel *KeyDetailView::statusBadge() const { return m_header->statusBadge(); }
QLabel *KeyDetailView::metaLabel() const { return m_header->metaLabel(); }
JsonView *KeyDetailView::snapshotView() const { return m_recordPanel->snapshotView(); }
QComboBox *KeyDetailView::snapshotChoice() const { return m_recordPanel->snapshotChoice(); }
QTableView *KeyDetailView::fieldsTable() const { return m_recordPanel->fieldsTable(); }
QTableView *KeyDetailView::timelineTable() const { return m_tabs->timelineTable(); }
QTableView *KeyDetailView::ticketsTable() const { return m_tabs->ticketsTable(); }
QTableView *KeyDetailView::attemptsTable() const { return m_tabs->attemptsTable(); }
QTabWidget *KeyDetailView::tabs() const { return m_tabs; }
QPushButton *KeyDetailView::queryButton() const { return m_header->queryButton(); }
QPushButton *KeyDetailView::copyLinkButton() const { return m_header->copyLinkButton(); }
QPushButton *KeyDetailView::markSuccessButton() const { return m_header->markSuccessButton(); }
QPushButton *KeyDetailView::markFailedButton() const { return m_header->markFailedButton(); }
MessageBar *KeyDetailView::actionBar() const { return m_header->actionBar(); }
MessageBar *KeyDetailView::conflictBar() const { return m_header->conflictBar(); }
EvidenceView *KeyDetailView::evidenceView() const { return m_tabs->evidenceView(); }
QTableView *KeyDetailView::auditTable() const { return m_tabs->auditTable(); }
JsonView *KeyDetailView::auditEvidenceView() const { return m_tabs->auditEvidenceView(); }

QStringList KeyDetailView::messages() const
{
    return m_header->messages();
}

void KeyDetailView::loadKey(const QString &key)
{
    const QString k = key.trimmed();
    if (k.isEmpty()) {
        clear();
        return;
    }
    if (k != m_key) {
        m_header->clearActionMessages();
        m_header->liveBar()->clearMessage();
        m_liveStaleSince.clear();
        m_tabs->clearEvidence();
    }
    m_key = k;
    m_hasDetail = false;
    const quint64 generation = ++m_generation;
    m_header->setKey(k);
    m_stack->setCurrentIndex(1);
    setLoading(true);
    logger("views")->debug("loading the detail of {}", k);
    whenReady(m_readDetail ? m_readDetail(k) : loadKeyDetail(*m_workspace, k), this, [this, generation](const KeyDetail &d) {
        if (generation != m_generation)
            return; // the operator moved on to another key meanwhile
        apply(d);
    });
    m_claim.reset();
    m_claimRead.invalidate();
    m_header->showClaim(std::nullopt);
    if (m_workspace && !m_readDetail) {
        // Who holds the key (DESIGN.md §8 "Claims"): shown in the header; a mark asks first
        // when someone else does (MarkQueryController).
        whenReady(keyWorkClaims(*m_workspace, {k}), this,
                  [this, generation, k](const Outcome<QHash<QString, Claim>> &claims) {
                      if (generation != m_generation)
                          return;
                      if (!claims.ok()) {
                          logger("views")->warn("claim of {} not read: {}", k.toStdString(), claims.error->message.toStdString());
                          return;
                      }
                      if (claims->contains(k))
                          m_claim = claims->value(k);
                      m_claimRead.start();
                      m_header->showClaim(m_claim);
                  });
    }
}

void KeyDetailView::reload()
{
    if (!m_key.isEmpty())
        loadKey(m_key);
}

void KeyDetailView::clear()
{
    ++m_generation;
    m_key.clear();
    m_claim.reset();
    m_claimRead.invalidate();
    m_hasDetail = false;
    m_detail = KeyDetail{};
    setLoading(false);
    m_stack->setCurrentWidget(m_placeholder);
}

void KeyDetailView::setLoading(bool loading)
{
    m_header->setLoading(loading);
    const bool changed = m_loading != loading;
    m_loading = loading;
    m_actions->updateActions();
    if (changed)
        emit loadingChanged(loading);
}

void KeyDetailView::apply(const KeyDetail &fresh)
{
    // A reload whose store failed keeps what that store showed (marked as earlier).
    m_detail = keepEarlierParts(fresh, m_detail);
    const KeyDetail &d = m_detail;
    m_tabs->showRecordedQuery(d);
    m_header->showDetail(d);
    m_recordPanel->showDetail(d);
    m_tabs->showDetail(d);
    m_hasDetail = true;
    setLoading(false);
    emit detailLoaded(d.idemKey);
}

void KeyDetailView::setCompensationRunner(std::shared_ptr<CompensationRunner> runner)
{
    m_actions->setCompensationRunner(std::move(runner));
}

void KeyDetailView::setUpstreamClient(UpstreamClient *client)
{
    m_actions->setUpstreamClient(client);
}

bool KeyDetailView::queryUpstream()
{
    return m_actions->queryUpstream();
}

MarkDialog *KeyDetailView::openMarkDialog(RecordStatusCode toStatus)
{
    return m_actions->openMarkDialog(toStatus);
}

QMessageBox *KeyDetailView::claimQuestion() const
{
    return m_actions->claimQuestion();
}

MarkDialog *KeyDetailView::applySuggestion()
{
    return m_actions->applySuggestion();
}

void KeyDetailView::submitMark(const MarkRequest &request)
{
    m_actions->submitMark(request);
}

bool KeyDetailView::isBusy() const
{
    return m_actions->isBusy();
}

void KeyDetailView::setLiveInterval(int ms)
{
    m_liveMs = qMax(0, ms);
    restartLiveTimer();
}

void KeyDetailView::setLiveSlowed(bool slowed)
{
    if (slowed == m_liveSlowed)
        return;
    m_liveSlowed = slowed;
    restartLiveTimer();
}

void KeyDetailView::restartLiveTimer()
{
    if (m_liveMs == 0 || !m_workspace || m_readDetail) {
        m_liveTimer->stop();
        return;
    }
    m_liveTimer->start(m_liveSlowed ? kLiveHiddenSlowdown * m_liveMs : m_liveMs);
}

void KeyDetailView::liveTick()
{
    if (m_key.isEmpty() || !m_hasDetail || m_loading || m_liveInFlight || !m_workspace || m_readDetail || isBusy())
        return;
    m_liveInFlight = true;
    const quint64 generation = m_generation;
    const QString key = m_key;
    whenReady(loadKeyDetail(*m_workspace, key), this, [this, generation, key](const KeyDetail &fresh) {
        if (generation != m_generation) {
            m_liveInFlight = false;
            return; // another key, or a reload, meanwhile
        }
        whenReady(keyWorkClaims(*m_workspace, {key}), this,
                  [this, generation, fresh](const Outcome<QHash<QString, Claim>> &claims) {
                      m_liveInFlight = false;
                      if (generation == m_generation && !m_loading)
                          liveArrived(fresh, claims);
                  });
    });
}

void KeyDetailView::liveArrived(const KeyDetail &fresh, const Outcome<QHash<QString, Claim>> &claims)
{
    MessageBar *bar = m_header->liveBar();
    const QString now = QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss"));
    QString failure;
    if (!fresh.errors.isEmpty())
        failure = fresh.errors.first().message;
    else if (!claims.ok())
        failure = claims.error->message;
    if (!failure.isEmpty()) {
        if (m_liveStaleSince.isEmpty())
            m_liveStaleSince = now;
        bar->showMessage(MessageBar::Level::Warning,
                         QStringLiteral("Live updates stale since %1 UTC (%2): what is shown may be out of date; this clears at the "
                                        "next good re-read.")
                             .arg(m_liveStaleSince, failure));
        emit liveChecked({}, true);
        return;
    }
    const bool wasStale = !m_liveStaleSince.isEmpty();
    m_liveStaleSince.clear();
    QStringList changes = keyDetailChanges(m_detail, fresh);
    std::optional<Claim> claim;
    if (claims->contains(m_key))
        claim = claims->value(m_key);
    const QString before = m_claim ? m_claim->holder : QString();
    const QString after = claim ? claim->holder : QString();
    if (before != after)
        changes << (after.isEmpty() ? QStringLiteral("claim of %1 released").arg(before) : QStringLiteral("claimed by %1").arg(after));
    if (changes.isEmpty()) {
        if (wasStale)
            bar->clearMessage();
        emit liveChecked({}, false);
        return;
    }
    m_claim = claim;
    m_claimRead.start();
    m_header->showClaim(m_claim);
    apply(fresh);
    bar->showMessage(MessageBar::Level::Info, QStringLiteral("Updated live at %1 UTC: %2.").arg(now, changes.join(QStringLiteral("; "))));
    emit liveChecked(changes, false);
}

} // namespace triage
