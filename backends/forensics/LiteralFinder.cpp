// A multi-literal search for the redaction's second pass (DESIGN.md §7 "Redaction").
#include "LiteralFinder.h"

#include <algorithm>

namespace triage {

namespace {

constexpr quint32 kBits = 64 * 64;

quint32 pairBit(char16_t a, char16_t b) { return (quint32(a) * 31u + quint32(b)) % kBits; }
bool test(const std::array<quint64, 64> &bits, quint32 bit) { return bits[bit / 64] >> (bit % 64) & 1u; }
void set(std::array<quint64, 64> &bits, quint32 bit) { bits[bit / 64] |= quint64(1) << (bit % 64); }

} // namespace

LiteralFinder::LiteralFinder(const QStringList &literals)
    : m_literals(literals)
{
    for (qsizetype i = 0; i < m_literals.size(); ++i) {
        const QString &s = std::as_const(m_literals)[i];
        if (s.isEmpty())
            continue;
        const std::u16string_view view(reinterpret_cast<const char16_t *>(s.utf16()), size_t(s.size()));
        m_index.emplace(view, i); // a duplicate keeps the first
        if (std::find(m_lengths.cbegin(), m_lengths.cend(), s.size()) == m_lengths.cend())
            m_lengths.push_back(s.size());
        if (s.size() == 1) {
            set(m_singles, s.at(0).unicode() % kBits);
            m_hasSingles = true;
        } else {
            set(m_pairs, pairBit(s.at(0).unicode(), s.at(1).unicode()));
        }
    }
    std::sort(m_lengths.begin(), m_lengths.end(), std::greater<>());
}

LiteralFinder::Match LiteralFinder::find(QStringView text, qsizetype from) const
{
    if (m_index.empty())
        return {};
    const char16_t *data = reinterpret_cast<const char16_t *>(text.utf16());
    const qsizetype n = text.size();
    for (qsizetype pos = std::max<qsizetype>(from, 0); pos < n; ++pos) {
        const bool pair = pos + 1 < n && test(m_pairs, pairBit(data[pos], data[pos + 1]));
        const bool single = m_hasSingles && test(m_singles, data[pos] % kBits);
        if (!pair && !single)
            continue;
        for (const qsizetype length : m_lengths) {
            if (pos + length > n || (length == 1 ? !single : !pair))
                continue;
            const auto it = m_index.find(std::u16string_view(data + pos, size_t(length)));
            if (it != m_index.end())
                return {pos, length, it->second};
        }
    }
    return {};
}

} // namespace triage
