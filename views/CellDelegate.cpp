#include "CellDelegate.h"

#include "ModelRoles.h"
#include "Theme.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace triage {

CellDelegate::CellDelegate(QObject *parent) : QStyledItemDelegate(parent) {}

void CellDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = index.data(roles::ElideMiddle).toBool() ? Qt::ElideMiddle : Qt::ElideRight;
    if (index.data(roles::Monospace).toBool()) {
        const bool italic = option->font.italic(); // Qt::FontRole's italic (settling events) stays
        option->font = theme::monospaceFont(-1);
        option->font.setItalic(italic);
    }
    if (index.data(roles::IsNull).toBool()) {
        option->font.setItalic(true);
        option->palette.setColor(QPalette::Text, theme::mutedText());
    }
    // The live update's marks (roles::LiveChange): a row that entered is highlighted, one
    // that left is greyed and struck through until the next refresh.
    switch (index.data(roles::LiveChange).toInt()) {
    case 1: option->backgroundBrush = theme::enteredRowBackground(); break;
    case 2:
        option->palette.setColor(QPalette::Text, theme::mutedText());
        option->font.setStrikeOut(true);
        break;
    default: break;
    }
}

void CellDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QVariant tone = index.data(roles::Tone);
    if (!tone.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget); // background, selection, focus

    const theme::ToneColors c = theme::toneColors(Tone(tone.toInt()));
    QFont f = opt.font;
    f.setBold(true);
    f.setPointSizeF(qMax<qreal>(6, f.pointSizeF() - 1));
    const QFontMetrics fm(f);
    const int h = qMin(opt.rect.height() - 4, fm.height() + 4);
    const int w = qMin(opt.rect.width() - 8, fm.horizontalAdvance(text) + 16);
    const QRect badge(opt.rect.left() + 4, opt.rect.top() + (opt.rect.height() - h) / 2, w, h);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(c.border);
    painter->setBrush(c.background);
    painter->drawRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), h / 2.0, h / 2.0);
    painter->setPen(c.foreground);
    painter->setFont(f);
    painter->drawText(badge, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, qMax(0, badge.width() - 10)));
    painter->restore();
}

bool CellDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                             const QModelIndex &index)
{
    if (!event || !view || event->type() != QEvent::ToolTip || index.data(Qt::ToolTipRole).isValid())
        return QStyledItemDelegate::helpEvent(event, view, option, index);
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString full = index.data(roles::FullText).isValid() ? index.data(roles::FullText).toString() : opt.text;
    const int room = opt.rect.width() - 2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1);
    if (full != opt.text || QFontMetrics(opt.font).horizontalAdvance(opt.text) > room) {
        QToolTip::showText(event->globalPos(), full.left(4000), view);
        return true;
    }
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

QSize CellDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    if (index.data(roles::Tone).isValid())
        s.rwidth() += 24;
    return s;
}

} // namespace triage
