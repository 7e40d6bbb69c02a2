#pragma once

#include <QByteArray>
#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

/// "1 event", "2 events", "0 events": `n` and the noun in the number it takes. `plural`
/// defaults to `singular` + "s" (pass it for "inconsistency" / "inconsistencies").
QString countText(qint64 n, const QString &singular, const QString &plural = QString());

/// True when `bytes` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates
/// (U+D800–U+DFFF), nothing above U+10FFFF, no truncated sequence. Noncharacters such as
/// U+FFFF are valid.
bool isValidUtf8(const QByteArray &bytes);

/// The one reversible escaping of stored text that is not valid UTF-8 (DESIGN.md §4 "Odd
/// bytes"), used by every output and export: each byte that is not part of a well-formed
/// UTF-8 sequence becomes `\xHH` (two upper-case hex digits), and each backslash of the
/// text becomes `\\`; everything else is kept as decoded UTF-8. Apply it only to text for
/// which isValidUtf8() is false (and say so: the value is flagged as escaped); valid text
/// is shown exactly as stored, unescaped.
QString escapeInvalidUtf8(const QByteArray &bytes);

/// The exact bytes escapeInvalidUtf8() was given; nullopt when `escaped` is not its output
/// (a backslash followed by anything but `\` or `x` and two hex digits).
std::optional<QByteArray> unescapeInvalidUtf8(const QString &escaped);

/// Stored text as read from a driver: the value (nullopt = SQL NULL) and whether it had
/// to be escaped by escapeInvalidUtf8() because its bytes are not valid UTF-8.
struct StoredText {
    std::optional<QString> text;
    bool escaped = false;
};

/// Decodes a column value read as raw bytes (SqlDialect::rawText(); a QByteArray) or as a
/// QString: valid UTF-8 comes back exactly, anything else escaped and flagged.
StoredText decodeStoredText(const QVariant &value);

/// `text` with control characters (C0, DEL, C1; U+2028/U+2029) written as `\n`, `\t`,
/// `\r`, `\0` or `\u{HHHH}`: one terminal line that cannot move the cursor, clear the
/// screen or ring the bell (the table format, for people; machine formats keep the text
/// exact and let JSON / CSV quoting carry it).
QString escapeControlChars(const QString &text);

} // namespace triage
