// The daily review's models (DESIGN.md §8 "The Review view and the report").
#include "ReviewModel.h"

#include "StatusTone.h"
#include "TimeText.h"

#include <QHash>


namespace triage {

QVector<ReviewTrendDay> reviewTrendByDay(const ReviewSnapshot &snapshot, int days)
{
    QVector<ReviewTrendDay> out;
    const QDate last = snapshot.day.day;
    if (!last.isValid() || days <= 0)
        return out;
    QHash<QDate, int> index;
    for (int i = days - 1; i >= 0; --i) {
        ReviewTrendDay d;
        d.day = last.addDays(-i);
        index.insert(d.day, out.size());
        out << d;
    }
    for (const ReviewDailyRow &r : snapshot.trend) {
        const auto it = index.constFind(r.day);
        if (it == index.cend())
            continue;
        ReviewTrendDay &d = out[*it];
        d.opened += r.opened;
        d.resolved += r.resolved;
        d.openAtEnd += r.openAtEnd;
        d.breaches += r.breaches;
        d.complete = d.complete && r.complete;
        d.hasRows = true;
    }
    return out;
}

QVector<std::pair<EscalationReason, int>> reviewOpenByReason(const ReviewSnapshot &snapshot)
{
    QVector<std::pair<EscalationReason, int>> out;
    for (EscalationReason reason : allEscalationReasons()) {
        int n = 0;
        for (const ReviewGroup &g : snapshot.groups)
            if (g.reason == reason)
                n += g.escalations;
        if (n > 0)
            out.append({reason, n});
    }
    return out;
}

QString reviewMoneyText(const QVector<MoneyTotal> &money)
{
    QStringList parts;
    for (const MoneyTotal &m : money) {
        if (m.currency.isEmpty() && m.count == 0) { // escalations whose snapshot holds no amount
            parts << QStringLiteral("%1 without an amount").arg(m.unknown);
            continue;
        }
        const QString currency = m.currency.isEmpty() ? QStringLiteral("(no currency)") : m.currency;
        QString text = m.count > 0 ? QStringLiteral("%1 %2 (%3").arg(currency, m.sum).arg(m.count) : QStringLiteral("%1 (0").arg(currency);
        if (m.unknown > 0)
            text += QStringLiteral(", %1 unknown").arg(m.unknown);
        parts << text + QLatin1Char(')');
    }
    return parts.isEmpty() ? QStringLiteral("—") : parts.join(QStringLiteral(" · "));
}

QString reviewDurationText(std::optional<double> seconds)
{
    return seconds ? humanDuration(*seconds) : QStringLiteral("—");
}

// ---- groups ----

ReviewGroupsModel::ReviewGroupsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ReviewGroupsModel::setSnapshot(const ReviewSnapshot &snapshot)
{
    const auto sameGroups = [&] {
        if (snapshot.groups.size() != m_groups.size() || m_groups.isEmpty())
            return false;
        for (int i = 0; i < m_groups.size(); ++i) {
            const ReviewGroup &a = m_groups[i], &b = snapshot.groups[i];
            if (a.bucket != b.bucket || a.reason != b.reason || a.bizType != b.bizType)
                return false;
        }
        return true;
    };
    if (sameGroups()) { // a live re-read: the counts change, the rows (and the selection) stay
        m_groups = snapshot.groups;
        m_totalMoney = snapshot.totals.openMoney;
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_groups = snapshot.groups;
    m_totalMoney = snapshot.totals.openMoney;
    endResetModel();
}

int ReviewGroupsModel::rowOf(AgeBucket bucket, EscalationReason reason, const QString &bizType) const
{
    for (int i = 0; i < m_groups.size(); ++i)
        if (m_groups[i].bucket == bucket && m_groups[i].reason == reason && m_groups[i].bizType == bizType)
            return i;
    return -1;
}

const ReviewGroup *ReviewGroupsModel::groupAt(int row) const
{
    return row >= 0 && row < m_groups.size() ? &m_groups[row] : nullptr;
}

int ReviewGroupsModel::totalEscalations() const
{
    int n = 0;
    for (const ReviewGroup &g : m_groups)
        n += g.escalations;
    return n;
}

int ReviewGroupsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_groups.isEmpty() ? 0 : int(m_groups.size()) + 1;
}

int ReviewGroupsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReviewGroupsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const bool total = index.row() == m_groups.size();
    const ReviewGroup *g = groupAt(index.row());
    if (role == IsTotalRole)
        return total;
    if (role == EscalationIdsRole) {
        QVariantList ids;
        if (g)
            for (qint64 id : g->escalationIds)
                ids << id;
        return ids;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= EscalationsColumn && index.column() <= BreachedColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == roles::Tone && index.column() == BreachedColumn && g && g->breached > 0)
        return int(Tone::Danger);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (total) {
        int keys = 0, breached = 0;
        for (const ReviewGroup &x : m_groups) {
            keys += x.keys;
            breached += x.breached;
        }
        switch (index.column()) {
        case BucketColumn: return tr("Total");
        case EscalationsColumn: return totalEscalations();
        case KeysColumn: return QVariant(); // keys may repeat across groups: not summed
        case BreachedColumn: return breached;
        case MoneyColumn: return reviewMoneyText(m_totalMoney);
        default: return QVariant();
        }
    }
    switch (index.column()) {
    case BucketColumn: return ageBucketLabel(g->bucket);
    case ReasonColumn: return escalationReasonName(g->reason);
    case BizTypeColumn: return g->bizType.isEmpty() ? QStringLiteral("(unknown)") : g->bizType;
    case EscalationsColumn: return g->escalations;
    case KeysColumn: return g->keys;
    case BreachedColumn: return g->breached;
    case MoneyColumn: return reviewMoneyText(g->money);
    default: return {};
    }
}

QVariant ReviewGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[] = {"Age", "Reason", "biz_type", "Escalations", "Keys", "Breached", "Money (per currency)"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

// ---- items ----

ReviewItemsModel::ReviewItemsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ReviewItemsModel::setSnapshot(const ReviewSnapshot &snapshot)
{
    beginResetModel();
    m_all = snapshot.open;
    m_marks.clear();
    rebuild();
    endResetModel();
}

void ReviewItemsModel::appendItems(const QVector<ReviewItem> &items)
{
    QVector<int> added;
    for (int i = 0; i < items.size(); ++i)
        if (shown(items[i]))
            added << int(m_all.size()) + i;
    if (!added.isEmpty())
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size()) - 1);
    m_all += items;
    m_rows += added;
    if (!added.isEmpty())
        endInsertRows();
}

void ReviewItemsModel::setNewOnly(bool newOnly)
{
    if (newOnly == m_newOnly)
        return;
    beginResetModel();
    m_newOnly = newOnly;
    rebuild();
    endResetModel();
}

void ReviewItemsModel::rebuild()
{
    m_rows.clear();
    for (int i = 0; i < m_all.size(); ++i)
        if (shown(m_all[i]))
            m_rows << i;
}

bool ReviewItemsModel::shown(const ReviewItem &item) const
{
    // Rows the live update marked (entered, left) stay in view whatever the filter says.
    return !m_newOnly || item.newSinceSignOff || item.changedSinceSignOff || m_marks.contains(item.row.escalation.id);
}

const ReviewItem *ReviewItemsModel::itemAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_all[m_rows[row]] : nullptr;
}

int ReviewItemsModel::rowOf(qint64 id) const
{
    for (int r = 0; r < m_rows.size(); ++r)
        if (m_all[m_rows[r]].row.escalation.id == id)
            return r;
    return -1;
}

int ReviewItemsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ReviewItemsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReviewItemsModel::data(const QModelIndex &index, int role) const
{
    const ReviewItem *item = index.isValid() ? itemAt(index.row()) : nullptr;
    if (!item)
        return {};
    const Escalation &e = item->row.escalation;
    const int live = m_marks.isEmpty() ? 0 : liveChangeOf(e.id);
    switch (role) {
    case EscalationIdRole: return e.id;
    case IdemKeyRole: return e.idemKey;
    case roles::LiveChange: return live;
    case roles::Monospace: return index.column() == KeyColumn || index.column() == FirstColumn || index.column() == SlaColumn;
    case roles::ElideMiddle: return index.column() == KeyColumn;
    case roles::FullText:
        if (index.column() == KeyColumn)
            return e.idemKey;
        if (index.column() == FirstColumn)
            return e.firstEscalatedAt;
        if (index.column() == SlaColumn)
            return e.slaDueAt;
        return {};
    case roles::Tone:
        if (live == 2)
            return {}; // no longer open: plain (greyed) text, the "Since" column saying why
        if (index.column() == SlaColumn && (item->breached || e.overdue))
            return int(Tone::Danger);
        if (index.column() == SinceColumn && item->newSinceSignOff)
            return int(Tone::Info);
        if (index.column() == SinceColumn && item->changedSinceSignOff)
            return int(Tone::Warning);
        return {};
    case Qt::DisplayRole:
    case Qt::ToolTipRole: break;
    default: return {};
    }
    if (live != 0) {
        const LiveMark mark = m_marks.value(e.id);
        const QString at = utcToSecond(mark.atUtc).mid(11, 8);
        if (role == Qt::ToolTipRole && index.column() != KeyColumn) // the key's tooltip stays the whole key
            return live == 2 ? tr("left the open escalations (seen at %1 UTC): %2; Refresh drops it").arg(at, mark.why)
                             : tr("escalated at %1 UTC, after the list was loaded").arg(at);
        if (index.column() == SinceColumn && live == 2)
            return mark.why;
    }
    switch (index.column()) {
    case SinceColumn: return item->newSinceSignOff ? tr("new") : item->changedSinceSignOff ? tr("changed") : QString();
    case KeyColumn: return e.idemKey;
    case ReasonColumn: return escalationReasonName(e.reason);
    case BizTypeColumn: return e.bizType;
    case BucketColumn: return ageBucketLabel(item->bucket);
    case FirstColumn: return utcToSecond(e.firstEscalatedAt);
    case SlaColumn:
        return item->breached ? tr("BREACHED %1").arg(utcToSecond(item->breachDueAt.isEmpty() ? e.slaDueAt : item->breachDueAt))
                              : utcToSecond(e.slaDueAt);
    case ClaimColumn: {
        const auto c = item->row.shownClaim();
        return c ? c->holder : QString();
    }
    case ReviewedColumn:
        return item->lastReviewedBy.isEmpty() ? QString() : QStringLiteral("%1 %2").arg(item->lastReviewedBy, utcToSecond(item->lastReviewedAt));
    case NotesColumn: return item->notes;
    case AmountColumn: return e.amount ? QStringLiteral("%1 %2").arg(e.currency, *e.amount).trimmed() : QStringLiteral("—");
    default: return {};
    }
}

QVariant ReviewItemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[] = {"Since sign-off", "Key", "Reason", "biz_type", "Age", "First escalated (UTC)",
                                  "SLA due (UTC)", "Claimed by", "Reviewed", "Notes", "Amount"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace triage
