#pragma once

#include <QJsonDocument>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace triage {

/// The outcome of parsing a snapshot or payload (JSON text from a store). Parsing is
/// done off the GUI thread for large documents (DESIGN.md §3); the raw text is always
/// kept, because QJsonDocument rewrites numbers (docs/QT-PITFALLS.md).
struct ParsedJson {
    bool ok = false;
    QJsonValue root;       ///< object, array or scalar when ok
    QString error;         ///< e.g. "unterminated string at line 3, column 9 (offset 41)"
    /// Where the error is, as a QString index (UTF-16 units, from 0), -1 when ok: the first
    /// character of an illegal value ("tru", "<html>", "undefined"), else where the parser
    /// stopped (the end of a truncated text). Positions refer to `text` itself, also for
    /// bare scalars (which are parsed wrapped in [ ]).
    int errorOffset = -1;
    int errorLine = 0, errorColumn = 0; ///< 1-based; the column counts UTF-16 units too
    qint64 characters = 0; ///< size of the text
    bool isNull = false;   ///< the column was SQL NULL
    /// Set by parseJsonTextForDisplay() only: each member name an object writes more than
    /// once, "$.status: \"status\" 2 times" (root then keeps every occurrence, renamed by
    /// rawjson::renameDuplicateKeys()).
    QStringList duplicateKeys;
};

/// Parses JSON text. A bare scalar ("42", "\"x\"") is accepted as a scalar root; an empty
/// or whitespace-only text is an error ("empty document"); HTML or truncated text gets the
/// parser's error with line, column and offset.
ParsedJson parseJsonText(const QString &text);

/// Same, for a nullable column: nullopt gives isNull = true, ok = false, error "NULL".
ParsedJson parseJsonText(const std::optional<QString> &text);

/// The audit trail's bound (DESIGN.md §2: evidence is bounded and readable): at most this
/// many bytes (UTF-8) in the text columns of one triage_audit row.
constexpr qsizetype kAuditRowMaxBytes = 64 * 1024;

/// One large text (an upstream body, a snapshot, a whole evidence column) bounded to
/// `maxBytes` bytes — the single cut representation of the audit trail. When `bytes` is at
/// most `maxBytes` long it comes back as a JSON string (decoded as UTF-8). Otherwise as the
/// JSON object {"bytes": <full length>, "cut": true, "prefix": "<the longest start, whole
/// UTF-8 characters, that keeps the compact object within maxBytes>", "sha256": "<lowercase
/// hex of the full bytes>"}: the cut is said, and the full text (kept by its own store)
/// can be checked against the hash. Below about 150 bytes the prefix is empty and the
/// object may exceed `maxBytes`.
QJsonValue boundedJsonValue(const QByteArray &bytes, qsizetype maxBytes);

/// boundedJsonValue() for a text column: `text` itself when it fits in `maxBytes` (UTF-8),
/// else the compact JSON text of the cut object.
QString boundedText(const QString &text, qsizetype maxBytes);

/// parseJsonText() for showing a document (the console's JSON tree, DESIGN.md §4 "Odd
/// bytes"): where an object writes a member name more than once, `root` keeps every
/// occurrence (the 2nd, 3rd, … under the names rawjson::renameDuplicateKeys() gives) and
/// `duplicateKeys` lists them. Never use its root for decisions: the rules read the
/// stored text with parseJsonText() or rawjson.
ParsedJson parseJsonTextForDisplay(const std::optional<QString> &text);

/// Appends `s` as a JSON string literal (with its quotes), byte for byte as QJsonDocument
/// writes a string value in Compact and Indented form alike: UTF-8; `"` and `\\` escaped;
/// \b \f \n \r \t as such; every other character below U+0020 as `\u00xx` (lower-case
/// hex); a lone surrogate (not valid UTF-16) as `\uxxxx`; everything else as its UTF-8 bytes.
/// For canonical lines written in bulk without a QJsonArray per line (DESIGN.md §7
/// "Bundles"); tests/domain/tst_backend_unit checks it against QJsonDocument for every
/// UTF-16 code unit, surrogate pairs and mixes.
void appendJsonString(QByteArray *out, QStringView s);

} // namespace triage
