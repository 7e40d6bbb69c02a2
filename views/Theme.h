#pragma once

#include "StatusTone.h"

#include <QColor>
#include <QFont>
#include <QString>

#include <initializer_list>

class QTableView;

namespace triage::theme {

/// Colours of one tone (UNKNOWN / stale amber, FAILED red, SUCCESS green, …), chosen to
/// stay readable on a light background and when printed in a screenshot.
struct ToneColors {
    QColor foreground; ///< text
    QColor background; ///< badge / bar fill
    QColor border;     ///< badge / bar outline
};

/// The colours for `tone`.
ToneColors toneColors(Tone tone);

/// The fixed-width font for keys, times and JSON: the system fixed font at the
/// application font's point size plus `pointDelta`.
QFont monospaceFont(qreal pointDelta = 0);

/// Style sheet for a widget of class `widgetClass` (a QLabel, or a flat QPushButton that acts
/// on the badge) drawn as a status badge in `tone` (rounded, bold).
QString badgeStyleSheet(Tone tone, const QString &widgetClass = QStringLiteral("QLabel"));

/// Muted grey for secondary text (NULL cells, captions).
QColor mutedText();
/// Background of a row the live update inserted (it entered the list after it was loaded).
QColor enteredRowBackground();

/// The colour of a store in the Incident view (histogram bars, the event list's store cell):
/// `store` is an EventStore as int (0 idempotency blue, 1 intent orange, 2 ticket green,
/// 3 console purple), distinct for colour-blind readers and readable on white.
QColor storeColor(int store);

} // namespace triage::theme

namespace triage::theme {

/// Common look of the console's tables: row selection, no grid, compact rows, alternating
/// colours, no vertical header, CellDelegate, read-only, elided text (`elide`).
void setupTable(QTableView *table, Qt::TextElideMode elide = Qt::ElideRight);

/// Sets the widths (pixels) of the first columns of `table`; the last section stretches.
void setColumnWidths(QTableView *table, std::initializer_list<int> widths);

} // namespace triage::theme
