#pragma once
// Finding any of a key's redacted values in a text (DESIGN.md §7 "Redaction"): the second pass
// of the redaction looks for every value redacted somewhere in a key again in all of the key's
// texts. A key can hold hundreds of values and hundreds of texts; a regular expression per key
// spent more time being compiled than matching, so this is a plain literal search.

#include <QString>
#include <QStringList>

#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace triage {

/// Finds the leftmost occurrence of any of a fixed list of literal strings (case-sensitive,
/// UTF-16 code units), preferring the longest at that place: what a regular expression of the
/// escaped literals joined by `|`, longest first, matches. Built once per key; find() is const
/// and may run on several threads at once. The empty string is never found.
class LiteralFinder {
public:
    /// One occurrence: `text`'s code units [pos, pos + length) equal literal number `index`
    /// (its index in the list given to the constructor). `pos` is -1 when there is none.
    struct Match {
        qsizetype pos = -1;
        qsizetype length = 0;
        qsizetype index = -1;
    };

    LiteralFinder() = default;
    /// `literals`: the strings to look for; duplicates find the first of them.
    explicit LiteralFinder(const QStringList &literals);

    /// The leftmost occurrence in `text` starting at or after `from` (longest first at one place).
    Match find(QStringView text, qsizetype from) const;

private:
    QStringList m_literals; ///< owns the characters the map's views point into
    std::unordered_map<std::u16string_view, qsizetype> m_index;
    std::vector<qsizetype> m_lengths; ///< the literals' distinct lengths, longest first
    /// A filter on a place's first two code units (or its first, for one-unit literals): a
    /// place whose bit is clear starts no literal.
    std::array<quint64, 64> m_pairs{};
    std::array<quint64, 64> m_singles{};
    bool m_hasSingles = false;
};

} // namespace triage
