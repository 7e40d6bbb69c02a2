// The console's Review tab (DESIGN.md §8 "The Review view and the report").
#include "ReviewPane.h"

#include "EnvironmentBand.h"

#include "CellDelegate.h"
#include "ClaimQuestion.h"
#include "EscalationService.h"
#include "ReportTable.h"
#include "ReviewCharts.h"
#include "ReviewExport.h"
#include "ReviewModel.h"
#include "ReviewReport.h"
#include "WhenReady.h"
#include "Workspace.h"

#include <algorithm>

#include <QChartView>
#include <QCheckBox>
#include <QDateEdit>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QTabWidget>
#include <QVBoxLayout>

namespace triage {

namespace {

QString zoneId(const ReviewSnapshot &s)
{
    const QString id = QString::fromUtf8(s.day.zone.id());
    return id.isEmpty() ? QStringLiteral("UTC") : id;
}

QString utc(const QDateTime &t)
{
    return t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QTableView *tableView(QAbstractItemModel *model, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setModel(model);
    view->setItemDelegate(new CellDelegate(view));
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(22);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    return view;
}

} // namespace

ReviewPane::ReviewPane(Workspace *workspace, QWidget *parent) : QWidget(parent), m_workspace(workspace)
{
    m_items = new ReviewItemsModel(this);
    m_items->setNewOnly(true);
    m_groups = new ReviewGroupsModel(this);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    // Header: day picker, zone / window / as of, the last sign-off, the day's actions.
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Day:"), this));
    m_day = new QDateEdit(QDate::currentDate(), this);
    m_day->setObjectName(QStringLiteral("reviewDay"));
    m_day->setCalendarPopup(true);
    m_day->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    top->addWidget(m_day);
    auto *refresh = new QPushButton(tr("Load"), this);
    top->addWidget(refresh);
    m_header = new QLabel(tr("Not loaded yet."), this);
    m_header->setObjectName(QStringLiteral("reviewHeader"));
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true); // never widens the window (tst_views_display)
    m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    top->addStretch(1);
    m_signOff = new QPushButton(tr("Sign off\u2026"), this);
    m_export = new QPushButton(tr("Export report\u2026"), this);
    top->addWidget(m_signOff);
    top->addWidget(m_export);
    layout->addLayout(top);
    layout->addWidget(m_header); // its own full-width line: beside the buttons it wrapped into a column
    m_signOffLine = new QLabel(this);
    m_signOffLine->setObjectName(QStringLiteral("reviewSignOff"));
    m_signOffLine->setWordWrap(true);
    m_signOffLine->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_signOffLine);
    m_live = new QLabel(this);
    m_live->setObjectName(QStringLiteral("reviewLive"));
    m_live->setWordWrap(true); // a long error wraps, never widens the window
    m_live->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_live->hide();
    layout->addWidget(m_live);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("reviewMessage"));
    m_message->setWordWrap(true);
    m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_message->hide();
    layout->addWidget(m_message);

    // Items (new or changed since the sign-off by default) and the item actions.
    auto *splitter = new QSplitter(Qt::Vertical, this);
    auto *upper = new QWidget(splitter);
    auto *upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    auto *actions = new QHBoxLayout;
    m_newOnly = new QCheckBox(tr("Only new or changed since the last sign-off"), upper);
    m_newOnly->setChecked(true);
    m_newOnly->setToolTip(tr("Only the escalations new or changed since the last sign-off"));
    actions->addWidget(m_newOnly);
    actions->addStretch(1);
    m_reviewed = new QPushButton(tr("Mark reviewed"), upper);
    m_note = new QPushButton(tr("Add note\u2026"), upper);
    m_claim = new QPushButton(tr("Claim"), upper);
    m_resolve = new QPushButton(tr("Resolve\u2026"), upper);
    for (QPushButton *b : {m_reviewed, m_note, m_claim, m_resolve})
        actions->addWidget(b);
    upperLayout->addLayout(actions);
    m_itemsView = tableView(m_items, upper);
    m_itemsView->setObjectName(QStringLiteral("reviewItems"));
    m_itemsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    upperLayout->addWidget(m_itemsView, 1);

    // Groups, SLA, trends.
    m_lower = new QTabWidget(splitter);
    m_lower->setObjectName(QStringLiteral("reviewLower"));
    m_lower->setDocumentMode(true);
    m_groupsView = tableView(m_groups, m_lower);
    m_groupsView->setObjectName(QStringLiteral("reviewGroups"));
    m_groupsView->setToolTip(tr("Double-click a group to select its escalations and open the first one's key"));
    m_lower->addTab(m_groupsView, tr("Groups"));
    m_sla = reportTable({tr("biz_type"), tr("SLA (h)"), tr("Open"), tr("Overdue"), tr("Breaches due in the day")}, 0, m_lower);
    m_lower->addTab(m_sla, tr("SLA"));
    auto *charts = new QWidget(m_lower);
    auto *grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    const ReviewSnapshot empty;
    for (int k = 0; k < 4; ++k) {
        m_charts[k] = reviewChart(empty, k);
        auto *view = new QChartView(m_charts[k], charts); // takes the chart
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumHeight(180);
        grid->addWidget(view, k / 2, k % 2);
    }
    m_lower->addTab(charts, tr("Trends"));
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    m_liveTimer = new QTimer(this);
    connect(m_liveTimer, &QTimer::timeout, this, &ReviewPane::liveTick);
    connect(refresh, &QPushButton::clicked, this, &ReviewPane::load);
    connect(m_day, &QDateEdit::dateChanged, this, [this] { m_dayPicked = true; }); // setSnapshot() blocks it
    connect(m_newOnly, &QCheckBox::toggled, m_items, &ReviewItemsModel::setNewOnly);
    connect(m_itemsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        updateActions();
        if (current.isValid())
            emit keyActivated(current.data(ReviewItemsModel::IdemKeyRole).toString());
    });
    connect(m_items, &QAbstractItemModel::modelReset, this, &ReviewPane::updateActions);
    connect(m_groupsView, &QAbstractItemView::activated, this, [this](const QModelIndex &i) { onGroupActivated(i.row()); });
    connect(m_reviewed, &QPushButton::clicked, this, &ReviewPane::markReviewed);
    connect(m_note, &QPushButton::clicked, this, &ReviewPane::addNote);
    connect(m_claim, &QPushButton::clicked, this, &ReviewPane::claim);
    connect(m_resolve, &QPushButton::clicked, this, [this] { resolve(false); });
    connect(m_signOff, &QPushButton::clicked, this, &ReviewPane::signOff);
    connect(m_export, &QPushButton::clicked, this, &ReviewPane::exportDialog);
    updateActions();
}

ReviewPane::~ReviewPane() = default;

void ReviewPane::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_loadedOnce) {
        m_loadedOnce = true;
        load();
    } else if (m_liveMs > 0) {
        rereadLive(); // polls skip while the tab is not shown: catch up now
    }
}

void ReviewPane::load()
{
    m_loadedOnce = true;
    const quint64 generation = ++m_generation;
    m_liveMark.clear(); // the next poll re-reads once: the mark was not read with this snapshot
    showMessage(m_dayPicked ? tr("Reading the review of %1\u2026").arg(m_day->date().toString(Qt::ISODate)) : tr("Reading today's review\u2026"),
                false);
    // Until the operator picks a day: the day containing the server's now in the review zone
    // (readReview()'s default), not this machine's date.
    const std::optional<QDate> day = m_dayPicked ? std::optional<QDate>(m_day->date()) : std::nullopt;
    whenReady(readReview(*m_workspace, day, QStringLiteral("console"), kFirstPage), this,
              [this, generation](const Outcome<ReviewSnapshot> &o) {
                  if (generation != m_generation)
                      return; // a later load's answer is on its way
                  if (!o.ok()) {
                      showMessage(o.error->message, true);
                      emit loadFailed(o.error->message);
                      return;
                  }
                  m_message->hide();
                  setSnapshot(*o);
                  if (!o->openComplete)
                      loadMoreItems(generation);
              });
}

void ReviewPane::loadMoreItems(quint64 generation)
{
    whenReady(readReviewItems(*m_workspace, *m_snapshot, kNextPage), this,
              [this, generation](const Outcome<QVector<ReviewItem>> &o) {
                  if (generation != m_generation || !m_snapshot)
                      return; // another load replaced the snapshot
                  if (!o.ok()) {
                      showMessage(tr("Reading the rest of the open items failed: %1").arg(o.error->message), true);
                      return;
                  }
                  m_snapshot->open += *o;
                  m_items->appendItems(*o);
                  if (o->size() < kNextPage) {
                      m_snapshot->openComplete = true;
                      updateActions();
                      emit itemsComplete();
                  } else {
                      loadMoreItems(generation);
                  }
              });
}

void ReviewPane::setSnapshot(const ReviewSnapshot &snapshot)
{
    const qint64 selected = selectedItem() ? selectedItem()->row.escalation.id : 0;
    m_snapshot = snapshot;
    m_loadedOnce = true; // shown: the first show does not read it again
    m_readAt.start();
    if (m_day->date() != snapshot.day.day) {
        const QSignalBlocker block(m_day);
        m_day->setDate(snapshot.day.day);
    }
    m_items->setSnapshot(snapshot);
    if (!snapshot.lastSignOff)
        m_newOnly->setChecked(false); // nothing to be new since: the list would stay empty
    m_groups->setSnapshot(snapshot);
    m_itemsView->resizeColumnsToContents();
    // The SLA cell's BREACHED badge is drawn wider than its text (CellDelegate).
    m_itemsView->setColumnWidth(ReviewItemsModel::SlaColumn, m_itemsView->columnWidth(ReviewItemsModel::SlaColumn) + 40);
    // Keys are long: at most 260 px (elided in the middle, whole in the tooltip) so that age, SLA
    // and who claims it stay in view.
    m_itemsView->setColumnWidth(ReviewItemsModel::KeyColumn, std::min(260, m_itemsView->columnWidth(ReviewItemsModel::KeyColumn)));
    m_newOnly->setText(tr("Only new or changed (%1 of %2 open)")
                           .arg(snapshot.totals.newSinceSignOff + snapshot.totals.changedSinceSignOff)
                           .arg(snapshot.totals.open));
    m_groupsView->resizeColumnsToContents();
    fillSla();
    for (int k = 0; k < 4; ++k)
        refillReviewChart(m_charts[k], snapshot, k);
    updateHeader();
    if (selected)
        selectEscalation(selected);
    updateActions();
    emit loaded();
}

void ReviewPane::fillSla()
{
    const QVector<ReviewSla> &sla = m_snapshot->sla;
    m_sla->setRowCount(int(sla.size()));
    for (int r = 0; r < sla.size(); ++r) {
        setCell(m_sla, r, 0, sla[r].bizType);
        setCell(m_sla, r, 1, QString::number(sla[r].slaHours));
        setCell(m_sla, r, 2, QString::number(sla[r].open));
        setCell(m_sla, r, 3, QString::number(sla[r].overdue));
        setCell(m_sla, r, 4, QString::number(sla[r].breachedToday));
    }
}

void ReviewPane::updateHeader()
{
    const ReviewSnapshot &s = *m_snapshot;
    const ReviewTotals &t = s.totals;
    m_header->setText(tr("%1 · %2 · window %3 – %4 UTC · as of %5 UTC · %6 open (%7 keys): %8 · %9 new, %10 changed since sign-off")
                          .arg(s.day.day.toString(Qt::ISODate), zoneId(s), utc(s.day.from), utc(s.day.to), utc(s.day.asOf))
                          .arg(t.open)
                          .arg(t.openKeys)
                          .arg([&t] {
                              QStringList parts;
                              for (AgeBucket b : allAgeBuckets())
                                  parts << QStringLiteral("%1 %2").arg(ageBucketLabel(b)).arg(t.openByBucket.value(int(b)));
                              return parts.join(QStringLiteral(", "));
                          }())
                          .arg(t.newSinceSignOff)
                          .arg(t.changedSinceSignOff));
    QString line = s.lastSignOff ? tr("Last sign-off: %1 by %2 at %3 UTC.").arg(s.lastSignOff->day.toString(Qt::ISODate), s.lastSignOff->signedBy,
                                                                                utcToSecond(s.lastSignOff->signedAt))
                                 : tr("No earlier day signed off.");
    line += s.thisDaySignOff ? tr(" This day is signed off by %1 at %2 UTC.").arg(s.thisDaySignOff->signedBy, utcToSecond(s.thisDaySignOff->signedAt))
                             : tr(" This day is not signed off.");
    line += tr(" Median time to resolve: 14 days %1, 30 days %2.").arg(reviewDurationText(s.median14S), reviewDurationText(s.median30S));
    m_signOffLine->setText(line);
}

QString ReviewPane::headerText() const
{
    return m_header->text();
}

QString ReviewPane::messageText() const
{
    return m_message->isVisible() || !m_message->isHidden() ? m_message->text() : QString();
}

void ReviewPane::showMessage(const QString &text, bool bad)
{
    m_message->setText(text);
    m_message->setStyleSheet(bad ? QStringLiteral("color: #a4231a; font-weight: bold;") : QString());
    m_message->show();
}

const ReviewItem *ReviewPane::selectedItem() const
{
    const QModelIndex current = m_itemsView->selectionModel()->currentIndex();
    return current.isValid() ? m_items->itemAt(current.row()) : nullptr;
}

void ReviewPane::updateActions()
{
    // An item the live update saw leave (resolved meanwhile) has nothing left to act on.
    const bool item = selectedItem() != nullptr && !m_busy && m_items->liveChangeOf(selectedItem()->row.escalation.id) != 2;
    for (QPushButton *b : {m_reviewed, m_note, m_claim, m_resolve})
        b->setEnabled(item);
    // The sign-off's fingerprint and the report cover every open item: wait for the last page.
    const bool complete = m_snapshot.has_value() && m_snapshot->openComplete;
    m_signOff->setEnabled(complete && !m_snapshot->thisDaySignOff && !m_busy);
    m_export->setEnabled(complete);
}

bool ReviewPane::selectEscalation(qint64 id)
{
    if (m_items->rowOf(id) < 0 && m_newOnly->isChecked())
        m_newOnly->setChecked(false);
    const int row = m_items->rowOf(id);
    if (row < 0)
        return false;
    m_itemsView->selectionModel()->setCurrentIndex(m_items->index(row, 0),
                                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_itemsView->scrollTo(m_items->index(row, 0));
    return true;
}

void ReviewPane::onGroupActivated(int row)
{
    const ReviewGroup *g = m_groups->groupAt(row);
    if (!g || g->escalationIds.isEmpty())
        return;
    m_newOnly->setChecked(false);
    selectEscalation(g->escalationIds.first()); // current: opens its key
    for (qint64 id : g->escalationIds)
        if (const int r = m_items->rowOf(id); r >= 0)
            m_itemsView->selectionModel()->select(m_items->index(r, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

void ReviewPane::finishAction(bool ok, const QString &message, bool reload)
{
    m_busy = false;
    showMessage(message, !ok);
    updateActions();
    emit actionFinished(ok, message);
    if (reload)
        load();
}

void ReviewPane::sendNote(qint64 id, const QString &kind, const QString &text, const QString &done)
{
    m_busy = true;
    updateActions();
    whenReady(addReviewNote(*m_workspace, id, kind, text), this,
              [this, done](const Outcome<qint64> &o) { finishAction(o.ok(), o.ok() ? done : o.error->message, o.ok()); });
}

void ReviewPane::markReviewed()
{
    if (const ReviewItem *item = selectedItem())
        sendNote(item->row.escalation.id, QStringLiteral("reviewed"), QString(),
                 tr("Escalation %1 marked reviewed.").arg(item->row.escalation.id));
}

void ReviewPane::addNote()
{
    const ReviewItem *item = selectedItem();
    if (!item)
        return;
    const qint64 id = item->row.escalation.id;
    const std::optional<QString> entered = askStampedText(this, m_workspace->config(), tr("Add note"),
                                                          tr("Note on escalation %1 (%2):").arg(id).arg(item->row.escalation.idemKey), true);
    if (!entered)
        return;
    const QString text = *entered;
    if (text.trimmed().isEmpty()) {
        showMessage(tr("A note needs text: nothing was written."), true);
        return;
    }
    sendNote(id, QStringLiteral("note"), text.trimmed(), tr("Note added to escalation %1.").arg(id));
}

void ReviewPane::claim()
{
    const ReviewItem *item = selectedItem();
    if (!item)
        return;
    const qint64 id = item->row.escalation.id;
    m_busy = true;
    updateActions();
    whenReady(takeClaim(*m_workspace, ClaimScope::Escalation, QString::number(id), kClaimDefaultTtlS), this,
              [this, id](const Outcome<ClaimResult> &o) {
                  if (!o.ok())
                      return finishAction(false, o.error->message, false);
                  const bool mine = o->kind == ClaimResult::Kind::Taken || o->kind == ClaimResult::Kind::Renewed;
                  finishAction(mine, tr("Escalation %1: %2 (%3)").arg(id).arg(claimKindName(o->kind), o->message), true);
              });
}

void ReviewPane::resolve(bool claimConfirmed)
{
    const ReviewItem *item = selectedItem();
    if (!item)
        return;
    const Escalation e = item->row.escalation;
    const auto held = item->row.shownClaim();
    if (!claimConfirmed && claimAsksFirst(held, claimOperator(*m_workspace, QString()), m_readAt.isValid() ? m_readAt.elapsed() : -1)) {
        // Acting on something someone else holds asks first (DESIGN.md §8 "Claims"; the rule is claimAsksFirst()).
        if (!m_claimQuestion)
            m_claimQuestion = stampEnvironment(askBeforeActingOnClaimedKey(this, this, e.idemKey, *held, tr("Resolve escalation %1 anyway?").arg(e.id),
                                                          tr("resolution"), tr("Resolve anyway\u2026"), [this] { resolve(true); }),
                                               m_workspace->config());
        return;
    }
    const std::optional<QString> entered = askStampedText(this, m_workspace->config(), tr("Resolve escalation %1").arg(e.id),
                                                          tr("Why is %1 (%2) resolved? At least %3 characters, audited.")
                                                              .arg(e.idemKey, escalationReasonName(e.reason))
                                                              .arg(kOperatorReasonMinChars));
    if (!entered)
        return;
    const QString reason = entered->trimmed();
    if (reason.size() < kOperatorReasonMinChars) {
        showMessage(tr("A resolution needs a reason of at least %1 characters (got %2): nothing was written.").arg(kOperatorReasonMinChars).arg(reason.size()),
                    true);
        return;
    }
    m_busy = true;
    updateActions();
    whenReady(resolveEscalation(*m_workspace, e.id, reason, e.version), this,
              [this, id = e.id](const Outcome<escalation_sql::EscalationResolveResult> &o) {
                  if (!o.ok())
                      return finishAction(false, o.error->message, false);
                  const bool done = o->kind == escalation_sql::EscalationResolveResult::Kind::Resolved;
                  finishAction(done, done ? tr("Escalation %1 resolved.").arg(id)
                                          : tr("Escalation %1: %2 (%3)").arg(id).arg(escalation_sql::resolveKindName(o->kind), o->message),
                               true);
              });
}

void ReviewPane::signOff()
{
    if (!m_snapshot || !m_snapshot->openComplete)
        return;
    const ReviewSnapshot s = *m_snapshot;
    const std::optional<QString> entered =
        askStampedText(this, m_workspace->config(), tr("Sign off %1").arg(s.day.day.toString(Qt::ISODate)),
                       tr("Sign off %1 (%2): %3 open, %4 new, %5 changed since the last sign-off. Note (optional):")
                           .arg(s.day.day.toString(Qt::ISODate), zoneId(s))
                           .arg(s.totals.open)
                           .arg(s.totals.newSinceSignOff)
                           .arg(s.totals.changedSinceSignOff));
    if (!entered)
        return;
    const QString note = *entered;
    // The review's fingerprint (the SHA-256 of its JSON form, printed in every format's header).
    const QString sha = reviewReportSha256(s);
    m_busy = true;
    updateActions();
    whenReady(signOffReview(*m_workspace, s, sha, note.trimmed()), this, [this, sha](const Outcome<ReviewSignOff> &o) {
        finishAction(o.ok(),
                     o.ok() ? tr("Signed off %1 (%2) as %3; report SHA-256 %4.").arg(o->day.toString(Qt::ISODate), o->zone, o->signedBy, sha)
                            : o.error->message,
                     o.ok());
    });
}

bool ReviewPane::exportReport(const QString &path, QString *error) const
{
    if (!m_snapshot) {
        *error = tr("nothing to export: the review is not loaded");
        return false;
    }
    if (!m_snapshot->openComplete) {
        *error = tr("the open items are still loading: export when the list is complete");
        return false;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("pdf"))
        return writeReviewPdf(*m_snapshot, path, error);
    QByteArray bytes;
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
        bytes = reviewHtml(*m_snapshot);
    else if (suffix == QLatin1String("json"))
        bytes = reviewJson(*m_snapshot);
    else if (suffix == QLatin1String("csv"))
        bytes = reviewCsv(*m_snapshot);
    else {
        *error = tr("export as .html, .pdf, .json or .csv: \"%1\"").arg(path);
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) < 0 || !file.flush()) {
        *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void ReviewPane::exportDialog()
{
    if (!m_snapshot)
        return;
    const QString name = QStringLiteral("review-%1.html").arg(m_snapshot->day.day.toString(Qt::ISODate));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), name, tr("HTML (*.html);;PDF (*.pdf);;JSON (*.json);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportReport(path, &error))
        showMessage(tr("Report written to %1.").arg(path), false);
    else
        showMessage(error, true);
}

} // namespace triage
