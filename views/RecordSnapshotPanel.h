#pragma once

#include "KeyDetail.h"

#include <QSplitter>
#include <QVector>

#include <optional>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableView;

namespace triage {

class JsonView;
class RecordFieldsModel;

/// The upper half of the key detail (DESIGN.md §2 detail view): the idempotency record's
/// fields (RecordFieldsModel; a note instead when there is no record or its store failed)
/// beside a snapshot panel (JsonView) with a choice of result_snapshot or one intent
/// attempt's state_before / state_after. Preferred choice: result_snapshot when the record
/// has one, else the last attempt state.
class RecordSnapshotPanel : public QSplitter {
    Q_OBJECT
public:
    explicit RecordSnapshotPanel(QWidget *parent = nullptr);

    /// Shows `d`'s record and its snapshot choices.
    void showDetail(const KeyDetail &d);

    QTableView *fieldsTable() const { return m_fieldsTable; }
    JsonView *snapshotView() const { return m_snapshot; }
    QComboBox *snapshotChoice() const { return m_snapshotChoice; }

private:
    QWidget *buildRecordPanel();
    QWidget *buildSnapshotPanel();
    void showSnapshotChoice(int index);

    RecordFieldsModel *m_fieldsModel;
    QStackedWidget *m_fieldsStack = nullptr;
    QTableView *m_fieldsTable = nullptr;
    QLabel *m_noRecordLabel = nullptr;
    QComboBox *m_snapshotChoice = nullptr;
    JsonView *m_snapshot = nullptr;

    /// One entry of the snapshot choice: a caption and the text (nullopt = NULL).
    struct SnapshotSource {
        QString title;
        std::optional<QString> text;
    };
    QVector<SnapshotSource> m_snapshotSources;
};

} // namespace triage
