#pragma once

#include <QStyledItemDelegate>

namespace triage {

/// The item delegate of every table and tree in the console. Reads the shared roles of
/// models/ModelRoles.h: a cell with roles::Tone is drawn as a coloured status badge
/// (UNKNOWN / stale amber, FAILED red, SUCCESS green, …); roles::Monospace cells use the
/// fixed-width font; roles::IsNull cells ("NULL") are grey italic. Text that does not fit
/// is shortened on the right (never in the middle, whatever the view's textElideMode: a
/// time or an age cut inside reads as another value), except roles::ElideMiddle cells
/// (keys); a shortened cell without a tooltip of its own gets its full text
/// (roles::FullText, else the display text) as tooltip. Read-only: no editors.
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
    /// The model's tooltip, else the full text of a cell too narrow for it.
    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                   const QModelIndex &index) override;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace triage
