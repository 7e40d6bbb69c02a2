#pragma once

#include <QJsonDocument>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace triage {

/// The outcome of parsing a snapshot or payload (JSON text from a store). Parsing is
/// done off the GUI thread for large documents (DESIGN.md §3); the raw text is always
/// kept, because QJsonDocument rewrites numbers (QT-NOTES.md).
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

/// parseJsonText() for showing a document (the console's JSON tree, DESIGN.md §4 "Odd
/// bytes"): where an object writes a member name more than once, `root` keeps every
/// occurrence (the 2nd, 3rd, … under the names rawjson::renameDuplicateKeys() gives) and
/// `duplicateKeys` lists them. Never use its root for decisions: the rules read the
/// stored text with parseJsonText() or rawjson.
ParsedJson parseJsonTextForDisplay(const std::optional<QString> &text);

} // namespace triage
