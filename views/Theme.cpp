#include "Theme.h"

#include "CellDelegate.h"

#include <QApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QTableView>

namespace triage::theme {

ToneColors toneColors(Tone tone)
{
    switch (tone) {
    case Tone::Ok: return {QColor(0x1e, 0x6b, 0x34), QColor(0xe3, 0xf4, 0xe8), QColor(0x9f, 0xd3, 0xad)};
    case Tone::Warning: return {QColor(0x8a, 0x4f, 0x00), QColor(0xff, 0xf0, 0xd0), QColor(0xf0, 0xbe, 0x5e)};
    case Tone::Danger: return {QColor(0xa4, 0x23, 0x1a), QColor(0xfd, 0xe7, 0xe4), QColor(0xf2, 0xa5, 0x9d)};
    case Tone::Info: return {QColor(0x1a, 0x4f, 0x9c), QColor(0xe5, 0xee, 0xfc), QColor(0xa9, 0xc3, 0xee)};
    case Tone::Escalated: return {QColor(0x6a, 0x1b, 0x9a), QColor(0xf3, 0xe5, 0xf8), QColor(0xd1, 0xa6, 0xe3)};
    case Tone::Muted: return {QColor(0x5f, 0x63, 0x68), QColor(0xee, 0xef, 0xf1), QColor(0xd0, 0xd3, 0xd7)};
    case Tone::Neutral: break;
    }
    return {QColor(0x3c, 0x40, 0x43), QColor(0xf1, 0xf3, 0xf4), QColor(0xda, 0xdc, 0xe0)};
}

QFont monospaceFont(qreal pointDelta)
{
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const qreal base = QApplication::font().pointSizeF();
    if (base > 0)
        f.setPointSizeF(base + pointDelta);
    f.setStyleHint(QFont::Monospace);
    return f;
}

QString badgeStyleSheet(Tone tone, const QString &widgetClass)
{
    const ToneColors c = toneColors(tone);
    return QStringLiteral("%4 { color: %1; background: %2; border: 1px solid %3; border-radius: 9px; "
                          "padding: 1px 9px; font-weight: bold; }")
        .arg(c.foreground.name(), c.background.name(), c.border.name(), widgetClass);
}

QColor mutedText()
{
    return QColor(0x80, 0x86, 0x8b);
}

QColor enteredRowBackground()
{
    return QColor(0xff, 0xf4, 0xc2); // pale yellow: new, not an alarm
}

QColor storeColor(int store)
{
    // Okabe-Ito: blue, orange, bluish green, reddish purple.
    switch (store) {
    case 0: return QColor(0x00, 0x72, 0xb2);
    case 1: return QColor(0xe6, 0x9f, 0x00);
    case 2: return QColor(0x00, 0x9e, 0x73);
    case 3: return QColor(0xcc, 0x79, 0xa7);
    }
    return mutedText();
}

} // namespace triage::theme

namespace triage::theme {

void setupTable(QTableView *table, Qt::TextElideMode elide)
{
    table->setItemDelegate(new CellDelegate(table));
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->setShowGrid(false);
    table->setWordWrap(false);
    table->setTextElideMode(elide);
    table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(QFontMetrics(table->font()).height() + 8);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setHighlightSections(false);
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    table->horizontalHeader()->setMinimumSectionSize(28);
}

void setColumnWidths(QTableView *table, std::initializer_list<int> widths)
{
    int i = 0;
    for (int w : widths)
        table->horizontalHeader()->resizeSection(i++, w);
}

} // namespace triage::theme
