#pragma once

#include <QStyledItemDelegate>

namespace triage {

/// The item delegate of every table and tree in the console. Reads the shared roles of
/// models/ModelRoles.h: a cell with roles::Tone is drawn as a coloured status badge
/// (UNKNOWN / stale amber, FAILED red, SUCCESS green, …); roles::Monospace cells use the
/// fixed-width font; roles::IsNull cells ("NULL") are grey italic. Read-only: no editors.
class CellDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    /// A delegate owned by `parent` (usually the view).
    explicit CellDelegate(QObject *parent = nullptr);

    /// Draws a status badge for cells with roles::Tone, else the styled default.
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    /// Room for the badge's padding on tone cells.
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    /// Read-only: never an editor.
    QWidget *createEditor(QWidget *, const QStyleOptionViewItem &, const QModelIndex &) const override { return nullptr; }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace triage
