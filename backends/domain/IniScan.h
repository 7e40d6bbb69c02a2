#pragma once

#include <QList>
#include <QString>

#include <optional>

class QSettings;

namespace triage {

/// One `key=value` entry of an INI file exactly as written (see scanIniFile()).
struct IniEntry {
    QString section;  ///< the enclosing "[section]" name as written (no brackets); "" before any section
    QString key;      ///< the text before '=', trimmed
    /// The text after '=', trimmed, continuation lines joined, comment and quotes kept:
    /// "X-Api-Version: 2; Accept: application/json" stays whole (QSettings would cut it at ';').
    QString rawValue;
    int line = 0;     ///< 1-based line of the key
    bool quoted = false; ///< the value starts with '"'
};

/// One section header: its name as written and its line.
struct IniSection {
    QString name;
    int line = 0;
};

/// A line that QSettings' INI reader would reject, misread or silently drop.
struct IniProblem {
    int line = 0;
    QString message; ///< e.g. "expected [section], key=value or a ; comment, found \"just text\""
};

/// The raw scan of an INI file: every section and every entry with its line, in file
/// order. QSettings reads the same file for the values but gives no line numbers, cuts
/// unquoted values at ';' and splits them at ','; this scan fills those gaps.
struct IniScan {
    QString path;
    bool readable = false;          ///< false: the file could not be opened (entries empty)
    QList<IniSection> sections;     ///< every "[name]" line (a name repeated keeps both)
    QList<IniEntry> entries;        ///< every key line
    QList<IniProblem> problems;     ///< lines that are not INI, in file order

    /// The first entry of `key` in [section], or nullptr.
    const IniEntry *find(const QString &section, const QString &key) const;
    /// The line of the first "[section]" header, or 0.
    int sectionLine(const QString &section) const;
};

/// Scans the INI file at `path` line by line. A line is a blank line, a comment (';' first;
/// QSettings takes '#' for a syntax error, and so does this scan), "[name]" (optionally
/// followed by a ';' comment) or "key=value"; a line ending in '\' continues on the next one.
/// Problems (each with its 1-based line): a line of another shape, "[" without "]", "[]",
/// text after "]", no key before '=', a quoted value that never closes or has text after
/// its closing quote (QSettings would run on into the following lines), a line that is not
/// UTF-8, a byte-order mark.
IniScan scanIniFile(const QString &path);

/// The value of `key` in [group] exactly as written in the INI file behind `s` (see
/// IniEntry::rawValue), when it is not quoted; nullopt otherwise (a quoted value, no such
/// key, or `s` not backed by an INI file). QSettings cuts an unquoted value at ';' (a
/// comment to it), which would silently drop every header after the first, and toggles
/// quoting at every '"', which would strip the quotes out of a JSON body.
std::optional<QString> rawUnquotedIniValue(const QSettings &s, const QString &group, const QString &key);

} // namespace triage
