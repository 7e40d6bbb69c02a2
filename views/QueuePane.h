#pragma once

#include "Queue.h"

#include <QWidget>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;

namespace triage {

class MessageBar;
class QueueModel;
class Workspace;

/// One work queue as a tab: a filter bar (biz_type from the configuration or free text,
/// tenant, key substring, created / updated window in UTC, oldest or newest first), the
/// row count ("171 records and steps"), a loading indicator, an inline error bar with
/// Retry, and the lazily paged table (QueueModel). Text filters apply after a short pause
/// or on Enter. Emits currentKeyChanged() when the operator selects a row.
///
/// Long loads: when a page or the count has been loading for cancelDelayMs(),
/// a "Cancel query" button appears beside the loading indicator. It cancels the load on the
/// server (QueueModel::cancelLoading(); never SQL on the GUI thread); the rows already
/// loaded stay, the message bar says "Query cancelled" and offers "Load again"
/// (QueueModel::resume(): continues from the rows held).
class QueuePane : public QWidget {
    Q_OBJECT
public:
    /// `workspace` must outlive the pane. Nothing loads until start().
    QueuePane(Workspace *workspace, QueueKind kind, QWidget *parent = nullptr);

    /// The queue this pane shows.
    QueueKind kind() const { return m_kind; }
    /// The pane's model, table and count label (for the window, tests and the screenshot driver).
    QueueModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QLabel *countLabel() const { return m_countLabel; }
    /// The "Cancel query" button (hidden unless a load has run for cancelDelayMs()).
    QPushButton *cancelButton() const { return m_cancel; }
    /// The pane's message bar (errors, "Query cancelled").
    MessageBar *messageBar() const { return m_error; }
    /// How long a page or count loads before the cancel button shows: 1000 ms.
    static constexpr int cancelDelayMs() { return 1000; }

    /// Loads the queue with the current filters (first page and count).
    void start();
    /// Reloads from the first page (keeps the filters).
    void refresh();
    /// What the cancel button does: cancels the page and count in flight (no-op when idle).
    void cancelLoading();
    /// The request the filter bar describes.
    QueueRequest currentRequest() const;
    /// The key of the current row, or "".
    QString currentKey() const;
    /// Makes `row` current (and selected); emits currentKeyChanged(). False if out of range.
    bool selectRow(int row);
    /// The keys of the selected rows (ExtendedSelection), in row order, without repeats.
    QStringList selectedKeys() const;
    /// Selects exactly `rows` (the first becomes current); false if one is out of range.
    bool selectRows(const QList<int> &rows);
    /// Makes the first loaded row with `key` current; false when no loaded row has it.
    bool selectKey(const QString &key);

    /// "171 records and steps", "24 records", "15 steps", "1 record": the count label text
    /// for `count` rows of `request` (which sources the queue draws on decides the noun).
    static QString countText(const QueueRequest &request, qint64 count);

signals:
    /// The operator (or selectRow()) made a row with `key` current.
    void currentKeyChanged(const QString &key);
    /// The selected rows changed; `keys` as selectedKeys().
    void selectionChanged(const QStringList &keys);
    /// The queue's total is known (>= 0) or unknown again (-1).
    void countChanged(qint64 count);

private:
    void applyFilters();
    void updateStatus();
    void messageAction();
    QWidget *buildFilterBar();

    Workspace *m_workspace;
    QueueKind m_kind;
    QueueModel *m_model;
    QTableView *m_table = nullptr;
    QComboBox *m_bizType = nullptr;
    QLineEdit *m_tenant = nullptr;
    QLineEdit *m_keySubstring = nullptr;
    QComboBox *m_timeField = nullptr;
    QDateTimeEdit *m_from = nullptr;
    QDateTimeEdit *m_to = nullptr;
    QComboBox *m_order = nullptr;
    QLabel *m_countLabel = nullptr;
    QLabel *m_loadedLabel = nullptr;
    QProgressBar *m_busy = nullptr;
    MessageBar *m_error = nullptr;
    QTimer *m_debounce = nullptr;
    QPushButton *m_cancel = nullptr;
    QTimer *m_cancelDelay = nullptr; ///< runs while a load is younger than cancelDelayMs()
    bool m_wasBusy = false;
    bool m_offerResume = false; ///< the bar's action is "Load again" (after a cancel), not "Retry"
    QString m_cancelProblem;    ///< why the last cancel could not be delivered, until the load ends
};

} // namespace triage
