#pragma once

#include <QStringList>

class QTableWidget;
class QWidget;

namespace triage {

/// A read-only report table of the bulk dialogs: `headers` as columns, `rows` empty rows,
/// whole-row selection, no row numbers, the last column stretched, no word wrap.
QTableWidget *reportTable(const QStringList &headers, int rows, QWidget *parent);
/// Sets cell (`row`, `col`) of `table` to `text`, with `text` as its tooltip too.
void setCell(QTableWidget *table, int row, int col, const QString &text);

} // namespace triage
