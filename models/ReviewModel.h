#pragma once
// The daily review's models (DESIGN.md §8 "The Review view and the report"): the groups table
// and the items list of one ReviewSnapshot, and the pure figures the view, its charts and the
// report share (trend per day, open by reason, money and median text). No widgets, no SQL: the
// snapshot comes from readReview() (Review.h); these only present it.

#include "ModelRoles.h"
#include "Review.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSet>

namespace triage {

/// One day of the trend: the sums over biz_type × reason of triage_review_daily's counts. No
/// median here: a day's medians are per (biz_type, reason) row and are never combined.
struct ReviewTrendDay {
    QDate day;
    int opened = 0, resolved = 0, openAtEnd = 0, breaches = 0;
    bool complete = true;  ///< every row of the day was complete (false: the day was still running)
    bool hasRows = false;  ///< any trend row exists for the day (false: shown as 0, "no data")
};

/// The `days` days ending with the snapshot's day (oldest first, exactly `days` entries), each
/// the sum of snapshot.trend's rows of that day (zero and hasRows false when none). Pure.
QVector<ReviewTrendDay> reviewTrendByDay(const ReviewSnapshot &snapshot, int days);

/// Open escalations per reason (from snapshot.groups), reasons in the enum's order, only those
/// with any; the counts add up to snapshot.totals.open. Pure.
QVector<std::pair<EscalationReason, int>> reviewOpenByReason(const ReviewSnapshot &snapshot);

/// "EUR 1250.50 (3) · USD 10.00 (1, 2 unknown) · 4 without an amount" (the last: escalations with
/// no currency and no amount); "—" when empty. Amounts exactly as summed.
QString reviewMoneyText(const QVector<MoneyTotal> &money);

/// A median (seconds) as humanDuration() prints it ("3d 4h"); "—" for nullopt.
QString reviewDurationText(std::optional<double> seconds);

/// What a live re-read changed in the open items a view holds (DESIGN.md §9 "Live review"),
/// by escalation id. Items are in the snapshot's order (first_escalated_at, then id, oldest
/// first), which never changes while an escalation is open.
struct ReviewItemsDelta {
    QVector<int> updated;                        ///< indexes into held whose item changed
    QVector<ReviewItem> updatedItems;            ///< the fresh items for `updated`, same order
    QVector<int> left;                           ///< indexes into held no longer open
    /// Items that became open, each with the index in held it goes before (held.size(): at the
    /// end), in order; several may share an index.
    QVector<std::pair<int, ReviewItem>> entered;
    bool isEmpty() const { return updated.isEmpty() && left.isEmpty() && entered.isEmpty(); }
};

/// True when the two items show the same: the escalation (version, last seen, SLA, amount), its
/// claims (holder, expiry, version), bucket, breach, new/changed flags, last review and notes.
bool sameReviewItem(const ReviewItem &a, const ReviewItem &b);

/// Compares `held` (the open items a view holds, in order; ids in `alreadyLeft` were reported
/// before and are never reported again) with `fresh`, the first open items now (`freshComplete`:
/// all of them). A held item missing from `fresh` left when `fresh` reaches past it
/// (`freshComplete`, or it sorts before fresh's last item); otherwise it is kept. A fresh item
/// not held entered when it sorts before the last held item still open, or anywhere when
/// `freshComplete`; later ones are left to paging (readReviewItems() after the last held). Pure.
ReviewItemsDelta diffReviewItems(const QVector<ReviewItem> &held, const QSet<qint64> &alreadyLeft, const QVector<ReviewItem> &fresh,
                                 bool freshComplete);

/// The groups of a snapshot (age bucket × reason × biz_type), one row each, then a last
/// "Total" row whose counts are the sums (== snapshot.totals.open escalations).
class ReviewGroupsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { BucketColumn, ReasonColumn, BizTypeColumn, EscalationsColumn, KeysColumn, BreachedColumn, MoneyColumn, ColumnCount };
    enum Role {
        EscalationIdsRole = roles::FirstModelRole, ///< QVariantList of qint64: the rows behind the group
        IsTotalRole,                               ///< bool: the total row
    };
    explicit ReviewGroupsModel(QObject *parent = nullptr);
    /// Replaces the rows: in place (dataChanged, the selection kept) when the snapshot has the
    /// same groups (age bucket × reason × biz_type) in the same order, else a model reset.
    void setSnapshot(const ReviewSnapshot &snapshot);
    /// The row of the group (bucket, reason, biz_type), -1 when none.
    int rowOf(AgeBucket bucket, EscalationReason reason, const QString &bizType) const;
    /// The group of `row` (nullptr for the total row or out of range).
    const ReviewGroup *groupAt(int row) const;
    /// Sum of the escalations column over the groups (the total row's value).
    int totalEscalations() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVector<ReviewGroup> m_groups;
    QVector<MoneyTotal> m_totalMoney;
};

/// The open items of a snapshot (oldest first), all of them or only those new or changed since
/// the last sign-off (setNewOnly()).
class ReviewItemsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SinceColumn,     ///< "new" / "changed" / "" since the last sign-off
        KeyColumn,       ///< idempotency key (monospace, elided in the middle)
        ReasonColumn,
        BizTypeColumn,
        BucketColumn,    ///< age bucket label
        FirstColumn,     ///< first escalated (UTC, to the second)
        SlaColumn,       ///< sla_due_at (UTC), "BREACHED" tone when breached
        ClaimColumn,     ///< "alice" (the shown claim's holder) or ""
        ReviewedColumn,  ///< "bob 2026-12-02 08:00:00" or ""
        NotesColumn,
        AmountColumn,    ///< "EUR 12.50" or "—"
        ColumnCount
    };
    enum Role {
        EscalationIdRole = roles::FirstModelRole, ///< qint64
        IdemKeyRole,                              ///< QString
    };
    explicit ReviewItemsModel(QObject *parent = nullptr);
    void setSnapshot(const ReviewSnapshot &snapshot);
    /// Appends `items` (the next page of the snapshot's open items, readReviewItems()) after
    /// the rows shown: rows inserted, the filter applied to them.
    void appendItems(const QVector<ReviewItem> &items);
    /// Only items new or changed since the last sign-off.
    void setNewOnly(bool newOnly);
    bool newOnly() const { return m_newOnly; }
    /// The item of `row` (nullptr out of range).
    const ReviewItem *itemAt(int row) const;
    /// The row of escalation `id`, -1 when not shown.
    int rowOf(qint64 id) const;

    /// What mergeSnapshot() changed (rows entered, updated, left).
    struct LiveCounts {
        int entered = 0, updated = 0, left = 0;
    };
    /// Folds a live re-read into the items held (DESIGN.md §9 "Live review") without a reset:
    /// diffReviewItems() against fresh.open; changed items update in place, new ones are
    /// inserted where they sort and marked entered (roles::LiveChange 1), items no longer open
    /// stay, greyed (roles::LiveChange 2), with why in the "Since" column ("resolved by bob at
    /// 12:01:05 UTC" from fresh.resolvedToday, else "no longer open at …"). `nowUtc` (ISO UTC)
    /// stamps the marks. The marks last until the next setSnapshot().
    LiveCounts mergeSnapshot(const ReviewSnapshot &fresh, const QString &nowUtc);
    /// The items held that are still open (not marked left), in order: what the snapshot's
    /// `open` becomes after mergeSnapshot().
    QVector<ReviewItem> openItems() const;
    /// roles::LiveChange of escalation `id`: 0, 1 entered, 2 left.
    int liveChangeOf(qint64 id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuild();
    bool shown(const ReviewItem &item) const; ///< passes the new-only filter
    /// Inserts m_all[at] (already there) into the shown rows when it passes the filter.
    void showInserted(int at);
    struct LiveMark {
        int change = 0;   ///< 1 entered, 2 left
        QString atUtc;    ///< when the poll saw it
        QString why;      ///< left: why ("resolved by bob at 12:01:05 UTC")
    };
    QHash<qint64, LiveMark> m_marks; ///< by escalation id; cleared by setSnapshot()
    QVector<ReviewItem> m_all;
    QVector<int> m_rows; // indexes into m_all
    bool m_newOnly = false;
};

} // namespace triage
