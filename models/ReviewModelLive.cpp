// The Review view's live update (DESIGN.md §9 "Live review"): a re-read folded into the open
// items held, by escalation id, without a reset.
#include "ReviewModel.h"

#include "TimeText.h"

#include <algorithm>

namespace triage {

namespace {

/// The items' order: first_escalated_at (UTC µs), then id.
std::pair<UtcMicros, qint64> orderOf(const ReviewItem &item)
{
    return {parseUtcMicros(item.row.escalation.firstEscalatedAt).value_or(0), item.row.escalation.id};
}

bool sameClaim(const std::optional<Claim> &a, const std::optional<Claim> &b)
{
    if (a.has_value() != b.has_value())
        return false;
    return !a || (a->holder == b->holder && a->expiresAt == b->expiresAt && a->version == b->version);
}

} // namespace

bool sameReviewItem(const ReviewItem &a, const ReviewItem &b)
{
    const Escalation &x = a.row.escalation, &y = b.row.escalation;
    return x.id == y.id && x.version == y.version && x.lastSeenAt == y.lastSeenAt && x.slaDueAt == y.slaDueAt
        && x.overdue == y.overdue && x.amount == y.amount && x.currency == y.currency && x.resolvedAt == y.resolvedAt
        && sameClaim(a.row.keyClaim, b.row.keyClaim) && sameClaim(a.row.escalationClaim, b.row.escalationClaim)
        && a.bucket == b.bucket && a.breached == b.breached && a.breachDueAt == b.breachDueAt
        && a.newSinceSignOff == b.newSinceSignOff && a.changedSinceSignOff == b.changedSinceSignOff
        && a.lastReviewedBy == b.lastReviewedBy && a.lastReviewedAt == b.lastReviewedAt && a.notes == b.notes;
}

ReviewItemsDelta diffReviewItems(const QVector<ReviewItem> &held, const QSet<qint64> &alreadyLeft, const QVector<ReviewItem> &fresh,
                                 bool freshComplete)
{
    ReviewItemsDelta d;
    QHash<qint64, int> freshAt;
    for (int i = 0; i < fresh.size(); ++i)
        freshAt.insert(fresh[i].row.escalation.id, i);
    QHash<qint64, int> heldAt;
    QVector<std::pair<UtcMicros, qint64>> heldOrder; // of every held item (left ones too), for the insert positions
    for (int i = 0; i < held.size(); ++i) {
        heldAt.insert(held[i].row.escalation.id, i);
        heldOrder << orderOf(held[i]);
    }
    const std::pair<UtcMicros, qint64> freshLast = fresh.isEmpty() ? std::pair<UtcMicros, qint64>{} : orderOf(fresh.last());
    for (int i = 0; i < held.size(); ++i) {
        const qint64 id = held[i].row.escalation.id;
        if (alreadyLeft.contains(id))
            continue;
        const auto f = freshAt.constFind(id);
        if (f != freshAt.cend()) {
            if (!sameReviewItem(held[i], fresh[*f])) {
                d.updated << i;
                d.updatedItems << fresh[*f];
            }
        } else if (freshComplete || (!fresh.isEmpty() && heldOrder[i] < freshLast)) {
            d.left << i;
        }
    }
    std::optional<std::pair<UtcMicros, qint64>> heldLast;
    for (int i = int(held.size()) - 1; i >= 0 && !heldLast; --i)
        if (!alreadyLeft.contains(held[i].row.escalation.id))
            heldLast = heldOrder[i];
    for (const ReviewItem &item : fresh) {
        if (heldAt.contains(item.row.escalation.id))
            continue;
        const auto order = orderOf(item);
        if (!freshComplete && (!heldLast || !(order < *heldLast)))
            continue; // past the held items: paging brings it
        const int at = int(std::lower_bound(heldOrder.cbegin(), heldOrder.cend(), order) - heldOrder.cbegin());
        d.entered.append({at, item});
    }
    return d;
}

int ReviewItemsModel::liveChangeOf(qint64 id) const
{
    const auto it = m_marks.constFind(id);
    return it == m_marks.cend() ? 0 : it->change;
}

QVector<ReviewItem> ReviewItemsModel::openItems() const
{
    QVector<ReviewItem> out;
    out.reserve(m_all.size());
    for (const ReviewItem &item : m_all)
        if (liveChangeOf(item.row.escalation.id) != 2)
            out << item;
    return out;
}

void ReviewItemsModel::showInserted(int at)
{
    // m_rows holds indexes into m_all in order: the ones at or after `at` moved one down.
    const int row = int(std::lower_bound(m_rows.cbegin(), m_rows.cend(), at) - m_rows.cbegin());
    for (int r = row; r < m_rows.size(); ++r)
        ++m_rows[r];
    if (!shown(m_all[at]))
        return;
    beginInsertRows({}, row, row);
    m_rows.insert(row, at);
    endInsertRows();
}

ReviewItemsModel::LiveCounts ReviewItemsModel::mergeSnapshot(const ReviewSnapshot &fresh, const QString &nowUtc)
{
    QSet<qint64> alreadyLeft;
    for (auto it = m_marks.cbegin(); it != m_marks.cend(); ++it)
        if (it->change == 2)
            alreadyLeft.insert(it.key());
    const ReviewItemsDelta d = diffReviewItems(m_all, alreadyLeft, fresh.open, fresh.openComplete);
    LiveCounts counts{int(d.entered.size()), int(d.updated.size()), int(d.left.size())};
    const auto rowOfIndex = [this](int at) {
        const auto it = std::lower_bound(m_rows.cbegin(), m_rows.cend(), at);
        return it != m_rows.cend() && *it == at ? int(it - m_rows.cbegin()) : -1;
    };
    for (int k = 0; k < d.updated.size(); ++k) {
        const int at = d.updated[k];
        m_all[at] = d.updatedItems[k];
        const int row = rowOfIndex(at);
        if (row >= 0)
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        else if (shown(m_all[at])) { // became new or changed since the sign-off
            const int insertAt = int(std::lower_bound(m_rows.cbegin(), m_rows.cend(), at) - m_rows.cbegin());
            beginInsertRows({}, insertAt, insertAt);
            m_rows.insert(insertAt, at);
            endInsertRows();
        }
    }
    QHash<qint64, const Escalation *> resolved; // who resolved what left, from the day's resolved list
    if (!d.left.isEmpty())
        for (const ReviewItem &r : fresh.resolvedToday)
            resolved.insert(r.row.escalation.id, &r.row.escalation);
    for (int at : d.left) {
        QString why = QStringLiteral("no longer open at %1 UTC").arg(utcToSecond(nowUtc).mid(11, 8));
        if (const Escalation *e = resolved.value(m_all[at].row.escalation.id))
            why = QStringLiteral("resolved by %1 at %2 UTC").arg(e->resolvedBy.isEmpty() ? QStringLiteral("?") : e->resolvedBy,
                                                                 utcToSecond(e->resolvedAt).mid(11, 8));
        m_marks.insert(m_all[at].row.escalation.id, LiveMark{2, nowUtc, why});
        const int row = rowOfIndex(at);
        if (row >= 0)
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    // From the last: items entering at one place keep their order, and earlier positions stay valid.
    for (auto it = d.entered.crbegin(); it != d.entered.crend(); ++it) {
        m_marks.insert(it->second.row.escalation.id, LiveMark{1, nowUtc, QString()});
        m_all.insert(it->first, it->second);
        showInserted(it->first);
    }
    return counts;
}

} // namespace triage
