#include "TextTable.h"

#include "TextEscape.h"

namespace triage::ctl {

TextTable::TextTable(QStringList headers) : m_headers(std::move(headers)), m_right(m_headers.size(), false) {}

void TextTable::alignRight(int column)
{
    if (column >= 0 && column < m_right.size())
        m_right[column] = true;
}

void TextTable::addRow(const QStringList &cells)
{
    QStringList row;
    for (int i = 0; i < m_headers.size(); ++i)
        row << (i < cells.size() ? oneLine(cells[i]) : QString());
    m_rows.append(row);
}

QString TextTable::oneLine(const QString &text)
{
    return escapeControlChars(text);
}

QByteArray TextTable::render(const QString &indent) const
{
    QVector<qsizetype> width(m_headers.size(), 0);
    auto measure = [&](const QStringList &row) {
        for (int i = 0; i < row.size(); ++i)
            width[i] = qMax(width[i], row[i].size());
    };
    measure(m_headers);
    for (const QStringList &r : m_rows)
        measure(r);
    QByteArray out;
    auto line = [&](const QStringList &row) {
        QString s = indent;
        for (int i = 0; i < row.size(); ++i) {
            if (i > 0)
                s += QStringLiteral("  ");
            const bool last = i == row.size() - 1;
            if (m_right[i])
                s += row[i].rightJustified(width[i]);
            else
                s += last ? row[i] : row[i].leftJustified(width[i]);
        }
        while (s.endsWith(QLatin1Char(' ')))
            s.chop(1);
        out += s.toUtf8();
        out += '\n';
    };
    line(m_headers);
    for (const QStringList &r : m_rows)
        line(r);
    return out;
}

} // namespace triage::ctl
