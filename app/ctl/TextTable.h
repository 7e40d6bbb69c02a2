#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

namespace triage::ctl {

/// Aligned columns for humans (the `table` format): a header row, then one line per row,
/// columns separated by two spaces, no trailing blanks. Control characters in cells
/// (NUL, ESC, newlines, tabs, …) are escaped by triage::escapeControlChars() ("\\n",
/// "\\0", "\\u{001B}"), so one row stays one line and nothing reaches the terminal raw.
/// Columns line up on a terminal with wide and combining characters too (displayWidth()).
class TextTable {
public:
    /// A table with these column headers.
    explicit TextTable(QStringList headers);
    /// Right-aligns column `column` (numbers).
    void alignRight(int column);
    /// Appends a row; missing cells are empty, extra cells are ignored.
    void addRow(const QStringList &cells);
    /// Number of rows added.
    int rowCount() const { return int(m_rows.size()); }
    /// The table as UTF-8 text, each line prefixed by `indent`.
    QByteArray render(const QString &indent = QString()) const;
    /// `text` with control characters escaped (one display line; TextEscape.h).
    static QString oneLine(const QString &text);
    /// Terminal columns `text` takes: 2 for each wide or full-width character (CJK, "ｂ"),
    /// 0 for a combining mark (the accent of "e\u0301"), 1 for the rest (glibc's wcwidth()
    /// under C.UTF-8, whatever the process's locale). Columns are padded by this width.
    static qsizetype displayWidth(const QString &text);

private:
    QStringList m_headers;
    QVector<QStringList> m_rows;
    QVector<bool> m_right;
};

} // namespace triage::ctl
