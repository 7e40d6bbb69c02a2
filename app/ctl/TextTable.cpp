#include "TextTable.h"

#include "TextEscape.h"

#include <locale.h>
#include <wchar.h>

namespace triage::ctl {

qsizetype TextTable::displayWidth(const QString &text)
{
    // glibc's wcwidth() (Unicode's East Asian Width and combining classes) under C.UTF-8,
    // whatever the process's own locale (cron often runs with LANG unset, "C").
    static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (!utf8)
        return text.size();
    const locale_t previous = uselocale(utf8);
    qsizetype width = 0;
    for (const char32_t c : text.toUcs4()) {
        const int w = wcwidth(static_cast<wchar_t>(c));
        width += w < 0 ? 1 : w; // not printable: escaped before it gets here; count it as one
    }
    uselocale(previous);
    return width;
}

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
            width[i] = qMax(width[i], displayWidth(row[i]));
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
            const QString pad(width[i] - displayWidth(row[i]), QLatin1Char(' '));
            if (m_right[i])
                s += pad + row[i];
            else
                s += last ? row[i] : row[i] + pad;
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
