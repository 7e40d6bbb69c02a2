#pragma once

#include <QByteArray>
#include <QStringList>
#include <QVector>

#include <optional>

namespace triage {

/// A byte range [begin, end) of one JSON value inside a larger UTF-8 JSON text.
struct RawSpan {
    qsizetype begin = 0;
    qsizetype end = 0;
    /// The bytes of the value in `json` (the text the span was found in).
    QByteArray slice(const QByteArray &json) const { return json.mid(begin, end - begin); }
};

/// Byte-exact navigation of JSON text, for evidence and snapshots that must never go
/// through QJsonDocument (docs/QT-PITFALLS.md: it rounds big integers and rewrites decimals).
/// The functions expect text that QJsonDocument already accepted; on anything else they
/// return nullopt / empty rather than guess.
namespace rawjson {

/// The span of the whole document (surrounding whitespace excluded), or nullopt.
std::optional<RawSpan> root(const QByteArray &json);

/// The span of the value reached from the root by `path` (object keys, in order; empty
/// = the root). nullopt when a step is not an object or lacks the key (the first
/// occurrence of a duplicated key wins).
std::optional<RawSpan> find(const QByteArray &json, const QStringList &path);

/// One member of an object: its name (decoded), the span of its name literal (with the
/// quotes) and of its value.
struct RawMember {
    QString name;
    RawSpan nameSpan;
    RawSpan value;
};

/// The members of the object at `obj` in the order written (a repeated name listed each
/// time); empty when `obj` is not an object.
QVector<RawMember> objectMembers(const QByteArray &json, RawSpan obj);

/// The spans of the elements of the array at `array` (empty for an empty array or when
/// `array` is not an array).
QVector<RawSpan> arrayElements(const QByteArray &json, RawSpan array);

/// The first byte of the value at `span` ('{', '[', '"', 't', 'f', 'n', '-' or a digit).
char kind(const QByteArray &json, RawSpan span);

/// One member name written more than once in one object (QJsonDocument, like most
/// parsers, keeps only the last occurrence).
struct DuplicateKey {
    QString path;  ///< JSONPath of the object, e.g. "$" or "$.items[2]"
    QString key;   ///< the member name
    int count = 0; ///< how many times the object writes it
};

/// The objects of `json` that write a member name more than once, each listed where its
/// closing brace is (inner objects before the object holding them; names in the order
/// first written); at most `max` entries. Empty for text that is not JSON.
QVector<DuplicateKey> duplicateKeys(const QByteArray &json, int max = 100);

/// Marks the 2nd, 3rd, … occurrence of a duplicated member name in a renamed key:
/// name + kDuplicateKeyMarker + occurrence ("0002"), so that a parser keeps every
/// occurrence, in order, next to the first (QJsonObject sorts its keys).
inline constexpr char16_t kDuplicateKeyMarker = u'\0';

/// `json` with every repeated member name renamed as kDuplicateKeyMarker describes (for
/// display only: the stored text is never changed); `json` itself when nothing repeats.
QByteArray renameDuplicateKeys(const QByteArray &json);

/// Numbers (outside strings) whose text a JSON parser would change: integers beyond
/// ±2^53 (rounded by every double-based parser) and decimals or exponents that do not
/// re-serialise to the same text ("1.10" → "1.1", "1e3" → "1000"). Each entry reads
/// "<number as written> (<what happens>)"; at most `max` entries.
QStringList lossyNumbers(const QByteArray &json, int max = 5);

} // namespace rawjson
} // namespace triage
